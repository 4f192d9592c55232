//! Reader of results.json schema_version 1, as bins/orchestrator writes it.
//! Serde structs of exactly the fields the report needs; an error names the
//! path of the field (`scenarios[2].probe.requests[5].send_s`).

use serde::Deserialize;

use crate::model::{
    FinalCounters, FlowSeries, KernelText, Phases, ProbeOutcome, ProbePhase, ProbeSample,
    QdiscSample, ReportInput, Scenario, TcpInfoSample,
};
use crate::ReportError;

/// The schema versions this reader understands.
pub const SUPPORTED: &[u32] = &[1];

#[derive(Deserialize)]
struct VersionOnly {
    schema_version: Option<u32>,
}

#[derive(Deserialize)]
struct Results {
    schema_version: u32,
    tool: Tool,
    kernel: Kernel,
    config: Config,
    run_id: String,
    started_utc: String,
    finished_utc: String,
    scenarios: Vec<ScenarioV1>,
    notes: Vec<String>,
}

#[derive(Deserialize)]
struct Tool {
    name: String,
    version: String,
}

#[derive(Deserialize)]
struct Kernel {
    mode: String,
    release: String,
    chosen_because: String,
}

#[derive(Deserialize)]
struct Config {
    rounds: u32,
    arm_words: Vec<String>,
    tbf: Tbf,
    cc: String,
    timeline: Timeline,
    probe_interval: f64,
    probe_timeout: f64,
    sample_interval: f64,
}

#[derive(Deserialize)]
struct Tbf {
    rate: u64,
    burst: u64,
    limit: u64,
}

#[derive(Deserialize)]
struct Timeline {
    baseline: f64,
    warmup: f64,
    measure: f64,
}

#[derive(Deserialize)]
struct ScenarioV1 {
    index: u32,
    round: u32,
    arm: String,
    arm_words: String,
    t0_utc: Option<String>,
    qdisc: Qdisc,
    tcp: Option<Tcp>,
    tcp_info: Vec<TcpInfo>,
    probe: Option<Probe>,
    ecn: Option<Ecn>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Qdisc {
    #[serde(rename = "final")]
    final_: Vec<Record>,
    final_taken_s: Option<f64>,
    samples: Vec<QSample>,
}

#[derive(Deserialize)]
struct QSample {
    t_s: f64,
    records: Vec<Record>,
}

#[derive(Deserialize)]
struct Record {
    kind: String,
    parent: String,
    stats: Option<Stats>,
    xstats: Option<XStats>,
}

#[derive(Deserialize)]
struct Stats {
    backlog_bytes: u64,
    backlog_packets: u64,
    drops: u64,
}

#[derive(Deserialize)]
struct XStats {
    ecn_mark: Option<u64>,
}

#[derive(Deserialize)]
struct Tcp {
    window_s: [f64; 2],
    series: Vec<u64>,
    series_bin_s: f64,
}

#[derive(Deserialize)]
struct TcpInfo {
    end_s: f64,
    rtt_us: Option<u64>,
    rttvar_us: Option<u64>,
    cwnd: Option<u32>,
    ssthresh: Option<u32>,
    delivery_rate: Option<u64>,
    pacing_rate: Option<u64>,
    congestion: Option<String>,
}

#[derive(Deserialize)]
struct Probe {
    requests: Vec<Request>,
    config: ProbeConfig,
}

#[derive(Deserialize)]
struct ProbeConfig {
    end_s: f64,
    timeout_s: f64,
    phases: ProbePhases,
}

#[derive(Deserialize)]
struct ProbePhases {
    baseline_start_s: f64,
    baseline_end_s: f64,
    loaded_start_s: f64,
    loaded_end_s: f64,
}

#[derive(Deserialize)]
struct Request {
    seq: u32,
    send_s: f64,
    rtt_ms: Option<f64>,
    phase: String,
    outcome: Outcome,
}

#[derive(Deserialize)]
struct Outcome {
    kind: String,
}

#[derive(Deserialize)]
struct Ecn {
    counts: EcnCounts,
}

#[derive(Deserialize)]
struct EcnCounts {
    ce: u64,
    ece: u64,
    cwr: u64,
}

/// Reads results.json bytes of any supported schema version.
pub fn parse(bytes: &[u8]) -> Result<ReportInput, ReportError> {
    // The version first: a future file is refused before its shape is judged.
    if let Ok(v) = serde_json::from_slice::<VersionOnly>(bytes) {
        match v.schema_version {
            None => {
                return Err(ReportError::Field {
                    path: "schema_version".into(),
                    message: "missing: this is not a netlab results.json".into(),
                })
            }
            Some(n) if !SUPPORTED.contains(&n) => {
                return Err(ReportError::UnsupportedSchema {
                    found: n,
                    supported: SUPPORTED.to_vec(),
                })
            }
            Some(_) => {}
        }
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let raw: Results = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        ReportError::Field {
            path: if path == "." {
                "(top level)".into()
            } else {
                path
            },
            message: e.into_inner().to_string(),
        }
    })?;
    convert(raw)
}

fn phase(s: &str, path: &str) -> Result<ProbePhase, ReportError> {
    Ok(match s {
        "baseline" => ProbePhase::Baseline,
        "warmup" => ProbePhase::Warmup,
        "loaded" => ProbePhase::Loaded,
        "other" => ProbePhase::Other,
        _ => {
            return Err(ReportError::Field {
                path: path.into(),
                message: format!("unknown probe phase {s:?}"),
            })
        }
    })
}

fn outcome(r: &Request, path: &str) -> Result<ProbeOutcome, ReportError> {
    Ok(match (r.outcome.kind.as_str(), r.rtt_ms) {
        ("reply", Some(ms)) if ms.is_finite() && ms >= 0.0 => ProbeOutcome::Reply { rtt_ms: ms },
        ("reply", _) => {
            return Err(ReportError::Field {
                path: format!("{path}.rtt_ms"),
                message: "a reply without a finite, non-negative RTT".into(),
            })
        }
        ("timeout", _) => ProbeOutcome::Timeout,
        ("send_error" | "abandoned" | "pending", _) => ProbeOutcome::NoInformation,
        (k, _) => {
            return Err(ReportError::Field {
                path: format!("{path}.outcome.kind"),
                message: format!("unknown outcome {k:?}"),
            })
        }
    })
}

/// The arm's record: the child of the TBF root (never the root itself).
fn arm_record(records: &[Record]) -> Option<&Record> {
    records.iter().find(|r| r.parent != "root")
}

fn root_record(records: &[Record]) -> Option<&Record> {
    records
        .iter()
        .find(|r| r.parent == "root" && r.kind == "tbf")
}

fn convert(raw: Results) -> Result<ReportInput, ReportError> {
    let c = &raw.config;
    let config = vec![
        ("rounds".to_string(), c.rounds.to_string()),
        ("arms".into(), c.arm_words.join(" | ")),
        (
            "bottleneck".into(),
            format!(
                "tbf rate {} bit/s burst {} B limit {} B",
                c.tbf.rate, c.tbf.burst, c.tbf.limit
            ),
        ),
        ("congestion control".into(), c.cc.clone()),
        (
            "timeline".into(),
            format!(
                "baseline {} s, warm-up {} s, measured window {} s",
                c.timeline.baseline, c.timeline.warmup, c.timeline.measure
            ),
        ),
        (
            "probe".into(),
            format!(
                "UDP echo every {} s, timeout {} s",
                c.probe_interval, c.probe_timeout
            ),
        ),
        ("sampling".into(), format!("every {} s", c.sample_interval)),
    ];
    let default_phases = Phases {
        baseline: [0.0, c.timeline.baseline],
        loaded: [
            c.timeline.baseline + c.timeline.warmup,
            c.timeline.baseline + c.timeline.warmup + c.timeline.measure,
        ],
        end_s: c.timeline.baseline + c.timeline.warmup + c.timeline.measure,
    };
    let mut scenarios = Vec::with_capacity(raw.scenarios.len());
    for (i, s) in raw.scenarios.iter().enumerate() {
        let at = format!("scenarios[{i}]");
        let (phases, timeout, probes) = match &s.probe {
            Some(p) => {
                let ph = &p.config.phases;
                let phases = Phases {
                    baseline: [ph.baseline_start_s, ph.baseline_end_s],
                    loaded: [ph.loaded_start_s, ph.loaded_end_s],
                    end_s: p.config.end_s,
                };
                let mut probes = Vec::with_capacity(p.requests.len());
                for (j, r) in p.requests.iter().enumerate() {
                    let rp = format!("{at}.probe.requests[{j}]");
                    probes.push(ProbeSample {
                        seq: r.seq,
                        send_s: r.send_s,
                        phase: phase(&r.phase, &format!("{rp}.phase"))?,
                        outcome: outcome(r, &rp)?,
                    });
                }
                (phases, p.config.timeout_s, probes)
            }
            None => (default_phases, c.probe_timeout, Vec::new()),
        };
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err(ReportError::Field {
                path: format!("{at}.probe.config.timeout_s"),
                message: format!("the probe timeout must be positive, found {timeout}"),
            });
        }
        let flows = match &s.tcp {
            Some(t) if t.series_bin_s > 0.0 => vec![FlowSeries {
                label: "flow 1".into(),
                bin_s: t.series_bin_s,
                bytes: t.series.clone(),
            }],
            Some(t) => {
                return Err(ReportError::Field {
                    path: format!("{at}.tcp.series_bin_s"),
                    message: format!("bin width must be positive, found {}", t.series_bin_s),
                })
            }
            None => Vec::new(),
        };
        let tcp_info = s
            .tcp_info
            .iter()
            .filter_map(|t| {
                Some(TcpInfoSample {
                    t_s: t.end_s,
                    rtt_ms: t.rtt_us? as f64 / 1000.0,
                    rttvar_ms: t.rttvar_us.unwrap_or(0) as f64 / 1000.0,
                    cwnd: t.cwnd?,
                    ssthresh: t.ssthresh,
                    delivery_rate_bps: t.delivery_rate.map(|r| r as f64 * 8.0),
                    pacing_rate_bps: t
                        .pacing_rate
                        .filter(|r| *r != u64::MAX)
                        .map(|r| r as f64 * 8.0),
                })
            })
            .collect();
        let qdisc = s
            .qdisc
            .samples
            .iter()
            .filter_map(|q| {
                let r = arm_record(&q.records)?;
                let st = r.stats.as_ref()?;
                Some(QdiscSample {
                    t_s: q.t_s,
                    backlog_bytes: st.backlog_bytes,
                    backlog_packets: st.backlog_packets,
                    drops: st.drops,
                    ecn_marks: r.xstats.as_ref().and_then(|x| x.ecn_mark),
                })
            })
            .collect();
        let arm_final = arm_record(&s.qdisc.final_);
        let final_counters = FinalCounters {
            taken_s: s.qdisc.final_taken_s,
            arm_drops: arm_final.and_then(|r| r.stats.as_ref()).map(|st| st.drops),
            tbf_drops: root_record(&s.qdisc.final_)
                .and_then(|r| r.stats.as_ref())
                .map(|st| st.drops),
            ecn_marks: arm_final
                .and_then(|r| r.xstats.as_ref())
                .and_then(|x| x.ecn_mark),
            wire_ce_ece_cwr: s
                .ecn
                .as_ref()
                .map(|e| (e.counts.ce, e.counts.ece, e.counts.cwr)),
        };
        scenarios.push(Scenario {
            index: s.index,
            round: s.round,
            arm: s.arm.clone(),
            arm_words: s.arm_words.clone(),
            cc: s
                .tcp_info
                .iter()
                .find_map(|t| t.congestion.clone())
                .or_else(|| Some(raw.config.cc.clone())),
            t0_utc: s.t0_utc.clone(),
            phases,
            probe_timeout_s: timeout,
            probes,
            flows,
            measured_window: s.tcp.as_ref().map(|t| t.window_s),
            tcp_info,
            qdisc,
            final_counters,
            error: s.error.clone(),
            packet_files: Vec::new(),
        });
    }
    Ok(ReportInput {
        schema_version: raw.schema_version,
        tool: format!("{} {}", raw.tool.name, raw.tool.version),
        run_id: raw.run_id,
        started_utc: raw.started_utc,
        finished_utc: raw.finished_utc,
        kernel: KernelText {
            mode: raw.kernel.mode,
            release: raw.kernel.release,
            chosen_because: raw.kernel.chosen_because,
        },
        config,
        bottleneck_bps: Some(raw.config.tbf.rate),
        scenarios,
        notes: raw.notes,
        caveats: Vec::new(),
    })
}
