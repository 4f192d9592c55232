//! Seeded fault trials (issue 14 §2), the few that CI runs: host-kernel
//! runs interrupted by SIGINT, SIGTERM or SIGKILL (+ `orchestrator
//! cleanup`) at random points, and guest-kernel runs where the guest's
//! process group may also be killed. After each trial nothing of that run
//! may be left. Needs root (and the user-mode-linux kernel for the guest
//! trials); skips with a printed reason otherwise, fails instead under
//! NETLAB_REQUIRE_PRIVILEGED=1.
//!
//! The seed is printed; `NETLAB_FAULT_SEED=<n>` replays it. Long runs:
//! `cargo run -p orchestrator --example fault_trials -- --host 50 --guest 20`.

mod faults;

use std::path::PathBuf;

use faults::{clock_seed, run_plan, summarize, Plan};
use netlab_topology::privilege::require_privileged;

const BIN: &str = env!("CARGO_BIN_EXE_orchestrator");

fn seed() -> u64 {
    match std::env::var("NETLAB_FAULT_SEED") {
        Ok(s) => {
            let s = s.trim();
            s.strip_prefix("0x")
                .map_or_else(|| s.parse(), |h| u64::from_str_radix(h, 16))
                .expect("NETLAB_FAULT_SEED is a number")
        }
        Err(_) => clock_seed(),
    }
}

fn plan(tag: &str, host: u32, guest: u32) -> Plan {
    Plan {
        bin: PathBuf::from(BIN),
        seed: seed(),
        host,
        guest,
        work: std::env::temp_dir().join(format!("netlab-faults-{tag}-{}", std::process::id())),
    }
}

fn assert_clean(trials: &[faults::Trial]) {
    println!("{}", summarize(trials));
    let bad: Vec<String> = trials
        .iter()
        .filter(|t| !t.problems.is_empty())
        .map(|t| t.to_string())
        .collect();
    assert!(bad.is_empty(), "trials with problems:\n{}", bad.join("\n"));
}

#[test]
fn privileged_fault_trials_on_the_host_kernel_leave_nothing() {
    if !require_privileged("privileged_fault_trials_on_the_host_kernel_leave_nothing") {
        return;
    }
    let trials = run_plan(&plan("host", 4, 0));
    assert_eq!(trials.len(), 4);
    assert_clean(&trials);
}

#[test]
fn guest_fault_trials_in_the_uml_kernel_leave_nothing() {
    if !netlab_guest::guest_or_skip(
        "guest_fault_trials_in_the_uml_kernel_leave_nothing",
        &["veth", "sch_tbf", "sch_fq_codel"],
    ) {
        return;
    }
    let trials = run_plan(&plan("uml", 0, 2));
    assert_eq!(trials.len(), 2);
    assert_clean(&trials);
}

#[test]
fn splitmix_is_seeded_and_reproducible() {
    let mut a = faults::SplitMix64::new(42);
    let mut b = faults::SplitMix64::new(42);
    let xs: Vec<u64> = (0..8).map(|_| a.range(50, 10_000)).collect();
    let ys: Vec<u64> = (0..8).map(|_| b.range(50, 10_000)).collect();
    assert_eq!(xs, ys);
    assert!(xs.iter().all(|x| (50..10_000).contains(x)));
    // Not constant, and differs with the seed.
    assert!(xs.windows(2).any(|w| w[0] != w[1]));
    let mut c = faults::SplitMix64::new(43);
    assert_ne!(xs, (0..8).map(|_| c.range(50, 10_000)).collect::<Vec<_>>());
    // The reference output of SplitMix64 for seed 0.
    assert_eq!(faults::SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
}
