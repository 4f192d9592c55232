//! The sweep figures: each headline metric against each swept axis
//! (docs/report.md, "Sweep figures"). x is the axis' values in its own
//! unit, logarithmic where they span 10× or more; one line per arm through
//! the median over rounds at each point; every round a dot, its shape its
//! state (docs/method.md §12.6); the spread over rounds a vertical bar; a
//! censored value a "≥" marker at its bound, never a value, and no line
//! runs through it; with two or more axes one panel per value of the
//! others. Rounds are pooled within a point, never across points
//! ([`netlab_compare::sweep::SweepTable::series`]).

use plotters::prelude::*;

use crate::plot_legend::{Legend, Mark};
use crate::plot_scale::{x_scale, y_scale, Scale};
use crate::plot_style::{
    captioned, draw_sweep_axes, font, marker, round_shade, title as draw_title, title_height,
    Shape, CAPTION_H, TEXT_PX, WIDTH,
};
use crate::plots::{arm_color, builder, draw_svg, e, Area, Plot};
use crate::plots_run::px_in;
use crate::PlotError;
use netlab_compare::sweep::{Measured, Panel, SweepAxis, SweepMetric, SweepTable};
use netlab_experiment::ModelKind;

/// Height of one panel, px.
const PANEL_H: u32 = 330;
/// Shapes of the rounds' states, most frequent state first: the rounds'
/// own shapes but the last, the ring.
const STATE_SHAPES: &[Shape] = Shape::BY_ROUND.split_at(7).0;
/// The word of a round whose state was not classified.
const NO_STATE: &str = "not classified";

/// The file name of the figure of `metric` against axis `axis`.
pub fn file_name(metric: SweepMetric, axis: &SweepAxis) -> String {
    let name: String = axis
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("sweep-{}-vs-{name}.svg", metric.key().replace('_', "-"))
}

/// The one value of a metric that is the same at every point and round
/// (zero drops everywhere, say): said in one line, not drawn.
pub fn constant_value(table: &SweepTable, m: SweepMetric) -> Option<Measured> {
    let mut values = table
        .rows
        .iter()
        .filter(|r| r.error.is_none())
        .filter_map(|r| r.metrics.get(m));
    let first = values.next()?;
    let tol = first.level().abs() * 1e-9;
    values
        .all(|v| {
            std::mem::discriminant(&v) == std::mem::discriminant(&first)
                && (v.level() - first.level()).abs() <= tol
        })
        .then_some(first)
}

/// One line for each metric [`constant_value`] finds, in place of its
/// figures: `drops in the measured window: 0 packets at every point and
/// round (not drawn)`.
pub fn constant_lines(table: &SweepTable) -> Vec<String> {
    table
        .metrics_with_data()
        .into_iter()
        .filter_map(|m| {
            let v = constant_value(table, m)?;
            let num = |x: f64| {
                if m.unit() == "packets" {
                    format!("{x:.0}")
                } else {
                    netlab_stats::fmt_num(x)
                }
            };
            let value = match v {
                Measured::Value(x) => num(x),
                Measured::AtLeast(x) => format!("≥ {}", num(x)),
            };
            let unit = match m.unit() {
                "" => String::new(),
                u => format!(" {u}"),
            };
            Some(format!(
                "{}: {value}{unit} at every point and round (constant: not drawn)",
                m.name()
            ))
        })
        .collect()
}

/// Every sweep figure: each metric with data against each axis, but a
/// metric whose value never changes ([`constant_lines`] says it).
pub fn all(table: &SweepTable) -> Result<Vec<Plot>, PlotError> {
    let mut out = Vec::new();
    let arms = arm_order(table);
    for m in table.metrics_with_data() {
        if constant_value(table, m).is_some() {
            continue;
        }
        for (i, axis) in table.axes.iter().enumerate() {
            let panels = table.series(m, i);
            let models = model_lines(table, m, i, &panels);
            let notes = crate::plot_sweep_notes::notes(table, m);
            out.push(figure(m, axis, &panels, &models, &arms, &notes)?);
        }
    }
    Ok(out)
}

/// One arm's model line in one panel.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelLine {
    /// Arm kind.
    pub arm: String,
    /// The model it comes from.
    pub model: ModelKind,
    /// The prediction at each point, ascending in x.
    pub points: Vec<ModelPoint>,
}

/// A model's prediction at one point.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPoint {
    /// Position on the axis.
    pub x: f64,
    /// The predicted value, in the metric's unit.
    pub value: f64,
    /// A second level where the model gives two (model 2's p50 in the
    /// alternating regime: either level may be the median); drawn as a
    /// second dashed line.
    pub upper: Option<f64>,
    /// Model 2's regime there: the line is not drawn across a change of
    /// regime (the model steps at N*, it does not ramp).
    pub regime: Option<String>,
}

/// What the models draw in one panel: a line per arm a model predicts
/// the metric for, and model 2's N* per arm (on the flows axis).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PanelModels {
    /// The predicted values.
    pub lines: Vec<ModelLine>,
    /// (arm, N*) where the axis counts the bulk flows.
    pub boundaries: Vec<(String, f64)>,
}

/// The models beside the figure of `metric` against axis `axis`, one
/// entry per panel of `panels` (docs/models.md; empty entries without a
/// model).
pub fn model_lines(
    table: &SweepTable,
    metric: SweepMetric,
    axis: usize,
    panels: &[Panel],
) -> Vec<PanelModels> {
    let ax = &table.axes[axis];
    panels
        .iter()
        .map(|panel| {
            let mut pm = PanelModels::default();
            for r in table.rows.iter().filter(|r| r.error.is_none()) {
                let Some(m) = r.model.as_ref() else { continue };
                if table.held_of(r, axis) != panel.held {
                    continue;
                }
                let (Some((v, hi)), Some(kind), Some(x)) = (
                    m.predicted_range(metric),
                    m.which(metric),
                    ax.position(&r.axis_values[axis]),
                ) else {
                    continue;
                };
                let i = match pm.lines.iter().position(|l| l.arm == r.arm) {
                    Some(i) => i,
                    None => {
                        pm.lines.push(ModelLine {
                            arm: r.arm.clone(),
                            model: kind,
                            points: Vec::new(),
                        });
                        pm.lines.len() - 1
                    }
                };
                // Per point the largest over its rounds (model 1's L is
                // each round's largest skb; model 2's rounds agree).
                if let Some(p) = pm.lines[i].points.iter_mut().find(|p| p.x == x) {
                    p.value = p.value.max(v);
                } else {
                    pm.lines[i].points.push(ModelPoint {
                        x,
                        value: v,
                        upper: (hi > v).then_some(hi),
                        regime: m.sparse_regime.clone(),
                    });
                }
            }
            for l in &mut pm.lines {
                l.points.sort_by(|a, b| a.x.total_cmp(&b.x));
                if l.model == ModelKind::SparseFlow {
                    if let Some(n) = table.boundary_on_axis(axis, &panel.held, &l.arm) {
                        pm.boundaries.push((l.arm.clone(), n));
                    }
                }
            }
            pm
        })
        .collect()
}

fn arm_order(table: &SweepTable) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in &table.rows {
        if !v.contains(&r.arm) {
            v.push(r.arm.clone());
        }
    }
    v
}

/// The states of the rounds drawn, most frequent first.
fn states(panels: &[Panel]) -> Vec<String> {
    let mut n: Vec<(String, usize)> = Vec::new();
    for d in panels
        .iter()
        .flat_map(|p| &p.arms)
        .flat_map(|a| &a.points)
        .flat_map(|p| &p.rounds)
    {
        let s = d.state.clone().unwrap_or_else(|| NO_STATE.into());
        match n.iter_mut().find(|(k, _)| *k == s) {
            Some((_, c)) => *c += 1,
            None => n.push((s, 1)),
        }
    }
    n.sort_by_key(|x| std::cmp::Reverse(x.1));
    n.into_iter().map(|(s, _)| s).collect()
}

fn state_shape(states: &[String], s: &Option<String>) -> Shape {
    let s = s.as_deref().unwrap_or(NO_STATE);
    let i = states.iter().position(|x| x == s).unwrap_or(0);
    STATE_SHAPES[i % STATE_SHAPES.len()]
}

/// The figure's title: what is drawn against what, and which summary of
/// the rounds each line is (the mean of fewer than 3, else the median:
/// `PointValues::summary_words`).
fn title_of(metric: SweepMetric, axis: &SweepAxis, panels: &[Panel]) -> String {
    let how = netlab_compare::sweep::PointValues::summary_words(
        panels.iter().flat_map(|p| &p.arms).flat_map(|s| &s.points),
    );
    let how = match how {
        "median over rounds" => "median of each point's rounds",
        "mean of the rounds (each round a dot)" => "mean of each point's rounds",
        _ => "mean of each point's rounds below 3, else median",
    };
    let name = metric.name();
    let mut first = name.chars();
    let name = match first.next() {
        Some(c) => c.to_uppercase().chain(first).collect::<String>(),
        None => String::new(),
    };
    format!("{name} vs {}: {how} per arm, each round a dot", axis.name)
}

fn legend_of(
    metric: SweepMetric,
    panels: &[Panel],
    models: &[PanelModels],
    arms: &[String],
    states: &[String],
) -> Legend {
    let mut legend = Legend::new();
    let drawn: Vec<&String> = arms
        .iter()
        .filter(|a| panels.iter().any(|p| p.arms.iter().any(|s| &s.arm == *a)))
        .collect();
    // One entry per arm; what its line summarises is the title's.
    for a in &drawn {
        let i = arms.iter().position(|x| x == *a).unwrap_or(0);
        legend.push(a.to_string(), Mark::Line(arm_color(i), 3));
    }
    state_legend(&mut legend, states);
    legend.push(
        "spread over rounds (min–max)",
        Mark::Line(RGBColor(170, 170, 170), 5),
    );
    // One entry per model, whatever the arms it is drawn for: dashed in
    // a dark shade of each arm's colour.
    let mut told: Vec<ModelKind> = Vec::new();
    for l in models.iter().flat_map(|m| &m.lines) {
        if told.contains(&l.model) {
            continue;
        }
        told.push(l.model);
        let text = match l.model {
            ModelKind::FifoBound => format!(
                "model, dashed: FIFO bound limit·L·8/R{}",
                if matches!(metric, SweepMetric::RttP50 | SweepMetric::RttP95) {
                    " + base RTT"
                } else {
                    " + half the base RTT"
                }
            ),
            ModelKind::SparseFlow if metric == SweepMetric::IsoUpP50 => {
                "model, dashed: sparse_flow (beyond N* the median takes either level)".to_string()
            }
            ModelKind::SparseFlow => "model, dashed: sparse_flow".to_string(),
            ModelKind::AqmLaw if metric == SweepMetric::FlowQueueDelay => {
                "dashed: the arm's target, read back".to_string()
            }
            ModelKind::BbrShare => "model, dashed: bbr_share (Ware et al. 2019)".to_string(),
            ModelKind::AqmLaw => {
                "model, dashed: aqm_law (Mathis at the flows' measured RTT)".to_string()
            }
        };
        let c = if drawn.len() == 1 {
            model_color(arms, &l.arm)
        } else {
            MODEL_GREY
        };
        legend.push(text, Mark::Dashed(c));
    }
    slope_two_legend(&mut legend, metric, models);
    if models.iter().any(|m| !m.boundaries.is_empty()) {
        legend.push(
            "model N*: the probe stops being sparse",
            Mark::Dashed(MODEL_GREY),
        );
    }
    let censored = panels
        .iter()
        .flat_map(|p| &p.arms)
        .flat_map(|a| &a.points)
        .any(|p| {
            p.rounds
                .iter()
                .any(|d| matches!(d.value, Measured::AtLeast(_)))
        });
    if censored && metric.can_be_censored() {
        legend.push(
            "≥ censored: at least this",
            Mark::Marker(Shape::AtLeastUp, RGBColor(90, 90, 90)),
        );
    }
    legend
}

fn figure(
    metric: SweepMetric,
    axis: &SweepAxis,
    panels: &[Panel],
    models: &[PanelModels],
    arms: &[String],
    notes: &[String],
) -> Result<Plot, PlotError> {
    let file = crate::layout::sweep_figure(&file_name(metric, axis));
    let title = title_of(metric, axis, panels);
    let states = states(panels);
    let mut legend = legend_of(metric, panels, models, arms, &states);
    for n in notes {
        legend.push(n.clone(), Mark::Note);
    }
    let levels: Vec<f64> = panels
        .iter()
        .flat_map(|p| &p.arms)
        .flat_map(|a| &a.points)
        .flat_map(|p| p.rounds.iter().map(|d| d.value.level()))
        .chain(
            models
                .iter()
                .flat_map(|m| &m.lines)
                .flat_map(|l| l.points.iter().flat_map(|p| [Some(p.value), p.upper]))
                .flatten(),
        )
        .filter(|v| v.is_finite())
        .collect();
    let ys = y_scale(&levels);
    let xs = x_scale(axis);
    let captions = panels.iter().any(|p| !p.held.is_empty());
    let n = panels.len().max(1) as u32;
    // Panels tall enough that the plot is never smaller than its legend.
    let panel_h =
        PANEL_H.max((legend.height(WIDTH) * 2).div_ceil(n)) + if captions { CAPTION_H } else { 0 };
    let height = title_height(&title, WIDTH) + n * panel_h + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, height), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        let rows = plot.split_evenly((n as usize, 1));
        let none = PanelModels::default();
        for (k, (area, panel)) in rows.iter().zip(panels).enumerate() {
            draw_panel(
                area,
                panel,
                models.get(k).unwrap_or(&none),
                axis,
                metric,
                (&xs, &ys),
                arms,
                &states,
                captions,
            )?;
        }
        legend.draw(&legend_area)
    })?;
    Ok(Plot::of_run(file, title, svg))
}

#[allow(clippy::too_many_arguments)]
fn draw_panel(
    area: &Area<'_>,
    panel: &Panel,
    models: &PanelModels,
    axis: &SweepAxis,
    metric: SweepMetric,
    (xs, ys): (&Scale, &Scale),
    arms: &[String],
    states: &[String],
    captions: bool,
) -> Result<(), String> {
    let area = captioned(area, captions.then_some(&panel.held[..]))?;
    let mut chart = builder(&area)
        .build_cartesian_2d(xs.clone(), ys.clone())
        .map_err(e)?;
    let unitless = match metric {
        SweepMetric::NewFlowsPerProbe => "per probe packet",
        SweepMetric::SignalProb => "per packet",
        SweepMetric::BbrShare => "share",
        _ => "index",
    };
    let y_desc = match metric.unit() {
        "" => unitless,
        u => u,
    };
    draw_sweep_axes(&mut chart, axis, (xs, ys), y_desc)?;
    let n_arms = panel.arms.len();
    for (k, series) in panel.arms.iter().enumerate() {
        let ci = arms.iter().position(|a| *a == series.arm).unwrap_or(0);
        // Arms side by side at a point, 8 px apart.
        let dx = ((k as f64 - (n_arms as f64 - 1.0) / 2.0) * 8.0).round() as i32;
        let at = |x: f64, v: f64| {
            let p = px_in(&chart, &area, (xs.to(x), ys.to(v)));
            (p.0 + dx, p.1)
        };
        draw_arm(&area, series, arm_color(ci), states, &at)?;
    }
    let at = |x: f64, v: f64| px_in(&chart, &area, (xs.to(x), ys.to(v)));
    if metric == SweepMetric::SignalProb {
        draw_slope_two(&area, models, (xs, ys), &at)?;
    }
    draw_models(&area, models, arms, (xs, ys), &at)
}

/// Beside model 3's p: a grey line of slope 2 on the log–log axes from
/// each arm's first model point, p₁ · (N / N₁)², the law with the RTT
/// held at its value there, which is what an AQM that held its queue at
/// the target whatever N would give (docs/models.md, model 3). Clipped to
/// the panel's top.
fn draw_slope_two(
    area: &Area<'_>,
    models: &PanelModels,
    (xs, ys): (&Scale, &Scale),
    at: &dyn Fn(f64, f64) -> (i32, i32),
) -> Result<(), String> {
    let (x_max, p_max) = (xs.from(xs.range.1), ys.from(ys.range.1));
    for l in models.lines.iter().filter(|l| l.model == ModelKind::AqmLaw) {
        let Some(first) = l.points.first() else {
            continue;
        };
        let (x1, p1) = (first.x, first.value);
        if !(x1 > 0.0 && p1 > 0.0) {
            continue;
        }
        let x_end = x_max.min(x1 * (p_max / p1).sqrt());
        if x_end <= x1 {
            continue;
        }
        let end = at(x_end, p1 * (x_end / x1).powi(2));
        dashed(area, at(x1, p1), end, SLOPE_GREY)?;
    }
    Ok(())
}

/// One legend entry per state a round was in, each its marker's shape.
/// The rounds' dots: one entry, or one per state where the rounds fall
/// into more than one.
fn state_legend(legend: &mut Legend, states: &[String]) {
    let grey = RGBColor(90, 90, 90);
    for (k, s) in states.iter().enumerate() {
        let text = if states.len() == 1 {
            "rounds (dots)".to_string()
        } else {
            format!("a round, state {s}")
        };
        legend.push(
            text,
            Mark::Marker(STATE_SHAPES[k % STATE_SHAPES.len()], grey),
        );
    }
}

/// The slope-2 line's legend entry, on the p figure beside model 3.
fn slope_two_legend(legend: &mut Legend, metric: SweepMetric, models: &[PanelModels]) {
    if metric == SweepMetric::SignalProb
        && models
            .iter()
            .flat_map(|m| &m.lines)
            .any(|l| l.model == ModelKind::AqmLaw && !l.points.is_empty())
    {
        legend.push("slope 2: p ∝ N² at a fixed RTT", Mark::Dashed(SLOPE_GREY));
    }
}

/// The slope-2 reference line's colour.
const SLOPE_GREY: RGBColor = RGBColor(150, 150, 150);

/// The models' predictions, dashed in their arm's colour, and model 2's
/// boundary N* as a grey vertical line, over a drawn panel.
fn draw_models(
    area: &Area<'_>,
    models: &PanelModels,
    arms: &[String],
    (xs, ys): (&Scale, &Scale),
    at: &dyn Fn(f64, f64) -> (i32, i32),
) -> Result<(), String> {
    for l in &models.lines {
        let c = model_color(arms, &l.arm);
        for w in l.points.windows(2) {
            if w[0].regime == w[1].regime {
                dashed(area, at(w[0].x, w[0].value), at(w[1].x, w[1].value), c)?;
                if let (Some(a), Some(b)) = (w[0].upper, w[1].upper) {
                    dashed(area, at(w[0].x, a), at(w[1].x, b), c)?;
                }
            }
        }
        // A point whose neighbours are in other regimes (or alone): a
        // short level dash, so every prediction shows.
        for (k, p) in l.points.iter().enumerate() {
            let joined = |j: Option<usize>| {
                j.and_then(|j| l.points.get(j))
                    .is_some_and(|q| q.regime == p.regime)
            };
            if !joined(k.checked_sub(1)) && !joined(Some(k + 1)) {
                for v in [Some(p.value), p.upper].into_iter().flatten() {
                    let (x, y) = at(p.x, v);
                    dashed(area, (x - 14, y), (x + 14, y), c)?;
                }
            }
        }
    }
    for (_, n) in &models.boundaries {
        let t = xs.to(*n);
        if t < xs.range.0 || t > xs.range.1 {
            continue;
        }
        let top = at(*n, ys.from(ys.range.1));
        let bottom = at(*n, ys.from(ys.range.0));
        dashed(area, bottom, top, MODEL_GREY)?;
        area.draw(&Text::new(
            format!("model N* = {}", netlab_stats::fmt_num(*n)),
            (top.0 + 4, top.1 + 2),
            font(TEXT_PX),
        ))
        .map_err(e)?;
    }
    Ok(())
}

/// The colour of model 2's N* line.
const MODEL_GREY: RGBColor = RGBColor(60, 60, 60);

/// A model line's colour: its arm's, darkened, so it shows where it runs
/// over the measured line.
fn model_color(arms: &[String], arm: &str) -> RGBColor {
    let c = arm_color(arms.iter().position(|a| a == arm).unwrap_or(0));
    RGBColor(c.0 / 2, c.1 / 2, c.2 / 2)
}

/// A dashed segment between two pixels: 7 px drawn, 5 px left out.
fn dashed(area: &Area<'_>, a: (i32, i32), b: (i32, i32), c: RGBColor) -> Result<(), String> {
    let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
    let len = dx.hypot(dy);
    if len < 1.0 {
        return Ok(());
    }
    let at = |d: f64| {
        let d = d.min(len);
        (
            a.0 + (dx * d / len).round() as i32,
            a.1 + (dy * d / len).round() as i32,
        )
    };
    let mut d = 0.0;
    while d < len {
        area.draw(&PathElement::new(
            vec![at(d), at(d + 7.0)],
            c.stroke_width(2),
        ))
        .map_err(e)?;
        d += 12.0;
    }
    Ok(())
}

/// One arm in one panel: the spread over rounds, then the median line
/// between exact medians only, then each round, then the medians on top.
/// `at` maps (axis value, metric value) to the panel's pixels.
fn draw_arm(
    area: &Area<'_>,
    series: &netlab_compare::sweep::ArmSeries,
    c: RGBColor,
    states: &[String],
    at: &dyn Fn(f64, f64) -> (i32, i32),
) -> Result<(), String> {
    let light = round_shade(c, 1, 1);
    // The spread over rounds, then the median line between exact
    // medians only, then each round, then the medians on top.
    for p in &series.points {
        if p.rounds.len() < 2 {
            continue;
        }
        let lv = p.rounds.iter().map(|d| d.value.level());
        let lo = lv.clone().fold(f64::INFINITY, f64::min);
        let hi = lv.fold(f64::NEG_INFINITY, f64::max);
        area.draw(&PathElement::new(
            vec![at(p.x, lo), at(p.x, hi)],
            RGBColor(170, 170, 170).stroke_width(5),
        ))
        .map_err(e)?;
    }
    for w in series.points.windows(2) {
        if let (Some(Measured::Value(a)), Some(Measured::Value(b))) = (w[0].summary, w[1].summary) {
            area.draw(&PathElement::new(
                vec![at(w[0].x, a), at(w[1].x, b)],
                c.stroke_width(3),
            ))
            .map_err(e)?;
        }
    }
    for p in &series.points {
        let n = p.rounds.len() as f64;
        for (j, d) in p.rounds.iter().enumerate() {
            let (x, y) = at(p.x, d.value.level());
            let jx = ((j as f64 - (n - 1.0) / 2.0) * 5.0).round() as i32;
            let shape = match d.value {
                Measured::AtLeast(_) => Shape::AtLeastUp,
                Measured::Value(_) => state_shape(states, &d.state),
            };
            area.draw(&marker(shape, (x + jx, y), 5, light))
                .map_err(e)?;
        }
        match p.summary {
            Some(Measured::Value(v)) => {
                area.draw(&marker(Shape::Ring, at(p.x, v), 8, c))
                    .map_err(e)?;
            }
            Some(Measured::AtLeast(v)) => {
                let (x, y) = at(p.x, v);
                area.draw(&marker(Shape::AtLeastUp, (x + 12, y), 8, c))
                    .map_err(e)?;
            }
            None => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_compare::sweep::{AxisKind, AxisTick, SweepMetrics, SweepRow};

    /// One arm at three base RTTs, two rounds each; `mid` is the middle
    /// point's p50 in both rounds.
    fn table(mid: Measured) -> SweepTable {
        let axis = SweepAxis {
            name: "base_rtt".into(),
            kind: AxisKind::Duration,
            values: [("0ms", 0.0), ("20ms", 20.0), ("80ms", 80.0)]
                .map(|(t, x)| AxisTick {
                    text: t.into(),
                    x: Some(x),
                })
                .to_vec(),
        };
        let mut rows = Vec::new();
        for (k, (text, v)) in [
            ("0ms", Measured::Value(5.0)),
            ("20ms", mid),
            ("80ms", Measured::Value(90.0)),
        ]
        .into_iter()
        .enumerate()
        {
            for round in 1..=2 {
                rows.push(SweepRow {
                    scenario: (2 * k + round) as u32,
                    point: k as u32 + 1,
                    point_label: format!("base_rtt={text}"),
                    axis_values: vec![text.into()],
                    arm: "fq_codel".into(),
                    arm_words: "fq_codel".into(),
                    round: round as u32,
                    state: Some("≥ 5 cuts".into()),
                    error: None,
                    rtt_requests: Some([10, 0]),
                    iso_slots: None,
                    metrics: SweepMetrics {
                        rtt_p50_ms: Some(v),
                        ..SweepMetrics::default()
                    },
                    model: None,
                });
            }
        }
        SweepTable {
            format: netlab_compare::sweep::SweepTable::FORMAT.into(),
            version: netlab_compare::sweep::SweepTable::VERSION,
            run_id: "t".into(),
            axes: vec![axis],
            models: Vec::new(),
            rows,
        }
    }

    /// Lines drawn in the arm's colour at the median line's width (the
    /// legend's sample is one of them).
    fn median_lines(svg: &str) -> usize {
        let c = arm_color(0);
        let stroke = format!("stroke=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        svg.lines()
            .filter(|l| l.contains("<polyline") && l.contains(&stroke))
            .filter(|l| l.contains("stroke-width=\"3\""))
            .count()
    }

    #[test]
    fn a_censored_median_is_a_bound_and_no_line_runs_through_it() {
        let t = table(Measured::Value(30.0));
        let svg = &all(&t).unwrap()[0].svg;
        assert_eq!(median_lines(svg), 2 + 1, "two segments and the legend's");
        let t = table(Measured::AtLeast(1000.0));
        let panels = t.series(SweepMetric::RttP50, 0);
        let mid = &panels[0].arms[0].points[1];
        assert_eq!(mid.summary, Some(Measured::AtLeast(1000.0)));
        let svg = &all(&t).unwrap()[0].svg;
        assert_eq!(
            median_lines(svg),
            1,
            "only the legend's: both segments end on a bound"
        );
        assert!(svg.contains("≥ censored"), "the legend says what ≥ is");
    }

    #[test]
    fn an_axis_with_zero_stays_linear_and_ticks_every_value() {
        let t = table(Measured::Value(30.0));
        let xs = x_scale(&t.axes[0]);
        assert!(!xs.log, "0 ms cannot be on a log axis");
        assert_eq!(xs.ticks, vec![0.0, 20.0, 80.0]);
        // 5 → 90 ms spans 18×: the y axis is logarithmic.
        assert!(y_scale(&[5.0, 30.0, 90.0]).log);
        assert_eq!(
            file_name(SweepMetric::RttP50, &t.axes[0]),
            "sweep-rtt-p50-ms-vs-base-rtt.svg"
        );
    }
}
