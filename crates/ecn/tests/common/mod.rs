//! Shared by the privileged and guest tests: a bounded bulk TCP transfer
//! A→B through R while B's interface is captured.
#![allow(dead_code)]

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, SocketAddrV4, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use netlab_ecn::pcap::{PcapFileRecord, PcapHeader, PcapRecorder, PcapTarget};
use netlab_ecn::{Capture, CaptureConfig, EcnEvidence, Flow};
use netlab_topology::addresses::{A_ADDR, B_ADDR, B_IF};
use netlab_topology::Topology;

/// What one bulk run moved and saw.
pub struct BulkRun {
    /// The capture's evidence.
    pub evidence: EcnEvidence,
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
/// of bulk TCP A→B to `port`, stops the capture and returns its evidence.
pub fn bulk_with_capture(
    topo: &Topology,
    port: u16,
    load: Duration,
    cfg: CaptureConfig,
) -> BulkRun {
    bulk_with_recording::<std::fs::File>(topo, port, load, cfg, None).0
}

/// [`bulk_with_capture`] that also writes the headers pcapng through
/// `recorder`, returning its record.
pub fn bulk_with_recording<T: PcapTarget + Send>(
    topo: &Topology,
    port: u16,
    load: Duration,
    cfg: CaptureConfig,
    recorder: Option<PcapRecorder<T>>,
) -> (BulkRun, Option<PcapFileRecord>) {
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
        let stop = &stop;
        let cap = s.spawn(move || capture.run_recording(flow, stop, t0, recorder));
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
        let (evidence, record) = cap.join().expect("capture thread").expect("capture run");
        (
            BulkRun {
                evidence,
                received,
                load_time,
            },
            record,
        )
    })
}

/// The header of a test's packet file (t0 at the Unix epoch + 1.7e9 s).
pub fn pcap_header(file: &str) -> PcapHeader {
    PcapHeader {
        file: file.to_string(),
        ifname: B_IF.to_string(),
        if_description: "netlab-ecn test".to_string(),
        t0_unix: Duration::from_secs(1_700_000_000),
    }
}

/// Runs an outside tool to completion within `limit` (killed by pid past
/// it): exit code, stdout, stderr. Panics when the tool cannot be started.
pub fn tool(program: &str, args: &[&str], limit: Duration) -> (i32, String, String) {
    use std::process::{Command, Stdio};
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "{program} could not be started ({e}): install it (apt-get install -y {program})"
            )
        });
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let e = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for the tool") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{program} {args:?} ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (
        status.code().unwrap_or(-1),
        o.join().unwrap(),
        e.join().unwrap(),
    )
}

/// How many packets `tcpdump -r` reads from `path`; panics unless it reads
/// the whole file without complaint.
pub fn tcpdump_count(path: &std::path::Path) -> usize {
    let p = path.to_str().expect("utf-8 path");
    let (code, out, err) = tool("tcpdump", &["-n", "-r", p], Duration::from_secs(30));
    assert_eq!(code, 0, "tcpdump -r {p}: {err}");
    assert!(
        !err.contains("truncated") && !err.contains("error"),
        "tcpdump -r {p}: {err}"
    );
    out.lines().count()
}
