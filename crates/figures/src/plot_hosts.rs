//! Who got the link (docs/models.md, model 5; method §1.7): each sender
//! host's share of one direction's goodput, per arm, beside its three
//! models drawn dashed. One figure per direction with more than one
//! sender host (`hosts-share-up.svg`, `hosts-share-down.svg`).
//!
//! The arms stand side by side along x, each host in its own slot within
//! its arm, one marker per round (the host's colour, the round's shape).
//! Over each host's slot, at the host's own model values: the per-flow
//! share of per-flow FQ (its flows ÷ the direction's), the equal host
//! share CAKE's host modes aim at (1 ÷ the hosts) and Mathis's share at
//! the round's measured RTTs (one dash per round where the rounds'
//! differ). The three models' dashes interleave, so where two coincide
//! (one flow per host: per-flow and per-host are both 1/2) both colours
//! stay visible. The numbers are `netlab_results::shares`' (flows.csv's
//! `host_goodput_share`; summary.md's "Who got the link").

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use netlab_analysis::summary::ScenarioFigures;
use netlab_results::shares::HostShare;

use crate::plot_legend::{Legend, Mark};
use crate::plot_style::{
    category_lines, draw_axes, draw_categories, line_h, marker, plot_width, title as draw_title,
    title_height, Axes, Shape, TEXT_PX, WIDTH,
};
use crate::plots::{arm_color, builder, draw_svg, e, tick, Area, Plot};
use crate::PlotError;
use netlab_analysis::ReportInput;

/// How the figures' files start.
pub const FILE_PREFIX: &str = "hosts-share-";

/// The figure's file for `direction` (`up`, `down`).
pub fn file_name(direction: &str) -> String {
    format!("{FILE_PREFIX}{direction}.svg")
}

/// The directions that get a figure: those in which some scenario has
/// more than one sender host, in order of first appearance.
pub fn directions<'a>(scenarios: impl IntoIterator<Item = &'a ScenarioFigures>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for d in scenarios.into_iter().flat_map(|s| &s.host_shares) {
        if d.hosts.len() > 1 && !out.contains(&d.direction) {
            out.push(d.direction.clone());
        }
    }
    out
}

/// The per-flow FQ model's colour.
pub const PER_FLOW_COLOR: RGBColor = RGBColor(40, 40, 40);
/// The equal host share's colour.
pub const EQUAL_HOST_COLOR: RGBColor = RGBColor(130, 130, 130);
/// Mathis's share's colour.
pub const MATHIS_COLOR: RGBColor = RGBColor(200, 0, 120);

/// The word for a model's colour, as the legend and summary.md say it.
pub fn color_word(c: RGBColor) -> &'static str {
    match c {
        PER_FLOW_COLOR => "dark grey",
        EQUAL_HOST_COLOR => "light grey",
        _ => "magenta",
    }
}

/// Which dashed line is which model, in words (summary.md's).
pub fn model_key() -> String {
    format!(
        "per-flow FQ {}, the equal host share {}, Mathis at the measured RTTs {}",
        color_word(PER_FLOW_COLOR),
        color_word(EQUAL_HOST_COLOR),
        color_word(MATHIS_COLOR)
    )
}

/// A dash's length and the period of each model's dashes, px: three
/// models' dashes fit one period, each offset by one dash.
const DASH: f64 = 6.0;
const PERIOD: f64 = 3.0 * DASH;
/// A round's own Mathis line (under its marker, so wider than the
/// marker and densely dashed): dash and period, px.
const ROUND_DASH: (f64, f64) = (4.0, 7.0);

/// What one host drew in one round of one arm.
struct Round<'a> {
    round: u32,
    host: &'a HostShare,
    /// Whether the models apply to the round (docs/models.md, model 5).
    cond: &'a netlab_analysis::host_conditions::HostConditions,
    /// The round's shares in this direction had not settled: no model is
    /// drawn for it.
    unsettled: bool,
}

/// One arm's rounds, host by host (hosts in the run's order).
struct ArmHosts<'a> {
    arm: String,
    hosts: Vec<Vec<Round<'a>>>,
}

/// The hosts of `direction`, in order of first appearance, with their
/// flow counts (from their first scenario).
fn hosts_of<'a>(figs: &[&'a ScenarioFigures], direction: &str) -> Vec<&'a HostShare> {
    let mut out: Vec<&HostShare> = Vec::new();
    for d in figs
        .iter()
        .flat_map(|s| &s.host_shares)
        .filter(|d| d.direction == direction)
    {
        for h in &d.hosts {
            if !out.iter().any(|o| o.host == h.host) {
                out.push(h);
            }
        }
    }
    out
}

/// Every arm's rounds of `direction`, arms in the order they first ran.
fn arms_of<'a>(
    figs: &[&'a ScenarioFigures],
    direction: &str,
    hosts: &[&HostShare],
) -> Vec<ArmHosts<'a>> {
    let mut arms: Vec<ArmHosts<'a>> = Vec::new();
    for s in figs {
        let Some(d) = s.host_shares.iter().find(|d| d.direction == direction) else {
            continue;
        };
        let k = match arms.iter().position(|a| a.arm == s.arm) {
            Some(k) => k,
            None => {
                arms.push(ArmHosts {
                    arm: s.arm.clone(),
                    hosts: hosts.iter().map(|_| Vec::new()).collect(),
                });
                arms.len() - 1
            }
        };
        for h in &d.hosts {
            if let Some(j) = hosts.iter().position(|o| o.host == h.host) {
                arms[k].hosts[j].push(Round {
                    round: s.round,
                    host: h,
                    cond: &s.host_conditions,
                    unsettled: s.host_conditions.unsettled(direction).is_some(),
                });
            }
        }
    }
    arms
}

/// The figures of `input`, one per direction with more than one sender
/// host ([`directions`]).
pub fn all(input: &ReportInput) -> Result<Vec<Plot>, PlotError> {
    // A sweep point's input carries every scenario's figures: its own only.
    let figs: Vec<&ScenarioFigures> = input
        .figures
        .iter()
        .filter(|f| input.scenarios.iter().any(|s| s.index == f.index))
        .collect();
    directions(figs.iter().copied())
        .iter()
        .map(|d| figure(input, &figs, d))
        .collect()
}

/// The colour of the `j`-th host (0-based, in the run's order).
pub fn host_color(j: usize) -> RGBColor {
    arm_color(j)
}

/// The legend: hosts, rounds, then the three models.
fn legend_of(hosts: &[&HostShare], rounds: &[u32]) -> Legend {
    let mut legend = Legend::new();
    for (j, h) in hosts.iter().enumerate() {
        legend.push(
            format!(
                "host {} ({} flow{})",
                h.host,
                h.flows,
                if h.flows == 1 { "" } else { "s" }
            ),
            Mark::Marker(Shape::Circle, host_color(j)),
        );
    }
    for r in rounds {
        legend.push(
            format!("round {r}"),
            Mark::Marker(Shape::of_round(*r), RGBColor(90, 90, 90)),
        );
    }
    for (text, c) in [
        ("per-flow FQ: its flows ÷ all flows", PER_FLOW_COLOR),
        ("equal host share: 1 ÷ hosts (CAKE)", EQUAL_HOST_COLOR),
        ("Mathis: its Σ 1/RTT ÷ all flows'", MATHIS_COLOR),
    ] {
        legend.push(format!("{}: {text}", color_word(c)), Mark::Dashed(c));
    }
    legend
}

/// One direction's figure.
fn figure(
    input: &ReportInput,
    figs: &[&ScenarioFigures],
    direction: &str,
) -> Result<Plot, PlotError> {
    let file = file_name(direction);
    let title = crate::plots::scoped(
        input,
        &format!(
            "Who got the {direction} link: each sender host's share per arm and round, beside three models (dashed)"
        ),
    );
    let hosts = hosts_of(figs, direction);
    let arms = arms_of(figs, direction, &hosts);
    let mut rounds: Vec<u32> = figs.iter().map(|s| s.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    let mut legend = legend_of(&hosts, &rounds);
    for note in missing_models(&arms, direction) {
        legend.push(note, Mark::Note);
    }
    let names: Vec<String> = arms.iter().map(|a| a.arm.clone()).collect();
    let h = title_height(&title, WIDTH) + 440 + legend.height(WIDTH);
    let svg = draw_svg(&file, (WIDTH, h), |root| {
        let body = draw_title(root, &title)?;
        let (plot, legend_area) = legend.split(&body);
        draw_chart(&plot, &arms, &names)?;
        legend.draw(&legend_area)
    })?;
    Ok(Plot::of_run(file, title, svg))
}

/// Why a model line is missing over an arm's rounds: a share that had not
/// settled (no model), or no drop or mark in the window (no Mathis).
fn missing_models(arms: &[ArmHosts<'_>], direction: &str) -> Vec<String> {
    let mut notes = Vec::new();
    for a in arms {
        let Some(rounds) = a.hosts.first() else {
            continue;
        };
        // The rounds by label only: summary.md's host section gives each
        // round's shares and why (docs/models.md, model 5).
        let list = |f: &dyn Fn(&Round<'_>) -> bool| -> String {
            let v: Vec<String> = rounds
                .iter()
                .filter(|r| f(r))
                .map(|r| format!("r{}", r.round))
                .collect();
            v.join(", ")
        };
        let unsettled = list(&|r| r.cond.unsettled(direction).is_some());
        if !unsettled.is_empty() {
            notes.push(format!(
                "{}: no model, share moved > {:.2} in the window ({unsettled})",
                a.arm,
                netlab_analysis::host_conditions::SETTLED_WITHIN,
            ));
        }
        let no_mathis = list(&|r| !r.unsettled && r.cond.no_mathis().is_some());
        if !no_mathis.is_empty() {
            notes.push(format!(
                "{}: no Mathis line without a loss rate ({no_mathis})",
                a.arm
            ));
        }
    }
    notes
}

/// The chart: axes, the arms' names, each host's models and markers.
fn draw_chart(plot: &Area<'_>, arms: &[ArmHosts<'_>], names: &[String]) -> Result<(), String> {
    let n = arms.len().max(1) as f64;
    let (w, _) = plot.dim_in_pixel();
    // The arms' names wrap to their band; the label area fits the longest.
    let band_px = plot_width(w) / n;
    let lines = category_lines(names, band_px);
    let mut b = builder(plot);
    b.x_label_area_size(16 + lines * line_h(TEXT_PX));
    let mut chart = b.build_cartesian_2d(-0.5..n - 0.5, 0f64..1.0).map_err(e)?;
    let none = |_: &f64| String::new();
    draw_axes(
        &mut chart,
        &Axes {
            x_desc: "",
            y_desc: "share of the direction's goodput",
            x_label: &none,
            y_label: &tick,
            labels: Some((0, 6)),
            grid: Some(RGBColor(235, 235, 235)),
        },
    )?;
    draw_categories(&chart, plot, names)?;
    // Pixels per x unit: one arm's band.
    let (xr, _) = chart.plotting_area().get_pixel_range();
    let unit = f64::from(xr.end - xr.start) / n;
    let hn = arms.first().map_or(1, |a| a.hosts.len()).max(1) as f64;
    let slot = 0.8 / hn;
    for (i, arm) in arms.iter().enumerate() {
        for (j, rounds) in arm.hosts.iter().enumerate() {
            let centre = i as f64 + (j as f64 - (hn - 1.0) / 2.0) * slot;
            let span = (centre - slot * 0.45, centre + slot * 0.45);
            let step = slot * 0.8 / rounds.len().max(1) as f64;
            let at = |k: usize| centre + (k as f64 - (rounds.len() as f64 - 1.0) / 2.0) * step;
            models(&mut chart, rounds, span, step, &at, unit)?;
            for (k, r) in rounds.iter().enumerate() {
                let Some(share) = r.host.share else { continue };
                chart
                    .draw_series(std::iter::once(marker(
                        Shape::of_round(r.round),
                        (at(k), share),
                        6,
                        host_color(j),
                    )))
                    .map_err(e)?;
            }
        }
    }
    Ok(())
}

/// Draws one host's three models over `span` (x units): per flow and
/// equal host once (the same in every round), Mathis once when the
/// rounds agree to three decimals, else a dash per round at `at(k)`.
fn models<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    rounds: &[Round<'_>],
    span: (f64, f64),
    step: f64,
    at: &dyn Fn(usize) -> f64,
    unit: f64,
) -> Result<(), String> {
    // A model is drawn only where its conditions hold: no model for a
    // round whose share had not settled, no Mathis without drops.
    let Some(first) = rounds.iter().find(|r| !r.unsettled) else {
        return Ok(());
    };
    let interleaved = |k: f64| (DASH, PERIOD, k * DASH);
    let c = (first.host.model_per_flow, PER_FLOW_COLOR);
    dashes(chart, span, c, interleaved(0.0), unit)?;
    let c = (first.host.model_equal_host, EQUAL_HOST_COLOR);
    dashes(chart, span, c, interleaved(1.0), unit)?;
    let mathis: Vec<Option<f64>> = rounds
        .iter()
        .map(|r| {
            r.host
                .model_mathis
                .filter(|_| !r.unsettled && r.cond.no_mathis().is_none())
        })
        .collect();
    let same = mathis.iter().all(|m| match (m, mathis[0]) {
        (Some(a), Some(b)) => (a - b).abs() < 5e-4,
        (a, b) => a.is_none() && b.is_none(),
    });
    if same {
        if let Some(m) = mathis[0] {
            dashes(chart, span, (m, MATHIS_COLOR), interleaved(2.0), unit)?;
        }
        return Ok(());
    }
    for (k, m) in mathis.iter().enumerate() {
        if let Some(m) = m {
            let x = at(k);
            let (dash, period) = ROUND_DASH;
            let span = (x - step * 0.48, x + step * 0.48);
            dashes(chart, span, (*m, MATHIS_COLOR), (dash, period, 0.0), unit)?;
        }
    }
    Ok(())
}

/// A dashed horizontal line at `y` in colour `c` over `span` (x units):
/// dashes `dash` px long every `period` px from `phase` px in, so the
/// three models' dashes interleave; `unit` is px per x unit.
fn dashes<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    span: (f64, f64),
    (y, c): (f64, RGBColor),
    (dash, period, phase): (f64, f64, f64),
    unit: f64,
) -> Result<(), String> {
    let (dash, period) = (dash / unit, period / unit);
    let mut x = span.0 + phase / unit;
    let mut segs = Vec::new();
    while x < span.1 {
        segs.push(PathElement::new(
            vec![(x, y), ((x + dash).min(span.1), y)],
            c.stroke_width(3),
        ));
        x += period;
    }
    chart.draw_series(segs).map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    /// A round's figures; near's flows at 20 ms, every other host's at 40.
    fn fig(round: u32, arm: &str, hosts: &[(&'static str, f64)]) -> ScenarioFigures {
        let flows: Vec<_> = hosts
            .iter()
            .map(|&(host, g)| (host, g, Some(if host == "near" { 20.0 } else { 40.0 })))
            .collect();
        netlab_analysis::testing::host_figures(round, arm, &flows)
    }

    #[test]
    fn a_figure_only_for_a_direction_with_several_hosts() {
        assert!(directions(&[]).is_empty());
        let one = fig(1, "pfifo", &[("a1", 1.0), ("a1", 2.0)]);
        assert!(directions(std::slice::from_ref(&one)).is_empty());
        let two = fig(2, "pfifo", &[("near", 3.0), ("far", 1.0)]);
        assert_eq!(directions(&[one, two]), vec!["up".to_string()]);
        assert_eq!(file_name("up"), "hosts-share-up.svg");
    }

    #[test]
    fn each_arm_keeps_its_rounds_host_by_host() {
        let figs = [
            fig(1, "pfifo", &[("near", 3.0), ("far", 1.0)]),
            fig(1, "fq_codel", &[("near", 2.0), ("far", 2.0)]),
            fig(2, "pfifo", &[("near", 2.0), ("far", 2.0)]),
        ];
        let refs: Vec<&ScenarioFigures> = figs.iter().collect();
        let hosts = hosts_of(&refs, "up");
        assert_eq!(
            hosts.iter().map(|h| h.host.as_str()).collect::<Vec<_>>(),
            ["near", "far"]
        );
        let arms = arms_of(&refs, "up", &hosts);
        assert_eq!(arms.len(), 2);
        assert_eq!(arms[0].arm, "pfifo");
        let near: Vec<(u32, Option<f64>)> = arms[0].hosts[0]
            .iter()
            .map(|r| (r.round, r.host.share))
            .collect();
        assert_eq!(near, vec![(1, Some(0.75)), (2, Some(0.5))]);
        // Mathis with 20 and 40 ms: near gets (1/20) / (1/20 + 1/40) = 2/3.
        let m = arms[0].hosts[0][0].host.model_mathis.unwrap();
        assert!((m - 2.0 / 3.0).abs() < 1e-12);
    }
}
