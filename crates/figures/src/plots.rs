//! Per-scenario SVG plots drawn with plotters' SVG backend: probe RTT over
//! time, goodput per bin, TCP RTT and cwnd from tcp_info, qdisc backlog and
//! cumulative drops/marks. Output is a pure function of the input.

use plotters::prelude::*;

use crate::plot_legend::{Legend, Mark};
pub use crate::plot_scale::tick;
pub use crate::plot_style::{builder, e, mesh, Area, TIMEOUT_FILL};
use crate::plot_style::{title as draw_title, title_height, WIDTH};
use crate::PlotError;
use netlab_analysis::records::{ProbeOutcome, Scenario};
use netlab_analysis::ReportInput;

/// One drawn plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// Its path in the results folder ([`crate::layout`]:
    /// `scenarios/s03/s03-probe-rtt.svg`, `figures/km-cdf-loaded.svg`).
    pub file: String,
    /// What it shows, one line.
    pub title: String,
    /// The scenario it belongs to (None: the whole run).
    pub scenario: Option<u32>,
    /// The sweep point whose rounds it pools (a sweep's per-arm figures).
    pub point: Option<u32>,
    /// The SVG text.
    pub svg: String,
}

impl Plot {
    /// A figure of the whole run: no scenario's, no sweep point's.
    pub fn of_run(file: String, title: String, svg: String) -> Plot {
        Plot {
            file,
            title,
            scenario: None,
            point: None,
            svg,
        }
    }
}

/// A labelled line: label, points, colour.
type Line<'a> = (&'a str, &'a Vec<(f64, f64)>, RGBColor);

/// Colour of the `i`-th arm.
pub fn arm_color(i: usize) -> RGBColor {
    const C: [RGBColor; 6] = [
        RGBColor(200, 60, 40),
        RGBColor(30, 100, 200),
        RGBColor(40, 150, 60),
        RGBColor(150, 60, 170),
        RGBColor(220, 140, 20),
        RGBColor(60, 60, 60),
    ];
    C[i % C.len()]
}

/// The shade behind the baseline phase (probe only).
pub const BASELINE_FILL: RGBColor = RGBColor(225, 240, 225);
/// The shade behind the warm-up, before the measured window.
pub const WARMUP_FILL: RGBColor = RGBColor(250, 240, 215);
/// The shade behind the measured window.
pub const LOADED_FILL: RGBColor = RGBColor(250, 225, 225);

/// Runs a drawing closure on a fresh SVG and returns its text.
pub fn draw_svg(
    file: &str,
    size: (u32, u32),
    f: impl FnOnce(&Area<'_>) -> Result<(), String>,
) -> Result<String, PlotError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| plot_err(file, e))?;
        f(&root).map_err(|message| PlotError {
            plot: file.into(),
            message,
        })?;
        root.present().map_err(|e| plot_err(file, e))?;
    }
    Ok(buf)
}

fn plot_err(file: &str, e: impl std::fmt::Display) -> PlotError {
    PlotError {
        plot: file.into(),
        message: e.to_string(),
    }
}

/// A run-level figure's title, with the part of the run it covers when
/// that is not all of it (a sweep's point).
pub fn scoped(input: &ReportInput, title: &str) -> String {
    match &input.scope {
        Some(scope) => format!("{title}, {scope}"),
        None => title.to_string(),
    }
}

/// The time axis' end for a scenario, s.
pub fn x_end(s: &Scenario) -> f64 {
    let mut end = s.phases.end_s;
    if let Some(q) = s.qdisc.last() {
        end = end.max(q.t_s);
    }
    (end + 0.5).ceil()
}

/// A drop's colour by its reason, so each fate has its own colour in every
/// arm: a FIFO's tail drop red, CoDel's purple, over the limit brown, …
pub fn dropped_color(r: netlab_results::fate::DropReason) -> RGBColor {
    use netlab_results::fate::DropReason as R;
    match r {
        R::TailDrop => RGBColor(200, 40, 40),
        R::CodelDrop => RGBColor(120, 50, 170),
        R::CodelDropOrOverlimit => RGBColor(170, 90, 200),
        R::Overlimit => RGBColor(140, 80, 30),
        R::CakeDrop => RGBColor(30, 120, 130),
        R::PieDrop => RGBColor(200, 60, 140),
        R::Other => RGBColor(110, 110, 110),
    }
}
/// The phase bands' legend entries (those the scenario has).
pub fn phase_legend(s: &Scenario, legend: &mut Legend) {
    let w = s.phases.warmup();
    for (r, c, label) in [
        (s.phases.baseline, BASELINE_FILL, "baseline (probe only)"),
        (w, WARMUP_FILL, "warm-up"),
        (s.phases.loaded, LOADED_FILL, "loaded (measured window)"),
    ] {
        if r[1] > r[0] {
            legend.push(label, Mark::Band(c));
        }
    }
}

/// Shades baseline, warm-up and the loaded window over `y0..y1`.
pub fn shade_phases<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    s: &Scenario,
    y0: Y::ValueType,
    y1: Y::ValueType,
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged,
    Y::ValueType: Clone + 'static,
{
    let w = s.phases.warmup();
    let bands = [
        (s.phases.baseline, BASELINE_FILL),
        (w, WARMUP_FILL),
        (s.phases.loaded, LOADED_FILL),
    ];
    for (r, c) in bands {
        if r[1] > r[0] {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(r[0], y0.clone()), (r[1], y1.clone())],
                    c.filled(),
                )))
                .map_err(e)?;
        }
    }
    Ok(())
}

/// What became of one probe request, as the probe plot draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProbePoint {
    /// A reply within the timeout: its RTT, ms.
    Reply(f64),
    /// A reply after the timeout: its exact RTT, ms.
    Late(f64),
    /// Never reached B (B's receive log), with the drop reason if matched.
    Lost(Option<netlab_results::fate::DropReason>),
    /// No reply within the timeout, and nothing more known.
    NoReply,
}

/// Each request of the probe that ran, at its send time, with its fate
/// (method §5.8): the stop-and-wait probe's from B's receive log where the
/// results carry it, else the isochronous probe's.
pub fn probe_points(s: &Scenario) -> Vec<(f64, ProbePoint)> {
    use netlab_results::fate::{Fate, LossCause};
    if !s.probes.is_empty() {
        let fates: std::collections::HashMap<u32, &Fate> = s
            .fates
            .iter()
            .flat_map(|f| f.requests.iter().map(|r| (r.seq, &r.fate)))
            .collect();
        return s
            .probes
            .iter()
            .filter_map(|p| {
                let pt = match p.outcome {
                    ProbeOutcome::Reply { rtt_ms } => ProbePoint::Reply(rtt_ms),
                    ProbeOutcome::Timeout => match fates.get(&p.seq) {
                        Some(Fate::ReachedB {
                            late_rtt_ms: Some(r),
                            ..
                        }) => ProbePoint::Late(*r),
                        Some(Fate::NeverReachedB { cause }) => ProbePoint::Lost(match cause {
                            LossCause::DroppedAtBottleneck { reason, .. } => Some(*reason),
                            LossCause::Unknown { .. } => None,
                        }),
                        _ => ProbePoint::NoReply,
                    },
                    ProbeOutcome::NoInformation => return None,
                };
                Some((p.send_s, pt))
            })
            .collect();
    }
    s.iso
        .iter()
        .flat_map(|iso| &iso.requests)
        .filter_map(|r| {
            let pt = match (r.outcome, r.late_rtt_ms) {
                (ProbeOutcome::Reply { rtt_ms }, _) => ProbePoint::Reply(rtt_ms),
                (ProbeOutcome::Timeout, Some(late)) => ProbePoint::Late(late),
                (ProbeOutcome::Timeout, None) => ProbePoint::NoReply,
                (ProbeOutcome::NoInformation, _) => return None,
            };
            Some((r.send_s.unwrap_or(r.due_s), pt))
        })
        .collect()
}

/// A lost request's colour, by its drop reason (the headline figure's).
fn lost_color(r: Option<netlab_results::fate::DropReason>) -> RGBColor {
    r.map_or(RGBColor(70, 70, 70), dropped_color)
}

/// Plot 1: the probe's RTT over time, log scale, phases shaded: replies;
/// late replies at their exact RTT; requests that never reached B in a
/// strip of their own at the bottom, coloured by cause, never drawn as a
/// delay; only what no record explains in the "no reply within the
/// timeout" band at the top. `None` (not drawn) when no probe ran.
// Long: one figure drawn in order (title, legend, log axis, shaded phases,
// the bands, replies, late replies, losses, the unexplained); the steps
// share the chart.
pub fn probe_rtt(s: &Scenario) -> Result<Option<Plot>, PlotError> {
    let points = probe_points(s);
    if points.is_empty() {
        return Ok(None);
    }
    let file = crate::layout::scenario_plot(s.index, "probe-rtt");
    let iso = s.probes.is_empty();
    let timeout_ms = match (&s.iso, iso) {
        (Some(i), true) => i.timeout_s * 1000.0,
        _ => s.probe_timeout_s * 1000.0,
    };
    let probe = if iso { "isochronous" } else { "stop-and-wait" };
    let title = format!(
        "Scenario {} ({}): {probe} UDP probe RTT over time, losses apart",
        s.index,
        s.label()
    );
    let value = |p: &ProbePoint| match p {
        ProbePoint::Reply(v) | ProbePoint::Late(v) => Some(v.max(0.01)),
        _ => None,
    };
    let top = points
        .iter()
        .filter_map(|(_, p)| value(p))
        .fold(timeout_ms, f64::max);
    let band = (top * 1.15, top * 2.2);
    let band_mid = (band.0 * band.1).sqrt();
    let ymin = points
        .iter()
        .filter_map(|(_, p)| value(p))
        .fold(f64::INFINITY, f64::min)
        .clamp(0.01, 1.0)
        * 0.5;
    let lost_band = (ymin * 0.25, ymin * 0.8);
    let lost_mid = (lost_band.0 * lost_band.1).sqrt();
    let count = |f: &dyn Fn(&ProbePoint) -> bool| points.iter().filter(|(_, p)| f(p)).count();
    let late = count(&|p| matches!(p, ProbePoint::Late(_)));
    let no_reply = count(&|p| matches!(p, ProbePoint::NoReply));
    let mut reasons: Vec<Option<netlab_results::fate::DropReason>> = Vec::new();
    for (_, p) in &points {
        if let ProbePoint::Lost(r) = p {
            if !reasons.contains(r) {
                reasons.push(*r);
            }
        }
    }
    let mut legend = Legend::new();
    phase_legend(s, &mut legend);
    legend.push(
        "reply within the timeout (RTT)",
        Mark::Marker(crate::plot_style::Shape::Circle, BLUE),
    );
    if late > 0 {
        legend.push(
            format!("reply after the {timeout_ms:.0} ms timeout, at its exact RTT ({late})"),
            Mark::Marker(crate::plot_style::Shape::Diamond, LATE_COLOR),
        );
    }
    for r in &reasons {
        let n = count(&|p| *p == ProbePoint::Lost(*r));
        let what = r.map_or("cause unknown", |r| r.as_words());
        legend.push(
            format!("never reached B: {what} ({n}), in the bottom strip: a loss, not a delay"),
            Mark::Marker(crate::plot_style::Shape::Cross, lost_color(*r)),
        );
    }
    if no_reply > 0 {
        let why = if s.fates.is_some() && !iso {
            "reached B, no reply came back"
        } else {
            "lost or late: no receive log says which"
        };
        legend.push(
            format!("no reply within {timeout_ms:.0} ms ({no_reply}: {why})"),
            Mark::TimeoutBand,
        );
    }
    let h = title_height(&title, WIDTH) + 400 + legend.height(WIDTH);
    let xe = x_end(s);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        let y0 = if reasons.is_empty() {
            ymin
        } else {
            lost_band.0
        };
        let mut chart = builder(&plot)
            .build_cartesian_2d(0f64..xe, (y0..band.1).log_scale())
            .map_err(e)?;
        // No RTT tick in or at the lost strip: a cross there is a loss,
        // and a number beside it would read as its RTT; the strip says
        // "lost" instead.
        // (twice the strip's top leaves a label's height between them)
        let strip_top = if reasons.is_empty() { 0.0 } else { ymin * 2.0 };
        let y_label = |v: &f64| {
            if *v < strip_top {
                String::new()
            } else {
                tick(v)
            }
        };
        crate::plot_style::draw_axes(
            &mut chart,
            &crate::plot_style::Axes {
                y_label: &y_label,
                ..crate::plot_style::Axes::ticks("time since t0 (s)", "probe RTT (ms, log)", (6, 6))
            },
        )?;
        if !reasons.is_empty() {
            let at = chart.backend_coord(&(0.0, lost_mid));
            let base = plot.get_base_pixel();
            plot.draw(&Text::new(
                "lost",
                (at.0 - base.0 - 8, at.1 - base.1),
                crate::plot_style::font(crate::plot_style::TEXT_PX).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Right,
                        plotters::style::text_anchor::VPos::Center,
                    ),
                ),
            ))
            .map_err(e)?;
        }
        shade_phases(&mut chart, s, ymin, top)?;
        if no_reply > 0 {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, band.0), (xe, band.1)],
                    TIMEOUT_FILL.filled(),
                )))
                .map_err(e)?;
        }
        if !reasons.is_empty() {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, lost_band.0), (xe, lost_band.1)],
                    RGBColor(245, 235, 245).filled(),
                )))
                .map_err(e)?;
        }
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, timeout_ms), (xe, timeout_ms)],
                BLACK.mix(0.5).stroke_width(1),
            )))
            .map_err(e)?;
        // The line joins consecutive replies only: broken at every request
        // without a timely reply.
        let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        let mut ordered = points.clone();
        ordered.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (t, p) in &ordered {
            match p {
                ProbePoint::Reply(v) => {
                    if let Some(r) = runs.last_mut() {
                        r.push((*t, v.max(0.01)));
                    }
                }
                _ => runs.push(Vec::new()),
            }
        }
        for run in runs.iter().filter(|r| r.len() > 1) {
            chart
                .draw_series(LineSeries::new(
                    run.iter().copied(),
                    BLUE.mix(0.4).stroke_width(1),
                ))
                .map_err(e)?;
        }
        for (t, p) in &points {
            match p {
                ProbePoint::Reply(v) => chart
                    .draw_series(std::iter::once(Circle::new(
                        (*t, v.max(0.01)),
                        3,
                        BLUE.filled(),
                    )))
                    .map(|_| ()),
                ProbePoint::Late(v) => chart
                    .draw_series(std::iter::once(crate::plot_style::marker(
                        crate::plot_style::Shape::Diamond,
                        (*t, v.max(0.01)),
                        5,
                        LATE_COLOR,
                    )))
                    .map(|_| ()),
                ProbePoint::Lost(r) => chart
                    .draw_series(std::iter::once(Cross::new(
                        (*t, lost_mid),
                        6,
                        lost_color(*r).stroke_width(2),
                    )))
                    .map(|_| ()),
                ProbePoint::NoReply => chart
                    .draw_series(std::iter::once(Cross::new(
                        (*t, band_mid),
                        6,
                        RGBColor(120, 120, 120).stroke_width(2),
                    )))
                    .map(|_| ()),
            }
            .map_err(e)?;
        }
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

/// A reply after the timeout (the headline figure's "reached B late").
const LATE_COLOR: RGBColor = RGBColor(230, 150, 40);

/// The shaped rate's colour (every figure that shows goodput draws it).
pub const RATE_COLOR: RGBColor = RGBColor(230, 120, 0);

/// The top of the goodput axis, Mbit/s: up to twice the shaped rate, or
/// the 95th percentile of the bins if higher (without a rate, the largest
/// bin), so a recovery's burst does not flatten the steady state.
fn goodput_axis_top(mut bins: Vec<f64>, rate: Option<f64>) -> f64 {
    bins.sort_by(f64::total_cmp);
    let p95 = bins
        .get(((bins.len() as f64) * 0.95) as usize)
        .or(bins.last())
        .copied()
        .unwrap_or(1.0);
    match rate {
        Some(r) => (2.0 * r).max(p95 * 1.15),
        None => bins.last().copied().unwrap_or(1.0) * 1.15,
    }
    .max(0.1)
}

/// The goodput figure's legend: the phases, the window, the flows (up to
/// 4 named), the aggregate, the clipped bins and the rate.
fn goodput_legend(s: &Scenario, clipped: &[(f64, f64)], rate: Option<f64>) -> Legend {
    let mut legend = Legend::new();
    phase_legend(s, &mut legend);
    if let Some([w0, w1]) = s.measured_window {
        legend.push(
            format!("measured window {w0:.1}–{w1:.1} s"),
            Mark::Line(BLACK, 2),
        );
    }
    // Up to 4 flows each named; more are one entry (flows.csv names
    // each), so the legend stays smaller than the plot.
    if s.flows.len() > 4 {
        legend.push(
            format!("each of the {} flows (thin)", s.flows.len()),
            Mark::Line(arm_color(2), 1),
        );
    } else if s.flows.len() > 1 {
        for (i, f) in s.flows.iter().enumerate() {
            legend.push(f.label.clone(), Mark::Line(arm_color(i + 2), 1));
        }
    }
    legend.push(
        if s.flows.len() > 1 {
            "aggregate"
        } else {
            "flow 1"
        },
        Mark::Line(BLUE, 2),
    );
    if !clipped.is_empty() {
        legend.push(
            format!(
                "{} bin(s) above the axis (clipped; max {:.1} Mbit/s)",
                clipped.len(),
                clipped.iter().map(|c| c.1).fold(0.0, f64::max)
            ),
            Mark::Marker(crate::plot_style::Shape::Triangle, RED),
        );
    }
    if let Some(r) = rate {
        legend.push(format!("TBF rate {r} Mbit/s"), Mark::Line(RATE_COLOR, 2));
    }
    legend
}

/// Plot 3: goodput per bin (per flow and aggregate), measured window marked.
pub fn goodput_over_time(s: &Scenario, bottleneck_bps: Option<u64>) -> Result<Plot, PlotError> {
    let file = crate::layout::scenario_plot(s.index, "goodput");
    let title = format!(
        "Scenario {} ({}): goodput per {:.0} ms (bytes delivered to B's application)",
        s.index,
        s.label(),
        s.bin_s().unwrap_or(0.2) * 1000.0
    );
    let bin = s.bin_s().unwrap_or(0.2);
    let to_line = |bytes: &[u64]| -> Vec<(f64, f64)> {
        bytes
            .iter()
            .enumerate()
            .flat_map(|(i, b)| {
                let g = *b as f64 * 8.0 / bin / 1e6;
                [(i as f64 * bin, g), ((i + 1) as f64 * bin, g)]
            })
            .collect()
    };
    let agg_full = to_line(&s.aggregate_bytes());
    // The axis shows the steady state: up to twice the shaped rate (or the
    // 95th percentile of the bins, if higher); bins above it (a recovery's
    // burst from the receiver's out-of-order queue) are clipped at the top
    // and marked with their value.
    let rate = bottleneck_bps.map(|b| b as f64 / 1e6);
    let ymax = goodput_axis_top(agg_full.iter().map(|p| p.1).collect(), rate);
    let clipped: Vec<(f64, f64)> = agg_full
        .chunks(2)
        .filter(|c| c[0].1 > ymax)
        .map(|c| ((c[0].0 + c[1].0) / 2.0, c[0].1))
        .collect();
    let agg: Vec<(f64, f64)> = agg_full.iter().map(|&(x, y)| (x, y.min(ymax))).collect();
    let xe = x_end(s);
    let legend = goodput_legend(s, &clipped, rate);
    let h = title_height(&title, WIDTH) + 380 + legend.height(WIDTH);
    let svg =
        draw_svg(&file, (WIDTH, h), |root| {
            let body = draw_title(root, &title)?;
            let (plot, legend_area) = legend.split(&body);
            let mut chart = builder(&plot)
                .build_cartesian_2d(0f64..xe, 0f64..ymax)
                .map_err(e)?;
            mesh(&mut chart, "time since t0 (s)", "goodput (Mbit/s)", (6, 6))?;
            shade_phases(&mut chart, s, 0.0, ymax)?;
            if let Some([w0, w1]) = s.measured_window {
                chart
                    .draw_series([w0, w1].into_iter().map(|x| {
                        PathElement::new(vec![(x, 0.0), (x, ymax)], BLACK.stroke_width(2))
                    }))
                    .map_err(e)?;
            }
            if s.flows.len() > 1 {
                for (i, f) in s.flows.iter().enumerate() {
                    let c = arm_color(i + 2);
                    chart
                        .draw_series(LineSeries::new(to_line(&f.bytes), c.stroke_width(1)))
                        .map_err(e)?;
                }
            }
            chart
                .draw_series(LineSeries::new(agg.iter().copied(), BLUE.stroke_width(2)))
                .map_err(e)?;
            if !clipped.is_empty() {
                let top = ymax * 0.97;
                chart
                    .draw_series(
                        clipped
                            .iter()
                            .map(|&(x, _)| TriangleMarker::new((x, top), 6, RED.filled())),
                    )
                    .map_err(e)?;
            }
            // The shaped rate last, on top of the trace.
            if let Some(r) = rate {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(0.0, r), (xe, r)],
                        RATE_COLOR.stroke_width(2),
                    )))
                    .map_err(e)?;
            }
            legend.draw(&legend_area)
        })?;
    Ok(Plot {
        file,
        title,
        scenario: Some(s.index),
        point: None,
        svg,
    })
}

/// A panel of a two-panel figure: its area, y description, series and y max.
struct Panel<'a, 'b> {
    area: &'b Area<'a>,
    y_desc: &'b str,
    series: Vec<Line<'b>>,
    ymax: f64,
}

/// Draws two panels one above the other on a shared time axis, phases
/// shaded, each series a line (with its points when `dots`).
fn two_panels(s: &Scenario, panels: [Panel<'_, '_>; 2], dots: bool) -> Result<(), String> {
    let xe = x_end(s);
    for p in panels {
        let mut chart = builder(p.area)
            .build_cartesian_2d(0f64..xe, 0f64..p.ymax)
            .map_err(e)?;
        mesh(&mut chart, "time since t0 (s)", p.y_desc, (6, 4))?;
        shade_phases(&mut chart, s, 0.0, p.ymax)?;
        for (_, data, c) in p.series {
            chart
                .draw_series(LineSeries::new(data.iter().copied(), c.stroke_width(2)))
                .map_err(e)?;
            if dots {
                chart
                    .draw_series(data.iter().map(|&q| Circle::new(q, 2, c.filled())))
                    .map_err(e)?;
            }
        }
    }
    Ok(())
}

/// Plot 4: the sender's TCP RTT and cwnd from tcp_info (never the probe).
pub fn tcp_info(s: &Scenario) -> Result<Plot, PlotError> {
    let file = crate::layout::scenario_plot(s.index, "tcp-info");
    let title = format!(
        "Scenario {} ({}): TCP RTT (tcp_info) and cwnd of the sender",
        s.index,
        s.label()
    );
    let rtt: Vec<(f64, f64)> = s.tcp_info.iter().map(|t| (t.t_s, t.rtt_ms)).collect();
    let cwnd: Vec<(f64, f64)> = s.tcp_info.iter().map(|t| (t.t_s, t.cwnd as f64)).collect();
    let rmax = rtt.iter().map(|p| p.1).fold(1.0, f64::max) * 1.15;
    let cmax = cwnd.iter().map(|p| p.1).fold(10.0, f64::max) * 1.15;
    let (c_rtt, c_cwnd) = (RGBColor(120, 60, 160), RGBColor(30, 120, 90));
    let mut legend = Legend::new();
    phase_legend(s, &mut legend);
    legend.push("TCP RTT (tcp_info, top)", Mark::Line(c_rtt, 2));
    legend.push("cwnd (tcp_info, bottom)", Mark::Line(c_cwnd, 2));
    let h = title_height(&title, WIDTH) + 600 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plots, legend_area) = legend.split(&body);
        let (_, ph) = plots.dim_in_pixel();
        let (top, bottom) = plots.split_vertically(ph / 2);
        two_panels(
            s,
            [
                Panel {
                    area: &top,
                    y_desc: "TCP RTT (ms)",
                    series: vec![("", &rtt, c_rtt)],
                    ymax: rmax,
                },
                Panel {
                    area: &bottom,
                    y_desc: "cwnd (segments)",
                    series: vec![("", &cwnd, c_cwnd)],
                    ymax: cmax,
                },
            ],
            true,
        )?;
        legend.draw(&legend_area)
    })?;
    Ok(Plot {
        file,
        title,
        scenario: Some(s.index),
        point: None,
        svg,
    })
}

/// Plot 5: the arm's backlog (packets and bytes) and its cumulative drops
/// and ECN marks, from the periodic qdisc readbacks.
pub fn qdisc(s: &Scenario) -> Result<Plot, PlotError> {
    let file = crate::layout::scenario_plot(s.index, "qdisc");
    let title = format!(
        "Scenario {} ({}): arm qdisc backlog and cumulative drops / ECN marks",
        s.index,
        s.label()
    );
    let pk: Vec<(f64, f64)> = s
        .qdisc
        .iter()
        .map(|q| (q.t_s, q.backlog_packets as f64))
        .collect();
    let kb: Vec<(f64, f64)> = s
        .qdisc
        .iter()
        .map(|q| (q.t_s, q.backlog_bytes as f64 / 1000.0))
        .collect();
    let drops: Vec<(f64, f64)> = s.qdisc.iter().map(|q| (q.t_s, q.drops as f64)).collect();
    let marks: Vec<(f64, f64)> = s
        .qdisc
        .iter()
        .filter_map(|q| q.ecn_marks.map(|m| (q.t_s, m as f64)))
        .collect();
    let max = |v: &[(f64, f64)]| v.iter().map(|p| p.1).fold(1.0, f64::max) * 1.15;
    let c_pk = RGBColor(30, 100, 200);
    let c_kb = RGBColor(120, 170, 230);
    let c_dr = RGBColor(200, 40, 40);
    let c_mk = RGBColor(220, 140, 20);
    let top_series: Vec<Line<'_>> = vec![
        ("backlog (packets, top)", &pk, c_pk),
        ("backlog (kB, top)", &kb, c_kb),
    ];
    let mut bottom_series: Vec<Line<'_>> =
        vec![("cumulative drops of the arm (bottom)", &drops, c_dr)];
    if !marks.is_empty() {
        bottom_series.push(("cumulative ECN marks of the arm (bottom)", &marks, c_mk));
    }
    let mut legend = Legend::new();
    phase_legend(s, &mut legend);
    for (label, _, c) in top_series.iter().chain(&bottom_series) {
        legend.push(*label, Mark::Line(*c, 2));
    }
    let h = title_height(&title, WIDTH) + 600 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plots, legend_area) = legend.split(&body);
        let (_, ph) = plots.dim_in_pixel();
        let (top, bottom) = plots.split_vertically(ph / 2);
        two_panels(
            s,
            [
                Panel {
                    area: &top,
                    y_desc: "backlog (pkts / kB)",
                    series: top_series.clone(),
                    ymax: max(&pk).max(max(&kb)),
                },
                Panel {
                    area: &bottom,
                    y_desc: "count",
                    series: bottom_series.clone(),
                    ymax: max(&drops).max(max(&marks)),
                },
            ],
            false,
        )?;
        legend.draw(&legend_area)
    })?;
    Ok(Plot {
        file,
        title,
        scenario: Some(s.index),
        point: None,
        svg,
    })
}
