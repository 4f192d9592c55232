//! `orchestrator diff A B`: what changed between two runs
//! ([`netlab_report::diff`]; docs/usage.md, "Two runs"). Reads both
//! results (any schema netlab loads), writes nothing but `--out`'s
//! diff.md, diff.html and diff.json, and prints the headline.
//!
//! Exit codes: 0 done; 1 a change `--fail-on-change` names was claimed
//! beyond its threshold; 2 unreadable input, or nothing to compare.

use netlab_report::diff::{diff, DiffError, RunDigest};

use crate::cli::DiffArgs;

/// Entry point; returns the exit code.
pub fn main(a: &DiffArgs) -> u8 {
    let read = |p: &std::path::Path| {
        RunDigest::read(p).map_err(|source| DiffError::Read {
            path: p.display().to_string(),
            source,
        })
    };
    let result = read(&a.a).and_then(|ra| {
        let rb = read(&a.b)?;
        diff(&ra, &rb, &a.pair)
    });
    let d = match result {
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
    let mut failed = false;
    for (metric, threshold) in &a.fail_on_change {
        for (p, m) in d.changes(metric) {
            if let Some((_, by)) = m.change {
                if by > *threshold {
                    eprintln!(
                        "orchestrator diff: {metric} changed beyond {threshold} in {} ({})",
                        p.arm_a, m.sentence
                    );
                    failed = true;
                }
            }
        }
    }
    u8::from(failed)
}
