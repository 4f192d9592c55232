//! What changed between two runs (docs/report.md, "Two runs"; method
//! §12.10): the setup item by item, then each arm and sweep point both
//! runs have, measured over the rounds of run A against those of run B
//! with the verdict's own statistics (method §12.3: the Hodges–Lehmann
//! shift and the exact rank interval over rounds). A change is claimed
//! only where the interval excludes 0, and its size is the bound nearest
//! zero; otherwise "no detectable change". Arms are paired by their tc
//! words (or by `--pair`), points by their label; what only one run has
//! is listed, never dropped.
//!
//! Pure: two runs' digests in, a [`RunDiff`] out; [`RunDiff::markdown`]
//! and [`RunDiff::html`] say it, and it serialises to diff.json.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compare::{Comparison, Figure};
use crate::records::{ReportInput, Scenario};
use crate::stats::Bounded;
use netlab_analysis::summary::ScenarioFigures;
use netlab_results::Results;

/// The metrics a sweep diff draws ([`RunDiff::sweep`]).
pub use crate::diff_sweep::DiffMetric;

/// One run as the diff reads it: its header (results.json without its
/// scenarios), its scenarios' summary figures and the report's input.
#[derive(Debug)]
pub struct RunDigest {
    /// Where it came from (the folder or file as given).
    pub source: String,
    /// results.json's header.
    pub header: Results,
    /// Every scenario's summary figures.
    pub figures: Vec<ScenarioFigures>,
    /// The report's input.
    pub input: ReportInput,
}

impl RunDigest {
    /// Reads a results folder or results.json (any schema netlab loads).
    pub fn read(path: &std::path::Path) -> Result<RunDigest, crate::ReportError> {
        let file = crate::results_path(path);
        let (header, builder) = crate::folder::read(&file)?;
        let (figures, input) = builder.finish_with_figures(&header);
        Ok(RunDigest {
            source: path.display().to_string(),
            header,
            figures,
            input: input?,
        })
    }
}

/// One item of the setup, as each run has it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetupItem {
    /// Dotted path (`experiment.path.offloads`, `kernel.release`).
    pub key: String,
    /// Run A's value (`–` when it has none).
    pub a: String,
    /// Run B's.
    pub b: String,
    /// What the difference can explain, where the link is known.
    pub explains: Option<String>,
}

/// What a number in diff.json is of the value it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundKind {
    /// The value itself.
    Exact,
    /// The value is at least this (a quantile on the censored mass).
    AtLeast,
    /// The value is at most this.
    AtMost,
    /// Unknown (both sides on the censored mass, or no data): `value` is
    /// null.
    Unknown,
}

/// A number of diff.json: the number and what it is of the value (never
/// a string such as "≥ 1000").
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DiffNumber {
    /// The number (null when unknown).
    pub value: Option<f64>,
    /// Exact, or a bound.
    pub bound: BoundKind,
}

impl DiffNumber {
    fn of_bounded(b: Bounded) -> DiffNumber {
        let (value, bound) = match b {
            Bounded::Value(v) => (Some(v), BoundKind::Exact),
            Bounded::AtLeast(v) => (Some(v), BoundKind::AtLeast),
            Bounded::AtMost(v) => (Some(v), BoundKind::AtMost),
            Bounded::Unknown => (None, BoundKind::Unknown),
        };
        DiffNumber { value, bound }
    }

    fn of_quantile(q: crate::stats::CensoredQuantile) -> DiffNumber {
        use crate::stats::CensoredQuantile as Q;
        let (value, bound) = match q {
            Q::Value(v) => (Some(v), BoundKind::Exact),
            Q::AtLeast(v) => (Some(v), BoundKind::AtLeast),
            Q::NoData => (None, BoundKind::Unknown),
        };
        DiffNumber { value, bound }
    }
}

/// One metric of one pair, A's rounds against B's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricDiff {
    /// `loaded one-way delay p50 (delivered probes)`.
    pub metric: String,
    /// Its key for `--fail-on-change` (`p50`, `p95`, `loss`, `goodput`, `drops`).
    pub key: String,
    /// Unit.
    pub unit: String,
    /// Each run's rounds, A's: numbers with their bound flag.
    pub a_rounds: Vec<DiffNumber>,
    /// B's.
    pub b_rounds: Vec<DiffNumber>,
    /// The Hodges–Lehmann shift B − A.
    pub shift: DiffNumber,
    /// The interval's endpoints.
    pub interval: (DiffNumber, DiffNumber),
    /// The same in words for diff.md and diff.html (`≥ 1000`), not in
    /// diff.json.
    #[serde(skip)]
    pub text: MetricText,
    /// Its confidence level (0.9 for 3 vs 3 rounds).
    pub level: f64,
    /// A change claimed: `Some((higher, at least))` in B against A.
    pub change: Option<(bool, f64)>,
    /// The sentence.
    pub sentence: String,
}

/// A metric's numbers in words, as diff.md and diff.html print them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetricText {
    /// A's rounds (`≥ x` for a bound).
    pub a_rounds: Vec<String>,
    /// B's.
    pub b_rounds: Vec<String>,
    /// The shift (`-3.2`, `≥ 12`, `unknown`).
    pub shift: String,
    /// The interval's endpoints.
    pub interval: (String, String),
}

/// One arm at one point, in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairDiff {
    /// A's arm words.
    pub arm_a: String,
    /// B's arm words (the same unless `--pair` paired them).
    pub arm_b: String,
    /// The point's label (`default` without a sweep).
    pub point: String,
    /// Rounds in each run.
    pub rounds: (usize, usize),
    /// Each run's rounds' states, as states (never pooled).
    pub states: (String, String),
    /// The metrics.
    pub metrics: Vec<MetricDiff>,
    /// Each run's loaded delays, for the figure ([`crate::diff_plot`]).
    #[serde(skip)]
    pub delays: [Delays; 2],
    /// Each run's goodput per round, `(round, Mbit/s)`, for the figure.
    #[serde(skip)]
    pub goodput: [Vec<(u32, f64)>; 2],
    /// The arm's colour: its index among run A's arms, as A's report
    /// colours it.
    #[serde(skip)]
    pub color: usize,
}

/// One run's loaded probe delays at one pair, as its figure draws them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Delays {
    /// The delays that were measured, ascending, ms.
    pub values: Vec<f64>,
    /// Requests with no delay to draw.
    pub missing: usize,
    /// What the values are (`one-way delay of delivered probes`).
    pub what: &'static str,
    /// What the missing ones are (`never reached B`).
    pub missing_words: &'static str,
    /// The axis' words (`one-way A→B delay`).
    pub axis: &'static str,
}

impl Delays {
    /// The loaded delays of a run's scenarios: with `one_way` (every
    /// round of both runs has fates), every delivered probe's one-way
    /// delay and how many never reached B; else the replies' RTT and the
    /// requests without a reply, so the two runs are drawn alike.
    fn of(scenarios: &[Scenario], one_way: bool) -> Delays {
        use crate::records::ProbePhase;
        let ok: Vec<&Scenario> = scenarios.iter().filter(|s| s.error.is_none()).collect();
        let fates: Option<Vec<crate::records::Delivered>> = ok
            .iter()
            .map(|s| s.delivered_one_way(ProbePhase::Loaded))
            .collect();
        let mut d = match fates {
            Some(f) if one_way && !f.is_empty() => Delays {
                values: f
                    .iter()
                    .flat_map(|x| x.one_way_ms.iter().copied())
                    .collect(),
                missing: f.iter().map(|x| x.lost).sum(),
                what: "one-way delay of the delivered probes",
                missing_words: "never reached B",
                axis: "one-way A→B delay",
            },
            _ => {
                let obs: Vec<crate::stats::Observation> = ok
                    .iter()
                    .flat_map(|s| s.rtt_observations(ProbePhase::Loaded))
                    .collect();
                Delays {
                    values: obs
                        .iter()
                        .filter_map(|o| match o {
                            crate::stats::Observation::Exact(v) => Some(*v),
                            crate::stats::Observation::AtLeast(_) => None,
                        })
                        .collect(),
                    missing: obs
                        .iter()
                        .filter(|o| matches!(o, crate::stats::Observation::AtLeast(_)))
                        .count(),
                    what: "RTT of the replies",
                    missing_words:
                        "without a reply within the timeout (lost or late: a round trip cannot tell them apart)",
                    axis: "probe RTT",
                }
            }
        };
        d.values.sort_by(f64::total_cmp);
        d
    }
}

/// Two runs side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunDiff {
    /// diff.json's format, [`RunDiff::FORMAT`].
    pub format: &'static str,
    /// Its version, [`RunDiff::VERSION`]; a change of shape bumps it.
    pub version: u32,
    /// Run A (the reference).
    pub a: String,
    /// Run B.
    pub b: String,
    /// Setup items that differ.
    pub setup_differs: Vec<SetupItem>,
    /// How many setup items are the same.
    pub setup_same: usize,
    /// The same experiment (content hash), when both record it.
    pub same_experiment: Option<bool>,
    /// A and B are one run (the same run id): what is compared is its
    /// arms with each other (`--pair`), not two runs.
    pub same_run: bool,
    /// Whether every scenario of each run carries its probe fates (B's
    /// receive log): the loss and the one-way delays need both.
    pub fates: [bool; 2],
    /// Each pair of arm and point both runs have.
    pub pairs: Vec<PairDiff>,
    /// Arms or points only A has (`pfifo limit 64 at rate=5mbit`).
    pub only_a: Vec<String>,
    /// Only B.
    pub only_b: Vec<String>,
    /// Each run in one line: its id, when it ran, and whether it was
    /// merged from shards (`orchestrator merge`).
    pub runs: [String; 2],
    /// The sweep figures' data, when a run swept ([`crate::diff_sweep`]).
    #[serde(skip)]
    pub sweep: Option<crate::diff_sweep::DiffSweep>,
}

/// Why two runs cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// A run could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The run as given.
        path: String,
        /// Why.
        source: crate::ReportError,
    },
    /// No arm and point in common.
    #[error("nothing to compare: run A has {a}, run B has {b} (pair arms of different words with --pair 'A-WORDS=B-WORDS')")]
    NothingInCommon {
        /// A's arms and points.
        a: String,
        /// B's.
        b: String,
    },
    /// A `--pair` names an arm a run does not have.
    #[error("--pair {0}: {1}")]
    BadPair(String, String),
}

/// Words with single spaces.
fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The setup items of a run: its experiment key by key, the kernel, the
/// build, the machines, the path and arms as read back.
fn setup_items(r: &RunDigest) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    if let Ok(v) = serde_json::to_value(&r.header.experiment) {
        flatten("experiment", &v, &mut m);
    }
    m.insert("kernel.mode".into(), r.header.kernel.mode.clone());
    m.insert("kernel.release".into(), r.header.kernel.release.clone());
    m.insert(
        "netlab".into(),
        format!("{} {}", r.header.tool.name, r.header.tool.version),
    );
    let mut set = |key: &str, values: Vec<String>| {
        let mut v = values;
        v.sort();
        v.dedup();
        if !v.is_empty() {
            m.insert(key.into(), v.join(" | "));
        }
    };
    set(
        "machine.cpu",
        r.figures
            .iter()
            .filter_map(|f| f.machine.as_ref().map(|x| x.cpu.clone()))
            .collect(),
    );
    set(
        "machine.kernel",
        r.figures
            .iter()
            .filter_map(|f| f.machine.as_ref().map(|x| x.kernel.clone()))
            .collect(),
    );
    set(
        "path.read_back",
        r.figures
            .iter()
            .filter_map(|f| f.path.as_ref().map(|p| p.words()))
            .collect(),
    );
    set(
        "path.tcp_rmem",
        r.figures
            .iter()
            .filter_map(|f| {
                f.receive_buffer.as_ref().map(|b| match b {
                    netlab_analysis::summary::ReceiveBufferSeen::AtMax(v) => {
                        format!("raised to its max: {v}")
                    }
                    netlab_analysis::summary::ReceiveBufferSeen::Kernel(v) => {
                        format!("the kernel's: {v}")
                    }
                })
            })
            .collect(),
    );
    set(
        "bottleneck.verdicts",
        r.figures
            .iter()
            .filter_map(|f| f.path_seen.bottleneck.as_ref())
            .flat_map(|b| &b.directions)
            .map(|d| format!("{} {:?}", d.direction, d.verdict))
            .collect(),
    );
    m
}

/// `experiment.path.offloads = "off"` for every leaf of a JSON value.
fn flatten(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                flatten(&format!("{prefix}.{k}"), x, out);
            }
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), x, out);
            }
        }
        serde_json::Value::Null => {}
        serde_json::Value::String(s) => {
            out.insert(prefix.into(), s.clone());
        }
        other => {
            out.insert(prefix.into(), other.to_string());
        }
    }
}

/// What a setup difference can explain, where method names the link.
fn explains(key: &str) -> Option<String> {
    let k = key.to_ascii_lowercase();
    if k.contains("offloads") || k.contains("path.read_back") {
        Some("the veths' offloads decide how many bytes a packet limit holds: a FIFO's delay (method §1.6)".into())
    } else if k.contains("mtu") {
        Some("the MTU sets the frame the queue and the shaper count (method §1.6)".into())
    } else if k.contains("tcp_rmem") {
        Some("the receive buffer bounds the flow's window, hence a deep FIFO's standing queue (method §1.3)".into())
    } else if k.starts_with("kernel.") || k.starts_with("machine.kernel") {
        Some("another kernel: the qdisc's and TCP's code (method §9.2)".into())
    } else {
        None
    }
}

/// The (arm words, point label) of every scenario of a run, in order.
fn keys(input: &ReportInput) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for s in &input.scenarios {
        let k = (words(&s.arm_words), s.point.label.clone());
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

fn key_text((arm, point): &(String, String)) -> String {
    if point == "default" || point.is_empty() {
        arm.clone()
    } else {
        format!("{arm} at {point}")
    }
}

/// The diff of run `b` against run `a`; `pairs` pairs arms whose words
/// differ (`(a words, b words)`).
pub fn diff(
    a: &RunDigest,
    b: &RunDigest,
    pairs: &[(String, String)],
) -> Result<RunDiff, DiffError> {
    let (setup_differs, setup_same) = setup_diff(a, b);
    let same_experiment = match (&a.header.experiment_hash, &b.header.experiment_hash) {
        (Some(x), Some(y)) => Some(x == y),
        _ => None,
    };
    let ka = keys(&a.input);
    let kb = keys(&b.input);
    for (pa, pb) in pairs {
        let (pa, pb) = (words(pa), words(pb));
        if !ka.iter().any(|(w, _)| *w == pa) {
            return Err(DiffError::BadPair(
                format!("{pa}={pb}"),
                format!("run A has no arm `{pa}`"),
            ));
        }
        if !kb.iter().any(|(w, _)| *w == pb) {
            return Err(DiffError::BadPair(
                format!("{pa}={pb}"),
                format!("run B has no arm `{pb}`"),
            ));
        }
    }
    let partner = |arm: &str| -> String {
        pairs
            .iter()
            .find(|(x, _)| words(x) == arm)
            .map_or_else(|| arm.to_string(), |(_, y)| words(y))
    };
    let mut out = Vec::new();
    let mut only_a = Vec::new();
    for k in &ka {
        let kb_k = (partner(&k.0), k.1.clone());
        if !kb.contains(&kb_k) {
            only_a.push(key_text(k));
            continue;
        }
        out.push(pair_diff(a, b, k, &kb_k));
    }
    let paired_b: Vec<(String, String)> = ka.iter().map(|k| (partner(&k.0), k.1.clone())).collect();
    let only_b: Vec<String> = kb
        .iter()
        .filter(|k| !paired_b.contains(k))
        .map(key_text)
        .collect();
    if out.is_empty() {
        return Err(DiffError::NothingInCommon {
            a: ka.iter().map(key_text).collect::<Vec<_>>().join(", "),
            b: kb.iter().map(key_text).collect::<Vec<_>>().join(", "),
        });
    }
    let mut arm_pairs: Vec<(String, String)> = Vec::new();
    for p in &out {
        let k = (p.arm_a.clone(), p.arm_b.clone());
        if !arm_pairs.contains(&k) {
            arm_pairs.push(k);
        }
    }
    let sweep = crate::diff_sweep::build(a, b, &arm_pairs);
    let fates = |r: &RunDigest| {
        r.input
            .scenarios
            .iter()
            .filter(|s| s.error.is_none())
            .all(|s| s.fates.is_some())
    };
    Ok(RunDiff {
        format: RunDiff::FORMAT,
        version: RunDiff::VERSION,
        same_run: a.header.run_id == b.header.run_id,
        fates: [fates(a), fates(b)],
        a: a.source.clone(),
        b: b.source.clone(),
        setup_differs,
        setup_same,
        same_experiment,
        pairs: out,
        only_a,
        only_b,
        runs: [run_line(&a.header), run_line(&b.header)],
        sweep,
    })
}

/// The setup items that differ between `a` and `b`, and how many are the
/// same (the experiment's hash aside: it is said as `same_experiment`).
fn setup_diff(a: &RunDigest, b: &RunDigest) -> (Vec<SetupItem>, usize) {
    let sa = setup_items(a);
    let sb = setup_items(b);
    let mut differs = Vec::new();
    let mut same = 0;
    let all: std::collections::BTreeSet<&String> = sa.keys().chain(sb.keys()).collect();
    for k in all {
        let (va, vb) = (sa.get(k), sb.get(k));
        if va == vb {
            same += 1;
            continue;
        }
        // The hash follows the experiment: said once, as same_experiment.
        if k == "experiment_hash" {
            continue;
        }
        differs.push(SetupItem {
            key: k.clone(),
            a: va.cloned().unwrap_or_else(|| "–".into()),
            b: vb.cloned().unwrap_or_else(|| "–".into()),
            explains: explains(k),
        });
    }
    (differs, same)
}

/// A run in one line: `run 7d6d8c, 2026-12-03T07:16:01.896Z – …`, and
/// the folders it was merged from.
fn run_line(h: &Results) -> String {
    let mut s = format!("run {}, {} – {}", h.run_id, h.started_utc, h.finished_utc);
    if let Some(m) = &h.merged {
        let shards: Vec<&str> = m
            .sources
            .iter()
            .filter_map(|x| x.shard.as_deref())
            .collect();
        s.push_str(&format!(", merged from {} folder(s)", m.sources.len()));
        if !shards.is_empty() {
            s.push_str(&format!(" (shards {})", shards.join(", ")));
        }
        if !m.missing.is_empty() {
            s.push_str(&format!(
                ", {} of {} planned scenarios missing",
                m.missing.len(),
                m.planned
            ));
        }
    }
    if let Some(sh) = &h.shard {
        s.push_str(&format!(", shard {}/{} only", sh.k, sh.n));
    }
    s
}

/// The scenarios of `key` in a run, labelled `label` for the comparison.
fn scenarios_of(r: &RunDigest, key: &(String, String), label: &str) -> Vec<Scenario> {
    r.input
        .scenarios
        .iter()
        .filter(|s| words(&s.arm_words) == key.0 && s.point.label == key.1)
        .map(|s| Scenario {
            arm: label.to_string(),
            ..s.clone()
        })
        .collect()
}

/// One pair: A's rounds against B's, by the comparison between arms run
/// on the two runs' scenarios as two arms (`A`, then `B`: every shift is
/// B − A).
fn pair_diff(
    a: &RunDigest,
    b: &RunDigest,
    ka: &(String, String),
    kb: &(String, String),
) -> PairDiff {
    let sa = scenarios_of(a, ka, "A");
    let sb = scenarios_of(b, kb, "B");
    let rounds = (
        sa.iter().filter(|s| s.error.is_none()).count(),
        sb.iter().filter(|s| s.error.is_none()).count(),
    );
    // Each run's states from its scenarios moved in and out of a
    // header, not copied again (1000 rounds of a run are tens of MB).
    let states_of = |v: Vec<Scenario>| -> (String, Vec<Scenario>) {
        let mut input = a.input.clone_header();
        input.scenarios = v;
        // The states' text names its arm (`A: …`); the line names the run.
        let text = crate::state::ArmStates::of_input(&input)
            .first()
            .map_or_else(
                || "no round".into(),
                |s| {
                    let t = s.text();
                    t.strip_prefix(&format!("{}: ", s.arm))
                        .map_or_else(|| t.clone(), str::to_string)
                },
            );
        (text, input.scenarios)
    };
    let (state_a, sa) = states_of(sa);
    let (state_b, sb) = states_of(sb);
    let states = (state_a, state_b);
    // Both runs' delays of one kind (method §5.8): one-way only where
    // every round of both has its fates, else both runs' RTT.
    let one_way = [&sa, &sb].iter().all(|v| {
        v.iter().filter(|s| s.error.is_none()).all(|s| {
            s.delivered_one_way(crate::records::ProbePhase::Loaded)
                .is_some()
        })
    });
    let delays = [Delays::of(&sa, one_way), Delays::of(&sb, one_way)];
    let color = a
        .input
        .scenarios
        .iter()
        .find(|s| words(&s.arm_words) == ka.0 && s.point.label == ka.1)
        .and_then(|s| {
            crate::plots_run::arms(&a.input)
                .iter()
                .position(|x| *x == s.arm)
        })
        .unwrap_or(0);
    let mut input = a.input.clone_header();
    input.scenarios = sa.into_iter().chain(sb).collect();
    let st = crate::compare::analyse(&input);
    let goodput_of = |arm: &str| -> Vec<(u32, f64)> {
        st.figures
            .iter()
            .find(|f| f.arm == arm && f.figure == Figure::Goodput)
            .map(|f| {
                f.rounds
                    .iter()
                    .filter_map(|v| match v.value {
                        crate::stats::CensoredQuantile::Value(x) => Some((v.round, x)),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let goodput = [goodput_of("A"), goodput_of("B")];
    let metrics = st
        .comparisons
        .iter()
        .filter(|c| c.figure != Figure::Fairness)
        .map(|c| metric_diff(c, &st))
        .collect();
    PairDiff {
        arm_a: ka.0.clone(),
        arm_b: kb.0.clone(),
        point: ka.1.clone(),
        rounds,
        states,
        metrics,
        delays,
        goodput,
        color,
    }
}

fn bounded(b: Bounded) -> String {
    match b {
        Bounded::Value(v) => crate::stats::fmt_num(v),
        Bounded::AtMost(v) => format!("≤ {}", crate::stats::fmt_num(v)),
        Bounded::AtLeast(v) => format!("≥ {}", crate::stats::fmt_num(v)),
        Bounded::Unknown => "unknown".into(),
    }
}

/// The key `--fail-on-change` names a figure by.
pub(crate) fn metric_key(f: Figure) -> &'static str {
    match f {
        Figure::LoadedP50 => "p50",
        Figure::LoadedP95 => "p95",
        Figure::Loss => "loss",
        Figure::Goodput => "goodput",
        Figure::Drops => "drops",
        Figure::Fairness => "fairness",
    }
}

fn metric_diff(c: &Comparison, st: &crate::compare::Statistics) -> MetricDiff {
    let values_of = |arm: &str| -> Vec<crate::stats::CensoredQuantile> {
        st.figures
            .iter()
            .find(|f| f.arm == arm && f.figure == c.figure)
            .map(|f| f.rounds.iter().map(|v| v.value).collect())
            .unwrap_or_default()
    };
    let words = |v: Vec<crate::stats::CensoredQuantile>| -> Vec<String> {
        v.iter().map(|q| q.text("").trim().to_string()).collect()
    };
    let numbers = |v: Vec<crate::stats::CensoredQuantile>| -> Vec<DiffNumber> {
        v.into_iter().map(DiffNumber::of_quantile).collect()
    };
    let change = c.supported_shift().map(|(lower, by)| (!lower, by));
    let name = c.delay.name(c.figure);
    let unit = c.figure.unit();
    let u = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    let (lo, hi) = (bounded(c.interval.0), bounded(c.interval.1));
    let sentence = match (change, &c.not_claimed) {
        (Some((higher, by)), _) => format!(
            "{name}: B {} than A by at least {}{u} (shift estimate {}{u}; {:.0} % interval [{lo}, {hi}] over {} vs {} rounds)",
            if higher { "higher" } else { "lower" },
            crate::stats::fmt_num(by),
            bounded(c.point),
            c.level * 100.0,
            c.interval_rounds.0,
            c.interval_rounds.1
        ),
        (None, Some(why)) => format!("{name}: no change claimed: {why}"),
        (None, None) if c.rounds < crate::compare::Comparison::MIN_ROUNDS => format!(
            "{name}: no detectable change: fewer than {} rounds a run (shift estimate {}{u})",
            crate::compare::Comparison::MIN_ROUNDS,
            bounded(c.point)
        ),
        (None, None) => format!(
            "{name}: no detectable change (shift estimate {}{u}; the {:.0} % interval [{lo}, {hi}] includes 0; with {} vs {} rounds a change is claimed only when it moves the rounds of one run past those of the other, so a shift smaller than the rounds' spread cannot be shown)",
            bounded(c.point),
            c.level * 100.0,
            c.interval_rounds.0,
            c.interval_rounds.1
        ),
    };
    MetricDiff {
        metric: name.to_string(),
        key: metric_key(c.figure).to_string(),
        unit: unit.to_string(),
        a_rounds: numbers(values_of("A")),
        b_rounds: numbers(values_of("B")),
        shift: DiffNumber::of_bounded(c.point),
        interval: (
            DiffNumber::of_bounded(c.interval.0),
            DiffNumber::of_bounded(c.interval.1),
        ),
        text: MetricText {
            a_rounds: words(values_of("A")),
            b_rounds: words(values_of("B")),
            shift: bounded(c.point),
            interval: (lo, hi),
        },
        level: c.level,
        change,
        sentence,
    }
}

/// `--fail-on-change METRIC[:THRESHOLD]`: a metric the diff compares and
/// the size of change (in its unit) past which the diff fails.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeGate {
    /// `p50`, `p95`, `loss`, `goodput` or `drops`.
    pub metric: String,
    /// The largest change that passes, in the metric's unit (0: any).
    pub threshold: f64,
}

impl ChangeGate {
    /// The metrics a gate can name.
    pub const METRICS: [&'static str; 5] = ["p50", "p95", "loss", "goodput", "drops"];

    /// Parses `METRIC[:THRESHOLD]`; the reason when it is not one.
    pub fn parse(text: &str) -> Result<ChangeGate, String> {
        let (m, t) = match text.split_once(':') {
            Some((m, t)) => (
                m,
                t.trim()
                    .parse::<f64>()
                    .map_err(|e| format!("threshold {t:?}: {e}"))?,
            ),
            None => (text, 0.0),
        };
        let m = m.trim();
        if !Self::METRICS.contains(&m) {
            return Err(format!(
                "unknown metric {m:?}: one of {}",
                Self::METRICS.join(", ")
            ));
        }
        if !(t.is_finite() && t >= 0.0) {
            return Err("the threshold must be a finite number ≥ 0".into());
        }
        Ok(ChangeGate {
            metric: m.to_string(),
            threshold: t,
        })
    }
}

/// The diff of the runs at paths `a` and `b` (results.json or its
/// folder): [`RunDigest::read`] of each, then [`diff`].
pub fn diff_paths(
    a: &std::path::Path,
    b: &std::path::Path,
    pairs: &[(String, String)],
) -> Result<RunDiff, DiffError> {
    let read = |p: &std::path::Path| {
        RunDigest::read(p).map_err(|source| DiffError::Read {
            path: p.display().to_string(),
            source,
        })
    };
    diff(&read(a)?, &read(b)?, pairs)
}

impl RunDiff {
    /// diff.json's `format`.
    pub const FORMAT: &'static str = "netlab-diff";
    /// diff.json's `version`: 2 since its numbers are numbers with a bound
    /// flag (`{"value": 1000.0, "bound": "at_least"}`, not `"≥ 1000"`),
    /// with `format`, `same_run` and `fates` (1: no `version` field).
    pub const VERSION: u32 = 2;

    /// Why a gate cannot be checked, one line per gate and pair: its
    /// metric was not computed for a pair (the loss without both runs'
    /// fates), or no change could be claimed whatever the runs did (fewer
    /// than 3 rounds a run, or both sides on the censored mass). A gate
    /// that cannot be checked fails (`orchestrator diff` exits 2): it
    /// never passes by accident.
    pub fn unchecked(&self, gates: &[ChangeGate]) -> Vec<String> {
        let mut out = Vec::new();
        let min = crate::compare::Comparison::MIN_ROUNDS;
        for g in gates {
            for p in &self.pairs {
                let why = match p.metrics.iter().find(|m| m.key == g.metric) {
                    None => self.missing_why(&g.metric),
                    Some(_) if p.rounds.0 < min || p.rounds.1 < min => format!(
                        "{} vs {} rounds: with fewer than {min} a run no change can be claimed",
                        p.rounds.0, p.rounds.1
                    ),
                    Some(m)
                        if m.change.is_none()
                            && (m.interval.0.bound == BoundKind::Unknown
                                || m.interval.1.bound == BoundKind::Unknown) =>
                    {
                        "the interval reaches the censored mass (an endpoint is unknown), so no change can be claimed".to_string()
                    }
                    Some(_) => continue,
                };
                out.push(format!(
                    "--fail-on-change {} cannot be checked for {}: {why}",
                    g.metric,
                    pair_title(p)
                ));
            }
        }
        out
    }

    /// Why a metric a gate names was not computed.
    fn missing_why(&self, metric: &str) -> String {
        let lacking: Vec<&str> = ["A", "B"]
            .into_iter()
            .zip(self.fates)
            .filter(|(_, f)| !f)
            .map(|(r, _)| r)
            .collect();
        match metric {
            "loss" if !lacking.is_empty() => format!(
                "the loss needs every round's probe fates (B's receive log, method §5.8) in both runs, and run {} has none",
                lacking.join(" and run ")
            ),
            "drops" => "the arm's drops in the measured window were not read in a run".into(),
            _ => "the runs do not give it".into(),
        }
    }

    /// One line per claimed change past its gate's threshold
    /// (`p95 changed beyond 2.5 in fq_codel (…)`); empty when none is.
    pub fn beyond(&self, gates: &[ChangeGate]) -> Vec<String> {
        let mut out = Vec::new();
        for g in gates {
            for (p, m) in self.changes(&g.metric) {
                if let Some((_, by)) = m.change {
                    if by > g.threshold {
                        out.push(format!(
                            "{} changed beyond {} in {} ({})",
                            g.metric, g.threshold, p.arm_a, m.sentence
                        ));
                    }
                }
            }
        }
        out
    }

    /// The claimed changes of `key`, each with its size.
    pub fn changes(&self, key: &str) -> Vec<(&PairDiff, &MetricDiff)> {
        self.pairs
            .iter()
            .flat_map(|p| p.metrics.iter().map(move |m| (p, m)))
            .filter(|(_, m)| m.key == key && m.change.is_some())
            .collect()
    }

    /// The headline: one line per claimed change, or that none was found.
    pub fn headline(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.same_run {
            out.push(format!(
                "A and B are one run ({}): what follows compares its arms with each other (--pair), not two runs",
                self.runs[0]
            ));
        }
        match self.same_experiment {
            Some(true) => out.push("the same experiment (content hash)".into()),
            Some(false) => out.push("different experiments (content hash)".into()),
            None => {}
        }
        if !self.setup_differs.is_empty() {
            out.push(format!(
                "setup differs in {}: {}",
                self.setup_differs.len(),
                self.setup_differs
                    .iter()
                    .map(|s| s.key.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let mut any = false;
        for p in &self.pairs {
            for m in p.metrics.iter().filter(|m| m.change.is_some()) {
                any = true;
                out.push(format!("{}: {}", pair_title(p), m.sentence));
            }
        }
        if !any {
            out.push("no detectable change in any metric of any arm both runs have".into());
        }
        out
    }

    /// diff.md: [`RunDiff::body`] and a list linking every figure.
    pub fn markdown(&self) -> String {
        use std::fmt::Write as _;
        let mut s = self.body();
        s.push_str("\n## Figures\n\n");
        for (file, title) in self.figure_files() {
            let _ = writeln!(s, "- [{title}]({file})");
        }
        s
    }

    /// The headline, the setup and what moved, as Markdown (diff.md
    /// without its list of figures).
    pub fn body(&self) -> String {
        use std::fmt::Write as _;
        let mut s = format!(
            "# netlab diff\n\nA: `{}` ({})\n\nB: `{}` ({})\n\n## Headline\n\n",
            self.a, self.runs[0], self.b, self.runs[1]
        );
        for l in self.headline() {
            let _ = writeln!(s, "- {l}");
        }
        s.push_str("\n## Setup\n\n");
        if self.setup_differs.is_empty() {
            let _ = writeln!(s, "All {} setup items are the same.\n", self.setup_same);
        } else {
            let _ = writeln!(
                s,
                "{} setup items are the same; these differ:\n\n| item | A | B | can explain |\n|---|---|---|---|",
                self.setup_same
            );
            for d in &self.setup_differs {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} |",
                    d.key,
                    cell(&d.a),
                    cell(&d.b),
                    d.explains.as_deref().unwrap_or("–")
                );
            }
            s.push('\n');
        }
        s.push_str("## What moved\n\nEach metric over the rounds of A against those of B (method §12.3: Hodges–Lehmann shift B − A, exact interval over rounds; a change is claimed only where the interval excludes 0).\n");
        for p in &self.pairs {
            let _ = writeln!(
                s,
                "\n### {}\n\nRounds: A {}, B {}. States: A — {}; B — {}.\n\n| metric | A rounds | B rounds | shift B − A | interval |\n|---|---|---|---|---|",
                pair_title(p),
                p.rounds.0,
                p.rounds.1,
                p.states.0,
                p.states.1
            );
            for m in &p.metrics {
                let _ = writeln!(
                    s,
                    "| {} ({}) | {} | {} | {} | [{}, {}] at {:.0} % |",
                    m.metric,
                    if m.unit.is_empty() { "–" } else { &m.unit },
                    m.text.a_rounds.join(" / "),
                    m.text.b_rounds.join(" / "),
                    m.text.shift,
                    m.text.interval.0,
                    m.text.interval.1,
                    m.level * 100.0
                );
            }
            s.push('\n');
            for m in &p.metrics {
                let _ = writeln!(s, "- {}", m.sentence);
            }
        }
        if !self.only_a.is_empty() || !self.only_b.is_empty() {
            s.push_str("\n## Only in one run\n\n");
            for x in &self.only_a {
                let _ = writeln!(s, "- only in A: {x}");
            }
            for x in &self.only_b {
                let _ = writeln!(s, "- only in B: {x}");
            }
        }
        s
    }

    /// Every figure's file name and what it shows, without drawing it:
    /// per pair its delay CDF (`diff-NN-cdf.svg`) and its goodput per
    /// round (`diff-NN-goodput.svg`), then with a sweep each metric
    /// against each axis (`diff-sweep-METRIC-vs-AXIS.svg`).
    pub fn figure_files(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (k, p) in self.pairs.iter().enumerate() {
            out.push((
                crate::diff_plot::file_name(k + 1),
                format!(
                    "{}: loaded probe delay (CDF), run A solid, run B dashed",
                    pair_title(p)
                ),
            ));
            if p.goodput.iter().any(|g| !g.is_empty()) {
                out.push((
                    crate::diff_plot::goodput_file_name(k + 1),
                    format!(
                        "{}: goodput per round, run A solid, run B dashed",
                        pair_title(p)
                    ),
                ));
            }
        }
        if let Some(sw) = &self.sweep {
            out.extend(sw.files());
        }
        out
    }

    /// Every figure ([`RunDiff::figure_files`]' order): its file name and
    /// SVG text.
    pub fn figures(&self) -> Result<Vec<(String, String)>, crate::ReportError> {
        let mut out = Vec::new();
        for (k, p) in self.pairs.iter().enumerate() {
            out.push(crate::diff_plot::figure(k + 1, p)?);
            out.extend(crate::diff_plot::goodput_figure(k + 1, p)?);
        }
        if let Some(sw) = &self.sweep {
            out.extend(sw.figures()?);
        }
        Ok(out)
    }

    /// Writes diff.md, diff.html, diff.json and every figure into `out`
    /// (created), each file replaced atomically.
    pub fn write_to(&self, out: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(out)?;
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let other = |e: crate::ReportError| std::io::Error::other(e.to_string());
        let mut files = vec![
            ("diff.md".to_string(), self.markdown()),
            ("diff.html".to_string(), self.html().map_err(other)?),
            ("diff.json".to_string(), json),
        ];
        files.extend(self.figures().map_err(other)?);
        for (name, text) in files {
            netlab_os::atomic::write(&out.join(name), text.as_bytes())
                .map_err(|e| std::io::Error::other(e.to_string()))?;
        }
        Ok(())
    }

    /// diff.html: diff.md as one self-contained page, every figure
    /// inline and linked to its SVG file.
    pub fn html(&self) -> Result<String, crate::ReportError> {
        use crate::html::esc;
        let titles = self.figure_files();
        let mut list = String::from("<ul>\n");
        for (file, title) in &titles {
            list.push_str(&format!(
                "<li><a href=\"{}\">{}</a></li>\n",
                esc(file),
                esc(title)
            ));
        }
        list.push_str("</ul>\n");
        let mut figs = String::new();
        for (name, svg) in self.figures()? {
            let svg = svg.find("<svg").map_or(svg.as_str(), |i| &svg[i..]);
            let title = titles
                .iter()
                .find(|(f, _)| *f == name)
                .map_or(name.as_str(), |(_, t)| t.as_str());
            figs.push_str(&format!(
                "<figure id=\"{n}\">{svg}<figcaption><a href=\"{n}\">{n}</a>: {}</figcaption></figure>\n",
                esc(title),
                n = esc(&name)
            ));
        }
        Ok(format!(
            "<!doctype html><html><head><meta charset=utf-8><title>netlab diff</title><style>{}</style></head><body>\n{}<h2>Figures</h2>\n{list}<div class=figs>\n{figs}</div>\n</body></html>\n",
            crate::html::CSS,
            crate::markdown::to_html(&self.body())
        ))
    }
}

/// `pfifo limit 256 at rate=5mbit`, `A-WORDS → B-WORDS` when paired.
pub(crate) fn pair_title(p: &PairDiff) -> String {
    let arm = if p.arm_a == p.arm_b {
        p.arm_a.clone()
    } else {
        format!("{} → {}", p.arm_a, p.arm_b)
    };
    if p.point == "default" || p.point.is_empty() {
        arm
    } else {
        format!("{arm} at {}", p.point)
    }
}

/// A value in a table cell (no pipe, not too long).
fn cell(s: &str) -> String {
    let s = s.replace('|', "/");
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}
