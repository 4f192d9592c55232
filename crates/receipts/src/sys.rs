//! Process syscalls: `/proc/<pid>/stat`, signals, reaping (through nix's
//! safe wrappers; nothing here needs `unsafe`).

use std::io;

use nix::errno::Errno;
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag};
use nix::unistd::Pid;

use crate::resource::{parse_proc_stat, ProcStat, ProcessIdentity};
use crate::ReceiptsError;

/// Reads `/proc/<pid>/stat`; `Ok(None)` if there is no such process.
pub(crate) fn proc_stat(pid: i32) -> io::Result<Option<ProcStat>> {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(text) => Ok(parse_proc_stat(&text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The identity (pid + start time) of a running process.
pub fn identify(pid: i32) -> Result<ProcessIdentity, ReceiptsError> {
    match proc_stat(pid) {
        Ok(Some(s)) => Ok(ProcessIdentity {
            pid,
            start_time: s.start_time,
        }),
        Ok(None) => Err(ReceiptsError::Process {
            pid,
            reason: "no such process".into(),
        }),
        Err(e) => Err(ReceiptsError::Process {
            pid,
            reason: e.to_string(),
        }),
    }
}

/// The identity of this process.
pub fn own_identity() -> Result<ProcessIdentity, ReceiptsError> {
    identify(std::process::id() as i32)
}

/// Whether a registered process is still the one we registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Liveness {
    /// Running (or stopped), same start time.
    Alive,
    /// No such process, or a zombie.
    Gone,
    /// The pid now belongs to another process (start time shown).
    Reused(u64),
}

/// Checks `id`; reaps it first if it is our own exited child.
pub(crate) fn liveness(id: ProcessIdentity) -> Liveness {
    if id.pid <= 0 {
        return Liveness::Gone;
    }
    // Reap if it is our zombie child (ECHILD for anything else: ignored).
    let _ = waitpid(Pid::from_raw(id.pid), Some(WaitPidFlag::WNOHANG));
    match proc_stat(id.pid) {
        Ok(Some(s)) if s.start_time != id.start_time => Liveness::Reused(s.start_time),
        Ok(Some(s)) if s.state == 'Z' || s.state == 'X' => Liveness::Gone,
        Ok(Some(_)) => Liveness::Alive,
        Ok(None) => Liveness::Gone,
        // unreadable: treat as alive so nothing is assumed dead wrongly
        Err(_) => Liveness::Alive,
    }
}

/// Sends `sig` to `pid`; `Ok(false)` if the process no longer exists.
pub(crate) fn signal(pid: i32, sig: Signal) -> io::Result<bool> {
    match kill(Pid::from_raw(pid), sig) {
        Ok(()) => Ok(true),
        Err(Errno::ESRCH) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
