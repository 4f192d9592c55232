//! The end of a scenario: every worker stopped and joined in a fixed order,
//! whatever happened, and its output put into the typed result.

use std::time::{Duration, Instant};

use netlab_ecn::{EcnError, EcnReport};
use netlab_probe::{Phase, ProbeError, ProbeLog};
use netlab_qdisc::Sampler;
use netlab_tcpload::sink::ReceiverLog;
use netlab_tcpload::{
    delivered_series, goodput, GoodputWindow, SamplerLog, SenderReport, TcpLoadError,
};

use super::error::ScenarioError;
use super::plan::{ScenarioPlan, SERIES_BIN};
use super::worker::Worker;
use crate::results::{
    EcnResult, ProbePhases, ProbeResult, QdiscSample, ReceiverSummary, ScenarioResult,
    SenderSummary, TcpInfoSample, TcpInfoSamplerResult, TcpResult,
};

/// What the sender worker returns: its report and its tcp_info samples.
pub type SenderOutput = (SenderReport, Result<SamplerLog, String>);

/// The workers of a running scenario (each `None` until started).
#[derive(Default)]
pub struct Workers {
    /// B's receiver (TCP sink and UDP echo).
    pub receiver: Option<Worker<Result<ReceiverLog, TcpLoadError>>>,
    /// B's ECN capture.
    pub capture: Option<Worker<Result<EcnReport, EcnError>>>,
    /// A's probe client.
    pub probe: Option<Worker<Result<ProbeLog, ProbeError>>>,
    /// R's qdisc sampler (the qdisc crate's own thread).
    pub qdisc_sampler: Option<Sampler>,
    /// A's sender with its tcp_info sampler.
    pub sender: Option<Worker<Result<SenderOutput, String>>>,
}

impl Workers {
    /// Stops and joins every worker in a fixed order and fills `res`.
    /// `failed`: the timeline did not complete, so the probe is stopped at
    /// once instead of being let finish its schedule.
    pub fn finish(
        self,
        plan: &ScenarioPlan,
        t0: Instant,
        failed: bool,
        res: &mut ScenarioResult,
    ) -> Result<(), ScenarioError> {
        let mut errors: Vec<ScenarioError> = Vec::new();
        // The receiver closes now (the common end).
        let receiver = self.receiver.map(Worker::stop_and_join);
        // The probe ends on its own schedule (no new request in the last
        // second); past its hard stop, or at once after a failure, it is stopped.
        let probe = self.probe.map(|w| {
            let hard = t0 + plan.probe.hard_stop;
            while !failed && !w.is_finished() && Instant::now() < hard {
                std::thread::sleep(Duration::from_millis(20));
            }
            w.stop_and_join()
        });
        let sender = self.sender.map(Worker::join);
        // Let the capture see the close, then stop it.
        std::thread::sleep(Duration::from_millis(200));
        let ecn = self.capture.map(Worker::stop_and_join);
        let qsamples = self.qdisc_sampler.map(|s| {
            s.stop().map_err(|source| ScenarioError::Qdisc {
                step: "qdisc sampler",
                source: Box::new(source),
            })
        });

        match (receiver, sender) {
            (Some(Ok(rx)), Some(Ok((tx, tcp_log)))) => {
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
                    Err(e) => errors.push(ScenarioError::TcpInfoSampler(e)),
                }
                if rx.validation.failures > 0 {
                    errors.push(ScenarioError::Validation {
                        failures: rx.validation.failures,
                        first_bad_offset: rx.validation.first_bad_offset,
                    });
                }
                res.tcp = Some(tcp_result(plan, rx, &tx));
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
            Some(Ok(log)) => res.probe = Some(probe_result(log)),
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
                    errors.push(ScenarioError::QdiscSamples(series.failures.len()));
                }
            }
            Some(Err(e)) => errors.push(e),
            None => {}
        }
        ScenarioError::from_all(errors).map_or(Ok(()), Err)
    }
}

/// Goodput over the measured window, the delivered series and both sides' figures.
fn tcp_result(plan: &ScenarioPlan, rx: ReceiverLog, tx: &SenderReport) -> TcpResult {
    let window = GoodputWindow {
        start: plan.timeline.window_start(),
        end: plan.timeline.end(),
    };
    let g = goodput(&rx.recvs, window);
    let series = delivered_series(&rx.recvs, SERIES_BIN, plan.timeline.end());
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
    }
}
