//! `orchestrator cleanup`: remove what dead runs still own, and nothing
//! else.

use std::path::{Path, PathBuf};

use netlab_topology::RunId;
use serde::{Deserialize, Serialize};

use crate::clock::{Clock, SystemClock};
use crate::receipt::CleanupReceipt;
use crate::resource::{ProcessIdentity, Resource};
use crate::state::{read_state, write_state};
use crate::sys::{self, Liveness};
use crate::teardown::{remove_file, teardown_one, teardown_order, TeardownOptions};

/// What happened to one state file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RunStatus {
    /// Owner dead; everything removed, state file removed.
    Cleaned,
    /// Owner dead; some steps failed, the state file is kept listing what is left.
    Incomplete,
    /// Owner alive: nothing touched.
    OwnerAlive,
    /// The file could not be read or parsed: nothing touched.
    Unreadable {
        /// Why.
        error: String,
    },
}

/// The cleanup of one state file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunCleanup {
    /// The state file.
    pub state_file: PathBuf,
    /// The run, if the file was readable.
    pub run_id: Option<RunId>,
    /// The owner, if the file was readable.
    pub owner: Option<ProcessIdentity>,
    /// What happened.
    pub status: RunStatus,
    /// One receipt per resource handled.
    pub receipts: Vec<CleanupReceipt>,
}

/// For every `*.json` state file in `state_dir` whose owner is dead, tears
/// down what it lists and removes it. Namespaces are deleted only if named
/// `nl-<that run id>-…`, processes signalled only if pid and start time
/// still match. Runs whose owner is alive are left alone. A missing
/// directory gives an empty list.
pub fn cleanup_dead_runs(state_dir: &Path) -> Vec<RunCleanup> {
    cleanup_dead_runs_with(state_dir, &SystemClock, &TeardownOptions::default())
}

/// [`cleanup_dead_runs`] with an explicit clock and bounds.
pub fn cleanup_dead_runs_with(
    state_dir: &Path,
    clock: &dyn Clock,
    options: &TeardownOptions,
) -> Vec<RunCleanup> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(state_dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(_) => return Vec::new(),
    };
    files.sort();
    files
        .into_iter()
        .map(|f| cleanup_one(&f, clock, options))
        .collect()
}

fn cleanup_one(file: &Path, clock: &dyn Clock, options: &TeardownOptions) -> RunCleanup {
    let mut out = RunCleanup {
        state_file: file.to_owned(),
        run_id: None,
        owner: None,
        status: RunStatus::OwnerAlive,
        receipts: Vec::new(),
    };
    let mut state = match read_state(file) {
        Ok(s) => s,
        Err(e) => {
            out.status = RunStatus::Unreadable {
                error: e.to_string(),
            };
            return out;
        }
    };
    out.run_id = Some(state.run_id.clone());
    out.owner = Some(state.owner);
    if sys::liveness(state.owner) == Liveness::Alive {
        return out;
    }
    let others: Vec<Resource> = state
        .resources
        .iter()
        .filter(|r| !matches!(r, Resource::StateFile { .. }))
        .cloned()
        .collect();
    let mut left = Vec::new();
    for r in teardown_order(&others) {
        let (action, outcome) = teardown_one(&r, &state.run_id, options);
        if !outcome.is_ok() {
            left.push(r.clone());
        }
        out.receipts
            .push(CleanupReceipt::new(r, action, outcome, clock.now()));
    }
    let this_file = Resource::StateFile {
        path: file.to_owned(),
    };
    if left.is_empty() {
        let (action, outcome) = remove_file(file);
        out.status = if outcome.is_ok() {
            RunStatus::Cleaned
        } else {
            RunStatus::Incomplete
        };
        out.receipts
            .push(CleanupReceipt::new(this_file, action, outcome, clock.now()));
    } else {
        state.resources = left;
        state.resources.insert(0, this_file);
        if let Err(e) = write_state(file, &state) {
            eprintln!("netlab-receipts: {e}");
        }
        out.status = RunStatus::Incomplete;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{RunState, STATE_SCHEMA};

    #[test]
    fn live_runs_and_bad_files_are_left_alone() {
        let dir = std::env::temp_dir().join(format!("netlab-cleanup-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let live = RunState {
            schema: STATE_SCHEMA,
            run_id: RunId::parse("aaaa11").unwrap(),
            owner: sys::own_identity().unwrap(),
            resources: vec![Resource::Namespace {
                name: "nl-aaaa11-1-a".into(),
            }],
        };
        write_state(&dir.join("aaaa11.json"), &live).unwrap();
        std::fs::write(dir.join("zz_bad.json"), "not json").unwrap();
        std::fs::write(dir.join("ignored.txt"), "x").unwrap();
        let dead = RunState {
            schema: STATE_SCHEMA,
            run_id: RunId::parse("bbbb22").unwrap(),
            owner: ProcessIdentity {
                pid: i32::MAX - 1,
                start_time: 1,
            },
            resources: vec![
                Resource::Namespace {
                    name: "blue".into(),
                },
                Resource::Namespace {
                    name: "nl-bbbb22-gone-b".into(),
                },
            ],
        };
        write_state(&dir.join("bbbb22.json"), &dead).unwrap();

        let got = cleanup_dead_runs(&dir);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].status, RunStatus::OwnerAlive);
        assert!(got[0].receipts.is_empty());
        assert!(dir.join("aaaa11.json").exists());
        assert!(matches!(got[1].status, RunStatus::Cleaned), "{:?}", got[1]);
        // "blue" is not ours: not touched, reported
        assert!(got[1]
            .receipts
            .iter()
            .any(|r| matches!(r.outcome, crate::Outcome::NotOurs { .. })));
        assert!(!dir.join("bbbb22.json").exists());
        assert!(matches!(got[2].status, RunStatus::Unreadable { .. }));
        assert!(dir.join("zz_bad.json").exists());
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(cleanup_dead_runs(&dir).is_empty());
    }
}
