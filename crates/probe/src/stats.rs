//! Per-phase statistics of probe requests (pure).
//!
//! # Exact rules
//!
//! For the requests of one phase (by send time):
//! * `sent` = requests whose send succeeded and that completed:
//!   `sent == ok + timeouts`. Requests whose send failed (`send_errors`) or
//!   that were cut off by a stop (`abandoned`, also any still `Pending`) are
//!   counted separately and take no part in the quantiles.
//! * `p50_ms` / `p95_ms` use the successes only (their RTTs sorted
//!   ascending, `N = ok`): p50 is the **lower median**, rank
//!   `k = ceil(N/2)` (1-based; even N → the lower of the two middle values);
//!   p95 is the **nearest rank** `k = ceil(0.95·N)`, computed in integers as
//!   `(95·N + 99) / 100`. Both are `None` when `N = 0`. A timeout is never
//!   replaced by 1 s and no loss percentage is derived from timeouts (a
//!   timeout cannot tell loss from queueing beyond 1 s).
//! * The censoring-aware view (`p50_censored` / `p95_censored`) ranks ALL
//!   `M = sent` requests, a timeout standing for "≥ timeout" (≥ 1000 ms).
//!   Since every success has RTT < timeout, the timeouts sort after all
//!   successes, so with the same rank rules over `M` (`ceil(M/2)`,
//!   `ceil(0.95·M)`): if `k ≤ ok` the quantile is the k-th smallest success
//!   RTT ([`RankQuantile::Value`]); otherwise it falls on a timeout and
//!   only the bound is known ([`RankQuantile::AtLeast`] of the timeout,
//!   shown as "≥ 1000 ms (censored)"). `None` when `M = 0`.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::schedule::{Phase, ProbeRequest, RequestOutcome};

/// A nearest-rank quantile over every sent request, the timeouts censored
/// at the timeout: a measured value, or only a lower bound. (The
/// Kaplan–Meier quantile over pooled rounds is netlab-stats'
/// `CensoredQuantile`, which also knows "no data".)
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "ms", rename_all = "snake_case")]
pub enum RankQuantile {
    /// The rank falls on a success: its RTT in ms.
    Value(f64),
    /// The rank falls on a timeout: the quantile is at least this many ms.
    AtLeast(f64),
}

impl fmt::Display for RankQuantile {
    /// `Value` prints with the formatter's precision (default 1 decimal:
    /// "12.3"); `AtLeast` prints "≥ 1000 ms (censored)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RankQuantile::Value(ms) => write!(f, "{:.*}", f.precision().unwrap_or(1), ms),
            RankQuantile::AtLeast(ms) => write!(f, "≥ {ms:.0} ms (censored)"),
        }
    }
}

/// Statistics of one phase; counts always travel with the quantiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseStats {
    /// Which phase.
    pub phase: Phase,
    /// Requests sent and completed (`ok + timeouts`).
    pub sent: u32,
    /// Requests with a matching reply in time.
    pub ok: u32,
    /// Requests without one (loss or ≥ timeout delay; indistinguishable).
    pub timeouts: u32,
    /// Requests whose send syscall failed (not in `sent`).
    pub send_errors: u32,
    /// Requests cut off by a stop, or still pending (not in `sent`).
    pub abandoned: u32,
    /// Lower median RTT of the successes, ms.
    pub p50_ms: Option<f64>,
    /// Nearest-rank 95th percentile RTT of the successes, ms.
    pub p95_ms: Option<f64>,
    /// Lower median over all `sent` requests, timeouts as "≥ timeout".
    pub p50_censored: Option<RankQuantile>,
    /// Nearest-rank p95 over all `sent` requests, timeouts as "≥ timeout".
    pub p95_censored: Option<RankQuantile>,
}

/// 1-based rank of the lower median of `n` values: `ceil(n/2)` (0 for n = 0).
pub fn lower_median_rank(n: usize) -> usize {
    n.div_ceil(2)
}

/// 1-based nearest rank of the 95th percentile of `n` values:
/// `ceil(0.95·n)` in exact integer arithmetic (0 for n = 0).
pub fn p95_rank(n: usize) -> usize {
    (95 * n).div_ceil(100)
}

/// 1-based nearest rank of the 99th percentile of `n` values:
/// `ceil(0.99·n)` in exact integer arithmetic (0 for n = 0).
pub fn p99_rank(n: usize) -> usize {
    (99 * n).div_ceil(100)
}

pub(crate) fn at_rank(sorted: &[f64], k: usize) -> Option<f64> {
    k.checked_sub(1).and_then(|i| sorted.get(i)).copied()
}

pub(crate) fn censored_at_rank(
    sorted_ok: &[f64],
    m: usize,
    k: usize,
    bound_ms: f64,
) -> Option<RankQuantile> {
    if m == 0 {
        None
    } else if k <= sorted_ok.len() {
        at_rank(sorted_ok, k).map(RankQuantile::Value)
    } else {
        Some(RankQuantile::AtLeast(bound_ms))
    }
}

/// Statistics of the requests of `phase`; `timeout` is the probe's timeout
/// (the censoring bound). See the module docs for the exact rules.
pub fn phase_stats(requests: &[ProbeRequest], phase: Phase, timeout: Duration) -> PhaseStats {
    let mut rtts = Vec::new();
    let (mut timeouts, mut send_errors, mut abandoned) = (0u32, 0u32, 0u32);
    for r in requests.iter().filter(|r| r.phase == phase) {
        match (&r.outcome, r.rtt_ms) {
            (RequestOutcome::Reply, Some(rtt)) => rtts.push(rtt),
            // a Reply without an RTT cannot be ranked: treat as no reply
            (RequestOutcome::Reply, None) | (RequestOutcome::Timeout, _) => timeouts += 1,
            (RequestOutcome::SendError { .. }, _) => send_errors += 1,
            (RequestOutcome::Abandoned | RequestOutcome::Pending, _) => abandoned += 1,
        }
    }
    rtts.sort_by(f64::total_cmp);
    let n = rtts.len();
    let m = n + timeouts as usize;
    let bound = timeout.as_secs_f64() * 1e3;
    PhaseStats {
        phase,
        sent: m as u32,
        ok: n as u32,
        timeouts,
        send_errors,
        abandoned,
        p50_ms: at_rank(&rtts, lower_median_rank(n)),
        p95_ms: at_rank(&rtts, p95_rank(n)),
        p50_censored: censored_at_rank(&rtts, m, lower_median_rank(m), bound),
        p95_censored: censored_at_rank(&rtts, m, p95_rank(m), bound),
    }
}

/// [`phase_stats`] for every phase in [`Phase::ALL`] order (empty phases
/// included, with zero counts and `None` quantiles).
pub fn all_phase_stats(requests: &[ProbeRequest], timeout: Duration) -> Vec<PhaseStats> {
    Phase::ALL
        .iter()
        .map(|&p| phase_stats(requests, p, timeout))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks() {
        assert_eq!(
            (0..=6).map(lower_median_rank).collect::<Vec<_>>(),
            [0, 1, 1, 2, 2, 3, 3]
        );
        assert_eq!(p95_rank(0), 0);
        assert_eq!(p95_rank(1), 1);
        assert_eq!(p95_rank(19), 19); // 18.05 → 19
        assert_eq!(p95_rank(20), 19); // exactly 19.0, no float round-up to 20
        assert_eq!(p95_rank(21), 20); // 19.95 → 20
        assert_eq!(p95_rank(40), 38);
        assert_eq!(p95_rank(100), 95);
        assert_eq!(p99_rank(0), 0);
        assert_eq!(p99_rank(100), 99); // exactly 99.0
        assert_eq!(p99_rank(101), 100); // 99.99 → 100
        assert_eq!(p99_rank(850), 842); // 841.5 → 842
    }

    #[test]
    fn display() {
        assert_eq!(RankQuantile::Value(12.34).to_string(), "12.3");
        assert_eq!(format!("{:.3}", RankQuantile::Value(0.0456)), "0.046");
        assert_eq!(
            RankQuantile::AtLeast(1000.0).to_string(),
            "≥ 1000 ms (censored)"
        );
        assert_eq!(
            serde_json::to_string(&RankQuantile::AtLeast(1000.0)).unwrap(),
            r#"{"kind":"at_least","ms":1000.0}"#
        );
        assert_eq!(
            serde_json::to_string(&RankQuantile::Value(12.5)).unwrap(),
            r#"{"kind":"value","ms":12.5}"#
        );
    }
}
