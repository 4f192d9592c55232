//! What both CI cross-checks (host and guest) require of every scenario.

use netlab_crosscheck::record::ScenarioRecord;
use netlab_crosscheck::Load;

/// The third field of `net.ipv4.tcp_rmem` in this kernel.
pub fn rmem_max() -> u32 {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_rmem")
        .unwrap()
        .split_whitespace()
        .nth(2)
        .and_then(|v| v.parse().ok())
        .expect("tcp_rmem has three numbers")
}

/// Every pairing produced its figures (both probes, irtt, the isochronous
/// probe, tcp_info and qdisc samples), the readbacks agree with tc and ss,
/// B's receive buffer started at the kernel's tcp_rmem, not raised to its
/// max (method §1.3: the path is the kernel's defaults), netlab's
/// stream validated, and goodput lies in `goodput` (Mbit/s).
pub fn check_scenario(s: &ScenarioRecord, goodput: std::ops::Range<f64>, rmem_max: u32) {
    let what = format!("scenario {} ({} {})", s.index, s.arm, s.load_label);
    assert_eq!(s.error, None, "{what}");
    let first_b = s.tcp_b.iter().find(|x| x.record.info.is_some());
    let rcvbuf = first_b
        .and_then(|x| x.record.skmeminfo.as_ref())
        .map(|m| m.rcvbuf)
        .unwrap_or_else(|| panic!("{what}: B's first tcp_info sample has no skmeminfo"));
    assert!(
        rcvbuf < rmem_max,
        "{what}: B's receive buffer started at {rcvbuf}, tcp_rmem's max is {rmem_max}: the kernel's start was not kept"
    );
    let g = s.goodput_mbps.unwrap_or_else(|| panic!("{what}: goodput"));
    assert!(
        goodput.contains(&g),
        "{what}: goodput {g} at a 5 Mbit/s TBF"
    );
    assert!(
        s.tcp_a.len() >= 10 && s.tcp_b.len() >= 10,
        "{what}: tcp_info samples"
    );
    assert!(s.queue.len() >= 20, "{what}: qdisc samples");
    assert!(
        s.metrics.reductions.is_some() && s.metrics.skb_in_queue_bytes.is_some(),
        "{what}"
    );
    let p = s.probe_loaded.as_ref().unwrap();
    let i = s.irtt_loaded.as_ref().unwrap();
    let iso = s.iso_loaded.as_ref().unwrap();
    assert!(
        p.sent >= 1 && i.sent >= 10 && iso.sent >= 10,
        "{what}: probe {p:?} irtt {i:?} isochronous {iso:?}"
    );
    let c = s.readback.as_ref().unwrap();
    assert!(c.errors.is_empty(), "{what}: {:?}", c.errors);
    assert_eq!(c.qdisc_agrees(), Some(true), "{what}: tc vs netlab {c:?}");
    assert_eq!(c.tcp_agrees(), Some(true), "{what}: ss vs tcp_info {c:?}");
    match s.load.as_ref().unwrap() {
        Load::Netlab(_) => {
            let r = s.receiver.as_ref().unwrap();
            assert_eq!(r.validation_failures, 0, "{what}");
            assert!(r.bytes_total > 1_000_000, "{what}: {r:?}");
        }
        Load::Iperf3(_) => assert!(s.iperf_server.is_some(), "{what}"),
        // The ordinary receiver keeps no log: B's tcp_info counts its bytes.
        Load::Ordinary(_) => {
            let b = s.tcp_b.iter().rev().find_map(|x| x.record.info.as_ref());
            assert!(
                b.is_some_and(|i| i.bytes_received > 1_000_000),
                "{what}: B received {:?} bytes",
                b.map(|i| i.bytes_received)
            );
        }
    }
}
