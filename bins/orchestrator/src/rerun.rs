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

use netlab_experiment::Experiment;
use netlab_report::diff::{diff, RunDigest};
use netlab_run::SessionConfig;

use crate::cli::RerunArgs;

/// Entry point; returns the exit code.
pub fn main(a: &RerunArgs) -> u8 {
    let file = netlab_report::results_path(&a.results);
    let header = match netlab_results::stream::read_each(&file, |_, _| {}) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("orchestrator rerun: {}: {e}", file.display());
            return 2;
        }
    };
    let mut exp = match Experiment::from_file(&header.experiment) {
        Ok(x) => x,
        Err(e) => {
            eprintln!(
                "orchestrator rerun: {}: its experiment: {e}",
                file.display()
            );
            return 2;
        }
    };
    if let Some(n) = a.rounds {
        exp.rounds = n;
    }
    exp.kernel = match a.kernel {
        Some(k) => crate::config::kernel_choice(k),
        None => match netlab_run::kernel::recorded(&header.kernel.mode, &header.kernel.release) {
            Ok(k) => k,
            Err(why) => {
                eprintln!("orchestrator rerun: {why}");
                return 2;
            }
        },
    };
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from("results").join(format!(
            "{}-rerun-{}",
            exp.name,
            crate::compare::utc_stamp()
        ))
    });
    if out.join("results.json").exists() {
        eprintln!(
            "orchestrator rerun: {} already holds a results.json; a rerun never writes over a result (choose a new --out)",
            out.display()
        );
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
    crate::diff::write(new, &d).map_err(|e| e.to_string())?;
    Ok(d.headline())
}
