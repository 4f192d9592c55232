//! Was the shaper the bottleneck? (docs/method.md §14.2) A verdict per
//! shaped direction from the TBF's own counters over the measured window,
//! the goodput against the configured rate and the CPU the window used;
//! recorded in results.json beside the evidence it rests on.
//!
//! Pure: [`judge`] takes the scenario's recorded samples and the two CPU
//! snapshots the runner took at the window's start and end.

use netlab_os::cpu::CpuSnapshot;
use netlab_qdisc_model::QdiscStats;
use serde::{Deserialize, Serialize};

use crate::queue_seen::{in_window, measured_window, rate_bps_of};
use crate::{QdiscResult, ScenarioResult};

/// Goodput at or above this share of the configured rate: the path
/// delivered what the shaper allows.
pub const GOODPUT_SHARE_MIN: f64 = 0.90;
/// A CPU busy for at least this share of the window is saturated.
pub const CORE_SATURATED_BUSY: f64 = 0.95;
/// A sample in which the TBF holds at least this much time at its rate
/// (backlog bytes × 8 ÷ rate) counts as the shaper holding a queue.
pub const HELD_QUEUE_MIN_S: f64 = 0.001;
/// The shaper held a queue when at least this share of the window's
/// samples did, or when its arm dropped or marked in the window.
pub const HELD_QUEUE_MIN_SHARE: f64 = 0.10;

/// What limited a direction's throughput.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The shaper: the path delivered its rate, or, with no CPU
    /// saturated, the shaper held a queue (the senders were answering it).
    ShaperBound,
    /// Neither goodput nor the TBF's output reached the rate, and a CPU
    /// was saturated.
    Cpu,
    /// Goodput fell short of the rate while the shaper held no queue and
    /// no CPU was saturated: something else (the veths, the senders'
    /// windows) limited it.
    OtherThanShaper,
    /// No shaper in this direction: nothing to hold a queue.
    Unshaped,
}

impl Verdict {
    /// In words, for the summary and the report.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::ShaperBound => "shaper-bound",
            Verdict::Cpu => "limited by something other than the shaper: CPU",
            Verdict::OtherThanShaper => {
                "limited by something other than the shaper: not the CPU (veth or sender; unknown)"
            }
            Verdict::Unshaped => "unshaped: no shaper to be the bottleneck",
        }
    }
}

/// The CPU the measured window used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuUse {
    /// Length of the span the two snapshots cover, s.
    pub span_s: f64,
    /// netlab's own process (every role's threads), user time, s.
    pub netlab_user_s: f64,
    /// netlab's own process, system time, s (softirq work the kernel did
    /// in its threads' context included).
    pub netlab_system_s: f64,
    /// Each CPU's busy share over the span (0–1), whoever used it.
    pub cpu_busy: Vec<f64>,
}

impl CpuUse {
    /// The use between two snapshots of the same machine.
    pub fn between(start: &CpuSnapshot, end: &CpuSnapshot) -> CpuUse {
        let hz = start.ticks_per_s.max(1) as f64;
        let ticks = |a: u64, b: u64| b.saturating_sub(a) as f64 / hz;
        let cpu_busy = start
            .cpus
            .iter()
            .zip(&end.cpus)
            .map(|(a, b)| {
                let busy = b.busy.saturating_sub(a.busy) as f64;
                let idle = b.idle.saturating_sub(a.idle) as f64;
                if busy + idle > 0.0 {
                    busy / (busy + idle)
                } else {
                    0.0
                }
            })
            .collect();
        CpuUse {
            span_s: end.at.saturating_duration_since(start.at).as_secs_f64(),
            netlab_user_s: ticks(start.process_user, end.process_user),
            netlab_system_s: ticks(start.process_system, end.process_system),
            cpu_busy,
        }
    }

    /// netlab's CPU time over the span, in CPUs (1.0: one CPU all along).
    pub fn netlab_cpus(&self) -> f64 {
        if self.span_s > 0.0 {
            (self.netlab_user_s + self.netlab_system_s) / self.span_s
        } else {
            0.0
        }
    }

    /// The busiest CPU's share.
    pub fn busiest(&self) -> f64 {
        self.cpu_busy.iter().copied().fold(0.0, f64::max)
    }

    /// Whether a CPU was saturated ([`CORE_SATURATED_BUSY`]).
    pub fn saturated(&self) -> bool {
        self.busiest() >= CORE_SATURATED_BUSY
    }
}

/// One direction's verdict and the numbers it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectionBottleneck {
    /// `up` or `down`.
    pub direction: String,
    /// What limited it.
    pub verdict: Verdict,
    /// The configured rate, Mbit/s (`None`: unshaped).
    pub rate_mbps: Option<f64>,
    /// The direction's goodput over the window, Mbit/s.
    pub goodput_mbps: Option<f64>,
    /// What the TBF itself sent between the window's first and last
    /// samples (its `bytes` counter), Mbit/s: the wire's rate, which a
    /// short window's goodput can understate (bytes held in the
    /// receiver's out-of-order queue across a loss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tbf_sent_mbps: Option<f64>,
    /// TBF samples inside the window.
    pub tbf_samples: usize,
    /// Of those, samples holding at least [`HELD_QUEUE_MIN_S`] at the rate.
    pub tbf_samples_queued: usize,
    /// The largest TBF backlog in a window sample, bytes.
    pub tbf_backlog_max_bytes: Option<u32>,
    /// TBF overlimits over the window (dequeues that found too few tokens).
    pub tbf_overlimits: Option<u64>,
    /// TBF requeues over the window.
    pub tbf_requeues: Option<u64>,
    /// The arm's drops plus ECN marks over the window (the congestion
    /// signals its queue sent), where its kind counts marks.
    pub arm_signals: Option<u64>,
}

impl DirectionBottleneck {
    /// Goodput ÷ rate.
    pub fn goodput_share(&self) -> Option<f64> {
        match (self.goodput_mbps, self.rate_mbps) {
            (Some(g), Some(r)) if r > 0.0 => Some(g / r),
            _ => None,
        }
    }

    /// What the TBF sent ÷ rate.
    pub fn sent_share(&self) -> Option<f64> {
        match (self.tbf_sent_mbps, self.rate_mbps) {
            (Some(g), Some(r)) if r > 0.0 => Some(g / r),
            _ => None,
        }
    }

    /// Whether the path delivered the rate: goodput or the TBF's own
    /// output at least [`GOODPUT_SHARE_MIN`] of it.
    pub fn delivered_rate(&self) -> bool {
        [self.goodput_share(), self.sent_share()]
            .into_iter()
            .flatten()
            .any(|s| s >= GOODPUT_SHARE_MIN)
    }

    /// Whether the shaper held a queue over the window.
    pub fn shaper_held_queue(&self) -> bool {
        let share = if self.tbf_samples > 0 {
            self.tbf_samples_queued as f64 / self.tbf_samples as f64
        } else {
            0.0
        };
        share >= HELD_QUEUE_MIN_SHARE || self.arm_signals.is_some_and(|n| n > 0)
    }
}

/// A scenario's verdicts (one per direction that carried flows) and the
/// CPU its window used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bottleneck {
    /// Per direction, up first.
    pub directions: Vec<DirectionBottleneck>,
    /// The CPU over the measured window (`None`: not read).
    pub cpu: Option<CpuUse>,
}

impl Bottleneck {
    /// Whether the comparison between arms at this scenario's point needs
    /// a flag: a direction not shaper-bound, or a saturated CPU.
    pub fn flags_comparison(&self) -> bool {
        self.cpu.as_ref().is_some_and(CpuUse::saturated)
            || self
                .directions
                .iter()
                .any(|d| !matches!(d.verdict, Verdict::ShaperBound | Verdict::Unshaped))
    }
}

/// The rule of docs/method.md §14.2 on one direction's evidence (its
/// `verdict` field is ignored and returned decided): the shaper was the
/// bottleneck when the path delivered its rate (goodput or the TBF's own
/// output); short of it, a saturated CPU was; else the shaper still was
/// when it held a queue (the senders answered its queue: the arm's or
/// the congestion control's under-use), and something else when it held
/// none. A saturated CPU beside a delivered rate is flagged by
/// [`Bottleneck::flags_comparison`], not hidden in the verdict.
pub fn verdict(d: &DirectionBottleneck, cpu: Option<&CpuUse>) -> Verdict {
    if d.rate_mbps.is_none() {
        Verdict::Unshaped
    } else if d.delivered_rate() {
        Verdict::ShaperBound
    } else if cpu.is_some_and(CpuUse::saturated) {
        Verdict::Cpu
    } else if d.shaper_held_queue() {
        Verdict::ShaperBound
    } else {
        Verdict::OtherThanShaper
    }
}

/// Counter growth between two readings (u32 counters wrap).
fn grew(a: u32, b: u32) -> u64 {
    u64::from(b.wrapping_sub(a))
}

/// The arm's drops and marks in one reading.
fn signals(r: &crate::SampledQdisc) -> Option<u32> {
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
    let tbf = |s: &crate::QdiscSample| -> Option<QdiscStats> {
        s.records
            .iter()
            .find(|r| r.kind == "tbf")
            .and_then(|r| r.stats)
    };
    let arm = |s: &crate::QdiscSample| {
        s.records
            .iter()
            .find(|r| r.handle == netlab_qdisc_model::ARM_HANDLE)
            .and_then(signals)
    };
    let samples: Vec<&crate::QdiscSample> = in_window(&q.samples, window).collect();
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

#[cfg(test)]
mod tests;
