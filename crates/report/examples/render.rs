//! Renders the report of a results folder (or results.json) beside it:
//! `cargo run -p netlab-report --example render -- results/<stamp> [OUT_DIR]`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(path) = args.next().map(PathBuf::from) else {
        eprintln!("usage: render RESULTS_FOLDER_OR_JSON [OUT_DIR]");
        return ExitCode::from(2);
    };
    let out = args.next().map(PathBuf::from).unwrap_or_else(|| {
        let file = netlab_report::results_path(&path);
        file.parent().map(PathBuf::from).unwrap_or_default()
    });
    match netlab_report::read_results(&path).and_then(|i| netlab_report::render(&i, &out)) {
        Ok(files) => {
            println!(
                "{} ({} plots, {} flent files)",
                files.html.display(),
                files.svgs.len(),
                files.flent.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("report: {e}");
            ExitCode::FAILURE
        }
    }
}
