//! `orchestrator kernel build NAME` and `orchestrator kernel list`, whole:
//! the flags ([`KernelArgs`]), then the build through
//! `netlab_guest::kernels::build` with progress on stderr, the staged
//! kernel booted once before it is kept, the outcome as an exit code (0
//! built or already there, 1 failed, its log named, 2 an unknown name,
//! 128 + signal when interrupted); or the kernels' list.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use netlab_guest::kernels::build::{self, BuildError, BuildOptions, BuildOutcome, BUILD_DEADLINE};
use netlab_guest::kernels::GuestKernel;

use crate::flags;

/// `orchestrator kernel build NAME` or `orchestrator kernel list`.
#[derive(Debug, Args)]
pub struct KernelArgs {
    /// build: build the kernel NAME from its Debian source into the cache, then boot it once (nothing to do when it is there); list: the guest kernels, whether each is there, and where.
    pub action: KernelAction,
    /// The kernel to build: uml-6.12 (or 6.12).
    #[arg(required_if_eq("action", "build"))]
    pub name: Option<String>,
    /// Parallel make jobs (default: every CPU).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Bound of the whole build (default 180m).
    #[arg(long, value_parser = flags::duration)]
    pub timeout: Option<Duration>,
    /// The cache (default $NETLAB_KERNEL_CACHE, else /var/cache/netlab/kernels as root).
    #[arg(long)]
    pub cache: Option<PathBuf>,
}

/// What `orchestrator kernel` does.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KernelAction {
    /// Build a kernel.
    Build,
    /// List the kernels.
    List,
}

/// Entry point of `orchestrator kernel`; returns the exit code.
pub fn main(a: KernelArgs) -> u8 {
    match (a.action, a.name) {
        (KernelAction::Build, Some(name)) => {
            build_command(&BuildRequest::new(name, a.jobs, a.timeout, a.cache))
        }
        (KernelAction::Build, None) => {
            eprintln!("orchestrator: kernel build needs a NAME (uml-6.12)");
            2
        }
        (KernelAction::List, _) => list_command(),
    }
}

/// What `kernel build` was asked.
#[derive(Debug, Clone)]
pub struct BuildRequest {
    /// The kernel: `uml-6.12` or its series, `6.12`.
    pub name: String,
    /// Parallel make jobs (default: the CPUs this process may use).
    pub jobs: Option<usize>,
    /// Bound of the whole build (default [`BUILD_DEADLINE`]).
    pub timeout: Option<Duration>,
    /// The cache (default [`netlab_guest::kernels::cache_root`]).
    pub cache: Option<PathBuf>,
    /// The init binary the boot check starts and its arguments before
    /// `--spec` (the orchestrator: itself and `guest-init`); `None`:
    /// [`netlab_guest::find_init`].
    pub init: Option<(PathBuf, Vec<String>)>,
}

impl BuildRequest {
    /// A request whose boot check starts this very binary as init with
    /// `guest-init` (the orchestrator's hidden init command).
    pub fn new(
        name: String,
        jobs: Option<usize>,
        timeout: Option<Duration>,
        cache: Option<PathBuf>,
    ) -> BuildRequest {
        BuildRequest {
            name,
            jobs,
            timeout,
            cache,
            init: std::env::current_exe()
                .ok()
                .map(|me| (me, vec!["guest-init".to_owned()])),
        }
    }
}

/// Builds the kernel `req` names, or finds it built; says what happened
/// and returns the exit code.
pub fn build_command(req: &BuildRequest) -> u8 {
    let program = "orchestrator kernel build";
    let Some(spec) = netlab_guest::kernels::built_kernel(&req.name) else {
        eprintln!(
            "{program}: {}",
            netlab_guest::kernels::LocateError::Unknown(req.name.clone())
        );
        return 2;
    };
    let (stop, signal) = match build::stop_on_signals() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{program}: cannot watch for signals: {e}");
            return 1;
        }
    };
    let root = req
        .cache
        .clone()
        .unwrap_or_else(netlab_guest::kernels::cache_root);
    let jobs = req.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let say = |line: &str| eprintln!("{line}");
    let check = |k: &GuestKernel| boot_once(k, req.init.as_ref());
    let opts = BuildOptions {
        jobs,
        deadline: req.timeout.unwrap_or(BUILD_DEADLINE),
        stop,
        install_source: true,
        progress: &say,
        check: Some(&check),
    };
    let t0 = Instant::now();
    match build::build(&spec, &root, &opts) {
        Ok(BuildOutcome::AlreadyBuilt { kernel, dir }) => {
            println!(
                "kernel {} {} is built: {} (nothing to do, {:.2} s)",
                kernel.name,
                kernel.release.as_deref().unwrap_or("?"),
                dir.display(),
                t0.elapsed().as_secs_f64()
            );
            0
        }
        Ok(BuildOutcome::Built {
            kernel,
            dir,
            seconds,
            log,
            checked,
        }) => {
            if let Some(c) = checked {
                eprintln!("kernel {}: {c}", kernel.name);
            }
            let cpu = netlab_guest::kernels::read_manifest(&dir).map_or(0.0, |m| m.cpu_seconds);
            println!(
                "kernel {} {} built in {:.0} s ({} job(s), {:.0} s of CPU): {} (log: {})",
                kernel.name,
                kernel.release.as_deref().unwrap_or("?"),
                seconds,
                jobs,
                cpu,
                dir.display(),
                log.display()
            );
            0
        }
        Err(e @ BuildError::Interrupted { .. }) => {
            eprintln!("{program}: {e}");
            128 + signal.load(Ordering::SeqCst).clamp(0, 127) as u8
        }
        Err(e) => {
            eprintln!("{program}: {e}");
            1
        }
    }
}

/// Boots the staged kernel with the modules a run loads, and says what it
/// said about itself.
fn boot_once(k: &GuestKernel, init: Option<&(PathBuf, Vec<String>)>) -> Result<String, String> {
    let mut guest = netlab_guest::Guest::new("/bin/true")
        .guest_kernel(k)
        .modules(["veth", "sch_tbf", "sch_fq_pie", "sch_netem", "tcp_bbr"])
        .deadline(Duration::from_secs(120));
    if let Some((binary, args)) = init {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        guest = guest.init(binary, &args);
    }
    let out = guest.run().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "the boot check's program ended with {}",
            out.status
        ));
    }
    if Some(&out.release) != k.release.as_ref() {
        return Err(format!(
            "it booted as release {}, not {}",
            out.release,
            k.release.as_deref().unwrap_or("?")
        ));
    }
    Ok(format!(
        "booted as {} and loaded veth, sch_tbf, sch_fq_pie, sch_netem and tcp_bbr in {:.2} s",
        out.release,
        out.elapsed.as_secs_f64()
    ))
}

/// Prints [`list_lines`]; exit code 0.
pub fn list_command() -> u8 {
    for line in list_lines() {
        println!("{line}");
    }
    0
}

/// One line per guest kernel: its name, whether it is there, and where
/// (or the command that builds it).
pub fn list_lines() -> Vec<String> {
    std::iter::once(netlab_guest::kernels::DEBIAN_UML)
        .chain(netlab_guest::kernels::BUILT_KERNELS.iter().map(|k| k.name))
        .map(|name| match netlab_guest::kernels::locate(name) {
            Ok(k) if k.kernel.is_file() => format!(
                "{name}\t{}\t{}",
                k.source.as_deref().unwrap_or("?"),
                k.kernel.display()
            ),
            Ok(k) => format!("{name}\tnot installed\t{}", k.kernel.display()),
            Err(e) => format!("{name}\tnot built\t{e}"),
        })
        .collect()
}
