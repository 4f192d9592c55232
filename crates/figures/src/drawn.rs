//! Which figures a results folder gets, in their order: the run's (the
//! headline figure, the delay CDFs, each pair's overview, the scatter,
//! the hosts' shares, the trace plane; a sweep's point by point) and each
//! scenario's. The top of the figures' modules: each figure is drawn in
//! its own module, which this one only calls.

use netlab_analysis::records::Scenario;
use netlab_analysis::ReportInput;

use crate::plots::Plot;
use crate::PlotError;

/// Every run-level plot, in a fixed order: the headline figure, then the
/// run's (a sweep's point by point). Each scenario's own plots are drawn
/// by [`scenario_plots`], one scenario at a time, for its page.
pub fn all(
    input: &ReportInput,
    st: &netlab_compare::compare::Statistics,
    hl: &netlab_compare::headline::Headline,
) -> Result<Vec<Plot>, PlotError> {
    let mut out = if input.is_sweep() {
        sweep_points(input, hl)?
    } else {
        let mut out = vec![crate::plot_headline::figure(input, st, hl)?];
        out.extend(run_figures(input)?.into_iter().map(|mut p| {
            // Who got the link answers a host experiment's question: it
            // stays at the top beside the headline's figure.
            if !p.file.starts_with(crate::plot_hosts::FILE_PREFIX) {
                p.file = crate::layout::run_figure(&p.file);
            }
            p
        }));
        out
    };
    out.extend(crate::plot_link::plane(input)?);
    Ok(out)
}

/// The four plots of one scenario; `bottleneck_bps` is the rate its
/// goodput plot draws (in a sweep, its point's own rate:
/// [`Scenario::point_rate`](netlab_analysis::records::Scenario::point_rate)).
pub fn scenario_plots(s: &Scenario, bottleneck_bps: Option<u64>) -> Result<Vec<Plot>, PlotError> {
    let mut out: Vec<Plot> = crate::plots::probe_rtt(s)?.into_iter().collect();
    out.extend([
        crate::plots::goodput_over_time(s, bottleneck_bps)?,
        crate::plots::tcp_info(s)?,
        crate::plots::qdisc(s)?,
    ]);
    out.extend(crate::plot_link::moving_rate(s)?);
    Ok(out)
}

/// A sweep's run-level plots point by point: each point's headline figure
/// and per-arm figures over its own rounds alone (`pNN-…`, its label in
/// the page's caption).
fn sweep_points(
    input: &ReportInput,
    hl: &netlab_compare::headline::Headline,
) -> Result<Vec<Plot>, PlotError> {
    let mut out = Vec::new();
    for (p, ph) in input.points().zip(&hl.points) {
        let st = netlab_compare::compare::analyse(&p.input);
        let mut run = vec![crate::plot_headline::figure(&p.input, &st, &ph.headline)?];
        run.extend(run_figures(&p.input)?);
        for plot in &mut run {
            plot.file = crate::layout::point_figure(p.index, &plot.file);
            plot.point = Some(p.index);
        }
        out.extend(run);
    }
    Ok(out)
}

/// Every run-level plot, in a fixed order. The loaded delay's CDF is the
/// delivered probes' one-way delay where every round has its fates
/// (losses a mass apart, never at the timeout), else the Kaplan–Meier CDF
/// of the probe that ran; a run without any probe sample gets neither.
fn run_figures(input: &ReportInput) -> Result<Vec<Plot>, PlotError> {
    let ok: Vec<&Scenario> = input
        .scenarios
        .iter()
        .filter(|s| s.error.is_none())
        .collect();
    let mut out = Vec::new();
    if netlab_compare::compare::DelayBasis::of(&ok)
        == netlab_compare::compare::DelayBasis::OneWayDelivered
    {
        out.push(crate::plots_run::delivered_cdf(input)?);
    } else if input
        .scenarios
        .iter()
        .any(|s| !crate::plots_run::obs(s).is_empty())
    {
        out.push(crate::plots_run::km_cdf(input)?);
    }
    let a = crate::plots_run::arms(input);
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            out.push(crate::plots_overview::overview(input, &a[i], &a[j])?);
        }
    }
    out.push(crate::plots_overview::scatter(input)?);
    if input.scenarios.iter().any(|s| s.iso.is_some()) {
        // The one-way delay by fate where every round has its fates, else
        // the RTTs' Kaplan–Meier CDF.
        out.push(match crate::plot_iso_delivered::iso_delivered_cdf(input) {
            Some(by_fate) => by_fate?,
            None => crate::plots_run::iso_cdf(input)?,
        });
    }
    out.extend(crate::plot_hosts::all(input)?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plots_run::tests::{svg_text, with_iso};

    #[test]
    fn the_iso_plot_is_drawn_only_when_an_iso_probe_ran_and_names_both_probes() {
        let plain = netlab_analysis::testing::input(1);
        assert!(!run_figures(&plain)
            .unwrap()
            .iter()
            .any(|p| p.file == "iso-cdf-loaded.svg"));
        let plots = run_figures(&with_iso()).unwrap();
        let p = plots
            .iter()
            .find(|p| p.file == "iso-cdf-loaded.svg")
            .expect("the iso plot");
        // One entry per arm, and one per way a probe is drawn.
        for text in [
            "pfifo: 2 late isochronous replies",
            "fq_codel",
            "stop-and-wait probe (solid)",
            "isochronous probe (dashed)",
            "isochronous, late replies at their RTT (dotted)",
        ] {
            assert!(svg_text(&p.svg).contains(text), "{text} missing");
        }
        // fq_codel had no late reply: no third curve for it
        assert!(!svg_text(&p.svg).contains("fq_codel:"));
    }
}
