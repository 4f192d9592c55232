//! The run in the user-mode-linux guest: the resolved experiment goes to
//! the guest as a file in `--out`, the same binary boots inside it as
//! `guest-init` (PID 1) and runs `run FILE --inside-guest`, writing its
//! results straight into `--out` through hostfs. A signal to this process
//! is passed on through the interrupt file.

use std::time::{Duration, SystemTime};

use netlab_experiment::KernelChoice;
use netlab_guest::kernels;
use netlab_receipts::SystemClock;
use netlab_results::{Interrupted, KernelInfo, Results, Tool, SCHEMA_VERSION};
use netlab_topology::RunId;
use netlab_utc::format_rfc3339;

use super::watch::{forward_interrupt, owned_run, GUEST_GRACE, INTERRUPT_FILE};
use super::{RunError, RunOutcome, REASON_ENV};
use crate::config::{SessionConfig, GUEST_EXPERIMENT_FILE};
use crate::hooks::RunHooks;
use crate::progress::Progress;

/// Environment variable carrying what the host knows of the guest kernel
/// (its name, source, configuration hash and compiler, as JSON) to the run
/// inside, which records it in results.json.
pub const GUEST_KERNEL_ENV: &str = "NETLAB_GUEST_KERNEL";

/// The guest run the kernel decision chose.
pub struct GuestPlan<'a> {
    /// The guest kernel's name (`uml`, `uml-6.12`).
    pub guest: &'a str,
    /// Its release.
    pub release: &'a str,
    /// Modules to load.
    pub modules: &'a [String],
    /// Why the guest.
    pub because: &'a str,
}

/// `Err` with the build command when `choice` names a guest kernel netlab
/// builds and it is not built.
pub fn check_built(choice: KernelChoice) -> Result<(), String> {
    match choice.guest_name() {
        Some(name) if name != kernels::DEBIAN_UML => {
            kernels::locate(name).map(|_| ()).map_err(|e| e.to_string())
        }
        _ => Ok(()),
    }
}

/// The kernel record of a run on the host: its release and, where the
/// host keeps its configuration (`/boot/config-RELEASE`, as Debian does),
/// that configuration's hash and compiler.
pub fn host_kernel_info(release: String, because: String) -> KernelInfo {
    let facts =
        kernels::config::read_config(std::path::Path::new(&format!("/boot/config-{release}")))
            .ok()
            .map(|t| kernels::config::ConfigFacts::of(&t));
    KernelInfo {
        mode: "host".into(),
        release,
        chosen_because: because,
        config_sha256: facts.as_ref().map(|f| f.sha256.clone()),
        compiler: facts.and_then(|f| f.compiler),
        ..KernelInfo::default()
    }
}

/// The kernel record of the run inside the guest: its release (`uname
/// -r`), the host's reason and what the host knew of the kernel.
pub fn inside_kernel_info(release: String) -> KernelInfo {
    let known: Option<kernels::GuestKernel> = std::env::var(GUEST_KERNEL_ENV)
        .ok()
        .and_then(|j| serde_json::from_str(&j).ok());
    let name = known
        .as_ref()
        .map_or(kernels::DEBIAN_UML, |k| k.name.as_str());
    let because = std::env::var(REASON_ENV).unwrap_or_else(|_| format!("--kernel {name}"));
    match &known {
        Some(k) => guest_kernel_info(k, release, because),
        None => KernelInfo {
            mode: "uml".into(),
            release,
            chosen_because: because,
            name: Some(name.to_owned()),
            ..KernelInfo::default()
        },
    }
}

/// The kernel record of a guest kernel.
fn guest_kernel_info(k: &kernels::GuestKernel, release: String, because: String) -> KernelInfo {
    KernelInfo {
        mode: "uml".into(),
        release,
        chosen_because: because,
        name: Some(k.name.clone()),
        source: k.source.clone(),
        config_sha256: k.config_sha256.clone(),
        compiler: k.compiler.clone(),
    }
}

/// Boots the guest kernel and runs the experiment inside it; results are
/// written straight into `--out` through hostfs.
pub fn run_in_guest(
    cfg: &SessionConfig,
    program: &str,
    run_hooks: &mut dyn RunHooks,
    plan: &GuestPlan<'_>,
) -> Result<RunOutcome, RunError> {
    let GuestPlan {
        guest: name,
        release,
        modules,
        because,
    } = *plan;
    let kernel = kernels::locate(name).map_err(|e| RunError::KernelNotBuilt(e.to_string()))?;
    // The resolved experiment goes to the guest as a file in --out.
    let file = cfg.out.join(GUEST_EXPERIMENT_FILE);
    std::fs::write(&file, cfg.exp.to_toml())
        .map_err(|e| RunError::Setup(format!("writing {}: {e}", file.display())))?;
    let me = std::env::current_exe()
        .map_err(|e| RunError::Setup(format!("cannot find my own binary: {e}")))?;
    let progress = Progress::new(cfg.quiet);
    let (run_id, registry) = owned_run(GUEST_GRACE).map_err(RunError::Setup)?;
    let interrupt_file = cfg.out.join(INTERRUPT_FILE);
    let _ = std::fs::remove_file(&interrupt_file);
    progress.say(&format!(
        "booting the user-mode-linux kernel {name} {release} ({because}); modules {}",
        modules.join(", ")
    ));
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    let guest = netlab_guest::Guest::new(&me)
        .guest_kernel(&kernel)
        .args(cfg.guest_argv(&file))
        .modules(modules.iter().cloned())
        .mem(cfg.guest_mem.clone())
        .deadline(cfg.run_deadline() + Duration::from_secs(60))
        .init(me.clone(), &["guest-init"])
        .inherit_all_env()
        .env(REASON_ENV, because)
        .env(
            GUEST_KERNEL_ENV,
            serde_json::to_string(&kernel).expect("a guest kernel serializes"),
        )
        .env(crate::machine::HOST_MACHINE_ENV, {
            let (host, cpu) = crate::machine::machine();
            format!("{host}\t{cpu}")
        })
        .current_dir(cwd)
        // Results go straight into --out, even under the guest's tmpfs /tmp.
        .share_dir(&cfg.out)
        .stream_output(true);
    let running = guest
        .spawn()
        .map_err(|e| RunError::Setup(format!("starting the guest: {e}")))?;
    let resource = registry.register_guest(running.pid() as i32);
    // A signal to this process is passed to the run inside as a file in the
    // shared --out; the guest then stops its scenario, writes its results
    // and powers off, and this process returns its status.
    let guest_done = netlab_os::StopFlag::new();
    let forward = forward_interrupt(program, interrupt_file.clone(), guest_done.clone());
    let outcome = running.wait();
    guest_done.stop();
    if let Ok(h) = forward {
        let _ = h.join();
    }
    let _ = std::fs::remove_file(&interrupt_file);
    if let Ok(r) = &resource {
        let _ = registry.forget(r);
    }
    let _ = registry.teardown(&SystemClock);
    if let Some(sig) = netlab_receipts::interrupted() {
        let kernel_info = guest_kernel_info(
            &kernel,
            release.to_owned(),
            "the run was interrupted before the guest started it".into(),
        );
        guest_interrupted(
            cfg,
            program,
            run_hooks,
            &run_id,
            kernel_info,
            sig,
            outcome.as_ref().err(),
        );
        return Ok(RunOutcome::Interrupted { signal: sig });
    }
    Ok(match outcome {
        Ok(out) => finished(cfg, program, &progress, &out),
        Err(e) => {
            eprintln!("{program}: the guest run failed: {e}");
            RunOutcome::Failed
        }
    })
}

/// What a guest that powered off says: its console log written beside the
/// results, and its program's exit code, or a failure when it left no
/// results.json or was killed by a signal.
fn finished(
    cfg: &SessionConfig,
    program: &str,
    progress: &Progress,
    out: &netlab_guest::GuestOutcome,
) -> RunOutcome {
    let log = cfg.out.join("guest-console.log");
    if let Err(e) = std::fs::write(&log, &out.console_log) {
        eprintln!("{program}: writing {}: {e}", log.display());
    }
    progress.say(&format!(
        "guest kernel {} finished in {:.1}s: {:?}; console log in {}",
        out.release,
        out.elapsed.as_secs_f64(),
        out.status,
        log.display()
    ));
    if !cfg.out.join("results.json").exists() {
        eprintln!(
            "{program} compare: the guest run left no results.json in {}; console tail:\n{}",
            cfg.out.display(),
            tail(&out.console_log, 20)
        );
        return RunOutcome::Failed;
    }
    match out.status {
        netlab_guest::GuestStatus::Exited(c) => RunOutcome::Guest {
            exit: c.clamp(0, 255) as u8,
        },
        // Said on stderr even with --quiet: the run inside wrote
        // nothing about it (an exit 1 once came with no word).
        netlab_guest::GuestStatus::Signaled(sig) => {
            eprintln!(
                "{program}: the run inside the guest was killed by signal {sig}; results.json holds the scenarios it finished; console tail ({}):\n{}",
                log.display(),
                tail(&out.console_log, 20)
            );
            RunOutcome::Failed
        }
    }
}

/// After a signal during a guest run: the run inside wrote its results (and
/// said where it stopped); if it never started (the signal came while the
/// guest booted) this writes a results.json that says so.
fn guest_interrupted(
    cfg: &SessionConfig,
    program: &str,
    run_hooks: &mut dyn RunHooks,
    run_id: &RunId,
    kernel: KernelInfo,
    sig: i32,
    error: Option<&netlab_guest::Error>,
) {
    let path = cfg.out.join("results.json");
    if path.exists() {
        return;
    }
    if let Some(e) = error {
        eprintln!("{program}: the guest stopped: {e}");
    }
    let results = Results {
        schema_version: SCHEMA_VERSION,
        tool: Tool::this(),
        kernel,
        experiment: cfg.exp.to_file(),
        run_id: run_id.as_str().to_string(),
        started_utc: format_rfc3339(SystemTime::now()),
        finished_utc: format_rfc3339(SystemTime::now()),
        timeline_total_s: cfg
            .planned()
            .iter()
            .map(|s| s.timeline.end())
            .sum::<Duration>()
            .as_secs_f64(),
        wall_s: 0.0,
        scenarios: Vec::new(),
        notes: run_hooks.notes(&cfg.exp),
        interrupted: Some(Interrupted {
            signal: netlab_receipts::signal_name(sig).into(),
            scenario: None,
            phase: "while the guest kernel booted".into(),
            at_s: None,
        }),
        experiment_hash: Some(cfg.exp.content_hash()),
        shard: cfg.shard_record(),
        resumed_from: Vec::new(),
        merged: None,
        steps: None,
    };
    if let Err(e) = results.write(&path) {
        eprintln!("{program}: {e}");
    }
    run_hooks.unstarted(&results, &cfg.out);
}

fn tail(text: &str, lines: usize) -> String {
    let v: Vec<&str> = text.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_console_tail_is_its_last_lines() {
        assert_eq!(tail("a\nb\nc\n", 2), "b\nc");
        assert_eq!(tail("a", 20), "a");
        assert_eq!(tail("", 3), "");
    }
}
