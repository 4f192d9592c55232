//! `orchestrator compare` and `orchestrator run`: validate, choose the kernel, run every scenario
//! (here, or inside the guest), write results.json and summary.md, print the
//! table. Also `orchestrator cleanup`.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use netlab_receipts::{
    cleanup_dead_runs, format_rfc3339, install_signal_teardown, Registry, RunStatus, SystemClock,
    DEFAULT_STATE_DIR,
};
use netlab_report::summary;
use netlab_results::{
    write_json_atomic, Interrupted, KernelInfo, Results, ScenarioFiles, Tool, SCHEMA_VERSION,
};
use netlab_topology::RunId;

use crate::cli::{CompareArgs, RunArgs};
use crate::config::{compare_config, RunConfig, UsageError, GUEST_EXPERIMENT_FILE};
use crate::kernel::{decide, KernelPlan};
use crate::progress::Progress;
use crate::scenario;

/// Environment variable carrying the host's reason for booting the guest.
const REASON_ENV: &str = "NETLAB_KERNEL_REASON";

fn utc_stamp() -> String {
    // 2026-11-30T02:48:05Z → 20261130T024805Z (a folder name without colons).
    format_rfc3339(SystemTime::now())
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect()
}

/// `orchestrator compare`: the method's experiment with the flags applied.
pub fn main(a: &CompareArgs) -> u8 {
    let cfg = match compare_config(a, &utc_stamp()) {
        Ok(c) => c,
        Err(UsageError(m)) => {
            eprintln!("orchestrator: {m}");
            return 2;
        }
    };
    if a.print_experiment {
        print!("{}", cfg.experiment().to_toml());
        return 0;
    }
    execute("compare", RunConfig::of_compare(&cfg))
}

/// `orchestrator run EXPERIMENT.toml`.
pub fn run_main(a: &RunArgs) -> u8 {
    match RunConfig::from_args(a, &utc_stamp()) {
        Ok(cfg) => execute("run", cfg),
        Err(UsageError(m)) => {
            eprintln!("orchestrator run: {m}");
            2
        }
    }
}

/// Checks, chooses the kernel and runs the experiment (here or in the guest).
fn execute(cmd: &str, cfg: RunConfig) -> u8 {
    if let Err(UsageError(m)) = cfg.check_runnable() {
        eprintln!("orchestrator {cmd}: {m}");
        return 2;
    }
    if !cfg!(target_os = "linux") {
        eprintln!("orchestrator {cmd}: netlab needs Linux (network namespaces, rtnetlink)");
        return 1;
    }
    // The results folder first: a run that could not keep its results is
    // refused before anything is created.
    let needed = out_space_needed(cfg.planned().len(), &cfg.exp.capture);
    if cfg.shard.is_some() && !cfg.resume && cfg.out.join("results.json").exists() {
        eprintln!(
            "orchestrator {cmd}: refusing to run, nothing was changed: {} already holds a results.json \
             (--resume continues it; another --out starts afresh)",
            cfg.out.display()
        );
        return 1;
    }
    let out = match prepare_out(&cfg.out, needed) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("orchestrator {cmd}: refusing to run, nothing was changed: {e}");
            return 1;
        }
    };
    let mut cfg = cfg;
    cfg.out = out;
    if cfg.resume {
        if let Err(e) = crate::resume::check(&cfg.out, &cfg.exp, cfg.shard) {
            eprintln!("orchestrator {cmd}: refusing to resume, nothing was changed: {e}");
            return 1;
        }
    }
    let plan = match decide(&cfg.exp.requirements(), cfg.exp.kernel, cfg.inside_guest) {
        Ok(p) => p,
        Err(why) => {
            eprintln!("orchestrator {cmd}: refusing to run, nothing was changed:\n{why}");
            return 1;
        }
    };
    match plan {
        KernelPlan::Uml {
            release,
            modules,
            because,
        } => run_in_guest(&cfg, &release, &modules, &because),
        KernelPlan::Host { release, because } => run_here(
            &cfg,
            KernelInfo {
                mode: "host".into(),
                release,
                chosen_because: because,
            },
        ),
        KernelPlan::InsideGuest { release } => run_here(
            &cfg,
            KernelInfo {
                mode: "uml".into(),
                release,
                chosen_because: std::env::var(REASON_ENV).unwrap_or_else(|_| "--kernel uml".into()),
            },
        ),
    }
}

/// How many file descriptors this process has open now.
fn open_fds() -> Option<usize> {
    std::fs::read_dir("/proc/self/fd").ok().map(|d| d.count())
}

/// Space a run's results folder needs: a scenario's raw samples take about
/// 0.2 MB in results.json (written again after each scenario, through a
/// temporary file) and as much again in its own file under `scenarios/`
/// until the run ends, and its plots and Flent file about 0.3 MB; 8 MB per
/// scenario and 32 MB besides leave room for dense probes and many flows.
/// A headers pcapng adds its byte cap per scenario (method §7.7).
fn out_space_needed(scenarios: usize, capture: &netlab_experiment::CaptureSpec) -> u64 {
    let pcap = match capture.pcap {
        netlab_experiment::PcapMode::Headers => capture.pcap_max_bytes,
        netlab_experiment::PcapMode::Off => 0,
    };
    ((32 + 8 * scenarios as u64) << 20).saturating_add(pcap.saturating_mul(scenarios as u64))
}

/// Creates the results folder, proves it writable with a probe file (written,
/// synced, removed) and checks its filesystem has `needed` bytes free.
fn prepare_out(out: &Path, needed: u64) -> Result<PathBuf, String> {
    std::fs::create_dir_all(out)
        .map_err(|e| format!("creating the results folder {}: {e}", out.display()))?;
    let out = out
        .canonicalize()
        .map_err(|e| format!("resolving the results folder {}: {e}", out.display()))?;
    let probe = out.join(".netlab-write-probe");
    let written = std::fs::File::create(&probe).and_then(|mut f| {
        use std::io::Write as _;
        f.write_all(&[0u8; 4096])?;
        f.sync_all()
    });
    let _ = std::fs::remove_file(&probe);
    written.map_err(|e| format!("the results folder {} is not writable: {e}", out.display()))?;
    let st = nix::sys::statvfs::statvfs(&out)
        .map_err(|e| format!("reading the free space of {}: {e}", out.display()))?;
    let free = st.blocks_available() as u64 * st.fragment_size() as u64;
    if free < needed {
        return Err(format!(
            "the filesystem of {} has {:.1} MB free; this run needs about {:.0} MB for its results",
            out.display(),
            free as f64 / 1e6,
            needed as f64 / 1e6
        ));
    }
    Ok(out)
}

/// A new run id and its registry of owned resources, with a state file and
/// the SIGINT/SIGTERM teardown installed in graceful mode: a first signal
/// lets the run stop its scenario, keep what it measured and write its
/// results; the hard teardown follows after `grace` or a second signal.
fn owned_run(grace: Duration) -> Result<(RunId, Registry), String> {
    let run_id = RunId::random();
    let registry = Registry::with_state_dir(run_id.clone(), Path::new(DEFAULT_STATE_DIR))
        .map_err(|e| format!("creating the run's state file: {e}"))?;
    install_signal_teardown(&registry)
        .map_err(|e| format!("installing the SIGINT/SIGTERM teardown: {e}"))?;
    netlab_receipts::set_graceful(grace);
    Ok((run_id, registry))
}

/// Grace after a signal on the kernel that runs the scenarios: the current
/// scenario stops within 0.1 s, its workers join within a few seconds, then
/// results, summary and report are written.
const GRACE: Duration = Duration::from_secs(30);
/// Grace for the host while a guest finishes the same steps inside.
const GUEST_GRACE: Duration = Duration::from_secs(90);
/// In `--out`: the host writes the signal number here to interrupt the run
/// inside the guest (the folder is shared with it).
pub const INTERRUPT_FILE: &str = ".netlab-interrupt";

/// Inside the guest: watches `--out` for the host's interrupt request.
fn watch_interrupt_file(path: PathBuf) {
    let spawned = std::thread::Builder::new()
        .name("interrupt-watch".into())
        .spawn(move || loop {
            if let Ok(text) = std::fs::read_to_string(&path) {
                let sig = text.trim().parse().unwrap_or(nix::libc::SIGINT);
                netlab_receipts::request_interrupt(sig);
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        });
    if let Err(e) = spawned {
        eprintln!("orchestrator: watching for the host's interrupt: {e}");
    }
}

/// The whole run's computed deadline: past it, whatever is still running,
/// the run tears down what it owns (with receipts) and exits 1.
fn start_watchdog(registry: &Registry, deadline: std::time::Duration) {
    let registry = registry.clone();
    let spawned = std::thread::Builder::new()
        .name("run-watchdog".into())
        .spawn(move || {
            std::thread::sleep(deadline);
            eprintln!(
                "orchestrator: the run exceeded its computed deadline of {:.0}s; tearing down what it owns",
                deadline.as_secs_f64()
            );
            for r in registry.teardown(&SystemClock) {
                eprintln!("cleanup receipt: {}", serde_json::to_string(&r).unwrap_or_default());
            }
            std::process::exit(1);
        });
    if let Err(e) = spawned {
        eprintln!("orchestrator: starting the run watchdog: {e}");
    }
}

/// Runs every scenario on the kernel this process runs on.
fn run_here(cfg: &RunConfig, kernel: KernelInfo) -> u8 {
    if let Err(e) = netlab_topology::privilege::check_capabilities() {
        eprintln!("orchestrator: refusing to run, nothing was changed: {e}");
        return 1;
    }
    let progress = Progress::new(cfg.quiet);
    let (run_id, registry) = match owned_run(GRACE) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("orchestrator: {e}");
            return 1;
        }
    };
    if cfg.inside_guest {
        let file = cfg.out.join(INTERRUPT_FILE);
        // Asked before the guest even booted: stop before the first scenario.
        if let Ok(text) = std::fs::read_to_string(&file) {
            netlab_receipts::request_interrupt(text.trim().parse().unwrap_or(nix::libc::SIGINT));
        }
        watch_interrupt_file(file);
    }
    start_watchdog(&registry, cfg.run_deadline());
    let plan = cfg.exp.plan();
    let planned = cfg.planned();
    let share = match cfg.shard {
        Some(sh) => format!(
            " (shard {sh}: {} of {})",
            planned.len(),
            plan.scenarios.len()
        ),
        None => String::new(),
    };
    progress.say(&format!(
        "run {} of {} on {} kernel {} ({}): {} scenario(s){share} over {} point(s), results in {}",
        run_id.as_str(),
        cfg.exp.name,
        kernel.mode,
        kernel.release,
        kernel.chosen_because,
        planned.len(),
        plan.points.len(),
        cfg.out.display()
    ));
    // The run's header: its `scenarios` stay empty; each finished scenario
    // goes to its own file and results.json is assembled from them.
    let mut results = Results {
        schema_version: SCHEMA_VERSION,
        tool: Tool::this(),
        kernel,
        experiment: cfg.exp.to_file(),
        run_id: run_id.as_str().to_string(),
        started_utc: format_rfc3339(SystemTime::now()),
        finished_utc: String::new(),
        timeline_total_s: planned
            .iter()
            .map(|s| s.timeline.end())
            .sum::<Duration>()
            .as_secs_f64(),
        wall_s: 0.0,
        scenarios: Vec::new(),
        notes: summary::NOTES.iter().map(|s| s.to_string()).collect(),
        interrupted: None,
        experiment_hash: Some(cfg.exp.content_hash()),
        shard: cfg.shard_record(),
        resumed_from: Vec::new(),
        merged: None,
    };
    let results_json = cfg.out.join("results.json");
    let mut files = match ScenarioFiles::create(&cfg.out) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("orchestrator: refusing to run, nothing was changed: {e}");
            let _ = registry.teardown(&SystemClock);
            return 1;
        }
    };
    // --resume: the folder's complete scenarios are kept as they are.
    let mut done = std::collections::BTreeSet::new();
    if cfg.resume {
        let share: std::collections::BTreeSet<u32> = planned.iter().map(|s| s.index).collect();
        match crate::resume::adopt(&cfg.out, &cfg.exp, cfg.shard, &share, &mut files) {
            Ok(a) => {
                progress.say(&format!(
                    "resuming {}: {} of {} scenario(s) complete, {} to run",
                    cfg.out.display(),
                    a.complete.len(),
                    planned.len(),
                    planned.len() - a.complete.len()
                ));
                results.resumed_from = a.resumed_from;
                done = a.complete;
            }
            Err(e) => {
                eprintln!("orchestrator: refusing to resume, nothing was run: {e}");
                let _ = registry.teardown(&SystemClock);
                return 1;
            }
        }
    }
    let ctx = scenario::RunContext {
        registry: &registry,
        progress: &progress,
        total: plan.scenarios.len(),
        out: &cfg.out,
    };
    let started = std::time::Instant::now();
    let mut exit = 0;
    for planned in planned.iter().filter(|s| !done.contains(&s.index)) {
        if let Some(sig) = netlab_receipts::interrupted() {
            results.interrupted = Some(Interrupted {
                signal: netlab_receipts::signal_name(sig).into(),
                scenario: None,
                phase: if files.is_empty() {
                    "before the first scenario".into()
                } else {
                    "between scenarios".into()
                },
                at_s: None,
            });
            break;
        }
        let fds_before = open_fds();
        let ran_on = crate::machine::ran_on(format_rfc3339(SystemTime::now()));
        let (mut r, stopped) = match scenario::ScenarioPlan::new(planned, &run_id) {
            Ok(p) => scenario::run(&ctx, planned, &p),
            Err(e) => (scenario::not_started(planned, &e), None),
        };
        r.open_fds = fds_before.zip(open_fds()).map(|(b, a)| [b, a]);
        r.ran_on = Some(ran_on);
        if let (Some(sig), Some(at)) = (netlab_receipts::interrupted(), stopped) {
            // Its cleanup receipts go to stderr too, as the hard teardown's do.
            for receipt in &r.cleanup.receipts {
                eprintln!(
                    "cleanup receipt: {}",
                    serde_json::to_string(receipt).unwrap_or_default()
                );
            }
            results.interrupted = Some(Interrupted {
                signal: netlab_receipts::signal_name(sig).into(),
                scenario: Some(r.index),
                phase: at.phase.into(),
                at_s: at.at_s,
            });
        }
        let stop = results.interrupted.is_some();
        // Written to its own file and dropped: the run holds no scenario.
        if let Err(e) = files.push(r) {
            eprintln!("orchestrator: {e} (the scenario is kept in memory for results.json)");
            exit = 1;
        }
        // Written after every scenario, so an interrupted run keeps what it measured.
        results.finished_utc = format_rfc3339(SystemTime::now());
        results.wall_s = started.elapsed().as_secs_f64();
        if let Err(e) = files.write_results(&results, &results_json) {
            eprintln!("orchestrator: {e}");
        }
        // What the scenario's threads freed goes back to the system, so
        // the next scenario starts where this one did.
        crate::heap::release_free_heap();
        if stop {
            break;
        }
    }
    let receipts = registry.teardown(&SystemClock);
    results.finished_utc = format_rfc3339(SystemTime::now());
    results.wall_s = started.elapsed().as_secs_f64();
    let written = files.write_results(&results, &results_json);
    if let Err(e) = &written {
        eprintln!("orchestrator: {e}");
        exit = 1;
    }
    let failed_receipts = receipts.iter().filter(|r| !r.outcome.is_ok()).count();
    // summary.md and the report from the scenarios read back one at a time.
    let mut digest = crate::report::RunDigest::new(&results.experiment);
    let read_back = files.for_each(|s| {
        digest.push(s);
        Ok(())
    });
    if let Err(e) = &read_back {
        eprintln!("orchestrator: reading the scenarios back for the summary: {e}");
        exit = 1;
    }
    let figures = digest.figures().to_vec();
    let input = digest.report_input(&results);
    let rows: Vec<summary::SummaryRow> = figures.iter().map(|f| f.row.clone()).collect();
    let extra = summary::extra_notes(&figures, failed_receipts);
    let sections = summary::sections(&figures);
    let md = summary::render_figures(
        &results,
        &figures,
        summary::headline_of(input.as_ref()).as_deref(),
        failed_receipts,
    );
    let failed_scenario = figures.iter().any(|f| f.row.error.is_some());
    if let Err(e) = netlab_sys::atomic::write(&cfg.out.join("summary.md"), md.as_bytes()) {
        eprintln!("orchestrator: writing summary.md: {e}");
        exit = 1;
    }
    if !crate::report::after_run(input, &cfg.out) {
        exit = 1;
    }
    // results.json holds every scenario now: their files are not needed. A
    // run that could not write it keeps them (as a SIGKILLed run does).
    if written.is_ok() && read_back.is_ok() {
        if let Err(e) = files.remove_files() {
            eprintln!("orchestrator: {e}");
        }
    }
    println!("{}", summary::table(&rows));
    for section in sections {
        println!("{section}");
    }
    println!("{}", summary::baseline_list(&rows));
    for n in &extra {
        println!("note: {n}");
    }
    progress.say(&format!(
        "wall time {:.1}s for {:.1}s of scenario timelines ({:.3}×)",
        results.wall_s,
        results.timeline_total_s,
        results.wall_s / results.timeline_total_s.max(1e-9)
    ));
    println!("results: {}", cfg.out.display());
    if failed_scenario || failed_receipts > 0 {
        exit = 1;
    }
    if let Some(sig) = netlab_receipts::interrupted() {
        if let Some(i) = &results.interrupted {
            eprintln!(
                "netlab: {}",
                summary::interrupted_banner(i, files.len()).replace("**", "")
            );
        }
        return netlab_receipts::exit_code_for(sig).clamp(0, 255) as u8;
    }
    exit
}

/// Boots the guest kernel and runs the comparison inside it; results are
/// written straight into `--out` through hostfs.
fn run_in_guest(cfg: &RunConfig, release: &str, modules: &[String], because: &str) -> u8 {
    // The resolved experiment goes to the guest as a file in --out.
    let file = cfg.out.join(GUEST_EXPERIMENT_FILE);
    if let Err(e) = std::fs::write(&file, cfg.exp.to_toml()) {
        eprintln!("orchestrator: writing {}: {e}", file.display());
        return 1;
    }
    let me = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("orchestrator: cannot find my own binary: {e}");
            return 1;
        }
    };
    let progress = Progress::new(cfg.quiet);
    let (run_id, registry) = match owned_run(GUEST_GRACE) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("orchestrator: {e}");
            return 1;
        }
    };
    let interrupt_file = cfg.out.join(INTERRUPT_FILE);
    let _ = std::fs::remove_file(&interrupt_file);
    progress.say(&format!(
        "booting the user-mode-linux kernel {release} ({because}); modules {}",
        modules.join(", ")
    ));
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    let guest = netlab_guest::Guest::new(&me)
        .args(cfg.guest_argv(&file))
        .modules(modules.iter().cloned())
        .mem(cfg.guest_mem.clone())
        .deadline(cfg.run_deadline() + std::time::Duration::from_secs(60))
        .init(me.clone(), &["guest-init"])
        .inherit_all_env()
        .env(REASON_ENV, because)
        .env(crate::machine::HOST_MACHINE_ENV, {
            let (host, cpu) = crate::machine::machine();
            format!("{host}\t{cpu}")
        })
        .current_dir(cwd)
        // Results go straight into --out, even under the guest's tmpfs /tmp.
        .share_dir(&cfg.out)
        .stream_output(true);
    let running = match guest.spawn() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("orchestrator: starting the guest: {e}");
            return 1;
        }
    };
    let resource = registry.register_guest(running.pid() as i32);
    // A signal to this process is passed to the run inside as a file in the
    // shared --out; the guest then stops its scenario, writes its results
    // and powers off, and this process returns its status.
    let guest_done = netlab_sys::StopFlag::new();
    let forward = {
        let (done, file) = (guest_done.clone(), interrupt_file.clone());
        std::thread::Builder::new()
            .name("interrupt-forward".into())
            .spawn(move || {
                while !done.sleep(Duration::from_millis(100)) {
                    if let Some(sig) = netlab_receipts::interrupted() {
                        if let Err(e) = std::fs::write(&file, sig.to_string()) {
                            eprintln!("orchestrator: asking the guest to stop: {e}");
                        }
                        return;
                    }
                }
            })
    };
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
        return guest_interrupted(cfg, &run_id, release, sig, outcome.as_ref().err());
    }
    match outcome {
        Ok(out) => {
            let log = cfg.out.join("guest-console.log");
            if let Err(e) = std::fs::write(&log, &out.console_log) {
                eprintln!("orchestrator: writing {}: {e}", log.display());
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
                    "orchestrator compare: the guest run left no results.json in {}; console tail:\n{}",
                    cfg.out.display(),
                    tail(&out.console_log, 20)
                );
                return 1;
            }
            match out.status {
                netlab_guest::GuestStatus::Exited(c) => c.clamp(0, 255) as u8,
                netlab_guest::GuestStatus::Signaled(_) => 1,
            }
        }
        Err(e) => {
            eprintln!("orchestrator: the guest run failed: {e}");
            1
        }
    }
}

/// After a signal during a guest run: the run inside wrote its results (and
/// said where it stopped); if it never started (the signal came while the
/// guest booted) this writes a results.json that says so. Returns 128 + sig.
fn guest_interrupted(
    cfg: &RunConfig,
    run_id: &RunId,
    release: &str,
    sig: i32,
    error: Option<&netlab_guest::Error>,
) -> u8 {
    let code = netlab_receipts::exit_code_for(sig).clamp(0, 255) as u8;
    let path = cfg.out.join("results.json");
    if path.exists() {
        return code;
    }
    if let Some(e) = error {
        eprintln!("orchestrator: the guest stopped: {e}");
    }
    let results = Results {
        schema_version: SCHEMA_VERSION,
        tool: Tool::this(),
        kernel: KernelInfo {
            mode: "uml".into(),
            release: release.into(),
            chosen_because: "the run was interrupted before the guest started it".into(),
        },
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
        notes: summary::NOTES.iter().map(|s| s.to_string()).collect(),
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
    };
    if let Err(e) = write_json_atomic(&path, &results) {
        eprintln!("orchestrator: {e}");
    }
    let md = summary::render(&results, 0);
    if let Err(e) = netlab_sys::atomic::write(&cfg.out.join("summary.md"), md.as_bytes()) {
        eprintln!("orchestrator: writing summary.md: {e}");
    }
    code
}

fn tail(text: &str, lines: usize) -> String {
    let v: Vec<&str> = text.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// `orchestrator cleanup`: removes what dead runs still own; prints receipts.
pub fn cleanup_dead(state_dir: &Path) -> u8 {
    let runs = cleanup_dead_runs(state_dir);
    // Guest kernels whose host process died (their run folders name the owner).
    let guests = netlab_guest::cleanup_stale_runs();
    for g in &guests {
        println!(
            "guest run {} (host pid {} gone): killed {:?}, folder removed: {}",
            g.dir.display(),
            g.host_pid,
            g.killed,
            g.removed
        );
    }
    if runs.is_empty() {
        println!("no dead runs with state in {}", state_dir.display());
        return if guests.iter().all(|g| g.removed) {
            0
        } else {
            1
        };
    }
    let mut code = if guests.iter().all(|g| g.removed) {
        0
    } else {
        1
    };
    for run in &runs {
        let id = run.run_id.as_ref().map_or("?", |r| r.as_str());
        println!("run {id} ({}): {:?}", run.state_file.display(), run.status);
        for r in &run.receipts {
            println!("  {r}");
        }
        if matches!(
            run.status,
            RunStatus::Incomplete | RunStatus::Unreadable { .. } | RunStatus::Foreign { .. }
        ) {
            code = 1;
        }
    }
    code
}
