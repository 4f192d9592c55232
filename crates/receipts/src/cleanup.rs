//! `orchestrator cleanup`: remove what dead runs still own, and nothing
//! else.

use std::path::{Path, PathBuf};

use netlab_topology::RunId;
use serde::{Deserialize, Serialize};

use crate::clock::{Clock, SystemClock};
use crate::process;
use crate::receipt::{Action, CleanupReceipt, TeardownOutcome};
use crate::resource::Resource;
use crate::state::{read_state, write_state, RunState};
use crate::teardown::{remove_file, teardown_one, teardown_order, TeardownOptions};
use netlab_os::Liveness;
use netlab_os::ProcessIdentity;

/// What happened to one state file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RunStatus {
    /// Owner dead; everything removed, state file removed.
    Cleaned,
    /// Owner dead; some steps failed, the state file is kept listing what is left.
    Incomplete,
    /// Owner alive (or its liveness could not be checked): nothing touched.
    OwnerAlive,
    /// The file could not be read or parsed (corrupt, truncated, another
    /// schema): nothing touched.
    Unreadable {
        /// Why.
        error: String,
    },
    /// The file parses but is not provably a state file of this directory
    /// (not a regular file, its name is not its run id, an impossible
    /// owner): nothing touched.
    Foreign {
        /// Why.
        reason: String,
    },
}

/// What was seen of a state file's owner process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "owner", rename_all = "snake_case")]
pub enum OwnerSeen {
    /// Running, same start time.
    Alive,
    /// No such process (or a zombie).
    Gone,
    /// The pid runs another process (a later start time): the owner is
    /// dead and that process is neither treated as the owner nor signalled.
    PidReused {
        /// The start time of the process that has the pid now.
        start_time: u64,
    },
    /// `/proc` could not be read: treated as alive.
    Unknown {
        /// Why.
        reason: String,
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
    /// What was seen of the owner, if it was checked.
    pub owner_seen: Option<OwnerSeen>,
    /// What happened.
    pub status: RunStatus,
    /// One receipt per resource handled.
    pub receipts: Vec<CleanupReceipt>,
}

/// A state file is a few KiB; anything much larger is not one of ours.
const MAX_STATE_FILE_BYTES: u64 = 1 << 20;

/// For every `*.json` state file in `state_dir` whose owner is dead, tears
/// down what it lists and removes it. Namespaces are deleted only if named
/// `nl-<that run id>-…`, processes signalled only if pid and start time
/// still match and they started no earlier than the run's owner. Runs
/// whose owner is alive are left alone, and so are files that cannot be
/// read, parsed or proven to be this directory's state files (each is
/// reported). A missing directory gives an empty list. Never panics.
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

/// Why `file` cannot be treated as a state file of its directory, if so.
fn not_a_state_file(file: &Path) -> Option<RunStatus> {
    let foreign = |reason: String| Some(RunStatus::Foreign { reason });
    match std::fs::symlink_metadata(file) {
        Err(e) => Some(RunStatus::Unreadable {
            error: format!("reading the metadata of {}: {e}", file.display()),
        }),
        Ok(m) if !m.file_type().is_file() => foreign(format!(
            "{} is not a regular file ({:?})",
            file.display(),
            m.file_type()
        )),
        Ok(m) if m.len() > MAX_STATE_FILE_BYTES => foreign(format!(
            "{} has {} bytes, more than a state file ever has ({MAX_STATE_FILE_BYTES})",
            file.display(),
            m.len()
        )),
        Ok(_) => None,
    }
}

/// Why the parsed `state` is not provably the state file `file`, if so.
fn not_ours(file: &Path, state: &RunState) -> Option<String> {
    let stem = file.file_stem().and_then(|s| s.to_str());
    if stem != Some(state.run_id.as_str()) {
        return Some(format!(
            "the file is named {:?} but describes run {}",
            stem.unwrap_or("?"),
            state.run_id
        ));
    }
    if state.owner.pid <= 1 {
        return Some(format!("owner pid {} cannot own a run", state.owner.pid));
    }
    None
}

/// Why `r` is not provably a process of the run owned by `owner`, if so:
/// a run's processes are spawned by its owner, so they start no earlier.
fn foreign_process(r: &Resource, owner: ProcessIdentity) -> Option<TeardownOutcome> {
    let id = r.process()?;
    let reason = if id.pid <= 1 {
        format!("pid {} cannot belong to a run", id.pid)
    } else if id.start_time < owner.start_time {
        format!(
            "pid {} is recorded with start time {}, before its run's owner started ({})",
            id.pid, id.start_time, owner.start_time
        )
    } else {
        return None;
    };
    Some(TeardownOutcome::NotOurs { reason })
}

fn cleanup_one(file: &Path, clock: &dyn Clock, options: &TeardownOptions) -> RunCleanup {
    let mut out = RunCleanup {
        state_file: file.to_owned(),
        run_id: None,
        owner: None,
        owner_seen: None,
        status: RunStatus::OwnerAlive,
        receipts: Vec::new(),
    };
    if let Some(status) = not_a_state_file(file) {
        out.status = status;
        return out;
    }
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
    if let Some(reason) = not_ours(file, &state) {
        out.status = RunStatus::Foreign { reason };
        return out;
    }
    let seen = match process::liveness(state.owner) {
        Liveness::Alive => OwnerSeen::Alive,
        Liveness::Gone => OwnerSeen::Gone,
        Liveness::Reused { start_time } => OwnerSeen::PidReused { start_time },
        Liveness::Unknown { reason } => OwnerSeen::Unknown { reason },
    };
    let owner_alive = matches!(seen, OwnerSeen::Alive | OwnerSeen::Unknown { .. });
    out.owner_seen = Some(seen);
    if owner_alive {
        return out;
    }
    let this_file = Resource::StateFile {
        path: file.to_owned(),
    };
    let mut left = Vec::new();
    for r in teardown_order(&state.resources) {
        let (action, outcome) = match &r {
            Resource::StateFile { path } if path == file => continue, // last, below
            Resource::StateFile { path } => (
                Action::None,
                TeardownOutcome::NotOurs {
                    reason: format!(
                        "{} is not this state file; cleanup removes only {}",
                        path.display(),
                        file.display()
                    ),
                },
            ),
            _ => match foreign_process(&r, state.owner) {
                Some(not_ours) => (Action::None, not_ours),
                None => teardown_one(&r, &state.run_id, options),
            },
        };
        if !outcome.is_ok() {
            left.push(r.clone());
        }
        out.receipts
            .push(CleanupReceipt::new(r, action, outcome, clock.now()));
    }
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
    use crate::state::STATE_SCHEMA;

    /// A fresh, empty state directory under the temporary directory (never /run/netlab); removed on drop.
    fn temp_dir(tag: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("netlab-cleanup-{tag}-"))
            .tempdir()
            .expect("a folder under the temporary directory")
    }

    fn state(run: &str, owner: ProcessIdentity, resources: Vec<Resource>) -> RunState {
        RunState {
            schema: STATE_SCHEMA,
            run_id: RunId::parse(run).unwrap(),
            owner,
            resources,
        }
    }

    fn dead_owner() -> ProcessIdentity {
        // above the kernel's hard pid limit: cannot exist
        ProcessIdentity {
            pid: 4_194_305,
            start_time: 1,
        }
    }

    /// A `sleep` child, killed (if still the same process) and reaped on
    /// drop.
    struct Sleeper(std::process::Child, ProcessIdentity);

    impl Sleeper {
        fn spawn() -> Sleeper {
            let child = std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .expect("spawn sleep");
            let id = process::identify(child.id() as i32).unwrap();
            Sleeper(child, id)
        }
        fn identity(&self) -> ProcessIdentity {
            self.1
        }
        fn alive(&self) -> bool {
            self.1.liveness() == Liveness::Alive
        }
    }

    impl Drop for Sleeper {
        fn drop(&mut self) {
            // cleanup may have stopped and reaped it: never signal a pid
            // that is no longer this sleeper
            if self.alive() {
                let _ = self.0.kill();
            }
            let _ = self.0.wait();
        }
    }

    #[test]
    fn live_runs_and_bad_files_are_left_alone() {
        let tmp = temp_dir("unit");
        let dir = &tmp.path();
        let live = state(
            "aaaa11",
            process::own_identity().unwrap(),
            vec![Resource::Namespace {
                name: "nl-aaaa11-1-a".into(),
            }],
        );
        write_state(&dir.join("aaaa11.json"), &live).unwrap();
        std::fs::write(dir.join("zz_bad.json"), "not json").unwrap();
        std::fs::write(dir.join("ignored.txt"), "x").unwrap();
        let dead = state(
            "bbbb22",
            dead_owner(),
            vec![
                Resource::Namespace {
                    name: "blue".into(),
                },
                Resource::Namespace {
                    name: "nl-bbbb22-gone-b".into(),
                },
            ],
        );
        write_state(&dir.join("bbbb22.json"), &dead).unwrap();

        let got = cleanup_dead_runs(dir);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].status, RunStatus::OwnerAlive);
        assert_eq!(got[0].owner_seen, Some(OwnerSeen::Alive));
        assert!(got[0].receipts.is_empty());
        assert!(dir.join("aaaa11.json").exists());
        assert!(matches!(got[1].status, RunStatus::Cleaned), "{:?}", got[1]);
        assert_eq!(got[1].owner_seen, Some(OwnerSeen::Gone));
        // "blue" is not ours: not touched, reported
        assert!(got[1]
            .receipts
            .iter()
            .any(|r| matches!(r.outcome, TeardownOutcome::NotOurs { .. })));
        assert!(!dir.join("bbbb22.json").exists());
        assert!(matches!(got[2].status, RunStatus::Unreadable { .. }));
        assert!(dir.join("zz_bad.json").exists());
        std::fs::remove_dir_all(dir).unwrap();
        assert!(cleanup_dead_runs(dir).is_empty());
    }

    #[test]
    fn corrupt_and_truncated_state_files_are_reported_and_kept() {
        let tmp = temp_dir("corrupt");
        let dir = &tmp.path();
        let whole = serde_json::to_string(&state(
            "cccc33",
            dead_owner(),
            vec![Resource::Namespace {
                name: "nl-cccc33-1-a".into(),
            }],
        ))
        .unwrap();
        // every truncation of a real state file, plus binary garbage
        for cut in 0..whole.len() {
            std::fs::write(dir.join(format!("t{cut:04}.json")), &whole[..cut]).unwrap();
        }
        std::fs::write(dir.join("garbage.json"), [0xff, 0x00, 0x7b, 0x22]).unwrap();
        let got = cleanup_dead_runs(dir);
        assert_eq!(got.len(), whole.len() + 1);
        for c in &got {
            assert!(
                matches!(c.status, RunStatus::Unreadable { .. }),
                "{}: {:?}",
                c.state_file.display(),
                c.status
            );
            assert!(c.receipts.is_empty() && c.owner_seen.is_none());
            assert!(c.state_file.exists(), "{} removed", c.state_file.display());
        }
    }

    #[test]
    fn foreign_files_are_reported_and_untouched() {
        let tmp = temp_dir("foreign");
        let dir = &tmp.path();
        let dead = state("dddd44", dead_owner(), vec![]);
        // valid content under another run's name
        write_state(&dir.join("eeee55.json"), &dead).unwrap();
        // another program's JSON
        std::fs::write(dir.join("other.json"), r#"{"name":"x","pid":1}"#).unwrap();
        // a directory, a symlink to a valid state file elsewhere, a FIFO
        std::fs::create_dir(dir.join("adir.json")).unwrap();
        let elsewhere = temp_dir("elsewhere");
        let target = elsewhere.path().join("ffff66.json");
        write_state(&target, &state("ffff66", dead_owner(), vec![])).unwrap();
        std::os::unix::fs::symlink(&target, dir.join("ffff66.json")).unwrap();
        nix::unistd::mkfifo(&dir.join("fifo.json"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        // an owner that no run can have
        let mut init_owned = state("abab12", dead_owner(), vec![]);
        init_owned.owner.pid = 1;
        write_state(&dir.join("abab12.json"), &init_owned).unwrap();

        let got = cleanup_dead_runs(dir);
        let status = |name: &str| {
            got.iter()
                .find(|c| c.state_file.file_name().unwrap() == name)
                .unwrap_or_else(|| panic!("{name} not reported: {got:?}"))
                .status
                .clone()
        };
        assert_eq!(got.len(), 6, "{got:?}");
        for name in [
            "eeee55.json",
            "adir.json",
            "ffff66.json",
            "fifo.json",
            "abab12.json",
        ] {
            assert!(
                matches!(status(name), RunStatus::Foreign { .. }),
                "{name}: {:?}",
                status(name)
            );
        }
        assert!(matches!(status("other.json"), RunStatus::Unreadable { .. }));
        assert!(got.iter().all(|c| c.receipts.is_empty()));
        for name in [
            "eeee55.json",
            "other.json",
            "adir.json",
            "ffff66.json",
            "fifo.json",
            "abab12.json",
        ] {
            assert!(dir.join(name).symlink_metadata().is_ok(), "{name} removed");
        }
        assert!(target.exists(), "symlink target removed");
    }

    #[test]
    fn hand_edited_state_removes_only_what_it_can_prove_is_the_runs() {
        let tmp = temp_dir("edited");
        let dir = &tmp.path();
        let sleeper = Sleeper::spawn();
        let sid = sleeper.identity();
        let bystander = dir.join("bystander.txt");
        std::fs::write(&bystander, "keep me").unwrap();
        // another schema: unreadable, kept
        let mut v2 = serde_json::to_value(state("abcd01", dead_owner(), vec![])).unwrap();
        v2["schema"] = serde_json::json!(2);
        std::fs::write(dir.join("abcd01.json"), v2.to_string()).unwrap();
        // an unknown resource kind: unreadable, kept
        let mut odd = serde_json::to_value(state("abcd02", dead_owner(), vec![])).unwrap();
        odd["resources"] = serde_json::json!([{"kind": "host_route", "dst": "0.0.0.0/0"}]);
        std::fs::write(dir.join("abcd02.json"), odd.to_string()).unwrap();
        // edited to list foreign things: a namespace of another run, a
        // file outside, pid 1, and a live process that started before the
        // run's owner (so the owner cannot have spawned it)
        let owner = ProcessIdentity {
            pid: dead_owner().pid,
            start_time: sid.start_time + 1,
        };
        let edited = state(
            "abcd03",
            owner,
            vec![
                Resource::StateFile {
                    path: dir.join("abcd03.json"),
                },
                Resource::StateFile {
                    path: bystander.clone(),
                },
                Resource::Namespace {
                    name: "nl-ffff99-1-a".into(),
                },
                Resource::Child {
                    pid: 1,
                    start_time: 1,
                    label: "init".into(),
                },
                Resource::Child {
                    pid: sid.pid,
                    start_time: sid.start_time,
                    label: "sleeper".into(),
                },
            ],
        );
        write_state(&dir.join("abcd03.json"), &edited).unwrap();

        let got = cleanup_dead_runs(dir);
        assert_eq!(got.len(), 3);
        assert!(
            matches!(got[0].status, RunStatus::Unreadable { ref error } if error.contains("schema 2")),
            "{:?}",
            got[0]
        );
        assert!(
            matches!(got[1].status, RunStatus::Unreadable { .. }),
            "{:?}",
            got[1]
        );
        assert!(dir.join("abcd01.json").exists() && dir.join("abcd02.json").exists());
        let c = &got[2];
        let not_ours = c
            .receipts
            .iter()
            .filter(|r| {
                matches!(r.outcome, TeardownOutcome::NotOurs { .. }) && r.action == Action::None
            })
            .count();
        assert_eq!(not_ours, 4, "{c:#?}");
        assert!(
            sleeper.alive(),
            "a process the run cannot own was signalled"
        );
        assert!(bystander.exists(), "a file outside was removed");
        assert_eq!(c.status, RunStatus::Cleaned, "{c:#?}");
        assert!(!dir.join("abcd03.json").exists());
    }

    #[test]
    fn an_owner_pid_now_running_another_process_is_neither_alive_nor_killed() {
        let tmp = temp_dir("reuse");
        let dir = &tmp.path();
        let me = process::own_identity().unwrap();
        let sleeper = Sleeper::spawn();
        let sid = sleeper.identity();
        // the owner's pid is ours now, but the owner started at tick 0: a
        // different process. Its child (the sleeper) started after it.
        let owner = ProcessIdentity {
            pid: me.pid,
            start_time: 0,
        };
        let run = state(
            "beef01",
            owner,
            vec![Resource::Child {
                pid: sid.pid,
                start_time: sid.start_time,
                label: "sleeper".into(),
            }],
        );
        write_state(&dir.join("beef01.json"), &run).unwrap();
        let opts = TeardownOptions {
            child_grace: std::time::Duration::from_secs(2),
            kill_wait: std::time::Duration::from_secs(2),
        };
        let got = cleanup_dead_runs_with(dir, &SystemClock, &opts);
        assert_eq!(got.len(), 1);
        let c = &got[0];
        assert_eq!(
            c.owner_seen,
            Some(OwnerSeen::PidReused {
                start_time: me.start_time
            })
        );
        assert_eq!(c.status, RunStatus::Cleaned, "{c:#?}");
        assert_eq!(
            c.receipts[0].outcome,
            TeardownOutcome::Done,
            "the run's child is stopped"
        );
        assert_eq!(
            me.liveness(),
            Liveness::Alive,
            "the pid's new process is untouched"
        );
        assert!(!dir.join("beef01.json").exists());
    }
}
