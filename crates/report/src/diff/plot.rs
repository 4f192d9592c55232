//! The diff's figures per pair (docs/usage.md, "Two runs"): the CDF of
//! the loaded probes' delay of run A (solid) and run B (dashed) on the
//! same axes, in the arm's colour, with what did not arrive said in the
//! legend, never drawn as a delay; and each round's goodput of run A
//! (solid, ●) and run B (dashed, ○), with each run's rounds summarised as
//! the report summarises them (netlab_stats::rounds) and their range.

use plotters::prelude::*;

use crate::diff::{Delays, PairDiff};
use crate::ReportError;
use netlab_figures::plot_legend::{Legend, Mark};
use netlab_figures::plot_style::{
    draw_axes, marker, title as draw_title, title_height, Axes, Shape, WIDTH,
};
use netlab_figures::plots::{arm_color, builder, draw_svg, e, mesh};
use netlab_stats::rounds::summarise;
use netlab_stats::{CensoredQuantile, Observation};

/// `diff-01-cdf.svg`: the `k`-th pair's figure (1-based).
pub(crate) fn file_name(k: usize) -> String {
    format!("diff-{k:02}-cdf.svg")
}

/// The ECDF steps of `v` (sorted): `(x, share at or below x)`, the share
/// of every request `n` (so a curve ends below 1 by what did not arrive).
fn steps(v: &[f64], n: usize) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(v.len() * 2);
    let mut prev = 0.0;
    for (i, x) in v.iter().enumerate() {
        out.push((*x, prev));
        prev = (i + 1) as f64 / n.max(1) as f64;
        out.push((*x, prev));
    }
    out
}

fn legend_text(run: &str, d: &Delays) -> String {
    let n = d.values.len() + d.missing;
    let mut t = format!("{run}: {} (n = {})", d.what, d.values.len());
    if d.missing > 0 {
        t.push_str(&format!(
            "; {} of {n} {} (not drawn as a delay: the curve ends at {:.0} %)",
            d.missing,
            d.missing_words,
            100.0 * d.values.len() as f64 / n.max(1) as f64
        ));
    }
    t
}

/// The figure of pair `k` (1-based) of a diff.
pub(crate) fn figure(k: usize, p: &PairDiff) -> Result<(String, String), ReportError> {
    let file = file_name(k);
    let title = format!(
        "{}: loaded probe delay, run A (solid) and run B (dashed)",
        crate::diff::pair_title(p)
    );
    let [a, b] = &p.delays;
    let mut legend = Legend::new();
    let c = arm_color(p.color);
    legend.push(legend_text("A", a), Mark::Line(c, 3));
    legend.push(legend_text("B", b), Mark::Dashed(c));
    let all: Vec<f64> = a
        .values
        .iter()
        .chain(&b.values)
        .copied()
        .filter(|v| *v > 0.0)
        .collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(0.0, f64::max);
    let (x0, x1) = if lo.is_finite() && hi > 0.0 {
        (lo / 1.5, hi * 1.5)
    } else {
        (0.1, 1000.0)
    };
    let h = title_height(&title, WIDTH) + 380 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        let mut chart = builder(&plot)
            .build_cartesian_2d((x0..x1).log_scale(), 0.0..1.0)
            .map_err(e)?;
        // Both runs' delays are of one kind (`Delays::of`): like with like.
        let xdesc = format!("{} (ms, log)", a.axis);
        mesh(&mut chart, &xdesc, "share of loaded requests", (6, 6))?;
        let clamp = |v: &[f64], n| -> Vec<(f64, f64)> {
            steps(v, n)
                .into_iter()
                .map(|(x, y)| (x.max(x0), y))
                .collect()
        };
        let na = a.values.len() + a.missing;
        let nb = b.values.len() + b.missing;
        chart
            .draw_series(std::iter::once(PathElement::new(
                clamp(&a.values, na),
                c.stroke_width(3),
            )))
            .map_err(e)?;
        chart
            .draw_series(std::iter::once(plotters::element::DashedPathElement::new(
                clamp(&b.values, nb),
                8,
                6,
                c.stroke_width(3),
            )))
            .map_err(e)?;
        legend.draw(&legend_area)
    })?;
    Ok((file, svg))
}

/// `diff-01-goodput.svg`: the `k`-th pair's goodput per round (1-based).
pub(crate) fn goodput_file_name(k: usize) -> String {
    format!("diff-{k:02}-goodput.svg")
}

/// The rounds' summary in words: `median 19.1 (19.09–19.11) Mbit/s`.
fn summary_text(rounds: &[(u32, f64)]) -> String {
    let o: Vec<Observation> = rounds.iter().map(|r| Observation::Exact(r.1)).collect();
    summarise(&o).map_or_else(
        || "no round".into(),
        |s| format!("{} Mbit/s", s.text(netlab_stats::fmt_num)),
    )
}

/// The figure of pair `k` (1-based): each round's goodput of both runs on
/// one axis, and each run's summary over its rounds as a thin line (the
/// mean of fewer than 3 rounds, else the median) with its range as a bar
/// at the right; None when neither run has a goodput.
pub(crate) fn goodput_figure(
    k: usize,
    p: &PairDiff,
) -> Result<Option<(String, String)>, ReportError> {
    let [a, b] = &p.goodput;
    if a.is_empty() && b.is_empty() {
        return Ok(None);
    }
    let file = goodput_file_name(k);
    let title = format!(
        "{}: goodput per round, run A (solid, ●) and run B (dashed, ○)",
        crate::diff::pair_title(p)
    );
    let c = arm_color(p.color);
    let mut legend = Legend::new();
    legend.push(
        format!("A: {} rounds, {}", a.len(), summary_text(a)),
        Mark::Line(c, 3),
    );
    legend.push(
        format!("B: {} rounds, {}", b.len(), summary_text(b)),
        Mark::Dashed(c),
    );
    legend.push(
        "thin line: the run's mean (fewer than 3 rounds) or median; bar at the right: its rounds' range (min–max)",
        Mark::Line(netlab_figures::plot_style::round_shade(c, 1, 1), 5),
    );
    let last = a.iter().chain(b).map(|r| r.0).max().unwrap_or(1).max(1);
    let levels: Vec<f64> = a.iter().chain(b).map(|r| r.1).collect();
    let ys = netlab_figures::plot_scale::y_scale(&levels);
    let lo = if ys.log {
        ys.from(ys.range.0)
    } else {
        ys.range.0
    };
    let hi = if ys.log {
        ys.from(ys.range.1)
    } else {
        ys.range.1
    };
    let pad = (f64::from(last) * 0.05).max(1.0);
    let x1 = f64::from(last) + pad;
    let h = title_height(&title, WIDTH) + 380 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        let mut chart = builder(&plot)
            .build_cartesian_2d(0.5..x1, lo..hi)
            .map_err(e)?;
        // Rounds are whole: a tick between two is left blank.
        let whole = |v: &f64| {
            if (v - v.round()).abs() < 1e-9 && *v >= 1.0 {
                format!("{v:.0}")
            } else {
                String::new()
            }
        };
        draw_axes(
            &mut chart,
            &Axes {
                x_label: &whole,
                ..Axes::ticks("round", "goodput (Mbit/s)", (8, 6))
            },
        )?;
        let r = if last > 100 { 2 } else { 5 };
        for (run, v) in [a, b].into_iter().enumerate() {
            draw_rounds(&mut chart, run, v, c, r, (f64::from(last), pad))?;
        }
        legend.draw(&legend_area)
    })?;
    Ok(Some((file, svg)))
}

type RoundsChart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// One run's rounds in the goodput figure: a line through them (solid
/// for A, dashed for B), a marker each (● A, ○ B), the summary over them
/// as a thin line and their range as a bar right of the last round.
fn draw_rounds(
    chart: &mut RoundsChart<'_, '_>,
    run: usize,
    v: &[(u32, f64)],
    c: RGBColor,
    r: i32,
    (last, pad): (f64, f64),
) -> Result<(), String> {
    let x1 = last + pad;
    let mut v = v.to_vec();
    v.sort_by_key(|x| x.0);
    let line: Vec<(f64, f64)> = v.iter().map(|(k, g)| (f64::from(*k), *g)).collect();
    if run == 0 {
        chart
            .draw_series(std::iter::once(PathElement::new(
                line.clone(),
                c.stroke_width(2),
            )))
            .map_err(e)?;
    } else {
        chart
            .draw_series(std::iter::once(plotters::element::DashedPathElement::new(
                line.clone(),
                8,
                6,
                c.stroke_width(2),
            )))
            .map_err(e)?;
    }
    let shape = if run == 0 { Shape::Circle } else { Shape::Ring };
    chart
        .draw_series(line.iter().map(|p| marker(shape, *p, r, c)))
        .map_err(e)?;
    let o: Vec<Observation> = v.iter().map(|x| Observation::Exact(x.1)).collect();
    let Some(s) = summarise(&o) else {
        return Ok(());
    };
    if let CensoredQuantile::Value(m) = s.value {
        let at = [(0.5, m), (x1, m)];
        if run == 0 {
            chart
                .draw_series(std::iter::once(PathElement::new(at, c.stroke_width(1))))
                .map_err(e)?;
        } else {
            chart
                .draw_series(std::iter::once(plotters::element::DashedPathElement::new(
                    at,
                    4,
                    4,
                    c.stroke_width(1),
                )))
                .map_err(e)?;
        }
    }
    let (l, u) = s.range();
    let lv = |o: Observation| match o {
        Observation::Exact(v) | Observation::AtLeast(v) => v,
    };
    let x = last + pad * if run == 0 { 0.35 } else { 0.65 };
    chart
        .draw_series(std::iter::once(PathElement::new(
            [(x, lv(l)), (x, lv(u))],
            netlab_figures::plot_style::round_shade(c, 1, 1).stroke_width(5),
        )))
        .map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_ends_below_one_by_what_did_not_arrive() {
        let s = steps(&[1.0, 2.0, 3.0], 4);
        assert_eq!(s.last(), Some(&(3.0, 0.75)));
        assert_eq!(s.first(), Some(&(1.0, 0.0)));
    }
}
