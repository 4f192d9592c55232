//! Process syscalls: identity from `/proc/<pid>/stat` (through
//! `netlab_os::proc`), signals, reaping (nix's safe wrappers; nothing here
//! needs `unsafe`).

use std::io;

use netlab_os::{Liveness, ProcessIdentity};
use nix::errno::Errno;
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag};
use nix::unistd::Pid;

use crate::ReceiptsError;

/// The identity (pid + start time) of a running process.
pub fn identify(pid: i32) -> Result<ProcessIdentity, ReceiptsError> {
    ProcessIdentity::of(pid).map_err(|e| ReceiptsError::Process {
        pid,
        reason: e.to_string(),
    })
}

/// The identity of this process.
pub fn own_identity() -> Result<ProcessIdentity, ReceiptsError> {
    identify(std::process::id() as i32)
}

/// Whether `id` still runs as the process registered; reaps it first if it
/// is our own exited child.
pub(crate) fn liveness(id: ProcessIdentity) -> Liveness {
    if id.pid <= 0 {
        return Liveness::Gone;
    }
    // Reap if it is our zombie child (ECHILD for anything else: ignored).
    let _ = waitpid(Pid::from_raw(id.pid), Some(WaitPidFlag::WNOHANG));
    id.liveness()
}

/// Sends `sig` to `pid`; `Ok(false)` if the process no longer exists.
pub(crate) fn signal(pid: i32, sig: Signal) -> io::Result<bool> {
    match kill(Pid::from_raw(pid), sig) {
        Ok(()) => Ok(true),
        Err(Errno::ESRCH) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
