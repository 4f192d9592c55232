//! The host side: prepare a run folder, boot `linux.uml` as an owned child
//! in its own process group, tail the program's output, enforce the
//! deadline, read init's report and clean up.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use serde::{Deserialize, Serialize};

use crate::deadline::{StopAction, StopReason, Stopper};
use crate::error::{tail_lines, Error, Result};
use crate::modules::ModuleIndex;
use crate::rundir::{RunDir, Sink, Tail};
use crate::spec::{
    files, BootLine, GuestStatus, InitReport, InitSpec, ModuleFile, ModuleLoad, ModuleOutcome,
    MountReport, SCHEMA_VERSION,
};
use crate::sys;

/// Default kernel binary (Debian package `user-mode-linux`).
pub const DEFAULT_KERNEL: &str = "/usr/bin/linux.uml";
/// Default parent of the per-release modules directories.
pub const DEFAULT_MODULES_ROOT: &str = "/usr/lib/uml/modules";
/// Default deadline of a whole guest run.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);
/// Time between SIGTERM and SIGKILL when a guest is stopped.
pub const KILL_GRACE: Duration = Duration::from_millis(500);
const POLL: Duration = Duration::from_millis(10);
const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// What a finished guest run produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuestOutcome {
    /// How the program ended.
    pub status: GuestStatus,
    /// The program's standard output (lossy UTF-8, capped by [`Guest::capture_limit`]).
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
    pub mounts: Vec<MountReport>,
    /// From starting the kernel to init's first action (10 ms resolution).
    pub boot_to_init: Option<Duration>,
    /// From starting the kernel to its exit.
    pub elapsed: Duration,
}

/// A builder for one guest run: kernel, modules, program, deadline.
///
/// See the crate documentation for an example.
#[derive(Debug, Clone)]
pub struct Guest {
    kernel: PathBuf,
    modules_root: PathBuf,
    modules_dir: Option<PathBuf>,
    mem: String,
    modules: Vec<String>,
    program: OsString,
    args: Vec<String>,
    env: Vec<(String, String)>,
    cwd: Option<PathBuf>,
    shared_dirs: Vec<PathBuf>,
    init: Option<PathBuf>,
    init_args: Vec<String>,
    kernel_params: Vec<String>,
    fast_boot: bool,
    deadline: Duration,
    stream: bool,
    capture_limit: usize,
}

/// Ask a running guest to stop from another thread (e.g. a signal handler
/// thread or a resource registry). The waiting side kills the kernel's
/// process group (SIGTERM, then SIGKILL) and returns [`Error::Cancelled`].
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

/// A booted guest. Dropping it without [`RunningGuest::wait`] kills the
/// kernel's whole process group and removes the run folder.
#[derive(Debug)]
pub struct RunningGuest {
    child: Option<Child>,
    pid: u32,
    cancel: Arc<AtomicBool>,
    dir: RunDir,
    deadline: Duration,
    stream: bool,
    capture_limit: usize,
    started: Instant,
}

impl Guest {
    /// A guest that will run `program` (a path, or a name looked up on the
    /// host's PATH) with the defaults: `/usr/bin/linux.uml`, 1G, no modules,
    /// 60 s deadline, working directory = the host's current directory,
    /// environment = the host's `PATH` and `HOME` only (plus
    /// `NETLAB_IN_GUEST=1`, added by init).
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Guest {
            kernel: PathBuf::from(DEFAULT_KERNEL),
            modules_root: PathBuf::from(DEFAULT_MODULES_ROOT),
            modules_dir: None,
            mem: "1G".into(),
            modules: Vec::new(),
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            env: vec![
                (
                    "PATH".into(),
                    std::env::var("PATH").unwrap_or_else(|_| DEFAULT_PATH.into()),
                ),
                (
                    "HOME".into(),
                    std::env::var("HOME").unwrap_or_else(|_| "/root".into()),
                ),
            ],
            cwd: None,
            shared_dirs: Vec::new(),
            init: None,
            init_args: Vec::new(),
            kernel_params: Vec::new(),
            fast_boot: true,
            deadline: DEFAULT_DEADLINE,
            stream: false,
            capture_limit: 64 << 20,
        }
    }

    /// The kernel binary.
    pub fn kernel(mut self, path: impl Into<PathBuf>) -> Self {
        self.kernel = path.into();
        self
    }

    /// The modules directory (default: `/usr/lib/uml/modules/<release>`).
    pub fn modules_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.modules_dir = Some(dir.into());
        self
    }

    /// Guest memory in the kernel's syntax (`512M`, `1G`).
    pub fn mem(mut self, mem: impl Into<String>) -> Self {
        self.mem = mem.into();
        self
    }

    /// Adds a module to load by name (dependencies are added from modules.dep).
    pub fn module(mut self, name: impl Into<String>) -> Self {
        self.modules.push(name.into());
        self
    }

    /// Adds modules to load by name.
    pub fn modules<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.modules.extend(names.into_iter().map(Into::into));
        self
    }

    /// Adds one program argument.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds program arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets one environment variable of the program.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let key = key.into();
        self.env.retain(|(k, _)| *k != key);
        self.env.push((key, value.into()));
        self
    }

    /// Copies `key` from the host environment, if set (and valid UTF-8).
    pub fn inherit_env(self, key: &str) -> Self {
        match std::env::var(key) {
            Ok(v) => self.env(key, v),
            Err(_) => self,
        }
    }

    /// Copies the whole host environment (UTF-8 entries).
    pub fn inherit_all_env(mut self) -> Self {
        for (k, v) in std::env::vars_os() {
            if let (Some(k), Some(v)) = (k.to_str(), v.to_str()) {
                self = self.env(k, v);
            }
        }
        self
    }

    /// Keeps an existing host folder under `/tmp` or `/run` visible, at the
    /// same path, inside the guest (whose `/tmp` and `/run` are tmpfs):
    /// init bind-mounts it back over the tmpfs, so what the program writes
    /// there lands in the host folder. Folders elsewhere are visible anyway.
    pub fn share_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.shared_dirs.push(dir.into());
        self
    }

    /// The program's working directory (default: the host's current dir).
    /// Paths under `/tmp` and `/run` are hidden inside the guest.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// The init binary and the arguments it needs before `--spec PATH`
    /// (e.g. the orchestrator itself with `["guest-init"]`). Default:
    /// [`crate::find_init`] (`netlab-guest-init`).
    pub fn init(mut self, binary: impl Into<PathBuf>, args: &[&str]) -> Self {
        self.init = Some(binary.into());
        self.init_args = args.iter().map(|s| (*s).to_owned()).collect();
        self
    }

    /// Adds a kernel parameter (e.g. `printk.time=1`); no whitespace.
    pub fn kernel_param(mut self, param: impl Into<String>) -> Self {
        self.kernel_params.push(param.into());
        self
    }

    /// Skip the kernel's RAID6/XOR speed benchmarks at boot (default on:
    /// saves about 0.8 s). Turn off to use btrfs or md-raid456 in the guest.
    /// See [`crate::spec::FAST_BOOT_PARAMS`].
    pub fn fast_boot(mut self, on: bool) -> Self {
        self.fast_boot = on;
        self
    }

    /// The deadline of the whole run, boot to power-off.
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// Also copy the program's stdout/stderr live to the host's
    /// stdout/stderr while capturing it.
    pub fn stream_output(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Bytes kept of each of stdout and stderr (default 64 MiB; the rest is
    /// counted and dropped).
    pub fn capture_limit(mut self, bytes: usize) -> Self {
        self.capture_limit = bytes;
        self
    }

    /// Boots the guest and waits for it: `spawn()?.wait()`.
    pub fn run(&self) -> Result<GuestOutcome> {
        self.spawn()?.wait()
    }

    /// Checks everything, writes the spec and starts the kernel. The
    /// returned handle gives the pid (for a resource registry) and a
    /// [`KillHandle`]. The kernel gets SIGKILL if the calling thread exits,
    /// so wait from the thread that spawned.
    pub fn spawn(&self) -> Result<RunningGuest> {
        if !self.kernel.is_file() {
            return Err(Error::KernelMissing {
                path: self.kernel.clone(),
            });
        }
        let modules_dir = match &self.modules_dir {
            Some(d) => d.clone(),
            None => self.modules_root.join(crate::probe::kernel_release(
                &self.kernel,
                &self.modules_root,
            )?),
        };
        let modules = if self.modules.is_empty() {
            Vec::new()
        } else {
            let index = ModuleIndex::load(&modules_dir)?;
            let names: Vec<&str> = self.modules.iter().map(String::as_str).collect();
            index
                .resolve(&names, &modules_dir)?
                .into_iter()
                .map(|m| ModuleFile {
                    path: modules_dir.join(&m.path),
                    name: m.name,
                })
                .collect()
        };
        let init = match &self.init {
            Some(p) => p.clone(),
            None => crate::testing::find_init()?,
        };
        let program = resolve_program(&self.program)?;
        let cwd = match &self.cwd {
            Some(d) => d.clone(),
            None => std::env::current_dir().map_err(|e| Error::io("current directory", e))?,
        };
        for (what, p) in [
            ("program", &program),
            ("working directory", &cwd),
            ("init binary", &init),
        ] {
            if hidden_in_guest(p) {
                return Err(Error::InvalidSetting(format!(
                    "{what} {} is under /tmp or /run, which the guest mounts over with tmpfs",
                    p.display()
                )));
            }
        }

        let dir = RunDir::create()?;
        let spec = InitSpec {
            schema: SCHEMA_VERSION,
            modules,
            program,
            args: self.args.clone(),
            env: self.env.clone(),
            cwd,
            shared_dirs: self
                .shared_dirs
                .iter()
                .filter(|d| hidden_in_guest(d))
                .cloned()
                .collect(),
        };
        let spec_path = dir.path.join(files::SPEC);
        let json = serde_json::to_vec_pretty(&spec).expect("spec serializes");
        std::fs::write(&spec_path, json)
            .map_err(|e| Error::io(format!("writing {}", spec_path.display()), e))?;
        for f in [files::STDOUT, files::STDERR] {
            File::create(dir.path.join(f))
                .map_err(|e| Error::io(format!("creating {f} in the run folder"), e))?;
        }
        let umid = dir
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("netlab-guest")
            .to_owned();
        let mut kernel_params = self.kernel_params.clone();
        if self.fast_boot {
            kernel_params.push(crate::spec::FAST_BOOT_PARAMS.to_owned());
        }
        let boot = BootLine {
            mem: &self.mem,
            init: &init,
            init_args: &self.init_args,
            kernel_params: &kernel_params,
            spec: &spec_path,
            uml_dir: &dir.path,
            umid: &umid,
        }
        .to_args()
        .map_err(Error::InvalidSetting)?;

        let console_path = dir.path.join(files::CONSOLE);
        let console =
            File::create(&console_path).map_err(|e| Error::io("creating the console log", e))?;
        let console_err = console
            .try_clone()
            .map_err(|e| Error::io("duplicating the console log", e))?;
        let mut cmd = Command::new(&self.kernel);
        cmd.args(&boot)
            .env("TMPDIR", memory_dir(&dir.path))
            .env_remove("TMP")
            .env_remove("TEMP")
            .current_dir(&dir.path)
            .stdin(Stdio::null())
            .stdout(console)
            .stderr(console_err);
        sys::own_child(&mut cmd);
        let started = Instant::now();
        let child = cmd
            .spawn()
            .map_err(|e| Error::io(format!("starting {}", self.kernel.display()), e))?;
        // Lets `cleanup_stale_runs` find the kernel if this process is SIGKILLed.
        let _ = std::fs::write(
            dir.path.join(files::KERNEL_PID),
            format!("{}\n", child.id()),
        );
        Ok(RunningGuest {
            pid: child.id(),
            child: Some(child),
            cancel: Arc::new(AtomicBool::new(false)),
            dir,
            deadline: self.deadline,
            stream: self.stream,
            capture_limit: self.capture_limit,
            started,
        })
    }
}

impl RunningGuest {
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
    /// deadline, then reads init's report.
    pub fn wait(mut self) -> Result<GuestOutcome> {
        // Opened before taking the child: on error, Drop kills the guest.
        let mut out = Tail::open(
            &self.dir.path.join(files::STDOUT),
            self.capture_limit,
            self.stream.then_some(Sink::Stdout),
        )?;
        let mut err = Tail::open(
            &self.dir.path.join(files::STDERR),
            self.capture_limit,
            self.stream.then_some(Sink::Stderr),
        )?;
        let Some(mut child) = self.child.take() else {
            return Err(Error::Cancelled);
        };
        let started_marker = self.dir.path.join(files::STARTED);
        let mut boot_to_init = None;
        let mut stopper = Stopper::new(self.deadline, KILL_GRACE);
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
                    sys::signal_process(self.pid, Signal::SIGTERM);
                }
                StopAction::Kill => sys::signal_group(self.pid, Signal::SIGKILL),
                StopAction::GiveUp => break None,
            }
            std::thread::sleep(POLL);
        };
        let elapsed = self.started.elapsed();
        // Whatever the kernel left (helper processes) goes too.
        finish_group(self.pid, &mut child);
        out.pump();
        err.pump();
        let console_log = String::from_utf8_lossy(
            &std::fs::read(self.dir.path.join(files::CONSOLE)).unwrap_or_default(),
        )
        .into_owned();
        let console_tail = tail_lines(&console_log, 30);
        match stop_reason {
            Some(StopReason::Cancelled) => return Err(Error::Cancelled),
            Some(StopReason::Deadline) => {
                let output = format!("{}{}", out.text(), err.text());
                return Err(Error::DeadlineExceeded {
                    deadline: self.deadline,
                    output_tail: tail_lines(&output, 30),
                    console_tail,
                });
            }
            None => {}
        }
        let report: Option<InitReport> = std::fs::read(self.dir.path.join(files::RESULT))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let kernel_status = exit.map_or_else(|| "unknown".to_owned(), |s| s.to_string());
        let Some(report) = report else {
            return Err(Error::NoReport {
                kernel_status,
                console_tail,
            });
        };
        if let Some(m) = report
            .modules
            .iter()
            .find(|m| matches!(m.outcome, ModuleOutcome::Failed { .. }))
        {
            let ModuleOutcome::Failed { error } = &m.outcome else {
                unreachable!()
            };
            return Err(Error::ModuleLoad {
                name: m.name.clone(),
                path: m.path.clone(),
                error: error.clone(),
                console_tail,
            });
        }
        let Some(status) = report.status else {
            return Err(Error::GuestSetup {
                message: report
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
            release: report.release.unwrap_or_default(),
            modules: report.modules,
            mounts: report.mounts,
            boot_to_init,
            elapsed,
        })
    }
}

impl Drop for RunningGuest {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            sys::signal_group(self.pid, Signal::SIGKILL);
            finish_group(self.pid, &mut child);
        }
    }
}

/// Kills the group, reaps the kernel, and waits (bounded) until no live
/// process of the group remains.
fn finish_group(pgid: u32, child: &mut Child) {
    sys::signal_group(pgid, Signal::SIGKILL);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(5) {
        if matches!(child.try_wait(), Ok(Some(_)) | Err(_)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    while start.elapsed() < Duration::from_secs(5) && !sys::live_process_group(pgid).is_empty() {
        sys::signal_group(pgid, Signal::SIGKILL);
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Where UML puts its (immediately unlinked) memory file: `/dev/shm` when
/// usable (tmpfs, fast), else the run folder.
fn memory_dir(run_dir: &Path) -> PathBuf {
    let shm = Path::new("/dev/shm");
    let usable = std::fs::metadata(shm).is_ok_and(|m| m.is_dir())
        && nix::unistd::access(shm, nix::unistd::AccessFlags::W_OK).is_ok();
    if usable {
        shm.to_path_buf()
    } else {
        run_dir.to_path_buf()
    }
}

fn hidden_in_guest(p: &Path) -> bool {
    p.starts_with("/tmp") || p.starts_with("/run")
}

/// A path (made absolute) or a name found on the host's PATH.
fn resolve_program(program: &OsStr) -> Result<PathBuf> {
    let name = Path::new(program);
    if program.is_empty() {
        return Err(Error::ProgramNotFound(String::new()));
    }
    if name.components().count() > 1 || name.is_absolute() {
        let abs =
            std::path::absolute(name).map_err(|e| Error::io("resolving the program path", e))?;
        return if abs.is_file() {
            Ok(abs)
        } else {
            Err(Error::ProgramNotFound(name.display().to_string()))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| DEFAULT_PATH.into());
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| Error::ProgramNotFound(name.display().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_resolve_on_path_or_fail_by_name() {
        assert!(resolve_program(OsStr::new("sh")).unwrap().is_absolute());
        let e = resolve_program(OsStr::new("no-such-program-xyz")).unwrap_err();
        assert!(e.to_string().contains("no-such-program-xyz"));
        assert!(hidden_in_guest(Path::new("/tmp/x")));
        assert!(!hidden_in_guest(Path::new("/tmpfoo/x")));
    }
}
