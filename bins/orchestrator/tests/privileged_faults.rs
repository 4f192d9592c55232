//! Seeded fault trials, the few that CI runs: host-kernel
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
use netlab_topology::testing::require_privileged;

const BIN: &str = env!("CARGO_BIN_EXE_orchestrator");

/// One trial series at a time in this binary: a SIGKILL trial's
/// `orchestrator cleanup` removes every dead run's leftovers, which would
/// hide what the control test must find.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

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
    let _serial = serial();
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
    let _serial = serial();
    let trials = run_plan(&plan("uml", 0, 2));
    assert_eq!(trials.len(), 2);
    assert_clean(&trials);
}

#[test]
fn splitmix_is_seeded_and_reproducible() {
    let mut a = faults::SplitMix64::new(42);
    let mut b = faults::SplitMix64::new(42);
    let xs: Vec<u64> = (0..8).map(|_| faults::range(&mut a, 50, 10_000)).collect();
    let ys: Vec<u64> = (0..8).map(|_| faults::range(&mut b, 50, 10_000)).collect();
    assert_eq!(xs, ys);
    assert!(xs.iter().all(|x| (50..10_000).contains(x)));
    // Not constant, and differs with the seed.
    assert!(xs.windows(2).any(|w| w[0] != w[1]));
    let mut c = faults::SplitMix64::new(43);
    assert_ne!(
        xs,
        (0..8)
            .map(|_| faults::range(&mut c, 50, 10_000))
            .collect::<Vec<_>>()
    );
    // The reference output of SplitMix64 for seed 0.
    assert_eq!(faults::SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
}

#[test]
fn privileged_fault_checks_find_what_an_uncleaned_sigkill_leaves() {
    if !require_privileged("privileged_fault_checks_find_what_an_uncleaned_sigkill_leaves") {
        return;
    }
    let _serial = serial();
    // The control: the checks are not vacuous (they could only miss here if
    // another process ran `orchestrator cleanup` in between). SIGKILL mid-scenario without
    // `orchestrator cleanup` leaves the namespaces and the state file, and
    // the trial must say so (it then sweeps them itself).
    let p = plan("control", 1, 0);
    std::fs::create_dir_all(&p.work).unwrap();
    let t = faults::run_trial(
        &p.bin,
        &p.work,
        faults::Kernel::Host,
        1,
        faults::Fault::KillWithoutCleanup,
        2_500,
    );
    let _ = std::fs::remove_dir_all(&p.work);
    println!("{t}");
    let id = t.run_id.clone().expect("the run id was found");
    let all = t.problems.join("\n");
    assert!(
        all.contains(&format!("nl-{id}-1-")),
        "namespaces reported: {all}"
    );
    assert!(
        all.contains(&format!("{id}.json")),
        "state file reported: {all}"
    );
    assert!(
        faults::namespaces_of(&id).is_empty(),
        "the sweep removed them"
    );
}
