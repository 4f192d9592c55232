//! Tearing down one resource, with every ownership check, giving the action
//! and outcome of its receipt. Shared by a live [`crate::Registry`] and by
//! [`crate::cleanup_dead_runs`].

use std::path::Path;
use std::time::{Duration, Instant};

use netlab_topology::{netns, OwnedName, RunId};
use nix::sys::signal::Signal;
use serde::{Deserialize, Serialize};

use crate::process;
use crate::receipt::{Action, TeardownOutcome};
use crate::resource::Resource;
use netlab_os::Liveness;
use netlab_os::ProcessIdentity;

/// Bounds of a teardown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeardownOptions {
    /// How long a child gets to exit after SIGTERM before SIGKILL.
    pub child_grace: Duration,
    /// How long to wait for a process to vanish after SIGKILL.
    pub kill_wait: Duration,
}

impl Default for TeardownOptions {
    fn default() -> Self {
        TeardownOptions {
            child_grace: Duration::from_secs(2),
            kill_wait: Duration::from_secs(2),
        }
    }
}

/// Polls until `id` is gone (or its pid reused) or `within` elapsed; true
/// if gone. An unreadable `/proc` counts as still there.
fn wait_gone(id: ProcessIdentity, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if matches!(
            process::liveness(id),
            Liveness::Gone | Liveness::Reused { .. }
        ) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Stops a registered process: SIGTERM, bounded wait, SIGKILL. Never
/// signals a pid whose start time differs from the registered one. With
/// `group`, the SIGKILL goes to the process group the pid leads: a
/// user-mode-linux kernel leads the group of its traced helpers, and killing
/// its main process alone would leave them running (SIGTERM, which the
/// kernel handles by ending its helpers, still goes to the main process).
pub(crate) fn stop_process(
    id: ProcessIdentity,
    opts: &TeardownOptions,
    group: bool,
) -> (Action, TeardownOutcome) {
    let reused = |now: u64| TeardownOutcome::NotOurs {
        reason: format!(
            "pid {} now has start time {now}, registered {}",
            id.pid, id.start_time
        ),
    };
    let unknown = |reason: String| TeardownOutcome::Failed {
        error: format!("cannot check pid {} before signalling it: {reason}", id.pid),
    };
    match process::liveness(id) {
        Liveness::Gone => return (Action::None, TeardownOutcome::AlreadyGone),
        Liveness::Reused { start_time } => return (Action::None, reused(start_time)),
        Liveness::Unknown { reason } => return (Action::None, unknown(reason)),
        Liveness::Alive => {}
    }
    match process::signal(id.pid, Signal::SIGTERM) {
        Ok(true) => {}
        Ok(false) => return (Action::None, TeardownOutcome::AlreadyGone),
        Err(e) => {
            return (
                Action::Sigterm,
                TeardownOutcome::Failed {
                    error: format!("SIGTERM to pid {}: {e}", id.pid),
                },
            )
        }
    }
    if wait_gone(id, opts.child_grace) {
        return (Action::Sigterm, TeardownOutcome::Done);
    }
    // re-check identity right before SIGKILL
    match process::liveness(id) {
        Liveness::Gone => return (Action::Sigterm, TeardownOutcome::Done),
        Liveness::Reused { start_time } => return (Action::Sigterm, reused(start_time)),
        Liveness::Unknown { reason } => return (Action::Sigterm, unknown(reason)),
        Liveness::Alive => {}
    }
    let target = if group { -id.pid } else { id.pid };
    match process::signal(target, Signal::SIGKILL) {
        Ok(false) => return (Action::Sigterm, TeardownOutcome::Done),
        Ok(true) => {}
        Err(e) => {
            return (
                Action::SigtermThenSigkill,
                TeardownOutcome::Failed {
                    error: format!("SIGKILL to pid {}: {e}", id.pid),
                },
            )
        }
    }
    if wait_gone(id, opts.kill_wait) {
        (Action::SigtermThenSigkill, TeardownOutcome::Done)
    } else {
        (
            Action::SigtermThenSigkill,
            TeardownOutcome::Failed {
                error: format!(
                    "pid {} still present {:?} after SIGKILL",
                    id.pid, opts.kill_wait
                ),
            },
        )
    }
}

/// Deletes namespace `name` only if it carries our prefix and `run`'s id.
pub(crate) fn delete_namespace(name: &str, run: &RunId) -> (Action, TeardownOutcome) {
    if !OwnedName::belongs_to(name, run) {
        return (
            Action::None,
            TeardownOutcome::NotOurs {
                reason: format!("{name:?} is not an nl-{run}-… namespace"),
            },
        );
    }
    if !netns::exists(name) {
        return (Action::None, TeardownOutcome::AlreadyGone);
    }
    match netns::delete(name) {
        Ok(()) => (Action::DeleteNamespace, TeardownOutcome::Done),
        Err(e) => (
            Action::DeleteNamespace,
            TeardownOutcome::Failed {
                error: e.to_string(),
            },
        ),
    }
}

/// Removes a state file.
pub(crate) fn remove_file(path: &Path) -> (Action, TeardownOutcome) {
    match std::fs::remove_file(path) {
        Ok(()) => (Action::RemoveStateFile, TeardownOutcome::Done),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            (Action::None, TeardownOutcome::AlreadyGone)
        }
        Err(e) => (
            Action::RemoveStateFile,
            TeardownOutcome::Failed {
                error: format!("removing {}: {e}", path.display()),
            },
        ),
    }
}

/// Tears down one resource of run `run`.
pub(crate) fn teardown_one(
    resource: &Resource,
    run: &RunId,
    opts: &TeardownOptions,
) -> (Action, TeardownOutcome) {
    match resource {
        Resource::Namespace { name } => delete_namespace(name, run),
        Resource::StateFile { path } => remove_file(path),
        Resource::Child { .. } => {
            stop_process(resource.process().expect("process resource"), opts, false)
        }
        Resource::Guest { .. } => {
            stop_process(resource.process().expect("process resource"), opts, true)
        }
    }
}

/// The order of teardown: processes first (newest first), then the other
/// resources newest first, state files last.
pub(crate) fn teardown_order(resources: &[Resource]) -> Vec<Resource> {
    let rank = |r: &Resource| match r {
        Resource::Child { .. } | Resource::Guest { .. } => 0,
        Resource::Namespace { .. } => 1,
        Resource::StateFile { .. } => 2,
    };
    let mut v: Vec<Resource> = resources.iter().rev().cloned().collect();
    v.sort_by_key(rank); // stable: keeps newest-first within a rank
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_processes_then_namespaces_then_state_newest_first() {
        let ns = |n: &str| Resource::Namespace { name: n.into() };
        let child = |pid| Resource::Child {
            pid,
            start_time: 1,
            label: "c".into(),
        };
        let state = Resource::StateFile {
            path: "/run/netlab/x.json".into(),
        };
        let order = teardown_order(&[
            state.clone(),
            ns("nl-7f3a-1-a"),
            child(10),
            ns("nl-7f3a-1-r"),
            child(11),
        ]);
        assert_eq!(
            order,
            vec![
                child(11),
                child(10),
                ns("nl-7f3a-1-r"),
                ns("nl-7f3a-1-a"),
                state
            ]
        );
    }

    #[test]
    fn foreign_namespaces_are_never_touched() {
        let run = RunId::parse("7f3a").unwrap();
        for name in ["blue", "nl-7f3b-1-a", "nl-7f3a", "../etc"] {
            let (action, outcome) = delete_namespace(name, &run);
            assert_eq!(action, Action::None);
            assert!(matches!(outcome, TeardownOutcome::NotOurs { .. }), "{name}");
        }
        // ours but absent: nothing to do
        let (action, outcome) = delete_namespace("nl-7f3a-nothere-a", &run);
        assert_eq!(
            (action, outcome),
            (Action::None, TeardownOutcome::AlreadyGone)
        );
    }

    #[test]
    fn reused_or_gone_pids_are_not_signalled() {
        let me = process::own_identity().unwrap();
        let other = ProcessIdentity {
            pid: me.pid,
            start_time: me.start_time + 1,
        };
        let (action, outcome) = stop_process(other, &TeardownOptions::default(), false);
        assert_eq!(action, Action::None);
        assert!(
            matches!(outcome, TeardownOutcome::NotOurs { .. }),
            "{outcome:?}"
        );
        let gone = ProcessIdentity {
            pid: i32::MAX - 1,
            start_time: 5,
        };
        assert_eq!(
            stop_process(gone, &TeardownOptions::default(), false),
            (Action::None, TeardownOutcome::AlreadyGone)
        );
    }
}
