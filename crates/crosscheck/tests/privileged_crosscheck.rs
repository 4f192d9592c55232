//! Host kernel (root): the cross-check where the host has the arm — pfifo
//! behind TBF — one short round of netlab vs iperf3 with irtt and the
//! tc/ss readback check, so the host path of every pairing runs in CI too.
//! Like the guest test it checks that every pairing produced its figures,
//! that the readbacks agree and that both loads' receivers started at
//! tcp_rmem's max; it does not judge the loads' agreement (one short round
//! cannot; the full run reports it).

use netlab_crosscheck::{run, CrosscheckConfig, Load, Timeline};

#[test]
fn privileged_short_crosscheck_on_the_host_kernel() {
    if !netlab_sys::testing::require_privileged("privileged_short_crosscheck_on_the_host_kernel") {
        return;
    }
    let mut cfg = CrosscheckConfig::new(1);
    cfg.arms = vec!["pfifo limit 256".into()];
    cfg.timeline = Timeline::SHORT;
    cfg.iso_probe = true;
    // iperf3 and irtt missing is an environment failure, named by the run.
    let result = run(&cfg, |l| println!("{l}")).expect("cross-check runs on the host");
    let text = result.markdown();
    println!("{text}");
    assert!(
        text.contains("## 1. Load")
            && text.contains("## 2b. Probe")
            && text.contains("consistent within sampling noise")
    );
    let rmem_max: u32 = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_rmem")
        .unwrap()
        .split_whitespace()
        .nth(2)
        .and_then(|v| v.parse().ok())
        .expect("tcp_rmem has three numbers");
    assert_eq!(result.scenarios.len(), 2);
    for s in &result.scenarios {
        let what = format!("scenario {} ({} {})", s.index, s.arm, s.load_label);
        assert_eq!(s.error, None, "{what}");
        let g = s.goodput_mbps.unwrap_or_else(|| panic!("{what}: goodput"));
        // Loose: in a 4 s window a loss recovery that releases megabytes
        // of out-of-order data at once (this kernel's receive buffers go
        // to 32 MB) can lift goodput by receive time well above the rate.
        assert!(g > 1.0 && g < 20.0, "{what}: goodput {g} at a 5 Mbit/s TBF");
        let first_b = s.tcp_b.iter().find(|x| x.record.info.is_some());
        assert_eq!(
            first_b
                .and_then(|x| x.record.skmem.as_ref())
                .map(|m| m.rcvbuf),
            Some(rmem_max),
            "{what}: B's receive buffer at the flow's start"
        );
        let (p, i) = (
            s.probe_loaded.as_ref().unwrap(),
            s.irtt_loaded.as_ref().unwrap(),
        );
        assert!(
            p.sent >= 1 && i.sent >= 10,
            "{what}: probe {p:?} irtt {i:?}"
        );
        let iso = s.iso_loaded.as_ref().unwrap();
        assert!(iso.sent >= 10, "{what}: isochronous probe {iso:?}");
        let c = s.readback.as_ref().unwrap();
        assert!(c.errors.is_empty(), "{what}: {:?}", c.errors);
        assert_eq!(c.qdisc_agrees(), Some(true), "{what}: tc vs netlab {c:?}");
        assert_eq!(c.tcp_agrees(), Some(true), "{what}: ss vs tcp_info {c:?}");
        match s.load.as_ref().unwrap() {
            Load::Netlab(_) => {
                let r = s.receiver.as_ref().unwrap();
                assert_eq!(r.validation_failures, 0, "{what}");
            }
            Load::Iperf3(_) => assert!(s.iperf_server.is_some(), "{what}"),
        }
    }
}
