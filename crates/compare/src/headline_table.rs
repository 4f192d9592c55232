//! The headline as a table first (docs/report.md, "The headline"): per arm
//! (and per sweep point) the delay over the measured window, p50 and p95,
//! the share of the window's samples lost, goodput, and the drops and
//! marks inside the window, each cell holding its rounds; then at most one
//! short sentence per arm for what the table cannot say. A reader finds any
//! arm's answer in one row. Every number is the headline's own
//! ([`ArmHeadline`]: the window's delay of [`WindowDelay`], goodput over
//! the rounds, the window's counters), each round's from the same function
//! on that round alone, so the table and the sentences below it never
//! disagree.
//!
//! A sweep's headline is one small table per metric, arms as rows and
//! points as columns ([`SweepTables`]).

use std::fmt::Write as _;

use crate::headline::{ArmHeadline, Headline};
use crate::window::{Measure, WindowDelay};
use netlab_analysis::records::Scenario;
use netlab_analysis::ReportInput;
use netlab_stats::{fmt_num, CensoredQuantile};

/// A column of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// The delay over the window, p50.
    DelayP50,
    /// The delay over the window, p95.
    DelayP95,
    /// The window's samples that never reached B (or, without B's log,
    /// got no reply in time), %.
    Lost,
    /// Goodput over the window, Mbit/s.
    Goodput,
    /// The arm's drops inside the window, packets.
    Drops,
    /// The arm's ECN marks inside the window, packets.
    Marks,
}

impl Metric {
    /// Every column, in order.
    pub const ALL: [Metric; 6] = [
        Metric::DelayP50,
        Metric::DelayP95,
        Metric::Lost,
        Metric::Goodput,
        Metric::Drops,
        Metric::Marks,
    ];

    /// The column's heading, with its unit; `delay` names the delay the
    /// run measured (`one-way delay` or `RTT`).
    pub fn heading(self, delay: &str) -> String {
        match self {
            Metric::DelayP50 => format!("{delay} p50, ms"),
            Metric::DelayP95 => format!("{delay} p95, ms"),
            // Without B's receive log a timeout is no loss: only "no
            // reply within the timeout" is known (method §5.8).
            Metric::Lost if delay == "RTT" => "no reply in time, %".into(),
            Metric::Lost => "lost, %".into(),
            Metric::Goodput => "goodput, Mbit/s".into(),
            Metric::Drops => "drops in window".into(),
            Metric::Marks => "marks in window".into(),
        }
    }
}

/// One arm's row: a cell per [`Metric`], and what needs a look.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmRow {
    /// The arm's label.
    pub arm: String,
    /// The cells, in [`Metric::ALL`]'s order: the arm's figure, then its
    /// rounds in brackets.
    pub cells: Vec<String>,
    /// Rounds whose probe missed slots or whose CPU limited the path,
    /// flagged beside the arm's numbers (`r2: the isochronous probe missed
    /// 136 slots, CPU the bottleneck (81 % busy)`).
    pub flags: Vec<String>,
}

/// A headline's table.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadlineTable {
    /// What the delay columns measure: `one-way delay` or `RTT`.
    pub delay: String,
    /// One row per arm.
    pub rows: Vec<ArmRow>,
}

/// Each round's window delay, the scenarios of `arm` in `input` one at a
/// time, in their order.
fn rounds_of<'a>(input: &'a ReportInput, arm: &str) -> Vec<&'a Scenario> {
    input
        .scenarios
        .iter()
        .filter(|s| s.arm == arm && s.error.is_none())
        .collect()
}

/// A number as the table writes it: `≥ 1000` on the censored mass.
fn num(q: &CensoredQuantile) -> String {
    match q {
        CensoredQuantile::Value(v) => fmt_num(*v),
        CensoredQuantile::AtLeast(v) => format!("≥ {}", fmt_num(*v)),
        CensoredQuantile::NoData => "–".into(),
    }
}

/// `4.14 (3.90 / 4.20 / 4.41)`: the figure, then each round's; a single
/// round's value alone; rounds alone when there is no figure for them all
/// (rounds in different states are not pooled).
fn with_rounds(all: Option<String>, rounds: &[String]) -> String {
    match (all, rounds.len()) {
        (Some(a), 0 | 1) => a,
        (Some(a), _) => format!("{a} ({})", rounds.join(" / ")),
        (None, 0) => "–".into(),
        (None, _) => format!("rounds {}", rounds.join(" / ")),
    }
}

fn lost_pct(w: &WindowDelay) -> Option<f64> {
    let sent = w.sent();
    if sent == 0 {
        return None;
    }
    let lost = match w.measure {
        Measure::OneWay => w.fates.lost(),
        Measure::RttCensored => w.timeouts,
    };
    Some(100.0 * f64::from(lost) / f64::from(sent))
}

fn counts(v: &[u64]) -> String {
    if v.is_empty() {
        return "–".into();
    }
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(" / ")
}

impl ArmRow {
    /// The row of `a`, whose rounds are `arm`'s scenarios in `input`.
    fn of(a: &ArmHeadline, input: &ReportInput) -> ArmRow {
        let rounds = rounds_of(input, &a.arm);
        let each: Vec<Option<WindowDelay>> = rounds
            .iter()
            .map(|s| WindowDelay::of_rounds(&[s]))
            .collect();
        // Rounds in different states, or a state changing inside the
        // window, are never pooled (method §12.6): their rounds only.
        let pooled = a.window.as_ref().filter(|_| a.by_state.is_empty());
        let delay = |p: f64| {
            let rs: Vec<String> = each
                .iter()
                .map(|w| w.as_ref().map_or("–".into(), |w| num(&w.quantile(p))))
                .collect();
            with_rounds(pooled.map(|w| num(&w.quantile(p))), &rs)
        };
        let lost = {
            let rs: Vec<String> = each
                .iter()
                .map(|w| {
                    w.as_ref()
                        .and_then(lost_pct)
                        .map_or("–".into(), |v| format!("{v:.1}"))
                })
                .collect();
            with_rounds(
                a.window
                    .as_ref()
                    .and_then(lost_pct)
                    .map(|v| format!("{v:.1}")),
                &rs,
            )
        };
        let goodput = a
            .goodput
            .as_ref()
            .map_or("–".into(), |g| g.text(|v| format!("{v:.2}")));
        ArmRow {
            arm: a.arm.clone(),
            cells: vec![
                delay(0.5),
                delay(0.95),
                lost,
                goodput,
                counts(&a.drops),
                counts(&a.marks),
            ],
            flags: flags(input, &a.arm),
        }
    }
}

/// The rounds of `arm` whose probe missed isochronous slots or whose CPU
/// was the bottleneck (the summary's figures of each scenario).
fn flags(input: &ReportInput, arm: &str) -> Vec<String> {
    let points: Vec<u32> = input.scenarios.iter().map(|s| s.point.index).collect();
    let mut out = Vec::new();
    for f in input
        .figures
        .iter()
        .filter(|f| f.arm == arm && points.contains(&f.point_index))
    {
        let mut what = Vec::new();
        if let Some(iso) = f.iso.as_ref().filter(|i| i.missed > 0) {
            what.push(format!("the isochronous probe missed {} slots", iso.missed));
        }
        if let Some(b) = &f.path_seen.bottleneck {
            if b.directions
                .iter()
                .any(|d| d.verdict == netlab_results::Verdict::Cpu)
            {
                let busy = b
                    .cpu
                    .as_ref()
                    .and_then(|c| c.cpu_busy.iter().copied().reduce(f64::max))
                    .map(|x| format!(" ({:.0} % busy)", 100.0 * x))
                    .unwrap_or_default();
                what.push(format!("CPU the bottleneck{busy}"));
            }
        }
        if !what.is_empty() {
            out.push(format!("r{}: {}", f.round, what.join(", ")));
        }
    }
    out
}

impl HeadlineTable {
    /// The table of `hl`, a headline of `input`'s scenarios (one point's,
    /// in a sweep).
    pub fn of(input: &ReportInput, hl: &Headline) -> HeadlineTable {
        let delay = match hl.arms.iter().find_map(|a| a.window.as_ref()) {
            Some(w) if w.measure == Measure::OneWay => "one-way delay",
            _ => "RTT",
        };
        HeadlineTable {
            delay: delay.into(),
            rows: hl.arms.iter().map(|a| ArmRow::of(a, input)).collect(),
        }
    }

    /// As Markdown: a table, then one line per flagged arm.
    pub fn markdown(&self) -> String {
        let mut s = String::from("| arm |");
        for m in Metric::ALL {
            let _ = write!(s, " {} |", m.heading(&self.delay));
        }
        s.push_str("\n|---|");
        s.push_str(&"---|".repeat(Metric::ALL.len()));
        s.push('\n');
        for r in &self.rows {
            let flag = if r.flags.is_empty() { "" } else { " ⚠" };
            let _ = writeln!(s, "| {}{flag} | {} |", r.arm, r.cells.join(" | "));
        }
        s
    }

    /// One short sentence per arm the table cannot say all of: the rounds'
    /// states when they disagree, and the flagged rounds.
    pub fn sentences(&self, hl: &Headline) -> Vec<String> {
        let mut out = Vec::new();
        for (r, a) in self.rows.iter().zip(&hl.arms) {
            let mut parts = Vec::new();
            if !a.by_state.is_empty() {
                let states: Vec<String> = a
                    .by_state
                    .iter()
                    .map(|s| {
                        let rounds: Vec<String> =
                            s.rounds.iter().map(|r| format!("r{r}")).collect();
                        format!("{} ({})", s.state, rounds.join(" "))
                    })
                    .collect();
                parts.push(format!(
                    "rounds in different states, so no pooled delay: {}",
                    states.join("; ")
                ));
            }
            if !r.flags.is_empty() {
                parts.push(format!("⚠ {}", r.flags.join("; ")));
            }
            if !parts.is_empty() {
                out.push(format!("{}: {}.", r.arm, parts.join(". ")));
            }
        }
        out
    }
}

/// One arm's cells across a sweep's points: its label, a cell per point.
pub type ArmCells = (String, Vec<String>);

/// A sweep's headline: one table per metric, arms as rows and points as
/// columns, each cell the point's figure with its rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepTables {
    /// What the delay columns measure.
    pub delay: String,
    /// The points' labels, in grid order.
    pub points: Vec<String>,
    /// Per metric: per arm, its cell at each point (`–` where it did not
    /// run).
    pub tables: Vec<(Metric, Vec<ArmCells>)>,
    /// Each point's flagged rounds: `point 2, codel r1: probe missed …`.
    pub flags: Vec<String>,
}

impl SweepTables {
    /// The tables of a sweep's headline `hl` (one headline per point) of
    /// `input`.
    pub fn of(input: &ReportInput, hl: &Headline) -> SweepTables {
        let points: Vec<(u32, String)> = hl
            .points
            .iter()
            .map(|p| (p.index, p.label.clone()))
            .collect();
        let per_point: Vec<HeadlineTable> = input
            .points()
            .zip(&hl.points)
            .map(|(p, ph)| HeadlineTable::of(&p.input, &ph.headline))
            .collect();
        let mut arms: Vec<String> = Vec::new();
        for t in &per_point {
            for r in &t.rows {
                if !arms.contains(&r.arm) {
                    arms.push(r.arm.clone());
                }
            }
        }
        let tables = Metric::ALL
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let rows = arms
                    .iter()
                    .map(|a| {
                        let cells = per_point
                            .iter()
                            .map(|t| {
                                t.rows
                                    .iter()
                                    .find(|r| &r.arm == a)
                                    .map_or("–".into(), |r| r.cells[k].clone())
                            })
                            .collect();
                        (a.clone(), cells)
                    })
                    .collect();
                (*m, rows)
            })
            .collect();
        let mut flags = Vec::new();
        for ((i, _), t) in points.iter().zip(&per_point) {
            for r in &t.rows {
                for f in &r.flags {
                    flags.push(format!("point {i}, {} {f}", r.arm));
                }
            }
        }
        SweepTables {
            delay: per_point
                .first()
                .map_or_else(|| "RTT".into(), |t| t.delay.clone()),
            points: points.into_iter().map(|(_, l)| l).collect(),
            tables,
            flags,
        }
    }

    /// As Markdown: a heading and a table per metric.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        for (m, rows) in &self.tables {
            let _ = write!(s, "| {} |", m.heading(&self.delay));
            for p in &self.points {
                let _ = write!(s, " {p} |");
            }
            s.push_str("\n|---|");
            s.push_str(&"---|".repeat(self.points.len()));
            s.push('\n');
            for (arm, cells) in rows {
                let _ = writeln!(s, "| {arm} | {} |", cells.join(" | "));
            }
            s.push('\n');
        }
        for f in &self.flags {
            let _ = writeln!(s, "⚠ {f}.");
        }
        s
    }
}
