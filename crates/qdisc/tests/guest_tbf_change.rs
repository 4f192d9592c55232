//! Guest kernel (user-mode-linux 6.1 via netlab-guest; the host has no
//! fq_codel): a short rate schedule applied to a TBF with fq_codel
//! beneath it (docs/method.md §15.3–§15.4) while A floods B with UDP.
//! Checked: every change acknowledged, fq_codel's options the same after
//! the changes as before, the TBF's sent bytes within 5 % (plus the
//! refilled burst) of the schedule over each step, and the outage held.

mod common;

use std::time::Duration;

use netlab_qdisc::rate_driver::{PlannedChange, TbfTarget};
use netlab_qdisc::{configure, QdiscSocket};
use netlab_qdisc_model::{
    fifo_child_limit, lateness_ms, Arm, BottleneckSpec, Handle, Rate, Tbf, ARM_HANDLE, TBF_HANDLE,
};
use netlab_topology::addresses::R_B_IF;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

const MODULES: &[&str] = &["sch_tbf", "sch_fq_codel", "veth"];

#[test]
fn guest_tbf_change_follows_a_schedule_over_fq_codel() {
    netlab_guest::test_in_guest(
        "guest_tbf_change_follows_a_schedule_over_fq_codel",
        MODULES,
        || {
            let topo = TopologyGuard::build(&TopologySpec::new(RunId::random(), "tbf_change"))
                .expect("A-R-B");
            let tbf = Tbf {
                rate: Rate(10_000_000),
                ..Tbf::spec_default()
            };
            let bottleneck = BottleneckSpec {
                tbf,
                arm: Arm::spec_fq_codel(),
            };
            let done = configure(&topo.r, R_B_IF, &bottleneck).expect("tbf + fq_codel");
            let sock = QdiscSocket::open_in(&topo.r).unwrap();
            let before = sock.readback(done.ifindex, None, &done.psched).unwrap();
            let arm = before.by_handle(ARM_HANDLE).expect("fq_codel 10:").clone();
            assert_eq!(fifo_child_limit(&arm), None, "fq_codel is no FIFO");
            let plan = [
                (1000, 2_000_000, false),
                (2000, 8, true),
                (2500, 10_000_000, false),
            ]
            .map(|(ms, bits, outage)| PlannedChange {
                at: Duration::from_millis(ms),
                rate: Rate(bits),
                outage,
            })
            .to_vec();
            let target = TbfTarget {
                dev: R_B_IF.to_string(),
                ifindex: done.ifindex,
                handle: TBF_HANDLE,
                parent: Handle::ROOT,
                tbf,
                child: ARM_HANDLE,
                fifo_limit: None,
                psched: done.psched,
            };
            let log =
                common::flood::drive_under_flood(&topo, target, plan, Duration::from_millis(3400));
            let after = sock.readback(done.ifindex, None, &done.psched).unwrap();
            drop(sock);
            drop(topo);
            for c in &log.changes {
                assert!(c.error.is_none() && c.applied_s.is_some(), "{c:?}");
            }
            let (p50, p99, max, n) = lateness_ms(&log.changes).unwrap();
            println!("guest lateness over {n} changes: p50 {p50:.3} ms, p99 {p99:.3} ms, max {max:.3} ms");
            assert_eq!(
                after.by_handle(ARM_HANDLE).expect("fq_codel 10:").options,
                arm.options,
                "the changes left fq_codel's options alone"
            );
            let burst = tbf.burst.0 as f64;
            for (from, to, bits) in [(0.3, 1.0, 10_000_000u64), (1.2, 2.0, 2_000_000)] {
                let (t0, b0) = common::flood::reading_at(&log.readings, from);
                let (t1, b1) = common::flood::reading_at(&log.readings, to);
                let offered = bits as f64 / 8.0 * (t1 - t0);
                let sent = (b1 - b0) as f64;
                println!("{from}–{to} s: sent {sent:.0} B, offered {offered:.0} B");
                assert!(
                    (sent - offered).abs() <= 0.05 * offered + burst,
                    "{from}–{to} s: sent {sent} B against {offered:.0} B offered"
                );
            }
            let (_, b0) = common::flood::reading_at(&log.readings, 2.0);
            let (_, b1) = common::flood::reading_at(&log.readings, 2.45);
            assert!(
                (b1 - b0) as f64 <= burst + 2.0 * 1514.0,
                "the outage passed {} B",
                b1 - b0
            );
        },
    );
}
