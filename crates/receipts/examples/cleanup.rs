//! What `orchestrator cleanup` does: `cargo run -p netlab-receipts --example
//! cleanup -- [STATE_DIR]` (default /run/netlab) removes what dead runs own
//! and prints one receipt per line.

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| netlab_receipts::DEFAULT_STATE_DIR.to_owned());
    let runs = netlab_receipts::cleanup_dead_runs(dir.as_ref());
    let mut failed = false;
    for run in &runs {
        let id = run
            .run_id
            .as_ref()
            .map(|r| r.to_string())
            .unwrap_or_default();
        println!("{} (run {id}): {:?}", run.state_file.display(), run.status);
        for r in &run.receipts {
            println!("  {r}");
        }
        failed |= !matches!(
            run.status,
            netlab_receipts::RunStatus::Cleaned | netlab_receipts::RunStatus::OwnerAlive
        );
    }
    if runs.is_empty() {
        println!("nothing to clean in {dir}");
    }
    std::process::exit(i32::from(failed));
}
