//! What the bottleneck queue holds with the veths' offloads off and on
//! (method §1.6), under a bulk TCP upload A → B through TBF 5mbit on R's
//! `r1`:
//!
//! - host kernel (root; skipped without unless `NETLAB_REQUIRE_PRIVILEGED=1`),
//!   TBF + pfifo: pfifo keeps no largest packet, so the queue's skbs are
//!   measured as its backlog bytes ÷ its length in skbs, sampled every
//!   20 ms. With offloads off no sample's mean skb exceeds MTU + 14 (every
//!   skb is one frame); with the kernel's offloads some sample's does (the
//!   queue holds GSO/TSO aggregates; a mean above one frame means at least
//!   one skb larger than a frame).
//! - guest kernel (user-mode-linux), TBF + fq_codel: fq_codel's own
//!   `maxpacket`, the largest skb it has queued: ≤ 1514 with offloads off,
//!   > 1514 with the kernel's.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use netlab_qdisc::{configure, read_psched, QdiscSocket};
use netlab_qdisc_model::{Arm, BottleneckSpec, QdiscXstats, ARM_HANDLE};
use netlab_topology::addresses::{B_ADDR, R_B_IF};
use netlab_topology::testing::require_privileged;
use netlab_topology::{Offloads, RunId, Topology, TopologyGuard, TopologySpec};

/// MTU + the Ethernet header: the largest frame on the path.
const FRAME: u32 = 1500 + 14;
/// How long the upload runs.
const LOAD: Duration = Duration::from_secs(3);

/// Builds A–R–B with `offloads` and checks the read-back state of every
/// veth end: all aggregation features off for `Off`; TSO on for `Kernel`.
fn build(offloads: Offloads, label: &str) -> TopologyGuard {
    let mut spec = TopologySpec::new(RunId::random(), label);
    spec.offloads = offloads;
    let topo = TopologyGuard::build(&spec).expect("A-R-B");
    let rb = topo.readback().expect("readback");
    let mut ends = 0;
    for ns in &rb.namespaces {
        for l in ns
            .links
            .iter()
            .filter(|l| l.kind.as_deref() == Some("veth"))
        {
            ends += 1;
            assert_eq!(l.mtu, Some(1500), "{}", l.name);
            let f = l.offloads.as_ref().expect("features read back");
            let tso = f.iter().find(|s| s.name == "tx-tcp-segmentation").unwrap();
            match offloads {
                Offloads::Off => assert_eq!(l.offloads_all_off(), Some(true), "{f:?}"),
                Offloads::Kernel => assert!(tso.active && !tso.fixed, "{f:?}"),
            }
        }
    }
    assert_eq!(ends, 4, "a0, r0, r1, b0");
    topo
}

/// A bulk TCP upload A → B for [`LOAD`]; returns the bytes B read.
fn upload(topo: &Topology, port: u16) -> std::thread::JoinHandle<u64> {
    let addr = SocketAddr::from((B_ADDR, port));
    let listener = topo
        .b
        .run(|| TcpListener::bind(addr))
        .unwrap()
        .expect("B listens");
    let stream = topo
        .a
        .run(|| TcpStream::connect_timeout(&addr, Duration::from_secs(3)))
        .unwrap()
        .expect("A connects");
    let reader = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().expect("B accepts");
        conn.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0u64;
        while let Ok(n) = conn.read(&mut buf) {
            if n == 0 {
                break;
            }
            total += n as u64;
        }
        total
    });
    std::thread::spawn(move || {
        let mut stream = stream;
        stream
            .set_write_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let block = vec![0x5au8; 1 << 16];
        let end = Instant::now() + LOAD;
        while Instant::now() < end {
            if stream.write(&block).is_err() {
                continue; // timed out: the queue is full; try again
            }
        }
        drop(stream);
        reader.join().unwrap()
    })
}

/// The largest mean skb (backlog bytes ÷ skbs) of pfifo under the upload.
fn pfifo_largest_mean_skb(offloads: Offloads, label: &str) -> f64 {
    let topo = build(offloads, label);
    let done = configure(&topo.r, R_B_IF, &BottleneckSpec::spec(Arm::spec_pfifo())).unwrap();
    let sock = QdiscSocket::open_in(&topo.r).unwrap();
    let psched = read_psched();
    let load = upload(&topo, 46020);
    let mut largest = 0f64;
    let end = Instant::now() + LOAD;
    while Instant::now() < end {
        let rb = sock.readback(done.ifindex, None, &psched).unwrap();
        let s = rb.by_handle(ARM_HANDLE).unwrap().stats.unwrap();
        if s.qlen > 0 {
            largest = largest.max(f64::from(s.backlog_bytes) / f64::from(s.qlen));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let bytes = load.join().unwrap();
    println!("{offloads:?}: largest mean skb in pfifo {largest:.0} B, {bytes} B uploaded");
    assert!(bytes > 500_000, "the upload ran: {bytes}");
    largest
}

#[test]
fn privileged_pfifo_holds_frames_with_offloads_off_and_aggregates_with_them_on() {
    if !require_privileged(
        "privileged_pfifo_holds_frames_with_offloads_off_and_aggregates_with_them_on",
    ) {
        return;
    }
    let off = pfifo_largest_mean_skb(Offloads::Off, "offl_off");
    let on = pfifo_largest_mean_skb(Offloads::Kernel, "offl_on");
    assert!(off > 0.0 && off <= f64::from(FRAME), "off: {off}");
    assert!(on > f64::from(FRAME), "kernel: {on}");
}

#[test]
fn privileged_a_bad_mtu_is_refused_before_anything_is_built() {
    if !require_privileged("privileged_a_bad_mtu_is_refused_before_anything_is_built") {
        return;
    }
    let mut spec = TopologySpec::new(RunId::random(), "badmtu");
    spec.mtu = 67;
    let e = Topology::build(&spec).unwrap_err().to_string();
    assert!(e.contains("MTU 67"), "{e}");
    for n in spec.netns_names() {
        assert!(!netlab_topology::netns::exists(&n), "{n}");
    }
    // The largest one a veth takes is built, and read back on every end.
    spec.mtu = 65535;
    let topo = TopologyGuard::build(&spec).unwrap();
    let rb = topo.readback().unwrap();
    let mtus: Vec<Option<u32>> = rb
        .namespaces
        .iter()
        .flat_map(|n| n.links.iter().filter(|l| l.kind.as_deref() == Some("veth")))
        .map(|l| l.mtu)
        .collect();
    assert_eq!(mtus, vec![Some(65535); 4]);
}

/// fq_codel's `maxpacket` after the upload.
fn fq_codel_maxpacket(offloads: Offloads, label: &str) -> u32 {
    let topo = build(offloads, label);
    let done = configure(&topo.r, R_B_IF, &BottleneckSpec::spec(Arm::spec_fq_codel())).unwrap();
    let load = upload(&topo, 46020);
    let bytes = load.join().unwrap();
    let sock = QdiscSocket::open_in(&topo.r).unwrap();
    let rb = sock.readback(done.ifindex, None, &read_psched()).unwrap();
    let Some(QdiscXstats::FqCodel(x)) = rb.by_handle(ARM_HANDLE).unwrap().xstats else {
        panic!("fq_codel xstats")
    };
    println!(
        "{offloads:?}: fq_codel maxpacket {} B, {bytes} B uploaded",
        x.maxpacket
    );
    assert!(bytes > 500_000, "the upload ran: {bytes}");
    x.maxpacket
}

#[test]
fn guest_fq_codel_maxpacket_is_one_frame_with_offloads_off() {
    netlab_guest::test_in_guest(
        "guest_fq_codel_maxpacket_is_one_frame_with_offloads_off",
        &["sch_tbf", "sch_fq_codel", "veth"],
        || {
            let off = fq_codel_maxpacket(Offloads::Off, "offl_off");
            let on = fq_codel_maxpacket(Offloads::Kernel, "offl_on");
            assert!(off > 0 && off <= FRAME, "off: {off}");
            assert!(on > FRAME, "kernel: {on}");
        },
    );
}
