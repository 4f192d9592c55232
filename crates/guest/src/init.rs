//! The guest side: our own init (PID 1 inside the user-mode-linux kernel).
//!
//! It reads the [`InitSpec`] named by `--spec PATH`, mounts proc, sysfs,
//! devtmpfs (where possible) and tmpfs on `/run` and `/tmp`, binds back
//! the host paths the spec shares from below them, loads the
//! modules with `finit_module`, runs the program with its output going to
//! files in the run folder, reaps every child, writes an [`InitOutcome`] and
//! powers off. No shell, busybox or kmod is involved.
//!
//! The run folder lives in the host's `/tmp`, which the tmpfs mount hides
//! inside the guest, so every file init needs there is opened *before* the
//! mounts and used through the open descriptors afterwards.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::kmod::{finit_module, ModuleInitFlags};
use nix::mount::{mount, MsFlags};
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

use crate::spec::{
    files, parse_init_args, GuestStatus, InitOutcome, InitSpec, ModuleLoad, ModuleOutcome,
    MountStep, INIT_SPEC_VERSION, IN_GUEST_ENV,
};

/// Entry point of the guest init: call it from `main` of the init binary
/// (or from a hidden subcommand of another binary) with the process
/// arguments. Never returns: it powers the guest off.
///
/// Refuses (exit 2) unless it is PID 1, so running it by mistake on a host
/// cannot mount anything or power the host off.
pub fn main_from_args<I>(args: I) -> !
where
    I: IntoIterator<Item = OsString>,
{
    if std::process::id() != 1 {
        eprintln!(
            "netlab-guest-init: must run as init (PID 1) inside the guest kernel; \
             refusing to mount anything or power off this system"
        );
        std::process::exit(2);
    }
    let spec = parse_init_args(args);
    let run = std::panic::catch_unwind(move || run(spec));
    if run.is_err() {
        eprintln!("netlab-guest-init: init panicked");
    }
    nix::unistd::sync();
    ensure_pid1();
    let err = nix::sys::reboot::reboot(nix::sys::reboot::RebootMode::RB_POWER_OFF);
    eprintln!("netlab-guest-init: power off failed: {err:?}");
    std::process::exit(1)
}

/// Exits at once unless this process is PID 1 (asked of the kernel each time).
///
/// Checked right before every step that would be harmful outside the guest
/// (mounts, `kill(-1)`, power-off): if the UML kernel process died while
/// its helper processes survived, our code would be running natively on the
/// host, where `getpid()` is not 1.
fn ensure_pid1() {
    if nix::unistd::getpid().as_raw() != 1 {
        eprintln!("netlab-guest-init: no longer PID 1 (guest kernel gone?); exiting");
        std::process::exit(1);
    }
}

/// Files init opened before mounting over `/tmp`.
struct RunFiles {
    result: File,
}

fn run(spec_path: Option<PathBuf>) {
    let Some(spec_path) = spec_path else {
        eprintln!("netlab-guest-init: no --spec PATH among the init arguments");
        return;
    };
    let dir = spec_path.parent().unwrap_or(Path::new("/")).to_path_buf();
    if let Err(e) = File::create(dir.join(files::STARTED)) {
        eprintln!(
            "netlab-guest-init: cannot create the start marker in {}: {e}",
            dir.display()
        );
    }
    let result = match File::create(dir.join(files::RESULT)) {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "netlab-guest-init: cannot create {}: {e}",
                dir.join(files::RESULT).display()
            );
            return;
        }
    };
    let mut run_files = RunFiles { result };
    let mut init_outcome = InitOutcome {
        schema: INIT_SPEC_VERSION,
        ..Default::default()
    };
    if let Err(message) = prepare_and_run(&spec_path, &dir, &mut init_outcome) {
        eprintln!("netlab-guest-init: {message}");
        init_outcome.error = Some(message);
    }
    write_outcome(&mut run_files, &init_outcome);
}

fn write_outcome(files: &mut RunFiles, init_outcome: &InitOutcome) {
    let json = serde_json::to_vec_pretty(init_outcome).unwrap_or_else(|e| {
        format!("{{\"schema\":{INIT_SPEC_VERSION},\"error\":\"cannot encode report: {e}\"}}")
            .into_bytes()
    });
    if let Err(e) = files
        .result
        .write_all(&json)
        .and_then(|()| files.result.sync_all())
    {
        eprintln!("netlab-guest-init: cannot write the result file: {e}");
    }
}

fn prepare_and_run(
    spec_path: &Path,
    dir: &Path,
    init_outcome: &mut InitOutcome,
) -> Result<(), String> {
    let text = std::fs::read_to_string(spec_path)
        .map_err(|e| format!("cannot read spec {}: {e}", spec_path.display()))?;
    let spec: InitSpec = serde_json::from_str(&text)
        .map_err(|e| format!("cannot parse spec {}: {e}", spec_path.display()))?;
    if spec.schema != INIT_SPEC_VERSION {
        return Err(format!(
            "spec schema {} but this init understands {INIT_SPEC_VERSION} (host and init binaries differ?)",
            spec.schema
        ));
    }
    let out = append(&dir.join(files::STDOUT))?;
    let err = append(&dir.join(files::STDERR))?;
    // Shared host paths (the program's folder under /tmp, …) are opened
    // before the guest's own mounts hide them.
    let shared = spec
        .shared_dirs
        .iter()
        .map(|d| {
            File::open(d)
                .map(|f| (d.clone(), f))
                .map_err(|e| format!("cannot open shared path {}: {e}", d.display()))
        })
        .collect::<Result<Vec<_>, _>>()?;

    mount_all(init_outcome)?;
    for (path, host) in &shared {
        bind_back(path, host)?;
    }
    init_outcome.release = netlab_os::kernel_release();

    for m in &spec.modules {
        let outcome = load_module(&m.path);
        let failed = matches!(outcome, ModuleOutcome::Failed { .. });
        init_outcome.modules.push(ModuleLoad {
            name: m.name.clone(),
            path: m.path.clone(),
            outcome,
        });
        if failed {
            return Err(format!("module {} failed to load", m.name));
        }
    }

    let child = Command::new(&spec.program)
        .args(&spec.args)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .env(IN_GUEST_ENV, "1")
        .current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| {
            format!(
                "cannot start {} in {}: {e}",
                spec.program.display(),
                spec.cwd.display()
            )
        })?;
    let status = reap_until(Pid::from_raw(child.id() as i32));
    reap_leftovers(Duration::from_secs(2));
    init_outcome.status = Some(status?);
    Ok(())
}

fn append(path: &Path) -> Result<File, String> {
    OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))
}

fn mount_all(init_outcome: &mut InitOutcome) -> Result<(), String> {
    // (source, target, fstype, flags, required)
    let nosuid = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
    let steps: [(&str, &str, &str, MsFlags, bool); 5] = [
        ("proc", "/proc", "proc", nosuid, true),
        ("sysfs", "/sys", "sysfs", nosuid, true),
        ("devtmpfs", "/dev", "devtmpfs", MsFlags::MS_NOSUID, false),
        (
            "tmpfs",
            "/run",
            "tmpfs",
            MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
            true,
        ),
        (
            "tmpfs",
            "/tmp",
            "tmpfs",
            MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
            true,
        ),
    ];
    for (source, target, fstype, flags, required) in steps {
        ensure_pid1();
        // Never create mount points: the root is the host's file system.
        let res = if Path::new(target).is_dir() {
            mount(Some(source), target, Some(fstype), flags, None::<&str>)
                .map_err(|e| e.to_string())
        } else {
            Err("mount point does not exist".to_owned())
        };
        let error = res.err();
        init_outcome.mounts.push(MountStep {
            target: target.into(),
            fstype: fstype.into(),
            error: error.clone(),
        });
        if let (Some(e), true) = (error, required) {
            return Err(format!("mounting {fstype} on {target} failed: {e}"));
        }
    }
    Ok(())
}

/// Bind-mounts the host folder (or file) opened as `host` back at `path`,
/// over the guest's own mount; the mount point is created inside that
/// mount (a folder, or an empty file for a file).
fn bind_back(path: &Path, host: &File) -> Result<(), String> {
    use std::os::fd::AsRawFd;
    let is_dir = host
        .metadata()
        .map_err(|e| format!("reading the shared path {}: {e}", path.display()))?
        .is_dir();
    let made = if is_dir {
        std::fs::create_dir_all(path)
    } else {
        path.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(path)
            })
            .map(drop)
    };
    made.map_err(|e| {
        format!(
            "creating the mount point {} in the guest: {e}",
            path.display()
        )
    })?;
    let source = format!("/proc/self/fd/{}", host.as_raw_fd());
    ensure_pid1();
    mount(
        Some(source.as_str()),
        path,
        None::<&str>,
        MsFlags::MS_BIND,
        None::<&str>,
    )
    .map_err(|e| format!("bind-mounting the shared path {}: {e}", path.display()))
}

fn load_module(path: &Path) -> ModuleOutcome {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => {
            return ModuleOutcome::Failed {
                error: format!("open: {e}"),
            }
        }
    };
    ensure_pid1();
    match finit_module(&file, c"", ModuleInitFlags::empty()) {
        Ok(()) => ModuleOutcome::Loaded,
        Err(Errno::EEXIST) => ModuleOutcome::AlreadyLoaded,
        Err(e) => ModuleOutcome::Failed {
            error: format!("finit_module: {e}"),
        },
    }
}

/// Reaps children (init adopts orphans) until `program` has exited.
fn reap_until(program: Pid) -> Result<GuestStatus, String> {
    loop {
        match waitpid(Pid::from_raw(-1), None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == program => {
                return Ok(GuestStatus::Exited(code))
            }
            Ok(WaitStatus::Signaled(pid, sig, _)) if pid == program => {
                return Ok(GuestStatus::Signaled(sig as i32))
            }
            Ok(_) | Err(Errno::EINTR) => {}
            Err(e) => {
                ensure_pid1();
                return Err(format!("waitpid for the program failed: {e}"));
            }
        }
    }
}

/// Kills whatever the program left behind and reaps it, bounded by `limit`.
fn reap_leftovers(limit: Duration) {
    ensure_pid1();
    let _ = kill(Pid::from_raw(-1), Signal::SIGKILL);
    let start = Instant::now();
    while start.elapsed() < limit {
        match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => std::thread::sleep(Duration::from_millis(5)),
            Ok(_) | Err(Errno::EINTR) => {}
            Err(_) => return, // ECHILD: nothing left
        }
    }
}
