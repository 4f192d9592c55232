//! Building a kernel netlab owns into its cache ([`build`]): the source
//! package installed if missing, the tarball extracted into a temporary
//! folder beside the cache entries, the UML defconfig with the committed
//! fragment merged over it (every fragment line checked to have survived),
//! `make linux modules`, the modules installed, an optional check (the
//! orchestrator boots it), and only then the entry renamed into place. A
//! second call with the same source and fragment finds the entry and does
//! nothing.
//!
//! Every step is a child in its own process group, bounded by the build's
//! deadline and stopped with the caller's [`StopFlag`] (SIGINT): the group
//! gets SIGTERM, then SIGKILL, and the temporary folder is removed, so a
//! failed or interrupted build leaves no half-written entry and no
//! process. The build's own output goes to a log under `<cache>/logs`,
//! kept whatever happens, and copied into the entry.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use netlab_os::StopFlag;
use nix::sys::signal::Signal;

use super::config::{lost_lines, read_config, ConfigFacts};
use super::{entry, BuiltKernel, GuestKernel, Manifest, MANIFEST, RECIPE_VERSION};
use crate::process_group::{live_group_pids, own_child, signal_group};

/// Default bound of a whole build: a cold build took 80 minutes of wall
/// time (630 s of CPU) on 2 cores shared with a load of 14 to 21
/// (docs/usage.md, "Guest kernels").
pub const BUILD_DEADLINE: Duration = Duration::from_secs(180 * 60);

/// How long a stopped step's process group has between SIGTERM and SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// How often progress is said while make runs.
const PROGRESS_EVERY: Duration = Duration::from_secs(30);

/// Prefix of the temporary folders builds work in, beside the entries.
pub const TEMP_PREFIX: &str = ".build-";

/// A check of the staged kernel: what it found, or why it failed.
pub type KernelCheck<'a> = &'a dyn Fn(&GuestKernel) -> Result<String, String>;

/// How a build is run.
pub struct BuildOptions<'a> {
    /// Parallel make jobs.
    pub jobs: usize,
    /// Bound of the whole build, installation of the source included.
    pub deadline: Duration,
    /// Set on SIGINT/SIGTERM: the build stops and cleans up.
    pub stop: StopFlag,
    /// Install the source package when it is missing (apt-get).
    pub install_source: bool,
    /// Told each step and, while make runs, its progress.
    pub progress: &'a dyn Fn(&str),
    /// Run on the staged kernel before it is renamed into place (the
    /// orchestrator boots it); an error fails the build.
    pub check: Option<KernelCheck<'a>>,
}

/// What [`build`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum BuildOutcome {
    /// The entry was there: nothing was done.
    AlreadyBuilt {
        /// The kernel.
        kernel: GuestKernel,
        /// Its cache entry.
        dir: PathBuf,
    },
    /// Built now.
    Built {
        /// The kernel.
        kernel: GuestKernel,
        /// Its cache entry.
        dir: PathBuf,
        /// Wall time of the build, s.
        seconds: f64,
        /// The build's log.
        log: PathBuf,
        /// What the check said.
        checked: Option<String>,
    },
}

/// Why a build failed; nothing was left in the cache but its log.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The source package is missing and could not be installed.
    #[error("{0}")]
    Source(String),
    /// A step failed; its output is in the log.
    #[error("{step} failed: {detail}; the build's log: {}", log.display())]
    Step {
        /// The step (`make linux modules`).
        step: String,
        /// How it failed.
        detail: String,
        /// The log.
        log: PathBuf,
    },
    /// Lines of the fragment did not survive into the configuration.
    #[error("the configuration lost lines of the fragment (a dependency forbids them): {}; the build's log: {}", lines.join(", "), log.display())]
    ConfigLost {
        /// Each lost line, with what the configuration holds instead.
        lines: Vec<String>,
        /// The log.
        log: PathBuf,
    },
    /// The deadline passed; the step was stopped.
    #[error("the build did not finish within {after:?} (during {step}); the build's log: {}", log.display())]
    TimedOut {
        /// The deadline.
        after: Duration,
        /// The step it stopped.
        step: String,
        /// The log.
        log: PathBuf,
    },
    /// Stopped by the caller (SIGINT/SIGTERM).
    #[error("the build was interrupted during {step}; nothing was kept but its log: {}", log.display())]
    Interrupted {
        /// The step it stopped.
        step: String,
        /// The log.
        log: PathBuf,
    },
    /// A file step failed.
    #[error("{0}")]
    Io(String),
}

impl BuildError {
    fn io(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> BuildError {
        move |e| BuildError::Io(format!("{what}: {e}"))
    }
}

/// Builds `spec` into the cache at `root`, or finds it there.
// Long: the build's steps in order (source, lock, extract, configure,
// check the fragment, make, install, check, rename); each is a call and
// its error.
pub fn build(
    spec: &BuiltKernel,
    root: &Path,
    opts: &BuildOptions<'_>,
) -> Result<BuildOutcome, BuildError> {
    let t0 = Instant::now();
    let cpu0 = children_cpu_seconds();
    let until = t0 + opts.deadline;
    let logs = root.join("logs");
    std::fs::create_dir_all(&logs)
        .map_err(BuildError::io(format!("creating {}", logs.display())))?;
    let version = match spec.source_version() {
        Some(v) if Path::new(spec.tarball).is_file() => v,
        _ if opts.install_source => install_source(spec, &logs, until, opts)?,
        _ => {
            return Err(BuildError::Source(format!(
                "the source package {} is not installed: apt-get install -y {}",
                spec.source_package, spec.source_package
            )))
        }
    };
    let key = spec.cache_key(&version);
    let dir = root.join(&key);
    if let Ok(kernel) = entry(&dir) {
        return Ok(BuildOutcome::AlreadyBuilt { kernel, dir });
    }
    let log = logs.join(format!(
        "{key}.{}.log",
        netlab_utc::folder_stamp(SystemTime::now())
    ));
    let _lock = lock(root, &key, until, &opts.stop, &log)?;
    // Another build of the same key may have finished while we waited.
    if let Ok(kernel) = entry(&dir) {
        return Ok(BuildOutcome::AlreadyBuilt { kernel, dir });
    }
    remove_stale_temps(root, &key);
    let tmp = root.join(format!("{TEMP_PREFIX}{key}-{}", std::process::id()));
    let guard = TempDir(tmp.clone());
    let src = tmp.join("src");
    std::fs::create_dir_all(&src).map_err(BuildError::io(format!("creating {}", src.display())))?;
    let steps = Steps {
        log: &log,
        until,
        opts,
        deadline: opts.deadline,
    };
    (opts.progress)(&format!(
        "kernel {}: extracting {} {version} into {} (log: {})",
        spec.name,
        spec.source_package,
        tmp.display(),
        log.display()
    ));
    steps.run(
        "extracting the source",
        Command::new("tar")
            .arg("-xf")
            .arg(spec.tarball)
            .arg("-C")
            .arg(&src)
            .arg("--strip-components=1"),
    )?;
    (opts.progress)(&format!("kernel {}: configuring", spec.name));
    let fragment = tmp.join("fragment.config");
    std::fs::write(&fragment, spec.fragment).map_err(BuildError::io("writing the fragment"))?;
    steps.run("make defconfig", make(&src).arg("defconfig"))?;
    steps.run(
        "merging the fragment",
        Command::new("scripts/kconfig/merge_config.sh")
            .current_dir(&src)
            .env("ARCH", "um")
            .env("SUBARCH", "x86_64")
            .args(["-m", ".config"])
            .arg(&fragment),
    )?;
    steps.run("make olddefconfig", make(&src).arg("olddefconfig"))?;
    let config_text =
        read_config(&src.join(".config")).map_err(BuildError::io("reading .config"))?;
    let lost = lost_lines(spec.fragment, &config_text);
    if !lost.is_empty() {
        return Err(BuildError::ConfigLost { lines: lost, log });
    }
    (opts.progress)(&format!(
        "kernel {}: compiling with {} job(s)",
        spec.name, opts.jobs
    ));
    steps.run(
        "make linux modules",
        make(&src)
            .arg(format!("-j{}", opts.jobs.max(1)))
            .args(["linux", "modules"]),
    )?;
    let release = release(&src, until, &log)?;
    let stage = tmp.join("stage");
    steps.run(
        "make modules_install",
        make(&src)
            .arg(format!("INSTALL_MOD_PATH={}", stage.display()))
            .arg("modules_install"),
    )?;
    let staged = stage_entry(
        &tmp,
        &src,
        &stage,
        &release,
        spec.fragment,
        &config_text,
        &log,
    )?;
    let facts = ConfigFacts::of(&config_text);
    let manifest = Manifest {
        recipe: RECIPE_VERSION,
        name: spec.name.to_owned(),
        release: release.clone(),
        source: format!("{} {version}", spec.source_package),
        recipe_hash: spec.recipe_hash(),
        config_sha256: facts.sha256,
        compiler: facts.compiler.unwrap_or_else(|| "unknown".into()),
        built_utc: netlab_utc::format_rfc3339(SystemTime::now()),
        build_seconds: t0.elapsed().as_secs_f64(),
        jobs: opts.jobs,
        cpu_seconds: children_cpu_seconds() - cpu0,
    };
    std::fs::write(
        staged.join(MANIFEST),
        serde_json::to_vec_pretty(&manifest).expect("a manifest serializes"),
    )
    .map_err(BuildError::io("writing the manifest"))?;
    let checked = match opts.check {
        Some(check) => {
            let kernel = entry(&staged).map_err(BuildError::Io)?;
            (opts.progress)(&format!("kernel {}: booting it once", spec.name));
            Some(check(&kernel).map_err(|detail| BuildError::Step {
                step: "booting the new kernel".into(),
                detail,
                log: log.clone(),
            })?)
        }
        None => None,
    };
    if opts.stop.is_stopped() {
        return Err(BuildError::Interrupted {
            step: "the boot check".into(),
            log,
        });
    }
    let _ = std::fs::copy(&log, staged.join("build.log"));
    std::fs::rename(&staged, &dir).map_err(BuildError::io(format!(
        "renaming {} to {}",
        staged.display(),
        dir.display()
    )))?;
    netlab_os::atomic::sync_dir(root);
    drop(guard);
    let kernel = entry(&dir).map_err(BuildError::Io)?;
    Ok(BuildOutcome::Built {
        kernel,
        dir,
        seconds: t0.elapsed().as_secs_f64(),
        log,
        checked,
    })
}

/// User and system CPU time of every child this process waited for (and
/// theirs), s.
fn children_cpu_seconds() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(0.0, |u| {
        let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 / 1e6;
        t(u.user_time()) + t(u.system_time())
    })
}

/// `make ARCH=um SUBARCH=x86_64` in the source tree, with a build user and
/// host that name netlab, not this machine.
fn make(src: &Path) -> Command {
    let mut c = Command::new("make");
    c.current_dir(src)
        .args(["ARCH=um", "SUBARCH=x86_64"])
        .env("KBUILD_BUILD_USER", "netlab")
        .env("KBUILD_BUILD_HOST", "netlab");
    c
}

/// The staged entry: the binary, the modules (without their links back
/// into the source tree), the configuration and the fragment.
fn stage_entry(
    tmp: &Path,
    src: &Path,
    stage: &Path,
    release: &str,
    fragment: &str,
    config_text: &str,
    log: &Path,
) -> Result<PathBuf, BuildError> {
    let staged = tmp.join("entry");
    let modules = staged.join("modules");
    std::fs::create_dir_all(&modules).map_err(BuildError::io("creating the staged entry"))?;
    std::fs::rename(src.join("linux"), staged.join("linux"))
        .map_err(BuildError::io("moving the kernel binary"))?;
    let installed = stage.join("lib/modules").join(release);
    if !installed.join("modules.dep").is_file() {
        return Err(BuildError::Step {
            step: "make modules_install".into(),
            detail: format!(
                "no modules.dep in {} (depmod, from the kmod package, makes it)",
                installed.display()
            ),
            log: log.to_path_buf(),
        });
    }
    for link in ["build", "source"] {
        let _ = std::fs::remove_file(installed.join(link));
    }
    std::fs::rename(&installed, modules.join(release))
        .map_err(BuildError::io("moving the modules"))?;
    std::fs::write(staged.join("config"), config_text)
        .map_err(BuildError::io("writing the configuration"))?;
    std::fs::write(staged.join("fragment.config"), fragment)
        .map_err(BuildError::io("writing the fragment"))?;
    Ok(staged)
}

/// `make -s kernelrelease`.
fn release(src: &Path, until: Instant, log: &Path) -> Result<String, BuildError> {
    let left = until.saturating_duration_since(Instant::now());
    let out = bounded_output(make(src).args(["-s", "kernelrelease"]), left).map_err(|detail| {
        BuildError::Step {
            step: "make kernelrelease".into(),
            detail,
            log: log.to_path_buf(),
        }
    })?;
    let release = String::from_utf8_lossy(&out).trim().to_owned();
    if release.is_empty() || release.contains(char::is_whitespace) {
        return Err(BuildError::Step {
            step: "make kernelrelease".into(),
            detail: format!("printed {release:?}"),
            log: log.to_path_buf(),
        });
    }
    Ok(release)
}

/// Installs the source package (apt-get update first if the install fails).
fn install_source(
    spec: &BuiltKernel,
    logs: &Path,
    until: Instant,
    opts: &BuildOptions<'_>,
) -> Result<String, BuildError> {
    let log = logs.join(format!(
        "install-{}.{}.log",
        spec.source_package,
        netlab_utc::folder_stamp(SystemTime::now())
    ));
    (opts.progress)(&format!(
        "kernel {}: installing {} (log: {})",
        spec.name,
        spec.source_package,
        log.display()
    ));
    let steps = Steps {
        log: &log,
        until,
        opts,
        deadline: opts.deadline,
    };
    let install = || {
        let mut c = Command::new("apt-get");
        c.args(["install", "-y", "-q", spec.source_package])
            .env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    if let Err(first) = steps.run("apt-get install", &mut install()) {
        if matches!(
            first,
            BuildError::Interrupted { .. } | BuildError::TimedOut { .. }
        ) {
            return Err(first);
        }
        steps.run(
            "apt-get update",
            Command::new("apt-get")
                .args(["update", "-q"])
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )?;
        steps.run("apt-get install", &mut install())?;
    }
    match spec.source_version() {
        Some(v) if Path::new(spec.tarball).is_file() => Ok(v),
        _ => Err(BuildError::Source(format!(
            "{} was installed but {} is not there; the log: {}",
            spec.source_package,
            spec.tarball,
            log.display()
        ))),
    }
}

/// The steps of one build: each a child in its own process group, its
/// output appended to the log, bounded by the build's deadline and
/// stopped by its stop flag.
struct Steps<'a> {
    log: &'a Path,
    until: Instant,
    deadline: Duration,
    opts: &'a BuildOptions<'a>,
}

impl Steps<'_> {
    fn run(&self, step: &str, cmd: &mut Command) -> Result<(), BuildError> {
        let log_file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log)
            .map_err(BuildError::io(format!("opening {}", self.log.display())))?;
        let err_file = log_file
            .try_clone()
            .map_err(BuildError::io("duplicating the log"))?;
        {
            use std::io::Write as _;
            let mut f = &log_file;
            let _ = writeln!(f, "=== {step}: {cmd:?}");
        }
        cmd.stdin(Stdio::null()).stdout(log_file).stderr(err_file);
        own_child(cmd);
        let mut child = cmd.spawn().map_err(|e| BuildError::Step {
            step: step.into(),
            detail: format!("cannot start it: {e}"),
            log: self.log.to_path_buf(),
        })?;
        let pgid = child.id();
        let started = Instant::now();
        let mut said = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(status)) => {
                    return Err(BuildError::Step {
                        step: step.into(),
                        detail: format!("{status}; its last lines:\n{}", log_tail(self.log, 15)),
                        log: self.log.to_path_buf(),
                    })
                }
                Ok(None) => {}
                Err(e) => {
                    stop_group(pgid, &mut child);
                    return Err(BuildError::Io(format!("waiting for {step}: {e}")));
                }
            }
            if self.opts.stop.is_stopped() {
                stop_group(pgid, &mut child);
                return Err(BuildError::Interrupted {
                    step: step.into(),
                    log: self.log.to_path_buf(),
                });
            }
            if Instant::now() >= self.until {
                stop_group(pgid, &mut child);
                return Err(BuildError::TimedOut {
                    after: self.deadline,
                    step: step.into(),
                    log: self.log.to_path_buf(),
                });
            }
            if said.elapsed() >= PROGRESS_EVERY {
                said = Instant::now();
                let done = match count_steps(self.log) {
                    0 => String::new(),
                    n => format!("{n} files compiled or linked, "),
                };
                (self.opts.progress)(&format!(
                    "  {step}: {done}{:.0} s",
                    started.elapsed().as_secs_f64()
                ));
            }
            self.opts.stop.sleep(Duration::from_millis(200));
        }
    }
}

/// SIGTERM to the step's group, SIGKILL after the grace, then waits
/// (bounded) until no process of the group is left.
fn stop_group(pgid: u32, child: &mut std::process::Child) {
    signal_group(pgid, Signal::SIGTERM);
    let until = Instant::now() + STOP_GRACE;
    while Instant::now() < until && !live_group_pids(pgid).is_empty() {
        let _ = child.try_wait();
        std::thread::sleep(Duration::from_millis(100));
    }
    signal_group(pgid, Signal::SIGKILL);
    let _ = child.wait();
    let until = Instant::now() + STOP_GRACE;
    while Instant::now() < until && !live_group_pids(pgid).is_empty() {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Lines of the log that say a file was compiled, linked or generated
/// (`  CC      net/sched/sch_fq_pie.o`).
fn count_steps(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .map(|t| {
            t.lines()
                .filter(|l| {
                    let w = l.trim_start();
                    l.starts_with("  ")
                        && ["CC ", "LD ", "AR ", "AS ", "GEN ", "HOSTCC "]
                            .iter()
                            .any(|p| w.starts_with(p))
                })
                .count()
        })
        .unwrap_or(0)
}

fn log_tail(log: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let v: Vec<&str> = text.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// Holds the key's lock file (`<root>/.<key>.lock`), waiting for another
/// build of the same key, within the deadline and the stop flag.
fn lock(
    root: &Path,
    key: &str,
    until: Instant,
    stop: &StopFlag,
    log: &Path,
) -> Result<nix::fcntl::Flock<File>, BuildError> {
    use nix::fcntl::{Flock, FlockArg};
    let path = root.join(format!(".{key}.lock"));
    let mut file =
        File::create(&path).map_err(BuildError::io(format!("creating {}", path.display())))?;
    loop {
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(l) => return Ok(l),
            Err((f, nix::errno::Errno::EWOULDBLOCK)) => file = f,
            Err((_, e)) => return Err(BuildError::Io(format!("locking {}: {e}", path.display()))),
        }
        if Instant::now() >= until {
            return Err(BuildError::TimedOut {
                after: until.saturating_duration_since(Instant::now()),
                step: "waiting for another build of the same kernel".into(),
                log: log.to_path_buf(),
            });
        }
        if stop.sleep(Duration::from_millis(500)) {
            return Err(BuildError::Interrupted {
                step: "waiting for another build of the same kernel".into(),
                log: log.to_path_buf(),
            });
        }
    }
}

/// Removes the temporary folders earlier builds of `key` left (a build
/// killed with SIGKILL cannot clean up); called under the key's lock, so
/// none of them is in use.
fn remove_stale_temps(root: &Path, key: &str) {
    let prefix = format!("{TEMP_PREFIX}{key}-");
    let Ok(rd) = std::fs::read_dir(root) else {
        return;
    };
    for e in rd.flatten() {
        if e.file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(&prefix))
        {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The build's temporary folder, removed however the build ends.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A command's standard output, bounded in time; `Err` says why not.
pub fn bounded_output(cmd: &mut Command, within: Duration) -> Result<Vec<u8>, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    own_child(cmd);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let until = Instant::now() + within;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let out = reader.join().unwrap_or_default();
                return if status.success() {
                    Ok(out)
                } else {
                    Err(format!("{cmd:?}: {status}"))
                };
            }
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let pgid = child.id();
                stop_group(pgid, &mut child);
                let _ = reader.join();
                return Err(format!("{cmd:?} did not finish within {within:?}"));
            }
            Err(e) => return Err(format!("waiting for {cmd:?}: {e}")),
        }
    }
}

/// A stop flag the first SIGINT or SIGTERM to this process sets, and the
/// signal's number once one came (a thread waits for them; the process no
/// longer dies of them, so the build can clean up).
pub fn stop_on_signals() -> std::io::Result<(StopFlag, std::sync::Arc<std::sync::atomic::AtomicI32>)>
{
    use signal_hook::consts::{SIGINT, SIGTERM};
    use std::sync::atomic::{AtomicI32, Ordering};
    let stop = StopFlag::new();
    let signal = std::sync::Arc::new(AtomicI32::new(0));
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let (flag, seen) = (stop.clone(), signal.clone());
    std::thread::Builder::new()
        .name("kernel-build-signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                seen.store(sig, Ordering::SeqCst);
                flag.stop();
            }
        })?;
    Ok((stop, signal))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet() -> impl Fn(&str) {
        |_: &str| {}
    }

    #[test]
    fn a_stopped_step_leaves_no_process() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let stop = StopFlag::new();
        let progress = quiet();
        let opts = BuildOptions {
            jobs: 1,
            deadline: Duration::from_secs(60),
            stop: stop.clone(),
            install_source: false,
            progress: &progress,
            check: None,
        };
        let steps = Steps {
            log: &log,
            until: Instant::now() + Duration::from_secs(60),
            deadline: Duration::from_secs(60),
            opts: &opts,
        };
        let pid_file = dir.path().join("pids");
        let stopper = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(500));
                stop.stop();
            })
        };
        // A shell and its own child (sleep), as make and gcc.
        let script = format!("sleep 30 & echo $$ $! > {}; wait", pid_file.display());
        let e = steps
            .run("sleeping", Command::new("sh").args(["-c", &script]))
            .unwrap_err();
        stopper.join().unwrap();
        assert!(matches!(e, BuildError::Interrupted { .. }), "{e}");
        let pids = std::fs::read_to_string(&pid_file).unwrap();
        for pid in pids.split_whitespace() {
            let pid: i32 = pid.parse().unwrap();
            let alive = netlab_os::proc::proc_stat(pid)
                .ok()
                .flatten()
                .is_some_and(|s| s.state != 'Z');
            assert!(!alive, "process {pid} survived the stop");
        }
        assert!(std::fs::read_to_string(&log)
            .unwrap()
            .contains("=== sleeping"));
    }

    #[test]
    fn a_step_past_the_deadline_is_stopped_and_a_failure_quotes_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let progress = quiet();
        let opts = BuildOptions {
            jobs: 1,
            deadline: Duration::from_millis(300),
            stop: StopFlag::new(),
            install_source: false,
            progress: &progress,
            check: None,
        };
        let steps = Steps {
            log: &log,
            until: Instant::now() + Duration::from_millis(300),
            deadline: Duration::from_millis(300),
            opts: &opts,
        };
        let t = Instant::now();
        let e = steps
            .run("waiting", Command::new("sleep").arg("30"))
            .unwrap_err();
        assert!(matches!(e, BuildError::TimedOut { .. }), "{e}");
        assert!(t.elapsed() < Duration::from_secs(10));
        let steps = Steps {
            until: Instant::now() + Duration::from_secs(30),
            ..steps
        };
        let e = steps
            .run(
                "failing",
                Command::new("sh").args(["-c", "echo broken >&2; exit 3"]),
            )
            .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("failing failed: exit status: 3"), "{text}");
        assert!(text.contains("broken"), "{text}");
    }

    #[test]
    fn progress_counts_compiled_files() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        std::fs::write(
            &log,
            "  CC      a.o\n  LD      b.o\nwarning: CC x\n  AR      c.a\n  SYNC    d\n",
        )
        .unwrap();
        assert_eq!(count_steps(&log), 3);
    }

    #[test]
    fn stale_temporary_folders_of_the_key_go_and_others_stay() {
        let root = tempfile::tempdir().unwrap();
        let stale = root.path().join(format!("{TEMP_PREFIX}k1-123"));
        let other = root.path().join(format!("{TEMP_PREFIX}k2-123"));
        std::fs::create_dir_all(stale.join("src")).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        remove_stale_temps(root.path(), "k1");
        assert!(!stale.exists());
        assert!(other.exists());
    }

    #[test]
    fn bounded_output_reads_and_bounds() {
        let out = bounded_output(
            Command::new("echo").arg("6.12.118"),
            Duration::from_secs(10),
        );
        assert_eq!(out.unwrap(), b"6.12.118\n");
        let e = bounded_output(Command::new("sleep").arg("30"), Duration::from_millis(200));
        assert!(e.unwrap_err().contains("did not finish"));
    }
}
