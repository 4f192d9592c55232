//! Was the shaper the bottleneck? (docs/method.md §14.2) A verdict per
//! shaped direction from the TBF's own counters over the measured window,
//! the goodput against the configured rate and the CPU the window used;
//! recorded in results.json beside the evidence it rests on.
//!
//! The verdict's types and the rule that gives it ([`verdict`]);
//! [`crate::judge`] reads the evidence from a scenario's recorded samples.

use netlab_os::cpu::CpuSnapshot;
use serde::{Deserialize, Serialize};

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

#[cfg(test)]
mod tests;
