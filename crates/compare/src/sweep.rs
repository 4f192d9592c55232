//! A sweep's table (docs/report.md, "Sweep data"): one row per scenario
//! with its point's axis values, arm, round, the round's state and every
//! headline metric, censoring kept ([`SweepTable`]); the axes read from the
//! points results.json records (`rate=5mbit`), each value in its own unit
//! ([`SweepAxis`]); and the values a sweep figure draws at each point,
//! rounds pooled within a point and never across points ([`SweepTable::series`]).
//! Pure: netlab-report's `sweep_file` writes the table as `sweep.csv` and
//! `sweep.json`, its `plot_sweep` draws it.

use serde::{Deserialize, Serialize};

pub use crate::row_model::RowModel;

use netlab_analysis::records::{ProbeOutcome, Scenario};
use netlab_analysis::ReportInput;
use netlab_stats::{censored_quantile, CensoredQuantile, Observation};

/// What an axis' values are, so each is drawn in its own unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AxisKind {
    /// A rate (`5mbit`): Mbit/s.
    Rate,
    /// A duration (`20ms`): ms.
    Duration,
    /// A size (`64kb`): bytes.
    Size,
    /// A plain number (`flows = 4`, `quantum 1514`).
    Number,
    /// Words (`cc = cubic`, `offloads = off`): no order but the file's.
    Category,
}

impl AxisKind {
    /// The unit its numbers are in (empty for numbers and words).
    pub fn unit(self) -> &'static str {
        match self {
            AxisKind::Rate => "Mbit/s",
            AxisKind::Duration => "ms",
            AxisKind::Size => "bytes",
            AxisKind::Number | AxisKind::Category => "",
        }
    }

    /// The suffix of its numeric column in sweep.csv (none for words).
    pub fn column_suffix(self) -> Option<&'static str> {
        match self {
            AxisKind::Rate => Some("mbit_s"),
            AxisKind::Duration => Some("ms"),
            AxisKind::Size => Some("bytes"),
            AxisKind::Number => Some("value"),
            AxisKind::Category => None,
        }
    }
}

impl AxisKind {
    /// One value as the experiment file writes it, read in its unit by the
    /// parsers the experiment file uses: a duration (ms), a plain number, a
    /// rate (Mbit/s), a size (bytes), else a word.
    pub fn parse_value(text: &str) -> (AxisKind, Option<f64>) {
        if let Ok(d) = netlab_experiment::units::parse_duration(text, true) {
            return (AxisKind::Duration, Some(d.as_secs_f64() * 1e3));
        }
        if let Ok(v) = text.parse::<f64>() {
            if v.is_finite() {
                return (AxisKind::Number, Some(v));
            }
        }
        if text.ends_with("bit") || text.ends_with("bps") {
            if let Ok(r) = netlab_qdisc_model::Rate::parse(text) {
                return (AxisKind::Rate, Some(r.bits_per_sec() as f64 / 1e6));
            }
        }
        if let Ok(s) = netlab_qdisc_model::Size::parse(text) {
            return (AxisKind::Size, Some(s.0 as f64));
        }
        (AxisKind::Category, None)
    }
}

/// One value of an axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AxisTick {
    /// As the experiment file writes it (`5mbit`).
    pub text: String,
    /// In the axis' unit (None for words).
    pub x: Option<f64>,
}

/// One swept axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepAxis {
    /// Its name (`rate`, `base_rtt`, `flows`, `fq_codel.target`).
    pub name: String,
    /// What its values are.
    pub kind: AxisKind,
    /// Its values: ascending for numbers, in the grid's order for words.
    pub values: Vec<AxisTick>,
}

impl SweepAxis {
    /// The values a row holds on every axis but `axis` (`base_rtt=20ms`),
    /// `values` in the order of `axes`: what tells one panel of a figure
    /// against `axis` from another.
    pub fn held(axes: &[SweepAxis], values: &[String], axis: usize) -> Vec<String> {
        axes.iter()
            .zip(values)
            .enumerate()
            .filter(|(i, _)| *i != axis)
            .map(|(_, (a, v))| format!("{}={v}", a.name))
            .collect()
    }

    /// `rate (Mbit/s)`, `flows`.
    pub fn title(&self) -> String {
        match self.kind.unit() {
            "" => self.name.clone(),
            u => format!("{} ({u})", self.name),
        }
    }

    /// The values span 10× or more (all positive): drawn on a log axis.
    pub fn is_log(&self) -> bool {
        let xs: Vec<f64> = self.values.iter().filter_map(|v| v.x).collect();
        if xs.len() < 2 || xs.iter().any(|x| *x <= 0.0) {
            return false;
        }
        let (lo, hi) = xs
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
        hi / lo >= 10.0
    }

    /// Position of `text` on the axis: its number, or its index for words.
    pub fn position(&self, text: &str) -> Option<f64> {
        let i = self.values.iter().position(|v| v.text == text)?;
        Some(self.values[i].x.unwrap_or(i as f64))
    }
}

/// The index of the first element `is` picks, pushing `new()` at the end
/// when none does: grouping rows in order of first appearance.
pub(crate) fn index_or_push<T>(
    v: &mut Vec<T>,
    is: impl Fn(&T) -> bool,
    new: impl FnOnce() -> T,
) -> usize {
    match v.iter().position(is) {
        Some(i) => i,
        None => {
            v.push(new());
            v.len() - 1
        }
    }
}

/// `rate=5mbit` → (`rate`, `5mbit`).
fn split_value(v: &str) -> (&str, &str) {
    v.split_once('=').unwrap_or((v, ""))
}

impl SweepAxis {
    /// The swept axes of a run, from its scenarios' points (axis order as the
    /// experiment's; empty without a sweep).
    pub fn of_scenarios(scenarios: &[Scenario]) -> Vec<SweepAxis> {
        let mut out: Vec<SweepAxis> = Vec::new();
        for s in scenarios {
            for v in &s.point.values {
                let (name, text) = split_value(v);
                let i = index_or_push(
                    &mut out,
                    |a| a.name == name,
                    || SweepAxis {
                        name: name.to_string(),
                        kind: AxisKind::Category,
                        values: Vec::new(),
                    },
                );
                if !out[i].values.iter().any(|x| x.text == text) {
                    out[i].values.push(AxisTick {
                        text: text.to_string(),
                        x: None,
                    });
                }
            }
        }
        for a in &mut out {
            let parsed: Vec<(AxisKind, Option<f64>)> = a
                .values
                .iter()
                .map(|v| AxisKind::parse_value(&v.text))
                .collect();
            let kind = parsed[0].0;
            if parsed.iter().all(|(k, _)| *k == kind) && kind != AxisKind::Category {
                a.kind = kind;
                for (v, (_, x)) in a.values.iter_mut().zip(parsed) {
                    v.x = x;
                }
                a.values
                    .sort_by(|p, q| p.x.unwrap_or(0.0).total_cmp(&q.x.unwrap_or(0.0)));
            }
        }
        out
    }
}

/// A measured value: exact, or only a lower bound (censored).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measured {
    /// The value.
    Value(f64),
    /// At least this: the quantile lies on the censored mass.
    AtLeast(f64),
}

impl Measured {
    /// From a censoring-aware quantile (None without data).
    pub fn of(q: CensoredQuantile) -> Option<Measured> {
        match q {
            CensoredQuantile::Value(v) => Some(Measured::Value(v)),
            CensoredQuantile::AtLeast(v) => Some(Measured::AtLeast(v)),
            CensoredQuantile::NoData => None,
        }
    }

    /// The number drawn: the value or the bound.
    pub fn level(self) -> f64 {
        match self {
            Measured::Value(v) | Measured::AtLeast(v) => v,
        }
    }

    /// As an observation of the censored statistics.
    pub fn observation(self) -> Observation {
        match self {
            Measured::Value(v) => Observation::Exact(v),
            Measured::AtLeast(v) => Observation::AtLeast(v),
        }
    }
}

/// A headline metric of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepMetric {
    /// The stop-and-wait probe's loaded RTT p50 (Kaplan–Meier, a timeout
    /// censored at the timeout).
    RttP50,
    /// Its p95.
    RttP95,
    /// The isochronous probe's loaded one-way A→B delay p50.
    IsoUpP50,
    /// Its p99.
    IsoUpP99,
    /// Aggregate goodput of the upload flows.
    GoodputUp,
    /// Aggregate goodput of the download flows.
    GoodputDown,
    /// The arm's drop counter at the end of the measured window.
    Drops,
    /// The arm's ECN (CE) mark counter at the end of the window.
    CeMarks,
    /// Jain's index over the upload flows' goodputs.
    JainUp,
    /// Jain's index over the download flows' goodputs.
    JainDown,
    /// fq_codel's `new_flow_count` over the measured window per
    /// isochronous probe packet sent in it (docs/models.md, model 2).
    NewFlowsPerProbe,
    /// The arm's marks and drops over the packets that reached it in the
    /// measured window (docs/models.md, model 3).
    SignalProb,
    /// The first flow's mean tcp_info RTT in the window less the base RTT.
    FlowQueueDelay,
    /// The BBR upload flows' share of all upload flows' goodput
    /// (docs/models.md, model 4).
    BbrShare,
}

impl SweepMetric {
    /// Every metric, in column order.
    pub const ALL: [SweepMetric; 14] = [
        SweepMetric::RttP50,
        SweepMetric::RttP95,
        SweepMetric::IsoUpP50,
        SweepMetric::IsoUpP99,
        SweepMetric::GoodputUp,
        SweepMetric::GoodputDown,
        SweepMetric::Drops,
        SweepMetric::CeMarks,
        SweepMetric::JainUp,
        SweepMetric::JainDown,
        SweepMetric::NewFlowsPerProbe,
        SweepMetric::SignalProb,
        SweepMetric::FlowQueueDelay,
        SweepMetric::BbrShare,
    ];

    /// Its key: sweep.csv's column, sweep.json's field, the figure's file.
    pub fn key(self) -> &'static str {
        match self {
            SweepMetric::RttP50 => "rtt_p50_ms",
            SweepMetric::RttP95 => "rtt_p95_ms",
            SweepMetric::IsoUpP50 => "iso_up_p50_ms",
            SweepMetric::IsoUpP99 => "iso_up_p99_ms",
            SweepMetric::GoodputUp => "goodput_up_mbit_s",
            SweepMetric::GoodputDown => "goodput_down_mbit_s",
            SweepMetric::Drops => "drops",
            SweepMetric::CeMarks => "ce_marks",
            SweepMetric::JainUp => "jain_up",
            SweepMetric::JainDown => "jain_down",
            SweepMetric::NewFlowsPerProbe => "new_flows_per_probe_packet",
            SweepMetric::SignalProb => "signal_probability",
            SweepMetric::FlowQueueDelay => "flow_queue_delay_ms",
            SweepMetric::BbrShare => "bbr_share",
        }
    }

    /// Its name in a figure.
    pub fn name(self) -> &'static str {
        match self {
            SweepMetric::RttP50 => "loaded stop-and-wait probe RTT p50",
            SweepMetric::RttP95 => "loaded stop-and-wait probe RTT p95",
            SweepMetric::IsoUpP50 => "loaded isochronous probe one-way A→B delay p50",
            SweepMetric::IsoUpP99 => "loaded isochronous probe one-way A→B delay p99",
            SweepMetric::GoodputUp => "upload goodput (all upload flows)",
            SweepMetric::GoodputDown => "download goodput (all download flows)",
            SweepMetric::Drops => "drops in the measured window (the arm's counter)",
            SweepMetric::CeMarks => "CE marks in the measured window (the arm's counter)",
            SweepMetric::JainUp => "Jain's index over the upload flows",
            SweepMetric::JainDown => "Jain's index over the download flows",
            SweepMetric::NewFlowsPerProbe => {
                "new flows per probe packet (the arm's new_flow_count)"
            }
            SweepMetric::SignalProb => {
                "congestion-signal probability (the arm's marks and drops per packet reaching it)"
            }
            SweepMetric::FlowQueueDelay => {
                "the flows' queueing delay (tcp_info RTT less the base RTT)"
            }
            SweepMetric::BbrShare => "the BBR flows' share of the upload flows' goodput",
        }
    }

    /// Its unit (empty for an index).
    pub fn unit(self) -> &'static str {
        match self {
            SweepMetric::RttP50
            | SweepMetric::RttP95
            | SweepMetric::IsoUpP50
            | SweepMetric::IsoUpP99
            | SweepMetric::FlowQueueDelay => "ms",
            SweepMetric::GoodputUp | SweepMetric::GoodputDown => "Mbit/s",
            SweepMetric::Drops | SweepMetric::CeMarks => "packets",
            SweepMetric::JainUp
            | SweepMetric::JainDown
            | SweepMetric::NewFlowsPerProbe
            | SweepMetric::SignalProb
            | SweepMetric::BbrShare => "",
        }
    }

    /// Whether its value can be censored (a quantile on the censored mass).
    pub fn can_be_censored(self) -> bool {
        matches!(
            self,
            SweepMetric::RttP50
                | SweepMetric::RttP95
                | SweepMetric::IsoUpP50
                | SweepMetric::IsoUpP99
        )
    }
}

/// The metrics of one scenario (None: not measured, or not applicable).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SweepMetrics {
    /// [`SweepMetric::RttP50`], ms.
    pub rtt_p50_ms: Option<Measured>,
    /// [`SweepMetric::RttP95`], ms.
    pub rtt_p95_ms: Option<Measured>,
    /// [`SweepMetric::IsoUpP50`], ms.
    pub iso_up_p50_ms: Option<Measured>,
    /// [`SweepMetric::IsoUpP99`], ms.
    pub iso_up_p99_ms: Option<Measured>,
    /// [`SweepMetric::GoodputUp`], Mbit/s.
    pub goodput_up_mbit_s: Option<Measured>,
    /// [`SweepMetric::GoodputDown`], Mbit/s.
    pub goodput_down_mbit_s: Option<Measured>,
    /// [`SweepMetric::Drops`], packets.
    pub drops: Option<Measured>,
    /// [`SweepMetric::CeMarks`], packets.
    pub ce_marks: Option<Measured>,
    /// [`SweepMetric::JainUp`].
    pub jain_up: Option<Measured>,
    /// [`SweepMetric::JainDown`].
    pub jain_down: Option<Measured>,
    /// [`SweepMetric::NewFlowsPerProbe`].
    pub new_flows_per_probe_packet: Option<Measured>,
    /// [`SweepMetric::SignalProb`].
    #[serde(default)]
    pub signal_probability: Option<Measured>,
    /// [`SweepMetric::FlowQueueDelay`], ms.
    #[serde(default)]
    pub flow_queue_delay_ms: Option<Measured>,
    /// [`SweepMetric::BbrShare`].
    #[serde(default)]
    pub bbr_share: Option<Measured>,
}

impl SweepMetrics {
    /// One metric's value.
    pub fn get(&self, m: SweepMetric) -> Option<Measured> {
        match m {
            SweepMetric::RttP50 => self.rtt_p50_ms,
            SweepMetric::RttP95 => self.rtt_p95_ms,
            SweepMetric::IsoUpP50 => self.iso_up_p50_ms,
            SweepMetric::IsoUpP99 => self.iso_up_p99_ms,
            SweepMetric::GoodputUp => self.goodput_up_mbit_s,
            SweepMetric::GoodputDown => self.goodput_down_mbit_s,
            SweepMetric::Drops => self.drops,
            SweepMetric::CeMarks => self.ce_marks,
            SweepMetric::JainUp => self.jain_up,
            SweepMetric::JainDown => self.jain_down,
            SweepMetric::NewFlowsPerProbe => self.new_flows_per_probe_packet,
            SweepMetric::SignalProb => self.signal_probability,
            SweepMetric::FlowQueueDelay => self.flow_queue_delay_ms,
            SweepMetric::BbrShare => self.bbr_share,
        }
    }
}

/// One scenario of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// 1-based position in execution order.
    pub scenario: u32,
    /// The point's 1-based position in the grid.
    pub point: u32,
    /// The point's label (`rate=5mbit flows=2`).
    pub point_label: String,
    /// Each axis' value as the file writes it, in [`SweepTable::axes`] order.
    pub axis_values: Vec<String>,
    /// Arm kind.
    pub arm: String,
    /// The arm in tc words.
    pub arm_words: String,
    /// Round.
    pub round: u32,
    /// The round's state from the sender's tcp_info (`1 cut`, `≥ 5 cuts`;
    /// docs/method.md §12.6), when classified.
    pub state: Option<String>,
    /// Why the scenario failed (its metrics are then empty).
    pub error: Option<String>,
    /// Loaded stop-and-wait requests with RTT information, and how many
    /// timed out (None when the probe did not run).
    pub rtt_requests: Option<[usize; 2]>,
    /// Loaded isochronous slots by fate (None when the probe did not
    /// run): delivered slots are the delays of `iso_up_*`; dropped ones
    /// are losses; unresolved ones are censored at their own bounds
    /// (method §5.8).
    pub iso_slots: Option<netlab_analysis::SlotCounts>,
    /// The metrics.
    pub metrics: SweepMetrics,
    /// The models' inputs and predictions (None when the experiment names
    /// no model; docs/models.md).
    pub model: Option<RowModel>,
}

/// The whole table: what sweep.csv and sweep.json hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepTable {
    /// Format of sweep.json (`netlab-sweep`).
    pub format: String,
    /// Its version; a change of shape bumps it.
    pub version: u32,
    /// The run.
    pub run_id: String,
    /// The swept axes.
    pub axes: Vec<SweepAxis>,
    /// The models the experiment names (`[report] models`), by word.
    pub models: Vec<String>,
    /// One row per scenario, in execution order.
    pub rows: Vec<SweepRow>,
}

impl SweepTable {
    /// sweep.json's `format`.
    pub const FORMAT: &str = "netlab-sweep";
}
impl SweepTable {
    /// sweep.json's `version`.
    /// Version 2 added the models (`models`, each row's `model`) and the
    /// new-flow share (`new_flows_per_probe_packet`); version 3 the
    /// congestion-signal probability and the flows' queueing delay
    /// (`signal_probability`, `flow_queue_delay_ms`) and model 3's columns;
    /// version 4 the isochronous slots by fate (`iso_slots` for
    /// `iso_requests`) and `iso_up_*` over delivered slots only (method
    /// §5.8: a lost slot is not a delay, an unresolved one is censored at
    /// its own bound).
    pub const VERSION: u32 = 4;
}

/// The stop-and-wait probe's loaded observations: a reply exact, a
/// timeout at least the timeout.
fn rtt_obs(s: &Scenario) -> Vec<Observation> {
    s.loaded_probes()
        .map(|p| match p.outcome {
            ProbeOutcome::Reply { rtt_ms } => Observation::Exact(rtt_ms),
            _ => Observation::AtLeast(s.probe_timeout_s * 1e3),
        })
        .collect()
}

/// One direction's aggregate goodput and, with several flows, Jain's index.
fn direction(s: &Scenario, dir: &str) -> (Option<Measured>, Option<Measured>) {
    match s.directions.iter().find(|d| d.direction == dir) {
        Some(d) => (
            d.goodput_mbps.map(Measured::Value),
            d.fairness.filter(|_| d.flows > 1).map(Measured::Value),
        ),
        None => (None, None),
    }
}

/// Each axis' value at `s`'s point as the file writes it (empty where the
/// point does not set it), in `axes` order.
pub fn axis_values(s: &Scenario, axes: &[SweepAxis]) -> Vec<String> {
    axes.iter()
        .map(|a| {
            s.point
                .values
                .iter()
                .map(|v| split_value(v))
                .find(|(n, _)| *n == a.name)
                .map_or_else(String::new, |(_, t)| t.to_string())
        })
        .collect()
}

/// The row of one scenario; `models` are the experiment's.
pub(crate) fn row(
    s: &Scenario,
    axes: &[SweepAxis],
    models: &[netlab_experiment::ModelKind],
) -> SweepRow {
    let axis_values = axis_values(s, axes);
    let mut r = SweepRow {
        scenario: s.index,
        point: s.point.index,
        point_label: s.point.label.clone(),
        axis_values,
        arm: s.arm.clone(),
        arm_words: s.arm_words.clone(),
        round: s.round,
        state: netlab_analysis::state::RoundState::of(s)
            .ok()
            .map(|st| st.kind.short()),
        error: s.error.clone(),
        rtt_requests: None,
        iso_slots: None,
        metrics: SweepMetrics::default(),
        model: crate::row_model::of(s, models),
    };
    if s.error.is_some() {
        return r;
    }
    let m = &mut r.metrics;
    if !s.probes.is_empty() {
        let o = rtt_obs(s);
        let timeouts = o
            .iter()
            .filter(|x| matches!(x, Observation::AtLeast(_)))
            .count();
        r.rtt_requests = Some([o.len(), timeouts]);
        m.rtt_p50_ms = Measured::of(censored_quantile(&o, 0.5));
        m.rtt_p95_ms = Measured::of(censored_quantile(&o, 0.95));
    }
    if let Some((delays, counts)) = netlab_analysis::iso_slot_delays(s) {
        r.iso_slots = Some(counts);
        let q = netlab_results::fate::one_way_quantiles(delays);
        m.iso_up_p50_ms = q.map(|q| Measured::Value(q.p50_ms));
        m.iso_up_p99_ms = q.map(|q| Measured::Value(q.p99_ms));
    }
    (m.goodput_up_mbit_s, m.jain_up) = direction(s, "up");
    (m.goodput_down_mbit_s, m.jain_down) = direction(s, "down");
    // Drops and marks inside the measured window (method §12.8), not
    // since the arm was configured.
    let w = s.window_counts();
    m.drops = w.map(|w| Measured::Value(w.drops as f64));
    m.ce_marks = w.and_then(|w| w.marks).map(|d| Measured::Value(d as f64));
    m.new_flows_per_probe_packet = s
        .readbacks
        .new_flows
        .and_then(|n| n.per_probe_packet())
        .map(Measured::Value);
    m.signal_probability = w.and_then(|w| w.signal_probability()).map(Measured::Value);
    m.flow_queue_delay_ms = s.flows_queue_delay_ms().map(Measured::Value);
    m.bbr_share = s.bbr_share().map(Measured::Value);
    r
}

impl SweepTable {
    /// The table of a run with at least one swept axis (None without a sweep).
    pub fn of(input: &ReportInput) -> Option<SweepTable> {
        let axes = crate::sweep::SweepAxis::of_scenarios(&input.scenarios);
        if axes.is_empty() {
            return None;
        }
        let rows = input
            .scenarios
            .iter()
            .map(|s| row(s, &axes, &input.models))
            .collect();
        Some(SweepTable {
            format: SweepTable::FORMAT.into(),
            version: SweepTable::VERSION,
            run_id: input.run_id.clone(),
            axes,
            models: input
                .models
                .iter()
                .map(|m| m.as_str().to_string())
                .collect(),
            rows,
        })
    }
}

/// One round's value at a point, as a figure draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundDot {
    /// Round.
    pub round: u32,
    /// Its value (a bound when censored).
    pub value: Measured,
    /// Its state, when classified.
    pub state: Option<String>,
}

/// One arm at one point of a figure: every round's value and the figure
/// that stands for them (rounds of this point only; docs/report.md,
/// "Rounds").
#[derive(Debug, Clone, PartialEq)]
pub struct PointValues {
    /// Position on the axis (its number, or its index for words).
    pub x: f64,
    /// The point's grid index.
    pub point: u32,
    /// Every round that has a value.
    pub rounds: Vec<RoundDot>,
    /// The rounds' mean (fewer than three) or median (three or more),
    /// a bound where a censored round can move it
    /// ([`netlab_stats::summarise`]); never one round for several.
    pub summary: Option<Measured>,
}

impl PointValues {
    /// Mean or median, as [`PointValues::summary`] is.
    pub fn how(&self) -> netlab_stats::Summary {
        netlab_stats::Summary::for_rounds(self.rounds.len())
    }

    /// Every round and their summary: `7.88 / 16.82 (mean 12.35)`, or
    /// `median 5 (4–9)` from three rounds on; `num` formats a number.
    pub fn text(&self, num: impl Fn(f64) -> String) -> String {
        let o: Vec<Observation> = self.rounds.iter().map(|d| d.value.observation()).collect();
        netlab_stats::summarise(&o).map_or_else(|| "–".to_string(), |s| s.text(num))
    }
}

impl PointValues {
    /// How the points of a figure are summarised: `median over rounds`,
    /// `mean of the rounds`, or both when the points' round counts differ.
    pub fn summary_words<'a>(points: impl IntoIterator<Item = &'a PointValues>) -> &'static str {
        let (mut mean, mut median) = (false, false);
        for p in points {
            match p.how() {
                netlab_stats::Summary::Mean => mean = true,
                netlab_stats::Summary::Median => median = true,
            }
        }
        match (mean, median) {
            (true, true) => "mean of fewer than 3 rounds, else median over rounds",
            (true, false) => "mean of the rounds (each round a dot)",
            _ => "median over rounds",
        }
    }
}

/// One arm's line in one panel.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmSeries {
    /// Arm kind.
    pub arm: String,
    /// Its points, ascending in x.
    pub points: Vec<PointValues>,
}

/// One panel: the other axes held at one value each.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// The other axes' values (`base_rtt=20ms`), empty with one axis.
    pub held: Vec<String>,
    /// One series per arm, arms in order of first appearance.
    pub arms: Vec<ArmSeries>,
}

impl SweepTable {
    /// The other axes' values of a row (`base_rtt=20ms`), as a panel holds them.
    pub fn held_of(&self, r: &SweepRow, axis: usize) -> Vec<String> {
        SweepAxis::held(&self.axes, &r.axis_values, axis)
    }
}

impl SweepTable {
    /// What the figure of `metric` against axis `axis` (index into
    /// `table.axes`) draws: one panel per combination of the other axes'
    /// values; in each, per arm and point, the rounds of that point alone.
    pub fn series(&self, metric: SweepMetric, axis: usize) -> Vec<Panel> {
        let table = self;
        let ax = &table.axes[axis];
        let held_of = |r: &SweepRow| table.held_of(r, axis);
        let mut panels: Vec<Panel> = Vec::new();
        for r in table.rows.iter().filter(|r| r.error.is_none()) {
            let held = held_of(r);
            let Some(x) = ax.position(&r.axis_values[axis]) else {
                continue;
            };
            let p = index_or_push(
                &mut panels,
                |p| p.held == held,
                || Panel {
                    held: held.clone(),
                    arms: Vec::new(),
                },
            );
            let arms = &mut panels[p].arms;
            let a = index_or_push(
                arms,
                |a| a.arm == r.arm,
                || ArmSeries {
                    arm: r.arm.clone(),
                    points: Vec::new(),
                },
            );
            let pts = &mut arms[a].points;
            let k = index_or_push(
                pts,
                |q| q.point == r.point,
                || PointValues {
                    x,
                    point: r.point,
                    rounds: Vec::new(),
                    summary: None,
                },
            );
            if let Some(v) = r.metrics.get(metric) {
                pts[k].rounds.push(RoundDot {
                    round: r.round,
                    value: v,
                    state: r.state.clone(),
                });
            }
        }
        for panel in &mut panels {
            for a in &mut panel.arms {
                a.points.sort_by(|p, q| p.x.total_cmp(&q.x));
                for p in &mut a.points {
                    let o: Vec<Observation> =
                        p.rounds.iter().map(|d| d.value.observation()).collect();
                    p.summary = netlab_stats::summarise(&o).and_then(|s| Measured::of(s.value));
                }
            }
        }
        panels
    }
}

impl SweepTable {
    /// The metrics a run has data for (a figure each against each axis).
    pub fn metrics_with_data(&self) -> Vec<SweepMetric> {
        let table = self;
        SweepMetric::ALL
            .into_iter()
            .filter(|m| table.rows.iter().any(|r| r.metrics.get(*m).is_some()))
            .collect()
    }
}
