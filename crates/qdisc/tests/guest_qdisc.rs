//! Guest kernel (user-mode-linux via netlab-guest; the host has no
//! fq_codel): TBF + fq_codel on R's r1 configured over netlink, loaded by a
//! UDP burst, read back, and compared field by field with
//! `tc -s -d -j qdisc show` (iproute2 as independent check).

mod common;

use std::time::Duration;

use netlab_qdisc::{configure, read_psched, support, QdiscSocket};
use netlab_qdisc_model::{Arm, BottleneckSpec, QdiscOptions, QdiscXstats, ARM_HANDLE};
use netlab_topology::addresses::R_B_IF;
use netlab_topology::testing::ScratchNetns;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

const MODULES: &[&str] = &["sch_tbf", "sch_fq_codel", "sch_cake", "sch_pie", "veth"];

#[test]
fn guest_tbf_fq_codel_matches_tc() {
    netlab_guest::test_in_guest("guest_tbf_fq_codel_matches_tc", MODULES, || {
        let topo = TopologyGuard::build(&TopologySpec::new(RunId::random(), "qdisc_fq_codel"))
            .expect("A-R-B");
        let done = configure(&topo.r, R_B_IF, &BottleneckSpec::spec(Arm::spec_fq_codel()))
            .expect("configure");
        let sock = QdiscSocket::open_in(&topo.r).unwrap();
        let psched = read_psched();

        let after = sock.readback(done.ifindex, Some(0.0), &psched).unwrap();
        println!(
            "after config: {}",
            serde_json::to_string(&after.records).unwrap()
        );
        common::assert_readback_matches_tc(&after, &common::tc_show(topo.r.name(), R_B_IF));
        let QdiscOptions::FqCodel(o) = &after.by_handle(ARM_HANDLE).unwrap().options else {
            panic!("fq_codel options")
        };
        assert_eq!(o.limit, Some(256));
        assert_eq!(o.memory_limit, Some(1_048_576));
        assert_eq!(o.ecn, Some(true));
        // 5ms / 100ms as the kernel rounds them (codel time units).
        assert_eq!((o.target_us, o.interval_us), (Some(4999), Some(99_999)));

        // ECT(0) burst: fq_codel queues 256, drops the rest, CE-marks.
        common::udp_burst(&topo, 600, 1200, true);
        std::thread::sleep(Duration::from_millis(200));
        let loaded = sock.readback(done.ifindex, Some(1.0), &psched).unwrap();
        let child = loaded.by_handle(ARM_HANDLE).unwrap();
        let s = child.stats.unwrap();
        let Some(QdiscXstats::FqCodel(x)) = child.xstats else {
            panic!("fq_codel xstats")
        };
        println!("loaded: {s:?} {x:?}");
        assert!(s.backlog_packets > 0 && s.backlog_bytes > 0, "{s:?}");
        assert!(x.memory_usage > 0 && x.maxpacket >= 1200, "{x:?}");
        assert!(x.drop_overlimit > 0, "{x:?}");

        let drained = common::wait_drained(&sock, done.ifindex, ARM_HANDLE, Duration::from_secs(5));
        let Some(QdiscXstats::FqCodel(x)) = drained.by_handle(ARM_HANDLE).unwrap().xstats else {
            panic!("fq_codel xstats")
        };
        // CoDel marks ECT packets once they waited > 5ms for 100ms.
        assert!(x.ecn_mark > 0, "{x:?}");
        common::assert_readback_matches_tc(&drained, &common::tc_show(topo.r.name(), R_B_IF));
    });
}

#[test]
fn guest_support_check_finds_fq_codel() {
    netlab_guest::test_in_guest("guest_support_check_finds_fq_codel", MODULES, || {
        let scratch = ScratchNetns::new("qsupport").expect("scratch netns");
        let missing =
            support::missing_kinds(&scratch, &["tbf", "pfifo", "fq_codel", "no_such_qdisc"])
                .expect("support check");
        assert_eq!(missing, vec!["no_such_qdisc".to_string()]);
        // The pinned guest kernel has no sch_fq_pie, and says so.
        let missing = support::missing_kinds(&scratch, &["fq_pie", "cake", "pie"]).unwrap();
        assert_eq!(missing, vec!["fq_pie".to_string()]);
        let e = support::require_kinds(&scratch, &["fq_pie"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("qdisc fq_pie is not available in this kernel")
                && e.contains("built without sch_fq_pie"),
            "{e}"
        );
    });
}
