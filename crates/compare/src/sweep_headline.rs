//! A sweep's headline: what changes along each axis (docs/report.md, "Pooling in a sweep"). Per axis,
//! arm and value of the other axes, the headline metrics at each value of
//! the axis, each the median over that point's rounds alone
//! ([`crate::sweep::series`]); the latency is the probe that ran (the
//! stop-and-wait RTT, else the isochronous probe's one-way delay).

use crate::sweep::{PointValues, SweepMetric, SweepTable};
use netlab_stats::fmt_num;

/// At most this many panels (values of the other axes) are told per axis
/// and arm; sweep.csv holds the rest.
pub(crate) const MAX_PANELS: usize = 6;

/// A point's rounds as the headline tells them: each round and their
/// mean below three rounds (`7.88 / 16.82 (mean 12.35)`), the median with
/// the range from three on; a count whole.
fn text(m: SweepMetric, p: &PointValues) -> String {
    if m.unit() == "packets" {
        p.text(|x| format!("{x:.0}"))
    } else {
        p.text(fmt_num)
    }
}

/// The metrics a sweep's headline tells: the latency of the probe that
/// ran (its median and tail), goodput per direction, drops, CE marks.
pub(crate) fn headline_metrics(table: &SweepTable) -> Vec<SweepMetric> {
    let has = table.metrics_with_data();
    let latency = if has.contains(&SweepMetric::RttP50) {
        [SweepMetric::RttP50, SweepMetric::RttP95]
    } else {
        [SweepMetric::IsoUpP50, SweepMetric::IsoUpP99]
    };
    latency
        .into_iter()
        .chain([
            SweepMetric::GoodputUp,
            SweepMetric::GoodputDown,
            SweepMetric::Drops,
            SweepMetric::CeMarks,
        ])
        .filter(|m| has.contains(m))
        .collect()
}

/// One sentence per axis, arm and value of the other axes: `along rate
/// (1mbit → 5mbit → 20mbit) at base_rtt=20ms, pfifo: loaded stop-and-wait
/// probe RTT p50 950 → 210 → 60 ms; …`.
pub(crate) fn along(table: &SweepTable) -> Vec<String> {
    let metrics = headline_metrics(table);
    let mut out = Vec::new();
    for (i, axis) in table.axes.iter().enumerate() {
        let Some(first) = metrics.first() else {
            continue;
        };
        let panels = table.series(*first, i);
        let per_metric: Vec<Vec<crate::sweep::Panel>> =
            metrics.iter().map(|m| table.series(*m, i)).collect();
        for (k, panel) in panels.iter().enumerate().take(MAX_PANELS) {
            for series in &panel.arms {
                let values: Vec<String> = series
                    .points
                    .iter()
                    .map(|p| {
                        axis.values
                            .iter()
                            .find(|v| v.x.unwrap_or(f64::NAN) == p.x)
                            .or_else(|| axis.values.get(p.x as usize))
                            .map_or_else(|| fmt_num(p.x), |v| v.text.clone())
                    })
                    .collect();
                let figures: Vec<String> = metrics
                    .iter()
                    .zip(&per_metric)
                    .filter_map(|(m, panels)| {
                        let s = panels[k].arms.iter().find(|a| a.arm == series.arm)?;
                        let v: Vec<String> = s.points.iter().map(|p| text(*m, p)).collect();
                        let unit = match m.unit() {
                            "" => String::new(),
                            u => format!(" {u}"),
                        };
                        Some(format!("{} {}{unit}", m.name(), v.join(" → ")))
                    })
                    .collect();
                let held = if panel.held.is_empty() {
                    String::new()
                } else {
                    format!(" at {}", panel.held.join(", "))
                };
                out.push(format!(
                    "along {} ({}){held}, {}: {}",
                    axis.name,
                    values.join(" → "),
                    series.arm,
                    figures.join("; ")
                ));
            }
        }
        if panels.len() > MAX_PANELS {
            out.push(format!(
                "along {}: {} more values of the other axes in sweep.csv and the figures",
                axis.name,
                panels.len() - MAX_PANELS
            ));
        }
    }
    out
}
