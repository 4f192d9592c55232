//! Shared by the privileged and guest tests: the echo in B driven by a
//! bounded poll loop, and the iso probe from A, over an owned A–R–B.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use netlab_probe::{connect_socket, run_iso_probe, EchoResponder, EchoStats, IsoConfig, IsoLog};
use netlab_topology::spec::{A_ADDR, B_ADDR};
use netlab_topology::{TopologyGuard, TopologySpec};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

/// Echo in B (its own thread, bounded to 60 s), iso probe in A with `cfg`.
pub fn iso_over_a_r_b(
    topo: &TopologyGuard,
    spec: &TopologySpec,
    cfg: &IsoConfig,
) -> (IsoLog, EchoStats) {
    let echo_addr = SocketAddr::from((B_ADDR, spec.udp_port));
    let mut echo = topo
        .b
        .run(|| EchoResponder::bind(echo_addr))
        .unwrap()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stop_b = stop.clone();
    let b_loop = std::thread::spawn(move || {
        let hard_end = Instant::now() + Duration::from_secs(60);
        while !stop_b.load(Ordering::Relaxed) && Instant::now() < hard_end {
            let mut fds = [PollFd::new(echo.as_fd(), PollFlags::POLLIN)];
            poll(&mut fds, PollTimeout::from(20u8)).expect("poll in B");
            echo.drain().expect("drain");
        }
        echo.stats()
    });
    // The path first carries a packet (as netlab's runner makes sure before
    // t0): on a just-built A–R–B an ARP request sent before the links'
    // qdiscs are active is lost, and its retry comes 1 s later, with the
    // first requests queued behind it.
    topo.a
        .run(warm_path)
        .unwrap()
        .expect("the path answers within 5 s");
    let sock = topo
        .a
        .run(|| connect_socket(None, echo_addr))
        .unwrap()
        .unwrap();
    let log = run_iso_probe(&sock, Instant::now(), cfg, None, |_| {}).expect("run_iso_probe");
    stop.store(true, Ordering::Relaxed);
    (log, b_loop.join().unwrap())
}

/// From A (call inside A): a datagram to B's discard port, every 200 ms
/// until B's ICMP port unreachable comes back (A's, R's and B's neighbours
/// resolved), for at most 5 s; returns how long it took.
fn warm_path() -> std::io::Result<Duration> {
    let started = Instant::now();
    let s = std::net::UdpSocket::bind((A_ADDR, 0))?;
    s.connect((B_ADDR, 9))?;
    s.set_read_timeout(Some(Duration::from_millis(200)))?;
    let mut buf = [0u8; 64];
    while started.elapsed() < Duration::from_secs(5) {
        s.send(b"warm-up")?;
        match s.recv(&mut buf) {
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                return Ok(started.elapsed())
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
            Ok(_) => return Err(std::io::Error::other("a reply on the discard port")),
        }
    }
    Err(std::io::Error::other("no answer within 5 s"))
}

/// Nearest-rank quantile of `v` (sorted here).
pub fn quantile(mut v: Vec<f64>, q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let k = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[k - 1]
}

/// Tears down and checks nothing of ours is left.
pub fn teardown(topo: TopologyGuard, spec: &TopologySpec) {
    let names = spec.netns_names();
    for r in topo.teardown() {
        assert!(r.error.is_none(), "{r:?}");
    }
    for name in &names {
        assert!(!netlab_topology::netns::exists(name), "{name} leaked");
    }
}
