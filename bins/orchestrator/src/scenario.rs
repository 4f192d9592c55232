//! One scenario (SPEC §3): a fresh A–R–B, the bottleneck with one arm, B's
//! receiver setting t0, the capture opened before the connect, probe and
//! samplers running, the sender started at the baseline mark, the final qdisc
//! readback at the end of the measured window before any socket closes, then
//! every thread joined and every owned namespace deleted with a receipt.
//!
//! A failure is recorded with its cause; the threads that did start are still
//! stopped and joined, and cleanup always runs.

use std::net::{SocketAddr, SocketAddrV4};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use netlab_ecn::{Capture, CaptureConfig, EcnReport, Flow};
use netlab_probe::{connect_socket, run_probe, Phase, ProbeConfig, ProbeLog};
use netlab_qdisc::{Bottleneck, QdiscSocket, SampleSeries, Sampler};
use netlab_receipts::{Registry, Resource, SystemClock};
use netlab_tcpload::sampler::{DiagSocket, SamplerConfig as TcpSamplerConfig, SamplerLog};
use netlab_tcpload::sink::{ReceiverLog, Sink, SinkConfig};
use netlab_tcpload::{
    delivered_series, goodput, new_sender_socket, FlowId, GoodputWindow, Sender, SenderConfig,
    SenderReport, TcpSampler,
};
use netlab_topology::spec::{B_ADDR, B_IF, R_B_IF};
use netlab_topology::{netns, RunId, Topology, TopologySpec};

use crate::config::CompareConfig;
use crate::progress::{Live, Progress};
use crate::results::{
    CleanupResult, EcnResult, ProbePhases, ProbeResult, QdiscSample, ReadbackDump, ReceiverSummary,
    RequestRecord, ScenarioResult, SenderSummary, TcpInfoSample, TcpInfoSamplerResult, TcpResult,
    TopologyResult,
};

/// Bin of the delivered-bytes series.
pub const SERIES_BIN: Duration = Duration::from_millis(200);

/// What one scenario needs from the run.
pub struct Ctx<'a> {
    /// The configuration.
    pub cfg: &'a CompareConfig,
    /// The run id (namespace names carry it).
    pub run_id: &'a RunId,
    /// Owned resources of the run.
    pub registry: &'a Registry,
    /// Progress display.
    pub progress: &'a Progress,
    /// Number of scenarios in the run.
    pub total: usize,
}

fn secs_since(t0: Instant, t: Instant) -> f64 {
    t.saturating_duration_since(t0).as_secs_f64()
}

/// Sleeps until `until`, ticking the progress display about once a second.
fn wait_until(until: Instant, mut tick: impl FnMut()) {
    loop {
        let now = Instant::now();
        if now >= until {
            return;
        }
        tick();
        std::thread::sleep((until - now).min(Duration::from_secs(1)));
    }
}

/// Runs scenario `index` (1-based): round `round`, arm `arm_idx` of the config.
pub fn run(ctx: &Ctx<'_>, index: u32, round: u32, arm_idx: usize) -> ScenarioResult {
    let started = Instant::now();
    let cfg = ctx.cfg;
    let arm = &cfg.arms[arm_idx];
    let mut res = ScenarioResult {
        index,
        round,
        arm: arm.kind().to_string(),
        arm_words: cfg.arm_words[arm_idx].clone(),
        ..Default::default()
    };
    let mut spec = TopologySpec::new(ctx.run_id.clone(), index.to_string());
    spec.tcp_port = cfg.tcp_port;
    spec.udp_port = cfg.udp_port;
    res.namespaces = spec.netns_names().to_vec();
    let label = format!(
        "scenario {index}/{} (round {round}, {})",
        ctx.total, res.arm
    );
    ctx.progress.say(&format!(
        "{label}: building A–R–B ({})",
        res.namespaces.join(", ")
    ));

    let mut registered = true;
    for name in &res.namespaces {
        if let Err(e) = ctx.registry.register_namespace(name) {
            res.error = Some(format!("registering namespace {name} for cleanup: {e}"));
            registered = false;
            break;
        }
    }
    if registered {
        if let Err(e) = measure(ctx, &spec, arm_idx, &label, &mut res) {
            res.error = Some(e);
        }
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

/// A thread that ends when its stop flag is set (or on its own bound).
type Stoppable<T> = (Arc<AtomicBool>, JoinHandle<Result<T, String>>);

/// What the sender thread returns: its report and the tcp_info samples.
type SenderOutcome = Result<(SenderReport, Result<SamplerLog, String>), String>;

/// Threads of a running scenario, joined in a fixed order whatever happened.
#[derive(Default)]
struct Running {
    sink: Option<Stoppable<ReceiverLog>>,
    capture: Option<Stoppable<EcnReport>>,
    probe: Option<Stoppable<ProbeLog>>,
    qdisc_sampler: Option<Sampler>,
    sender: Option<JoinHandle<SenderOutcome>>,
}

fn measure(
    ctx: &Ctx<'_>,
    spec: &TopologySpec,
    arm_idx: usize,
    label: &str,
    res: &mut ScenarioResult,
) -> Result<(), String> {
    let cfg = ctx.cfg;
    let tl = cfg.timeline;
    let topo = Topology::build(spec).map_err(|e| format!("building the topology: {e}"))?;
    let readback = topo
        .readback()
        .map_err(|e| format!("reading the topology back: {e}"))?;
    res.topology = Some(TopologyResult {
        spec: spec.clone(),
        build_time_s: topo.build_time.as_secs_f64(),
        sysctls: topo.sysctls.clone(),
        readback,
    });

    // The bottleneck on R's egress toward B.
    let bottleneck = Bottleneck {
        tbf: cfg.tbf,
        arm: cfg.arms[arm_idx].clone(),
    };
    res.qdisc.dev = R_B_IF.to_string();
    let configured = netlab_qdisc::configure(&topo.r, R_B_IF, &bottleneck).map_err(|e| {
        format!(
            "configuring the bottleneck on {R_B_IF} in {}: {e}",
            topo.r.name()
        )
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
    let qsock = QdiscSocket::open_in(&topo.r).map_err(|e| format!("qdisc readback socket: {e}"))?;
    let after = qsock
        .readback(configured.ifindex, None, &configured.psched)
        .map_err(|e| format!("qdisc readback after configuration: {e}"))?;
    res.qdisc.after_config = after.records.clone();
    res.qdisc.after_config_dump = Some(ReadbackDump::of(&after));

    let b_tcp = SocketAddr::from((B_ADDR, cfg.tcp_port));
    let b_udp = SocketAddr::from((B_ADDR, cfg.udp_port));

    // Capture on B, opened before anything connects.
    let cap_cfg = CaptureConfig {
        max_frames: cfg.capture_frames,
        deadline: cfg.capture_deadline,
        ..CaptureConfig::default()
    };
    let capture = topo
        .b
        .run(|| Capture::open(B_IF, cap_cfg))
        .map_err(|e| format!("entering B for the capture: {e}"))?
        .map_err(|e| format!("opening the capture on {B_IF}: {e}"))?;

    // B's receiver: it sets t0. It is stopped right after the final readback.
    let sink_cfg = SinkConfig {
        duration: tl.end() + Duration::from_secs(2),
        ..SinkConfig::new(b_tcp, Some(b_udp))
    };
    let sink = topo
        .b
        .run(|| Sink::bind(sink_cfg))
        .map_err(|e| format!("entering B for the receiver: {e}"))?
        .map_err(|e| format!("binding the receiver in B: {e}"))?;
    let t0 = sink.t0();
    res.t0_utc = Some(netlab_receipts::format_rfc3339(std::time::SystemTime::now()));
    let live = Arc::new(Live::default());
    ctx.progress.reset();

    let mut running = Running::default();
    let outcome = drive(
        ctx,
        &topo,
        &configured,
        &qsock,
        sink,
        capture,
        t0,
        &live,
        label,
        res,
        &mut running,
    );
    let joined = join_all(running, t0, tl.end(), outcome.is_err(), res, cfg);
    drop(topo);
    match (outcome, joined) {
        (Err(e), _) => Err(e),
        (Ok(()), Err(e)) => Err(e),
        (Ok(()), Ok(())) => Ok(()),
    }
}

#[allow(clippy::too_many_arguments)]
fn drive(
    ctx: &Ctx<'_>,
    topo: &Topology,
    configured: &netlab_qdisc::Configured,
    qsock: &QdiscSocket,
    sink: Sink,
    capture: Capture,
    t0: Instant,
    live: &Arc<Live>,
    label: &str,
    res: &mut ScenarioResult,
    running: &mut Running,
) -> Result<(), String> {
    let cfg = ctx.cfg;
    let tl = cfg.timeline;
    let b_tcp = SocketAddr::from((B_ADDR, cfg.tcp_port));
    let b_udp = SocketAddr::from((B_ADDR, cfg.udp_port));
    let at = |d: Duration| t0 + d;

    // Receiver thread.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let h = std::thread::Builder::new()
        .name("b-receiver".into())
        .spawn(move || sink.run_with_stop(&flag).map_err(|e| e.to_string()))
        .map_err(|e| format!("spawning the receiver thread: {e}"))?;
    running.sink = Some((stop, h));

    // Capture thread (A's port is learnt from the SYN).
    let flow = Flow {
        a: SocketAddrV4::new(netlab_topology::spec::A_ADDR, 0),
        b: SocketAddrV4::new(B_ADDR, cfg.tcp_port),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let h = std::thread::Builder::new()
        .name("b-capture".into())
        .spawn(move || capture.run(flow, &flag, t0).map_err(|e| e.to_string()))
        .map_err(|e| format!("spawning the capture thread: {e}"))?;
    running.capture = Some((stop, h));

    // Qdisc sampler on R.
    let sampler_cfg = netlab_qdisc::SamplerConfig::new(
        cfg.sample_interval,
        t0,
        at(tl.end() + Duration::from_secs(1)),
    );
    running.qdisc_sampler = Some(
        Sampler::start(&topo.r, configured.ifindex, configured.psched, sampler_cfg)
            .map_err(|e| format!("starting the qdisc sampler: {e}"))?,
    );

    // Probe client in A.
    let probe_sock = topo
        .a
        .run(|| connect_socket(None, b_udp))
        .map_err(|e| format!("entering A for the probe: {e}"))?
        .map_err(|e| format!("probe socket: {e}"))?;
    let mut pcfg = ProbeConfig::with_end(tl.end());
    pcfg.spacing = cfg.probe_interval;
    pcfg.timeout = cfg.probe_timeout;
    pcfg.max_requests = cfg.probe_max;
    pcfg.phases.baseline_start = Duration::ZERO;
    pcfg.phases.baseline_end = tl.sender_start();
    pcfg.phases.loaded_start = tl.window_start();
    pcfg.phases.loaded_end = tl.end();
    pcfg.validate()
        .map_err(|e| format!("probe configuration: {e}"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let l = live.clone();
    let h = std::thread::Builder::new()
        .name("a-probe".into())
        .spawn(move || {
            run_probe(&probe_sock, t0, &pcfg, Some(&flag), |req| {
                match req.rtt_ms {
                    Some(ms) => l
                        .last_rtt_us
                        .store((ms * 1000.0).max(1.0) as u64, Ordering::Relaxed),
                    None => {
                        l.timeouts.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
            .map_err(|e| e.to_string())
        })
        .map_err(|e| format!("spawning the probe thread: {e}"))?;
    running.probe = Some((stop, h));

    let tick = |phase: &str| {
        let now = secs_since(t0, Instant::now());
        ctx.progress
            .tick(label, phase, now, tl.end().as_secs_f64(), live);
    };

    // Baseline: probe only.
    wait_until(at(tl.sender_start()), || tick("baseline"));

    // The sender, started at the baseline mark; its socket and the sock_diag
    // socket are made inside A.
    let sock = topo
        .a
        .run(|| new_sender_socket(&cfg.cc, b_tcp))
        .map_err(|e| format!("entering A for the sender: {e}"))?
        .map_err(|e| format!("sender socket: {e}"))?;
    let diag = topo
        .a
        .run(DiagSocket::open)
        .map_err(|e| format!("entering A for sock_diag: {e}"))?
        .map_err(|e| format!("sock_diag socket: {e}"))?;
    let scfg = SenderConfig {
        cc: cfg.cc.clone(),
        block_size: cfg.block_size,
        send_timeout: Duration::from_secs(1),
        lifetime: tl.sender_lifetime(),
        ..SenderConfig::new(b_tcp)
    };
    let tcfg = TcpSamplerConfig {
        interval: cfg.sample_interval,
        max_duration: tl.sender_lifetime() + Duration::from_secs(1),
    };
    let (flow_tx, flow_rx) = mpsc::channel::<FlowId>();
    let l = live.clone();
    let h = std::thread::Builder::new()
        .name("a-sender".into())
        .spawn(move || {
            let tx = Sender::connect(sock, scfg, t0).map_err(|e| format!("sender: {e}"))?;
            let _ = flow_tx.send(tx.flow());
            // Each sample also feeds the live goodput of the progress display.
            let sampler = TcpSampler::spawn_with(diag, tx.flow(), t0, tcfg, move |s| {
                if let Some(info) = &s.record.info {
                    l.bytes_acked.store(info.bytes_acked, Ordering::Relaxed);
                    l.acked_at_us
                        .store((s.end_s * 1e6) as u64, Ordering::Relaxed);
                }
            });
            let report = tx.run();
            let log = match sampler {
                Ok(s) => s.stop().map_err(|e| e.to_string()),
                Err(e) => Err(format!("starting the tcp_info sampler: {e}")),
            };
            Ok((report, log))
        })
        .map_err(|e| format!("spawning the sender thread: {e}"))?;
    running.sender = Some(h);
    let flow = flow_rx.recv_timeout(tl.sender_lifetime()).ok();

    // Load: warm-up, then the measured window.
    wait_until(at(tl.window_start()), || tick("warm-up"));
    wait_until(at(tl.end()), || tick("loaded"));

    // End of the measured window: final readback before any socket closes.
    let taken = Instant::now();
    match qsock.readback(
        configured.ifindex,
        Some(secs_since(t0, taken)),
        &configured.psched,
    ) {
        Ok(rb) => {
            res.qdisc.at_window_end = rb.records.clone();
            res.qdisc.final_dump = Some(ReadbackDump::of(&rb));
            res.qdisc.final_taken_s = Some(secs_since(t0, taken));
        }
        Err(e) => return Err(format!("final qdisc readback: {e}")),
    }
    if flow.is_none() {
        return Err("the sender never connected".into());
    }
    Ok(())
}

fn join_err<T>(what: &str, r: std::thread::Result<Result<T, String>>) -> Result<T, String> {
    match r {
        Ok(v) => v.map_err(|e| format!("{what}: {e}")),
        Err(_) => Err(format!("{what}: thread panicked")),
    }
}

/// Stops and joins every thread in a fixed order and fills the results.
fn join_all(
    running: Running,
    t0: Instant,
    end: Duration,
    failed: bool,
    res: &mut ScenarioResult,
    cfg: &CompareConfig,
) -> Result<(), String> {
    let mut errors: Vec<String> = Vec::new();
    // The receiver closes now (the common end).
    let receiver = running.sink.map(|(stop, h)| {
        stop.store(true, Ordering::SeqCst);
        join_err("receiver", h.join())
    });
    // The probe ends on its own schedule (no new request in the last second).
    let probe = running.probe.map(|(stop, h)| {
        // Bound: if it is still running 2 s after the end, stop it; a
        // failed scenario stops it at once.
        let hard = t0 + end + cfg.probe_timeout + Duration::from_secs(2);
        while !failed && !h.is_finished() && Instant::now() < hard {
            std::thread::sleep(Duration::from_millis(20));
        }
        stop.store(true, Ordering::SeqCst);
        join_err("probe", h.join())
    });
    let sender = running.sender.map(|h| join_err("sender thread", h.join()));
    // Let the capture see the close, then stop it.
    std::thread::sleep(Duration::from_millis(200));
    let ecn = running.capture.map(|(stop, h)| {
        stop.store(true, Ordering::SeqCst);
        join_err("capture", h.join())
    });
    let qsamples: Option<Result<SampleSeries, String>> = running
        .qdisc_sampler
        .map(|s| s.stop().map_err(|e| format!("qdisc sampler: {e}")));

    let window = GoodputWindow {
        start: cfg.timeline.window_start(),
        end: cfg.timeline.end(),
    };
    match (receiver, sender) {
        (Some(Ok(rx)), Some(Ok((tx, tcp_log)))) => {
            let g = goodput(&rx.recvs, window);
            let series = delivered_series(&rx.recvs, SERIES_BIN, cfg.timeline.end());
            match tcp_log {
                Ok(log) => {
                    res.tcp_info = log.samples.iter().map(TcpInfoSample::from).collect();
                    res.tcp_info_sampler = Some(TcpInfoSamplerResult {
                        flow: log.flow,
                        interval_s: log.interval_s,
                        not_found_s: log.not_found_s,
                        errors: log.errors,
                        end: log.end,
                    });
                }
                Err(e) => errors.push(format!("tcp_info sampler: {e}")),
            }
            if rx.validation.failures > 0 {
                errors.push(format!(
                    "receiver: {} bytes failed pattern validation (first bad offset {:?})",
                    rx.validation.failures, rx.validation.first_bad_offset
                ));
            }
            res.tcp = Some(TcpResult {
                cc_requested: tx.cc_requested.clone(),
                cc_readback: tx.cc_readback.clone(),
                start_s: tx.start_s,
                connect_s: tx.connect_s,
                goodput_mbps: g.mbit_per_s,
                window_s: [g.window_start_s, g.window_end_s],
                receiver: ReceiverSummary {
                    bytes_in_window: g.bytes,
                    bytes_total: rx.bytes_total,
                    validation_failures: rx.validation.failures,
                    first_bad_offset: rx.validation.first_bad_offset,
                    closed_s: rx.closed_s,
                },
                sender: SenderSummary {
                    accepted_bytes: tx.bytes_accepted,
                    termination: tx.termination.clone(),
                    end_s: tx.end_s,
                },
                series: series.bytes.clone(),
                series_bin_s: series.bin_s,
                receiver_log: rx,
            });
        }
        (rx, tx) => {
            if let Some(Err(e)) = rx {
                errors.push(e);
            }
            if let Some(Err(e)) = tx {
                errors.push(e);
            }
        }
    }
    match probe {
        Some(Ok(log)) => {
            let stats = log.phase_stats();
            let pick = |p: Phase| stats.iter().find(|s| s.phase == p).cloned();
            res.probe = Some(ProbeResult {
                requests: log.requests.clone(),
                stale_replies: log.stale_replies,
                malformed_replies: log.malformed_replies,
                recv_errors: log.recv_errors,
                phases: ProbePhases {
                    baseline: pick(Phase::Baseline),
                    loaded: pick(Phase::Loaded),
                    other: stats
                        .iter()
                        .filter(|s| !matches!(s.phase, Phase::Baseline | Phase::Loaded))
                        .cloned()
                        .collect(),
                },
                config: log.config.clone(),
            });
        }
        Some(Err(e)) => errors.push(e),
        None => {}
    }
    match ecn {
        Some(Ok(report)) => res.ecn = Some(EcnResult::from(report)),
        Some(Err(e)) => errors.push(e),
        None => {}
    }
    match qsamples {
        Some(Ok(series)) => {
            res.qdisc.samples = series.samples.iter().map(QdiscSample::of).collect();
            if !series.failures.is_empty() {
                errors.push(format!(
                    "qdisc sampler: {} failed readbacks",
                    series.failures.len()
                ));
            }
        }
        Some(Err(e)) => errors.push(e),
        None => {}
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}
