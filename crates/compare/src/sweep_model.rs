//! The models of docs/models.md beside a sweep's measurement: the value
//! a figure draws beside a metric ([`predicted`]) from each row's
//! [`RowModel`] (computed in `row_model`), and the words that say where
//! model and measurement agree and where they part ([`sentences`]),
//! computed from the table, never written by hand.

use netlab_experiment::ModelKind;

use crate::row_model::{RowModel, BBR_CONVERGED, SPARSE_SHARE};
use crate::sweep::{Measured, SweepMetric, SweepTable};
use netlab_stats::fmt_num;

/// What a model predicts for `metric` in this row, in the metric's unit:
/// model 2's delays and new-flow share; model 1's bound plus the base RTT
/// on the RTT figures, plus half of it on the one-way ones.
pub(crate) fn predicted(m: &RowModel, metric: SweepMetric) -> Option<f64> {
    let fifo = |share: f64| m.fifo_bound_ms.map(|b| b + m.base_rtt_ms * share);
    match metric {
        SweepMetric::RttP50 | SweepMetric::RttP95 => fifo(1.0),
        SweepMetric::IsoUpP50 => m.sparse_iso_up_p50_ms.or_else(|| fifo(0.5)),
        SweepMetric::IsoUpP99 => m.sparse_iso_up_p99_ms.or_else(|| fifo(0.5)),
        SweepMetric::NewFlowsPerProbe => m.sparse_new_flows_per_probe_packet,
        SweepMetric::SignalProb => m.law_signal_probability,
        SweepMetric::FlowQueueDelay => m.aqm_target_ms,
        // Not drawn where the flows had not settled (model 4's range).
        SweepMetric::BbrShare => m.model_bbr_share.filter(|_| m.bbr_converged != Some(false)),
        _ => None,
    }
}

impl RowModel {
    /// The model's range for `metric`: (low, high), equal unless the model
    /// gives two levels (model 2's p50 in the alternating regime).
    pub fn predicted_range(&self, metric: SweepMetric) -> Option<(f64, f64)> {
        let m = self;
        let v = predicted(m, metric)?;
        let hi = match metric {
            SweepMetric::IsoUpP50 => m.sparse_iso_up_p50_upper_ms.unwrap_or(v),
            _ => v,
        };
        Some((v, hi))
    }
}

impl RowModel {
    /// Which model a row's prediction of `metric` comes from (the figure's
    /// legend names it).
    pub fn which(&self, metric: SweepMetric) -> Option<ModelKind> {
        let m = self;
        predicted(m, metric)?;
        match metric {
            SweepMetric::RttP50 | SweepMetric::RttP95 => Some(ModelKind::FifoBound),
            SweepMetric::SignalProb | SweepMetric::FlowQueueDelay => Some(ModelKind::AqmLaw),
            SweepMetric::BbrShare => Some(ModelKind::BbrShare),
            _ if m.sparse_boundary_n.is_some() => Some(ModelKind::SparseFlow),
            _ => Some(ModelKind::FifoBound),
        }
    }
}

impl SweepTable {
    /// Model 2's N* of a panel's arm, in the flows axis' units (the median
    /// over its rows; None when the axis' value is not the bulk-flow count).
    pub fn boundary_on_axis(&self, axis: usize, held: &[String], arm: &str) -> Option<f64> {
        let table = self;
        let ax = table.axes.get(axis)?;
        let rows: Vec<_> = table
            .rows
            .iter()
            .filter(|r| r.arm == arm && r.error.is_none() && table.held_of(r, axis) == held)
            .collect();
        let same_units = rows.iter().all(|r| {
            let n = r.model.as_ref().and_then(|m| m.bulk_flows).map(f64::from);
            n.is_some() && n == ax.position(&r.axis_values[axis])
        });
        if ax.name != "flows" || !same_units {
            return None;
        }
        let mut n: Vec<f64> = rows
            .iter()
            .filter_map(|r| r.model.as_ref()?.sparse_boundary_n)
            .collect();
        netlab_stats::lower_median(&mut n)
    }
}

/// An axis position as the file writes a count: `8`, `8.5`.
fn number(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        fmt_num(x)
    }
}

/// `+0.40 to +0.86 ms`, `+0.40 ms`.
fn range_text(v: &[f64], unit: &str) -> String {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s = |x: f64| format!("{}{}", if x >= 0.0 { "+" } else { "−" }, fmt_num(x.abs()));
    if (hi - lo).abs() < 1e-12 {
        format!("{} {unit}", s(lo))
    } else {
        format!("{} to {} {unit}", s(lo), s(hi))
    }
}

impl SweepTable {
    /// Where the models and the measurement agree and part, one sentence per
    /// model, arm and value of the other axes (empty without a model).
    pub fn model_sentences(&self) -> Vec<String> {
        let table = self;
        let mut out = Vec::new();
        if table.rows.iter().all(|r| r.model.is_none()) {
            return out;
        }
        if let Some(axis) = table.axes.iter().position(|a| a.name == "flows") {
            out.extend(sparse_sentences(table, axis));
            out.extend(law_sentences(table, axis));
        }
        if let Some(axis) = table.axes.iter().position(|a| a.name == "buffer_bdp") {
            out.extend(bbr_sentences(table, axis));
        }
        out.extend(fifo_sentences(table));
        out
    }
}

/// Within this many of the link either way, model 4's share and the
/// measured one are said to agree.
pub(crate) const BBR_AGREEMENT: f64 = 0.1;

/// Model 4 at one point of `arm`'s panel: when every round there had not
/// settled (its halves more than [`BBR_CONVERGED`] apart), the words for
/// it (`X = 2 (0.710 → 0.548)`) and the model's value as text.
fn unsettled_at(
    table: &SweepTable,
    arm: &str,
    held: &[String],
    axis: usize,
    x: f64,
) -> Option<(String, String)> {
    let rows: Vec<&RowModel> = table
        .rows
        .iter()
        .filter(|o| o.arm == arm && o.error.is_none())
        .filter(|o| table.held_of(o, axis) == held)
        .filter(|o| table.axes[axis].position(&o.axis_values[axis]) == Some(x))
        .filter_map(|o| o.model.as_ref())
        .collect();
    if rows.is_empty() || rows.iter().any(|m| m.bbr_converged != Some(false)) {
        return None;
    }
    let moved: Vec<String> = rows
        .iter()
        .filter_map(|m| m.bbr_share_halves)
        .map(|[a, b]| format!("{} → {}", fmt_num(a), fmt_num(b)))
        .collect();
    let model = rows
        .iter()
        .find_map(|m| m.model_bbr_share)
        .map_or_else(|| "—".to_string(), fmt_num);
    Some((format!("X = {} ({})", number(x), moved.join(", ")), model))
}

/// Model 4 along the buffer axis, one sentence per arm and held values:
/// BBR's measured share from the first X to the last, and each round's
/// difference from the model (Ware et al. in a FIFO, the fair share under
/// flow queueing), agreeing within [`BBR_AGREEMENT`] or parting.
fn bbr_sentences(table: &SweepTable, axis: usize) -> Vec<String> {
    let mut out = Vec::new();
    let panels = table.series(SweepMetric::BbrShare, axis);
    for panel in &panels {
        for arm in &panel.arms {
            let at = if panel.held.is_empty() {
                String::new()
            } else {
                format!(" at {}", panel.held.join(", "))
            };
            let pts: Vec<(f64, f64)> = arm
                .points
                .iter()
                .filter_map(|p| Some((p.x, p.summary?.level())))
                .collect();
            let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
                continue;
            };
            let mut agree = Vec::new();
            let mut part = Vec::new();
            let mut none = Vec::new();
            let mut unsettled = Vec::new();
            let mut model = Vec::new();
            for &(x, _) in &pts {
                if let Some((said, m)) = unsettled_at(table, &arm.arm, &panel.held, axis, x) {
                    unsettled.push(said);
                    model.push(m);
                    continue;
                }
                let pairs: Vec<(f64, Option<f64>)> = table
                    .rows
                    .iter()
                    .filter(|o| o.arm == arm.arm && o.error.is_none())
                    .filter(|o| table.held_of(o, axis) == panel.held)
                    .filter(|o| table.axes[axis].position(&o.axis_values[axis]) == Some(x))
                    .filter(|o| o.model.as_ref().and_then(|m| m.bbr_converged) != Some(false))
                    .filter_map(|o| {
                        let measured = o.metrics.bbr_share?.level();
                        Some((measured, o.model.as_ref()?.model_bbr_share))
                    })
                    .collect();
                let Some(m) = pairs.iter().find_map(|(_, m)| *m) else {
                    none.push(number(x));
                    model.push("—".to_string());
                    continue;
                };
                model.push(fmt_num(m));
                let diffs: Vec<f64> = pairs.iter().filter_map(|(v, m)| m.map(|m| v - m)).collect();
                let said = format!("X = {} ({})", number(x), range_text(&diffs, ""));
                if diffs.iter().all(|d| d.abs() <= BBR_AGREEMENT) {
                    agree.push(said.trim_end().to_string());
                } else {
                    part.push(said.trim_end().to_string());
                }
            }
            let mut verdict = Vec::new();
            if !agree.is_empty() {
                verdict.push(format!(
                    "agree within {} at {}",
                    fmt_num(BBR_AGREEMENT),
                    agree.join(", ")
                ));
            }
            if !part.is_empty() {
                verdict.push(format!("part at {}", part.join(", ")));
            }
            if !none.is_empty() {
                verdict.push(format!("no model at X = {}", none.join(", ")));
            }
            if !unsettled.is_empty() {
                verdict.push(format!(
                    "not compared where the share had not settled, its two window halves more than {} apart: {}",
                    fmt_num(BBR_CONVERGED),
                    unsettled.join(", ")
                ));
            }
            out.push(format!(
                "bbr_share, {}{at}: BBR's share of the upload goodput went from {} at X = {} BDP to {} at X = {}; \
                 the model gives {} (measured − model: {}).",
                arm.arm,
                fmt_num(first.1),
                number(first.0),
                fmt_num(last.1),
                number(last.0),
                model.join(", "),
                verdict.join("; ")
            ));
        }
    }
    out
}

/// Within this factor either way, model 3's p and the measured one are
/// said to agree (the quick run's codel and fq_codel rows at N = 1 and 4
/// came within 1.25; docs/models.md).
pub(crate) const LAW_AGREEMENT: f64 = 1.5;

/// The smallest and largest of `v` (NaN, NaN when empty).
fn range_of(v: &[f64]) -> (f64, f64) {
    (
        v.iter().copied().fold(f64::INFINITY, f64::min),
        v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

/// A probability with two significant digits below 0.01 (`0.00031`),
/// three decimals above (`0.263`).
fn prob(x: f64) -> String {
    if x <= 0.0 || x >= 0.01 {
        return format!("{x:.3}");
    }
    let decimals = (-x.log10()).ceil() as usize + 1;
    format!("{x:.decimals$}")
}

/// The least-squares slope of log y against log x (None below two
/// points or without spread in x).
fn log_log_slope(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// Model 3 along the flows axis, one sentence per arm and held values:
/// the flows' queueing delay from the first N to the last against the
/// arm's target, the measured p with its log–log slope, and where the law
/// at the measured RTT agrees (within [`LAW_AGREEMENT`]) or parts.
fn law_sentences(table: &SweepTable, axis: usize) -> Vec<String> {
    let mut out = Vec::new();
    let p_panels = table.series(SweepMetric::SignalProb, axis);
    let q_panels = table.series(SweepMetric::FlowQueueDelay, axis);
    let mut seen: Vec<(Vec<String>, String)> = Vec::new();
    for r in table.rows.iter().filter(|r| {
        r.model
            .as_ref()
            .is_some_and(|m| m.law_window_packets.is_some())
    }) {
        let held = table.held_of(r, axis);
        if seen.contains(&(held.clone(), r.arm.clone())) {
            continue;
        }
        seen.push((held.clone(), r.arm.clone()));
        let arm_of = |panels: &[crate::sweep::Panel]| {
            panels
                .iter()
                .find(|p| p.held == held)
                .and_then(|p| p.arms.iter().find(|a| a.arm == r.arm))
                .map(|a| {
                    a.points
                        .iter()
                        .filter_map(|p| Some((p.x, p.summary?.level())))
                        .collect::<Vec<(f64, f64)>>()
                })
                .unwrap_or_default()
        };
        let (p, q) = (arm_of(&p_panels), arm_of(&q_panels));
        let (Some(p_first), Some(p_last)) = (p.first(), p.last()) else {
            continue;
        };
        let rows_at = |x: f64| -> Vec<&RowModel> {
            table
                .rows
                .iter()
                .filter(|o| o.arm == r.arm && o.error.is_none())
                .filter(|o| table.held_of(o, axis) == held)
                .filter(|o| table.axes[axis].position(&o.axis_values[axis]) == Some(x))
                .filter_map(|o| o.model.as_ref())
                .collect()
        };
        let target = rows_at(p_first.0).iter().find_map(|m| m.aqm_target_ms);
        let at = if held.is_empty() {
            String::new()
        } else {
            format!(" at {}", held.join(", "))
        };
        let delay = match (q.first(), q.last()) {
            (Some(a), Some(b)) => format!(
                "the flows' queueing delay went from {} ms at N = {} to {} ms at N = {}{}",
                fmt_num(a.1),
                number(a.0),
                fmt_num(b.1),
                number(b.0),
                target.map_or_else(String::new, |t| format!(" (target {} ms)", fmt_num(t)))
            ),
            _ => "no tcp_info RTT in the window".to_string(),
        };
        let slope = log_log_slope(&p)
            .map_or_else(String::new, |s| format!(", log–log slope {}", fmt_num(s)));
        let (model, verdict) = law_verdict(table, axis, &held, &r.arm, &p);
        out.push(format!(
            "aqm_law, {}{at}: {delay}, while its congestion-signal probability went from {} at N = {} to {} at N = {}{slope}; \
             Mathis at each round's measured RTT predicts {} (each round's measured ÷ model: {}).",
            r.arm,
            prob(p_first.1),
            number(p_first.0),
            prob(p_last.1),
            number(p_last.0),
            model.join(", "),
            verdict
        ));
    }
    out
}

/// Model 3's predictions at each N of `arm`'s series `p` (a range over
/// its rounds) and the words on them: round by round, each round's p
/// against the law at its own RTT, agreeing within [`LAW_AGREEMENT`] or
/// parting, and the N out of the law's range.
fn law_verdict(
    table: &SweepTable,
    axis: usize,
    held: &[String],
    arm: &str,
    p: &[(f64, f64)],
) -> (Vec<String>, String) {
    let mut agree = Vec::new();
    let mut part = Vec::new();
    let mut out_of_range = Vec::new();
    let mut model = Vec::new();
    for &(x, _) in p {
        let pairs: Vec<(f64, Option<f64>)> = table
            .rows
            .iter()
            .filter(|o| o.arm == arm && o.error.is_none())
            .filter(|o| table.held_of(o, axis) == held)
            .filter(|o| table.axes[axis].position(&o.axis_values[axis]) == Some(x))
            .filter_map(|o| {
                let measured = o.metrics.signal_probability?.level();
                Some((measured, o.model.as_ref()?.law_signal_probability))
            })
            .collect();
        let laws: Vec<f64> = pairs.iter().filter_map(|(_, l)| *l).collect();
        if laws.len() < pairs.len() || laws.is_empty() {
            out_of_range.push(number(x));
        }
        if laws.is_empty() {
            model.push("—".to_string());
            continue;
        }
        let (lo, hi) = range_of(&laws);
        model.push(if prob(hi) != prob(lo) {
            format!("{}–{}", prob(lo), prob(hi))
        } else {
            prob(lo)
        });
        let ratios: Vec<f64> = pairs.iter().filter_map(|(m, l)| l.map(|l| m / l)).collect();
        let (rlo, rhi) = range_of(&ratios);
        let said = if fmt_num(rhi) != fmt_num(rlo) {
            format!("N = {} ({}–{}×)", number(x), fmt_num(rlo), fmt_num(rhi))
        } else {
            format!("N = {} ({}×)", number(x), fmt_num(rlo))
        };
        if rhi <= LAW_AGREEMENT && rlo >= 1.0 / LAW_AGREEMENT {
            agree.push(said);
        } else {
            part.push(said);
        }
    }
    let mut verdict = Vec::new();
    if !agree.is_empty() {
        verdict.push(format!(
            "agree within {}× at {}",
            fmt_num(LAW_AGREEMENT),
            agree.join(", ")
        ));
    }
    if !part.is_empty() {
        verdict.push(format!("part at {}", part.join(", ")));
    }
    if !out_of_range.is_empty() {
        verdict.push(format!(
            "out of the law's range (W < 2) at N = {}",
            out_of_range.join(", ")
        ));
    }
    (model, verdict.join("; "))
}

/// Model 2 along the flows axis: the measured boundary from the new-flow
/// share against N*, then each delay quantile against the model's, on
/// either side of N*.
fn sparse_sentences(table: &SweepTable, axis: usize) -> Vec<String> {
    let mut out = Vec::new();
    let panels = table.series(SweepMetric::NewFlowsPerProbe, axis);
    let delay_panels: Vec<_> = [SweepMetric::IsoUpP50, SweepMetric::IsoUpP99]
        .map(|m| (m, table.series(m, axis)))
        .into_iter()
        .collect();
    let mut seen: Vec<(Vec<String>, String)> = Vec::new();
    for r in table.rows.iter().filter(|r| {
        r.model
            .as_ref()
            .is_some_and(|m| m.sparse_boundary_n.is_some())
    }) {
        let held = table.held_of(r, axis);
        if seen.contains(&(held.clone(), r.arm.clone())) {
            continue;
        }
        seen.push((held.clone(), r.arm.clone()));
        let Some(nstar) = table.boundary_on_axis(axis, &held, &r.arm) else {
            continue;
        };
        let at = if held.is_empty() {
            String::new()
        } else {
            format!(" at {}", held.join(", "))
        };
        let share = panels
            .iter()
            .find(|p| p.held == held)
            .and_then(|p| p.arms.iter().find(|a| a.arm == r.arm));
        let boundary = match share {
            Some(s) if !s.points.is_empty() => boundary_words(s, nstar),
            _ => format!(
                "no new_flow_count read back, so the measured boundary is not located; model N* = {}",
                fmt_num(nstar)
            ),
        };
        out.push(format!("sparse_flow, {}{at}: {boundary}.", r.arm));
        for (m, panels) in &delay_panels {
            if let Some(words) = delay_words(table, axis, &held, &r.arm, *m, panels, nstar) {
                out.push(format!("sparse_flow, {}{at}: {words}.", r.arm));
            }
        }
    }
    out
}

/// `measured boundary between N = 8 and N = 10 (new flows per probe
/// packet 1.00 → 0.50); model N* = 8.26: within one step`.
fn boundary_words(s: &crate::sweep::ArmSeries, nstar: f64) -> String {
    let share: Vec<(f64, f64)> = s
        .points
        .iter()
        .filter_map(|p| Some((p.x, p.summary?.level())))
        .collect();
    let xs: Vec<f64> = share.iter().map(|(x, _)| *x).collect();
    let n = number;
    let star = fmt_num(nstar);
    let crossing = share
        .windows(2)
        .find(|w| w[0].1 >= SPARSE_SHARE && w[1].1 < SPARSE_SHARE);
    match crossing {
        Some(w) => {
            let (lo, hi) = (w[0].0, w[1].0);
            let verdict = if nstar >= lo && nstar <= hi {
                "within one step".to_string()
            } else {
                let steps = xs
                    .iter()
                    .filter(|x| (**x > nstar && **x <= lo) || (**x >= hi && **x < nstar))
                    .count();
                format!(
                    "{} by {steps} step{} of N: they part",
                    if nstar < lo { "below it" } else { "above it" },
                    if steps == 1 { "" } else { "s" }
                )
            };
            format!(
                "measured boundary between N = {} and N = {} (new flows per probe packet, {}, {} → {}); model N* = {star}: {verdict}",
                n(lo),
                n(hi),
                crate::sweep::PointValues::summary_words(&s.points),
                fmt_num(w[0].1),
                fmt_num(w[1].1)
            )
        }
        None if share.iter().all(|(_, v)| *v >= SPARSE_SHARE) => format!(
            "sparse at every N measured (new flows per probe packet ≥ {SPARSE_SHARE} up to N = {}); model N* = {star}: {}",
            xs.last().map_or_else(String::new, |x| n(*x)),
            if xs.last().is_some_and(|x| *x < nstar) { "agree (N* beyond the sweep)" } else { "they part (the model expected the probe to stop being sparse inside the sweep)" }
        ),
        None => format!(
            "no sparse-to-shared crossing of new flows per probe packet at {SPARSE_SHARE} (from {}); model N* = {star}",
            share.first().map_or_else(String::new, |(_, v)| fmt_num(*v)),
        ),
    }
}

/// `loaded … p99 minus the model: N ≤ 8 (sparse) +0.40 to +0.86 ms; N ≥ 10
/// (beyond N*) +0.39 to +8.8 ms`, over every round's value.
fn delay_words(
    table: &SweepTable,
    axis: usize,
    held: &[String],
    arm: &str,
    metric: SweepMetric,
    panels: &[crate::sweep::Panel],
    nstar: f64,
) -> Option<String> {
    let series = panels
        .iter()
        .find(|p| p.held == held)?
        .arms
        .iter()
        .find(|a| a.arm == arm)?;
    let model_at = |x: f64| -> Option<(f64, f64)> {
        table
            .rows
            .iter()
            .filter(|r| r.arm == arm && table.held_of(r, axis) == held)
            .filter(|r| table.axes[axis].position(&r.axis_values[axis]) == Some(x))
            .find_map(|r| r.model.as_ref()?.predicted_range(metric))
    };
    let mut parts = Vec::new();
    for (below, side) in [(true, "sparse"), (false, "beyond N*")] {
        let pts: Vec<_> = series
            .points
            .iter()
            .filter(|p| (p.x < nstar) == below)
            .collect();
        let mut diff = Vec::new();
        let mut censored = 0;
        let mut inside = 0;
        let mut ranged = false;
        for p in &pts {
            let Some((lo, hi)) = model_at(p.x) else {
                continue;
            };
            ranged |= hi > lo;
            for d in &p.rounds {
                match d.value {
                    // Off the model's range by this much (0 inside it).
                    Measured::Value(v) if v < lo => diff.push(v - lo),
                    Measured::Value(v) if v > hi => diff.push(v - hi),
                    Measured::Value(_) => {
                        diff.push(0.0);
                        inside += 1;
                    }
                    Measured::AtLeast(_) => censored += 1,
                }
            }
        }
        if diff.is_empty() {
            continue;
        }
        let xs: Vec<String> = pts.iter().map(|p| number(p.x)).collect();
        let ns = match (xs.first(), xs.last()) {
            (Some(a), Some(b)) if a != b => format!("N = {a}–{b}"),
            (Some(a), _) => format!("N = {a}"),
            _ => continue,
        };
        let cens = if censored > 0 {
            format!(", {censored} censored round(s) left out")
        } else {
            String::new()
        };
        let off: Vec<f64> = diff.iter().copied().filter(|d| *d != 0.0).collect();
        let words = if !ranged {
            range_text(&diff, "ms")
        } else if off.is_empty() {
            format!("every round ({inside}) between the model's two levels")
        } else {
            format!(
                "{inside} of {} rounds between the model's two levels, the others off the nearer level by {}",
                diff.len(),
                range_text(&off, "ms")
            )
        };
        parts.push(format!("{ns} ({side}) {words}{cens}"));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "{} minus the model, every round: {}",
            metric.name(),
            parts.join("; ")
        )
    })
}

/// `v`'s range in `unit`: `2.5 ms`, or `2.5–3 ms`.
fn span(v: &[f64], unit: &str) -> String {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if hi - lo < 1e-9 {
        format!("{} {unit}", fmt_num(lo))
    } else {
        format!("{}–{} {unit}", fmt_num(lo), fmt_num(hi))
    }
}

/// Model 1 per pfifo arm: where the delay figures' values lie against
/// the FIFO bound (plus the base RTT the metric carries). A censored
/// value below the bound is not placed: only that it is at least its
/// bound is known.
fn fifo_sentences(table: &SweepTable) -> Vec<String> {
    let mut out = Vec::new();
    let mut arms: Vec<&str> = Vec::new();
    for r in &table.rows {
        if r.model.as_ref().is_some_and(|m| m.fifo_bound_ms.is_some())
            && !arms.contains(&r.arm.as_str())
        {
            arms.push(&r.arm);
        }
    }
    let metric = [SweepMetric::RttP95, SweepMetric::IsoUpP99]
        .into_iter()
        .find(|m| table.rows.iter().any(|r| r.metrics.get(*m).is_some()));
    let Some(metric) = metric else {
        return out;
    };
    for arm in arms {
        let (mut below, mut above, mut unplaced) = (Vec::new(), Vec::new(), 0usize);
        let (mut bounds, mut sizes, mut limits, mut sources) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for r in table
            .rows
            .iter()
            .filter(|r| r.arm == arm && r.error.is_none())
        {
            let Some(m) = r.model.as_ref() else { continue };
            let (Some(bound), Some(v)) = (predicted(m, metric), r.metrics.get(metric)) else {
                continue;
            };
            bounds.extend(m.fifo_bound_ms);
            sizes.extend(m.packet_bytes.map(|b| b as f64));
            for (list, item) in [
                (&mut limits, m.fifo_limit_packets.map(|l| l.to_string())),
                (&mut sources, m.packet_source.clone()),
            ] {
                if let Some(item) = item.filter(|i| !list.contains(i)) {
                    list.push(item);
                }
            }
            let ratio = v.level() / bound;
            match v {
                Measured::Value(_) if ratio <= 1.0 => below.push(ratio),
                Measured::AtLeast(_) if ratio <= 1.0 => unplaced += 1,
                _ => above.push(format!(
                    "scenario {} ({}, {}{}×)",
                    r.scenario,
                    r.point_label,
                    if matches!(v, Measured::AtLeast(_)) {
                        "≥ "
                    } else {
                        ""
                    },
                    fmt_num(ratio)
                )),
            }
        }
        if bounds.is_empty() {
            continue;
        }
        let mut words = vec![format!(
            "fifo_bound, {arm}: limit {} packets × L = {} ({}) at each point's rate: {} of queueing delay",
            limits.join(", "),
            span(&sizes, "B"),
            sources.join(", "),
            span(&bounds, "ms")
        )];
        if !below.is_empty() {
            let max = below.iter().copied().fold(0.0f64, f64::max);
            words.push(format!(
                "{} round(s)' {} below it (plus the base RTT it carries), the highest at {} % of it",
                below.len(),
                metric.name(),
                (max * 100.0).round()
            ));
        }
        if unplaced > 0 {
            words.push(format!(
                "{unplaced} round(s) censored below the bound (at least the probe's timeout), not placed against it"
            ));
        }
        if above.is_empty() {
            words.push(if unplaced == 0 {
                "none above it: they agree".into()
            } else {
                "none known to be above it".into()
            });
        } else {
            let n = above.len();
            above.truncate(6);
            words.push(format!(
                "{n} round(s) above it, so the queue held larger skbs than L, or the delay is not the queue's alone: they part at {}",
                above.join(", ")
            ));
        }
        out.push(format!("{}.", words.join("; ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::{ArmSeries, PointValues};

    /// One arm's new-flow share at N = 2, 4, 8, 10 (one round each).
    fn share(v: [f64; 4]) -> ArmSeries {
        ArmSeries {
            arm: "fq_codel".into(),
            points: [2.0, 4.0, 8.0, 10.0]
                .into_iter()
                .zip(v)
                .enumerate()
                .map(|(i, (x, v))| PointValues {
                    x,
                    point: i as u32 + 1,
                    rounds: Vec::new(),
                    summary: Some(Measured::Value(v)),
                })
                .collect(),
        }
    }

    #[test]
    fn the_boundary_words_follow_the_data() {
        let s = share([1.0, 1.0, 0.5, 0.5]);
        let w = boundary_words(&s, 5.0);
        assert!(w.contains("between N = 4 and N = 8"), "{w}");
        assert!(w.ends_with("model N* = 5.00: within one step"), "{w}");
        let w = boundary_words(&s, 9.0);
        assert!(w.ends_with("above it by 1 step of N: they part"), "{w}");
        let w = boundary_words(&s, 1.5);
        assert!(w.ends_with("below it by 2 steps of N: they part"), "{w}");
        let w = boundary_words(&share([1.0, 1.0, 0.99, 0.98]), 12.0);
        assert!(w.contains("sparse at every N measured"), "{w}");
        assert!(w.ends_with("agree (N* beyond the sweep)"), "{w}");
        let w = boundary_words(&share([1.0, 1.0, 0.99, 0.98]), 6.0);
        assert!(w.ends_with("inside the sweep)"), "{w}");
        assert_eq!(range_text(&[0.4, -0.2], "ms"), "−0.200 to +0.400 ms");
        assert_eq!(number(10.0), "10");
    }
}

#[cfg(test)]
mod convergence_tests {
    use super::*;

    /// Model 4 is drawn only where BBR's share had settled: a row whose
    /// window halves part by more than [`BBR_CONVERGED`] gets no model
    /// point, one that settled (or has no halves) keeps it.
    #[test]
    fn the_bbr_model_is_not_drawn_where_the_share_had_not_settled() {
        let row = |halves: Option<[f64; 2]>| RowModel {
            model_bbr_share: Some(0.785),
            bbr_share_halves: halves,
            bbr_converged: halves.map(|[a, b]| (a - b).abs() <= BBR_CONVERGED),
            ..RowModel::default()
        };
        let moving = row(Some([0.710, 0.548]));
        assert_eq!(moving.bbr_converged, Some(false));
        assert_eq!(predicted(&moving, SweepMetric::BbrShare), None);
        let settled = row(Some([0.877, 0.881]));
        assert_eq!(settled.bbr_converged, Some(true));
        assert_eq!(predicted(&settled, SweepMetric::BbrShare), Some(0.785));
        assert_eq!(predicted(&row(None), SweepMetric::BbrShare), Some(0.785));
    }
}
