//! `orchestrator rerun RESULTS`: the experiment a results folder records,
//! run again — the resolved experiment with its seeds and order, on the
//! kernel it ran on — then the diff of the new run against the original,
//! written into the new folder (docs/usage.md, "Two runs").
//!
//! A recorded kernel this machine does not have (another host release, a
//! guest kernel not installed or of another release) is refused before
//! anything is touched, saying what to pass; `--kernel` overrides it, and
//! the diff's setup then names the kernel that differs. A run merged from
//! shards records the whole experiment and reruns as one; `--shard K/N`
//! reruns one shard of it, whose rounds the diff compares with all of the
//! original's at the same arms and points (the others are listed as in
//! one run only).

use std::path::{Path, PathBuf};

use netlab_report::diff::{diff, RunDigest};
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

/// The diff of `new` against `original`, written into `new`; its headline.
fn diff_into(original: &Path, new: &Path) -> Result<Vec<String>, String> {
    let a = RunDigest::read(original).map_err(|e| format!("{}: {e}", original.display()))?;
    let b = RunDigest::read(new).map_err(|e| format!("{}: {e}", new.display()))?;
    let d = diff(&a, &b, &[]).map_err(|e| e.to_string())?;
    d.write_to(new).map_err(|e| e.to_string())?;
    Ok(d.headline())
}
