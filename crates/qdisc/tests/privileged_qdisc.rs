//! Host kernel, needs root/CAP_NET_ADMIN: TBF + pfifo on R's r1 in an
//! owned A–R–B, configured over netlink, read back, and compared field by
//! field with `tc -s -d -j qdisc show` (iproute2 as independent check).

mod common;

use std::time::{Duration, Instant};

use netlab_qdisc::{
    configure, read_psched, support, QdiscError, QdiscSamplerConfig, QdiscSocket, Sampler,
};
use netlab_qdisc_model::{
    Arm, BottleneckSpec, QdiscOptions, SamplerStop, ARM_HANDLE, ARM_PARENT, TBF_HANDLE,
};
use netlab_topology::addresses::R_B_IF;
use netlab_topology::testing::{require_privileged, ScratchNetns};
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

#[test]
fn privileged_tbf_pfifo_matches_tc() {
    if !require_privileged("privileged_tbf_pfifo_matches_tc") {
        return;
    }
    let topo =
        TopologyGuard::build(&TopologySpec::new(RunId::random(), "qdisc_pfifo")).expect("A-R-B");
    let done = configure(&topo.r, R_B_IF, &BottleneckSpec::spec(Arm::spec_pfifo()))
        .expect("configure tbf+pfifo");
    assert_eq!(done.requests.len(), 2);
    let sock = QdiscSocket::open_in(&topo.r).unwrap();
    let psched = read_psched();

    // Right after configuration: options, zero-ish counters. R's own IPv6
    // housekeeping (an MLD report, 90 bytes) may cross r1 while we compare:
    // compare a still moment (two readbacks around tc's agree).
    let mut still = None;
    for _ in 0..10 {
        let before = sock.readback(done.ifindex, Some(0.0), &psched).unwrap();
        let tc = common::tc_show(topo.r.name(), R_B_IF);
        let again = sock.readback(done.ifindex, Some(0.0), &psched).unwrap();
        let stats = |rb: &netlab_qdisc_model::Readback| {
            rb.records.iter().map(|r| r.stats).collect::<Vec<_>>()
        };
        if stats(&before) == stats(&again) {
            still = Some((before, tc));
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let (after, tc) = still.expect("r1's counters stood still for one comparison");
    println!(
        "after config: {}",
        serde_json::to_string_pretty(&after.records).unwrap()
    );
    common::assert_readback_matches_tc(&after, &tc);
    let tbf = after.by_handle(TBF_HANDLE).expect("tbf 1:");
    let QdiscOptions::Tbf(t) = &tbf.options else {
        panic!("tbf options")
    };
    assert_eq!(t.rate.bits_per_sec(), 5_000_000);
    assert_eq!(t.limit_bytes, 65536);
    assert_eq!(
        t.burst_bytes, 16383,
        "16kb as tc computes it back from ticks"
    );
    assert_eq!(
        t.buffer_ticks, 409_600,
        "the kernel recomputes buffer from TCA_TBF_BURST"
    );
    assert_eq!(after.by_handle(ARM_HANDLE).unwrap().parent, ARM_PARENT);
    assert!(matches!(
        after.by_handle(ARM_HANDLE).unwrap().options,
        QdiscOptions::Pfifo { limit_packets: 256 }
    ));

    // Under load: a standing queue in pfifo, drops once 256 packets wait.
    common::udp_burst(&topo, 600, 1200, false);
    let loaded = sock.readback(done.ifindex, Some(1.0), &psched).unwrap();
    let child = loaded.stats_of(ARM_HANDLE).unwrap();
    println!("loaded child {child:?}");
    assert!(
        child.backlog_packets > 100 && child.backlog_bytes > 100_000,
        "{child:?}"
    );
    assert!(child.drops > 0, "{child:?}");
    assert!(loaded.stats_of(TBF_HANDLE).unwrap().overlimits > 0);

    // Drained: every counter equals tc's.
    let drained = common::wait_drained(&sock, done.ifindex, ARM_HANDLE, Duration::from_secs(5));
    common::assert_readback_matches_tc(&drained, &common::tc_show(topo.r.name(), R_B_IF));
    assert_eq!(
        drained.redecode().unwrap(),
        drained,
        "raw bytes decode to the same records"
    );
    assert!(!hex::decode(&drained.raw_hex).unwrap().is_empty());
}

#[test]
fn privileged_sampler_sees_the_queue_build_and_drain() {
    if !require_privileged("privileged_sampler_sees_the_queue_build_and_drain") {
        return;
    }
    let topo =
        TopologyGuard::build(&TopologySpec::new(RunId::random(), "qdisc_sampler")).expect("A-R-B");
    let done =
        configure(&topo.r, R_B_IF, &BottleneckSpec::spec(Arm::spec_pfifo())).expect("configure");
    let origin = Instant::now();
    let mut cfg = QdiscSamplerConfig::new(
        Duration::from_millis(20),
        origin,
        origin + Duration::from_secs(10),
    );
    cfg.keep_raw = false;
    let sampler = Sampler::start(&topo.r, done.ifindex, read_psched(), cfg).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    common::udp_burst(&topo, 400, 1200, false);
    std::thread::sleep(Duration::from_millis(900));
    let series = sampler.stop().unwrap();
    assert_eq!(series.stopped_by, SamplerStop::Stopped);
    assert!(series.failures.is_empty(), "{:?}", series.failures);
    let backlog = series.backlog_of(ARM_HANDLE);
    println!(
        "{} samples; backlog series (t_s, bytes, pkts): {:?}",
        backlog.len(),
        backlog
    );
    assert!(
        backlog.len() >= 20,
        "about 50 samples expected, got {}",
        backlog.len()
    );
    let peak = backlog.iter().map(|b| b.2).max().unwrap();
    assert!(peak > 100, "peak backlog {peak}");
    assert_eq!(backlog.first().unwrap().2, 0, "empty before the burst");
    assert!(
        backlog.windows(2).all(|w| w[0].0 < w[1].0),
        "time increases"
    );
    // 400 × 1228 B at 5 Mbit/s drains in < 0.9 s.
    assert_eq!(backlog.last().unwrap().2, 0, "drained at the end");

    // Bounded by its deadline too.
    let origin = Instant::now();
    let cfg = QdiscSamplerConfig::new(
        Duration::from_millis(50),
        origin,
        origin + Duration::from_millis(300),
    );
    let sampler = Sampler::start(&topo.r, done.ifindex, read_psched(), cfg).unwrap();
    let t = Instant::now();
    while !sampler.is_finished() {
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "sampler ignored its deadline"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let series = sampler.stop().unwrap();
    assert_eq!(series.stopped_by, SamplerStop::Deadline);
    assert!(
        (4..=8).contains(&series.samples.len()),
        "{}",
        series.samples.len()
    );
}

#[test]
fn privileged_probe_and_refusals_on_the_host_kernel() {
    if !require_privileged("privileged_probe_and_refusals_on_the_host_kernel") {
        return;
    }
    let scratch = ScratchNetns::new("qsupport").expect("scratch netns");
    let missing = support::missing_kinds(&scratch, &["tbf", "pfifo", "bfifo", "no_such_qdisc"])
        .expect("support check");
    assert_eq!(missing, vec!["no_such_qdisc".to_string()]);
    let fq_codel_missing = support::missing_kinds(&scratch, &["fq_codel"])
        .expect("support check")
        .len()
        == 1;
    println!(
        "host kernel {} has fq_codel: {}",
        netlab_os::kernel_release().unwrap(),
        !fq_codel_missing
    );

    let topo =
        TopologyGuard::build(&TopologySpec::new(RunId::random(), "qdisc_refuse")).expect("A-R-B");
    if fq_codel_missing {
        let e =
            configure(&topo.r, R_B_IF, &BottleneckSpec::spec(Arm::spec_fq_codel())).unwrap_err();
        let msg = e.to_string();
        println!("{msg}");
        assert!(matches!(e, QdiscError::KindUnavailable { .. }), "{e:?}");
        assert_eq!(
            msg,
            format!(
                "qdisc fq_codel is not available in this kernel ({}): its module sch_fq_codel is not loaded and could not be loaded",
                netlab_os::kernel_release().unwrap()
            )
        );
    }
    // A second TBF at the same place is refused with EEXIST, naming the request.
    let sock = QdiscSocket::open_in(&topo.r).unwrap();
    let ifindex = netlab_qdisc::ifindex_in(&topo.r, R_B_IF).unwrap();
    let reqs = BottleneckSpec::spec(Arm::spec_pfifo())
        .requests(R_B_IF, ifindex, &read_psched())
        .unwrap();
    let _ = sock.apply(&reqs[0]);
    let e = sock.apply(&reqs[0]).unwrap_err();
    println!("{e}");
    assert_eq!(e.errno(), Some(17), "{e}");
    assert!(
        e.to_string()
            .starts_with("tc qdisc add dev r1 root handle 1: tbf"),
        "{e}"
    );
    assert!(matches!(
        netlab_qdisc::ifindex_in(&topo.r, "nosuch0"),
        Err(QdiscError::NoSuchInterface { .. })
    ));
}
