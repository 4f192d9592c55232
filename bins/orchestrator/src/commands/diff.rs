//! `orchestrator diff A B`: what changed between two runs
//! ([`netlab_report::diff`]; docs/usage.md, "Two runs"). Reads both
//! results (any schema netlab loads), writes nothing but `--out`'s
//! diff.md, diff.html and diff.json, and prints the headline.
//!
//! Exit codes: 0 done; 1 a change `--fail-on-change` names was claimed
//! beyond its threshold; 2 unreadable input, nothing to compare, or a
//! `--fail-on-change` metric that cannot be checked (not computed for a
//! pair, or no change claimable from its rounds): a gate never passes by
//! accident.

use std::path::PathBuf;

use clap::Args;
use netlab_report::diff::{diff_paths, ChangeGate};

use crate::flags;

/// `orchestrator diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Run A (the reference): a results folder, or its results.json.
    pub a: PathBuf,
    /// Run B.
    pub b: PathBuf,
    /// Where diff.md, diff.html and diff.json go (created; default: not written, the headline only).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Pair arms whose words differ: 'A-WORDS=B-WORDS' (repeatable).
    #[arg(long, value_parser = flags::arm_pair)]
    pub pair: Vec<(String, String)>,
    /// Exit 1 when a change in METRIC (p50, p95, loss, goodput, drops) is claimed beyond THRESHOLD (its unit; default 0).
    #[arg(long, value_name = "METRIC[:THRESHOLD]", value_parser = ChangeGate::parse)]
    pub fail_on_change: Vec<ChangeGate>,
}

/// Entry point; returns the exit code.
pub fn main(a: &DiffArgs) -> u8 {
    let d = match diff_paths(&a.a, &a.b, &a.pair) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("orchestrator diff: {e}");
            return 2;
        }
    };
    if let Some(out) = &a.out {
        if let Err(e) = d.write_to(out) {
            eprintln!("orchestrator diff: writing {}: {e}", out.display());
            return 2;
        }
    }
    println!("diff of {} (A) and {} (B):", d.a, d.b);
    for l in d.headline() {
        println!("- {l}");
    }
    if let Some(out) = &a.out {
        println!("diff: {}", out.join("diff.html").display());
    }
    let unchecked = d.unchecked(&a.fail_on_change);
    for l in &unchecked {
        eprintln!("orchestrator diff: {l}");
    }
    let beyond = d.beyond(&a.fail_on_change);
    for l in &beyond {
        eprintln!("orchestrator diff: {l}");
    }
    if !unchecked.is_empty() {
        return 2;
    }
    u8::from(!beyond.is_empty())
}
