//! Bounded waits with a silent other side: the probe against
//! an echo that reads every request and never replies ends by its end time
//! (+ 1 s). Loopback only, so it needs no privilege and always runs.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use netlab_probe::{connect_socket, run_probe, ProbeConfig, RequestOutcome};

/// A UDP socket that reads and ignores every datagram until stopped.
struct SilentEcho {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    read: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl SilentEcho {
    fn start() -> SilentEcho {
        let sock = UdpSocket::bind("127.0.0.1:0").expect("bind the silent echo");
        sock.set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        let addr = sock.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let read = Arc::new(AtomicU64::new(0));
        let (s, r) = (stop.clone(), read.clone());
        let thread = std::thread::spawn(move || {
            let hard_end = Instant::now() + Duration::from_secs(30);
            let mut buf = [0u8; 64];
            while !s.load(Ordering::Relaxed) && Instant::now() < hard_end {
                if sock.recv(&mut buf).is_ok() {
                    r.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        SilentEcho {
            addr,
            stop,
            read,
            thread: Some(thread),
        }
    }
}

impl Drop for SilentEcho {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[test]
fn privileged_bounds_probe_against_a_silent_echo_ends_by_its_end_time() {
    let echo = SilentEcho::start();
    let sock = connect_socket(None, echo.addr).expect("probe socket");
    let end = Duration::from_secs(3);
    let cfg = ProbeConfig::with_end(end);
    let t0 = Instant::now();
    let log = run_probe(&sock, t0, &cfg, None, |_| {}).expect("run_probe");
    let took = t0.elapsed();
    assert!(
        took <= end + Duration::from_secs(1),
        "the probe ran {took:?}, past its end {end:?} + 1 s"
    );
    assert!(!log.requests.is_empty(), "it sent requests");
    assert!(
        log.requests
            .iter()
            .all(|r| r.outcome == RequestOutcome::Timeout && r.rtt_ms.is_none()),
        "every request timed out: {:#?}",
        log.requests
    );
    // The echo did read them: the silence is on the reply side only.
    let read = echo.read.load(Ordering::Relaxed);
    assert_eq!(read, log.requests.len() as u64, "requests read by the echo");
    println!(
        "probe vs silent echo: {} requests, all timeouts, ended after {took:?} (end {end:?})",
        log.requests.len()
    );
}
