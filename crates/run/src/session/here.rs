//! The run on the kernel this process runs on: every scenario in plan
//! order, each written to its own file as it ends and results.json
//! rewritten from them, then the caller's summary and report.

use std::collections::BTreeSet;
use std::time::{Duration, Instant, SystemTime};

use netlab_receipts::{Registry, SystemClock};
use netlab_results::{
    Interrupted, KernelInfo, Results, RunSteps, ScenarioFiles, Tool, SCHEMA_VERSION,
};
use netlab_topology::RunId;
use netlab_utc::format_rfc3339;

use super::watch::{interrupt_from_host, owned_run, start_watchdog, GRACE};
use super::{RunError, RunOutcome};
use crate::config::SessionConfig;
use crate::hooks::{RunHooks, ScenarioHooks};
use crate::progress::Progress;
use crate::scenario;
use crate::setup::ScenarioSetup;

/// What every step of the run shares.
struct Here<'a> {
    cfg: &'a SessionConfig,
    program: &'a str,
    progress: Progress,
    run_id: RunId,
    registry: Registry,
    planned: Vec<netlab_experiment::ScenarioPlan>,
}

/// Runs every scenario on the kernel this process runs on.
pub fn run_here(
    cfg: &SessionConfig,
    program: &str,
    kernel: KernelInfo,
    scenario_hooks: &mut dyn ScenarioHooks,
    run_hooks: &mut dyn RunHooks,
) -> Result<RunOutcome, RunError> {
    netlab_topology::privilege::check_capabilities()
        .map_err(|e| RunError::Privilege(e.to_string()))?;
    let progress = Progress::new(cfg.quiet);
    let (run_id, registry) = owned_run(GRACE).map_err(RunError::Setup)?;
    // Both threads end with the run (their guards dropped on return).
    let _interrupt_watch = cfg
        .inside_guest
        .then(|| interrupt_from_host(program, &cfg.out));
    let _watchdog = start_watchdog(program, &registry, cfg.run_deadline());
    let here = Here {
        cfg,
        program,
        progress,
        run_id,
        registry,
        planned: cfg.planned(),
    };
    here.announce(&kernel);
    let mut results = here.header(kernel, run_hooks.notes(&cfg.exp));
    let mut files = ScenarioFiles::create(&cfg.out).map_err(|e| {
        let _ = here.registry.teardown(&SystemClock);
        RunError::Store(e.to_string())
    })?;
    // --resume: the folder's complete scenarios are kept as they are.
    let done = here.adopt(&mut results, &mut files)?;
    let mut outside = Outside::new(Instant::now());
    let mut failed = here.scenarios(
        &done,
        &mut results,
        &mut files,
        &mut outside,
        scenario_hooks,
        run_hooks,
    );
    failed |= here.finish(&mut results, &files, &mut outside, run_hooks);
    if let Some(sig) = netlab_receipts::interrupted() {
        if let Some(i) = &results.interrupted {
            eprintln!(
                "netlab: {}",
                run_hooks.interrupted_banner(i, &files.indices())
            );
        }
        return Ok(RunOutcome::Interrupted { signal: sig });
    }
    Ok(if failed {
        RunOutcome::Failed
    } else {
        RunOutcome::Complete
    })
}

/// The run's time outside its scenarios (docs/method.md §3.5): the run's
/// start, each scenario's start and end, and the writes between them.
struct Outside {
    started: Instant,
    /// When the last scenario ended (the run's start before the first).
    left: Instant,
    between: Duration,
    write: Duration,
}

impl Outside {
    fn new(now: Instant) -> Outside {
        Outside {
            started: now,
            left: now,
            between: Duration::ZERO,
            write: Duration::ZERO,
        }
    }

    /// A scenario starts at `now`.
    fn entering(&mut self, now: Instant) {
        self.between += now.saturating_duration_since(self.left);
    }

    /// The scenario that started last ended at `now`.
    fn left(&mut self, now: Instant) {
        self.left = now;
    }

    /// `took` went to writing the scenario's file or results.json.
    fn wrote(&mut self, took: Duration) {
        self.write += took;
    }

    /// The run's wall time and its steps outside scenarios, up to `now`
    /// (after the last scenario's end).
    fn at(&self, now: Instant) -> (f64, RunSteps) {
        let between = self.between + now.saturating_duration_since(self.left);
        (
            now.saturating_duration_since(self.started).as_secs_f64(),
            RunSteps {
                between_s: between.as_secs_f64(),
                write_s: self.write.as_secs_f64(),
            },
        )
    }

    /// Sets `results`' wall time and steps to `now`.
    fn stamp(&self, results: &mut Results, now: Instant) {
        let (wall_s, steps) = self.at(now);
        results.finished_utc = format_rfc3339(SystemTime::now());
        results.wall_s = wall_s;
        results.steps = Some(steps);
    }
}

/// Whether results.json is assembled again after the `k`-th scenario this
/// run ran (from 1): after the 1st, 2nd, 4th, 8th, … (method §9.4). Every
/// assembly copies every scenario file so far, so rewriting it after each
/// of N scenarios copied N²/2 scenarios in all (5.5 s of a 168 s sweep in
/// the guest, whose files go through hostfs); this copies fewer than 3N with the end's,
/// and each scenario's own file is written as it ends all the same.
fn rewrite_after(k: usize) -> bool {
    k.is_power_of_two()
}

impl Here<'_> {
    /// The run's first progress line.
    fn announce(&self, kernel: &KernelInfo) {
        let (cfg, planned) = (self.cfg, &self.planned);
        let plan = cfg.exp.plan();
        let share = match cfg.shard {
            Some(sh) => format!(
                " (shard {sh}: {} of {})",
                planned.len(),
                plan.scenarios.len()
            ),
            None => String::new(),
        };
        self.progress.say(&format!(
            "run {} of {} on {} kernel {} ({}): {} scenario(s){share} over {} point(s), results in {}",
            self.run_id.as_str(),
            cfg.exp.name,
            kernel.mode,
            kernel.release,
            kernel.chosen_because,
            planned.len(),
            plan.points.len(),
            cfg.out.display()
        ));
    }

    /// The run's header: its `scenarios` stay empty; each finished scenario
    /// goes to its own file and results.json is assembled from them.
    fn header(&self, kernel: KernelInfo, notes: Vec<String>) -> Results {
        let cfg = self.cfg;
        Results {
            schema_version: SCHEMA_VERSION,
            tool: Tool::this(),
            kernel,
            experiment: cfg.exp.to_file(),
            run_id: self.run_id.as_str().to_string(),
            started_utc: format_rfc3339(SystemTime::now()),
            finished_utc: String::new(),
            timeline_total_s: self
                .planned
                .iter()
                .map(|s| s.timeline.end())
                .sum::<Duration>()
                .as_secs_f64(),
            wall_s: 0.0,
            scenarios: Vec::new(),
            notes,
            interrupted: None,
            experiment_hash: Some(cfg.exp.content_hash()),
            shard: cfg.shard_record(),
            resumed_from: Vec::new(),
            merged: None,
            steps: None,
        }
    }

    /// With `--resume`: the folder's complete scenarios, taken into `files`
    /// byte for byte; their plan indices are not run again.
    fn adopt(
        &self,
        results: &mut Results,
        files: &mut ScenarioFiles,
    ) -> Result<BTreeSet<u32>, RunError> {
        let (cfg, planned) = (self.cfg, &self.planned);
        if !cfg.resume {
            return Ok(BTreeSet::new());
        }
        let share: BTreeSet<u32> = planned.iter().map(|s| s.index).collect();
        match netlab_results::resume::adopt(&cfg.out, &cfg.exp, cfg.shard, &share, files) {
            Ok(a) => {
                // Said even under --quiet: a resumed run is not a fresh one.
                eprintln!(
                    "netlab: {}",
                    netlab_results::resume::resumed_line(&cfg.out, cfg.shard, &share, &a)
                );
                results.resumed_from = a.resumed_from;
                Ok(a.complete)
            }
            Err(e) => {
                let _ = self.registry.teardown(&SystemClock);
                Err(RunError::Adopt(e))
            }
        }
    }

    /// Every scenario not `done`, in plan order, until the end or a signal;
    /// results.json is rewritten after each. `true`: a scenario could not
    /// be written to its file.
    fn scenarios(
        &self,
        done: &BTreeSet<u32>,
        results: &mut Results,
        files: &mut ScenarioFiles,
        outside: &mut Outside,
        scenario_hooks: &mut dyn ScenarioHooks,
        run_hooks: &mut dyn RunHooks,
    ) -> bool {
        let (cfg, program) = (self.cfg, self.program);
        let ctx = scenario::RunContext {
            registry: &self.registry,
            progress: &self.progress,
            total: cfg.exp.plan().scenarios.len(),
            out: &cfg.out,
        };
        let results_json = cfg.out.join("results.json");
        let mut failed = false;
        let to_run: Vec<_> = self
            .planned
            .iter()
            .filter(|s| !done.contains(&s.index))
            .collect();
        // Every thread the largest scenario runs at once, started here
        // rather than in each scenario's start (method §3.5). A pool that
        // cannot start them leaves each scenario to start its own.
        let most = to_run
            .iter()
            .filter_map(|p| ScenarioSetup::new(p, &self.run_id).ok())
            .map(|s| scenario::threads_at_once(&s))
            .max()
            .unwrap_or(0);
        let _kept = netlab_os::threads::reserve(most);
        for (k, planned) in to_run.iter().enumerate() {
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
            let fds_before = netlab_os::proc::own_open_fds();
            let ran_on = crate::machine::ran_on(format_rfc3339(SystemTime::now()));
            outside.entering(Instant::now());
            let (mut r, stopped) = match ScenarioSetup::new(planned, &self.run_id) {
                Ok(setup) => scenario::run(&ctx, &setup, scenario_hooks),
                Err(e) => (scenario::not_started(planned, &e), None),
            };
            outside.left(Instant::now());
            r.open_fds = fds_before
                .zip(netlab_os::proc::own_open_fds())
                .map(|(b, a)| [b, a]);
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
            let writing = Instant::now();
            if let Err(e) = files.push(r) {
                eprintln!("{program}: {e} (the scenario is kept in memory for results.json)");
                failed = true;
            }
            // The scenario's file keeps what it measured; results.json is
            // assembled from the files now and then, and by the run's end
            // (after the last scenario, or a signal) in any case.
            let now = Instant::now();
            outside.wrote(now - writing);
            if !stop && k + 1 < to_run.len() && rewrite_after(k + 1) {
                outside.stamp(results, now);
                if let Err(e) = files.write_results(results, &results_json) {
                    eprintln!("{program}: {e}");
                }
                outside.wrote(now.elapsed());
            }
            run_hooks.scenario_written();
            if stop {
                break;
            }
        }
        failed
    }

    /// The run's end: teardown, the final results.json, the caller's
    /// summary and report from the scenarios read back one at a time, the
    /// scenario files removed, the caller's table. `true`: something failed.
    fn finish(
        &self,
        results: &mut Results,
        files: &ScenarioFiles,
        outside: &mut Outside,
        run_hooks: &mut dyn RunHooks,
    ) -> bool {
        let (out, program) = (&self.cfg.out, self.program);
        let receipts = self.registry.teardown(&SystemClock);
        outside.stamp(results, Instant::now());
        let mut failed = false;
        let written = files.write_results(results, &out.join("results.json"));
        if let Err(e) = &written {
            eprintln!("{program}: {e}");
            failed = true;
        }
        let failed_receipts = receipts.iter().filter(|r| !r.outcome.is_ok()).count();
        let mut failed_scenario = false;
        let read_back = files.for_each(|s| {
            failed_scenario |= s.error.is_some();
            run_hooks.scenario_read_back(results, s);
            Ok(())
        });
        if let Err(e) = &read_back {
            eprintln!("{program}: reading the scenarios back for the summary: {e}");
            failed = true;
        }
        if !run_hooks.write(results, failed_receipts, out) {
            failed = true;
        }
        // results.json holds every scenario now: their files are not needed. A
        // run that could not write it keeps them (as a SIGKILLed run does).
        if written.is_ok() && read_back.is_ok() {
            if let Err(e) = files.remove_files() {
                eprintln!("{program}: {e}");
            }
        }
        run_hooks.print();
        self.progress.say(&format!(
            "wall time {:.1}s for {:.1}s of scenario timelines ({:.3}×)",
            results.wall_s,
            results.timeline_total_s,
            results.wall_s / results.timeline_total_s.max(1e-9)
        ));
        println!("results: {}", out.display());
        failed || failed_scenario || failed_receipts > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// results.json is assembled after scenarios 1, 2, 4, 8, …: over a run
    /// of N scenarios, the end's included, it copies fewer than 3N scenario
    /// files, where after every scenario it copied N(N+1)/2 + N.
    #[test]
    fn results_json_is_assembled_at_powers_of_two_and_copies_fewer_than_2n() {
        let at: Vec<usize> = (1..=20).filter(|&k| rewrite_after(k)).collect();
        assert_eq!(at, [1, 2, 4, 8, 16]);
        for n in 1..=1000usize {
            // The run's end assembles all n once more.
            let copied: usize = (1..n).filter(|&k| rewrite_after(k)).sum::<usize>() + n;
            assert!(copied < 3 * n, "{n}: {copied}");
        }
    }

    /// The wall time is the scenarios' time plus the time between them.
    #[test]
    fn the_run_s_time_outside_scenarios_adds_up_to_its_wall_time() {
        let t = Instant::now();
        let ms = Duration::from_millis;
        let mut o = Outside::new(t);
        o.entering(t + ms(5));
        o.left(t + ms(12_305));
        o.wrote(ms(40));
        o.entering(t + ms(12_360));
        o.left(t + ms(24_600));
        let (wall, steps) = o.at(t + ms(24_650));
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(wall, 24.65), "{wall}");
        // 5 ms before the first, 55 between, 50 after the last.
        assert!(close(steps.between_s, 0.110), "{steps:?}");
        assert!(close(steps.write_s, 0.040), "{steps:?}");
        assert!(close(wall - steps.between_s, 12.3 + 12.24));
    }
}
