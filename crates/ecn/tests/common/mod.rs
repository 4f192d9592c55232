//! Shared by the privileged and guest tests: a bounded bulk TCP transfer
//! A→B through R while B's interface is captured.
#![allow(dead_code)]

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, SocketAddrV4, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use netlab_ecn::{Capture, CaptureConfig, EcnReport, Flow};
use netlab_topology::spec::{A_ADDR, B_ADDR, B_IF};
use netlab_topology::Topology;

/// What one bulk run moved and saw.
pub struct BulkRun {
    /// The capture's report.
    pub report: EcnReport,
    /// Bytes the sink in B read.
    pub received: u64,
    /// Wall time of the load.
    pub load_time: Duration,
}

/// Reads everything from one connection on `listener`, bounded by `deadline`.
fn sink(listener: TcpListener, deadline: Instant) -> u64 {
    listener
        .set_nonblocking(true)
        .expect("nonblocking listener");
    let mut conn = loop {
        match listener.accept() {
            Ok((c, _)) => break c,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                assert!(
                    Instant::now() < deadline,
                    "sink: no connection before deadline"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => panic!("sink: accept: {e}"),
        }
    };
    conn.set_nonblocking(false).expect("blocking conn");
    conn.set_read_timeout(Some(Duration::from_millis(200)))
        .expect("read timeout");
    let mut buf = vec![0u8; 256 * 1024];
    let mut total = 0u64;
    while Instant::now() < deadline {
        match conn.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total += n as u64,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) => panic!("sink: read: {e}"),
        }
    }
    total
}

/// Writes to `stream` for `load`, then closes it.
fn send(mut stream: TcpStream, load: Duration) {
    stream
        .set_write_timeout(Some(Duration::from_millis(200)))
        .expect("write timeout");
    let buf = vec![0x5au8; 128 * 1024];
    let end = Instant::now() + load;
    while Instant::now() < end {
        match stream.write(&buf) {
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) => panic!("sender: write: {e}"),
        }
    }
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

/// Opens the capture on B's `b0` (inside B, before the connect), runs `load`
/// of bulk TCP A→B to `port`, stops the capture and returns its report.
pub fn bulk_with_capture(
    topo: &Topology,
    port: u16,
    load: Duration,
    cfg: CaptureConfig,
) -> BulkRun {
    let capture = topo
        .b
        .run(|| Capture::open(B_IF, cfg))
        .expect("enter B")
        .expect("open capture in B");
    let listener = topo
        .b
        .run(|| TcpListener::bind(SocketAddrV4::new(B_ADDR, port)))
        .expect("enter B")
        .expect("bind sink in B");
    let flow = Flow {
        a: SocketAddrV4::new(A_ADDR, 0),
        b: SocketAddrV4::new(B_ADDR, port),
    };
    let stop = AtomicBool::new(false);
    let t0 = Instant::now();
    let deadline = t0 + load + Duration::from_secs(10);
    std::thread::scope(|s| {
        let cap = s.spawn(|| capture.run(flow, &stop, t0));
        let sink = s.spawn(move || sink(listener, deadline));
        let dst = SocketAddr::V4(SocketAddrV4::new(B_ADDR, port));
        let stream = topo
            .a
            .run(|| TcpStream::connect_timeout(&dst, Duration::from_secs(5)))
            .expect("enter A")
            .expect("connect A→B");
        let started = Instant::now();
        send(stream, load);
        let received = sink.join().expect("sink thread");
        let load_time = started.elapsed();
        // Let the last ACK/FIN frames reach the capture socket.
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, Ordering::Release);
        let report = cap.join().expect("capture thread").expect("capture run");
        BulkRun {
            report,
            received,
            load_time,
        }
    })
}
