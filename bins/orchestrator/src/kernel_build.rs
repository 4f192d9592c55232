//! `orchestrator kernel build NAME` and `orchestrator kernel list`: the
//! guest kernels netlab builds ([`netlab_guest::kernels`]), built into
//! their cache with progress on stderr, then booted once before the entry
//! is kept. Exit codes: 0 built or already there, 1 the build failed (its
//! log named), 2 an unknown name, 128 + signal when interrupted.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use netlab_guest::kernels::build::{self, BuildError, BuildOptions, BuildOutcome, BUILD_DEADLINE};
use netlab_guest::kernels::{self, GuestKernel};

/// `orchestrator kernel`.
#[derive(Debug, Args)]
pub struct KernelArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: KernelAction,
}

/// `orchestrator kernel build|list`.
#[derive(Debug, Subcommand)]
pub enum KernelAction {
    /// Build a guest kernel from its Debian source package into the cache (nothing to do when it is there), then boot it once.
    Build(BuildArgs),
    /// List the guest kernels, whether each is there, and where.
    List,
}

/// `orchestrator kernel build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The kernel: uml-6.12 (or its series, 6.12).
    pub name: String,
    /// Parallel make jobs (default: the CPUs this process may use).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Bound of the whole build (default 90m).
    #[arg(long, value_parser = netlab_experiment::flags::duration)]
    pub timeout: Option<Duration>,
    /// The cache (default: $NETLAB_KERNEL_CACHE, else /var/cache/netlab/kernels as root).
    #[arg(long)]
    pub cache: Option<PathBuf>,
}

/// Runs `orchestrator kernel …`.
pub fn main(a: &KernelArgs) -> u8 {
    match &a.action {
        KernelAction::Build(b) => build_main(b),
        KernelAction::List => list(),
    }
}

fn build_main(a: &BuildArgs) -> u8 {
    let Some(spec) = kernels::built_kernel(&a.name) else {
        eprintln!(
            "orchestrator kernel build: {}",
            kernels::LocateError::Unknown(a.name.clone())
        );
        return 2;
    };
    let (stop, signal) = match build::stop_on_signals() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("orchestrator kernel build: cannot watch for signals: {e}");
            return 1;
        }
    };
    let root = a.cache.clone().unwrap_or_else(kernels::cache_root);
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let say = |line: &str| eprintln!("{line}");
    let check = |k: &GuestKernel| boot_once(k);
    let opts = BuildOptions {
        jobs,
        deadline: a.timeout.unwrap_or(BUILD_DEADLINE),
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
            let cpu = kernels::read_manifest(&dir).map_or(0.0, |m| m.cpu_seconds);
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
            eprintln!("orchestrator kernel build: {e}");
            128 + signal.load(Ordering::SeqCst).clamp(0, 127) as u8
        }
        Err(e) => {
            eprintln!("orchestrator kernel build: {e}");
            1
        }
    }
}

/// Boots the staged kernel with the modules a run loads, and says what it
/// said about itself.
fn boot_once(k: &GuestKernel) -> Result<String, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find my own binary: {e}"))?;
    let out = netlab_guest::Guest::new("/bin/true")
        .guest_kernel(k)
        .modules(["veth", "sch_tbf", "sch_fq_pie", "sch_netem", "tcp_bbr"])
        .init(me, &["guest-init"])
        .deadline(Duration::from_secs(120))
        .run()
        .map_err(|e| e.to_string())?;
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

/// One line per guest kernel: its name, whether it is there, and where
/// (or the command that builds it).
fn list() -> u8 {
    let names = std::iter::once(kernels::DEBIAN_UML.to_owned())
        .chain(kernels::BUILT_KERNELS.iter().map(|k| k.name.to_owned()));
    for name in names {
        match kernels::locate(&name) {
            Ok(k) if k.kernel.is_file() => println!(
                "{name}\t{}\t{}",
                k.source.as_deref().unwrap_or("?"),
                k.kernel.display()
            ),
            Ok(k) => println!("{name}\tnot installed\t{}", k.kernel.display()),
            Err(e) => println!("{name}\tnot built\t{e}"),
        }
    }
    0
}
