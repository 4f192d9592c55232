//! Privileged: the isochronous probe from A to the stamping echo in B over
//! an owned, unshaped A–R–B (host kernel). Needs root / CAP_NET_ADMIN;
//! skips with a printed reason otherwise (panics when
//! NETLAB_REQUIRE_PRIVILEGED=1).

mod common;

use std::time::Duration;

use netlab_probe::{IsoConfig, IsoOutcome, Phase};
use netlab_topology::testing::require_privileged;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

#[test]
fn privileged_iso_over_a_r_b_one_way_delays_sum_to_rtt_minus_turnaround() {
    if !require_privileged("privileged_iso_over_a_r_b_one_way_delays_sum_to_rtt_minus_turnaround") {
        return;
    }
    let spec = TopologySpec::new(RunId::random(), "iso");
    let topo = TopologyGuard::build(&spec).expect("build A-R-B");
    // 20 ms for 3 s of sending: slots 0, 20 ms, …, 3.0 s
    let cfg = IsoConfig::with_end(Duration::from_secs(4));
    let (log, echo) = common::iso_over_a_r_b(&topo, &spec, &cfg);

    assert_eq!(log.requests.len(), 151);
    assert!(!log.stopped_early, "{:?}", log.fatal_error);
    assert_eq!(
        log.replies.malformed + log.replies.unmatched,
        0,
        "{:?}",
        log.replies
    );
    let ok: Vec<_> = log
        .requests
        .iter()
        .filter(|r| r.outcome == IsoOutcome::Reply)
        .collect();
    let missed = log
        .requests
        .iter()
        .filter(|r| r.outcome == IsoOutcome::Missed)
        .count();
    // A busy shared machine may stall the sender for a slot or two, or
    // deschedule it past one request's timeout; anything else is a failure.
    let other: Vec<_> = log
        .requests
        .iter()
        .filter(|r| !matches!(r.outcome, IsoOutcome::Reply | IsoOutcome::Missed))
        .map(|r| (r.seq, r.outcome.clone()))
        .collect();
    assert!(
        missed <= 5 && other.len() <= 1 && other.iter().all(|(_, o)| *o == IsoOutcome::Timeout),
        "ok {} missed {missed} other {other:?}",
        ok.len()
    );
    assert_eq!(echo.stamped, ok.len() as u64);
    let mut worst = 0.0f64;
    for r in &ok {
        let (rtt, up, down, turn) = (
            r.rtt_ms.unwrap(),
            r.up_ms.unwrap(),
            r.down_ms.unwrap(),
            r.turnaround_ms.unwrap(),
        );
        // method §10.4: up + down == RTT − B's turnaround within 50 µs
        let err_us = ((up + down) - (rtt - turn)).abs() * 1e3;
        worst = worst.max(err_us);
        assert!(err_us < 50.0, "seq {}: {r:?}", r.seq);
        assert!(up > 0.0 && down > 0.0 && turn >= 0.0, "{r:?}");
        assert!(up < rtt && down < rtt, "{r:?}");
        // the A-side RTT from the log's own send/reply times agrees
        let rtt_s = (r.reply_s.unwrap() - r.send_s.unwrap()) * 1e3;
        assert!((rtt_s - rtt).abs() < 0.001, "{r:?}");
    }
    let up50 = common::quantile(ok.iter().map(|r| r.up_ms.unwrap()).collect(), 0.5);
    let down50 = common::quantile(ok.iter().map(|r| r.down_ms.unwrap()).collect(), 0.5);
    println!(
        "A-R-B idle: {} ok, {missed} missed; up p50 {up50:.4} ms, down p50 {down50:.4} ms; worst |up+down-(rtt-turn)| {worst:.3} us; send lateness p50 {:.1} us p99 {:.1} us",
        ok.len(),
        common::quantile(log.send_lateness_us(), 0.5),
        common::quantile(log.send_lateness_us(), 0.99),
    );
    assert!(up50 < 2.0 && down50 < 2.0, "idle veth path");

    let phases = log.phase_stats();
    let b = &phases
        .iter()
        .find(|p| p.phase == Phase::Baseline)
        .unwrap()
        .stats;
    assert_eq!(b.slots, 150, "0 … 2.98 s");
    assert_eq!(b.censored, 0);
    assert!(b.up.unwrap().p99_ms.is_some() && b.down.unwrap().p50_ms.is_some());
    let w = log.window_stats();
    assert_eq!(w.len(), 4, "windows [0,1) … [3,4)");
    assert_eq!(
        w.iter().map(|x| x.stats.slots).collect::<Vec<_>>(),
        [50, 50, 50, 1]
    );
    common::teardown(topo, &spec);
}

#[test]
fn privileged_iso_without_responder_is_all_censored_never_success() {
    if !require_privileged("privileged_iso_without_responder_is_all_censored_never_success") {
        return;
    }
    let spec = TopologySpec::new(RunId::random(), "iso_silent");
    let topo = TopologyGuard::build(&spec).expect("build A-R-B");
    let sock = topo
        .a
        .run(|| {
            netlab_probe::connect_socket(
                None,
                std::net::SocketAddr::from((netlab_topology::addresses::B_ADDR, spec.udp_port)),
            )
        })
        .unwrap()
        .unwrap();
    let cfg = IsoConfig {
        timeout: Duration::from_millis(300),
        quiet_before_end: Duration::from_millis(300),
        ..IsoConfig::with_end(Duration::from_millis(1000))
    };
    let log =
        netlab_probe::run_iso_probe(&sock, std::time::Instant::now(), &cfg, None, |_| {}).unwrap();
    assert_eq!(log.requests.len(), 36);
    let s = &log.phase_stats()[0].stats;
    assert_eq!(s.ok, 0);
    assert_eq!(s.rtt.p50_ms, None);
    assert!(log
        .requests
        .iter()
        .all(|r| r.rtt_ms.is_none() && r.up_ms.is_none()));
    if s.sent > 0 {
        assert_eq!(
            s.rtt_censored.p50,
            Some(netlab_probe::stats::RankQuantile::AtLeast(300.0))
        );
    }
    common::teardown(topo, &spec);
}
