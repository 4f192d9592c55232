//! A booted guest: tail the program's output, enforce the deadline and the
//! kill handle, read init's outcome, and always take the kernel's whole
//! process group down.

use std::path::Path;
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use serde::{Deserialize, Serialize};

use crate::deadline::{StopAction, StopReason, Stopper};
use crate::error::{tail_lines, Error, Result};
use crate::process_group;
use crate::rundir::{HostStream, RunDir, Tail};
use crate::spec::{files, GuestStatus, InitOutcome, ModuleLoad, ModuleOutcome, MountStep};

/// Time between SIGTERM and SIGKILL when a guest is stopped.
pub const KILL_GRACE: Duration = Duration::from_millis(500);
const POLL: Duration = Duration::from_millis(10);
/// Lines of console and output kept in error messages.
const TAIL_LINES: usize = 30;

/// What a finished guest run produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuestOutcome {
    /// How the program ended.
    pub status: GuestStatus,
    /// The program's standard output (lossy UTF-8, capped by [`crate::Guest::capture_limit`]).
    pub stdout: String,
    /// The program's standard error (same rules).
    pub stderr: String,
    /// The guest console: kernel and init messages.
    pub console_log: String,
    /// The guest kernel release, as reported from inside.
    pub release: String,
    /// The module loads done by init, in order.
    pub modules: Vec<ModuleLoad>,
    /// The mounts done by init.
    pub mounts: Vec<MountStep>,
    /// From starting the kernel to init's first action (10 ms resolution).
    pub boot_to_init: Option<Duration>,
    /// From starting the kernel to its exit.
    pub elapsed: Duration,
}

/// Ask a running guest to stop from another thread (e.g. a signal handler
/// thread or a resource registry), in any phase, boot included. The
/// waiting side kills the kernel's process group (SIGTERM, then SIGKILL)
/// and returns [`Error::Cancelled`].
#[derive(Debug, Clone)]
pub struct KillHandle {
    pid: u32,
    cancel: Arc<AtomicBool>,
}

impl KillHandle {
    /// Requests the kill; returns at once.
    pub fn kill(&self) {
        self.cancel.store(true, Ordering::SeqCst);
    }

    /// The kernel process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }
}

/// How a started guest is waited for (from the builder).
#[derive(Debug, Clone)]
pub(crate) struct WaitPolicy {
    /// Boot to power-off.
    pub(crate) deadline: Duration,
    /// Copy the program's output live to the host's stdout/stderr.
    pub(crate) stream: bool,
    /// Bytes kept of each output.
    pub(crate) capture_limit: usize,
    /// The guest memory it was booted with (named in errors).
    pub(crate) mem: String,
}

/// A booted guest. Dropping it without [`RunningGuest::wait`] kills the
/// kernel's whole process group and removes the run folder.
#[derive(Debug)]
pub struct RunningGuest {
    child: Option<Child>,
    pid: u32,
    cancel: Arc<AtomicBool>,
    dir: RunDir,
    policy: WaitPolicy,
    started: Instant,
}

impl RunningGuest {
    /// Takes ownership of a kernel started at `started` with its run folder.
    pub(crate) fn new(child: Child, dir: RunDir, policy: WaitPolicy, started: Instant) -> Self {
        RunningGuest {
            pid: child.id(),
            child: Some(child),
            cancel: Arc::new(AtomicBool::new(false)),
            dir,
            policy,
            started,
        }
    }

    /// The kernel's process id, which is also its process group id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// A handle that stops this guest from another thread.
    pub fn kill_handle(&self) -> KillHandle {
        KillHandle {
            pid: self.pid,
            cancel: Arc::clone(&self.cancel),
        }
    }

    /// The host folder of this run (removed when the guest is done).
    pub fn run_dir(&self) -> &Path {
        &self.dir.path
    }

    /// Waits for power-off (streaming output if asked), enforcing the
    /// deadline and the kill handle, then reads init's outcome.
    ///
    /// A guest whose kernel ran out of memory (too little for the kernel to
    /// boot, or for init and the program) ends in
    /// [`Error::MemoryTooSmall`], whether it panicked, stopped without a
    /// outcome or hung until the deadline.
    pub fn wait(mut self) -> Result<GuestOutcome> {
        // Opened before taking the child: on error, Drop kills the guest.
        let (stream, limit) = (self.policy.stream, self.policy.capture_limit);
        let mut out = Tail::open(
            &self.dir.path.join(files::STDOUT),
            limit,
            stream.then_some(HostStream::Stdout),
        )?;
        let mut err = Tail::open(
            &self.dir.path.join(files::STDERR),
            limit,
            stream.then_some(HostStream::Stderr),
        )?;
        let Some(mut child) = self.child.take() else {
            return Err(Error::Cancelled);
        };
        let (exit, boot_to_init, stop_reason) =
            self.poll_until_exit(&mut child, &mut out, &mut err);
        let elapsed = self.started.elapsed();
        // Whatever the kernel left (helper processes) goes too.
        finish_group(self.pid, &mut child);
        out.pump();
        err.pump();
        let console_log = String::from_utf8_lossy(
            &std::fs::read(self.dir.path.join(files::CONSOLE)).unwrap_or_default(),
        )
        .into_owned();
        let console_tail = tail_lines(&console_log, TAIL_LINES);
        if stop_reason == Some(StopReason::Cancelled) {
            return Err(Error::Cancelled);
        }
        let init_outcome: Option<InitOutcome> = std::fs::read(self.dir.path.join(files::RESULT))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let ran_to_the_end = init_outcome.as_ref().is_some_and(|r| r.status.is_some());
        if stop_reason.is_some() || !ran_to_the_end {
            if let Some(evidence) = out_of_memory_evidence(&console_log) {
                return Err(Error::MemoryTooSmall {
                    mem: self.policy.mem.clone(),
                    evidence: evidence.to_owned(),
                    console_tail,
                });
            }
        }
        if stop_reason == Some(StopReason::Deadline) {
            let output = format!("{}{}", out.text(), err.text());
            return Err(Error::DeadlineExceeded {
                deadline: self.policy.deadline,
                output_tail: tail_lines(&output, TAIL_LINES),
                console_tail,
            });
        }
        let kernel_status = exit.map_or_else(|| "unknown".to_owned(), |s| s.to_string());
        let Some(init_outcome) = init_outcome else {
            return Err(Error::NoReport {
                kernel_status,
                console_tail,
            });
        };
        if let Some(e) = module_failure(&init_outcome, &console_tail) {
            return Err(e);
        }
        let Some(status) = init_outcome.status else {
            return Err(Error::GuestSetup {
                message: init_outcome
                    .error
                    .unwrap_or_else(|| "no program status reported".into()),
                console_tail,
            });
        };
        Ok(GuestOutcome {
            status,
            stdout: out.text(),
            stderr: err.text(),
            console_log,
            release: init_outcome.release.unwrap_or_default(),
            modules: init_outcome.modules,
            mounts: init_outcome.mounts,
            boot_to_init,
            elapsed,
        })
    }
}

impl RunningGuest {
    /// Polls the kernel until it exits, or until the stopper gives up on a
    /// guest that ignores SIGKILL, pumping the program's output and ending
    /// the guest at its deadline or on the kill handle. Returns its exit
    /// status (`None`: unknown), when init started, and why it was
    /// stopped, if it was.
    fn poll_until_exit(
        &self,
        child: &mut Child,
        out: &mut Tail,
        err: &mut Tail,
    ) -> (
        Option<std::process::ExitStatus>,
        Option<Duration>,
        Option<StopReason>,
    ) {
        let started_marker = self.dir.path.join(files::STARTED);
        let mut boot_to_init = None;
        let mut stopper = Stopper::new(self.policy.deadline, KILL_GRACE);
        let mut stop_reason = None;
        let exit = loop {
            out.pump();
            err.pump();
            let elapsed = self.started.elapsed();
            if boot_to_init.is_none() && started_marker.exists() {
                boot_to_init = Some(elapsed);
            }
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) => {}
                Err(_) => break None,
            }
            let cancelled = self.cancel.load(Ordering::SeqCst);
            match stopper.step(elapsed, cancelled) {
                StopAction::None => {}
                StopAction::Term(reason) => {
                    stop_reason.get_or_insert(reason);
                    // UML's SIGTERM handler kills its helpers, then exits;
                    // the group gets SIGKILL after the grace period.
                    process_group::signal_process(self.pid, Signal::SIGTERM);
                }
                StopAction::Kill => process_group::signal_group(self.pid, Signal::SIGKILL),
                StopAction::GiveUp => break None,
            }
            std::thread::sleep(POLL);
        };
        (exit, boot_to_init, stop_reason)
    }
}

/// The first module init failed to load, as the error the caller gets.
fn module_failure(init: &InitOutcome, console_tail: &str) -> Option<Error> {
    init.modules.iter().find_map(|m| match &m.outcome {
        ModuleOutcome::Failed { error } => Some(Error::ModuleLoad {
            name: m.name.clone(),
            path: m.path.clone(),
            error: error.clone(),
            console_tail: console_tail.to_owned(),
        }),
        _ => None,
    })
}

impl Drop for RunningGuest {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            process_group::signal_group(self.pid, Signal::SIGKILL);
            finish_group(self.pid, &mut child);
        }
    }
}

/// Kills the group, reaps the kernel, and waits (bounded) until no live
/// process of the group remains.
fn finish_group(pgid: u32, child: &mut Child) {
    process_group::signal_group(pgid, Signal::SIGKILL);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(5) {
        if matches!(child.try_wait(), Ok(Some(_)) | Err(_)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    while start.elapsed() < Duration::from_secs(5)
        && !process_group::live_group_pids(pgid).is_empty()
    {
        process_group::signal_group(pgid, Signal::SIGKILL);
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The first console line showing that the guest kernel ran out of memory,
/// without its printk level prefix (`<0>`). These are the messages of the
/// pinned kernel (6.1) when `mem` is too small: UML's own check at start,
/// a failed early allocation, or the OOM killer with nothing to kill.
pub(crate) fn out_of_memory_evidence(console: &str) -> Option<&str> {
    const ANYWHERE: [&str; 5] = [
        "Too few physical memory",
        "Out of memory",
        "out of memory",
        "deadlocked on memory",
        "invoked oom-killer",
    ];
    console.lines().find_map(|line| {
        let text = line.trim();
        let text = match text.strip_prefix('<') {
            Some(rest) => rest.split_once('>').map_or(text, |(_, t)| t),
            None => text,
        };
        let early = text.contains("Kernel panic") && text.contains("Failed to allocate");
        (early || ANYWHERE.iter().any(|s| text.contains(s))).then_some(text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_evidence_from_real_consoles() {
        // Lines from the pinned 6.1.176 kernel booted with mem=16M..32M.
        let cases = [
            (
                "Too few physical memory! Needed=486539264, given=486236160\n",
                "Too few physical memory! Needed=486539264, given=486236160",
            ),
            (
                "kmsg_dump:\n<6>Zone ranges:\n<0>Kernel panic - not syncing: Failed to allocate 4390912 bytes for node 0 memory map\n<4>CPU: 0\n",
                "Kernel panic - not syncing: Failed to allocate 4390912 bytes for node 0 memory map",
            ),
            (
                "<6>Dentry cache\n<4>kthreadd invoked oom-killer: gfp_mask=0x400dc0, order=2\n<4>Out of memory and no killable processes...\n",
                "kthreadd invoked oom-killer: gfp_mask=0x400dc0, order=2",
            ),
            (
                "Failed to initialize ubd device 0\nKernel panic - not syncing: System is deadlocked on memory\n",
                "Kernel panic - not syncing: System is deadlocked on memory",
            ),
        ];
        for (console, line) in cases {
            assert_eq!(out_of_memory_evidence(console), Some(line), "{console}");
        }
    }

    #[test]
    fn other_failures_are_not_memory() {
        let console = "Failed to initialize ubd device 0 :Couldn't determine size\n\
                       Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000000\n\
                       <3>Failed to allocate IRQ\n";
        assert_eq!(out_of_memory_evidence(console), None);
        assert_eq!(out_of_memory_evidence(""), None);
    }
}
