//! `orchestrator cleanup`, whole: its flag ([`CleanupArgs`]), then what
//! dead runs still own, removed: the
//! registry's state files whose owner died ([`cleanup_dead_runs`]) and
//! the guest kernels whose host process died
//! ([`netlab_guest::cleanup_stale_runs`]), with a receipt for each step.

use std::path::{Path, PathBuf};

use clap::Args;

use netlab_guest::StaleRun;
use netlab_receipts::{cleanup_dead_runs, RunCleanup, RunStatus};

/// `orchestrator cleanup`.
#[derive(Debug, Args)]
pub struct CleanupArgs {
    /// Where runs keep their state files.
    #[arg(long, default_value = "/run/netlab")]
    pub state_dir: PathBuf,
}

/// `orchestrator cleanup`: removes what dead runs still own
/// ([`Cleanup::dead_runs`]); prints receipts.
pub fn main(a: &CleanupArgs) -> u8 {
    let done = Cleanup::dead_runs(&a.state_dir);
    for line in done.lines() {
        println!("{line}");
    }
    u8::from(!done.complete())
}

/// What a cleanup found and did.
#[derive(Debug)]
pub struct Cleanup {
    /// The folder of state files searched.
    pub state_dir: PathBuf,
    /// Each state file's run and what was removed.
    pub runs: Vec<RunCleanup>,
    /// Each stale guest run and what was removed.
    pub guests: Vec<StaleRun>,
}

impl Cleanup {
    /// Removes what the dead runs with state in `state_dir` own, and the
    /// guest kernels of dead host processes.
    pub fn dead_runs(state_dir: &Path) -> Cleanup {
        let runs = cleanup_dead_runs(state_dir);
        let guests = netlab_guest::cleanup_stale_runs();
        Cleanup {
            state_dir: state_dir.to_path_buf(),
            runs,
            guests,
        }
    }

    /// Everything was removed (no run left incomplete, unreadable or
    /// foreign, every stale guest's folder gone).
    pub fn complete(&self) -> bool {
        self.guests.iter().all(|g| g.removed)
            && !self.runs.iter().any(|run| {
                matches!(
                    run.status,
                    RunStatus::Incomplete
                        | RunStatus::Unreadable { .. }
                        | RunStatus::Foreign { .. }
                )
            })
    }

    /// The lines `orchestrator cleanup` prints: each guest run, then each
    /// run with its receipts (or that there was none).
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .guests
            .iter()
            .map(|g| {
                format!(
                    "guest run {} (host pid {} gone): killed {:?}, folder removed: {}",
                    g.dir.display(),
                    g.host_pid,
                    g.killed,
                    g.removed
                )
            })
            .collect();
        if self.runs.is_empty() {
            lines.push(format!(
                "no dead runs with state in {}",
                self.state_dir.display()
            ));
        }
        for run in &self.runs {
            let id = run.run_id.as_ref().map_or("?", |r| r.as_str());
            lines.push(format!(
                "run {id} ({}): {:?}",
                run.state_file.display(),
                run.status
            ));
            lines.extend(run.receipts.iter().map(|r| format!("  {r}")));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_state_folder_is_said_and_complete() {
        let c = Cleanup {
            state_dir: "/nonexistent/netlab-state".into(),
            runs: Vec::new(),
            guests: Vec::new(),
        };
        assert!(c.complete());
        assert_eq!(
            c.lines(),
            ["no dead runs with state in /nonexistent/netlab-state"]
        );
    }
}
