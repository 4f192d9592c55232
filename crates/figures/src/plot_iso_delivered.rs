//! The isochronous probe's loaded one-way delay beside the stop-and-wait
//! probe's, by each request's fate (method §5.8): a curve over every
//! request sent that rises only at delivered requests and so stops at the
//! delivered share; a dropped request is a loss, never a delay; an
//! unresolved one is a "≥" marker at its own bound (B's close less its
//! send), never a value. Drawn where every round of the run has the
//! isochronous probe's fates; [`crate::plots_run::iso_cdf`] keeps the
//! round-trip Kaplan–Meier figure for results without them.

use plotters::prelude::*;

use netlab_analysis::ArmDelivery;

use crate::plot_legend::{Legend, Mark};
use crate::plot_style::{marker, title as draw_title, title_height, Shape, WIDTH};
use crate::plots::{arm_color, draw_svg, e, Plot};
use crate::plots_run::arms;
use crate::PlotError;
use netlab_analysis::records::Scenario;
use netlab_analysis::ReportInput;

/// Each arm's deliveries of both probes, pooled over its rounds without
/// error: (arm, stop-and-wait when its fates are there, isochronous).
type ArmCurves = (String, Option<ArmDelivery>, ArmDelivery);

/// Every arm's curves, or None unless every arm's rounds carry the
/// isochronous probe's fates with one-way delays.
fn curves(input: &ReportInput) -> Option<Vec<ArmCurves>> {
    let mut out = Vec::new();
    for arm in arms(input) {
        let rounds: Vec<&Scenario> = input
            .scenarios
            .iter()
            .filter(|s| s.arm == arm && s.error.is_none())
            .collect();
        if rounds.is_empty() {
            continue;
        }
        let iso = ArmDelivery::of_iso(&rounds)?;
        if iso.delivered() as usize != iso.delivered_ms.len() {
            return None;
        }
        let saw =
            ArmDelivery::of(&rounds).filter(|d| d.delivered() as usize == d.delivered_ms.len());
        out.push((arm, saw, iso));
    }
    (!out.is_empty()).then_some(out)
}

/// The step line of `d`'s CDF over every request sent, from `x0` to `x1`.
fn step_line(d: &ArmDelivery, x0: f64, x1: f64) -> Vec<(f64, f64)> {
    crate::plots_run::ecdf_line(&d.delivered_ms, d.sent as usize, x0, x1)
}

/// The figure, when every arm's rounds carry the isochronous probe's
/// fates (None otherwise).
pub fn iso_delivered_cdf(input: &ReportInput) -> Option<Result<Plot, PlotError>> {
    let curves = curves(input)?;
    let file = "iso-cdf-loaded.svg".to_string();
    let title = crate::plots::scoped(
        input,
        "Loaded one-way A→B delay: isochronous vs stop-and-wait probe, CDF over every request sent (delivered requests only)",
    );
    let all = || {
        curves.iter().flat_map(|(_, s, i)| {
            let s = s
                .iter()
                .flat_map(|d| d.delivered_ms.iter().chain(&d.censored_ms));
            s.chain(i.delivered_ms.iter().chain(&i.censored_ms))
                .copied()
        })
    };
    let x0 = all().fold(f64::INFINITY, f64::min).max(0.01) * 0.8;
    let x1 = all().fold(10.0, f64::max) * 1.3;
    let mut legend = Legend::new();
    for (i, (arm, saw, iso)) in curves.iter().enumerate() {
        let c = arm_color(i);
        if let Some(d) = saw {
            legend.push(
                format!("{arm}, stop-and-wait: {}", short(d)),
                Mark::Line(c, 3),
            );
        }
        legend.push(
            format!("{arm}, isochronous: {}", short(iso)),
            Mark::Dashed(c),
        );
    }
    legend.push(
        "≥ unresolved, at its own bound; a drop is a loss, not a delay",
        Mark::Marker(Shape::AtLeast, RGBColor(90, 90, 90)),
    );
    let h = title_height(&title, WIDTH) + 480 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        let mut chart = crate::plots_run::one_way_axes(&plot, (x0, x1))?;
        for (i, (_, saw, iso)) in curves.iter().enumerate() {
            let c = arm_color(i);
            if let Some(d) = saw {
                chart
                    .draw_series(LineSeries::new(step_line(d, x0, x1), c.stroke_width(3)))
                    .map_err(e)?;
                censored(&mut chart, d, c)?;
            }
            chart
                .draw_series(DashedLineSeries::new(
                    step_line(iso, x0, x1),
                    8,
                    5,
                    c.stroke_width(2),
                ))
                .map_err(e)?;
            censored(&mut chart, iso, c)?;
        }
        legend.draw(&legend_area)
    });
    Some(svg.map(|svg| Plot::of_run(file, title, svg)))
}

/// `d`'s fates in a legend's few words (summary.md's fate table has them
/// all, with their bounds): delivered of sent with the one-way p50,
/// dropped, lost without a cause, unresolved.
fn short(d: &ArmDelivery) -> String {
    let p50 = d
        .one_way
        .map(|q| format!(", p50 {} ms", netlab_stats::fmt_num(q.p50_ms)))
        .unwrap_or_default();
    let dropped: u32 = d.dropped.iter().map(|l| l.count).sum();
    let mut t = format!("{} of {} delivered{p50}", d.delivered(), d.sent);
    if dropped > 0 {
        t.push_str(&format!("; {dropped} dropped"));
    }
    if d.lost_unknown > 0 {
        t.push_str(&format!("; {} lost, cause unknown", d.lost_unknown));
    }
    if d.unresolved > 0 {
        t.push_str(&format!("; {} unresolved (≥)", d.unresolved));
    }
    t
}

/// `d`'s unresolved requests as "≥" markers at their own bounds, at the
/// level where its curve stops.
fn censored<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    d: &ArmDelivery,
    c: RGBColor,
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let y = d.cdf().last().map_or(0.0, |p| p.1);
    chart
        .draw_series(
            d.censored_ms
                .iter()
                .map(|x| marker(Shape::AtLeast, (*x, y), 5, c)),
        )
        .map_err(e)?;
    Ok(())
}
