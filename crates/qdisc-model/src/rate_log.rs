//! What a TBF whose rate moves did, as results.json keeps it
//! (docs/method.md §15.4): every change with its planned, sent and
//! acknowledged times, and the TBF's counters read after each change and
//! between them. Pure records; the driver that fills them is
//! netlab-qdisc's `rate_driver`.

use serde::{Deserialize, Serialize};

use crate::{Rate, SampleFailure};

/// One change of the TBF's rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateChange {
    /// When the schedule asked for it, seconds from t0.
    pub planned_s: f64,
    /// When the request left, seconds from t0 (absent: never sent).
    pub sent_s: Option<f64>,
    /// When the kernel's ACK came, seconds from t0 (absent: refused or
    /// never sent): the change is in force from here at the latest.
    pub applied_s: Option<f64>,
    /// The rate the TBF was given (an outage: [`RateChange::outage`] and
    /// the hold rate).
    pub rate: Rate,
    /// The schedule asked for no capacity: held at the smallest rate.
    #[serde(default)]
    pub outage: bool,
    /// Why the change failed, if it did (the kernel's refusal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl RateChange {
    /// ACK time − planned time, seconds (absent when never applied).
    pub fn lateness_s(&self) -> Option<f64> {
        self.applied_s.map(|a| a - self.planned_s)
    }
}

/// The TBF's counters and its child's backlog at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TbfReading {
    /// When the dump was answered, seconds from t0.
    pub at_s: f64,
    /// Bytes the TBF sent since it was made.
    pub bytes: u64,
    /// Packets the TBF sent.
    pub packets: u64,
    /// TBF's drops.
    pub drops: u32,
    /// TBF's overlimits (shaping events).
    pub overlimits: u32,
    /// The arm's backlog in bytes.
    pub arm_backlog_bytes: u32,
    /// The arm's queue length in packets (skbs).
    pub arm_qlen: u32,
}

/// Everything the driver of one direction did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RateLog {
    /// Every planned change, in time order, applied or not.
    pub changes: Vec<RateChange>,
    /// The counters after each change and every reading interval between.
    pub readings: Vec<TbfReading>,
    /// Readings that failed (kept, never dropped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<SampleFailure>,
    /// The interval between readings, ms.
    pub reading_every_ms: f64,
}

/// Nearest-rank quantiles of the changes' lateness, ms: `(p50, p99,
/// max, applied)`; `None` when no change was applied.
pub fn lateness_ms(changes: &[RateChange]) -> Option<(f64, f64, f64, usize)> {
    let mut v: Vec<f64> = changes
        .iter()
        .filter_map(|c| c.lateness_s())
        .map(|s| s * 1e3)
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    Some((rank(0.5), rank(0.99), v[v.len() - 1], v.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lateness_is_ack_minus_plan_with_nearest_rank_quantiles() {
        let c = |planned_s: f64, applied_s: Option<f64>| RateChange {
            planned_s,
            sent_s: applied_s,
            applied_s,
            rate: Rate(8),
            outage: true,
            error: None,
        };
        let changes: Vec<RateChange> = (0..100)
            .map(|i| c(i as f64, Some(i as f64 + (i + 1) as f64 * 1e-5)))
            .chain([c(200.0, None)])
            .collect();
        let (p50, p99, max, n) = lateness_ms(&changes).unwrap();
        assert_eq!(n, 100);
        assert!((p50 - 0.5).abs() < 1e-9, "{p50}");
        assert!((p99 - 0.99).abs() < 1e-9, "{p99}");
        assert!((max - 1.0).abs() < 1e-9, "{max}");
        assert_eq!(lateness_ms(&[c(1.0, None)]), None);
        let back: RateLog = serde_json::from_str(
            &serde_json::to_string(&RateLog {
                changes,
                ..RateLog::default()
            })
            .unwrap(),
        )
        .unwrap();
        assert_eq!(back.changes.len(), 101);
    }
}
