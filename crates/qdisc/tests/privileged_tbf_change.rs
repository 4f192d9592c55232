//! Host kernel, needs root/CAP_NET_ADMIN (an owned A–R–B; skips with a
//! printed reason otherwise, fails instead under
//! NETLAB_REQUIRE_PRIVILEGED=1): a rate schedule applied to a real TBF with
//! a pfifo beneath it (docs/method.md §15.3–§15.5) while A floods B with
//! UDP faster than any step. Checked: every change is acknowledged, the
//! pfifo's limit is the same after the changes as before (the kernel's
//! `fifo_set_limit` would have rewritten it), the TBF sent what the
//! schedule offered within 5 % over each backlogged stretch (plus the
//! burst each change refills), and an outage held the queue.

mod common;

use std::time::Duration;

use netlab_qdisc::rate_driver::{PlannedChange, TbfTarget};
use netlab_qdisc::{configure, QdiscSocket};
use netlab_qdisc_model::{
    fifo_child_limit, lateness_ms, Arm, BottleneckSpec, Handle, QdiscOptions, Rate, Tbf,
    ARM_HANDLE, TBF_HANDLE,
};
use netlab_topology::addresses::R_B_IF;
use netlab_topology::testing::require_privileged;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

const MBIT: u64 = 1_000_000;

#[test]
fn privileged_tbf_change_follows_a_schedule_and_leaves_the_arm_alone() {
    if !require_privileged("privileged_tbf_change_follows_a_schedule_and_leaves_the_arm_alone") {
        return;
    }
    let topo =
        TopologyGuard::build(&TopologySpec::new(RunId::random(), "tbf_change")).expect("A-R-B");
    let tbf = Tbf {
        rate: Rate(10 * MBIT),
        ..Tbf::spec_default()
    };
    let bottleneck = BottleneckSpec {
        tbf,
        arm: Arm::parse("pfifo limit 256").unwrap(),
    };
    let done = configure(&topo.r, R_B_IF, &bottleneck).expect("configure tbf+pfifo");
    let sock = QdiscSocket::open_in(&topo.r).unwrap();
    let before = sock.readback(done.ifindex, None, &done.psched).unwrap();
    let arm = before.by_handle(ARM_HANDLE).expect("pfifo 10:").clone();
    assert_eq!(fifo_child_limit(&arm), Some(256));

    // 10 → 2 Mbit/s at 1.5 s, an outage at 3 s, 10 Mbit/s at 3.5 s.
    let plan = vec![
        change(1500, 2 * MBIT, false),
        change(3000, 8, true),
        change(3500, 10 * MBIT, false),
    ];
    let target = TbfTarget {
        dev: R_B_IF.to_string(),
        ifindex: done.ifindex,
        handle: TBF_HANDLE,
        parent: Handle::ROOT,
        tbf,
        child: ARM_HANDLE,
        fifo_limit: fifo_child_limit(&arm),
        psched: done.psched,
    };
    // A floods B at 30 Mbit/s (1472-byte datagrams: 1514-byte frames).
    let log = common::flood::drive_under_flood(&topo, target, plan, Duration::from_millis(4500));
    let after = sock.readback(done.ifindex, None, &done.psched).unwrap();
    drop(sock);
    drop(topo);

    assert_eq!(log.changes.len(), 3, "{:?}", log.changes);
    for c in &log.changes {
        assert!(c.error.is_none() && c.applied_s.is_some(), "{c:?}");
    }
    let (p50, p99, max, n) = lateness_ms(&log.changes).unwrap();
    println!("lateness over {n} changes: p50 {p50:.3} ms, p99 {p99:.3} ms, max {max:.3} ms");
    assert!(log.failures.is_empty(), "{:?}", log.failures);

    // The arm is untouched: its limit is 256 packets still.
    let arm_after = after.by_handle(ARM_HANDLE).expect("pfifo 10:");
    assert!(
        matches!(
            arm_after.options,
            QdiscOptions::Pfifo { limit_packets: 256 }
        ),
        "{:?}",
        arm_after.options
    );
    let QdiscOptions::Tbf(t) = &after.by_handle(TBF_HANDLE).unwrap().options else {
        panic!("tbf options");
    };
    assert_eq!(
        t.rate.bits_per_sec(),
        10 * MBIT,
        "the last change is in force"
    );

    // Sent bytes over each step's backlogged stretch, from the readings
    // 200 ms after its change to its end.
    let burst = tbf.burst.0 as f64;
    for (from, to, rate) in [
        (0.2, 1.5, 10 * MBIT),
        (1.7, 3.0, 2 * MBIT),
        (3.7, 4.4, 10 * MBIT),
    ] {
        let (t0, b0) = common::flood::reading_at(&log.readings, from);
        let (t1, b1) = common::flood::reading_at(&log.readings, to);
        let offered = rate as f64 / 8.0 * (t1 - t0);
        let sent = (b1 - b0) as f64;
        println!(
            "{from}–{to} s: sent {sent:.0} B over {:.3} s, offered {offered:.0} B",
            t1 - t0
        );
        assert!(
            (sent - offered).abs() <= 0.05 * offered + burst,
            "{from}–{to} s: sent {sent} B, the schedule offered {offered:.0} B"
        );
    }
    // The outage held the queue: at most the refilled burst left.
    let (t0, b0) = common::flood::reading_at(&log.readings, 3.0);
    let (t1, b1) = common::flood::reading_at(&log.readings, 3.45);
    let sent = b1 - b0;
    println!("outage {t0:.3}–{t1:.3} s: sent {sent} B");
    assert!(
        sent as f64 <= burst + 2.0 * 1514.0,
        "the outage passed {sent} B"
    );
    let backlogged = log
        .readings
        .iter()
        .filter(|r| (3.05..3.45).contains(&r.at_s))
        .all(|r| r.arm_qlen > 0);
    assert!(backlogged, "the arm kept its queue through the outage");
}

/// The kernel fact the driver works around: a change that carries TBF's
/// own limit rewrites a pfifo child's limit to that number
/// (`tbf_change` → `fifo_set_limit`). Fails if a kernel stops doing it.
#[test]
fn privileged_tbf_change_with_its_own_limit_rewrites_a_pfifo_child() {
    if !require_privileged("privileged_tbf_change_with_its_own_limit_rewrites_a_pfifo_child") {
        return;
    }
    let topo =
        TopologyGuard::build(&TopologySpec::new(RunId::random(), "tbf_limit")).expect("A-R-B");
    let bottleneck = BottleneckSpec::spec(Arm::parse("pfifo limit 256").unwrap());
    let done = configure(&topo.r, R_B_IF, &bottleneck).expect("configure tbf+pfifo");
    let sock = QdiscSocket::open_in(&topo.r).unwrap();
    let tbf = Tbf {
        rate: Rate(2 * MBIT),
        ..bottleneck.tbf
    };
    let req = netlab_qdisc_model::tbf_change_request(
        R_B_IF,
        done.ifindex,
        TBF_HANDLE,
        Handle::ROOT,
        &tbf,
        None,
        &done.psched,
        0,
    )
    .unwrap();
    sock.apply(&req).expect("the change");
    let after = sock.readback(done.ifindex, None, &done.psched).unwrap();
    drop(sock);
    drop(topo);
    let arm = after.by_handle(ARM_HANDLE).expect("pfifo 10:");
    assert!(
        matches!(
            arm.options,
            QdiscOptions::Pfifo {
                limit_packets: 65536
            }
        ),
        "TBF's 64kb limit written into the pfifo as packets: {:?}",
        arm.options
    );
}

fn change(at_ms: u64, bits: u64, outage: bool) -> PlannedChange {
    PlannedChange {
        at: Duration::from_millis(at_ms),
        rate: Rate(bits),
        outage,
    }
}
