//! `orchestrator report PATH`, and the report every `compare` run ends with.
//!
//! results.json is read with the orchestrator's own typed reader (the
//! schema version first, then every field with its path named on error),
//! one scenario at a time ([`stream`]; [`read_results`] reads it whole).
//! Each scenario is reduced to what the summary and the report use (a
//! [`RunDigest`]: [`crate::summary::ScenarioFigures`] and the report's
//! samples, by [`ReportBuilder`], straight from the typed fields, so a
//! renamed field fails to compile), and rendered by `netlab-report` (plots,
//! index.html, one `.flent.gz` per scenario); summary.md is re-written from
//! the same figures ([`crate::summary::render_figures`]). A `compare` run
//! feeds the same digest from its scenario files.
//!
//! Nothing is written before everything has been read, checked and
//! rendered: a bad results.json leaves the folder as it was.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use netlab_ecn::pcap::PcapContent;
use netlab_probe::{Phase, RequestOutcome};
use netlab_qdisc::{QdiscRecord, QdiscXstats, ARM_HANDLE};
use netlab_report::model::{
    FinalCounters, FlowSeries, KernelText, PacketFile, Phases, ProbeOutcome, ProbePhase,
    ProbeSample, QdiscSample, ReportInput, Scenario, TcpInfoSample,
};
use netlab_report::{ReportError, ReportFiles};
use serde::Deserialize;

use netlab_experiment::ExperimentFile;

use crate::results::{Results, ScenarioResult, SCHEMA_VERSION};
use crate::summary::{self, ScenarioFigures};

mod stream;

/// The results.json schema versions this build reads.
pub const SUPPORTED_SCHEMAS: &[u32] = &[1, SCHEMA_VERSION];

/// Entry point of `orchestrator report PATH`; returns the exit code.
pub fn main(path: &Path) -> u8 {
    match run(path) {
        Ok((files, summary_md)) => {
            println!(
                "report: {} plot(s), {} Flent file(s), {}",
                files.svgs.len(),
                files.flent.len(),
                summary_md.display()
            );
            println!("{}", files.html.display());
            0
        }
        Err(e) => {
            eprintln!("orchestrator report: {e}");
            1
        }
    }
}

/// Reads, converts and renders; writes summary.md last. results.json is
/// read one scenario at a time ([`stream::read_digest`]).
fn run(path: &Path) -> Result<(ReportFiles, PathBuf), ReportError> {
    let file = netlab_report::results_path(path);
    let out_dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (header, digest) = stream::read_digest(&file)?;
    // The page and the table are both computed before anything is written.
    // The run's final teardown steps are not in results.json: a summary
    // re-rendered here has no note about failed ones.
    let figures = digest.figures().to_vec();
    let input = digest.report_input(&header)?;
    let md = summary::render_figures(
        &header,
        &figures,
        summary::headline_of(Ok(&input)).as_deref(),
        0,
    );
    let files = netlab_report::render(&input, &out_dir)?;
    let summary_path = out_dir.join("summary.md");
    write_atomic(&summary_path, md.as_bytes())?;
    Ok((files, summary_path))
}

/// What a run's summary.md and report are computed from, fed one scenario
/// at a time in execution order: each scenario's summary figures and the
/// samples the report draws, never its whole raw data (receiver logs,
/// readback dumps, tcp_info records). A report that cannot be built (a
/// value it cannot draw) keeps its first error; the summary's figures are
/// kept regardless.
pub struct RunDigest {
    figures: Vec<ScenarioFigures>,
    report: Result<ReportBuilder, ReportError>,
}

impl RunDigest {
    /// The digest of a run of `experiment`, with no scenario yet.
    pub fn new(experiment: &ExperimentFile) -> RunDigest {
        RunDigest {
            figures: Vec::new(),
            report: ReportBuilder::new(experiment),
        }
    }

    /// Adds the next scenario.
    pub fn push(&mut self, s: &ScenarioResult) {
        self.figures.push(ScenarioFigures::of(s));
        if let Ok(b) = &mut self.report {
            if let Err(e) = b.push(s) {
                self.report = Err(e);
            }
        }
    }

    /// Every scenario's summary figures so far.
    pub fn figures(&self) -> &[ScenarioFigures] {
        &self.figures
    }

    /// The report's input for the run `header` describes (its own
    /// `scenarios` are not read).
    pub fn report_input(self, header: &Results) -> Result<ReportInput, ReportError> {
        let caveats = summary::caveats(header, &self.figures);
        let mut input = self.report?.finish(header)?;
        input.caveats = caveats;
        Ok(input)
    }
}

/// The end of a `compare` run: renders the report beside results.json and
/// summary.md (already written, and never touched here); a failure is
/// printed and returns false (the run then exits 1).
pub fn after_run(input: Result<ReportInput, ReportError>, out_dir: &Path) -> bool {
    match input.and_then(|input| netlab_report::render(&input, out_dir)) {
        Ok(files) => {
            println!("report: {}", files.html.display());
            true
        }
        Err(e) => {
            eprintln!("orchestrator compare: the report failed (results.json and summary.md are kept): {e}");
            false
        }
    }
}

#[derive(Deserialize)]
struct VersionOnly {
    schema_version: Option<u32>,
}

/// Reads a results.json into the typed [`Results`]: the schema version is
/// judged first (a future version is refused before its shape), then every
/// field; an error names the field's path
/// (`scenarios[1].probe.requests[3].rtt_ms`).
#[cfg_attr(not(test), allow(dead_code))]
pub fn read_results(file: &Path) -> Result<Results, ReportError> {
    let bytes = std::fs::read(file).map_err(|source| ReportError::Io {
        what: "reading",
        path: file.to_path_buf(),
        source,
    })?;
    parse_results(&bytes)
}

/// [`read_results`] on bytes.
pub fn parse_results(bytes: &[u8]) -> Result<Results, ReportError> {
    // A truncated file fails this too; the full read below then says where.
    if let Ok(v) = serde_json::from_slice::<VersionOnly>(bytes) {
        match v.schema_version {
            None => {
                return Err(field(
                    "schema_version",
                    "missing: this is not a netlab results.json",
                ))
            }
            Some(n) if !SUPPORTED_SCHEMAS.contains(&n) => {
                return Err(ReportError::UnsupportedSchema {
                    found: n,
                    supported: SUPPORTED_SCHEMAS.to_vec(),
                })
            }
            Some(_) => {}
        }
    }
    if sniff_version(bytes) == Some(1) {
        // Version 1 is read in its own shape and converted.
        return deserialize::<crate::results::v1::ResultsV1>(bytes).map(Results::from);
    }
    deserialize(bytes)
}

/// The schema version, also from a truncated file: netlab writes
/// `schema_version` first, so its value can be read before the break.
fn sniff_version(bytes: &[u8]) -> Option<u32> {
    if let Ok(v) = serde_json::from_slice::<VersionOnly>(bytes) {
        return v.schema_version;
    }
    let key = b"\"schema_version\"";
    let at = bytes.windows(key.len()).position(|w| w == key)? + key.len();
    let rest = std::str::from_utf8(&bytes[at..bytes.len().min(at + 32)]).ok()?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn deserialize<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, ReportError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." {
            "(top level)".to_string()
        } else {
            path
        };
        field(&path, &e.into_inner().to_string())
    })
}

fn field(path: &str, message: &str) -> ReportError {
    ReportError::Field {
        path: path.into(),
        message: message.into(),
    }
}

/// The report's input, built from the typed results field by field.
///
/// Values the report cannot draw honestly are refused with the field named:
/// a non-positive probe timeout or goodput bin width, a reply without a
/// finite, non-negative RTT.
#[cfg_attr(not(test), allow(dead_code))]
pub fn input_from(results: &Results) -> Result<ReportInput, ReportError> {
    let mut input = ReportBuilder::new(&results.experiment)?;
    for s in &results.scenarios {
        input.push(s)?;
    }
    input.finish(results)
}

/// The report's scenarios built one at a time, each reduced to the samples
/// the report draws and tests (probe outcomes, delivered-bytes series,
/// tcp_info and backlog samples, final counters), so a run's raw scenarios
/// never need to be in memory together.
pub struct ReportBuilder {
    scenarios: Vec<Scenario>,
    /// Phases of a scenario whose probe never ran: the configured timeline.
    configured: Phases,
    /// The configured probe timeout, s.
    timeout_s: f64,
}

impl ReportBuilder {
    /// The report of a run of `experiment`, with no scenario yet.
    pub fn new(experiment: &ExperimentFile) -> Result<ReportBuilder, ReportError> {
        let (configured, timeout_s) = configured(&resolve(experiment)?);
        Ok(ReportBuilder {
            scenarios: Vec::new(),
            configured,
            timeout_s,
        })
    }

    /// Adds the next scenario, in execution order.
    pub fn push(&mut self, s: &ScenarioResult) -> Result<(), ReportError> {
        let i = self.scenarios.len();
        let scenario = scenario_from(s, i, self.configured, self.timeout_s)?;
        self.scenarios.push(scenario);
        Ok(())
    }

    /// The input for the run `header` describes (its own `scenarios` are
    /// not read).
    pub fn finish(self, header: &Results) -> Result<ReportInput, ReportError> {
        let mut input = header_input(header)?;
        input.scenarios = self.scenarios;
        Ok(input)
    }
}

/// The experiment as run, resolved from its file form.
fn resolve(f: &ExperimentFile) -> Result<netlab_experiment::Experiment, ReportError> {
    netlab_experiment::Experiment::from_file(f).map_err(|e| field("experiment", &e.to_string()))
}

/// Phases of a scenario whose probe never ran (the configured timeline),
/// and the configured probe timeout, s.
fn configured(exp: &netlab_experiment::Experiment) -> (Phases, f64) {
    let tl = &exp.timeline;
    let (baseline, warmup, measure) = (
        tl.baseline.as_secs_f64(),
        tl.warmup.as_secs_f64(),
        tl.measure.as_secs_f64(),
    );
    let phases = Phases {
        baseline: [0.0, baseline],
        loaded: [baseline + warmup, baseline + warmup + measure],
        end_s: baseline + warmup + measure,
    };
    let timeout_s = exp.probes.first().map_or(1.0, |p| p.timeout.as_secs_f64());
    (phases, timeout_s)
}

/// The report's input without its scenarios.
fn header_input(results: &Results) -> Result<ReportInput, ReportError> {
    let exp = resolve(&results.experiment)?;
    let tl = &exp.timeline;
    let (baseline, warmup, measure) = (
        tl.baseline.as_secs_f64(),
        tl.warmup.as_secs_f64(),
        tl.measure.as_secs_f64(),
    );
    let shaper = |t: &Option<netlab_qdisc::Tbf>| match t {
        Some(t) => format!(
            "tbf rate {} bit/s burst {} B limit {} B",
            t.rate.bits_per_sec(),
            t.burst.0,
            t.limit.0
        ),
        None => "unshaped".to_string(),
    };
    let flows = exp
        .flows
        .iter()
        .map(|f| {
            format!(
                "{} {}{}",
                f.direction.as_str(),
                f.cc,
                if f.ecn { " ecn" } else { "" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let probes = exp
        .probes
        .iter()
        .map(|p| {
            format!(
                "{} UDP echo every {} s, timeout {} s",
                p.kind.as_str(),
                p.interval.as_secs_f64(),
                p.timeout.as_secs_f64()
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let mut config = vec![
        ("experiment".to_string(), exp.name.clone()),
        ("rounds".to_string(), exp.rounds.to_string()),
        (
            "arms".into(),
            exp.arms
                .iter()
                .map(|a| a.words.as_str())
                .collect::<Vec<_>>()
                .join(" | "),
        ),
        ("bottleneck".into(), shaper(&exp.path.up)),
    ];
    if exp.path.down.is_some() {
        config.push(("download bottleneck".into(), shaper(&exp.path.down)));
    }
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
    config.push((
        if exp.flows.len() == 1 {
            "congestion control".into()
        } else {
            "flows".into()
        },
        if exp.flows.len() == 1 {
            exp.flows[0].cc.clone()
        } else {
            flows
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
        config.push((
            "sweep".into(),
            exp.plan()
                .points
                .iter()
                .map(|p| p.label())
                .collect::<Vec<_>>()
                .join(" | "),
        ));
    }
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
        },
        config,
        bottleneck_bps: exp.path.up.map(|t| t.rate.bits_per_sec()),
        scenarios: Vec::new(),
        notes: results.notes.clone(),
        caveats: Vec::new(),
    })
}

fn scenario_from(
    s: &ScenarioResult,
    i: usize,
    configured: Phases,
    configured_timeout_s: f64,
) -> Result<Scenario, ReportError> {
    let at = format!("scenarios[{i}]");
    let (phases, probe_timeout_s, probes) = match s.probe() {
        Some(p) => {
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
                        phase: match r.phase {
                            Phase::Baseline => ProbePhase::Baseline,
                            Phase::Warmup => ProbePhase::Warmup,
                            Phase::Loaded => ProbePhase::Loaded,
                            Phase::Other => ProbePhase::Other,
                        },
                        outcome: outcome(&r.outcome, r.rtt_ms, &at, j)?,
                    })
                })
                .collect::<Result<Vec<_>, ReportError>>()?;
            (phases, p.config.timeout.as_secs_f64(), probes)
        }
        None => (configured, configured_timeout_s, Vec::new()),
    };
    if !(probe_timeout_s.is_finite() && probe_timeout_s > 0.0) {
        return Err(field(
            &format!("{at}.probe.config.timeout_s"),
            &format!("the probe timeout must be positive, found {probe_timeout_s}"),
        ));
    }
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
            bin_s: t.series_bin_s,
            bytes: t.series.clone(),
        });
    }
    // The report draws one TCP-state series: the first flow's.
    let tcp_info = s
        .flows
        .first()
        .map(|f| f.tcp_info.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|t| {
            let info = t.info.as_ref()?;
            Some(TcpInfoSample {
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
        .collect();
    // The upload bottleneck's queue (the download's when only it is shaped).
    let q = s.qdisc_of("up").or_else(|| s.qdiscs.first());
    let qdisc = q
        .map(|q| q.samples.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|q| {
            let r = q.records.iter().find(|r| r.handle == ARM_HANDLE)?;
            let st = r.stats?;
            Some(QdiscSample {
                t_s: q.t_s?,
                backlog_bytes: u64::from(st.backlog_bytes),
                backlog_packets: u64::from(st.backlog_packets),
                drops: u64::from(st.drops),
                ecn_marks: r.xstats.as_ref().and_then(ecn_marks),
            })
        })
        .collect();
    let fin = q.map(|q| q.at_window_end.as_slice()).unwrap_or_default();
    let arm_final = arm_record(fin);
    let final_counters = FinalCounters {
        taken_s: q.and_then(|q| q.final_taken_s),
        arm_drops: arm_final
            .and_then(|r| r.stats)
            .map(|st| u64::from(st.drops)),
        tbf_drops: fin
            .iter()
            .find(|r| r.kind == "tbf")
            .and_then(|r| r.stats)
            .map(|st| u64::from(st.drops)),
        ecn_marks: arm_final
            .and_then(|r| r.xstats.as_ref())
            .and_then(ecn_marks),
        wire_ce_ece_cwr: s.ecn.as_ref().map(|e| {
            let c = &e.report.counts;
            (c.ce, c.ece, c.cwr)
        }),
    };
    Ok(Scenario {
        index: s.index,
        round: s.round,
        arm: s.arm.clone(),
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
        flows,
        measured_window: s
            .flows
            .iter()
            .find_map(|f| f.tcp.as_ref().map(|t| t.window_s)),
        tcp_info,
        qdisc,
        final_counters,
        error: s.error.clone(),
        packet_files: s
            .ecn
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
                partial: (!f.is_complete()).then(|| {
                    f.partial
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; ")
                }),
            })
            .collect(),
    })
}

fn outcome(
    o: &RequestOutcome,
    rtt_ms: Option<f64>,
    at: &str,
    j: usize,
) -> Result<ProbeOutcome, ReportError> {
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

/// The arm's record: the qdisc at the arm's handle (`10:`), whether TBF is
/// the root or hangs below a netem delay.
fn arm_record(records: &[QdiscRecord]) -> Option<&QdiscRecord> {
    records.iter().find(|r| r.handle == ARM_HANDLE)
}

/// The arm's cumulative ECN marks, for the kinds that count them under that
/// name (the same kinds results.json's `ecn_mark` key carries).
fn ecn_marks(x: &QdiscXstats) -> Option<u64> {
    match x {
        QdiscXstats::FqCodel(x) => Some(u64::from(x.ecn_mark)),
        QdiscXstats::Codel(x) => Some(u64::from(x.ecn_mark)),
        QdiscXstats::Pie(x) => Some(u64::from(x.ecn_mark)),
        QdiscXstats::FqPie(x) => Some(u64::from(x.ecn_mark)),
        QdiscXstats::Fq(_) | QdiscXstats::Cake(_) | QdiscXstats::Raw { .. } => None,
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let io = |what: &'static str, p: &Path| {
        let p = p.to_path_buf();
        move |source| ReportError::Io {
            what,
            path: p,
            source,
        }
    };
    let written = std::fs::File::create(&tmp)
        .map_err(io("creating", &tmp))
        .and_then(|mut f| f.write_all(bytes).map_err(io("writing", &tmp)));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path).map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        ReportError::Io {
            what: "renaming into place",
            path: path.to_path_buf(),
            source,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator/golden/results.json")
    }

    /// A real host run (schema 2): six pfifo rounds, five settled after one
    /// window cut, one after two (fixtures/report/README.md). The state
    /// classifier tells them apart from each round's own tcp_info, and the
    /// headline says the rounds disagree instead of pooling them.
    #[test]
    fn the_host_fixtures_rounds_fall_into_two_states_and_the_headline_says_so() {
        use std::io::Read as _;
        let gz = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/report/run-host-pfifo-6rounds/results.json.gz"),
        )
        .unwrap();
        let mut json = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut json)
            .unwrap();
        let input = input_from(&parse_results(&json).unwrap()).unwrap();
        let states = netlab_report::state::of_input(&input);
        assert_eq!(states.len(), 1);
        let pfifo = &states[0];
        assert!(pfifo.disagree(), "{}", pfifo.text());
        let one = &pfifo.groups[0];
        assert_eq!(
            one.kind,
            netlab_report::state::StateKind::Overshoot { cuts: 1 }
        );
        assert_eq!(one.rounds, vec![1, 2, 4, 5, 6]);
        assert!((1000.0..1150.0).contains(&one.standing_rtt_ms), "{one:?}");
        assert!((400..=480).contains(&one.cwnd), "{one:?}");
        let two = &pfifo.groups[1];
        assert_eq!(
            two.kind,
            netlab_report::state::StateKind::Overshoot { cuts: 2 }
        );
        assert_eq!(two.rounds, vec![3]);
        assert!((500.0..650.0).contains(&two.standing_rtt_ms), "{two:?}");
        assert!(two.cwnd < one.cwnd * 6 / 10, "{two:?}");
        let md = netlab_report::headline::of_input(&input).markdown();
        assert!(md.contains("1 cut (r1 r2 r4 r5 r6): p50 ≥ 1000 ms"), "{md}");
        assert!(md.contains("2 cuts (r3): p50 586 ms"), "{md}");
        assert!(md.contains("rounds disagree; medians not pooled"), "{md}");
    }

    /// The typed conversion gives exactly what the report's own v1 reader
    /// gives on the same file: two independent paths, one input.
    #[test]
    fn typed_input_equals_the_report_crates_own_reading() {
        let typed = input_from(&read_results(&golden()).unwrap()).unwrap();
        let own = netlab_report::read_results(&golden()).unwrap();
        // The v1 file is read as schema 2, and its configuration is told from
        // the experiment it converts to; every sample and counter is the same.
        assert_eq!(typed.schema_version, 2);
        assert_eq!(typed.scenarios, own.scenarios);
        assert_eq!(
            (
                &typed.run_id,
                &typed.kernel,
                &typed.notes,
                typed.bottleneck_bps
            ),
            (&own.run_id, &own.kernel, &own.notes, own.bottleneck_bps)
        );
        let keys: Vec<&str> = typed.config.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "experiment",
                "rounds",
                "arms",
                "bottleneck",
                "congestion control",
                "timeline",
                "probe",
                "sampling"
            ]
        );
        assert_eq!(typed.scenarios.len(), 2);
        assert!(typed.scenarios.iter().all(|s| !s.probes.is_empty()
            && !s.tcp_info.is_empty()
            && !s.qdisc.is_empty()
            && s.flows.len() == 1));
        assert!(typed.scenarios[1].final_counters.ecn_marks.unwrap() > 0);
    }

    #[test]
    fn a_future_schema_is_refused_before_its_shape() {
        let e = parse_results(br#"{"schema_version": 99, "whatever": true}"#).unwrap_err();
        assert!(matches!(
            e,
            ReportError::UnsupportedSchema { found: 99, .. }
        ));
        assert!(e.to_string().contains("schema_version 99"), "{e}");
        let e = parse_results(br#"{"tool": {}}"#).unwrap_err();
        assert!(
            e.to_string().contains("field schema_version: missing"),
            "{e}"
        );
    }

    #[test]
    fn a_broken_field_is_named_by_its_path() {
        let text = std::fs::read_to_string(golden()).unwrap();
        let broken = text.replacen("\"rtt_ms\": 5.625344", "\"rtt_ms\": \"fast\"", 1);
        assert_ne!(broken, text, "the fixture changed: pick another field");
        let e = parse_results(broken.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("scenarios[1].probe.requests[0].rtt_ms"), "{e}");
        let truncated = &text.as_bytes()[..text.len() / 2];
        let e = parse_results(truncated).unwrap_err().to_string();
        assert!(e.contains("results.json: field scenarios["), "{e}");
        assert!(e.contains("EOF"), "{e}");
    }

    #[test]
    fn values_the_report_cannot_draw_are_refused_with_the_field() {
        let mut r = read_results(&golden()).unwrap();
        r.scenarios[1].flows[0].tcp.as_mut().unwrap().series_bin_s = 0.0;
        let e = input_from(&r).unwrap_err().to_string();
        assert!(e.contains("scenarios[1].flows[0].tcp.series_bin_s"), "{e}");
        let mut r = read_results(&golden()).unwrap();
        let req = &mut r.scenarios[0].probes[0].requests[2];
        req.outcome = RequestOutcome::Reply;
        req.rtt_ms = None;
        let e = input_from(&r).unwrap_err().to_string();
        assert!(e.contains("scenarios[0].probe.requests[2].rtt_ms"), "{e}");
    }
}
