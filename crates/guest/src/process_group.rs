//! The few host-side system calls that need care: the parent-death signal
//! for the kernel process (the only `unsafe`), killing its process group and
//! listing what is left of it.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

use nix::errno::Errno;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

/// Makes the spawned kernel receive SIGTERM when the spawning *thread*
/// exits (e.g. the host process is killed), and puts it in a new process
/// group whose id is its pid.
///
/// SIGTERM, not SIGKILL: UML handles SIGTERM by killing all of its ptraced
/// helper processes before exiting. A SIGKILL to the main process alone
/// would detach those helpers, and guest code would then run *natively on
/// the host* (its syscalls no longer intercepted). Only ever SIGKILL the
/// whole process group at once.
pub(crate) fn own_child(cmd: &mut Command) {
    cmd.process_group(0);
    #[allow(unsafe_code)]
    // SAFETY: the closure runs in the forked child before exec; it only
    // calls prctl(PR_SET_PDEATHSIG), which is async-signal-safe, and does not
    // allocate or touch locks.
    unsafe {
        cmd.pre_exec(|| nix::sys::prctl::set_pdeathsig(Signal::SIGTERM).map_err(io::Error::from));
    }
}

/// Sends `signal` to the process group `pgid`; a group that no longer
/// exists is not an error.
pub(crate) fn signal_group(pgid: u32, signal: Signal) {
    match killpg(Pid::from_raw(pgid as i32), signal) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(e) => eprintln!("netlab-guest: killpg({pgid}, {signal}) failed: {e}"),
    }
}

/// Sends `signal` to the single process `pid` (the kernel's main process).
pub(crate) fn signal_process(pid: u32, signal: Signal) {
    match nix::sys::signal::kill(Pid::from_raw(pid as i32), signal) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(e) => eprintln!("netlab-guest: kill({pid}, {signal}) failed: {e}"),
    }
}

/// Pids of live (non-zombie) processes whose process group is `pgid`.
pub fn live_group_pids(pgid: u32) -> Vec<u32> {
    netlab_os::proc::live_process_group(pgid as i32)
        .into_iter()
        .map(|s| s.pid as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_group_is_listed() {
        let me = std::process::id();
        let stat = netlab_os::proc::proc_stat(me as i32).unwrap().unwrap();
        assert!(live_group_pids(stat.pgrp as u32).contains(&me));
    }
}
