//! The figures that show every round at once: the latency-under-load
//! overview per pair of arms and the goodput-vs-delay scatter. Each round
//! has its own marker (and its own shade of the arm's colour), so a reader
//! tells the rounds apart without labels.

use plotters::prelude::*;

use crate::plot_legend::{along, draw_labels, Label, Legend, Mark};
use crate::plot_style::{
    font_c, marker, round_shade, title as draw_title, title_height, Shape, TEXT_PX, WIDTH,
};
use crate::plots::{
    arm_color, builder, draw_svg, e, mesh, tick, x_end, Plot, RATE_COLOR, TIMEOUT_FILL,
};
use crate::plots_run::{
    arms, baseline_legend, baseline_markers, baseline_p50, obs, plot_bounds, px_in, rounds_word,
    timeout_ms,
};
use crate::PlotError;
use netlab_analysis::records::Scenario;
use netlab_analysis::ReportInput;
use netlab_stats::{kaplan_meier, km_quantile, CensoredQuantile};

/// The goodput axis' top for `bins` (Mbit/s): twice the shaped rate or the
/// bins' p95, whichever is higher; the bins above it, and their maximum.
fn goodput_top(mut bins: Vec<f64>, rate: Option<f64>) -> (f64, usize, f64) {
    bins.sort_by(f64::total_cmp);
    let p95 = bins
        .get((bins.len() as f64 * 0.95) as usize)
        .or(bins.last())
        .copied()
        .unwrap_or(1.0);
    let top = match rate {
        Some(r) => (2.0 * r).max(p95 * 1.15),
        None => bins.last().copied().unwrap_or(1.0) * 1.15,
    }
    .max(0.1);
    let clipped = bins.iter().filter(|v| **v > top).count();
    (top, clipped, bins.last().copied().unwrap_or(0.0))
}

/// Goodput per bin of `s` (Mbit/s), at the bins' centres.
fn goodput_line(s: &Scenario) -> Vec<(f64, f64)> {
    let bin = s.bin_s().unwrap_or(0.2);
    s.aggregate_bytes()
        .iter()
        .enumerate()
        .map(|(i, x)| ((i as f64 + 0.5) * bin, *x as f64 * 8.0 / bin / 1e6))
        .collect()
}

/// Each of the two arms' rounds with the arm's colour, `a` first.
fn overview_rounds<'a>(
    input: &'a ReportInput,
    a: &str,
    b: &str,
) -> Vec<(RGBColor, Vec<&'a Scenario>)> {
    let all = arms(input);
    [a, b]
        .iter()
        .enumerate()
        .map(|(k, arm)| {
            let ci = all.iter().position(|x| x == arm).unwrap_or(k);
            let mine = input.scenarios.iter().filter(|s| s.arm == *arm).collect();
            (arm_color(ci), mine)
        })
        .collect()
}

/// The highest late reply, ms (at least the timeout `bound`: the band sits
/// above it), and how many requests never reached B.
fn late_top_and_lost(points: &[Vec<(f64, crate::plots::ProbePoint)>], bound: f64) -> (f64, usize) {
    let top = points
        .iter()
        .flatten()
        .filter_map(|(_, p)| match p {
            crate::plots::ProbePoint::Late(v) => Some(*v),
            _ => None,
        })
        .fold(bound, f64::max);
    let lost = points
        .iter()
        .flatten()
        .filter(|(_, p)| matches!(p, crate::plots::ProbePoint::Lost(_)))
        .count();
    (top, lost)
}

/// The overview's legend: the timeout band (what it holds depends on
/// whether every round has B's receive log, `fates`), the requests lost
/// before B, each round's marker and the TBF rate. `band` is (timeout ms,
/// fates, lost).
fn overview_legend(
    arm_rounds: &[(RGBColor, Vec<&Scenario>)],
    band: (f64, bool, usize),
    rate: Option<f64>,
) -> Legend {
    let (bound, fates, lost) = band;
    let mut legend = Legend::new();
    // With B's receive log every timeout's fate is known: the band holds
    // the requests B received whose reply never came back and those still
    // unresolved when B stopped listening, never "no record of why".
    legend.push(
        if fates {
            format!("no reply within the timeout (≥ {bound:.0} ms): reached B, reply never came back, or unresolved when B stopped listening (B's receive log)")
        } else {
            format!("no reply within the timeout (≥ {bound:.0} ms), no record of why")
        },
        Mark::TimeoutBand,
    );
    if lost > 0 {
        legend.push(
            format!("{lost} requests never reached B: losses, not drawn as delays (each scenario's probe plot has them)"),
            Mark::Band(RGBColor(245, 235, 245)),
        );
    }
    for (c, rounds) in arm_rounds {
        let n = rounds.len();
        for (k, s) in rounds.iter().enumerate() {
            legend.push(
                format!("{} r{}", s.arm, s.round),
                Mark::Marker(Shape::of_round(s.round), round_shade(*c, k, n)),
            );
        }
    }
    if let Some(r) = rate {
        legend.push(format!("TBF rate {r} Mbit/s"), Mark::Line(RATE_COLOR, 2));
    }
    legend
}

/// Plot 6a: latency under load, two arms on a shared time axis: goodput per
/// bin (top) and probe RTT (bottom, log; timeouts in the band), each round
/// in its own marker and shade.
pub fn overview(input: &ReportInput, a: &str, b: &str) -> Result<Plot, PlotError> {
    let file = format!(
        "overview-{}-vs-{}.svg",
        netlab_analysis::ArmLabels::file_slug(a),
        netlab_analysis::ArmLabels::file_slug(b)
    );
    let title = crate::plots::scoped(
        input,
        &format!("Latency under load: {a} vs {b} (every round)"),
    );
    let arm_rounds = overview_rounds(input, a, b);
    let picked = || arm_rounds.iter().flat_map(|(_, v)| v.iter().copied());
    let xe = picked().map(x_end).fold(1.0, f64::max);
    let bound = timeout_ms(input);
    // Late replies are drawn at their exact RTT: the band sits above them.
    let points: Vec<Vec<(f64, crate::plots::ProbePoint)>> =
        picked().map(crate::plots::probe_points).collect();
    let (top, lost) = late_top_and_lost(&points, bound);
    let band = (top * 1.15, top * 2.2);
    let rate = input.bottleneck_bps.map(|r| r as f64 / 1e6);
    let (gmax, clipped, clipped_max) = goodput_top(
        picked()
            .flat_map(|s| goodput_line(s).into_iter().map(|p| p.1))
            .collect(),
        rate,
    );
    let fates = picked().all(|s| s.fates.is_some());
    let legend = overview_legend(&arm_rounds, (bound, fates, lost), rate);
    let h = title_height(&title, WIDTH) + 620 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plots, legend_area) = legend.split(&body);
        let (_, ph) = plots.dim_in_pixel();
        let (top, bottom) = plots.split_vertically(ph * 9 / 20);
        let mut g = builder(&top)
            .build_cartesian_2d(0f64..xe, 0f64..gmax)
            .map_err(e)?;
        mesh(&mut g, "", "goodput (Mbit/s)", (6, 4))?;
        let mut r = builder(&bottom)
            .build_cartesian_2d(0f64..xe, (0.05f64..band.1).log_scale())
            .map_err(e)?;
        mesh(&mut r, "time since t0 (s)", "probe RTT (ms, log)", (6, 6))?;
        r.draw_series(std::iter::once(Rectangle::new(
            [(0.0, band.0), (xe, band.1)],
            TIMEOUT_FILL.filled(),
        )))
        .map_err(e)?;
        let mid = (band.0 * band.1).sqrt();
        for (c, rounds) in &arm_rounds {
            let n = rounds.len();
            for (k, s) in rounds.iter().enumerate() {
                let shade = round_shade(*c, k, n);
                let shape = Shape::of_round(s.round);
                let line: Vec<(f64, f64)> = goodput_line(s)
                    .into_iter()
                    .map(|(x, y)| (x, y.min(gmax)))
                    .collect();
                g.draw_series(LineSeries::new(line, shade.mix(0.8).stroke_width(1)))
                    .map_err(e)?;
                // Replies and late replies at their RTT, the unexplained
                // in the band; a loss is no delay and is not drawn here.
                let pts = crate::plots::probe_points(s)
                    .into_iter()
                    .filter_map(|(t, p)| match p {
                        crate::plots::ProbePoint::Reply(v) | crate::plots::ProbePoint::Late(v) => {
                            Some((t, v.max(0.05)))
                        }
                        crate::plots::ProbePoint::NoReply => Some((t, mid)),
                        crate::plots::ProbePoint::Lost(_) => None,
                    });
                r.draw_series(pts.map(|p| marker(shape, p, 4, shade)))
                    .map_err(e)?;
            }
        }
        if let Some(rate) = rate {
            g.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, rate), (xe, rate)],
                RATE_COLOR.stroke_width(2),
            )))
            .map_err(e)?;
        }
        if clipped > 0 {
            g.draw_series(std::iter::once(Text::new(
                format!(
                    "{clipped} bin(s) above {} Mbit/s clipped (max {clipped_max:.1})",
                    tick(&gmax.round())
                ),
                (xe * 0.01, gmax * 0.98),
                font_c(TEXT_PX, RED),
            )))
            .map_err(e)?;
        }
        legend.draw(&legend_area)
    })?;
    Ok(Plot::of_run(file, title, svg))
}

/// One round's point in the scatter.
struct Pt {
    arm: usize,
    x: f64,
    censored: bool,
    y: f64,
    round: u32,
}

/// The scatter's points: per completed round, its goodput and its loaded
/// probe RTT median (KM; a bound when on the censored mass).
fn scatter_points(input: &ReportInput, arms: &[String]) -> Vec<Pt> {
    let mut pts = Vec::new();
    for s in input.scenarios.iter().filter(|s| s.error.is_none()) {
        let bins = s.goodput_bins();
        if bins.is_empty() {
            continue;
        }
        let y = bins.iter().sum::<f64>() / bins.len() as f64;
        let arm = arms.iter().position(|a| a == &s.arm).unwrap_or(0);
        let (x, censored) = match km_quantile(&kaplan_meier(&obs(s)), 0.5) {
            CensoredQuantile::Value(x) => (x, false),
            CensoredQuantile::AtLeast(x) => (x, true),
            CensoredQuantile::NoData => continue,
        };
        pts.push(Pt {
            arm,
            x,
            censored,
            y,
            round: s.round,
        });
    }
    pts
}

/// The scatter's y axis: the points and the shaped rate, with a margin of a
/// fifth of their span (at least 2 % of the top) on either side.
pub fn fit_y(values: &[f64], rate: Option<f64>) -> (f64, f64) {
    let all = values.iter().copied().chain(rate);
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let m = ((hi - lo) * 0.2).max(hi.abs() * 0.02).max(0.01);
    ((lo - m).max(0.0), hi + m)
}

/// The scatter's legend: the arms' baselines, each arm's rounds (and how
/// many sit on the censored mass), each round's marker and the TBF rate.
fn scatter_legend(input: &ReportInput, arms: &[String], pts: &[Pt], rate: Option<f64>) -> Legend {
    let bound = timeout_ms(input);
    let mut legend = Legend::new();
    baseline_legend(input, arms, &mut legend);
    for (i, arm) in arms.iter().enumerate() {
        let mine: Vec<&Pt> = pts.iter().filter(|p| p.arm == i).collect();
        let cens = mine.iter().filter(|p| p.censored).count();
        let mut text = format!(
            "{arm}: median of each round ({} {})",
            mine.len(),
            rounds_word(mine.len())
        );
        if cens > 0 {
            text.push_str(&format!(
                ", {cens} on the censored mass (≥ {bound:.0} ms, at the bound)"
            ));
        }
        legend.push(text, Mark::Line(arm_color(i), 3));
    }
    let mut rounds: Vec<u32> = pts.iter().map(|p| p.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    for r in &rounds {
        legend.push(
            format!("round {r}"),
            Mark::Marker(Shape::of_round(*r), RGBColor(90, 90, 90)),
        );
    }
    if let Some(r) = rate {
        legend.push(format!("TBF rate {r} Mbit/s"), Mark::Line(RATE_COLOR, 2));
    }
    legend
}

/// Plot 6b: goodput vs loaded probe RTT median, one point per round (RFC
/// 7928's delay/goodput view), each round in its own marker. A median on the
/// censored mass is drawn at the bound and labelled `rN ≥`.
pub fn scatter(input: &ReportInput) -> Result<Plot, PlotError> {
    let file = "scatter-goodput-delay.svg".to_string();
    let title = crate::plots::scoped(
        input,
        "Goodput vs loaded probe RTT median, one point per round",
    );
    let arms = arms(input);
    let bound = timeout_ms(input);
    let pts = scatter_points(input, &arms);
    let x0 = pts
        .iter()
        .map(|p| p.x)
        .chain(arms.iter().filter_map(|a| baseline_p50(input, a)))
        .fold(1.0, f64::min)
        .max(0.01)
        * 0.5;
    let rate = input.bottleneck_bps.map(|r| r as f64 / 1e6);
    let ys: Vec<f64> = pts.iter().map(|p| p.y).collect();
    let (y0, y1) = fit_y(&ys, rate);
    let legend = scatter_legend(input, &arms, &pts, rate);
    let h = title_height(&title, WIDTH) + 420 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        let mut chart = builder(&plot)
            .build_cartesian_2d((x0..bound * 2.0).log_scale(), y0..y1)
            .map_err(e)?;
        mesh(
            &mut chart,
            "loaded probe RTT median (ms, log)",
            "goodput (Mbit/s)",
            (6, 6),
        )?;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(bound, y0), (bound * 2.0, y1)],
                TIMEOUT_FILL.filled(),
            )))
            .map_err(e)?;
        baseline_markers(&mut chart, input, &arms, (y0, y1))?;
        let mut labels = Vec::new();
        let mut avoid = Vec::new();
        if let Some(r) = rate {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x0, r), (bound * 2.0, r)],
                    RATE_COLOR.stroke_width(2),
                )))
                .map_err(e)?;
            avoid.extend(along(
                px_in(&chart, &plot, (x0, r)),
                px_in(&chart, &plot, (bound * 2.0, r)),
            ));
            labels.push(Label {
                text: format!("TBF rate {r} Mbit/s"),
                color: RATE_COLOR,
                at: px_in(&chart, &plot, (x0 * 1.05, r)),
            });
        }
        for (i, _) in arms.iter().enumerate() {
            let c = arm_color(i);
            for p in pts.iter().filter(|p| p.arm == i) {
                chart
                    .draw_series(std::iter::once(marker(
                        Shape::of_round(p.round),
                        (p.x, p.y),
                        8,
                        c,
                    )))
                    .map_err(e)?;
                let at = px_in(&chart, &plot, (p.x, p.y));
                avoid.push(at);
                labels.push(Label {
                    text: format!("r{}{}", p.round, if p.censored { " ≥" } else { "" }),
                    color: c,
                    at,
                });
            }
        }
        draw_labels(&plot, &labels, &avoid, plot_bounds(&chart, &plot))?;
        legend.draw(&legend_area)
    })?;
    Ok(Plot::of_run(file, title, svg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_goodput_axis_fits_the_rounds_and_the_rate() {
        // rounds at 4.78–5.12 Mbit/s against a 5 Mbit/s rate
        let (lo, hi) = fit_y(&[4.78, 5.12, 4.9], Some(5.0));
        assert!(lo > 4.5 && lo < 4.78, "{lo}");
        assert!(hi > 5.12 && hi < 5.4, "{hi}");
        // the rate is kept in view even when every round is below it
        let (lo, hi) = fit_y(&[2.0, 2.1], Some(5.0));
        assert!(lo < 2.0 && hi > 5.0);
        // no point: a unit axis
        assert_eq!(fit_y(&[], None), (0.0, 1.0));
    }
}
