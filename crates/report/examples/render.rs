//! Finishes a results folder (or the folder of a results.json) as
//! `orchestrator report` does, summary.md and the report beside
//! results.json ([`netlab_report::folder::finish_folder`]); with OUT_DIR, writes
//! only the report, there:
//! `cargo run -p netlab-report --example render -- results/<stamp> [OUT_DIR]`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(path) = args.next().map(PathBuf::from) else {
        eprintln!("usage: render RESULTS_FOLDER_OR_JSON [OUT_DIR]");
        return ExitCode::from(2);
    };
    let rendered = match args.next().map(PathBuf::from) {
        Some(out) => {
            netlab_report::read_results(&path).and_then(|i| netlab_report::render(&i, &out))
        }
        None => netlab_report::folder::finish_folder(
            &path,
            &netlab_report::folder::FinishOptions::rerender(),
            &mut |_| {},
        )
        .and_then(|done| done.summary.and(done.report)),
    };
    match rendered {
        Ok(files) => {
            println!(
                "{} ({} plots, {} scenario pages, {} flent files)",
                files.html.display(),
                files.svgs.len(),
                files.pages.len(),
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
