//! The end of a scenario: every worker stopped and joined in a fixed order,
//! whatever happened, and its output put into the typed result.

use std::time::{Duration, Instant};

use netlab_ecn::pcap::PcapFileRecord;
use netlab_ecn::{EcnError, EcnEvidence};
use netlab_probe::{EchoStats, IsoLog, Phase, ProbeLog};
use netlab_qdisc::Sampler;
use netlab_results::{
    directions_of, EcnResult, IsoProbeResult, ProbePhases, ProbeResult, QdiscSample,
    ReceiverSummary, ScenarioResult, SenderSummary, TcpInfoSamplerResult, TcpResult,
};
use netlab_tcpload::sink::ReceiverLog;
use netlab_tcpload::{delivered_series, goodput, FlowId, GoodputWindow, SamplerLog, SenderLog};

use netlab_results::fate::{drop_intervals, DropBudget, EchoArrivals, FateInput, ProbeFates};

use super::error::ScenarioError;
use super::worker::{Ready, Worker};
use crate::b_loop::BLoopOutput;
use crate::hooks::{SenderOutput, WorkerLogs};
use crate::setup::{ScenarioSetup, SERIES_BIN};

/// What the capture worker returns: its report and its headers file's record.
pub type CaptureOutput = (EcnEvidence, Option<PcapFileRecord>);

/// What a flow's receiver worker returns.
pub type ReceiverOutput = ReceiverLog<EchoStats>;

/// A receiver worker.
type ReceiverWorker = Worker<Result<ReceiverOutput, String>>;

/// The workers of a running scenario (each `None` until started).
#[derive(Default)]
pub struct Workers {
    /// B's first receiver (sets t0, carries the UDP echoes and their
    /// receive logs).
    pub clock_receiver: Option<Worker<Result<BLoopOutput, String>>>,
    /// Each flow's receiver, in flow order.
    pub receivers: Vec<Option<ReceiverWorker>>,
    /// B's ECN capture, with its headers file's record when it wrote one.
    pub capture: Option<Worker<Result<CaptureOutput, EcnError>>>,
    /// The headers file that could not be created (the capture ran without it).
    pub headers_not_created: Option<PcapFileRecord>,
    /// A's probe client.
    pub probe: Option<Worker<Result<ProbeLog, String>>>,
    /// A's isochronous probe client.
    pub iso_probe: Option<Worker<Result<IsoLog, String>>>,
    /// R's qdisc samplers (the qdisc crate's own threads), by egress slot.
    pub qdisc_samplers: Vec<(usize, Sampler)>,
    /// Each flow's sender with its tcp_info sampler, once released.
    pub senders: Vec<Option<Worker<Result<SenderOutput, String>>>>,
    /// Each flow's sender made ready before t0, until its mark releases
    /// it; one still here at the end is dropped, which ends its thread.
    pub(crate) ready_senders: Vec<Option<ReadySender>>,
}

/// A flow's sender made ready before t0, waiting for its mark.
pub(crate) struct ReadySender {
    /// The flow it sends.
    pub(crate) flow: FlowId,
    /// Its worker, parked until the mark.
    pub(crate) worker: Ready<SenderOutput>,
}

impl Workers {
    /// Room for `flows` flows.
    pub fn new(flows: usize) -> Workers {
        Workers {
            receivers: (0..flows).map(|_| None).collect(),
            senders: (0..flows).map(|_| None).collect(),
            ..Workers::default()
        }
    }

    /// Stops and joins every worker in a fixed order and fills `res`.
    /// `stop_probes`: the timeline did not complete, or a hook ended it
    /// early, so the probes are stopped at once instead of being let
    /// finish their schedule. `joined` is told when the last worker was
    /// joined, before the outputs are filled in. The senders' own logs go
    /// to `measured`.
    pub fn finish(
        self,
        plan: &ScenarioSetup,
        t0: Instant,
        stop_probes: bool,
        joined: impl FnOnce(),
        res: &mut ScenarioResult,
        measured: &mut WorkerLogs,
    ) -> Result<(), ScenarioError> {
        let outputs = self.join(plan, t0, stop_probes);
        joined();
        let errors = outputs.fill(plan, res, measured);
        ScenarioError::from_all(errors).map_or(Ok(()), Err)
    }

    /// The fixed order: the receivers close (the common end), the probes
    /// end on their own schedule or are stopped, the senders are joined,
    /// the capture drains once its flow's close has passed `b0`, the qdisc
    /// samplers stop. Whatever can stop at once is told to together, and
    /// nothing waits for a fixed time (method §3.5).
    fn join(self, plan: &ScenarioSetup, t0: Instant, stop_probes: bool) -> Joined {
        // Senders never released (the scenario ended before their mark)
        // end now, having connected nothing.
        drop(self.ready_senders);
        // Every receiver and B's loop stop together.
        for w in self.receivers.iter().flatten() {
            w.stop();
        }
        if let Some(w) = &self.clock_receiver {
            w.stop();
        }
        let receivers: Vec<_> = self
            .receivers
            .into_iter()
            .map(|w| w.map(Worker::join))
            .collect();
        // A receiver's close sends its FIN or RST from `close()` itself, so
        // once the captured flow's own receiver is joined its close is
        // queued on the capture's socket: the capture drains and ends
        // while the rest are joined. (A flow received by the caller has
        // closed once its sender has ended, below.)
        let capture_flow = plan.capture_flow.map(|(i, _)| i);
        let closed_by_us =
            capture_flow.is_some_and(|i| plan.flows.get(i).is_some_and(|f| f.receiver.is_some()));
        if closed_by_us {
            if let Some(w) = &self.capture {
                w.stop();
            }
        }
        let clock = self.clock_receiver.map(Worker::join);
        // The probe ends on its own schedule (no new request in the last
        // second); past its hard stop, or at once after a failure, it is stopped.
        let probe = self.probe.map(|w| {
            let hard = t0 + plan.probe.as_ref().map_or(Duration::ZERO, |p| p.hard_stop);
            wait_for(&w, stop_probes, hard);
            w.stop_and_join()
        });
        // The isochronous probe likewise (its last slot is due a timeout
        // before the end); it is waited for after the stop-and-wait one, so
        // its bound runs concurrently.
        let iso_probe = self.iso_probe.map(|w| {
            let hard = t0
                + plan
                    .iso_probe
                    .as_ref()
                    .map_or(Duration::ZERO, |p| p.hard_stop);
            wait_for(&w, stop_probes, hard);
            w.stop_and_join()
        });
        let senders = self
            .senders
            .into_iter()
            .map(|w| w.map(Worker::join))
            .collect();
        let ecn = self.capture.map(Worker::stop_and_join);
        let qsamples = self
            .qdisc_samplers
            .into_iter()
            .map(|(slot, s)| {
                (
                    slot,
                    s.stop().map_err(|source| ScenarioError::Qdisc {
                        step: "qdisc sampler",
                        source: Box::new(source),
                    }),
                )
            })
            .collect();
        Joined {
            clock,
            receivers,
            probe,
            iso_probe,
            senders,
            ecn,
            headers_not_created: self.headers_not_created,
            qsamples,
        }
    }
}

/// Waits, 20 ms at a time, until `w` ended by itself or `hard` passed
/// (not at all when `stop_now`).
fn wait_for<T, E: std::fmt::Display>(w: &Worker<Result<T, E>>, stop_now: bool, hard: Instant) {
    while !stop_now && !w.is_finished() && Instant::now() < hard {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every worker's output, joined.
struct Joined {
    clock: Option<Result<BLoopOutput, ScenarioError>>,
    receivers: Vec<Option<Result<ReceiverLog<EchoStats>, ScenarioError>>>,
    probe: Option<Result<ProbeLog, ScenarioError>>,
    iso_probe: Option<Result<IsoLog, ScenarioError>>,
    senders: Vec<Option<Result<SenderOutput, ScenarioError>>>,
    ecn: Option<Result<CaptureOutput, ScenarioError>>,
    headers_not_created: Option<PcapFileRecord>,
    qsamples: Vec<(
        usize,
        Result<netlab_qdisc_model::SampleSeries, ScenarioError>,
    )>,
}

impl Joined {
    /// Puts every output into `res` (the senders' own logs into
    /// `measured`); returns the errors, in the order of the fields.
    fn fill(
        self,
        plan: &ScenarioSetup,
        res: &mut ScenarioResult,
        measured: &mut WorkerLogs,
    ) -> Vec<ScenarioError> {
        measured.senders = (0..self.senders.len()).map(|_| None).collect();
        let mut errors: Vec<ScenarioError> = Vec::new();
        let mut iso_echo = (None, None);
        let (mut echo_arrivals, mut iso_arrivals) = (None, None);
        match self.clock {
            Some(Ok(out)) => {
                let rx = out.receiver;
                res.echo = rx.echo;
                iso_echo = (rx.iso_echo, rx.iso_echo_error.clone());
                (echo_arrivals, iso_arrivals) = (out.echo_arrivals, out.iso_arrivals);
                measured.clock_receiver = Some(rx);
            }
            Some(Err(e)) => errors.push(e),
            None => {}
        }
        let flows = self.receivers.into_iter().zip(self.senders);
        for (i, (rx, tx)) in flows.enumerate() {
            if let Some(e) = fill_flow(plan, i, rx, tx, res, measured) {
                errors.push(e);
            }
        }
        match self.probe {
            Some(Ok(log)) => res.probes.push(probe_result(log)),
            Some(Err(e)) => errors.push(e),
            None => {}
        }
        match self.iso_probe {
            Some(Ok(log)) => {
                res.iso_probe = Some(IsoProbeResult::of(log, iso_echo.0, iso_echo.1));
            }
            Some(Err(e)) => errors.push(e),
            None => {}
        }
        res.ecn_flow = plan.capture_flow.map(|(i, _)| i);
        match self.ecn {
            Some(Ok((report, headers))) => {
                let mut ecn = EcnResult::from(report);
                ecn.headers_pcap = headers.or(self.headers_not_created);
                res.ecn = Some(ecn);
            }
            Some(Err(e)) => errors.push(e),
            None => {}
        }
        for (slot, series) in self.qsamples {
            match series {
                Ok(series) => {
                    res.qdiscs[slot].samples = series.samples.iter().map(QdiscSample::of).collect();
                    if !series.failures.is_empty() {
                        errors.push(ScenarioError::QdiscSamples(series.failures.len()));
                    }
                }
                Err(e) => errors.push(e),
            }
        }
        add_fates(res, echo_arrivals, iso_arrivals);
        res.directions = directions_of(&res.flows, |dir| {
            plan.egresses
                .iter()
                .find(|e| e.direction.as_str() == dir)
                .and_then(|e| e.bottleneck.as_ref())
                .map(|(tbf, _)| tbf.rate.bits_per_sec() as f64 / 1e6)
        });
        errors
    }
}

/// B's receive logs beside each probe's requests, and every request's
/// fate (method §5.8): the requests go A→B through R's `up` egress, whose
/// arm's samples the losses are matched against.
fn add_fates(
    res: &mut ScenarioResult,
    echo_arrivals: Option<EchoArrivals>,
    iso_arrivals: Option<EchoArrivals>,
) {
    let mut drops = res
        .qdisc_of("up")
        .filter(|q| !q.samples.is_empty())
        .map(|q| DropBudget::new(drop_intervals(&q.samples, netlab_qdisc_model::ARM_HANDLE)));
    // One drop explains at most one request of either probe: the
    // stop-and-wait probe is matched first.
    if let (Some(p), Some(a)) = (res.probes.first_mut(), echo_arrivals) {
        let inputs: Vec<FateInput> = p.requests.iter().map(FateInput::of_probe).collect();
        p.fates = Some(ProbeFates::build(
            &inputs,
            &a,
            p.config.timeout,
            drops.as_mut(),
        ));
        p.echo_arrivals = Some(a);
    }
    if let (Some(p), Some(a)) = (res.iso_probe.as_mut(), iso_arrivals) {
        let inputs: Vec<FateInput> = p.log.requests.iter().map(FateInput::of_iso).collect();
        p.fates = Some(ProbeFates::build(
            &inputs,
            &a,
            p.log.config.timeout,
            drops.as_mut(),
        ));
        p.echo_arrivals = Some(a);
    }
}

/// Flow `i`'s receiver and sender outputs into its result (the sender's
/// own log into `measured`); its error, named by the flow when the
/// scenario has several.
fn fill_flow(
    plan: &ScenarioSetup,
    i: usize,
    rx: Option<Result<ReceiverLog<EchoStats>, ScenarioError>>,
    tx: Option<Result<SenderOutput, ScenarioError>>,
    res: &mut ScenarioResult,
    measured: &mut WorkerLogs,
) -> Option<ScenarioError> {
    let flow = &mut res.flows[i];
    // Every receiver is timed from t0 itself (`Sink::starting_at`).
    flow.receiver_t0_offset_s = 0.0;
    let mut flow_errors = Vec::new();
    match (rx, tx) {
        (Some(Ok(rx)), Some(Ok((tx, tcp_log)))) => {
            tcp_info_of(flow, &tcp_log, &mut flow_errors);
            if rx.validation.failures > 0 {
                flow_errors.push(ScenarioError::Validation {
                    failures: rx.validation.failures,
                    first_bad_offset: rx.validation.first_bad_offset,
                });
            }
            flow.tcp = Some(tcp_result(plan, rx, &tx));
            measured.senders[i] = Some((tx, tcp_log));
        }
        (rx, tx) => {
            if let Some(Err(e)) = rx {
                flow_errors.push(e);
            }
            match tx {
                Some(Err(e)) => flow_errors.push(e),
                Some(Ok(out)) => {
                    // A flow whose receiver is the caller's keeps its
                    // tcp_info; one whose receiver failed, as before.
                    if plan.flows[i].receiver.is_none() {
                        tcp_info_of(flow, &out.1, &mut flow_errors);
                    }
                    measured.senders[i] = Some(out);
                }
                None => {}
            }
        }
    }
    let e = ScenarioError::from_all(flow_errors)?;
    flow.error = Some(e.to_string());
    Some(if plan.flows.len() > 1 {
        ScenarioError::Flow {
            index: i,
            source: Box::new(e),
        }
    } else {
        e
    })
}

/// A flow's tcp_info samples and its sampler's record, or the sampler's
/// failure.
fn tcp_info_of(
    flow: &mut netlab_results::FlowResult,
    tcp_log: &Result<SamplerLog, String>,
    errors: &mut Vec<ScenarioError>,
) {
    match tcp_log {
        Ok(log) => {
            flow.tcp_info = log.samples.clone();
            flow.tcp_info_sampler = Some(TcpInfoSamplerResult {
                flow: log.flow,
                interval_s: log.interval_s,
                not_found_s: log.not_found_s.clone(),
                errors: log.errors.clone(),
                end: log.end,
            });
        }
        Err(e) => errors.push(ScenarioError::TcpInfoSampler(e.clone())),
    }
}

/// Goodput over the measured window, the delivered series and both sides'
/// figures (the receiver's clock is t0).
fn tcp_result(plan: &ScenarioSetup, rx: ReceiverLog<EchoStats>, tx: &SenderLog) -> TcpResult {
    let (start, end) = (plan.timeline.window_start(), plan.timeline.end());
    let window = GoodputWindow { start, end };
    let g = goodput(&rx.recvs, window);
    let series = delivered_series(&rx.recvs, SERIES_BIN, end);
    TcpResult {
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
        series: series.bytes,
        series_bin_s: series.bin_s,
        receiver_log: rx,
    }
}

/// Every request and the per-phase statistics.
fn probe_result(log: ProbeLog) -> ProbeResult {
    let stats = log.phase_stats();
    let pick = |p: Phase| stats.iter().find(|s| s.phase == p).cloned();
    ProbeResult {
        kind: "stop-and-wait".into(),
        phases: ProbePhases {
            baseline: pick(Phase::Baseline),
            loaded: pick(Phase::Loaded),
            other: stats
                .iter()
                .filter(|s| !matches!(s.phase, Phase::Baseline | Phase::Loaded))
                .cloned()
                .collect(),
        },
        requests: log.requests,
        stale_replies: log.stale_replies,
        malformed_replies: log.malformed_replies,
        recv_errors: log.recv_errors,
        config: log.config,
        echo_arrivals: None,
        fates: None,
    }
}
