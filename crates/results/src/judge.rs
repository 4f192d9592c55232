//! The shaper judged from one scenario's record (docs/method.md §14.2):
//! the TBF's own counters over the measured window, the goodput against
//! the configured rate and the CPU the window used, as a
//! [`Bottleneck`]. Pure: [`judge`] takes the scenario's recorded samples
//! and the CPU the runner measured between the window's start and end.

use netlab_qdisc_model::QdiscStats;

use crate::bottleneck::{
    verdict, Bottleneck, CpuUse, DirectionBottleneck, Verdict, HELD_QUEUE_MIN_S,
};
use crate::qdiscs::{QdiscResult, QdiscSample, SampledQdisc};
use crate::queue_seen::{in_window, measured_window, rate_bps_of};
use crate::ScenarioResult;

/// Counter growth between two readings (u32 counters wrap).
fn grew(a: u32, b: u32) -> u64 {
    u64::from(b.wrapping_sub(a))
}

/// The arm's drops and marks in one reading.
fn signals(r: &SampledQdisc) -> Option<u32> {
    use netlab_qdisc_model::QdiscXstats as X;
    let drops = r.stats?.drops;
    let marks = match r.xstats.as_ref() {
        Some(X::FqCodel(x)) => x.ecn_mark.wrapping_add(x.ce_mark),
        Some(X::Codel(x)) => x.ecn_mark.wrapping_add(x.ce_mark),
        Some(X::Cake(x)) => x.tins.iter().map(|t| t.ecn_marked_packets).sum(),
        _ => 0,
    };
    Some(drops.wrapping_add(marks))
}

/// The TBF evidence of one egress over `window`.
fn evidence_of(
    q: &QdiscResult,
    window: [f64; 2],
    rate_mbps: Option<f64>,
    goodput_mbps: Option<f64>,
) -> DirectionBottleneck {
    let tbf = |s: &QdiscSample| -> Option<QdiscStats> {
        s.records
            .iter()
            .find(|r| r.kind == "tbf")
            .and_then(|r| r.stats)
    };
    let arm = |s: &QdiscSample| {
        s.records
            .iter()
            .find(|r| r.handle == netlab_qdisc_model::ARM_HANDLE)
            .and_then(signals)
    };
    let samples: Vec<&QdiscSample> = in_window(&q.samples, window).collect();
    let stats: Vec<QdiscStats> = samples.iter().filter_map(|s| tbf(s)).collect();
    let timed: Vec<(f64, u64)> = samples
        .iter()
        .filter_map(|s| Some((s.t_s?, tbf(s)?.bytes)))
        .collect();
    let tbf_sent_mbps = match (timed.first(), timed.last()) {
        (Some(&(t0, b0)), Some(&(t1, b1))) if t1 > t0 => {
            Some(b1.saturating_sub(b0) as f64 * 8.0 / (t1 - t0) / 1e6)
        }
        _ => None,
    };
    let held_bytes = rate_mbps.map_or(f64::INFINITY, |r| r * 1e6 * HELD_QUEUE_MIN_S / 8.0);
    let (first, last) = (stats.first(), stats.last());
    let over = |f: fn(&QdiscStats) -> u32| first.zip(last).map(|(a, b)| grew(f(a), f(b)));
    let arm_first = samples.iter().find_map(|s| arm(s));
    let arm_last = samples.iter().rev().find_map(|s| arm(s));
    DirectionBottleneck {
        direction: q.direction.clone(),
        verdict: Verdict::ShaperBound,
        rate_mbps,
        goodput_mbps,
        tbf_sent_mbps,
        tbf_samples: stats.len(),
        tbf_samples_queued: stats
            .iter()
            .filter(|s| f64::from(s.backlog_bytes) >= held_bytes)
            .count(),
        tbf_backlog_max_bytes: stats.iter().map(|s| s.backlog_bytes).max(),
        tbf_overlimits: over(|s| s.overlimits),
        tbf_requeues: over(|s| s.requeues),
        arm_signals: arm_first.zip(arm_last).map(|(a, b)| grew(a, b)),
    }
}

/// The verdict of every direction that carried flows, from the scenario's
/// recorded samples and goodputs, with the CPU the window used.
pub fn judge(s: &ScenarioResult, cpu: Option<CpuUse>) -> Bottleneck {
    judge_in(s, measured_window(s), cpu)
}

/// [`judge`] over a given measured window (s from t0).
pub fn judge_in(s: &ScenarioResult, window: Option<[f64; 2]>, cpu: Option<CpuUse>) -> Bottleneck {
    let directions = s
        .directions
        .iter()
        .map(|d| {
            let rate = rate_bps_of(s, &d.direction).map(|b| b / 1e6);
            let mut e = match (s.qdisc_of(&d.direction), window) {
                (Some(q), Some(w)) => evidence_of(q, w, rate, d.goodput_mbps),
                _ => DirectionBottleneck {
                    direction: d.direction.clone(),
                    verdict: Verdict::ShaperBound,
                    rate_mbps: rate,
                    goodput_mbps: d.goodput_mbps,
                    tbf_sent_mbps: None,
                    tbf_samples: 0,
                    tbf_samples_queued: 0,
                    tbf_backlog_max_bytes: None,
                    tbf_overlimits: None,
                    tbf_requeues: None,
                    arm_signals: None,
                },
            };
            e.verdict = verdict(&e, cpu.as_ref());
            e
        })
        .collect();
    Bottleneck { directions, cpu }
}
