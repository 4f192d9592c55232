//! Figures of a moving bottleneck (method §15, docs/models.md model 6):
//! per scenario, the probe's one-way delay above and the rates below on
//! one time axis, the schedule drawn (each change a vertical line), a
//! FIFO's bound at each step's rate dashed, an AQM's recovery threshold
//! dotted; over a trace, every round of every arm on the
//! throughput–delay plane with the trace's ideal corner.

use plotters::element::DashedPathElement;
use plotters::prelude::*;

use netlab_analysis::link::{
    base_one_way_ms, one_way, target_ms_of_words, LinkFigures, FRAME_BYTES,
};

use crate::plot_legend::{Legend, Mark};
use crate::plot_style::{marker, title as draw_title, title_height, Shape, WIDTH};
use crate::plots::{
    arm_color, builder, draw_svg, e, mesh, phase_legend, shade_phases, x_end, Plot,
};
use crate::PlotError;
use netlab_analysis::records::Scenario;
use netlab_analysis::ReportInput;

const CAPACITY: RGBColor = RGBColor(0, 0, 0);
const SENT: RGBColor = RGBColor(220, 140, 20);
const GOODPUT: RGBColor = RGBColor(30, 100, 200);
const DELAY: RGBColor = RGBColor(150, 60, 170);
const BOUND: RGBColor = RGBColor(200, 60, 40);
const CHANGE: RGBColor = RGBColor(120, 120, 120);

/// The schedule as a step line `(t, Mbit/s)` up to `end`, outages at 0.
fn capacity_line(steps: &[(f64, Option<u64>)], end: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for (i, (t, r)) in steps.iter().enumerate() {
        let next = steps.get(i + 1).map_or(end, |s| s.0).min(end);
        let y = r.map_or(0.0, |b| b as f64 / 1e6);
        out.extend([(*t, y), (next, y)]);
    }
    out
}

/// The figure of one scenario with a moving rate; `None` without one.
// Long: two panels, each series and its legend entry drawn in order.
pub fn moving_rate(s: &Scenario) -> Result<Option<Plot>, PlotError> {
    let Some(link) = &s.link else {
        return Ok(None);
    };
    let file = crate::layout::scenario_plot(s.index, "link");
    let title = format!(
        "Scenario {} ({}): one-way delay (top) and capacity, TBF output and goodput (bottom) as \
         the rate moves",
        s.index,
        s.label()
    );
    let xe = x_end(s);
    let steps = link.steps();
    let capacity = capacity_line(&steps, xe);
    let sent: Vec<(f64, f64)> = link
        .sent_rate()
        .into_iter()
        .map(|(t, b)| (t, b / 1e6))
        .collect();
    let bin = s.bin_s().unwrap_or(0.2);
    let goodput: Vec<(f64, f64)> = s
        .aggregate_bytes()
        .iter()
        .enumerate()
        .map(|(i, b)| ((i as f64 + 0.5) * bin, *b as f64 * 8.0 / bin / 1e6))
        .collect();
    let delays = one_way(s);
    let base = base_one_way_ms(s);
    // A FIFO's bound at each step's rate, over that step (dashed); an
    // AQM's threshold likewise (dotted).
    let target = target_ms_of_words(&s.arm_words);
    let per_step = |f: &dyn Fn(u64) -> f64| -> Vec<Vec<(f64, f64)>> {
        steps
            .iter()
            .enumerate()
            .filter_map(|(i, (t, r))| {
                let r = (*r)?;
                let next = steps.get(i + 1).map_or(xe, |s| s.0).min(xe);
                Some(vec![(*t, f(r)), (next, f(r))])
            })
            .collect()
    };
    let bounds = link.fifo_limit.map(|l| {
        per_step(&|r| {
            base.unwrap_or(0.0) + (u64::from(l) * FRAME_BYTES * 8) as f64 / r as f64 * 1e3
        })
    });
    let thresholds = target
        .zip(base)
        .map(|(t, b)| per_step(&|r| b + t + (FRAME_BYTES * 8) as f64 / r as f64 * 1e3));
    let timeout_ms = s.iso.as_ref().map_or(1000.0, |i| i.timeout_s * 1e3);
    let dmax = delays
        .iter()
        .map(|d| d.1)
        .chain(bounds.iter().flatten().flatten().map(|p| p.1))
        .fold(1.0, f64::max)
        .min(timeout_ms)
        * 1.3;
    let dmin = delays
        .iter()
        .map(|d| d.1)
        .fold(f64::MAX, f64::min)
        .clamp(0.05, 1.0)
        * 0.8;
    let rmax = capacity
        .iter()
        .chain(&sent)
        .chain(&goodput)
        .map(|p| p.1)
        .fold(0.1, f64::max)
        * 1.15;
    let mut legend = Legend::new();
    phase_legend(s, &mut legend);
    legend.push(
        "probe one-way delay A→B (top)",
        Mark::Marker(Shape::Circle, DELAY),
    );
    if bounds.is_some() {
        legend.push(
            "FIFO bound at the step's rate (base + limit × 1514 B ÷ rate)",
            Mark::Dashed(BOUND),
        );
    }
    if thresholds.is_some() {
        legend.push(
            "recovery threshold (base + target + one frame)",
            Mark::Dotted(BOUND),
        );
    }
    legend.push(
        "capacity the schedule offers (bottom)",
        Mark::Line(CAPACITY, 2),
    );
    legend.push("TBF output per 100 ms reading", Mark::Line(SENT, 2));
    legend.push(
        format!("goodput per {:.0} ms", bin * 1e3),
        Mark::Line(GOODPUT, 2),
    );
    legend.push("a rate change (applied)", Mark::Line(CHANGE, 1));
    let h = title_height(&title, WIDTH) + 640 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plots, legend_area) = legend.split(&body);
        let (_, ph) = plots.dim_in_pixel();
        let (top, bottom) = plots.split_vertically(ph / 2);
        let mut c = builder(&top)
            .build_cartesian_2d(0f64..xe, (dmin..dmax).log_scale())
            .map_err(e)?;
        mesh(
            &mut c,
            "time since t0 (s)",
            "one-way delay (ms, log)",
            (6, 5),
        )?;
        shade_phases(&mut c, s, dmin, dmax)?;
        for (t, _) in steps.iter().skip(1) {
            c.draw_series(std::iter::once(PathElement::new(
                vec![(*t, dmin), (*t, dmax)],
                CHANGE.stroke_width(1),
            )))
            .map_err(e)?;
        }
        c.draw_series(
            delays
                .iter()
                .map(|&(t, d)| Circle::new((t, d.min(dmax)), 2, DELAY.filled())),
        )
        .map_err(e)?;
        for seg in bounds.iter().flatten() {
            c.draw_series(std::iter::once(DashedPathElement::new(
                seg.clone(),
                8,
                6,
                BOUND.stroke_width(2),
            )))
            .map_err(e)?;
        }
        for seg in thresholds.iter().flatten() {
            c.draw_series(std::iter::once(DashedPathElement::new(
                seg.clone(),
                2,
                4,
                BOUND.stroke_width(2),
            )))
            .map_err(e)?;
        }
        let mut c = builder(&bottom)
            .build_cartesian_2d(0f64..xe, 0f64..rmax)
            .map_err(e)?;
        mesh(&mut c, "time since t0 (s)", "rate (Mbit/s)", (6, 5))?;
        shade_phases(&mut c, s, 0.0, rmax)?;
        for (t, _) in steps.iter().skip(1) {
            c.draw_series(std::iter::once(PathElement::new(
                vec![(*t, 0.0), (*t, rmax)],
                CHANGE.stroke_width(1),
            )))
            .map_err(e)?;
        }
        c.draw_series(LineSeries::new(
            goodput.iter().copied(),
            GOODPUT.stroke_width(2),
        ))
        .map_err(e)?;
        c.draw_series(LineSeries::new(sent.iter().copied(), SENT.stroke_width(2)))
            .map_err(e)?;
        c.draw_series(LineSeries::new(
            capacity.iter().copied(),
            CAPACITY.stroke_width(2),
        ))
        .map_err(e)?;
        legend.draw(&legend_area)
    })?;
    Ok(Some(Plot {
        file,
        title,
        scenario: Some(s.index),
        point: None,
        svg,
    }))
}

/// The throughput–delay plane over a trace: one marker per round, a
/// colour and shape per arm; the ideal corner (the base one-way delay,
/// 100 % use) marked. `None` unless some scenario has a trace point.
pub fn plane(input: &ReportInput) -> Result<Option<Plot>, PlotError> {
    let points: Vec<(&Scenario, netlab_analysis::link::TracePoint)> = input
        .scenarios
        .iter()
        .zip(&input.figures)
        .filter_map(|(s, f)| {
            f.link
                .as_ref()
                .and_then(|l: &LinkFigures| l.trace)
                .map(|t| (s, t))
        })
        .collect();
    if points.is_empty() {
        return Ok(None);
    }
    let file = crate::layout::run_figure("link-plane.svg");
    let title = crate::plots::scoped(
        input,
        "Over the trace, per round: the link's use against the probe's one-way p95 delay",
    );
    let mut arms: Vec<&str> = Vec::new();
    for (s, _) in &points {
        if !arms.contains(&s.arm.as_str()) {
            arms.push(&s.arm);
        }
    }
    let base = points
        .iter()
        .filter_map(|(s, _)| base_one_way_ms(s))
        .fold(f64::MAX, f64::min);
    let base = if base == f64::MAX { 1.0 } else { base };
    let x0 = base * 0.7;
    let x1 = points.iter().map(|p| p.1.p95_ms).fold(base * 2.0, f64::max) * 1.5;
    let shapes = [
        Shape::Circle,
        Shape::Square,
        Shape::Triangle,
        Shape::Diamond,
    ];
    let mut legend = Legend::new();
    for (i, a) in arms.iter().enumerate() {
        legend.push(
            a.to_string(),
            Mark::Marker(shapes[i % shapes.len()], arm_color(i)),
        );
    }
    legend.push(
        format!("ideal corner: the base one-way delay ({base:.1} ms), 100 % use"),
        Mark::Marker(Shape::Diamond, BLACK),
    );
    if points.iter().any(|p| p.1.p95_censored) {
        legend.push(
            "p95 on a timed-out request: at least (≥, hollow)",
            Mark::Marker(Shape::Circle, CHANGE),
        );
    }
    let h = title_height(&title, WIDTH) + 420 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        let mut c = builder(&plot)
            .build_cartesian_2d((x0..x1).log_scale(), 0f64..1.1)
            .map_err(e)?;
        mesh(
            &mut c,
            "probe one-way delay A→B, window p95 (ms, log)",
            "use of the link (delivered ÷ offered)",
            (6, 6),
        )?;
        c.draw_series(std::iter::once(marker(
            Shape::Diamond,
            (base, 1.0),
            7,
            BLACK,
        )))
        .map_err(e)?;
        for (s, t) in &points {
            let i = arms.iter().position(|a| *a == s.arm).unwrap_or(0);
            let col = arm_color(i);
            let at = (t.p95_ms, t.utilisation.min(1.1));
            if t.p95_censored {
                c.draw_series(std::iter::once(Circle::new(at, 6, col.stroke_width(2))))
            } else {
                c.draw_series(std::iter::once(marker(
                    shapes[i % shapes.len()],
                    at,
                    6,
                    col,
                )))
            }
            .map_err(e)?;
        }
        legend.draw(&legend_area)
    })?;
    Ok(Some(Plot::of_run(file, title, svg)))
}
