//! Lateness of a TBF's rate changes (docs/method.md §15.4), on the host
//! kernel and then in the guest kernel:
//! `cargo bench -p netlab-qdisc --bench rate_change` (root).
//!
//! An A–R–B of its own, TBF 10 Mbit/s + `pfifo limit 256` on R's r1, A
//! flooding B with UDP at 30 Mbit/s (a backlogged queue, as a run has).
//! netlab-qdisc's rate driver (the one a run uses, its counter readings
//! included) alternates the rate between 10 and 2 Mbit/s at each change
//! rate in turn (changes per second) for `NETLAB_RATE_BENCH_CHANGES`
//! changes (default 200, at least 2 s); lateness is each change's ACK
//! time minus its planned time. Printed per change rate: p50, p99 and max
//! lateness, and the highest change rate whose p99 (and every slower
//! rate's) stays within 2 ms. The
//! baseline in the same run is one change every second (the rate a step
//! schedule makes): the other rates' p99 are given as ratios to it.
//!
//! The guest run boots Debian's user-mode-linux with `veth` and `sch_tbf`
//! and runs this same binary inside (`NETLAB_RATE_BENCH_INSIDE=1`); it is
//! skipped with a line when no guest kernel is installed.

#[path = "../tests/common/flood.rs"]
#[allow(dead_code)]
mod flood;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use netlab_os::StopFlag;
use netlab_qdisc::rate_driver::{drive, PlannedChange, RateDriverConfig, TbfTarget};
use netlab_qdisc::{configure, QdiscSocket};
use netlab_qdisc_model::{
    fifo_child_limit, lateness_ms, Arm, BottleneckSpec, Handle, Rate, Tbf, ARM_HANDLE, TBF_HANDLE,
};
use netlab_topology::addresses::R_B_IF;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

const INSIDE: &str = "NETLAB_RATE_BENCH_INSIDE";
const CHANGES: &str = "NETLAB_RATE_BENCH_CHANGES";
const RATES_PER_S: &[f64] = &[1.0, 10.0, 50.0, 100.0, 200.0, 500.0, 1000.0];

fn main() {
    if std::env::var_os(INSIDE).is_some() {
        measure("guest");
        return;
    }
    measure("host");
    in_guest();
}

fn in_guest() {
    if let Some(problem) = netlab_guest::available().problem {
        println!("guest: skipped ({problem})");
        return;
    }
    let exe = std::env::current_exe().expect("this bench's path");
    let cwd = std::env::current_dir().expect("current folder");
    let mut guest = netlab_guest::guest_for_test(exe, &cwd)
        .modules(["veth", "sch_tbf"])
        .env(INSIDE, "1");
    if let Ok(n) = std::env::var(CHANGES) {
        guest = guest.env(CHANGES, n);
    }
    let outcome = guest
        .deadline(Duration::from_secs(600))
        .run()
        .expect("the guest run");
    print!("{}", outcome.stdout);
    if !outcome.status.success() {
        eprintln!("guest run failed: {}\n{}", outcome.status, outcome.stderr);
    }
}

fn measure(kernel: &str) {
    let per_rate: usize = std::env::var(CHANGES)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let release = netlab_os::kernel_release().unwrap_or_default();
    println!("{kernel} kernel {release}: TBF rate changes under a 30 Mbit/s UDP flood");
    let topo = TopologyGuard::build(&TopologySpec::new(RunId::random(), "rate_bench"))
        .expect("A-R-B (needs root)");
    let tbf = Tbf {
        rate: Rate(10_000_000),
        ..Tbf::spec_default()
    };
    let bottleneck = BottleneckSpec {
        tbf,
        arm: Arm::parse("pfifo limit 256").unwrap(),
    };
    let done = configure(&topo.r, R_B_IF, &bottleneck).expect("tbf + pfifo");
    let sock = QdiscSocket::open_in(&topo.r).unwrap();
    let after = sock.readback(done.ifindex, None, &done.psched).unwrap();
    let target = TbfTarget {
        dev: R_B_IF.to_string(),
        ifindex: done.ifindex,
        handle: TBF_HANDLE,
        parent: Handle::ROOT,
        tbf,
        child: ARM_HANDLE,
        fifo_limit: after.by_handle(ARM_HANDLE).and_then(fifo_child_limit),
        psched: done.psched,
    };
    let sender = flood::socket_in_a(&topo);
    let stop = AtomicBool::new(false);
    let mut baseline_p99 = None;
    let mut within = None;
    let mut broken = false;
    std::thread::scope(|s| {
        s.spawn(|| flood::flood_until(&sender, &stop, Instant::now() + Duration::from_secs(600)));
        for &per_s in RATES_PER_S {
            let n = per_rate.max((2.0 * per_s) as usize);
            let spacing = Duration::from_secs_f64(1.0 / per_s);
            let plan: Vec<PlannedChange> = (1..=n)
                .map(|k| PlannedChange {
                    at: spacing * k as u32,
                    rate: Rate(if k % 2 == 1 { 2_000_000 } else { 10_000_000 }),
                    outage: false,
                })
                .collect();
            let origin = Instant::now() + Duration::from_millis(50);
            let config = RateDriverConfig {
                origin,
                deadline: origin + spacing * (n as u32 + 1),
                reading_every: Duration::from_millis(100),
            };
            let log = drive(&sock, &target, &plan, config, &StopFlag::new());
            let failed = log.changes.iter().filter(|c| c.error.is_some()).count();
            let Some((p50, p99, max, applied)) = lateness_ms(&log.changes) else {
                println!("  {per_s:>6} changes/s: none applied ({failed} failed)");
                continue;
            };
            let base = *baseline_p99.get_or_insert(p99);
            println!(
                "  {per_s:>6} changes/s: {applied} applied, {failed} failed; lateness p50 {p50:.3} ms  p99 {p99:.3} ms  max {max:.3} ms; p99 {:.2}× the 1/s baseline",
                p99 / base
            );
            // The highest rate below which every rate held: one rate
            // past 2 ms ends the run of rates that did.
            if p99 <= 2.0 && !broken {
                within = Some(per_s);
            } else {
                broken = true;
            }
        }
        stop.store(true, Ordering::SeqCst);
    });
    match within {
        Some(r) => println!(
            "  highest change rate with p99 within 2 ms at it and every slower rate: {r} changes/s"
        ),
        None => println!("  no change rate kept p99 within 2 ms"),
    }
}
