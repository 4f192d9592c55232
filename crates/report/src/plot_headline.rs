//! The headline figure, drawn beside the headline at the top of
//! index.html: per arm, the loaded probe delay the headline gives
//! (baseline p50, loaded p50 and p95, Kaplan–Meier with timeouts censored;
//! a value on the censored mass a "≥" triangle at its bound) with each
//! round's loaded p50 in its own marker, and beside it what became of the
//! loaded probe requests that got no reply within the timeout.

use plotters::prelude::*;

use crate::compare::{Figure, Statistics};
use crate::headline::{ArmHeadline, Headline};
use crate::plot_style::{
    along, draw_labels, font, font_c, marker, round_shade, title as draw_title, title_height,
    Label, Legend, Mark, Shape, TEXT_PX, WIDTH,
};
use crate::plots::{arm_color, draw_svg, e, tick, Plot, TIMEOUT_FILL};
use crate::plots_run::{plot_bounds, px_in};
use crate::stats::CensoredQuantile;
use crate::ReportError;

/// The headline figure's file.
pub const FILE: &str = "headline-delay-loss.svg";

/// One segment of an arm's bar in the right panel: what became of some of
/// its loaded requests.
#[derive(Debug, Clone, PartialEq)]
pub struct FateSegment {
    /// What (the legend's words).
    pub what: String,
    /// How many loaded requests.
    pub count: usize,
    /// Its colour.
    pub color: RGBColor,
}

/// What became of one arm's loaded probe requests that got no reply
/// within the timeout, as the right panel draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedFates {
    /// Loaded requests with RTT information (the bar's 100 %).
    pub requests: usize,
    /// The segments, left to right.
    pub segments: Vec<FateSegment>,
}

/// Grey of requests without a timely reply whose fate results.json does
/// not record.
const NO_REPLY: RGBColor = RGBColor(150, 150, 150);

/// The right panel's bar of one arm. The hook for the probe fates (issue
/// 30, item 1): where results.json records each request's fate, the
/// segments become "reached B late", "dropped at the bottleneck (reason)"
/// and "lost, cause unknown"; until then the one thing known is that no
/// reply came within the timeout, and the bar says exactly that.
pub fn loaded_fates(a: &ArmHeadline) -> LoadedFates {
    LoadedFates {
        requests: a.loaded_requests,
        segments: vec![FateSegment {
            what: format!(
                "no reply within {:.0} ms (reached B late or lost: not recorded)",
                a.timeout_ms
            ),
            count: a.loaded_timeouts,
            color: NO_REPLY,
        }],
    }
}

/// The value to draw and whether it is a bound.
fn point(q: &CensoredQuantile) -> Option<(f64, bool)> {
    match *q {
        CensoredQuantile::Value(v) => Some((v.max(0.01), false)),
        CensoredQuantile::AtLeast(v) => Some((v.max(0.01), true)),
        CensoredQuantile::NoData => None,
    }
}

/// Each round's loaded p50 of `arm`, from the statistics the verdict uses.
fn round_p50s(st: &Statistics, arm: &str) -> Vec<(u32, f64, bool)> {
    st.figures
        .iter()
        .find(|f| f.arm == arm && f.figure == Figure::LoadedP50)
        .map(|f| {
            f.rounds
                .iter()
                .filter_map(|r| point(&r.value).map(|(v, b)| (r.round, v, b)))
                .collect()
        })
        .unwrap_or_default()
}

/// The rows' height, px.
const ROW_H: u32 = 78;
/// The delay panel's share of the width, px.
const DELAY_W: u32 = 390;

/// The figure's legend.
fn legend_of(hl: &Headline, bound: f64, rounds: u32) -> Legend {
    let grey = RGBColor(90, 90, 90);
    let mut l = Legend::new();
    l.push("baseline p50 (probe only)", Mark::Marker(Shape::Ring, grey));
    l.push("loaded p50, pooled", Mark::Marker(Shape::Circle, grey));
    l.push("loaded p95, pooled", Mark::Marker(Shape::Diamond, grey));
    l.push(
        format!("≥: on the censored mass (no reply within {bound:.0} ms), drawn at the bound"),
        Mark::Marker(Shape::AtLeast, grey),
    );
    for r in 1..=rounds {
        let text = if r == 1 {
            "loaded p50 of r1 (under its arm)".to_string()
        } else {
            format!("r{r}")
        };
        l.push(text, Mark::Marker(Shape::of_round(r), grey));
    }
    let mut seen: Vec<String> = Vec::new();
    for a in &hl.arms {
        for s in loaded_fates(a).segments {
            if !seen.contains(&s.what) {
                l.push(s.what.clone(), Mark::Band(s.color));
                seen.push(s.what);
            }
        }
    }
    l
}

/// The headline figure (delay per arm, and the loaded requests without a
/// timely reply beside it).
// Long: one figure drawn in order (title, legend, the delay panel's rows
// and labels, the fate panel's bars); the steps share the drawing areas.
pub fn figure(st: &Statistics, hl: &Headline) -> Result<Plot, ReportError> {
    let title =
        "Headline: loaded probe delay per arm, and probes without a timely reply".to_string();
    let bound = hl.arms.iter().map(|a| a.timeout_ms).fold(1.0, f64::max);
    let rounds = hl.arms.iter().map(|a| a.rounds as u32).max().unwrap_or(0);
    let legend = legend_of(hl, bound, rounds);
    let n = hl.arms.len().max(1);
    let rows: Vec<(usize, &ArmHeadline, Vec<(u32, f64, bool)>)> = hl
        .arms
        .iter()
        .enumerate()
        .map(|(i, a)| (i, a, round_p50s(st, &a.arm)))
        .collect();
    let values = rows.iter().flat_map(|(_, a, r)| {
        [&a.baseline_p50, &a.loaded_p50, &a.loaded_p95]
            .into_iter()
            .filter_map(point)
            .map(|p| p.0)
            .chain(r.iter().map(|p| p.1))
            .collect::<Vec<f64>>()
    });
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let x0 = if lo.is_finite() { lo * 0.5 } else { 0.1 };
    let x1 = (bound * 2.2).max(hi * 1.5);
    let h = title_height(&title, WIDTH) + 80 + ROW_H * n as u32 + legend.height(WIDTH);
    let svg = draw_svg(FILE, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plots, legend_area) = legend.split(&body);
        let (left, right) = plots.split_horizontally(DELAY_W);
        let y_range = -0.7f64..(n as f64 - 0.4);
        let mut chart = ChartBuilder::on(&left)
            .margin_top(6)
            .margin_right(12)
            .x_label_area_size(58)
            .y_label_area_size(96)
            .build_cartesian_2d((x0..x1).log_scale(), y_range.clone())
            .map_err(e)?;
        chart
            .configure_mesh()
            .label_style(font(TEXT_PX))
            .axis_desc_style(font(TEXT_PX))
            .x_label_formatter(&tick)
            .y_label_formatter(&|_| String::new())
            .x_labels(5)
            .y_labels(0)
            .x_desc("probe RTT (ms, log)")
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(e)?;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(bound, y_range.start), (x1, y_range.end)],
                TIMEOUT_FILL.filled(),
            )))
            .map_err(e)?;
        let bounds = plot_bounds(&chart, &left);
        let mut labels = Vec::new();
        let mut avoid = Vec::new();
        for (i, a, per_round) in &rows {
            let c = arm_color(*i);
            let y = (n - 1 - i) as f64;
            let name_at = px_in(&chart, &left, (x0, y));
            left.draw(&Text::new(
                a.arm.clone(),
                (name_at.0 - 8, name_at.1),
                font_c(TEXT_PX, c).pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Right,
                    plotters::style::text_anchor::VPos::Center,
                )),
            ))
            .map_err(e)?;
            let b = point(&a.baseline_p50);
            let p50 = point(&a.loaded_p50);
            let p95 = point(&a.loaded_p95);
            let ends: Vec<f64> = [b, p50, p95].iter().flatten().map(|p| p.0).collect();
            if let (Some(l), Some(r)) = (
                ends.iter().copied().reduce(f64::min),
                ends.iter().copied().reduce(f64::max),
            ) {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(l, y), (r, y)],
                        c.mix(0.6).stroke_width(2),
                    )))
                    .map_err(e)?;
                avoid.extend(along(
                    px_in(&chart, &left, (l, y)),
                    px_in(&chart, &left, (r, y)),
                ));
            }
            if let Some((v, _)) = b {
                chart
                    .draw_series(std::iter::once(marker(Shape::Ring, (v, y), 8, c)))
                    .map_err(e)?;
                avoid.push(px_in(&chart, &left, (v, y)));
            }
            let both_censored = matches!((p50, p95), (Some((_, true)), Some((_, true))));
            for (q, shape, what) in [(p50, Shape::Circle, "p50"), (p95, Shape::Diamond, "p95")] {
                let Some((v, censored)) = q else { continue };
                let shape = if censored { Shape::AtLeast } else { shape };
                chart
                    .draw_series(std::iter::once(marker(shape, (v, y), 9, c)))
                    .map_err(e)?;
                avoid.push(px_in(&chart, &left, (v, y)));
                let text = match (censored, both_censored, what) {
                    (true, true, "p50") => continue,
                    (true, true, _) => format!("p50, p95 ≥ {}", tick(&v.round())),
                    (true, false, _) => format!("{what} ≥ {}", tick(&v.round())),
                    _ => format!("{what} {}", fmt(v)),
                };
                labels.push(Label {
                    text,
                    color: c,
                    at: px_in(&chart, &left, (v, y)),
                });
            }
            let k = per_round.len();
            for (j, (round, v, _)) in per_round.iter().enumerate() {
                let yr = y - 0.38;
                chart
                    .draw_series(std::iter::once(marker(
                        Shape::of_round(*round),
                        (*v, yr),
                        6,
                        round_shade(c, j, k),
                    )))
                    .map_err(e)?;
                avoid.push(px_in(&chart, &left, (*v, yr)));
            }
        }
        draw_labels(&left, &labels, &avoid, bounds)?;
        fate_panel(&right, &rows.iter().map(|r| r.1).collect::<Vec<_>>(), n)?;
        legend.draw(&legend_area)
    })?;
    Ok(Plot {
        file: FILE.into(),
        title,
        scenario: None,
        svg,
    })
}

/// `6.84`, `579`.
fn fmt(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}")
    } else if v < 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// The right panel: per arm, a bar of its loaded requests' fates, % of
/// the loaded requests, with the count written beside it.
fn fate_panel(
    area: &crate::plots::Area<'_>,
    arms: &[&ArmHeadline],
    n: usize,
) -> Result<(), String> {
    let mut chart = ChartBuilder::on(area)
        .margin_top(6)
        .margin_right(22)
        .x_label_area_size(58)
        .y_label_area_size(8)
        .build_cartesian_2d(0f64..100.0, -0.7f64..(n as f64 - 0.4))
        .map_err(e)?;
    chart
        .configure_mesh()
        .label_style(font(TEXT_PX))
        .axis_desc_style(font(TEXT_PX))
        .x_label_formatter(&tick)
        .y_label_formatter(&|_| String::new())
        .x_labels(3)
        .y_labels(0)
        .x_desc("% of loaded probes")
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    for (i, a) in arms.iter().enumerate() {
        let y = (n - 1 - i) as f64;
        let f = loaded_fates(a);
        let total = f.requests.max(1) as f64;
        let mut x = 0.0;
        let mut lost = 0;
        for s in &f.segments {
            let w = s.count as f64 * 100.0 / total;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x, y - 0.22), (x + w, y + 0.22)],
                    s.color.filled(),
                )))
                .map_err(e)?;
            x += w;
            lost += s.count;
        }
        let text = format!("{lost} of {}", f.requests);
        chart
            .draw_series(std::iter::once(Text::new(
                text,
                (1.0, y + 0.26),
                font_c(TEXT_PX, arm_color(i)).pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Left,
                    plotters::style::text_anchor::VPos::Bottom,
                )),
            )))
            .map_err(e)?;
    }
    Ok(())
}
