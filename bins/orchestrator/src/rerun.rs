//! `orchestrator rerun RESULTS`: the experiment a results folder records,
//! run again — with its seeds and order, on the kernel it ran on — then the
//! diff of the new run against the original, written into the new folder
//! ([`netlab_run::rerun`] says what is refused and how shards rerun).

use std::path::PathBuf;

use netlab_run::rerun::diff_into;
use netlab_run::SessionConfig;

use crate::cli::RerunArgs;

/// Entry point; returns the exit code.
pub fn main(a: &RerunArgs) -> u8 {
    let kernel = a.kernel.map(crate::config::kernel_choice);
    let exp = match netlab_run::rerun::recorded_experiment(&a.results, a.rounds, kernel) {
        Ok(x) => x,
        Err(why) => {
            eprintln!("orchestrator rerun: {why}");
            return 2;
        }
    };
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from("results").join(format!(
            "{}-rerun-{}",
            exp.name,
            crate::compare::utc_stamp()
        ))
    });
    if let Err(why) = netlab_run::rerun::check_out(&out) {
        eprintln!("orchestrator rerun: {why}");
        return 2;
    }
    let mut cfg = SessionConfig::new(exp, out.clone());
    cfg.guest_mem = a.guest_mem.clone();
    cfg.quiet = a.quiet;
    // Shard K of N of the recorded plan (refused before anything runs when
    // N exceeds its units, as `run --shard` is).
    cfg.shard = a.shard;
    let code = crate::compare::execute("rerun", cfg);
    if code != 0 {
        return code;
    }
    match diff_into(&a.results, &out) {
        Ok(lines) => {
            println!("diff against {}:", a.results.display());
            for l in lines {
                println!("- {l}");
            }
            println!("diff: {}", out.join("diff.html").display());
            0
        }
        Err(e) => {
            eprintln!("orchestrator rerun: the run is complete, the diff failed: {e}");
            1
        }
    }
}
