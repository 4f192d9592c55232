//! The headline figure, drawn beside the headline at the top of
//! index.html: per arm, the loaded probe delay the headline gives
//! (baseline p50, loaded p50 and p95, Kaplan–Meier with timeouts censored;
//! a value on the censored mass a "≥" triangle at its bound) with each
//! round's loaded p50 in its own marker, and beside it what became of the
//! loaded probe requests that got no reply within the timeout.

use plotters::prelude::*;

use crate::plot_legend::{along, draw_labels, Label, Legend, Mark};
use crate::plot_style::{
    draw_axes, font_c, line_h, marker, round_shade, text_width, title as draw_title, title_height,
    wrap, Axes, Shape, TEXT_PX, WIDTH, X_LABEL_AREA,
};
use crate::plots::{arm_color, draw_svg, dropped_color, e, tick, Plot, TIMEOUT_FILL};
use crate::plots_run::{plot_bounds, px_in};
use crate::PlotError;
use netlab_analysis::ReportInput;
use netlab_compare::compare::{Figure, Statistics};
use netlab_compare::headline::{ArmHeadline, Headline};
use netlab_results::fate::{one_way_quantiles, Fate};
use netlab_stats::CensoredQuantile;

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

/// Colours of the fates: reached B late, dropped (by reason, in order),
/// lost without a cause, unresolved.
const LATE: RGBColor = RGBColor(230, 150, 40);
const LOST_UNKNOWN: RGBColor = RGBColor(70, 70, 70);
const UNRESOLVED: RGBColor = RGBColor(200, 200, 200);

/// The right panel's bar of one arm. Where results.json records each
/// request's fate (B's receive log, method §5.6), the segments are "reached
/// B after the timeout", "never reached B: dropped by …" per reason, "never
/// reached B: cause unknown" and "unresolved"; in older results the one
/// thing known is that no reply came within the timeout, and the bar says
/// exactly that.
pub fn loaded_fates(a: &ArmHeadline) -> LoadedFates {
    // The headline's delay is the window's (method §12.11): its samples'
    // fates, when it knows them.
    let window = a
        .window
        .as_ref()
        .filter(|w| w.measure == netlab_compare::window::Measure::OneWay)
        .map(|w| &w.fates);
    let Some(d) = window.or(a.delivery.as_ref()) else {
        return LoadedFates {
            requests: a.loaded_requests,
            segments: vec![FateSegment {
                what: format!(
                    "no reply within {:.0} ms (reached B late or lost: not recorded)",
                    a.timeout_ms
                ),
                count: a.loaded_timeouts,
                color: NO_REPLY,
            }],
        };
    };
    let mut segments = vec![FateSegment {
        what: format!(
            "reached B, no reply within {:.0} ms (a delay, not a loss)",
            d.timeout_ms
        ),
        count: d.reached_late as usize,
        color: LATE,
    }];
    for l in &d.dropped {
        segments.push(FateSegment {
            what: format!("never reached B: {} ({})", l.reason.as_words(), l.qdisc),
            count: l.count as usize,
            color: dropped_color(l.reason),
        });
    }
    segments.push(FateSegment {
        what: "never reached B: cause unknown".into(),
        count: d.lost_unknown as usize,
        color: LOST_UNKNOWN,
    });
    // An unresolved request is censored at its own bound (method §5.8):
    // the legend gives the bounds where results.json kept B's close.
    let bounds = match (d.censored_ms.first(), d.censored_ms.last()) {
        (Some(lo), Some(hi)) if d.censored_ms.len() == d.unresolved as usize => format!(
            ": censored at their own bounds, ≥ {} to ≥ {} ms",
            netlab_stats::fmt_num(*lo),
            netlab_stats::fmt_num(*hi)
        ),
        _ => String::new(),
    };
    segments.push(FateSegment {
        what: format!("unresolved (B stopped listening first){bounds}"),
        count: d.unresolved as usize,
        color: UNRESOLVED,
    });
    segments.retain(|s| s.count > 0);
    LoadedFates {
        requests: d.sent as usize,
        segments,
    }
}

/// Whether the figure draws the one-way A→B delay of the delivered probes
/// (every arm has its fates and a shared clock), as the headline then
/// does, rather than the RTT with timeouts censored.
fn one_way_mode(hl: &Headline) -> bool {
    !hl.arms.is_empty()
        && hl
            .arms
            .iter()
            .all(|a| a.delivery.as_ref().is_some_and(|d| d.one_way.is_some()))
}

/// The one-way delay over the measured window of every arm (method
/// §12.11), when the headline quotes it for each.
fn window_of(a: &ArmHeadline) -> Option<&netlab_compare::window::WindowDelay> {
    a.window
        .as_ref()
        .filter(|w| w.measure == netlab_compare::window::Measure::OneWay && !w.samples.is_empty())
}

/// One arm's row of the delay panel: the values the headline gives, each
/// with whether it is a bound.
struct Row<'h> {
    arm: &'h ArmHeadline,
    baseline: Option<(f64, bool)>,
    p50: Option<(f64, bool)>,
    p95: Option<(f64, bool)>,
    rounds: Vec<(u32, f64, bool)>,
}

/// Each round's loaded one-way p50 of `arm`'s delivered probes.
fn round_one_way(input: &ReportInput, arm: &str) -> Vec<(u32, f64, bool)> {
    input
        .scenarios
        .iter()
        .filter(|s| s.arm == arm && s.error.is_none())
        .filter_map(|s| {
            let f = s.fates.as_ref()?;
            let v: Vec<f64> = f
                .requests
                .iter()
                .filter(|r| r.phase == netlab_probe::Phase::Loaded)
                .filter_map(|r| match r.fate {
                    Fate::Replied { one_way_ms, .. } | Fate::ReachedB { one_way_ms, .. } => {
                        one_way_ms
                    }
                    _ => None,
                })
                .collect();
            one_way_quantiles(v).map(|q| (s.round, q.p50_ms.max(0.01), false))
        })
        .collect()
}

fn rows<'h>(input: &ReportInput, st: &Statistics, hl: &'h Headline, one_way: bool) -> Vec<Row<'h>> {
    hl.arms
        .iter()
        .map(|a| rows_of(input, st, a, one_way))
        .map(|mut r| {
            // Rounds in different states: no pooled figure, only the
            // rounds (method §12.6).
            if !r.arm.by_state.is_empty() {
                r.p50 = None;
                r.p95 = None;
            }
            r
        })
        .collect()
}

fn rows_of<'h>(input: &ReportInput, st: &Statistics, a: &'h ArmHeadline, one_way: bool) -> Row<'h> {
    if let (Some(w), true) = (window_of(a), one_way) {
        // Each round's point is its window p50, the value the verdict uses.
        return Row {
            arm: a,
            baseline: None,
            p50: point(&w.quantile(0.5)),
            p95: point(&w.quantile(0.95)),
            rounds: round_p50s(st, &a.arm),
        };
    }
    {
        match (&a.delivery, one_way) {
            (Some(d), true) => {
                let q = d.one_way;
                Row {
                    arm: a,
                    baseline: None,
                    p50: q.map(|q| (q.p50_ms.max(0.01), false)),
                    p95: q.map(|q| (q.p95_ms.max(0.01), false)),
                    rounds: round_one_way(input, &a.arm),
                }
            }
            _ => Row {
                arm: a,
                baseline: point(&a.baseline_p50),
                p50: point(&a.loaded_p50),
                p95: point(&a.loaded_p95),
                rounds: round_p50s(st, &a.arm),
            },
        }
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
/// The width of the arms' names left of the delay panel, px: room for
/// the longest word of any name (names wrap at their spaces), at least
/// 96 px and at most 170, so the panel keeps most of its width.
fn name_area(names: &[String]) -> u32 {
    let word = names
        .iter()
        .flat_map(|n| n.split_whitespace())
        .map(|w| text_width(w, TEXT_PX))
        .fold(0.0f64, f64::max);
    ((word + 20.0).ceil() as u32).clamp(96, 170)
}

const ROW_H: u32 = 78;
/// The delay panel's share of the width, px.
const DELAY_W: u32 = 390;

/// The figure's legend.
fn legend_of(hl: &Headline, bound: f64, rounds: u32, one_way: bool, censored: bool) -> Legend {
    let grey = RGBColor(90, 90, 90);
    let mut l = Legend::new();
    if one_way {
        l.push("p50, pooled", Mark::Marker(Shape::Bar, grey));
        l.push("p95, pooled", Mark::Marker(Shape::ThinBar, grey));
        l.push(
            format!("timeout {bound:.0} ms (later deliveries exact)"),
            Mark::Dashed(grey),
        );
    } else {
        l.push("baseline p50", Mark::Marker(Shape::Ring, grey));
        l.push("loaded p50, pooled", Mark::Marker(Shape::Bar, grey));
        l.push("loaded p95, pooled", Mark::Marker(Shape::ThinBar, grey));
        if censored {
            l.push(
                format!("≥ censored at {bound:.0} ms"),
                Mark::Marker(Shape::AtLeast, grey),
            );
        }
    }
    if hl.arms.iter().any(|a| !a.by_state.is_empty()) {
        l.push(
            "states differ: not pooled",
            Mark::Marker(Shape::Bar, RGBColor(200, 200, 200)),
        );
    }
    // The rounds' p50s under each arm: one entry, r1's shape (each
    // round's shape is `Shape::of_round`, as in every figure).
    if rounds > 0 {
        let text = if rounds == 1 {
            "the round's p50 (under its arm)".to_string()
        } else {
            format!("each round's p50 (r1 to r{rounds})")
        };
        l.push(text, Mark::Marker(Shape::of_round(1), grey));
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

/// The headline figure: per arm the delay the headline gives (left) and
/// what became of the loaded probes without a timely reply (right).
// Long: one figure drawn in order (title, legend, the delay panel's rows
// and labels, the fate panel's bars); the steps share the drawing areas.
pub fn figure(input: &ReportInput, st: &Statistics, hl: &Headline) -> Result<Plot, PlotError> {
    let window = !hl.arms.is_empty() && hl.arms.iter().all(|a| window_of(a).is_some());
    let one_way = window || one_way_mode(hl);
    let title = match hl.arms.first().and_then(window_of).map(|w| w.sampling) {
        Some(netlab_compare::window::Sampling::Isochronous { .. }) if window => {
            "Headline: window one-way delay per arm (isochronous probe; median, p95) and what became of the other slots"
        }
        Some(_) if window => {
            "Headline: window one-way delay per arm (stop-and-wait, time-weighted; median, p95) and the other requests"
        }
        _ if one_way => {
            "Headline: one-way delay of each arm's delivered probes (p50, p95 over its rounds), and what became of the rest"
        }
        _ => "Headline: each arm's loaded probe RTT (p50, p95 over its rounds), and probes without a timely reply",
    };
    let title = crate::plots::scoped(input, title);
    let bound = hl.arms.iter().map(|a| a.timeout_ms).fold(1.0, f64::max);
    let rounds = hl.arms.iter().map(|a| a.rounds as u32).max().unwrap_or(0);
    let n = hl.arms.len().max(1);
    let rows = rows(input, st, hl, one_way);
    let censored = rows
        .iter()
        .any(|r| [r.p50, r.p95].iter().flatten().any(|q| q.1));
    let legend = legend_of(hl, bound, rounds, one_way, censored);
    let values = rows.iter().flat_map(|r| {
        [r.baseline, r.p50, r.p95]
            .into_iter()
            .flatten()
            .map(|p| p.0)
            .chain(r.rounds.iter().map(|p| p.1))
            .collect::<Vec<f64>>()
    });
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let x0 = if lo.is_finite() { lo * 0.5 } else { 0.1 };
    let x1 = if one_way {
        (bound * 1.5).max(hi * 1.5)
    } else {
        (bound * 2.2).max(hi * 1.5)
    };
    // The arms' names left of their rows, each wrapped to the name area,
    // which is as wide as the longest word needs (`cake dual-srchost`),
    // so no name is cut at the figure's edge.
    let names: Vec<String> = hl.arms.iter().map(|a| a.arm.clone()).collect();
    let name_w = name_area(&names);
    // Rows tall enough that the two panels together are never smaller
    // than the legend (as wide as the figure; the panels lose the names'
    // area and the fate panel's margins, about 60 px).
    let lh = legend.height(WIDTH);
    let plots_w = (WIDTH - name_w - 60).max(1);
    let row_h = ROW_H.max((lh * WIDTH).div_ceil(plots_w).div_ceil(n as u32));
    let h = title_height(&title, WIDTH) + 80 + row_h * n as u32 + lh;
    let svg = draw_svg(FILE, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plots, legend_area) = legend.split(&body);
        let (left, right) = plots.split_horizontally(DELAY_W);
        let y_range = -0.7f64..(n as f64 - 0.4);
        let mut chart = ChartBuilder::on(&left)
            .margin_top(6)
            .margin_right(12)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(name_w)
            .build_cartesian_2d((x0..x1).log_scale(), y_range.clone())
            .map_err(e)?;
        let x_desc = if one_way {
            "one-way delay (ms, log)"
        } else {
            "probe RTT (ms, log)"
        };
        draw_axes(
            &mut chart,
            &Axes {
                y_label: &|_| String::new(),
                ..Axes::ticks(x_desc, "", (5, 0))
            },
        )?;
        if one_way {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(bound, y_range.start), (bound, y_range.end)],
                    6,
                    4,
                    RGBColor(90, 90, 90).stroke_width(1),
                ))
                .map_err(e)?;
        } else {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(bound, y_range.start), (x1, y_range.end)],
                    TIMEOUT_FILL.filled(),
                )))
                .map_err(e)?;
        }
        let bounds = plot_bounds(&chart, &left);
        let mut labels = Vec::new();
        let mut avoid = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            let c = arm_color(i);
            let y = (n - 1 - i) as f64;
            let name_at = px_in(&chart, &left, (x0, y));
            let lines = wrap(&row.arm.arm, TEXT_PX, f64::from(name_w) - 12.0);
            let lh = line_h(TEXT_PX);
            let top = name_at.1 - lh * (lines.len() as i32 - 1) / 2;
            for (k, line) in lines.iter().enumerate() {
                left.draw(&Text::new(
                    line.clone(),
                    (name_at.0 - 8, top + k as i32 * lh),
                    font_c(TEXT_PX, c).pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Right,
                        plotters::style::text_anchor::VPos::Center,
                    )),
                ))
                .map_err(e)?;
            }
            let ends: Vec<f64> = [row.baseline, row.p50, row.p95]
                .iter()
                .flatten()
                .map(|p| p.0)
                .collect();
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
            if let Some((v, _)) = row.baseline {
                chart
                    .draw_series(std::iter::once(marker(Shape::Ring, (v, y), 8, c)))
                    .map_err(e)?;
                avoid.push(px_in(&chart, &left, (v, y)));
            }
            let both_censored = matches!((row.p50, row.p95), (Some((_, true)), Some((_, true))));
            for (q, shape, what) in [
                (row.p50, Shape::Bar, "p50"),
                (row.p95, Shape::ThinBar, "p95"),
            ] {
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
            let k = row.rounds.len();
            for (j, (round, v, _)) in row.rounds.iter().enumerate() {
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
        fate_panel(&right, &rows.iter().map(|r| r.arm).collect::<Vec<_>>(), n)?;
        legend.draw(&legend_area)
    })?;
    Ok(Plot {
        file: FILE.into(),
        title,
        scenario: None,
        point: None,
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
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(8)
        .build_cartesian_2d(0f64..100.0, -0.7f64..(n as f64 - 0.4))
        .map_err(e)?;
    // The bars count the window's samples when the headline quotes them.
    let noun = arms
        .first()
        .and_then(|a| window_of(a))
        .map_or("probes", |w| w.sampling.noun());
    let x_label = format!("% of loaded {noun}");
    draw_axes(
        &mut chart,
        &Axes {
            y_label: &|_| String::new(),
            ..Axes::ticks(&x_label, "", (3, 0))
        },
    )?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_results::Results;

    fn fixture() -> Results {
        netlab_analysis::testing::fixture_results("run-uml-3rounds")
    }

    fn text_of(svg: &str) -> String {
        crate::plots_run::tests::svg_text(svg)
    }

    fn figure_of(r: &Results) -> Plot {
        let input = netlab_analysis::input_from(r).unwrap();
        let st = netlab_compare::compare::analyse(&input);
        let hl = netlab_compare::headline::Headline::of(&input, &st);
        figure(&input, &st, &hl).unwrap()
    }

    #[test]
    fn without_fates_the_figure_draws_the_censored_rtt_and_says_what_is_unknown() {
        let p = figure_of(&fixture());
        let t = text_of(&p.svg);
        assert!(t.contains("probe RTT (ms, log)"), "{t}");
        // pfifo's rounds fall into two states: no pooled figure of it,
        // its rounds only, and the legend says why; fq_codel's is pooled.
        assert!(!t.contains("p50, p95 ≥ 1000"), "pfifo pooled: {t}");
        assert!(t.contains("p50 6.84 p95 ≥ 1000"), "fq_codel's: {t}");
        assert!(t.contains("states differ: not pooled"), "{t}");
        assert!(t.contains("24 of 27"), "{t}");
        assert!(t.contains("reached B late or lost: not recorded"), "{t}");
        assert!(!t.contains("never reached B"), "{t}");
    }

    #[test]
    fn with_fates_the_figure_draws_one_way_delay_and_each_loss_with_its_cause() {
        let p = figure_of(&netlab_analysis::testing::with_fates(fixture()));
        let t = text_of(&p.svg);
        assert!(t.contains("one-way delay (ms, log)"), "{t}");
        // pfifo's delay is a number past the timeout, not a bound
        assert!(!t.contains("≥ 1000"), "{t}");
        assert!(
            t.contains("never reached B: dropped by CoDel (fq_codel)"),
            "{t}"
        );
        assert!(
            t.contains("reached B, no reply within 1000 ms (a delay, not a loss)"),
            "{t}"
        );
        // fq_codel: its 10 timeouts were drops; pfifo: 24 reached B late
        assert!(t.contains("10 of 88"), "{t}");
        assert!(t.contains("24 of 27"), "{t}");
        let small = crate::plot_style::fonts_below_print_rule(&p.svg).unwrap();
        assert!(small.is_empty(), "{small:?}");
    }
}
