//! Executes a [`ScenarioSetup`] (method §3): a fresh A–R–B, the qdiscs of R's
//! egresses (netem for the base RTT, TBF + the arm per shaped direction),
//! the caller's [`ScenarioHooks`] (path ready, load start, finished),
//! B's first receiver setting t0, the capture opened before any connect,
//! one receiver per flow, probe and samplers running, each sender made
//! ready before t0 and released at its offset, the final qdisc readbacks at the end of the measured
//! window before any socket closes, then every worker joined and every
//! owned namespace deleted with a receipt.
//!
//! A failure is recorded with its cause; the workers that did start are
//! still stopped and joined, and cleanup always runs.
//!
//! The steps live beside it: `build` (the path and its egresses, before
//! t0) and `start` (each worker on its thread); here are the order of
//! the steps, the timeline's walk (`Runner::walk`) and the final
//! readback.

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use netlab_ecn::Capture;
use netlab_experiment::Direction;
use netlab_qdisc::QdiscSocket;
use netlab_receipts::{Registry, Resource, SystemClock};
use netlab_results::{CleanupResult, FlowResult, PointResult, ReadbackDump, ScenarioResult};
use netlab_topology::netns::Netns;
use netlab_topology::{netns, SenderHost, Topology};

use super::clock::{ScenarioClock, Step};
use super::collect::Workers;
use super::cpu::CpuMarks;
use super::egress::Egress;
use super::error::ScenarioError;
use super::steps::{ScenarioStep, StepTimer};
use crate::b_loop::{BLoop, BLoopError};
use crate::hooks::{HookError, ScenarioEnd, ScenarioHooks, ScenarioView, WorkerLogs};
use crate::progress::{Live, Progress};
use crate::setup::ScenarioSetup;

mod build;
mod start;

pub use start::threads_at_once;
pub(crate) use start::ReadyWorkers;

/// What every scenario of a run shares.
pub struct RunContext<'a> {
    /// Owned resources of the run.
    pub registry: &'a Registry,
    /// Progress display.
    pub progress: &'a Progress,
    /// Number of scenarios in the run.
    pub total: usize,
    /// The results folder (packet files go to its `pcap/`).
    pub out: &'a Path,
}

/// The sweep point as results.json keeps it.
pub fn point_result(p: &netlab_experiment::Point) -> PointResult {
    PointResult {
        index: p.index,
        label: p.label(),
        values: p.values.iter().map(|v| v.label()).collect(),
    }
}

/// The flows of a planned scenario, before anything ran.
fn flow_records(s: &netlab_experiment::ScenarioPlan) -> Vec<FlowResult> {
    let load = s.timeline.load_start();
    s.flows
        .iter()
        .enumerate()
        .map(|(index, f)| FlowResult {
            index,
            direction: f.direction.as_str().to_string(),
            cc: f.cc.clone(),
            ecn: f.ecn,
            port: f.port,
            start_s: (load + f.start).as_secs_f64(),
            stop_s: f.stop.map(|d| (load + d).as_secs_f64()),
            host: s.hosts.get(f.host).map(|h| h.name.clone()),
            ..FlowResult::default()
        })
        .collect()
}

/// The result of a planned scenario before it runs.
fn empty_result(s: &netlab_experiment::ScenarioPlan) -> ScenarioResult {
    ScenarioResult {
        index: s.index,
        round: s.round,
        point: point_result(&s.point),
        seed: s.seed,
        arm: s.arm.arm.kind().to_string(),
        arm_words: s.arm.words.clone(),
        flows: flow_records(s),
        ..Default::default()
    }
}

/// The result of a scenario's setup before it runs: the same values as
/// [`empty_result`] of the planned scenario it was made from (the flows'
/// starts and stops are already offsets from t0 in the setup), so a setup
/// the caller changed is recorded as it ran.
fn empty_result_of(s: &ScenarioSetup) -> ScenarioResult {
    ScenarioResult {
        index: s.index,
        round: s.round,
        point: point_result(&s.point),
        seed: s.seed,
        arm: s.arm_kind.to_string(),
        arm_words: s.arm_words.clone(),
        flows: s
            .flows
            .iter()
            .enumerate()
            .map(|(index, f)| FlowResult {
                index,
                direction: f.spec.direction.as_str().to_string(),
                cc: f.spec.cc.clone(),
                ecn: f.spec.ecn,
                port: f.spec.port,
                start_s: f.start.as_secs_f64(),
                stop_s: f.stop.map(|d| d.as_secs_f64()),
                host: s
                    .hosts
                    .iter()
                    .find(|h| h.host == f.host)
                    .map(|h| h.name.clone()),
                ..FlowResult::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// How often the timeline looks for a signal while it waits.
const INTERRUPT_POLL: Duration = Duration::from_millis(100);

/// Runs one scenario's setup on this kernel and returns its result, failed
/// or not; `hooks` add the caller's workers. The setup is what runs: the
/// session makes it from the planned scenario ([`ScenarioSetup::new`]); a
/// caller that plans its own scenarios (netlab-crosscheck) may change it
/// first (its flows, their senders and receivers, the probes, the
/// capture), and the result records the setup as it ran.
pub fn run(
    ctx: &RunContext<'_>,
    plan: &ScenarioSetup,
    hooks: &mut dyn ScenarioHooks,
) -> (ScenarioResult, Option<StoppedAt>) {
    let started = Instant::now();
    let steps = RefCell::new(StepTimer::new(started));
    let mut res = ScenarioResult {
        namespaces: plan.namespaces(),
        ..empty_result_of(plan)
    };
    let point = if plan.point.values.is_empty() {
        String::new()
    } else {
        format!(", point {} {}", plan.point.index, plan.point.label())
    };
    let label = format!(
        "scenario {}/{} (round {}, {}{point})",
        plan.index, ctx.total, plan.round, res.arm
    );
    ctx.progress.say(&format!(
        "{label}: building A–R–B ({})",
        res.namespaces.join(", ")
    ));
    let outcome = register(ctx.registry, &res.namespaces).and_then(|()| {
        let runner = Runner {
            plan,
            progress: ctx.progress,
            label: &label,
            out: ctx.out,
            hooks: RefCell::new(hooks),
            end: ScenarioEnd::new(),
            cpu: RefCell::new(CpuMarks::default()),
            steps: &steps,
        };
        let executed = runner.execute(&mut res);
        // Was the shaper the bottleneck? From what was recorded, failed or
        // not (docs/method.md §14.2).
        if !res.directions.is_empty() {
            res.bottleneck = Some(netlab_results::judge::judge(
                &res,
                runner.cpu.borrow().used(),
            ));
        }
        executed
    });
    let mut stopped_at = None;
    if let Err(e) = outcome {
        if let ScenarioError::Interrupted { phase, at_s, .. } = &e {
            stopped_at = Some(StoppedAt {
                phase,
                at_s: Some(*at_s),
            });
        }
        res.error = Some(e.to_string());
    }
    steps
        .borrow_mut()
        .enter(ScenarioStep::Teardown, Instant::now());
    res.cleanup = cleanup(ctx.registry, &res.namespaces);
    let ended = Instant::now();
    res.elapsed_s = ended.saturating_duration_since(started).as_secs_f64();
    res.steps = Some(steps.borrow().steps(ended));
    match &res.error {
        None => ctx
            .progress
            .say(&format!("{label}: done in {:.1}s", res.elapsed_s)),
        Some(e) => eprintln!("netlab: {label} failed: {e}"),
    }
    if stopped_at.is_none() && netlab_receipts::interrupted().is_some() {
        // The signal came during set-up or collection, outside the timeline.
        stopped_at = Some(StoppedAt {
            phase: "setup or collection",
            at_s: None,
        });
    }
    (res, stopped_at)
}

/// Where a signal stopped a scenario.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoppedAt {
    /// The phase (`baseline`, `warm-up`, `loaded`, or outside the timeline).
    pub phase: &'static str,
    /// Seconds after t0, when the timeline was running.
    pub at_s: Option<f64>,
}

/// The result of a scenario whose plan could not be made: nothing ran.
pub fn not_started(
    planned: &netlab_experiment::ScenarioPlan,
    error: &ScenarioError,
) -> ScenarioResult {
    ScenarioResult {
        error: Some(error.to_string()),
        ..empty_result(planned)
    }
}

/// Puts the namespaces in the registry before they exist, so a crash at any
/// later point leaves them to `orchestrator cleanup`.
fn register(registry: &Registry, names: &[String]) -> Result<(), ScenarioError> {
    for name in names {
        registry
            .register_namespace(name)
            .map_err(|source| ScenarioError::Register {
                name: name.clone(),
                source: Box::new(source),
            })?;
    }
    Ok(())
}

/// Deletes this scenario's namespaces through the registry, with receipts.
fn cleanup(registry: &Registry, names: &[String]) -> CleanupResult {
    let receipts = registry.release(
        |r| matches!(r, Resource::Namespace { name } if names.contains(name)),
        &SystemClock,
    );
    CleanupResult {
        receipts,
        namespaces_deleted: names
            .iter()
            .filter(|n| !netns::exists(n))
            .cloned()
            .collect(),
    }
}

/// Executes one setup.
struct Runner<'a, 'h> {
    plan: &'a ScenarioSetup,
    progress: &'a Progress,
    label: &'a str,
    out: &'a Path,
    /// The caller's hooks (called from this thread only).
    hooks: RefCell<&'h mut dyn ScenarioHooks>,
    /// An earlier end the hooks may ask for.
    end: ScenarioEnd,
    /// The CPU at the measured window's start and end.
    cpu: RefCell<CpuMarks>,
    /// Where the scenario's time goes.
    steps: &'a RefCell<StepTimer>,
}

/// What is set up once t0 is known.
struct Scene<'a> {
    topo: &'a Topology,
    egresses: &'a [Egress],
    qsock: &'a QdiscSocket,
    t0: Instant,
    /// Wall-clock time of t0 since the Unix epoch (the packet files' clock).
    t0_unix: Duration,
    live: Arc<Live>,
}

fn topology_step(
    step: &'static str,
) -> impl FnOnce(netlab_topology::TopologyError) -> ScenarioError {
    move |source| ScenarioError::Topology {
        step,
        source: Box::new(source),
    }
}

fn qdisc_step(step: &'static str) -> impl FnOnce(netlab_qdisc::QdiscError) -> ScenarioError {
    move |source| ScenarioError::Qdisc {
        step,
        source: Box::new(source),
    }
}

fn load_step(step: &'static str) -> impl FnOnce(netlab_tcpload::TcpLoadError) -> ScenarioError {
    move |source| ScenarioError::Load {
        step,
        source: Box::new(source),
    }
}

fn b_loop_step(step: &'static str) -> impl FnOnce(BLoopError) -> ScenarioError {
    move |e| match e {
        BLoopError::Load(source) => load_step(step)(source),
        BLoopError::Probe(source) => ScenarioError::Probe {
            step,
            source: Box::new(source),
        },
    }
}

fn hook_step(stage: &'static str) -> impl FnOnce(HookError) -> ScenarioError {
    move |e| ScenarioError::Hook {
        stage,
        message: e.0,
    }
}

fn enter(
    netns: &'static str,
    what: &'static str,
) -> impl FnOnce(netlab_topology::TopologyError) -> ScenarioError {
    move |source| ScenarioError::Enter {
        netns,
        what,
        source: Box::new(source),
    }
}

/// The sending and the receiving namespace of a direction between sender
/// host `host` (A's end, method §1.7) and B, with their names.
fn ends(
    topo: &Topology,
    dir: Direction,
    host: SenderHost,
) -> ((&Netns, &'static str), (&Netns, &'static str)) {
    let a = host_netns(topo, host);
    match dir {
        Direction::Up => ((a, "A"), (&topo.b, "B")),
        Direction::Down => ((&topo.b, "B"), (a, "A")),
    }
}

/// The namespace of sender host `host` (host 1: A). The topology is built
/// with every host the setup names, so a missing one is a bug.
fn host_netns(topo: &Topology, host: SenderHost) -> &Netns {
    topo.host(host)
        .expect("the topology has every sender host its setup names")
}

impl Runner<'_, '_> {
    /// The scenario's steps in their order: the path, the arms, the
    /// neighbour warm-up, the hooks' workers, the measurement, the join.
    fn execute(&self, res: &mut ScenarioResult) -> Result<(), ScenarioError> {
        let plan = self.plan;
        let topo = build::topology(plan, res)?;
        let qsock = QdiscSocket::open_in(&topo.r).map_err(qdisc_step("qdisc socket in R"))?;
        let egresses = build::egresses(plan, &topo, &qsock, res)?;
        build::host_links(plan, &topo, &qsock, res)?;
        self.warm_up_neighbours(&topo)?;

        // The caller's workers come up on the finished path, before t0;
        // whatever happens next, they are told the scenario is over while
        // the namespaces still exist.
        let mut t0 = None;
        let mut raw = WorkerLogs::default();
        // (The hooks' borrow ends with this statement: `measure` calls them too.)
        let ready = self
            .hooks
            .borrow_mut()
            .path_ready(&self.view(&topo, None, None));
        let measured = ready.map_err(hook_step("path ready")).and_then(|()| {
            self.enter(ScenarioStep::Start);
            self.measure(&topo, &egresses, &qsock, res, &mut t0, &mut raw)
        });
        if self.steps.borrow().current() != ScenarioStep::Collect {
            // The scenario failed before its workers were joined.
            self.enter(ScenarioStep::Collect);
        }
        let finished = self
            .hooks
            .borrow_mut()
            .finished(&self.view(&topo, t0.map(|(t0, _)| t0), Some(&raw)))
            .map_err(hook_step("finished"));
        drop(topo);
        // The evidence file, from the report (whatever else failed).
        if let (Some(ecn), Some((_, t0_unix))) = (res.ecn.as_mut(), t0) {
            ecn.evidence_pcap = Some(super::pcap::write_evidence_file(
                self.out,
                plan,
                t0_unix,
                &ecn.evidence,
            ));
        }
        measured.and(finished)
    }

    /// `step` begins now.
    fn enter(&self, step: ScenarioStep) {
        self.steps.borrow_mut().enter(step, Instant::now());
    }

    /// The scenario as the hooks see it.
    fn view<'s>(
        &'s self,
        topology: &'s Topology,
        t0: Option<Instant>,
        measured: Option<&'s WorkerLogs>,
    ) -> ScenarioView<'s> {
        ScenarioView {
            topology,
            setup: self.plan,
            t0,
            out: self.out,
            end: &self.end,
            measured,
        }
    }

    /// From B's first receiver (t0) to every worker joined; `t0` is set
    /// (with its Unix time) as soon as it is known, `raw` gets what the
    /// senders returned.
    fn measure(
        &self,
        topo: &Topology,
        egresses: &[Egress],
        qsock: &QdiscSocket,
        res: &mut ScenarioResult,
        t0_out: &mut Option<(Instant, Duration)>,
        raw: &mut WorkerLogs,
    ) -> Result<(), ScenarioError> {
        let plan = self.plan;
        // Capture on B, opened before anything connects.
        let capture = match plan.capture_flow {
            None => None,
            Some(_) => Some(
                topo.b
                    .run(|| Capture::open(plan.capture_dev, plan.capture))
                    .map_err(enter("B", "the capture"))?
                    .map_err(|source| ScenarioError::Capture {
                        dev: plan.capture_dev,
                        source: Box::new(source),
                    })?,
            ),
        };
        // B's loop's thread, the probes and every flow's receiver and
        // sender ready before t0 (method §3.3).
        let live = Arc::new(Live::for_flows(plan.flows.iter().map(|f| f.spec.direction)));
        let mut ready = self.ready_workers(topo, &live)?;
        // B's first receiver (with the probes' echoes): it sets t0.
        let clock_sink = topo
            .b
            .run(|| BLoop::bind(plan.clock_sink))
            .map_err(enter("B", "the receiver"))?
            .map_err(b_loop_step("binding the receiver in B"))?;
        let t0 = clock_sink.t0();
        self.steps.borrow_mut().enter(ScenarioStep::Timeline, t0);
        let now = SystemTime::now();
        res.t0_utc = Some(netlab_utc::format_rfc3339(now));
        let t0_unix = now
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .saturating_sub(t0.elapsed());
        *t0_out = Some((t0, t0_unix));
        self.progress.reset();

        let scene = Scene {
            topo,
            egresses,
            qsock,
            t0,
            t0_unix,
            live,
        };
        let mut workers = Workers::new(plan.flows.len());
        workers.ready_senders = std::mem::take(&mut ready.senders);
        // A moving bottleneck's drivers run on the same clock (method §15.4).
        let links = super::link::LinkDrivers::start(plan, topo, egresses, res, t0);
        let outcome = match &links {
            Ok(_) => self.drive(&scene, clock_sink, ready, capture, res, &mut workers),
            Err(_) => Ok(()),
        };
        let outcome = match links {
            Ok(l) => outcome.and(l.finish(plan, res)),
            Err(e) => Err(e),
        };
        if self.steps.borrow().current() == ScenarioStep::Timeline {
            // The walk failed, or was stopped, before the timeline's end.
            self.enter(ScenarioStep::End);
        }
        let early = self.end.get().is_some_and(|e| e < plan.timeline.end());
        let stop_probes = outcome.is_err() || early;
        let joined = || self.enter(ScenarioStep::Collect);
        let joined = workers.finish(plan, t0, stop_probes, joined, res, raw);
        outcome.and(joined)
    }

    /// Starts the workers and walks the timeline to its end.
    fn drive(
        &self,
        scene: &Scene<'_>,
        clock_sink: BLoop,
        ready: ReadyWorkers,
        capture: Option<Capture>,
        res: &mut ScenarioResult,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let (topo, t0) = (scene.topo, scene.t0);
        // B's loop first (its waiting thread handed the loop), which the
        // probes' first requests need; then the probes, whose first slots
        // are due at t0; then the flows' receivers, whose wake-ups would
        // otherwise come before the probes' first sends.
        workers.clock_receiver = ready.b_loop.release(clock_sink);
        self.start_probes(scene, ready.probe, ready.iso_probe, workers);
        self.start_flow_receivers(scene, ready.receivers, workers);
        self.start_capture(scene, capture, workers)?;
        self.start_qdisc_samplers(scene, workers)?;
        self.hooks
            .borrow_mut()
            .started(&self.view(topo, Some(t0), None))
            .map_err(hook_step("started"))?;
        self.walk(scene, res, workers)
    }

    /// Walks the timeline from t0 to its end (or the end the hooks ask
    /// for): each mark's step (the load start, a sender, the final
    /// readback) when it comes, the progress line once a second, a signal
    /// looked for every [`INTERRUPT_POLL`] while it waits.
    fn walk(
        &self,
        scene: &Scene<'_>,
        res: &mut ScenarioResult,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let plan = self.plan;
        let (topo, t0) = (scene.topo, scene.t0);
        let mut clock = ScenarioClock::new(plan.timeline, &plan.flow_starts());
        let mut ticked: Option<Instant> = None;
        loop {
            if let Some(end) = self.end.get() {
                clock.end_at(end);
            }
            let now = Instant::now().saturating_duration_since(t0);
            // The clock wakes at the window's start (one of its marks).
            if now >= plan.timeline.window_start() {
                self.cpu.borrow_mut().window_started();
            }
            match clock.poll(now) {
                Step::Wait { until, phase } => {
                    // A signal (graceful mode) stops the scenario here; what
                    // the workers measured so far is collected as usual.
                    if let Some(sig) = netlab_receipts::interrupted() {
                        return Err(ScenarioError::Interrupted {
                            signal: netlab_receipts::signal_name(sig),
                            phase: phase.label(),
                            at_s: now.as_secs_f64(),
                        });
                    }
                    if ticked.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                        ticked = Some(Instant::now());
                        self.progress.tick(
                            self.label,
                            phase.label(),
                            now.as_secs_f64(),
                            plan.timeline.end().as_secs_f64(),
                            &scene.live,
                        );
                    }
                    std::thread::sleep((until - now).min(INTERRUPT_POLL));
                }
                Step::LoadStart => {
                    self.hooks
                        .borrow_mut()
                        .load_start(&self.view(topo, Some(t0), None))
                        .map_err(hook_step("load start"))?;
                }
                Step::StartFlow(i) => self.release_sender(scene, i, workers)?,
                Step::ReadFinal => {
                    self.enter(ScenarioStep::End);
                    self.cpu.borrow_mut().window_ended();
                    self.read_final(scene, res)?
                }
                Step::Done => break,
            }
        }
        Ok(())
    }

    /// The final readback of every egress, before any socket closes.
    fn read_final(&self, scene: &Scene<'_>, res: &mut ScenarioResult) -> Result<(), ScenarioError> {
        for e in scene.egresses {
            let taken = Instant::now()
                .saturating_duration_since(scene.t0)
                .as_secs_f64();
            let rb = scene
                .qsock
                .readback(e.ifindex, Some(taken), &e.psched)
                .map_err(qdisc_step("final qdisc readback"))?;
            let q = &mut res.qdiscs[e.slot];
            q.at_window_end = rb.records.clone();
            q.final_dump = Some(ReadbackDump::of(&rb));
            q.final_taken_s = Some(taken);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_topology::RunId;

    /// A result started from the setup is the one started from the planned
    /// scenario (so results.json does not change), and a setup the caller
    /// changed is recorded as it runs.
    #[test]
    fn the_result_of_a_setup_is_that_of_its_planned_scenario() {
        let exp = netlab_experiment::parse(
            r#"
            arms = ["pfifo limit 100", "fq_codel"]
            [path.down]
            rate = "20mbit"
            [[flows]]
            [[flows]]
            direction = "down"
            start = "1s"
            stop = "4s"
            "#,
        )
        .unwrap();
        let run_id = RunId::random();
        for planned in exp.plan().scenarios {
            let setup = ScenarioSetup::new(&planned, &run_id).unwrap();
            assert_eq!(empty_result_of(&setup), empty_result(&planned));
        }
        let planned = &exp.plan().scenarios[0];
        let mut setup = ScenarioSetup::new(planned, &run_id).unwrap();
        setup.flows.truncate(1);
        let r = empty_result_of(&setup);
        assert_eq!(r.flows.len(), 1);
        assert_eq!(r.flows[0], empty_result(planned).flows[0]);
        setup.flows.clear();
        assert!(empty_result_of(&setup).flows.is_empty());
    }
}
