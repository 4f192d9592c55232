//! `orchestrator merge OUT DIR...`: one results folder from the folders
//! of a sharded run ([`netlab_run::merge`]); `--update` merges again only
//! when a folder changed. Prints each step's time and peak memory, then
//! what was merged (both worded by [`netlab_run::merge::Merged`]).

use netlab_run::finish::said;
use netlab_run::merge::{exit_code, merge, update, Updated};

use crate::cli::MergeArgs;

/// Entry point of `orchestrator merge`; returns the exit code.
pub fn main(a: &MergeArgs) -> u8 {
    let started = std::time::Instant::now();
    let mut notice = |m: String| eprintln!("orchestrator merge: {m}");
    let done = if a.update {
        update(&a.out, &a.dirs, a.allow_partial, &mut notice)
    } else {
        merge(&a.out, &a.dirs, a.allow_partial, &mut notice).map(Updated::New)
    };
    let updated = match done {
        Ok(u) => u,
        Err(e) => {
            eprintln!("orchestrator merge: {e}");
            return exit_code(&e);
        }
    };
    // The report is said as the merge ends, before what it replaced.
    let report_ok = match &updated {
        Updated::New(m) | Updated::Replaced { merged: m, .. } => {
            said("orchestrator merge", &m.report)
        }
        Updated::Same => true,
    };
    if let Some(s) = updated.sentence(&a.out) {
        println!("{s}");
    }
    let (Updated::New(m) | Updated::Replaced { merged: m, .. }) = &updated else {
        return 0;
    };
    for line in m.step_lines(started) {
        eprintln!("{line}");
    }
    for line in m.summary_lines(a.dirs.len()) {
        println!("{line}");
    }
    u8::from(!report_ok)
}
