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

use netlab_analysis::records::Scenario;
use netlab_analysis::summary::ScenarioFigures;
use netlab_analysis::ReportInput;
use netlab_compare::compare::{Comparison, Figure};
use netlab_results::Results;
use netlab_stats::Bounded;

mod delays;
mod gate;
mod plot;
mod sweep;
mod text;

pub use delays::Delays;
pub use gate::ChangeGate;
pub(crate) use text::pair_title;

/// The metrics a sweep diff draws ([`RunDiff::sweep`]).
pub use sweep::DiffMetric;

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

    fn of_quantile(q: netlab_stats::CensoredQuantile) -> DiffNumber {
        use netlab_stats::CensoredQuantile as Q;
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
    /// Each run's loaded delays, for the figure ([`crate::diff::plot`]).
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
    /// The sweep figures' data, when a run swept ([`crate::diff::sweep`]).
    #[serde(skip)]
    pub sweep: Option<sweep::DiffSweep>,
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
    #[error("arm pair {0}: {1}")]
    BadPair(String, String),
}

/// Words with single spaces.
fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The setup items of a run: its experiment key by key, the kernel, the
/// build, the machines, the path and arms as read back. The kernel is one
/// item (`kernel`: name, release, source, configuration hash, compiler),
/// so another kernel is one row; the experiment's `kernel` choice and the
/// scenarios' own kernel release are left out where they only repeat it.
fn setup_items(r: &RunDigest) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    if let Ok(v) = serde_json::to_value(&r.header.experiment) {
        flatten("experiment", &v, &mut m);
    }
    m.remove("experiment.kernel");
    m.insert("kernel".into(), r.header.kernel.describe());
    let release = r.header.kernel.release.clone();
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
            .filter(|k| *k != release)
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
    } else if k == "kernel" || k.starts_with("kernel.") || k.starts_with("machine.kernel") {
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
    let sweep = sweep::build(&a.input, &b.input, &arm_pairs);
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
        let text = netlab_analysis::state::ArmStates::of_input(&input)
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
            s.delivered_one_way(netlab_analysis::records::ProbePhase::Loaded)
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
            netlab_figures::plots_run::arms(&a.input)
                .iter()
                .position(|x| *x == s.arm)
        })
        .unwrap_or(0);
    let mut input = a.input.clone_header();
    input.scenarios = sa.into_iter().chain(sb).collect();
    let st = netlab_compare::compare::analyse(&input);
    let goodput_of = |arm: &str| -> Vec<(u32, f64)> {
        st.figures
            .iter()
            .find(|f| f.arm == arm && f.figure == Figure::Goodput)
            .map(|f| {
                f.rounds
                    .iter()
                    .filter_map(|v| match v.value {
                        netlab_stats::CensoredQuantile::Value(x) => Some((v.round, x)),
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
        Bounded::Value(v) => netlab_stats::fmt_num(v),
        Bounded::AtMost(v) => format!("≤ {}", netlab_stats::fmt_num(v)),
        Bounded::AtLeast(v) => format!("≥ {}", netlab_stats::fmt_num(v)),
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

fn metric_diff(c: &Comparison, st: &netlab_compare::compare::Statistics) -> MetricDiff {
    let values_of = |arm: &str| -> Vec<netlab_stats::CensoredQuantile> {
        st.figures
            .iter()
            .find(|f| f.arm == arm && f.figure == c.figure)
            .map(|f| f.rounds.iter().map(|v| v.value).collect())
            .unwrap_or_default()
    };
    let words = |v: Vec<netlab_stats::CensoredQuantile>| -> Vec<String> {
        v.iter().map(|q| q.text("").trim().to_string()).collect()
    };
    let numbers = |v: Vec<netlab_stats::CensoredQuantile>| -> Vec<DiffNumber> {
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
            netlab_stats::fmt_num(by),
            bounded(c.point),
            c.level * 100.0,
            c.interval_rounds.0,
            c.interval_rounds.1
        ),
        (None, Some(why)) => format!("{name}: no change claimed: {why}"),
        (None, None) if c.rounds < netlab_compare::compare::Comparison::MIN_ROUNDS => format!(
            "{name}: no detectable change: fewer than {} rounds a run (shift estimate {}{u})",
            netlab_compare::compare::Comparison::MIN_ROUNDS,
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
}
