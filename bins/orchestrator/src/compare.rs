//! `orchestrator compare` and `orchestrator run`: flags validated into a
//! [`SessionConfig`], the run itself by [`netlab_run::Session`] (kernel
//! choice, every scenario here or inside the guest, results.json), the
//! summary, report and table through [`ReportHooks`], the exit code from the
//! [`RunOutcome`].

use std::time::SystemTime;

use netlab_run::{RunOutcome, Session, SessionConfig};
use netlab_utc::folder_stamp;

use netlab_run::finish::ReportHooks;

use crate::cli::{CompareArgs, RunArgs};
use crate::config::{compare_config, run_config, UsageError};

/// Now, as the default results folder's stamp.
pub(crate) fn utc_stamp() -> String {
    folder_stamp(SystemTime::now())
}

/// `orchestrator compare`: the method's experiment with the flags applied.
pub fn main(a: &CompareArgs) -> u8 {
    let cfg = match compare_config(a, &utc_stamp()) {
        Ok(c) => c,
        Err(UsageError(m)) => {
            eprintln!("orchestrator: {m}");
            return 2;
        }
    };
    if a.print_experiment {
        print!("{}", cfg.experiment().to_toml());
        return 0;
    }
    execute("compare", SessionConfig::of_compare(&cfg))
}

/// `orchestrator run EXPERIMENT.toml`.
pub fn run_main(a: &RunArgs) -> u8 {
    match run_config(a, &utc_stamp()) {
        Ok(cfg) => execute("run", cfg),
        Err(UsageError(m)) => {
            eprintln!("orchestrator run: {m}");
            2
        }
    }
}

/// Runs the experiment and gives the exit code: 0 complete, 1 failed or
/// refused (2 for what the runner cannot do), 128 + signal when
/// interrupted, the guest run's own status after a guest run.
pub(crate) fn execute(cmd: &str, cfg: SessionConfig) -> u8 {
    // Inside the guest the host has already said them.
    if !cfg.inside_guest {
        crate::plan::print_warnings(cmd, &cfg.exp);
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
