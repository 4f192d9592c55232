//! Plots over the whole run: the Kaplan–Meier CDF of loaded probe RTT per
//! arm (rounds thin, pooled thick), one latency-under-load overview per pair
//! of arms, and the goodput-vs-delay scatter (one point per round).

use plotters::prelude::*;

use crate::compare::goodput_bins;
use crate::model::{ProbeOutcome, ProbePhase, ReportInput, Scenario};
use crate::plots::{
    arm_color, draw_svg, e, legend, tick, x_end, Plot, AXIS_PT, FONT, LEGEND_PT, SIZE, TICK_PT,
    TIMEOUT_FILL,
};
use crate::stats::{kaplan_meier, km_quantile, CensoredQuantile, KaplanMeier, Observation};
use crate::ReportError;

fn arms(input: &ReportInput) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for s in &input.scenarios {
        if !v.contains(&s.arm) {
            v.push(s.arm.clone());
        }
    }
    v
}

fn obs(s: &Scenario) -> Vec<Observation> {
    s.loaded_probes()
        .map(|p| match p.outcome {
            ProbeOutcome::Reply { rtt_ms } => Observation::Exact(rtt_ms),
            _ => Observation::AtLeast(s.probe_timeout_s * 1000.0),
        })
        .collect()
}

/// An arm's idle-path RTT: the probe-only phase's median over its rounds
/// (Kaplan–Meier, so a baseline timeout still counts), when it has one.
fn baseline_p50(input: &ReportInput, arm: &str) -> Option<f64> {
    let o: Vec<Observation> = input
        .scenarios
        .iter()
        .filter(|s| s.arm == arm && s.error.is_none())
        .flat_map(|s| {
            s.probes
                .iter()
                .filter(|p| p.phase == ProbePhase::Baseline)
                .filter_map(|p| match p.outcome {
                    ProbeOutcome::Reply { rtt_ms } => Some(Observation::Exact(rtt_ms)),
                    ProbeOutcome::Timeout => Some(Observation::AtLeast(s.probe_timeout_s * 1e3)),
                    ProbeOutcome::NoInformation => None,
                })
        })
        .collect();
    match km_quantile(&kaplan_meier(&o), 0.5) {
        CensoredQuantile::Value(v) => Some(v.max(0.01)),
        _ => None,
    }
}

/// Draws each arm's baseline median as a thin vertical dashed line in its
/// colour, with a legend entry (`y` spans the chart's value range).
fn baseline_markers<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<LogCoord<f64>, plotters::coord::types::RangedCoordf64>,
    >,
    input: &ReportInput,
    arms: &[String],
    y: (f64, f64),
) -> Result<(), String> {
    for (i, arm) in arms.iter().enumerate() {
        let Some(b) = baseline_p50(input, arm) else {
            continue;
        };
        let c = arm_color(i);
        chart
            .draw_series(DashedLineSeries::new(
                vec![(b, y.0), (b, y.1)],
                4,
                4,
                c.mix(0.8).stroke_width(1),
            ))
            .map_err(e)?
            .label(format!("{arm} baseline p50 (probe only): {}", fmt_ms(b)))
            .legend(move |(x, y)| PathElement::new(vec![(x + 7, y - 6), (x + 7, y + 6)], c));
    }
    Ok(())
}

/// Milliseconds for a legend: two significant decimals below 10.
fn fmt_ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2} ms")
    } else {
        format!("{v:.0} ms")
    }
}

fn timeout_ms(input: &ReportInput) -> f64 {
    input
        .scenarios
        .iter()
        .map(|s| s.probe_timeout_s * 1000.0)
        .fold(0.0, f64::max)
        .max(1.0)
}

/// The step line of a KM curve from `x0`, ending at the timeout bound.
fn km_line(km: &KaplanMeier, x0: f64, bound: f64) -> Vec<(f64, f64)> {
    let mut pts = vec![(x0, 0.0)];
    let mut prev = 0.0;
    for s in &km.steps {
        let t = s.t.max(x0);
        pts.push((t, prev));
        pts.push((t, s.cdf));
        prev = s.cdf;
    }
    pts.push((bound, prev));
    pts
}

/// A CDF chart's axes (log RTT against P(RTT ≤ x)) with the censored band
/// from the timeout `bound` to the axis end, labelled `band`.
fn cdf_axes<'a, DB: DrawingBackend + 'a>(
    root: &'a DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    x: (f64, f64),
    bound: f64,
    band: String,
) -> Result<
    ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, plotters::coord::types::RangedCoordf64>>,
    String,
> {
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 17))
        .margin(10)
        .x_label_area_size(38)
        .y_label_area_size(55)
        .build_cartesian_2d((x.0..x.1).log_scale(), 0f64..1.05)
        .map_err(e)?;
    chart
        .configure_mesh()
        .label_style((FONT, TICK_PT))
        .axis_desc_style((FONT, AXIS_PT))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .x_desc("probe RTT (ms, log); a timeout counts as ≥ the timeout")
        .y_desc("P(RTT ≤ x)")
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(bound, 0.0), (x.1, 1.05)],
            TIMEOUT_FILL.filled(),
        )))
        .map_err(e)?
        .label(band)
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], TIMEOUT_FILL.filled()));
    Ok(chart)
}

/// Every run-level plot, in a fixed order.
pub fn all(input: &ReportInput) -> Result<Vec<Plot>, ReportError> {
    let mut out = vec![km_cdf(input)?];
    let a = arms(input);
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            out.push(overview(input, &a[i], &a[j])?);
        }
    }
    out.push(scatter(input)?);
    if input.scenarios.iter().any(|s| s.iso.is_some()) {
        out.push(iso_cdf(input)?);
    }
    Ok(out)
}

/// Plot 2: KM CDF of loaded probe RTT per arm; rounds thin, pooled thick.
pub fn km_cdf(input: &ReportInput) -> Result<Plot, ReportError> {
    let file = "km-cdf-loaded.svg".to_string();
    let title = "Loaded-phase probe RTT, Kaplan–Meier CDF (timeouts censored)".to_string();
    let bound = timeout_ms(input);
    let arms = arms(input);
    let x0 = input
        .scenarios
        .iter()
        .flat_map(obs)
        .filter_map(|o| match o {
            Observation::Exact(v) => Some(v),
            Observation::AtLeast(_) => None,
        })
        .fold(1.0, f64::min)
        .min(
            arms.iter()
                .filter_map(|a| baseline_p50(input, a))
                .fold(f64::INFINITY, f64::min),
        )
        .max(0.01)
        * 0.8;
    let svg = draw_svg(&file, (SIZE.0, 480), |root| {
        let mut chart = cdf_axes(
            root,
            &title,
            (x0, bound * 2.0),
            bound,
            format!("censored mass: no reply within {bound:.0} ms (curve stops below 1)"),
        )?;
        baseline_markers(&mut chart, input, &arms, (0.0, 1.05))?;
        for (i, arm) in arms.iter().enumerate() {
            let c = arm_color(i);
            let mine: Vec<&Scenario> = input
                .scenarios
                .iter()
                .filter(|s| &s.arm == arm && s.error.is_none())
                .collect();
            for s in &mine {
                let km = kaplan_meier(&obs(s));
                chart
                    .draw_series(LineSeries::new(
                        km_line(&km, x0, bound),
                        c.mix(0.45).stroke_width(1),
                    ))
                    .map_err(e)?;
                // Each round's line is labelled where it ends (in the
                // censored band, at the share of replies it reached).
                let y = km.final_cdf().clamp(0.03, 1.0);
                chart
                    .draw_series(std::iter::once(Text::new(
                        format!("r{}", s.round),
                        (bound * (1.04 + 0.3 * i as f64), y),
                        (FONT, TICK_PT).into_font().color(&c),
                    )))
                    .map_err(e)?;
            }
            let pooled: Vec<Observation> = mine.iter().flat_map(|s| obs(s)).collect();
            let km = kaplan_meier(&pooled);
            let p95 = km_quantile(&km, 0.95);
            chart
                .draw_series(LineSeries::new(km_line(&km, x0, bound), c.stroke_width(3)))
                .map_err(e)?
                .label(format!(
                    "{arm}: pooled (thick), {} rounds (thin); n={}, timeouts {}, reaches {:.2}, p95 {}",
                    mine.len(),
                    km.n,
                    km.censored,
                    km.final_cdf(),
                    p95.text("ms")
                ))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], c.stroke_width(3)));
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    })?;
    Ok(Plot {
        file,
        title,
        scenario: None,
        svg,
    })
}

/// The isochronous probe's loaded-phase slots as observations: a reply in
/// time is exact, a timeout censored at the timeout, or, with
/// `late_as_exact`, exact at its late reply's RTT when one came.
fn iso_obs(s: &Scenario, late_as_exact: bool) -> Vec<Observation> {
    let Some(iso) = &s.iso else {
        return Vec::new();
    };
    iso.requests
        .iter()
        .filter(|r| r.phase == ProbePhase::Loaded)
        .filter_map(|r| match (r.outcome, r.late_rtt_ms) {
            (ProbeOutcome::Reply { rtt_ms }, _) => Some(Observation::Exact(rtt_ms)),
            (ProbeOutcome::Timeout, Some(late)) if late_as_exact => Some(Observation::Exact(late)),
            (ProbeOutcome::Timeout, _) => Some(Observation::AtLeast(iso.timeout_s * 1000.0)),
            (ProbeOutcome::NoInformation, _) => None,
        })
        .collect()
}

/// The isochronous probe's loaded-phase distribution beside the
/// stop-and-wait probe's, per arm, pooled over rounds (Kaplan–Meier,
/// timeouts censored); where late replies came, a third curve puts each
/// late request at the RTT its reply showed.
// Long: one figure drawn in order (axes, the curves per arm and probe, the
// late-reply curve, legend); the steps share the chart context.
pub fn iso_cdf(input: &ReportInput) -> Result<Plot, ReportError> {
    let file = "iso-cdf-loaded.svg".to_string();
    let title =
        "Loaded-phase RTT: isochronous vs stop-and-wait probe, Kaplan–Meier CDF".to_string();
    let arms = arms(input);
    let bound = input
        .scenarios
        .iter()
        .filter_map(|s| s.iso.as_ref().map(|i| i.timeout_s * 1000.0))
        .fold(timeout_ms(input), f64::max);
    let all_exact = |o: &Observation| match o {
        Observation::Exact(v) => Some(*v),
        Observation::AtLeast(_) => None,
    };
    let x_max = input
        .scenarios
        .iter()
        .flat_map(|s| iso_obs(s, true))
        .filter_map(|o| all_exact(&o))
        .fold(bound * 2.0, |m, v| m.max(v * 1.1));
    let x0 = input
        .scenarios
        .iter()
        .flat_map(|s| obs(s).into_iter().chain(iso_obs(s, false)))
        .filter_map(|o| all_exact(&o))
        .fold(1.0, f64::min)
        .max(0.01)
        * 0.8;
    let svg = draw_svg(&file, (SIZE.0, 500), |root| {
        let mut chart = cdf_axes(
            root,
            &title,
            (x0, x_max),
            bound,
            format!("beyond the timeout ({bound:.0} ms): censored mass"),
        )?;
        for (i, arm) in arms.iter().enumerate() {
            let c = arm_color(i);
            let mine: Vec<&Scenario> = input
                .scenarios
                .iter()
                .filter(|s| &s.arm == arm && s.error.is_none())
                .collect();
            let saw: Vec<Observation> = mine.iter().flat_map(|s| obs(s)).collect();
            let iso: Vec<Observation> = mine.iter().flat_map(|s| iso_obs(s, false)).collect();
            let late: Vec<Observation> = mine.iter().flat_map(|s| iso_obs(s, true)).collect();
            let late_n = late.iter().filter(|o| all_exact(o).is_some()).count()
                - iso.iter().filter(|o| all_exact(o).is_some()).count();
            let describe = |km: &KaplanMeier| {
                format!(
                    "n={}, timeouts {}, p50 {}, p95 {}",
                    km.n,
                    km.censored,
                    km_quantile(km, 0.5).text("ms"),
                    km_quantile(km, 0.95).text("ms")
                )
            };
            let km = kaplan_meier(&saw);
            chart
                .draw_series(LineSeries::new(km_line(&km, x0, bound), c.stroke_width(3)))
                .map_err(e)?
                .label(format!("{arm} stop-and-wait: {}", describe(&km)))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 14, y)], c.stroke_width(3))
                });
            if iso.is_empty() {
                continue;
            }
            let km = kaplan_meier(&iso);
            chart
                .draw_series(DashedLineSeries::new(
                    km_line(&km, x0, bound),
                    8,
                    5,
                    c.stroke_width(2),
                ))
                .map_err(e)?
                .label(format!("{arm} isochronous: {}", describe(&km)))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 5, y)], c.stroke_width(2))
                });
            if late_n > 0 {
                let km = kaplan_meier(&late);
                chart
                    .draw_series(DottedLineSeries::new(
                        km_line(&km, x0, x_max),
                        3,
                        6,
                        move |p| Circle::new(p, 1, c.filled()),
                    ))
                    .map_err(e)?
                    .label(format!(
                        "{arm} isochronous, {late_n} late replies at their RTT: {}",
                        describe(&km)
                    ))
                    .legend(move |(x, y)| Circle::new((x + 7, y), 2, c.filled()));
            }
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    })?;
    Ok(Plot {
        file,
        title,
        scenario: None,
        svg,
    })
}

/// Plot 6a: latency under load, two arms on a shared time axis: goodput per
/// bin (top) and probe RTT (bottom, log; timeouts as crosses in the band).
// Long: one figure drawn in order (two panels on a shared time axis, each with
// its series, band and legend); the steps share the drawing areas, and pieces
// would only pass them around.
pub fn overview(input: &ReportInput, a: &str, b: &str) -> Result<Plot, ReportError> {
    let file = format!("overview-{a}-vs-{b}.svg");
    let title = format!("Latency under load: {a} vs {b} (every round)");
    let all = arms(input);
    let pick: Vec<(usize, &Scenario)> = input
        .scenarios
        .iter()
        .filter(|s| s.arm == a || s.arm == b)
        .map(|s| (all.iter().position(|x| x == &s.arm).unwrap_or(0), s))
        .collect();
    let xe = pick.iter().map(|(_, s)| x_end(s)).fold(1.0, f64::max);
    let bound = timeout_ms(input);
    let band = (bound * 1.15, bound * 2.2);
    // The goodput axis shows the steady state (as the per-scenario plot):
    // up to twice the shaped rate or the bins' p95; bursts above are
    // clipped and counted on the plot.
    let mut bins_all: Vec<f64> = pick
        .iter()
        .flat_map(|(_, s)| {
            let bin = s.bin_s().unwrap_or(0.2);
            s.aggregate_bytes()
                .into_iter()
                .map(move |x| x as f64 * 8.0 / bin / 1e6)
        })
        .collect();
    bins_all.sort_by(f64::total_cmp);
    let rate = input.bottleneck_bps.map(|r| r as f64 / 1e6);
    let p95 = bins_all
        .get((bins_all.len() as f64 * 0.95) as usize)
        .or(bins_all.last())
        .copied()
        .unwrap_or(1.0);
    let gmax = match rate {
        Some(r) => (2.0 * r).max(p95 * 1.15),
        None => bins_all.last().copied().unwrap_or(1.0) * 1.15,
    }
    .max(0.1);
    let clipped = bins_all.iter().filter(|v| **v > gmax).count();
    let clipped_max = bins_all.last().copied().unwrap_or(0.0);
    let svg = draw_svg(&file, (SIZE.0 + LEGEND_W, 600), |root| {
        let (left, legend_area) = root.split_horizontally(SIZE.0);
        let (top, bottom) = left.split_vertically(280);
        let mut legend: Vec<(String, LegendMark)> = Vec::new();
        let mut g = ChartBuilder::on(&top)
            .caption(&title, (FONT, 17))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..xe, 0f64..gmax)
            .map_err(e)?;
        g.configure_mesh()
            .label_style((FONT, TICK_PT))
            .axis_desc_style((FONT, AXIS_PT))
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .y_desc("goodput (Mbit/s)")
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(e)?;
        let mut r = ChartBuilder::on(&bottom)
            .margin(10)
            .x_label_area_size(38)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..xe, (0.05f64..band.1).log_scale())
            .map_err(e)?;
        r.configure_mesh()
            .label_style((FONT, TICK_PT))
            .axis_desc_style((FONT, AXIS_PT))
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .x_desc("time since t0 (s)")
            .y_desc("probe RTT (ms, log)")
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(e)?;
        r.draw_series(std::iter::once(Rectangle::new(
            [(0.0, band.0), (xe, band.1)],
            TIMEOUT_FILL.filled(),
        )))
        .map_err(e)?;
        legend.push((
            format!("no reply within the timeout (≥ {bound:.0} ms)"),
            LegendMark::Band,
        ));
        let mid = (band.0 * band.1).sqrt();
        for (k, arm) in [a, b].iter().enumerate() {
            let ci = all.iter().position(|x| x == arm).unwrap_or(k);
            let c = arm_color(ci);
            let mut first = true;
            for (_, s) in pick.iter().filter(|(_, s)| s.arm == *arm) {
                let bin = s.bin_s().unwrap_or(0.2);
                let line: Vec<(f64, f64)> = s
                    .aggregate_bytes()
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        (
                            (i as f64 + 0.5) * bin,
                            (*x as f64 * 8.0 / bin / 1e6).min(gmax),
                        )
                    })
                    .collect();
                g.draw_series(LineSeries::new(line, c.mix(0.7).stroke_width(1)))
                    .map_err(e)?;
                if first {
                    legend.push((
                        format!("{arm} goodput (top; a line per round)"),
                        LegendMark::Line(c),
                    ));
                }
                let pts: Vec<(f64, f64)> = s
                    .probes
                    .iter()
                    .filter_map(|p| match p.outcome {
                        ProbeOutcome::Reply { rtt_ms } => Some((p.send_s, rtt_ms.max(0.05))),
                        _ => None,
                    })
                    .collect();
                r.draw_series(pts.iter().map(|&p| Circle::new(p, 2, c.filled())))
                    .map_err(e)?;
                if first {
                    legend.push((format!("{arm} reply"), LegendMark::Dot(c)));
                }
                let crosses = s
                    .probes
                    .iter()
                    .filter(|p| p.outcome == ProbeOutcome::Timeout)
                    .map(|p| Cross::new((p.send_s, mid), 5, c.stroke_width(2)));
                r.draw_series(crosses).map_err(e)?;
                if first {
                    legend.push((format!("{arm} timeout"), LegendMark::Cross(c)));
                }
                first = false;
            }
        }
        if let Some(rate) = rate {
            g.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, rate), (xe, rate)],
                RGBColor(230, 120, 0).stroke_width(2),
            )))
            .map_err(e)?;
            legend.push((
                format!("TBF rate {rate} Mbit/s (top)"),
                LegendMark::Line(RGBColor(230, 120, 0)),
            ));
        }
        if clipped > 0 {
            g.draw_series(std::iter::once(Text::new(
                format!(
                    "{clipped} bin(s) above {} Mbit/s clipped (max {clipped_max:.1})",
                    tick(&gmax.round())
                ),
                (xe * 0.01, gmax * 0.97),
                (FONT, TICK_PT).into_font().color(&RED),
            )))
            .map_err(e)?;
        }
        // One legend for the figure, right of both panels, over no data.
        draw_legend(&legend_area, &legend).map_err(e)
    })?;
    Ok(Plot {
        file,
        title,
        scenario: None,
        svg,
    })
}

/// Plot 6b: goodput vs loaded probe RTT median, one point per round (RFC 7928's
/// delay/goodput view). A median on the censored mass is a triangle at the bound.
// Long: one figure drawn in order (axes, a point per round per arm, censored
// medians as triangles, legend); the steps share the chart context.
pub fn scatter(input: &ReportInput) -> Result<Plot, ReportError> {
    let file = "scatter-goodput-delay.svg".to_string();
    let title = "Goodput vs loaded probe RTT median, one point per round".to_string();
    let arms = arms(input);
    let bound = timeout_ms(input);
    struct Pt {
        arm: usize,
        x: f64,
        censored: bool,
        y: f64,
        round: u32,
    }
    let mut pts = Vec::new();
    for s in input.scenarios.iter().filter(|s| s.error.is_none()) {
        let bins = goodput_bins(s);
        if bins.is_empty() {
            continue;
        }
        let y = bins.iter().sum::<f64>() / bins.len() as f64;
        let arm = arms.iter().position(|a| a == &s.arm).unwrap_or(0);
        match km_quantile(&kaplan_meier(&obs(s)), 0.5) {
            CensoredQuantile::Value(x) => pts.push(Pt {
                arm,
                x,
                censored: false,
                y,
                round: s.round,
            }),
            CensoredQuantile::AtLeast(x) => pts.push(Pt {
                arm,
                x,
                censored: true,
                y,
                round: s.round,
            }),
            CensoredQuantile::NoData => {}
        }
    }
    let x0 = pts
        .iter()
        .map(|p| p.x)
        .chain(arms.iter().filter_map(|a| baseline_p50(input, a)))
        .fold(1.0, f64::min)
        .max(0.01)
        * 0.5;
    let ymax = pts.iter().map(|p| p.y).fold(
        input.bottleneck_bps.map_or(1.0, |r| r as f64 / 1e6),
        f64::max,
    ) * 1.2;
    let svg = draw_svg(&file, (SIZE.0, 460), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(&title, (FONT, 17))
            .margin(10)
            .x_label_area_size(38)
            .y_label_area_size(55)
            .build_cartesian_2d((x0..bound * 2.0).log_scale(), 0f64..ymax)
            .map_err(e)?;
        chart
            .configure_mesh()
            .label_style((FONT, TICK_PT))
            .axis_desc_style((FONT, AXIS_PT))
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .x_desc("loaded probe RTT median (ms, log; KM, timeouts censored)")
            .y_desc("goodput in the measured window (Mbit/s)")
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(e)?;
        baseline_markers(&mut chart, input, &arms, (0.0, ymax))?;
        for (i, arm) in arms.iter().enumerate() {
            let c = arm_color(i);
            let exact: Vec<(f64, f64)> = pts
                .iter()
                .filter(|p| p.arm == i && !p.censored)
                .map(|p| (p.x, p.y))
                .collect();
            let cens: Vec<(f64, f64)> = pts
                .iter()
                .filter(|p| p.arm == i && p.censored)
                .map(|p| (p.x, p.y))
                .collect();
            // One legend entry per marker drawn, counting only its own
            // rounds: circles are medians, triangles bounds.
            let series = chart
                .draw_series(exact.iter().map(|&p| Circle::new(p, 6, c.filled())))
                .map_err(e)?;
            if !exact.is_empty() {
                series
                    .label(format!(
                        "{arm}: median ({} {})",
                        exact.len(),
                        rounds_word(exact.len())
                    ))
                    .legend(move |(x, y)| Circle::new((x + 7, y), 5, c.filled()));
            }
            // Each point says its round; a point on the censored mass is a
            // bound ("≥"), labelled so. Points that coincide get their labels
            // one above the other.
            let mut mine: Vec<&Pt> = pts.iter().filter(|p| p.arm == i).collect();
            mine.sort_by(|a, b| b.y.total_cmp(&a.y));
            let gap = 0.055 * ymax;
            let mut placed: Vec<(f64, f64)> = Vec::new(); // (x, label y)
            for p in &mine {
                let mut ly = p.y;
                for &(x, y) in &placed {
                    if (x / p.x - 1.0).abs() < 0.3 && ly > y - gap {
                        ly = y - gap;
                    }
                }
                placed.push((p.x, ly));
                chart
                    .draw_series(std::iter::once(Text::new(
                        format!("r{}{}", p.round, if p.censored { " ≥" } else { "" }),
                        (p.x * 1.12, ly + 0.02 * ymax),
                        (FONT, TICK_PT).into_font().color(&c),
                    )))
                    .map_err(e)?;
            }
            if !cens.is_empty() {
                chart
                    .draw_series(cens.iter().map(|&p| TriangleMarker::new(p, 8, c.filled())))
                    .map_err(e)?
                    .label(format!(
                        "{arm}: median ≥ {bound:.0} ms, on the censored mass ({} {})",
                        cens.len(),
                        rounds_word(cens.len())
                    ))
                    .legend(move |(x, y)| TriangleMarker::new((x + 7, y), 6, c.filled()));
            }
        }
        legend(&mut chart, SeriesLabelPosition::LowerLeft)
    })?;
    Ok(Plot {
        file,
        title,
        scenario: None,
        svg,
    })
}

/// Room right of the overview's panels for its one legend (px).
const LEGEND_W: u32 = 300;

/// A legend entry's mark.
#[derive(Clone, Copy)]
enum LegendMark {
    /// The grey timeout band.
    Band,
    /// A line in the arm's colour.
    Line(RGBColor),
    /// A reply dot.
    Dot(RGBColor),
    /// A timeout cross.
    Cross(RGBColor),
}

/// Draws a figure's one legend as a column of entries in `area`.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(String, LegendMark)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x, mut y) = (8i32, 40i32);
    let step = 22;
    area.draw(&Rectangle::new(
        [
            (x - 4, y - 14),
            (
                LEGEND_W as i32 - 6,
                y - 14 + step * entries.len() as i32 + 6,
            ),
        ],
        BLACK.mix(0.4),
    ))?;
    for (label, mark) in entries {
        match *mark {
            LegendMark::Band => area.draw(&Rectangle::new(
                [(x, y - 5), (x + 14, y + 5)],
                TIMEOUT_FILL.filled(),
            ))?,
            LegendMark::Line(c) => area.draw(&PathElement::new(
                vec![(x, y), (x + 14, y)],
                c.stroke_width(2),
            ))?,
            LegendMark::Dot(c) => area.draw(&Circle::new((x + 7, y), 3, c.filled()))?,
            LegendMark::Cross(c) => area.draw(&Cross::new((x + 7, y), 5, c.stroke_width(2)))?,
        }
        area.draw(&Text::new(
            label.clone(),
            (x + 22, y - 7),
            (FONT, LEGEND_PT).into_font(),
        ))?;
        y += step;
    }
    Ok(())
}

/// "round" or "rounds".
fn rounds_word(n: usize) -> &'static str {
    if n == 1 {
        "round"
    } else {
        "rounds"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{IsoProbe, IsoSample, ProbeSample};

    /// pfifo's isochronous slots: 6 replies, 3 timeouts of which 2 had a
    /// late reply; fq_codel's: 10 replies.
    fn with_iso() -> ReportInput {
        let mut input = crate::compare::tests::input(1);
        for s in &mut input.scenarios {
            let pfifo = s.arm == "pfifo";
            let requests = (0..10)
                .map(|i| {
                    let (outcome, late_rtt_ms) = match (pfifo, i) {
                        (true, 0..=5) => (
                            ProbeOutcome::Reply {
                                rtt_ms: 600.0 + f64::from(i),
                            },
                            None,
                        ),
                        (true, 6 | 7) => (ProbeOutcome::Timeout, Some(1500.0 + f64::from(i))),
                        (true, 8) => (ProbeOutcome::Timeout, None),
                        (true, _) => (ProbeOutcome::NoInformation, None),
                        (false, _) => (
                            ProbeOutcome::Reply {
                                rtt_ms: 4.0 + f64::from(i),
                            },
                            None,
                        ),
                    };
                    IsoSample {
                        due_s: 4.0 + f64::from(i) * 0.02,
                        phase: ProbePhase::Loaded,
                        outcome,
                        late_rtt_ms,
                    }
                })
                .collect();
            s.iso = Some(IsoProbe {
                interval_ms: 20.0,
                timeout_s: 1.0,
                requests,
            });
        }
        input
    }

    #[test]
    fn iso_observations_censor_timeouts_and_keep_late_replies_apart() {
        let input = with_iso();
        let pfifo = &input.scenarios[0];
        let censored = iso_obs(pfifo, false);
        // the slot without information is left out
        assert_eq!(censored.len(), 9);
        let at_least = censored
            .iter()
            .filter(|o| matches!(o, Observation::AtLeast(b) if *b == 1000.0))
            .count();
        assert_eq!(at_least, 3);
        let late = iso_obs(pfifo, true);
        assert!(late.contains(&Observation::Exact(1506.0)));
        assert!(late.contains(&Observation::Exact(1507.0)));
        assert_eq!(
            late.iter()
                .filter(|o| matches!(o, Observation::AtLeast(_)))
                .count(),
            1
        );
    }

    #[test]
    fn the_cdf_and_the_scatter_mark_each_arm_s_baseline_median() {
        let mut input = crate::compare::tests::input(2);
        // no baseline samples: no marker
        assert!(!km_cdf(&input).unwrap().svg.contains("baseline p50"));
        for s in &mut input.scenarios {
            let base = if s.arm == "pfifo" { 0.4 } else { 0.6 };
            for k in 0..5 {
                s.probes.push(ProbeSample {
                    seq: 100 + k,
                    send_s: 0.2 * f64::from(k),
                    phase: ProbePhase::Baseline,
                    outcome: ProbeOutcome::Reply {
                        rtt_ms: base + 0.01 * f64::from(k),
                    },
                });
            }
        }
        for svg in [km_cdf(&input).unwrap().svg, scatter(&input).unwrap().svg] {
            assert!(
                svg.contains("pfifo baseline p50 (probe only): 0.42 ms"),
                "{svg}"
            );
            assert!(svg.contains("fq_codel baseline p50 (probe only): 0.62 ms"));
        }
    }

    #[test]
    fn the_iso_plot_is_drawn_only_when_an_iso_probe_ran_and_names_both_probes() {
        let plain = crate::compare::tests::input(1);
        assert!(!all(&plain)
            .unwrap()
            .iter()
            .any(|p| p.file == "iso-cdf-loaded.svg"));
        let plots = all(&with_iso()).unwrap();
        let p = plots
            .iter()
            .find(|p| p.file == "iso-cdf-loaded.svg")
            .expect("the iso plot");
        for text in [
            "pfifo stop-and-wait",
            "pfifo isochronous: n=9, timeouts 3",
            "pfifo isochronous, 2 late replies at their RTT",
            "fq_codel isochronous: n=10, timeouts 0",
        ] {
            assert!(p.svg.contains(text), "{text} missing");
        }
        // fq_codel had no late reply: no third curve for it
        assert!(!p.svg.contains("fq_codel isochronous, "));
    }
}
