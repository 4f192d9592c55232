//! Executes a [`ScenarioPlan`] (SPEC §3): a fresh A–R–B, the bottleneck with
//! one arm, B's receiver setting t0, the capture opened before the connect,
//! probe and samplers running, the sender started at the baseline mark, the
//! final qdisc readback at the end of the measured window before any socket
//! closes, then every worker joined and every owned namespace deleted with a
//! receipt.
//!
//! A failure is recorded with its cause; the workers that did start are
//! still stopped and joined, and cleanup always runs.

use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use netlab_ecn::Capture;
use netlab_probe::{connect_socket, run_probe};
use netlab_qdisc::{Configured, QdiscSocket, Sampler};
use netlab_receipts::{Registry, Resource, SystemClock};
use netlab_tcpload::sampler::DiagSocket;
use netlab_tcpload::sink::Sink;
use netlab_tcpload::{new_sender_socket, FlowId, Sender, TcpSampler};
use netlab_topology::{netns, Topology};

use super::clock::{ScenarioClock, Step};
use super::collect::Workers;
use super::error::ScenarioError;
use super::plan::ScenarioPlan;
use super::worker::spawn_in;
use crate::progress::{Live, Progress};
use crate::results::{CleanupResult, ReadbackDump, RequestRecord, ScenarioResult, TopologyResult};

/// What every scenario of a run shares.
pub struct RunContext<'a> {
    /// Owned resources of the run.
    pub registry: &'a Registry,
    /// Progress display.
    pub progress: &'a Progress,
    /// Number of scenarios in the run.
    pub total: usize,
}

/// Runs one planned scenario and returns its result, failed or not.
pub fn run(ctx: &RunContext<'_>, plan: &ScenarioPlan) -> ScenarioResult {
    let started = Instant::now();
    let mut res = ScenarioResult {
        index: plan.index,
        round: plan.round,
        arm: plan.arm_kind().to_string(),
        arm_words: plan.arm_words.clone(),
        namespaces: plan.namespaces(),
        ..Default::default()
    };
    let label = format!(
        "scenario {}/{} (round {}, {})",
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
        };
        runner.execute(&mut res)
    });
    if let Err(e) = outcome {
        res.error = Some(e.to_string());
    }
    res.cleanup = cleanup(ctx.registry, &res.namespaces);
    res.elapsed_s = started.elapsed().as_secs_f64();
    match &res.error {
        None => ctx
            .progress
            .say(&format!("{label}: done in {:.1}s", res.elapsed_s)),
        Some(e) => eprintln!("netlab: {label} failed: {e}"),
    }
    res
}

/// The result of a scenario whose plan could not be made: nothing ran.
pub fn not_started(
    index: u32,
    round: u32,
    arm: &str,
    arm_words: &str,
    error: &ScenarioError,
) -> ScenarioResult {
    ScenarioResult {
        index,
        round,
        arm: arm.to_string(),
        arm_words: arm_words.to_string(),
        error: Some(error.to_string()),
        ..Default::default()
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

/// Executes one plan.
struct Runner<'a> {
    plan: &'a ScenarioPlan,
    progress: &'a Progress,
    label: &'a str,
}

/// What is set up once t0 is known.
struct Scene<'a> {
    topo: &'a Topology,
    configured: &'a Configured,
    qsock: &'a QdiscSocket,
    t0: Instant,
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

impl Runner<'_> {
    fn execute(&self, res: &mut ScenarioResult) -> Result<(), ScenarioError> {
        let plan = self.plan;
        let topo =
            Topology::build(&plan.topology).map_err(topology_step("building the topology"))?;
        let readback = topo
            .readback()
            .map_err(topology_step("reading the topology back"))?;
        res.topology = Some(TopologyResult {
            spec: plan.topology.clone(),
            build_time_s: topo.build_time.as_secs_f64(),
            sysctls: topo.sysctls.clone(),
            readback,
        });

        // The bottleneck on R's egress toward B.
        res.qdisc.dev = plan.bottleneck_dev.to_string();
        let configured = netlab_qdisc::configure(&topo.r, plan.bottleneck_dev, &plan.bottleneck)
            .map_err(|source| ScenarioError::Configure {
                dev: plan.bottleneck_dev,
                netns: topo.r.name().to_string(),
                source: Box::new(source),
            })?;
        res.qdisc.requests = configured
            .requests
            .iter()
            .map(|r| RequestRecord {
                tc_argv: r.tc_argv.clone(),
                tc_argv_from_host: r.tc_argv_in_netns(topo.r.name()),
                netlink_hex: r.netlink_hex.clone(),
            })
            .collect();
        let qsock = QdiscSocket::open_in(&topo.r).map_err(qdisc_step("qdisc readback socket"))?;
        let after = qsock
            .readback(configured.ifindex, None, &configured.psched)
            .map_err(qdisc_step("qdisc readback after configuration"))?;
        res.qdisc.after_config = after.records.clone();
        res.qdisc.after_config_dump = Some(ReadbackDump::of(&after));

        // Capture on B, opened before anything connects.
        let capture = topo
            .b
            .run(|| Capture::open(plan.capture_dev, plan.capture))
            .map_err(enter("B", "the capture"))?
            .map_err(|source| ScenarioError::Capture {
                dev: plan.capture_dev,
                source: Box::new(source),
            })?;
        // B's receiver: it sets t0. It is stopped right after the final readback.
        let sink = topo
            .b
            .run(|| Sink::bind(plan.receiver))
            .map_err(enter("B", "the receiver"))?
            .map_err(load_step("binding the receiver in B"))?;
        let t0 = sink.t0();
        res.t0_utc = Some(netlab_receipts::format_rfc3339(std::time::SystemTime::now()));
        self.progress.reset();

        let scene = Scene {
            topo: &topo,
            configured: &configured,
            qsock: &qsock,
            t0,
            live: Arc::new(Live::default()),
        };
        let mut workers = Workers::default();
        let outcome = self.drive(&scene, sink, capture, res, &mut workers);
        let joined = workers.finish(plan, t0, outcome.is_err(), res);
        drop(topo);
        outcome.and(joined)
    }

    /// Starts the workers and walks the timeline to its end.
    fn drive(
        &self,
        scene: &Scene<'_>,
        sink: Sink,
        capture: Capture,
        res: &mut ScenarioResult,
        workers: &mut Workers,
    ) -> Result<(), ScenarioError> {
        let plan = self.plan;
        let (topo, t0) = (scene.topo, scene.t0);
        workers.receiver = Some(spawn_in(&topo.b, "receiver", "b-receiver", move |stop| {
            sink.run_with_stop(stop.flag())
        })?);
        let filter = plan.flow.capture_filter;
        workers.capture = Some(spawn_in(&topo.b, "capture", "b-capture", move |stop| {
            capture.run(filter, stop.flag(), t0)
        })?);
        let sampling = netlab_qdisc::SamplerConfig::new(
            plan.qdisc_sample_interval,
            t0,
            t0 + plan.qdisc_sampling_end,
        );
        workers.qdisc_sampler = Some(
            Sampler::start(
                &topo.r,
                scene.configured.ifindex,
                scene.configured.psched,
                sampling,
            )
            .map_err(qdisc_step("starting the qdisc sampler"))?,
        );
        self.start_probe(scene, workers)?;

        let mut clock = ScenarioClock::new(plan.timeline);
        let mut flow = None;
        loop {
            let now = Instant::now().saturating_duration_since(t0);
            match clock.poll(now) {
                Step::Wait { until, phase } => {
                    self.progress.tick(
                        self.label,
                        phase.label(),
                        now.as_secs_f64(),
                        plan.timeline.end().as_secs_f64(),
                        &scene.live,
                    );
                    std::thread::sleep((until - now).min(Duration::from_secs(1)));
                }
                Step::StartSender => flow = self.start_sender(scene, workers)?,
                Step::ReadFinal => {
                    let taken = Instant::now().saturating_duration_since(t0).as_secs_f64();
                    let rb = scene
                        .qsock
                        .readback(
                            scene.configured.ifindex,
                            Some(taken),
                            &scene.configured.psched,
                        )
                        .map_err(qdisc_step("final qdisc readback"))?;
                    res.qdisc.at_window_end = rb.records.clone();
                    res.qdisc.final_dump = Some(ReadbackDump::of(&rb));
                    res.qdisc.final_taken_s = Some(taken);
                }
                Step::Done => break,
            }
        }
        match flow {
            Some(_) => Ok(()),
            None => Err(ScenarioError::NeverConnected),
        }
    }

    /// The probe client in A, on its own schedule from t0.
    fn start_probe(&self, scene: &Scene<'_>, workers: &mut Workers) -> Result<(), ScenarioError> {
        let plan = &self.plan.probe;
        let target = plan.target;
        let sock = scene
            .topo
            .a
            .run(|| connect_socket(None, target))
            .map_err(enter("A", "the probe"))?
            .map_err(|source| ScenarioError::Probe {
                step: "probe socket",
                source: Box::new(source),
            })?;
        let config = plan.config.clone();
        let (t0, live) = (scene.t0, scene.live.clone());
        workers.probe = Some(spawn_in(&scene.topo.a, "probe", "a-probe", move |stop| {
            run_probe(&sock, t0, &config, Some(stop.flag()), |req| {
                match req.rtt_ms {
                    Some(ms) => live
                        .last_rtt_us
                        .store((ms * 1000.0).max(1.0) as u64, Ordering::Relaxed),
                    None => {
                        live.timeouts.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })?);
        Ok(())
    }

    /// The sender and its tcp_info sampler, started at the baseline mark;
    /// their sockets are made inside A. Returns the flow once connected
    /// (`None` if the connect did not complete within the sender's lifetime).
    fn start_sender(
        &self,
        scene: &Scene<'_>,
        workers: &mut Workers,
    ) -> Result<Option<FlowId>, ScenarioError> {
        let flow = &self.plan.flow;
        let a = &scene.topo.a;
        let to = flow.sender.to;
        let sock = a
            .run(|| new_sender_socket(&flow.sender.cc, to))
            .map_err(enter("A", "the sender"))?
            .map_err(load_step("sender socket"))?;
        let diag = a
            .run(DiagSocket::open)
            .map_err(enter("A", "sock_diag"))?
            .map_err(load_step("sock_diag socket"))?;
        let (sender_cfg, sampler_cfg) = (flow.sender.clone(), flow.tcp_info);
        let (t0, live) = (scene.t0, scene.live.clone());
        let (flow_tx, flow_rx) = mpsc::channel::<FlowId>();
        workers.sender = Some(spawn_in(a, "sender thread", "a-sender", move |_stop| {
            let tx = Sender::connect(sock, sender_cfg, t0).map_err(|e| format!("sender: {e}"))?;
            let _ = flow_tx.send(tx.flow());
            // Each sample also feeds the live goodput of the progress display.
            let sampler = TcpSampler::spawn_with(diag, tx.flow(), t0, sampler_cfg, move |s| {
                if let Some(info) = &s.record.info {
                    live.bytes_acked.store(info.bytes_acked, Ordering::Relaxed);
                    live.acked_at_us
                        .store((s.end_s * 1e6) as u64, Ordering::Relaxed);
                }
            });
            let report = tx.run();
            let log = match sampler {
                Ok(s) => s.stop().map_err(|e| e.to_string()),
                Err(e) => Err(format!("starting the tcp_info sampler: {e}")),
            };
            Ok::<_, String>((report, log))
        })?);
        Ok(flow_rx.recv_timeout(flow.sender.lifetime).ok())
    }
}
