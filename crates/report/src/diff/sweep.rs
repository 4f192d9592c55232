//! The diff's sweep figures (docs/usage.md, "Two runs"): for two runs of
//! a sweep, each headline metric against each swept axis, run A solid and
//! run B dashed, one colour per arm as the run's own report draws it. At
//! each point and run the rounds of that point alone are summarised as
//! the report summarises them (netlab_stats::rounds: the mean of fewer
//! than 3 rounds, else the median) and their range is drawn as a bar;
//! rounds are never pooled across points or runs. With two or more axes
//! one panel per value of the others, as [`netlab_figures::plot_sweep`] draws a
//! run's sweep.

use plotters::prelude::*;

use crate::ReportError;
use netlab_analysis::records::{ProbePhase, Scenario};
use netlab_analysis::ReportInput;
use netlab_compare::sweep::{Measured, SweepAxis};
use netlab_figures::plot_legend::{Legend, Mark};
use netlab_figures::plot_scale::{x_scale, y_scale, Scale};
use netlab_figures::plot_style::{
    captioned, draw_sweep_axes, marker, round_shade, title as draw_title, title_height, Shape,
    CAPTION_H, WIDTH,
};
use netlab_figures::plots::{arm_color, builder, draw_svg, e, Area};
use netlab_figures::plots_run::px_in;
use netlab_stats::rounds::{summarise, RoundsSummary, Summary};
use netlab_stats::{censored_quantile, CensoredQuantile, Observation};

/// A headline metric of the diff's sweep figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffMetric {
    /// Loaded probe delay p50 (one-way of the delivered probes with fates,
    /// else the RTT censored at the timeout).
    DelayP50,
    /// Its p99.
    DelayP99,
    /// The round's goodput ([`Scenario::window_goodput`](netlab_analysis::records::Scenario::window_goodput)).
    Goodput,
    /// The share of loaded probes that never reached B, % (fates only).
    Loss,
}

impl DiffMetric {
    /// Every metric, in figure order.
    pub const ALL: [DiffMetric; 4] = [
        DiffMetric::DelayP50,
        DiffMetric::DelayP99,
        DiffMetric::Goodput,
        DiffMetric::Loss,
    ];

    /// Its key in a file name.
    pub fn key(self) -> &'static str {
        match self {
            DiffMetric::DelayP50 => "delay-p50",
            DiffMetric::DelayP99 => "delay-p99",
            DiffMetric::Goodput => "goodput",
            DiffMetric::Loss => "loss",
        }
    }

    fn index(self) -> usize {
        match self {
            DiffMetric::DelayP50 => 0,
            DiffMetric::DelayP99 => 1,
            DiffMetric::Goodput => 2,
            DiffMetric::Loss => 3,
        }
    }

    /// Its name under the delay basis (`one_way`: delivered probes).
    pub fn name(self, one_way: bool) -> &'static str {
        match (self, one_way) {
            (DiffMetric::DelayP50, true) => "loaded one-way delay p50 (delivered probes)",
            (DiffMetric::DelayP99, true) => "loaded one-way delay p99 (delivered probes)",
            (DiffMetric::DelayP50, false) => "loaded probe RTT p50 (timeouts censored)",
            (DiffMetric::DelayP99, false) => "loaded probe RTT p99 (timeouts censored)",
            (DiffMetric::Goodput, _) => "goodput",
            (DiffMetric::Loss, _) => "loaded probe loss share (never reached B)",
        }
    }

    /// Its unit.
    pub fn unit(self) -> &'static str {
        match self {
            DiffMetric::DelayP50 | DiffMetric::DelayP99 => "ms",
            DiffMetric::Goodput => "Mbit/s",
            DiffMetric::Loss => "%",
        }
    }
}

/// One arm both runs have (A's words and B's), coloured as run A's
/// report colours it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmPair {
    /// A's arm words.
    pub arm_a: String,
    /// B's.
    pub arm_b: String,
    /// Its label in the legend (A's arm label, `→ B's` when paired).
    pub label: String,
    /// The index of its colour ([`netlab_figures::plots`]' arm colours).
    pub color: usize,
}

/// One round of one run at one point.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRow {
    /// 0 for run A, 1 for run B.
    pub run: usize,
    /// Index into [`DiffSweep::arms`].
    pub arm: usize,
    /// Each axis' value as the file writes it, in [`DiffSweep::axes`] order.
    pub axis_values: Vec<String>,
    /// The round.
    pub round: u32,
    /// [`DiffMetric::ALL`]'s values, in that order.
    pub metrics: [Option<Measured>; 4],
}

/// What the sweep figures draw: the axes both runs' points span, the arms
/// both have, and every round of each.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffSweep {
    /// The swept axes (the union of both runs' values).
    pub axes: Vec<SweepAxis>,
    /// The delay is the delivered probes' one-way delay (both runs carry
    /// fates in every round); else the RTT censored at the timeout.
    pub one_way: bool,
    /// The arms both runs have.
    pub arms: Vec<ArmPair>,
    /// Every round of those arms, A's then B's.
    pub rows: Vec<DiffRow>,
}

/// The union of two runs' axes: A's order, B's values added.
fn merge_axes(mut a: Vec<SweepAxis>, b: Vec<SweepAxis>) -> Vec<SweepAxis> {
    for axis in b {
        match a.iter_mut().find(|x| x.name == axis.name) {
            Some(x) => {
                for v in axis.values {
                    if !x.values.iter().any(|w| w.text == v.text) {
                        x.values.push(v);
                    }
                }
                if x.kind != axis.kind {
                    x.kind = netlab_compare::sweep::AxisKind::Category;
                    for v in &mut x.values {
                        v.x = None;
                    }
                }
                if x.values.iter().all(|v| v.x.is_some()) {
                    x.values
                        .sort_by(|p, q| p.x.unwrap_or(0.0).total_cmp(&q.x.unwrap_or(0.0)));
                }
            }
            None => a.push(axis),
        }
    }
    a
}

fn measured(q: CensoredQuantile) -> Option<Measured> {
    Measured::of(q)
}

/// One scenario's values of [`DiffMetric::ALL`].
fn metrics_of(s: &Scenario, one_way: bool) -> [Option<Measured>; 4] {
    let delivered = s.delivered_one_way(ProbePhase::Loaded);
    let obs: Vec<Observation> = match (&delivered, one_way) {
        (Some(d), true) => d
            .one_way_ms
            .iter()
            .map(|v| Observation::Exact(*v))
            .collect(),
        _ => s.rtt_observations(ProbePhase::Loaded),
    };
    let q = |p| {
        if obs.is_empty() {
            None
        } else {
            measured(censored_quantile(&obs, p))
        }
    };
    [
        q(0.5),
        q(0.99),
        s.window_goodput().map(Measured::Value),
        delivered
            .and_then(|d| d.lost_share())
            .map(|x| Measured::Value(x * 100.0)),
    ]
}

fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The sweep figures' data of runs `a` and `b` (their report inputs)
/// over the arms both have
/// (`(A words, B words)`, each once); None when neither run swept.
pub(crate) fn build(
    a: &ReportInput,
    b: &ReportInput,
    pairs: &[(String, String)],
) -> Option<DiffSweep> {
    let axes = merge_axes(
        netlab_compare::sweep::SweepAxis::of_scenarios(&a.scenarios),
        netlab_compare::sweep::SweepAxis::of_scenarios(&b.scenarios),
    );
    if axes.is_empty() || pairs.is_empty() {
        return None;
    }
    let runs = [a, b];
    let of_pairs = |run: usize, s: &Scenario| -> Option<usize> {
        let w = words(&s.arm_words);
        pairs
            .iter()
            .position(|p| if run == 0 { p.0 == w } else { p.1 == w })
    };
    let ok = |run: usize| {
        runs[run]
            .scenarios
            .iter()
            .filter(move |s| s.error.is_none() && of_pairs(run, s).is_some())
    };
    let one_way = (0..2).all(|r| {
        let v: Vec<&Scenario> = ok(r).collect();
        netlab_compare::compare::DelayBasis::of(&v)
            == netlab_compare::compare::DelayBasis::OneWayDelivered
    });
    let order = netlab_figures::plots_run::arms(a);
    let arms = pairs
        .iter()
        .map(|(wa, wb)| {
            let label_of = |r: &ReportInput, w: &str| {
                r.scenarios
                    .iter()
                    .find(|s| words(&s.arm_words) == w)
                    .map_or_else(|| w.to_string(), |s| s.arm.clone())
            };
            let la = label_of(a, wa);
            let lb = label_of(b, wb);
            ArmPair {
                arm_a: wa.clone(),
                arm_b: wb.clone(),
                label: if wa == wb {
                    la.clone()
                } else {
                    format!("{la} → {lb}")
                },
                color: order.iter().position(|x| *x == la).unwrap_or(0),
            }
        })
        .collect();
    let mut rows = Vec::new();
    for run in 0..2 {
        for s in ok(run) {
            rows.push(DiffRow {
                run,
                arm: of_pairs(run, s).unwrap_or(0),
                axis_values: netlab_compare::sweep::axis_values(s, &axes),
                round: s.round,
                metrics: metrics_of(s, one_way),
            });
        }
    }
    Some(DiffSweep {
        axes,
        one_way,
        arms,
        rows,
    })
}

/// `diff-sweep-delay-p50-vs-rate.svg`.
pub(crate) fn file_name(metric: DiffMetric, axis: &SweepAxis) -> String {
    let name: String = axis
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("diff-sweep-{}-vs-{name}.svg", metric.key())
}

/// One run's summary at one point: its rounds summarised.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPoint {
    /// Position on the axis.
    pub x: f64,
    /// The rounds and the figure that stands for them.
    pub summary: RoundsSummary,
}

/// One run of one arm in one panel.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSeries {
    /// Index into [`DiffSweep::arms`].
    pub arm: usize,
    /// 0 A, 1 B.
    pub run: usize,
    /// Its points, ascending in x.
    pub points: Vec<RunPoint>,
}

/// One panel: the other axes held at one value each.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffPanel {
    /// The other axes' values (`flows=2`), empty with one axis.
    pub held: Vec<String>,
    /// One series per arm and run.
    pub series: Vec<RunSeries>,
}

impl DiffSweep {
    /// The metrics either run has a value of.
    pub fn metrics(&self) -> Vec<DiffMetric> {
        DiffMetric::ALL
            .into_iter()
            .filter(|m| self.rows.iter().any(|r| r.metrics[m.index()].is_some()))
            .collect()
    }

    /// Every figure's file name and title, without drawing it.
    pub fn files(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for m in self.metrics() {
            for axis in &self.axes {
                out.push((file_name(m, axis), self.title(m, axis)));
            }
        }
        out
    }

    fn title(&self, m: DiffMetric, axis: &SweepAxis) -> String {
        format!(
            "How does the {} change with {}? Run A solid, run B dashed",
            m.name(self.one_way),
            axis.name
        )
    }

    /// What the figure of `metric` against axis `axis` draws: per panel,
    /// per arm and run, each point's rounds (that point's only).
    pub fn panels(&self, metric: DiffMetric, axis: usize) -> Vec<DiffPanel> {
        let ax = &self.axes[axis];
        let mut panels: Vec<DiffPanel> = Vec::new();
        // (panel, series, x) → the rounds' values.
        let mut values: Vec<(usize, usize, f64, Vec<Observation>)> = Vec::new();
        for r in &self.rows {
            let Some(v) = r.metrics[metric.index()] else {
                continue;
            };
            let Some(x) = ax.position(&r.axis_values[axis]) else {
                continue;
            };
            let held = SweepAxis::held(&self.axes, &r.axis_values, axis);
            let p = match panels.iter().position(|p| p.held == held) {
                Some(i) => i,
                None => {
                    panels.push(DiffPanel {
                        held,
                        series: Vec::new(),
                    });
                    panels.len() - 1
                }
            };
            let series = &mut panels[p].series;
            let s = match series.iter().position(|s| s.arm == r.arm && s.run == r.run) {
                Some(i) => i,
                None => {
                    series.push(RunSeries {
                        arm: r.arm,
                        run: r.run,
                        points: Vec::new(),
                    });
                    series.len() - 1
                }
            };
            match values
                .iter_mut()
                .find(|(pp, ss, xx, _)| *pp == p && *ss == s && *xx == x)
            {
                Some(e) => e.3.push(v.observation()),
                None => values.push((p, s, x, vec![v.observation()])),
            }
        }
        for (p, s, x, obs) in values {
            if let Some(summary) = summarise(&obs) {
                panels[p].series[s].points.push(RunPoint { x, summary });
            }
        }
        for p in &mut panels {
            p.series.sort_by_key(|s| (s.arm, s.run));
            for s in &mut p.series {
                s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
            }
        }
        panels
    }

    /// Every sweep figure of the diff: file name and SVG.
    pub fn figures(&self) -> Result<Vec<(String, String)>, ReportError> {
        let mut out = Vec::new();
        for m in self.metrics() {
            for (i, axis) in self.axes.iter().enumerate() {
                let panels = self.panels(m, i);
                out.push((file_name(m, axis), self.figure(m, axis, &panels)?));
            }
        }
        Ok(out)
    }

    fn figure(
        &self,
        metric: DiffMetric,
        axis: &SweepAxis,
        panels: &[DiffPanel],
    ) -> Result<String, ReportError> {
        let file = file_name(metric, axis);
        let title = self.title(metric, axis);
        let legend = self.legend(panels);
        let levels: Vec<f64> = panels
            .iter()
            .flat_map(|p| &p.series)
            .flat_map(|s| &s.points)
            .flat_map(|p| p.summary.rounds.iter().map(|o| level(*o)))
            .filter(|v| v.is_finite())
            .collect();
        let ys = y_scale(&levels);
        let xs = x_scale(axis);
        let captions = panels.iter().any(|p| !p.held.is_empty());
        let panel_h = PANEL_H + if captions { CAPTION_H } else { 0 };
        let n = panels.len().max(1) as u32;
        let height = title_height(&title, WIDTH) + n * panel_h + legend.height(WIDTH);
        let unit = metric.unit();
        draw_svg(&file, (WIDTH, height), |root| {
            let body = draw_title(root, &title)?;
            let (plot, legend_area) = legend.split(&body);
            let rows = plot.split_evenly((n as usize, 1));
            for (area, panel) in rows.iter().zip(panels) {
                self.draw_panel(area, panel, axis, unit, (&xs, &ys), captions)?;
            }
            legend.draw(&legend_area)
        })
        .map_err(ReportError::from)
    }

    fn legend(&self, panels: &[DiffPanel]) -> Legend {
        let mut legend = Legend::new();
        let points = || {
            panels
                .iter()
                .flat_map(|p| &p.series)
                .flat_map(|s| &s.points)
        };
        let (mean, median) = (
            points().any(|p| p.summary.how == Summary::Mean),
            points().any(|p| p.summary.how == Summary::Median),
        );
        let how = match (mean, median) {
            (true, true) => "mean of fewer than 3 rounds, else median over rounds",
            (true, false) => "mean of the rounds (fewer than 3)",
            _ => "median over rounds",
        };
        for (k, arm) in self.arms.iter().enumerate() {
            if !panels.iter().flat_map(|p| &p.series).any(|s| s.arm == k) {
                continue;
            }
            let c = arm_color(arm.color);
            legend.push(
                format!("{} run A: {how} (solid, ●)", arm.label),
                Mark::Line(c, 3),
            );
            legend.push(
                format!("{} run B: {how} (dashed, ○)", arm.label),
                Mark::Dashed(c),
            );
        }
        legend.push(
            "bar: the range of the point's rounds (min–max)",
            Mark::Line(RGBColor(170, 170, 170), 5),
        );
        let censored = points().any(|p| matches!(p.summary.value, CensoredQuantile::AtLeast(_)));
        if censored {
            legend.push(
                "≥: censored, drawn at its bound (a value at least this), never as a value",
                Mark::Marker(Shape::AtLeastUp, RGBColor(90, 90, 90)),
            );
        }
        legend
    }

    fn draw_panel(
        &self,
        area: &Area<'_>,
        panel: &DiffPanel,
        axis: &SweepAxis,
        unit: &str,
        (xs, ys): (&Scale, &Scale),
        captions: bool,
    ) -> Result<(), String> {
        let area = captioned(area, captions.then_some(&panel.held[..]))?;
        let mut chart = builder(&area)
            .build_cartesian_2d(xs.clone(), ys.clone())
            .map_err(e)?;
        draw_sweep_axes(&mut chart, axis, (xs, ys), unit)?;
        let n = panel.series.len();
        for (k, s) in panel.series.iter().enumerate() {
            let c = arm_color(self.arms[s.arm].color);
            // Series side by side at a point, 8 px apart (A left of B).
            let dx = ((k as f64 - (n as f64 - 1.0) / 2.0) * 8.0).round() as i32;
            let at = |x: f64, v: f64| {
                let p = px_in(&chart, &area, (xs.to(x), ys.to(v)));
                (p.0 + dx, p.1)
            };
            draw_series(&area, s, c, &at)?;
        }
        Ok(())
    }
}

/// Height of one panel, px.
const PANEL_H: u32 = 330;

fn level(o: Observation) -> f64 {
    match o {
        Observation::Exact(v) | Observation::AtLeast(v) => v,
    }
}

/// One run of one arm: each point's range over its rounds, the line
/// between exact summaries (solid for A, dashed for B), and the summary
/// (● for A, ○ for B; "≥" at its bound when censored).
fn draw_series(
    area: &Area<'_>,
    s: &RunSeries,
    c: RGBColor,
    at: &dyn Fn(f64, f64) -> (i32, i32),
) -> Result<(), String> {
    let light = round_shade(c, 1, 1);
    for p in &s.points {
        if p.summary.rounds.len() < 2 {
            continue;
        }
        let (lo, hi) = p.summary.range();
        area.draw(&PathElement::new(
            vec![at(p.x, level(lo)), at(p.x, level(hi))],
            light.stroke_width(5),
        ))
        .map_err(e)?;
    }
    for w in s.points.windows(2) {
        if let (CensoredQuantile::Value(a), CensoredQuantile::Value(b)) =
            (w[0].summary.value, w[1].summary.value)
        {
            let line = vec![at(w[0].x, a), at(w[1].x, b)];
            if s.run == 0 {
                area.draw(&PathElement::new(line, c.stroke_width(3)))
                    .map_err(e)?;
            } else {
                area.draw(&plotters::element::DashedPathElement::new(
                    line,
                    8,
                    6,
                    c.stroke_width(3),
                ))
                .map_err(e)?;
            }
        }
    }
    for p in &s.points {
        match p.summary.value {
            CensoredQuantile::Value(v) => {
                let shape = if s.run == 0 {
                    Shape::Circle
                } else {
                    Shape::Ring
                };
                area.draw(&marker(shape, at(p.x, v), 7, c)).map_err(e)?;
            }
            CensoredQuantile::AtLeast(v) => {
                let (x, y) = at(p.x, v);
                area.draw(&marker(Shape::AtLeastUp, (x, y), 8, c))
                    .map_err(e)?;
            }
            CensoredQuantile::NoData => {}
        }
    }
    Ok(())
}
