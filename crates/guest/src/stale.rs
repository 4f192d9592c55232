//! Cleanup after host processes that died without running their Drop guards
//! (SIGKILL): their run folders and any kernel helper process still alive.
//!
//! Ownership is proven, never guessed: a folder is stale only when its name
//! says which host process owned it and that process is gone, and a process
//! is killed only when it is in the recorded kernel's process group *and*
//! its command line carries `umid=<that folder's name>`.

use std::path::{Path, PathBuf};

use nix::sys::signal::Signal;
use serde::{Deserialize, Serialize};

use crate::spec::files;
use crate::sys;

/// Prefix of every run folder name: `netlab-guest-<host pid>-<seq>-<hex>`.
pub const RUN_DIR_PREFIX: &str = "netlab-guest-";

/// What [`cleanup_stale_runs`] did about one stale run folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleRun {
    /// The folder.
    pub dir: PathBuf,
    /// The host process that owned it (now gone).
    pub host_pid: u32,
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

/// Cleans stale runs in the default temporary directory.
pub fn cleanup_stale_runs() -> Vec<StaleRun> {
    cleanup_stale_runs_in(&std::env::temp_dir())
}

/// Cleans stale runs under `tmp`: for each run folder whose owner process
/// is gone, kills the processes proven to belong to its kernel and removes
/// the folder.
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
        if Path::new(&format!("/proc/{host_pid}")).exists() {
            continue; // owner alive (or pid reused): not ours to judge
        }
        let dir = entry.path();
        let kernel_pid = std::fs::read_to_string(dir.join(files::KERNEL_PID))
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok());
        let mut killed = Vec::new();
        if let Some(pgid) = kernel_pid {
            let marker = format!("umid={name}");
            for pid in sys::live_process_group(pgid) {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let ours = cmdline
                    .split(|b| *b == 0)
                    .any(|arg| arg == marker.as_bytes());
                if ours {
                    sys::signal_process(pid, Signal::SIGKILL);
                    killed.push(pid);
                }
            }
        }
        let removed = std::fs::remove_dir_all(&dir).is_ok() || !dir.exists();
        out.push(StaleRun {
            dir,
            host_pid,
            kernel_pid,
            killed,
            removed,
        });
    }
    out
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

    #[test]
    fn stale_folder_of_dead_owner_is_removed_live_one_kept() {
        let tmp =
            std::env::temp_dir().join(format!("netlab-guest-stale-test-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        // A pid that cannot exist (above pid_max's hard limit).
        let dead = tmp.join("netlab-guest-4194305-0-0000abcd");
        let live = tmp.join(format!("netlab-guest-{}-0-0000abcd", std::process::id()));
        std::fs::create_dir_all(&dead).unwrap();
        std::fs::create_dir_all(&live).unwrap();
        std::fs::write(dead.join(files::KERNEL_PID), "4194305\n").unwrap();
        let done = cleanup_stale_runs_in(&tmp);
        assert_eq!(done.len(), 1, "{done:?}");
        assert_eq!(done[0].host_pid, 4194305);
        assert!(done[0].removed && done[0].killed.is_empty());
        assert!(!dead.exists() && live.exists());
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
