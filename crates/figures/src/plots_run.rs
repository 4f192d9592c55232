//! Plots over the whole run: the Kaplan–Meier CDF of loaded probe RTT per
//! arm (rounds thin, pooled thick) and, with the isochronous probe, its CDF
//! beside the stop-and-wait probe's; the overview and the scatter are in
//! [`crate::plots_overview`].

use plotters::prelude::*;

use crate::plot_legend::{draw_labels, Label, Legend, Mark};
use crate::plot_style::{title as draw_title, title_height, WIDTH};
use crate::plots::{arm_color, builder, draw_svg, e, mesh, Area, Plot, TIMEOUT_FILL};
use crate::PlotError;
use netlab_analysis::records::{ProbeOutcome, ProbePhase, Scenario};
use netlab_analysis::ReportInput;
use netlab_stats::{kaplan_meier, km_quantile, CensoredQuantile, KaplanMeier, Observation};

/// The run's arm labels in the order they first ran.
pub fn arms(input: &ReportInput) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for s in &input.scenarios {
        if !v.contains(&s.arm) {
            v.push(s.arm.clone());
        }
    }
    v
}

/// The loaded RTT observations of the probe that ran (the stop-and-wait
/// probe's, else the isochronous probe's: [`Scenario::rtt_probe`]).
pub fn obs(s: &Scenario) -> Vec<Observation> {
    s.rtt_observations(ProbePhase::Loaded)
}

/// An arm's idle-path RTT: the probe-only phase's median over its rounds
/// (Kaplan–Meier, so a baseline timeout still counts), when it has one.
pub fn baseline_p50(input: &ReportInput, arm: &str) -> Option<f64> {
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
/// colour (`y` spans the chart's value range).
pub fn baseline_markers<DB: DrawingBackend>(
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
        chart
            .draw_series(DashedLineSeries::new(
                vec![(b, y.0), (b, y.1)],
                4,
                4,
                arm_color(i).mix(0.8).stroke_width(1),
            ))
            .map_err(e)?;
    }
    Ok(())
}

/// The legend entries of [`baseline_markers`].
pub fn baseline_legend(input: &ReportInput, arms: &[String], legend: &mut Legend) {
    for (i, arm) in arms.iter().enumerate() {
        if let Some(b) = baseline_p50(input, arm) {
            legend.push(
                format!("{arm} baseline p50 (probe only): {}", fmt_ms(b)),
                Mark::Dashed(arm_color(i)),
            );
        }
    }
}

/// Milliseconds for a legend: two significant decimals below 10.
pub fn fmt_ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2} ms")
    } else {
        format!("{v:.0} ms")
    }
}

/// The longest probe timeout of the run's scenarios, ms.
pub fn timeout_ms(input: &ReportInput) -> f64 {
    input
        .scenarios
        .iter()
        .map(|s| s.probe_timeout_s * 1000.0)
        .fold(0.0, f64::max)
        .max(1.0)
}

/// The step line of a KM curve from `x0`, ending at the timeout bound.
pub fn km_line(km: &KaplanMeier, x0: f64, bound: f64) -> Vec<(f64, f64)> {
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

/// A CDF chart's axes (log RTT against P(RTT ≤ x)) on `area`, with the
/// censored band from the timeout `bound` to the axis end.
fn cdf_axes<'a, 'b>(
    area: &'b Area<'a>,
    x: (f64, f64),
    bound: f64,
) -> Result<
    ChartContext<
        'b,
        SVGBackend<'a>,
        Cartesian2d<LogCoord<f64>, plotters::coord::types::RangedCoordf64>,
    >,
    String,
> {
    let mut chart = builder(area)
        .build_cartesian_2d((x.0..x.1).log_scale(), 0f64..1.05)
        .map_err(e)?;
    mesh(&mut chart, "probe RTT (ms, log)", "P(RTT ≤ x)", (6, 6))?;
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(bound, 0.0), (x.1, 1.05)],
            TIMEOUT_FILL.filled(),
        )))
        .map_err(e)?;
    Ok(chart)
}

/// A one-way CDF's axes over every request sent: the delay (log) against
/// the share of the loaded requests sent.
pub fn one_way_axes<'a, 'b>(
    area: &'b Area<'a>,
    (x0, x1): (f64, f64),
) -> Result<
    ChartContext<
        'b,
        SVGBackend<'a>,
        Cartesian2d<LogCoord<f64>, plotters::coord::types::RangedCoordf64>,
    >,
    String,
> {
    let mut chart = builder(area)
        .build_cartesian_2d((x0..x1).log_scale(), 0f64..1.05)
        .map_err(e)?;
    mesh(
        &mut chart,
        "one-way A→B delay (ms, log)",
        "share of loaded requests sent",
        (6, 6),
    )?;
    Ok(chart)
}

/// The pixel of a chart's point in `area`'s own coordinates.
pub fn px_in<X, Y>(
    chart: &ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    area: &Area<'_>,
    p: (X::ValueType, Y::ValueType),
) -> (i32, i32)
where
    X: Ranged,
    Y: Ranged,
{
    let q = chart.backend_coord(&p);
    let b = area.get_base_pixel();
    (q.0 - b.0, q.1 - b.1)
}

/// A chart's plotting area in `area`'s own pixels (x0, y0, x1, y1).
pub fn plot_bounds<X, Y>(
    chart: &ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    area: &Area<'_>,
) -> (i32, i32, i32, i32)
where
    X: Ranged,
    Y: Ranged,
{
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let b = area.get_base_pixel();
    (xr.start - b.0, yr.start - b.1, xr.end - b.0, yr.end - b.1)
}

/// Each round's delivered loaded one-way delays (ascending) and how many
/// requests of it left A without a delay: lost, or unresolved (censored
/// at their own bounds, method §5.8), never a delay.
fn delivered(s: &Scenario) -> (Vec<f64>, usize) {
    match netlab_analysis::ArmDelivery::of(&[s]) {
        Some(d) => {
            let rest = d.sent as usize - d.delivered_ms.len();
            (d.delivered_ms, rest)
        }
        None => (Vec::new(), 0),
    }
}

/// The ordinary CDF of delivered values over every sent request (`n`):
/// it ends below 1 by the share that never arrived.
pub fn ecdf_line(v: &[f64], n: usize, x0: f64, x1: f64) -> Vec<(f64, f64)> {
    let mut pts = vec![(x0, 0.0)];
    let mut prev = 0.0;
    for (i, x) in v.iter().enumerate() {
        let t = x.max(x0);
        pts.push((t, prev));
        prev = (i + 1) as f64 / n.max(1) as f64;
        pts.push((t, prev));
    }
    pts.push((x1, prev));
    pts
}

/// A run's rounds of `arm` that ran to the end, in order.
fn ok_rounds<'a>(input: &'a ReportInput, arm: &str) -> Vec<&'a Scenario> {
    input
        .scenarios
        .iter()
        .filter(|s| s.arm == arm && s.error.is_none())
        .collect()
}

/// The delivered CDF's legend: one entry per arm (its losses by cause are
/// in summary.md's fate table; `split` arms are not pooled), one for how
/// the curves are drawn and one for the timeout.
fn delivered_legend(input: &ReportInput, arms: &[String], split: &[String]) -> Legend {
    let mut legend = Legend::new();
    for (i, arm) in arms.iter().enumerate() {
        let rounds = ok_rounds(input, arm);
        let fates = netlab_analysis::ArmDelivery::of(&rounds);
        let what = fates
            .as_ref()
            .map(|d| {
                format!(
                    "{} of {} delivered, {:.0} % lost",
                    d.delivered_ms.len(),
                    d.sent,
                    100.0 * f64::from(d.lost()) / f64::from(d.sent.max(1)),
                )
            })
            .unwrap_or_default();
        let pooled = if split.contains(arm) {
            "; states differ: not pooled"
        } else {
            ""
        };
        legend.push(
            format!("{arm}: {what}{pooled}",),
            Mark::Line(arm_color(i), 3),
        );
    }
    legend.push(
        "pooled (thick); each round thin, rN",
        Mark::Line(RGBColor(90, 90, 90), 1),
    );
    legend.push(
        format!(
            "timeout {:.0} ms (later deliveries exact)",
            timeout_ms(input)
        ),
        Mark::Dashed(RGBColor(90, 90, 90)),
    );
    legend
}

/// Plot 2 with B's receive log (method §5.8): the CDF of the loaded
/// probes' one-way A→B delay per arm over every request sent (rounds thin
/// and labelled, pooled thick), late deliveries at their exact delay; a
/// curve ends below 1 by the share that never reached B, which the legend
/// gives with its cause. Nothing is drawn at the timeout.
pub fn delivered_cdf(input: &ReportInput) -> Result<Plot, PlotError> {
    let file = "km-cdf-loaded.svg".to_string();
    let title = crate::plots::scoped(
        input,
        "Loaded probes' one-way delay (delivered), CDF over every request sent",
    );
    let arms = arms(input);
    let ok: Vec<&Scenario> = input
        .scenarios
        .iter()
        .filter(|s| s.error.is_none())
        .collect();
    let all: Vec<f64> = ok.iter().flat_map(|s| delivered(s).0).collect();
    let x0 = all.iter().copied().fold(1.0, f64::min).max(0.01) * 0.8;
    let x1 = all.iter().copied().fold(timeout_ms(input), f64::max) * 1.3;
    let mine = |arm: &String| ok_rounds(input, arm);
    // An arm whose rounds fall into different states, or whose state
    // changed inside a round's window, gets no pooled curve (method
    // §12.6), its rounds only.
    let split: Vec<String> = netlab_analysis::state::ArmStates::of_input(input)
        .into_iter()
        .filter(|a| a.split())
        .map(|a| a.arm)
        .collect();
    let legend = delivered_legend(input, &arms, &split);
    let h = title_height(&title, WIDTH) + 420 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        let mut chart = one_way_axes(&plot, (x0, x1))?;
        let t = timeout_ms(input);
        chart
            .draw_series(std::iter::once(plotters::element::DashedPathElement::new(
                vec![(t, 0.0), (t, 1.05)],
                6,
                5,
                RGBColor(90, 90, 90).stroke_width(1),
            )))
            .map_err(e)?;
        let mut labels = Vec::new();
        for (i, arm) in arms.iter().enumerate() {
            let c = arm_color(i);
            let rounds = mine(arm);
            let (mut pooled, mut lost) = (Vec::new(), 0);
            for s in &rounds {
                let (v, l) = delivered(s);
                let n = v.len() + l;
                chart
                    .draw_series(LineSeries::new(
                        ecdf_line(&v, n, x0, x1),
                        c.mix(0.45).stroke_width(1),
                    ))
                    .map_err(e)?;
                labels.push(Label {
                    text: format!("r{}", s.round),
                    color: c,
                    at: px_in(&chart, &plot, (x1 / 1.15, v.len() as f64 / n.max(1) as f64)),
                });
                pooled.extend(v);
                lost += l;
            }
            if split.contains(arm) {
                continue;
            }
            pooled.sort_by(f64::total_cmp);
            let n = pooled.len() + lost;
            chart
                .draw_series(LineSeries::new(
                    ecdf_line(&pooled, n, x0, x1),
                    c.stroke_width(3),
                ))
                .map_err(e)?;
        }
        draw_labels(&plot, &labels, &[], plot_bounds(&chart, &plot))?;
        legend.draw(&legend_area)
    })?;
    Ok(Plot::of_run(file, title, svg))
}

/// The KM CDF's legend: the censored band, the arms' baselines, each
/// arm's pooled count, timeouts and p95, and how the curves are drawn.
fn km_legend(input: &ReportInput, arms: &[String], bound: f64) -> Legend {
    let mut legend = Legend::new();
    legend.push(
        format!("no reply within {bound:.0} ms: censored"),
        Mark::TimeoutBand,
    );
    baseline_legend(input, arms, &mut legend);
    for (i, arm) in arms.iter().enumerate() {
        let pooled: Vec<Observation> = ok_rounds(input, arm).iter().flat_map(|s| obs(s)).collect();
        let km = kaplan_meier(&pooled);
        legend.push(
            format!(
                "{arm}: n={}, {} timeouts, p95 {}",
                km.n,
                km.censored,
                km_quantile(&km, 0.95).text("ms")
            ),
            Mark::Line(arm_color(i), 3),
        );
    }
    legend.push(
        "pooled (thick); each round thin, rN",
        Mark::Line(RGBColor(90, 90, 90), 1),
    );
    legend
}

/// Plot 2: KM CDF of loaded probe RTT per arm; rounds thin, pooled thick.
pub fn km_cdf(input: &ReportInput) -> Result<Plot, PlotError> {
    let file = "km-cdf-loaded.svg".to_string();
    let title = crate::plots::scoped(
        input,
        "Loaded-phase probe RTT, Kaplan–Meier CDF (timeouts censored)",
    );
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
    let mine = |arm: &String| ok_rounds(input, arm);
    let legend = km_legend(input, &arms, bound);
    let h = title_height(&title, WIDTH) + 420 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        let mut chart = cdf_axes(&plot, (x0, bound * 2.0), bound)?;
        baseline_markers(&mut chart, input, &arms, (0.0, 1.05))?;
        let mut labels = Vec::new();
        for (i, arm) in arms.iter().enumerate() {
            let c = arm_color(i);
            let rounds = mine(arm);
            for s in &rounds {
                let km = kaplan_meier(&obs(s));
                chart
                    .draw_series(LineSeries::new(
                        km_line(&km, x0, bound),
                        c.mix(0.45).stroke_width(1),
                    ))
                    .map_err(e)?;
                // Each round's line is labelled where it ends (in the
                // censored band, at the share of replies it reached),
                // placed apart from every other label.
                let end = (bound, km.final_cdf());
                labels.push(Label {
                    text: format!("r{}", s.round),
                    color: c,
                    at: px_in(&chart, &plot, end),
                });
            }
            let pooled: Vec<Observation> = rounds.iter().flat_map(|s| obs(s)).collect();
            let km = kaplan_meier(&pooled);
            chart
                .draw_series(LineSeries::new(km_line(&km, x0, bound), c.stroke_width(3)))
                .map_err(e)?;
        }
        // The labels stay in the censored band, right of every curve's
        // end, or where it is full, anywhere in the plot.
        let (px0, y0, x1, y1) = plot_bounds(&chart, &plot);
        let band_x = px_in(&chart, &plot, (bound, 0.0)).0;
        let (w, _) = plot.dim_in_pixel();
        crate::plot_legend::draw_labels_in(
            &plot,
            &labels,
            &[],
            (band_x + 2, y0, x1, y1),
            (px0, y0, w as i32 - 2, y1),
        )?;
        legend.draw(&legend_area)
    })?;
    Ok(Plot::of_run(file, title, svg))
}

/// The isochronous probe's loaded-phase slots as observations: a reply in
/// time is exact, a timeout censored at the timeout, or, with
/// `late_as_exact`, exact at its late reply's RTT when one came.
pub fn iso_obs(s: &Scenario, late_as_exact: bool) -> Vec<Observation> {
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

/// An observation's value when it is exact (not censored).
fn exact(o: &Observation) -> Option<f64> {
    match o {
        Observation::Exact(v) => Some(*v),
        Observation::AtLeast(_) => None,
    }
}

/// The isochronous figure's x range, ms: from below the fastest exact
/// value of either probe to past the slowest late reply and twice the
/// timeout `bound`.
fn iso_x_range(input: &ReportInput, bound: f64) -> (f64, f64) {
    let x_max = input
        .scenarios
        .iter()
        .flat_map(|s| iso_obs(s, true))
        .filter_map(|o| exact(&o))
        .fold(bound * 2.0, |m, v| m.max(v * 1.1));
    let x0 = input
        .scenarios
        .iter()
        .flat_map(|s| obs(s).into_iter().chain(iso_obs(s, false)))
        .filter_map(|o| exact(&o))
        .fold(1.0, f64::min)
        .max(0.01)
        * 0.8;
    (x0, x_max)
}

/// The isochronous probe's loaded-phase distribution beside the
/// stop-and-wait probe's, per arm, pooled over rounds (Kaplan–Meier,
/// timeouts censored); where late replies came, a third curve puts each
/// late request at the RTT its reply showed.
pub fn iso_cdf(input: &ReportInput) -> Result<Plot, PlotError> {
    let file = "iso-cdf-loaded.svg".to_string();
    let title = crate::plots::scoped(
        input,
        "Loaded-phase RTT: isochronous vs stop-and-wait probe, Kaplan–Meier CDF",
    );
    let arms = arms(input);
    let bound = input
        .scenarios
        .iter()
        .filter_map(|s| s.iso.as_ref().map(|i| i.timeout_s * 1000.0))
        .fold(timeout_ms(input), f64::max);
    let (x0, x_max) = iso_x_range(input, bound);
    // Per arm: (stop-and-wait, isochronous, late at their RTT, late count).
    type Curves = (
        KaplanMeier,
        Option<KaplanMeier>,
        Option<(KaplanMeier, usize)>,
    );
    let mut curves: Vec<Curves> = Vec::new();
    let mut legend = Legend::new();
    legend.push(
        format!("beyond the timeout ({bound:.0} ms): censored mass"),
        Mark::TimeoutBand,
    );
    for (i, arm) in arms.iter().enumerate() {
        let c = arm_color(i);
        let mine = ok_rounds(input, arm);
        let saw: Vec<Observation> = mine.iter().flat_map(|s| obs(s)).collect();
        let iso: Vec<Observation> = mine.iter().flat_map(|s| iso_obs(s, false)).collect();
        let late: Vec<Observation> = mine.iter().flat_map(|s| iso_obs(s, true)).collect();
        let late_n = late.iter().filter(|o| exact(o).is_some()).count()
            - iso.iter().filter(|o| exact(o).is_some()).count();
        // One entry per arm; how each probe is drawn is said once below
        // (each probe's n, timeouts and quantiles: summary.md's tables).
        let km = kaplan_meier(&saw);
        let iso_km = (!iso.is_empty()).then(|| kaplan_meier(&iso));
        let late_km = (!iso.is_empty() && late_n > 0).then(|| (kaplan_meier(&late), late_n));
        let text = match &late_km {
            Some((_, n)) => format!("{arm}: {n} late isochronous replies"),
            None => arm.to_string(),
        };
        legend.push(text, Mark::Line(c, 3));
        curves.push((km, iso_km, late_km));
    }
    let grey = RGBColor(90, 90, 90);
    legend.push("stop-and-wait probe (solid)", Mark::Line(grey, 3));
    if curves.iter().any(|c| c.1.is_some()) {
        legend.push("isochronous probe (dashed)", Mark::Dashed(grey));
    }
    if curves.iter().any(|c| c.2.is_some()) {
        legend.push(
            "isochronous, late replies at their RTT (dotted)",
            Mark::Dotted(grey),
        );
    }
    let h = title_height(&title, WIDTH) + 420 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        let mut chart = cdf_axes(&plot, (x0, x_max), bound)?;
        for (i, (km, iso, late)) in curves.iter().enumerate() {
            let c = arm_color(i);
            chart
                .draw_series(LineSeries::new(km_line(km, x0, bound), c.stroke_width(3)))
                .map_err(e)?;
            if let Some(k) = iso {
                chart
                    .draw_series(DashedLineSeries::new(
                        km_line(k, x0, bound),
                        8,
                        5,
                        c.stroke_width(2),
                    ))
                    .map_err(e)?;
            }
            if let Some((k, _)) = late {
                chart
                    .draw_series(DottedLineSeries::new(
                        km_line(k, x0, x_max),
                        3,
                        6,
                        move |p| Circle::new(p, 1, c.filled()),
                    ))
                    .map_err(e)?;
            }
        }
        legend.draw(&legend_area)
    })?;
    Ok(Plot::of_run(file, title, svg))
}

/// "round" or "rounds".
pub fn rounds_word(n: usize) -> &'static str {
    if n == 1 {
        "round"
    } else {
        "rounds"
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use netlab_analysis::records::{IsoProbe, IsoSample, ProbeSample};

    /// pfifo's isochronous slots: 6 replies, 3 timeouts of which 2 had a
    /// late reply; fq_codel's: 10 replies.
    pub fn with_iso() -> ReportInput {
        let mut input = netlab_analysis::testing::input(1);
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
                        up_ms: None,
                        down_ms: None,
                        seq: i,
                        send_s: Some(4.0 + f64::from(i) * 0.02),
                        logged: match outcome {
                            ProbeOutcome::Reply { .. } => netlab_analysis::records::Logged::Reply,
                            ProbeOutcome::Timeout => netlab_analysis::records::Logged::Timeout,
                            ProbeOutcome::NoInformation => netlab_analysis::records::Logged::Missed,
                        },
                    }
                })
                .collect();
            s.iso = Some(IsoProbe {
                interval_ms: 20.0,
                timeout_s: 1.0,
                requests,
                fates: None,
                closed_s: None,
            });
        }
        input
    }

    /// Every text of an SVG, in order, joined by spaces (a legend entry
    /// wrapped over two lines reads as one).
    pub fn svg_text(svg: &str) -> String {
        let mut out = Vec::new();
        let mut rest = svg;
        while let Some(i) = rest.find("<text") {
            let open = rest[i..].find('>').map_or(rest.len(), |j| i + j + 1);
            let close = rest[open..]
                .find("</text>")
                .map_or(rest.len(), |j| open + j);
            out.push(rest[open..close].trim().to_string());
            rest = &rest[close..];
        }
        out.join(" ")
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
        let mut input = netlab_analysis::testing::input(2);
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
                    logged: netlab_analysis::records::Logged::Reply,
                    late_rtt_ms: None,
                });
            }
        }
        for svg in [
            km_cdf(&input).unwrap().svg,
            crate::plots_overview::scatter(&input).unwrap().svg,
        ] {
            // plotters writes a text's words on the line after its tag
            let lines: Vec<&str> = svg.lines().collect();
            let marks: Vec<&str> = lines
                .windows(2)
                .filter(|w| w[0].starts_with("<text"))
                .map(|w| w[1].trim())
                .filter(|t| t.contains("baseline p50"))
                .collect();
            assert_eq!(
                marks,
                [
                    "pfifo baseline p50 (probe only): 0.42 ms",
                    "fq_codel baseline p50 (probe only): 0.62 ms"
                ],
                "{}",
                svg_text(&svg)
            );
        }
    }
}
