//! The host side's builder: check the kernel, modules, program and paths,
//! prepare the run folder and the spec, and boot `linux.uml` as an owned
//! child in its own process group ([`crate::RunningGuest`] waits for it).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::availability::kernel_image_release;
use crate::error::{Error, Result};
use crate::init_binary::find_init;
use crate::modules::ModuleIndex;
use crate::process_group;
use crate::rundir::RunDir;
use crate::running::{GuestOutcome, RunningGuest, WaitPolicy};
use crate::spec::{
    files, BootLine, InitSpec, ModuleFile, DEFAULT_KERNEL, DEFAULT_MODULES_ROOT, FAST_BOOT_PARAMS,
    INIT_SPEC_VERSION,
};
use crate::visibility::paths_to_give_back;

/// Default deadline of a whole guest run.
pub const GUEST_RUN_DEADLINE: Duration = Duration::from_secs(60);
const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

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
            deadline: GUEST_RUN_DEADLINE,
            stream: false,
            capture_limit: 64 << 20,
        }
    }

    /// The kernel binary.
    pub fn kernel(mut self, path: impl Into<PathBuf>) -> Self {
        self.kernel = path.into();
        self
    }

    /// A guest kernel of [`crate::kernels`]: its binary and modules root.
    pub fn guest_kernel(mut self, k: &crate::kernels::GuestKernel) -> Self {
        self.kernel = k.kernel.clone();
        self.modules_root = k.modules_root.clone();
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

    /// Keeps an existing host folder under `/tmp`, `/run` or `/dev` visible,
    /// at the same path, inside the guest (which mounts its own file
    /// systems there): init bind-mounts it back over the guest's mount, so
    /// what the program writes there lands in the host folder. Folders
    /// elsewhere are visible anyway. `/tmp`, `/run` and `/dev` themselves
    /// cannot be shared ([`Error::InvalidSetting`]).
    pub fn share_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.shared_dirs.push(dir.into());
        self
    }

    /// The program's working directory (default: the host's current dir).
    /// Like the program's folder, it stays visible inside the guest even
    /// under `/tmp`, `/run` or `/dev` (see [`Guest::share_dir`]).
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// The init binary and the arguments it needs before `--spec PATH`
    /// (e.g. the orchestrator itself with `["guest-init"]`). It may be
    /// anywhere, `/tmp` included: the kernel starts it before init mounts
    /// anything. Default:
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
    /// [`crate::KillHandle`]. The kernel gets SIGKILL if the calling thread exits,
    /// so wait from the thread that spawned.
    pub fn spawn(&self) -> Result<RunningGuest> {
        if !self.kernel.is_file() {
            return Err(Error::KernelMissing {
                path: self.kernel.clone(),
            });
        }
        let modules = self.module_files()?;
        let init = match &self.init {
            Some(p) => p.clone(),
            None => find_init()?,
        };
        let program = resolve_program(&self.program)?;
        let cwd = match &self.cwd {
            Some(d) => std::path::absolute(d)
                .map_err(|e| Error::io("resolving the working directory", e))?,
            None => std::env::current_dir().map_err(|e| Error::io("current directory", e))?,
        };
        // The init binary needs nothing: the kernel starts it before init
        // mounts anything. The rest is given back where the guest's own
        // mounts would hide it (a checkout under /tmp, an output folder, …).
        let shared: Vec<PathBuf> = self.shared_dirs.iter().map(|d| real_path(d)).collect();
        let shared_dirs = paths_to_give_back(&real_path(&program), &real_path(&cwd), &shared)
            .map_err(Error::InvalidSetting)?;

        let dir = RunDir::create()?;
        let spec = InitSpec {
            schema: INIT_SPEC_VERSION,
            modules,
            program,
            args: self.args.clone(),
            env: self.env.clone(),
            cwd,
            shared_dirs,
        };
        let spec_path = write_spec(&dir.path, &spec)?;
        let umid = dir
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("netlab-guest")
            .to_owned();
        let mut kernel_params = self.kernel_params.clone();
        if self.fast_boot {
            kernel_params.push(FAST_BOOT_PARAMS.to_owned());
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
        let shim = crate::xstate::install(&dir.path)?;
        let mut cmd = Command::new(&self.kernel);
        cmd.args(&boot)
            .env("LD_PRELOAD", &shim)
            .env("TMPDIR", memory_dir(&dir.path))
            .env_remove("TMP")
            .env_remove("TEMP")
            .current_dir(&dir.path)
            .stdin(Stdio::null())
            .stdout(console)
            .stderr(console_err);
        process_group::own_child(&mut cmd);
        let started = Instant::now();
        let child = cmd
            .spawn()
            .map_err(|e| Error::io(format!("starting {}", self.kernel.display()), e))?;
        // Lets `cleanup_stale_runs` find the kernel if this process is SIGKILLed.
        let _ = std::fs::write(
            dir.path.join(files::KERNEL_PID),
            format!("{}\n", child.id()),
        );
        let policy = WaitPolicy {
            deadline: self.deadline,
            stream: self.stream,
            capture_limit: self.capture_limit,
            mem: self.mem.clone(),
        };
        Ok(RunningGuest::new(child, dir, policy, started))
    }

    /// The asked modules and their dependencies, in load order, from the
    /// kernel's own modules folder (its `modules.dep`; the folder is
    /// found, or its absence refused, even when no module is asked).
    fn module_files(&self) -> Result<Vec<ModuleFile>> {
        let modules_dir = match &self.modules_dir {
            Some(d) => d.clone(),
            None => self
                .modules_root
                .join(kernel_image_release(&self.kernel, &self.modules_root)?),
        };
        if self.modules.is_empty() {
            return Ok(Vec::new());
        }
        let index = ModuleIndex::load(&modules_dir)?;
        let names: Vec<&str> = self.modules.iter().map(String::as_str).collect();
        Ok(index
            .resolve(&names, &modules_dir)?
            .into_iter()
            .map(|m| ModuleFile {
                path: modules_dir.join(&m.path),
                name: m.name,
            })
            .collect())
    }
}

/// Writes the init's spec into the run folder and creates the program's
/// empty stdout and stderr files beside it; returns the spec's path.
fn write_spec(run_dir: &Path, spec: &InitSpec) -> Result<PathBuf> {
    let spec_path = run_dir.join(files::SPEC);
    let json = serde_json::to_vec_pretty(spec).expect("spec serializes");
    std::fs::write(&spec_path, json)
        .map_err(|e| Error::io(format!("writing {}", spec_path.display()), e))?;
    for f in [files::STDOUT, files::STDERR] {
        File::create(run_dir.join(f))
            .map_err(|e| Error::io(format!("creating {f} in the run folder"), e))?;
    }
    Ok(spec_path)
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

/// `p` absolute with symbolic links resolved, or only made absolute when
/// it does not exist (the guest then reports it).
fn real_path(p: &Path) -> PathBuf {
    std::fs::canonicalize(p)
        .or_else(|_| std::path::absolute(p))
        .unwrap_or_else(|_| p.to_path_buf())
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
    }
}
