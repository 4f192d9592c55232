//! The rate ladder's table (docs/scale.md) from one or more results
//! folders: `cargo run -p netlab-report --example ladder -- results/<a> results/<b>`.
//! Prints markdown: one row per scenario (goodput ÷ rate, the largest
//! packet in the queue, the bottleneck verdict, the CPU used), then up to
//! which rate each kernel, arm and offload state shaped truthfully.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        eprintln!("usage: ladder RESULTS_FOLDER_OR_JSON...");
        return ExitCode::from(2);
    }
    let mut runs = Vec::new();
    for p in &paths {
        match netlab_results::Results::read(&netlab_report::results_path(p)) {
            Ok(r) => runs.push(r),
            Err(e) => {
                eprintln!("ladder: {}: {e}", p.display());
                return ExitCode::FAILURE;
            }
        }
    }
    let rungs = netlab_compare::Rung::of_runs(&runs);
    print!("{}", netlab_compare::Rung::table(&rungs));
    ExitCode::SUCCESS
}
