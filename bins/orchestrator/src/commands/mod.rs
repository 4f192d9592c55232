//! One module per command: each holds its flags (a clap `Args`), its
//! configuration and its steps, calling the libraries for the work
//! (docs/architecture.md, "Commands"). What several commands share is
//! here: the usage error, the `--kernel` word, the default folder's stamp
//! and the run of a session with its report.

pub mod cleanup;
pub mod compare;
pub mod diff;
pub mod kernel;
pub mod kernel_flag;
pub mod merge;
pub mod plan;
pub mod report;
pub mod rerun;
pub mod roles;
pub mod run;

use std::time::SystemTime;

use netlab_run::finish::ReportHooks;
use netlab_run::{RunOutcome, Session, SessionConfig};
use netlab_utc::folder_stamp;

/// A usage error: the flag and what is wrong with its value (exit 2).
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Now, as the default results folder's stamp.
pub(crate) fn utc_stamp() -> String {
    folder_stamp(SystemTime::now())
}

/// Runs the experiment and gives the exit code: 0 complete, 1 failed or
/// refused (2 for what the runner cannot do), 128 + signal when
/// interrupted, the guest run's own status after a guest run.
pub(crate) fn execute(cmd: &str, cfg: SessionConfig) -> u8 {
    // Inside the guest the host has already said them.
    if !cfg.inside_guest {
        plan::print_warnings(cmd, &cfg.exp);
    }
    // What the scenario's threads freed goes back to the system, so the
    // next scenario starts where this one did.
    let mut finish = ReportHooks::new("orchestrator", cmd).on_scenario_written(|| {
        let _ = netlab_os::heap::release_free_heap();
    });
    let outcome = Session::new(cfg)
        .program("orchestrator")
        .with_run_hooks(&mut finish)
        .run();
    outcome.map_or_else(
        |e| {
            eprintln!("{}", e.line("orchestrator", cmd));
            e.exit_code()
        },
        RunOutcome::exit_code,
    )
}
