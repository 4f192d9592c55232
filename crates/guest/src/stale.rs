//! Cleanup after host processes that died without running their Drop guards
//! (SIGKILL): their run folders and any kernel helper process still alive.
//!
//! Ownership is proven, never guessed, with the pid + start-time model of
//! `netlab_os::ProcessIdentity` (the same one netlab-receipts uses): a
//! folder records its owner's identity in [`OWNER_FILE`] when it is made,
//! and it is stale only when that process no longer runs — gone, or its pid
//! now given to a process with another start time. (A folder without the
//! record counts as stale only when no process has its pid at all.) A
//! process is killed only when it is in the recorded kernel's process
//! group, its command line carries `umid=<that folder's name>`, it started
//! no earlier than the owner, and it is still the same process (pid and
//! start time) right before the signal.

use std::path::{Path, PathBuf};

use netlab_os::{Liveness, ProcessIdentity};
use nix::sys::signal::Signal;
use serde::{Deserialize, Serialize};

use crate::process_group;
use crate::spec::files;

/// Prefix of every run folder name: `netlab-guest-<host pid>-<seq>-<hex>`.
pub const RUN_DIR_PREFIX: &str = "netlab-guest-";

/// File in a run folder holding its owner's identity (JSON
/// `{"pid":…,"start_time":…}`), written when the folder is made.
pub const OWNER_FILE: &str = "owner.json";

/// What [`cleanup_stale_runs`] did about one stale run folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleRun {
    /// The folder.
    pub dir: PathBuf,
    /// The host process that owned it (now gone).
    pub host_pid: u32,
    /// The owner's recorded start time, if the folder has [`OWNER_FILE`].
    pub owner_start_time: Option<u64>,
    /// Whether the owner's pid now runs another process.
    pub owner_pid_reused: bool,
    /// The kernel process id recorded in the folder, if any.
    pub kernel_pid: Option<u32>,
    /// Processes of that kernel killed now.
    pub killed: Vec<u32>,
    /// Whether the folder is gone now.
    pub removed: bool,
}

/// The owning host pid of a run folder name, if it is one.
pub fn run_dir_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(RUN_DIR_PREFIX)?;
    let mut parts = rest.split('-');
    let pid = parts.next()?.parse().ok()?;
    let _seq: u64 = parts.next()?.parse().ok()?;
    let hex = parts.next()?;
    (parts.next().is_none() && u32::from_str_radix(hex, 16).is_ok()).then_some(pid)
}

/// Records this process as the owner of the run folder `dir`.
pub(crate) fn record_owner(dir: &Path) -> std::io::Result<()> {
    let me = ProcessIdentity::own().map_err(std::io::Error::other)?;
    let json = serde_json::to_vec(&me).map_err(std::io::Error::other)?;
    std::fs::write(dir.join(OWNER_FILE), json)
}

/// The owner recorded in `dir`, if present, readable and for `host_pid`.
fn recorded_owner(dir: &Path, host_pid: u32) -> Option<ProcessIdentity> {
    let text = std::fs::read(dir.join(OWNER_FILE)).ok()?;
    let id: ProcessIdentity = serde_json::from_slice(&text).ok()?;
    (id.pid == host_pid as i32).then_some(id)
}

/// Whether the owner of a folder named for `host_pid` is proven dead;
/// `Some(reused)` if so.
fn owner_dead(owner: Option<ProcessIdentity>, host_pid: u32) -> Option<bool> {
    match owner {
        Some(id) => match id.liveness() {
            Liveness::Gone => Some(false),
            Liveness::Reused { .. } => Some(true),
            // alive, or /proc unreadable: not ours to judge
            Liveness::Alive | Liveness::Unknown { .. } => None,
        },
        // no record: only a pid with no process at all proves it
        None => (!netlab_os::proc::pid_exists(host_pid)).then_some(false),
    }
}

/// Cleans stale runs in the default temporary directory.
pub fn cleanup_stale_runs() -> Vec<StaleRun> {
    cleanup_stale_runs_in(&std::env::temp_dir())
}

/// Cleans stale runs under `tmp`: for each run folder whose owner process
/// is proven gone, kills the processes proven to belong to its kernel and
/// removes the folder.
pub fn cleanup_stale_runs_in(tmp: &Path) -> Vec<StaleRun> {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(host_pid) = run_dir_owner(name) else {
            continue;
        };
        let dir = entry.path();
        let owner = recorded_owner(&dir, host_pid);
        let Some(owner_pid_reused) = owner_dead(owner, host_pid) else {
            continue;
        };
        let kernel_pid = std::fs::read_to_string(dir.join(files::KERNEL_PID))
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok());
        let killed = match kernel_pid {
            Some(pgid) => kill_kernel(pgid, name, owner),
            None => Vec::new(),
        };
        let removed = std::fs::remove_dir_all(&dir).is_ok() || !dir.exists();
        out.push(StaleRun {
            dir,
            host_pid,
            owner_start_time: owner.map(|o| o.start_time),
            owner_pid_reused,
            kernel_pid,
            killed,
            removed,
        });
    }
    out
}

/// Kills the processes of process group `pgid` proven to be the kernel of
/// run folder `name`.
fn kill_kernel(pgid: u32, name: &str, owner: Option<ProcessIdentity>) -> Vec<u32> {
    let marker = format!("umid={name}");
    let mut killed = Vec::new();
    for stat in netlab_os::proc::live_process_group(pgid as i32) {
        let id = ProcessIdentity {
            pid: stat.pid,
            start_time: stat.start_time,
        };
        if owner.is_some_and(|o| id.start_time < o.start_time) {
            continue; // started before the owner: not its kernel
        }
        let ours = netlab_os::proc::cmdline(id.pid)
            .iter()
            .any(|arg| arg == marker.as_bytes());
        // still the same process right before the signal
        if ours && id.liveness() == Liveness::Alive {
            process_group::signal_process(id.pid as u32, Signal::SIGKILL);
            killed.push(id.pid as u32);
        }
    }
    killed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_dir_names() {
        assert_eq!(run_dir_owner("netlab-guest-2479-0-02f22f46"), Some(2479));
        assert_eq!(run_dir_owner("netlab-guest-version-1-x"), None);
        assert_eq!(run_dir_owner("netlab-guest-12-3-zz"), None);
        assert_eq!(run_dir_owner("other-12-3-ab"), None);
        assert_eq!(run_dir_owner("netlab-guest-12-3-ab-x"), None);
    }

    /// A fresh folder under the temporary directory, removed on drop.
    fn temp_dir(tag: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("netlab-guest-stale-test-{tag}-"))
            .tempdir()
            .expect("a folder under the temporary directory")
    }

    fn write_owner(dir: &Path, id: ProcessIdentity) {
        std::fs::write(dir.join(OWNER_FILE), serde_json::to_vec(&id).unwrap()).unwrap();
    }

    #[test]
    fn stale_folder_of_dead_owner_is_removed_live_one_kept() {
        let tmp = temp_dir("dead");
        // A pid that cannot exist (above pid_max's hard limit).
        let dead = tmp.path().join("netlab-guest-4194305-0-0000abcd");
        let live = tmp
            .path()
            .join(format!("netlab-guest-{}-0-0000abcd", std::process::id()));
        std::fs::create_dir_all(&dead).unwrap();
        std::fs::create_dir_all(&live).unwrap();
        std::fs::write(dead.join(files::KERNEL_PID), "4194305\n").unwrap();
        let done = cleanup_stale_runs_in(tmp.path());
        assert_eq!(done.len(), 1, "{done:?}");
        assert_eq!(done[0].host_pid, 4194305);
        assert!(done[0].removed && done[0].killed.is_empty());
        assert!(!done[0].owner_pid_reused);
        assert!(!dead.exists() && live.exists());
    }

    #[test]
    fn a_reused_owner_pid_makes_the_folder_stale_and_the_new_process_is_untouched() {
        let tmp = temp_dir("reuse");
        let me = ProcessIdentity::own().unwrap();
        // our pid, another start time: the owner is dead, we took its pid
        let reused = tmp
            .path()
            .join(format!("netlab-guest-{}-1-0000abcd", me.pid));
        std::fs::create_dir_all(&reused).unwrap();
        write_owner(
            &reused,
            ProcessIdentity {
                pid: me.pid,
                start_time: me.start_time + 1,
            },
        );
        // a kernel.pid naming our own group: nothing there carries the umid
        let pgrp = netlab_os::proc::proc_stat(me.pid).unwrap().unwrap().pgrp;
        std::fs::write(reused.join(files::KERNEL_PID), format!("{pgrp}\n")).unwrap();
        // our real identity: alive, kept
        let live = tmp
            .path()
            .join(format!("netlab-guest-{}-2-0000abcd", me.pid));
        std::fs::create_dir_all(&live).unwrap();
        write_owner(&live, me);
        // a record for another pid than the name's: not proof; pid alive → kept
        let mismatched = tmp
            .path()
            .join(format!("netlab-guest-{}-3-0000abcd", me.pid));
        std::fs::create_dir_all(&mismatched).unwrap();
        write_owner(
            &mismatched,
            ProcessIdentity {
                pid: 4_194_305,
                start_time: 1,
            },
        );
        let done = cleanup_stale_runs_in(tmp.path());
        assert_eq!(done.len(), 1, "{done:?}");
        assert_eq!(done[0].dir, reused);
        assert!(done[0].owner_pid_reused && done[0].removed);
        assert_eq!(done[0].owner_start_time, Some(me.start_time + 1));
        assert!(done[0].killed.is_empty(), "{done:?}");
        assert!(live.exists() && mismatched.exists());
        assert_eq!(me.liveness(), Liveness::Alive);
    }

    #[test]
    fn a_new_run_folder_records_its_owner() {
        let dir = crate::rundir::RunDir::create().unwrap();
        let name = dir.path.file_name().unwrap().to_str().unwrap().to_owned();
        let pid = run_dir_owner(&name).unwrap();
        assert_eq!(
            recorded_owner(&dir.path, pid),
            Some(ProcessIdentity::own().unwrap())
        );
        // its owner (this process) is alive: not stale
        assert_eq!(owner_dead(recorded_owner(&dir.path, pid), pid), None);
    }
}
