//! `orchestrator merge OUT DIR...`: one results folder from the folders
//! of a sharded run ([`netlab_run::merge`]); `--update` merges again only
//! when a folder changed. Prints each step's time and peak memory, then
//! what was merged.

use netlab_results::merge::MergeError;
use netlab_run::finish::said;
use netlab_run::merge::{merge, update, Updated};

use crate::cli::MergeArgs;

/// The exit code of a refused merge: usage 2, data 1.
fn code(e: &MergeError) -> u8 {
    match e {
        MergeError::Usage(_) => 2,
        MergeError::Data(_) => 1,
    }
}

/// Entry point of `orchestrator merge`; returns the exit code.
pub fn main(a: &MergeArgs) -> u8 {
    let started = std::time::Instant::now();
    let mut notice = |m: String| eprintln!("orchestrator merge: {m}");
    // The report is said as the merge ends, before what it replaced.
    let said = |m: &netlab_run::merge::Merged| said("orchestrator merge", &m.report);
    let done = if a.update {
        match update(&a.out, &a.dirs, a.allow_partial, &mut notice) {
            Ok(Updated::Same) => {
                println!(
                    "{} already holds this merge: the same runs and every scenario's bytes; nothing written",
                    a.out.display()
                );
                return 0;
            }
            Ok(Updated::Replaced { merged, previous }) => {
                let report_ok = said(&merged);
                println!(
                    "the folders changed since {} was merged: merged again, the former result kept in {}",
                    a.out.display(),
                    previous.display()
                );
                Ok((merged, report_ok))
            }
            Ok(Updated::New(m)) => {
                let report_ok = said(&m);
                Ok((m, report_ok))
            }
            Err(e) => Err(e),
        }
    } else {
        merge(&a.out, &a.dirs, a.allow_partial, &mut notice).map(|m| {
            let report_ok = said(&m);
            (m, report_ok)
        })
    };
    match done {
        Ok((m, report_ok)) => {
            let mut last = started;
            for p in &m.phases {
                eprintln!(
                    "merge: {} after {:.2} s (+{:.2} s), peak RSS {}",
                    p.what,
                    (p.at - started).as_secs_f64(),
                    (p.at - last).as_secs_f64(),
                    p.peak_kb
                        .map_or_else(|| "?".into(), |kb| format!("{:.1} MB", kb as f64 / 1024.0))
                );
                last = p.at;
            }
            println!(
                "merged {} scenario(s) from {} folder(s) into {}",
                m.scenarios,
                a.dirs.len(),
                m.out.display()
            );
            if !m.missing.is_empty() {
                println!(
                    "partial: plan indices {} missing (said so in summary.md and the report)",
                    m.missing
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            u8::from(!report_ok)
        }
        Err(e) => {
            eprintln!("orchestrator merge: {e}");
            code(&e)
        }
    }
}
