//! The diff's figure per pair (docs/report.md, "Two runs"): the CDF of
//! the loaded probes' delay of run A (solid) and run B (dashed) on the
//! same axes, in the arm's colour, with what did not arrive said in the
//! legend, never drawn as a delay.

use plotters::prelude::*;

use crate::diff::{Delays, PairDiff};
use crate::plot_style::{title as draw_title, title_height, Legend, Mark, WIDTH};
use crate::plots::{arm_color, builder, draw_svg, e, mesh};
use crate::ReportError;

/// `diff-01-cdf.svg`: the `k`-th pair's figure (1-based).
pub fn file_name(k: usize) -> String {
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
pub fn figure(k: usize, p: &PairDiff) -> Result<(String, String), ReportError> {
    let file = file_name(k);
    let title = format!(
        "{}: loaded probe delay, run A (solid) and run B (dashed)",
        crate::diff::pair_title(p)
    );
    let [a, b] = &p.delays;
    let mut legend = Legend::new();
    let c = arm_color(0);
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
        let xdesc = if a.axis == b.axis {
            format!("{} (ms, log)", a.axis)
        } else {
            // One run has the receive log, the other not: say both.
            format!("A: {}, B: {} (ms, log)", a.axis, b.axis)
        };
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
