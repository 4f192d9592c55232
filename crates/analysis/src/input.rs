//! The report's input, built from netlab-results' typed [`Results`] field
//! by field (a renamed field fails to compile), one scenario at a time
//! ([`ReportBuilder`]): each scenario is reduced to the samples the report
//! draws and tests and to its summary figures, so a run's raw scenarios
//! never need to be in memory together. The report's caveats come from the
//! same figures, so every reading has them.
//!
//! Values the report cannot draw honestly are refused with the field named:
//! a non-positive probe timeout or goodput bin width, a reply without a
//! finite, non-negative RTT.

use netlab_ecn::pcap::PcapContent;
use netlab_experiment::{Experiment, ExperimentFile};
use netlab_probe::{IsoOutcome, Phase, RequestOutcome};
use netlab_results::{IsoProbeResult, ProbeResult, Results, ScenarioResult};

use crate::arms::ArmLabels;
use crate::queue_counts::{final_counters, qdisc_samples};
use crate::records::{
    DirectionFigures, FlowRecord, FlowSeries, IsoProbe, IsoSample, KernelText, Logged, PacketFile,
    Phases, PointText, ProbeOutcome, ProbePhase, ProbeSample, Scenario, SenderSample,
};
use crate::summary::ScenarioFigures;
use crate::InputError;

/// The report's input of a whole run read into memory, with its caveats.
pub fn input_from(results: &Results) -> Result<ReportInput, InputError> {
    let mut input = ReportBuilder::new(&results.experiment);
    for s in &results.scenarios {
        input.push(s);
    }
    input.finish(results)
}

/// Everything a report is computed from.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportInput {
    /// The results.json schema version this came from.
    pub schema_version: u32,
    /// Tool and version that wrote the results (`netlab 0.1.0`).
    pub tool: String,
    /// Run id.
    pub run_id: String,
    /// Start and end of the run, UTC (RFC 3339).
    pub started_utc: String,
    /// End of the run, UTC.
    pub finished_utc: String,
    /// The kernel that ran the experiment.
    pub kernel: KernelText,
    /// The configuration as `key = value` lines, in the file's order.
    pub config: Vec<(String, String)>,
    /// Bottleneck rate, bit/s, when known.
    pub bottleneck_bps: Option<u64>,
    /// Scenarios in execution order.
    pub scenarios: Vec<Scenario>,
    /// Notes that qualify the figures.
    pub notes: Vec<String>,
    /// Caveats printed beside the comparison between arms: scenarios that
    /// ran on different kernels or CPU models, plan indices missing from a
    /// partial merge (method §11.9). Empty for a run on one machine.
    pub caveats: Vec<String>,
    /// The part of the run these scenarios are, when not all of it (a
    /// sweep's point: `point 3 (rate=20mbit flows=1)`): the figures drawn
    /// from it say so in their titles.
    pub scope: Option<String>,
    /// Models the experiment asks to be drawn beside the measurement
    /// (`[report] models`; docs/models.md).
    pub models: Vec<netlab_experiment::ModelKind>,
    /// Each scenario's summary figures, in execution order: what
    /// summary.md says below its table, and index.html says too, is
    /// rendered from them.
    pub figures: Vec<ScenarioFigures>,
    /// What the run cost beside its timelines, added up step by step
    /// (docs/method.md §3.5; no steps in files before schema 4).
    pub steps: netlab_results::StepSums,
}

/// A run's scenarios digested one at a time, in execution order: each
/// reduced to the samples the report draws (probe outcomes,
/// delivered-bytes series, tcp_info and backlog samples, final counters)
/// and to its summary figures ([`ScenarioFigures`]: summary.md's table,
/// sections and notes, and the caveats the report prints beside the
/// comparison), never its whole raw data. So a run's raw scenarios never
/// need to be in memory together.
///
/// A value the report cannot draw keeps the first error (the field named),
/// which [`finish`](ReportBuilder::finish) returns; the summary figures
/// are kept regardless, so summary.md can still be written.
#[derive(Debug)]
pub struct ReportBuilder {
    /// Every scenario's summary figures, in execution order.
    figures: Vec<ScenarioFigures>,
    /// The label each arm of the run is shown and grouped by.
    labels: ArmLabels,
    /// The report's samples so far, or the first value it cannot draw.
    samples: Result<Samples, InputError>,
    /// The scenarios' steps, added up so far (method §3.5).
    steps: netlab_results::StepSums,
}

/// The report's scenarios and what a scenario without a probe falls back on.
#[derive(Debug)]
struct Samples {
    scenarios: Vec<Scenario>,
    /// Phases of a scenario whose probe never ran: the configured timeline.
    configured: Phases,
    /// The configured probe timeout, s.
    timeout_s: f64,
    /// The configured base RTT, s (a sweep's point may set another).
    base_rtt_s: f64,
    /// The upload's rate follows a recorded trace (method §15.2).
    trace: bool,
}

impl ReportBuilder {
    /// The digest of a run of `experiment`, with no scenario yet (an
    /// experiment that does not resolve is the report's error; the summary
    /// figures are still collected).
    pub fn new(experiment: &ExperimentFile) -> ReportBuilder {
        ReportBuilder {
            steps: netlab_results::StepSums::default(),
            figures: Vec::new(),
            labels: ArmLabels::of_experiment(experiment),
            samples: resolve(experiment).map(|exp| Samples {
                scenarios: Vec::new(),
                configured: timeline_phases(&exp),
                timeout_s: exp.probes.first().map_or(1.0, |p| p.timeout.as_secs_f64()),
                base_rtt_s: exp.path.base_rtt.as_secs_f64(),
                trace: exp
                    .path
                    .up_schedule
                    .as_ref()
                    .is_some_and(|s| s.trace.is_some()),
            }),
        }
    }

    /// Adds the next scenario, in execution order.
    pub fn push(&mut self, s: &ScenarioResult) {
        let label = self.labels.label(&s.arm, &s.arm_words);
        self.steps.add(s);
        self.figures
            .push(ScenarioFigures::of(s).labelled(label.clone()));
        if let Ok(samples) = &mut self.samples {
            let i = samples.scenarios.len();
            match scenario_from(
                s,
                i,
                samples.configured,
                samples.timeout_s,
                samples.base_rtt_s,
            ) {
                Ok(scenario) => {
                    if let Some(f) = self.figures.last_mut() {
                        f.link = crate::link::LinkFigures::of(&scenario, samples.trace);
                    }
                    samples.scenarios.push(Scenario {
                        arm: label,
                        ..scenario
                    })
                }
                Err(e) => self.samples = Err(e),
            }
        }
    }

    /// Every scenario's summary figures so far.
    pub fn figures(&self) -> &[ScenarioFigures] {
        &self.figures
    }

    /// The input for the run `header` describes (its own `scenarios` are
    /// not read), with the caveats [`ScenarioFigures::caveats`](crate::summary::ScenarioFigures::caveats) finds.
    pub fn finish(self, header: &Results) -> Result<ReportInput, InputError> {
        self.finish_with_figures(header).1
    }

    /// The summary figures and the report's input ([`finish`](Self::finish)).
    pub fn finish_with_figures(
        self,
        header: &Results,
    ) -> (Vec<ScenarioFigures>, Result<ReportInput, InputError>) {
        let input = self.samples.and_then(|samples| {
            let mut input = header_input(header)?;
            input.steps.scenarios = self.steps.scenarios;
            input.steps.counted = self.steps.counted;
            input.scenarios = samples.scenarios;
            input.caveats = crate::summary::ScenarioFigures::caveats(header, &self.figures);
            input.figures = self.figures.clone();
            Ok(input)
        });
        (self.figures, input)
    }
}

fn field(path: &str, message: &str) -> InputError {
    InputError {
        path: path.into(),
        message: message.into(),
    }
}

/// The experiment as run, resolved from its file form.
fn resolve(f: &ExperimentFile) -> Result<Experiment, InputError> {
    Experiment::from_file(f).map_err(|e| field("experiment", &e.to_string()))
}

/// The configured timeline as phases (those of a scenario whose probe
/// never ran).
fn timeline_phases(exp: &Experiment) -> Phases {
    let tl = &exp.timeline;
    let (baseline, warmup, measure) = (
        tl.baseline.as_secs_f64(),
        tl.warmup.as_secs_f64(),
        tl.measure.as_secs_f64(),
    );
    Phases {
        baseline: [0.0, baseline],
        loaded: [baseline + warmup, baseline + warmup + measure],
        end_s: baseline + warmup + measure,
    }
}

/// The report's input without its scenarios.
fn header_input(results: &Results) -> Result<ReportInput, InputError> {
    let exp = resolve(&results.experiment)?;
    Ok(ReportInput {
        schema_version: results.schema_version,
        tool: format!("{} {}", results.tool.name, results.tool.version),
        run_id: results.run_id.clone(),
        started_utc: results.started_utc.clone(),
        finished_utc: results.finished_utc.clone(),
        kernel: KernelText {
            mode: results.kernel.mode.clone(),
            release: results.kernel.release.clone(),
            chosen_because: results.kernel.chosen_because.clone(),
            described: results.kernel.describe(),
        },
        config: {
            let mut c = config_lines(&exp);
            c.push((
                "netlab".into(),
                format!(
                    "{} {} (results.json records no build commit)",
                    results.tool.name, results.tool.version
                ),
            ));
            c.push((
                "experiment hash".into(),
                results
                    .experiment_hash
                    .clone()
                    .unwrap_or_else(|| "not recorded (results written before it)".into()),
            ));
            c
        },
        bottleneck_bps: exp.path.up.map(|t| t.rate.bits_per_sec()),
        scenarios: Vec::new(),
        notes: results.notes.clone(),
        caveats: Vec::new(),
        scope: None,
        models: exp.models.clone(),
        figures: Vec::new(),
        steps: netlab_results::StepSums::of_header(results),
    })
}

/// The configuration block of the page: `key = value` lines told from the
/// experiment as run.
fn config_lines(exp: &Experiment) -> Vec<(String, String)> {
    let tl = &exp.timeline;
    let (baseline, warmup, measure) = (
        tl.baseline.as_secs_f64(),
        tl.warmup.as_secs_f64(),
        tl.measure.as_secs_f64(),
    );
    let joined = |items: Vec<String>, sep: &str| items.join(sep);
    let flows = joined(
        exp.flows
            .iter()
            .map(|f| {
                let ecn = if f.ecn { " ecn" } else { "" };
                format!("{} {}{ecn}", f.direction.as_str(), f.cc)
            })
            .collect(),
        ", ",
    );
    let probes = joined(
        exp.probes
            .iter()
            .map(|p| {
                format!(
                    "{} UDP echo every {} s, timeout {} s",
                    p.kind.as_str(),
                    p.interval.as_secs_f64(),
                    p.timeout.as_secs_f64()
                )
            })
            .collect(),
        "; ",
    );
    let arms = joined(exp.arms.iter().map(|a| a.words.clone()).collect(), " | ");
    let mut config = vec![
        ("experiment".to_string(), exp.name.clone()),
        ("rounds".to_string(), exp.rounds.to_string()),
        ("arms".into(), arms),
    ];
    config.extend(shaper_lines(exp));
    config.push((
        "path".into(),
        format!(
            "offloads {}, MTU {}, base RTT {} s",
            exp.path.offloads.file_word(),
            exp.path.mtu,
            exp.path.base_rtt.as_secs_f64()
        ),
    ));
    if exp.path.needs_netem() {
        config.push((
            "base RTT".into(),
            format!(
                "{} s (netem in R; jitter {} s, loss {} %)",
                exp.path.base_rtt.as_secs_f64(),
                exp.path.jitter.as_secs_f64(),
                exp.path.loss_percent
            ),
        ));
    }
    config.push(("flows".into(), format!("{} ({flows})", exp.flows.len(),)));
    config.push((
        "ECN".into(),
        if exp.flows.iter().any(|f| f.ecn) {
            format!(
                "tcp_ecn=1 at {} of {} flows' senders (the probe is Not-ECT)",
                exp.flows.iter().filter(|f| f.ecn).count(),
                exp.flows.len()
            )
        } else {
            "off".into()
        },
    ));
    config.push((
        "timeline".into(),
        format!("baseline {baseline} s, warm-up {warmup} s, measured window {measure} s"),
    ));
    config.push(("probe".into(), probes));
    config.push((
        "sampling".into(),
        format!("every {} s", exp.sample_interval.as_secs_f64()),
    ));
    if !exp.sweep.axes.is_empty() {
        let points = exp.plan().points.iter().map(|p| p.label()).collect();
        config.push(("sweep".into(), joined(points, " | ")));
    }
    config
}

/// The shapers as run: each direction's TBF, or, where a sweep sets its
/// rate, that the rate is swept (the file's own rate ran at no point).
fn shaper_lines(exp: &Experiment) -> Vec<(String, String)> {
    let swept = |f: fn(&netlab_experiment::AxisValue) -> bool| {
        exp.sweep.axes.iter().any(|a| a.first().is_some_and(f))
    };
    let shaper = |t: &Option<netlab_qdisc_model::Tbf>, swept: bool| {
        match (t, swept) {
        (Some(t), false) => format!(
            "tbf rate {} bit/s burst {} B limit {} B",
            t.rate.bits_per_sec(),
            t.burst.0,
            t.limit.0
        ),
        (Some(t), true) => format!(
            "tbf burst {} B limit {} B, rate swept (see sweep; each scenario's read-back on its page)",
            t.burst.0, t.limit.0
        ),
        (None, false) => "unshaped".to_string(),
        (None, true) => "rate swept (see sweep)".to_string(),
    }
    };
    let mut out = vec![(
        "bottleneck".to_string(),
        shaper(
            &exp.path.up,
            swept(|v| matches!(v, netlab_experiment::AxisValue::Rate(_))),
        ),
    )];
    if exp.path.down.is_some() {
        out.push((
            "download bottleneck".into(),
            shaper(
                &exp.path.down,
                swept(|v| matches!(v, netlab_experiment::AxisValue::DownRate(_))),
            ),
        ));
    }
    out
}

fn scenario_from(
    s: &ScenarioResult,
    i: usize,
    configured: Phases,
    configured_timeout_s: f64,
    configured_base_rtt_s: f64,
) -> Result<Scenario, InputError> {
    let at = format!("scenarios[{i}]");
    let (phases, probe_timeout_s, probes) = match s.probe() {
        Some(p) => probe_samples(p, &at)?,
        None => (configured, configured_timeout_s, Vec::new()),
    };
    if !(probe_timeout_s.is_finite() && probe_timeout_s > 0.0) {
        return Err(field(
            &format!("{at}.probe.config.timeout_s"),
            &format!("the probe timeout must be positive, found {probe_timeout_s}"),
        ));
    }
    // The upload bottleneck's queue (the download's when only it is shaped).
    let q = s.qdisc_of("up").or_else(|| s.qdiscs.first());
    Ok(Scenario {
        index: s.index,
        round: s.round,
        arm: s.arm.clone(),
        kind: s.arm.clone(),
        arm_words: s.arm_words.clone(),
        cc: s.flows.first().map(|f| {
            f.tcp
                .as_ref()
                .map_or_else(|| f.cc.clone(), |t| t.cc_readback.clone())
        }),
        t0_utc: s.t0_utc.clone(),
        phases,
        probe_timeout_s,
        probes,
        flows: flow_series(s, &at)?,
        flow_records: flow_records(s),
        measured_window: s
            .flows
            .iter()
            .find_map(|f| f.tcp.as_ref().map(|t| t.window_s)),
        tcp_info: tcp_info_samples(s),
        qdisc: q.map(qdisc_samples).unwrap_or_default(),
        final_counters: final_counters(s, q),
        error: s.error.clone(),
        packet_files: packet_files(s),
        iso: s.iso_probe.as_ref().map(iso_samples),
        fates: s.probe().and_then(|p| p.fates.clone()),
        echo_closed_s: s
            .probe()
            .and_then(|p| p.echo_arrivals.as_ref())
            .and_then(|a| a.closed_s),
        ecn_flow: s.ecn.as_ref().is_some_and(|e| e.evidence.negotiated),
        point: PointText {
            index: s.point.index,
            label: s.point.label.clone(),
            values: s.point.values.clone(),
        },
        directions: s
            .directions
            .iter()
            .map(|d| DirectionFigures {
                direction: d.direction.clone(),
                flows: d.flows,
                goodput_mbps: d.goodput_mbps,
                fairness: d.fairness,
            })
            .collect(),
        readbacks: crate::readbacks::of(s, configured_base_rtt_s),
        link: s
            .links
            .iter()
            .find(|l| l.direction == "up")
            .map(crate::link_series::LinkSeries::of),
    })
}

fn probe_phase(p: Phase) -> ProbePhase {
    match p {
        Phase::Baseline => ProbePhase::Baseline,
        Phase::Warmup => ProbePhase::Warmup,
        Phase::Loaded => ProbePhase::Loaded,
        Phase::Other => ProbePhase::Other,
    }
}

/// The isochronous probe's slots: a reply in time is exact, a timeout is
/// censored at the timeout (with its late reply's RTT kept beside it),
/// anything else carries no RTT information.
fn iso_samples(iso: &IsoProbeResult) -> IsoProbe {
    let requests = iso
        .log
        .requests
        .iter()
        .map(|r| IsoSample {
            due_s: r.due_s,
            phase: probe_phase(r.phase),
            outcome: match (&r.outcome, r.rtt_ms) {
                (IsoOutcome::Reply, Some(rtt_ms)) => ProbeOutcome::Reply { rtt_ms },
                (IsoOutcome::Timeout, _) => ProbeOutcome::Timeout,
                _ => ProbeOutcome::NoInformation,
            },
            late_rtt_ms: r.late_rtt_ms,
            up_ms: r.up_ms,
            down_ms: r.down_ms,
            seq: r.seq,
            send_s: r.send_s,
            logged: match &r.outcome {
                IsoOutcome::Pending => Logged::Pending,
                IsoOutcome::Reply => Logged::Reply,
                IsoOutcome::Timeout => Logged::Timeout,
                IsoOutcome::Missed => Logged::Missed,
                IsoOutcome::SendError { .. } => Logged::SendError,
                IsoOutcome::Abandoned => Logged::Abandoned,
            },
        })
        .collect();
    IsoProbe {
        interval_ms: iso.log.config.interval.as_secs_f64() * 1e3,
        timeout_s: iso.log.config.timeout.as_secs_f64(),
        requests,
        fates: iso.fates.clone(),
        closed_s: iso.echo_arrivals.as_ref().and_then(|a| a.closed_s),
    }
}

/// The stop-and-wait probe's phases, timeout (s) and requests.
fn probe_samples(p: &ProbeResult, at: &str) -> Result<(Phases, f64, Vec<ProbeSample>), InputError> {
    let b = &p.config.phases;
    let phases = Phases {
        baseline: [b.baseline_start.as_secs_f64(), b.baseline_end.as_secs_f64()],
        loaded: [b.loaded_start.as_secs_f64(), b.loaded_end.as_secs_f64()],
        end_s: p.config.end.as_secs_f64(),
    };
    let probes = p
        .requests
        .iter()
        .enumerate()
        .map(|(j, r)| {
            Ok(ProbeSample {
                seq: r.seq,
                send_s: r.send_s,
                phase: probe_phase(r.phase),
                outcome: outcome(&r.outcome, r.rtt_ms, at, j)?,
                logged: match &r.outcome {
                    RequestOutcome::Pending => Logged::Pending,
                    RequestOutcome::Reply => Logged::Reply,
                    RequestOutcome::Timeout => Logged::Timeout,
                    RequestOutcome::SendError { .. } => Logged::SendError,
                    RequestOutcome::Abandoned => Logged::Abandoned,
                },
                late_rtt_ms: r.late_rtt_ms,
            })
        })
        .collect::<Result<Vec<_>, InputError>>()?;
    Ok((phases, p.config.timeout.as_secs_f64(), probes))
}

/// Delivered bytes per bin of every flow that has a TCP result.
fn flow_series(s: &ScenarioResult, at: &str) -> Result<Vec<FlowSeries>, InputError> {
    let mut flows = Vec::new();
    for (k, f) in s.flows.iter().enumerate() {
        let Some(t) = &f.tcp else { continue };
        if !(t.series_bin_s > 0.0 && t.series_bin_s.is_finite()) {
            return Err(field(
                &format!("{at}.flows[{k}].tcp.series_bin_s"),
                &format!("bin width must be positive, found {}", t.series_bin_s),
            ));
        }
        flows.push(FlowSeries {
            label: if s.flows.len() == 1 {
                "flow 1".into()
            } else {
                format!("flow {} ({} {})", k + 1, f.direction, f.cc)
            },
            direction: f.direction.clone(),
            cc: t.cc_readback.clone(),
            bin_s: t.series_bin_s,
            bytes: t.series.clone(),
        });
    }
    Ok(flows)
}

/// Every flow as flows.csv gives it, numbered from 1 as the figures are.
fn flow_records(s: &ScenarioResult) -> Vec<FlowRecord> {
    s.flows
        .iter()
        .map(|f| {
            let tcp = f.tcp.as_ref();
            FlowRecord {
                number: f.index + 1,
                direction: f.direction.clone(),
                cc: tcp.map_or_else(|| f.cc.clone(), |t| t.cc_readback.clone()),
                ecn: f.ecn,
                goodput_mbps: tcp.and_then(|t| t.goodput_mbps),
                retransmits: f
                    .tcp_info
                    .iter()
                    .rev()
                    .find_map(|t| t.record.info.as_ref().map(|i| i.total_retrans)),
                planned_start_s: f.start_s,
                connect_s: tcp.map(|t| t.connect_s),
                error: f.error.clone(),
                host: f.host.clone(),
                rtt_ms: netlab_results::shares::window_rtt_ms(f),
            }
        })
        .collect()
}

/// The one TCP-state series the report draws: the first flow's.
fn tcp_info_samples(s: &ScenarioResult) -> Vec<SenderSample> {
    s.flows
        .first()
        .map(|f| f.tcp_info.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|t| {
            let info = t.record.info.as_ref()?;
            Some(SenderSample {
                t_s: t.end_s,
                rtt_ms: f64::from(info.rtt_us) / 1000.0,
                rttvar_ms: f64::from(info.rttvar_us) / 1000.0,
                cwnd: info.cwnd,
                ssthresh: Some(info.ssthresh),
                delivery_rate_bps: Some(info.delivery_rate as f64 * 8.0),
                // u64::MAX is the kernel's "no pacing limit".
                pacing_rate_bps: (info.pacing_rate != u64::MAX)
                    .then_some(info.pacing_rate as f64 * 8.0),
            })
        })
        .collect()
}

/// The scenario's packet files that hold anything.
fn packet_files(s: &ScenarioResult) -> Vec<PacketFile> {
    s.ecn
        .iter()
        .flat_map(|e| e.pcap_files())
        .filter(|f| f.bytes > 0)
        .map(|f| PacketFile {
            file: f.file.clone(),
            content: match f.content {
                PcapContent::Evidence => "evidence".into(),
                PcapContent::Headers => "headers".into(),
            },
            frames: f.frames,
            present: true,
            partial: (!f.is_complete()).then(|| {
                f.partial
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            }),
        })
        .collect()
}

fn outcome(
    o: &RequestOutcome,
    rtt_ms: Option<f64>,
    at: &str,
    j: usize,
) -> Result<ProbeOutcome, InputError> {
    Ok(match (o, rtt_ms) {
        (RequestOutcome::Reply, Some(ms)) if ms.is_finite() && ms >= 0.0 => {
            ProbeOutcome::Reply { rtt_ms: ms }
        }
        (RequestOutcome::Reply, _) => {
            return Err(field(
                &format!("{at}.probe.requests[{j}].rtt_ms"),
                "a reply without a finite, non-negative RTT",
            ))
        }
        (RequestOutcome::Timeout, _) => ProbeOutcome::Timeout,
        (
            RequestOutcome::SendError { .. } | RequestOutcome::Abandoned | RequestOutcome::Pending,
            _,
        ) => ProbeOutcome::NoInformation,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn golden() -> Results {
        Results::read(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/orchestrator/golden/results.json"),
        )
        .unwrap()
    }

    #[test]
    fn values_the_report_cannot_draw_are_refused_with_the_field() {
        let mut r = golden();
        r.scenarios[1].flows[0].tcp.as_mut().unwrap().series_bin_s = 0.0;
        let refused = |r: &Results| {
            let e = input_from(r).unwrap_err();
            (e.path, e.message)
        };
        assert_eq!(
            refused(&r),
            (
                "scenarios[1].flows[0].tcp.series_bin_s".to_string(),
                "bin width must be positive, found 0".to_string()
            )
        );
        let mut r = golden();
        let req = &mut r.scenarios[0].probes[0].requests[2];
        req.outcome = RequestOutcome::Reply;
        req.rtt_ms = None;
        assert_eq!(
            refused(&r),
            (
                "scenarios[0].probe.requests[2].rtt_ms".to_string(),
                "a reply without a finite, non-negative RTT".to_string()
            )
        );
        let mut r = golden();
        r.scenarios[0].probes[0].config.timeout = std::time::Duration::ZERO;
        assert_eq!(
            refused(&r),
            (
                "scenarios[0].probe.config.timeout_s".to_string(),
                "the probe timeout must be positive, found 0".to_string()
            )
        );
    }

    /// The v1 golden run, migrated: every scenario with its samples, the
    /// configuration told from the experiment it converts to.
    #[test]
    fn the_golden_run_gives_every_sample_and_the_experiments_configuration() {
        let input = input_from(&golden()).unwrap();
        assert_eq!(input.schema_version, netlab_results::SCHEMA_VERSION);
        let keys: Vec<&str> = input.config.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "experiment",
                "rounds",
                "arms",
                "bottleneck",
                "path",
                "flows",
                "ECN",
                "timeline",
                "probe",
                "sampling",
                "netlab",
                "experiment hash"
            ]
        );
        let value = |k: &str| &input.config.iter().find(|(key, _)| key == k).unwrap().1;
        assert_eq!(value("path"), "offloads kernel, MTU 1500, base RTT 0 s");
        assert_eq!(value("flows"), "1 (up reno ecn)");
        assert!(
            value("ECN").starts_with("tcp_ecn=1 at 1 of 1"),
            "{}",
            value("ECN")
        );
        assert_eq!(input.scenarios.len(), 2);
        assert!(input.scenarios.iter().all(|s| !s.probes.is_empty()
            && !s.tcp_info.is_empty()
            && !s.qdisc.is_empty()
            && s.flows.len() == 1));
        assert!(input.scenarios[1].final_counters.ecn_marks.unwrap() > 0);
        assert_eq!(input.bottleneck_bps, Some(5_000_000));
    }
}
