//! Statistics of the isochronous probe, per phase and per window (pure).
//!
//! The censoring rules are those of the stop-and-wait probe ([`crate::stats`]):
//! * `sent = ok + censored`: requests that left and completed. A request
//!   with no reply inside the timeout is **censored** at the timeout ("≥
//!   timeout"), whether or not a late reply came afterwards (`late` counts
//!   those, a subset of `censored`). Missed slots, failed sends and
//!   abandoned requests are counted apart and take no part in quantiles.
//! * [`Quantiles`] over the successes only (`N = ok`): p50 the lower median
//!   `ceil(N/2)`, p95 and p99 nearest rank `ceil(0.95·N)`, `ceil(0.99·N)`
//!   in integers; `None` for `N = 0`. Always read with `ok`.
//! * [`RankQuantiles`] rank all `M = sent` requests, the censored ones
//!   sorting after every success (each success is < timeout): a rank `k ≤
//!   ok` is a [`RankQuantile::Value`], a rank on the censored mass is
//!   [`RankQuantile::AtLeast`] the timeout.
//! * One-way delays (`up`, `down`) and B's `turnaround`: [`Quantiles`] over
//!   the successes. `up`/`down` are `None` when the clock is not shared
//!   (see [`crate::iso`]), never a number that would mislead.
//! * Groups by **due** time: phases as [`PhaseBounds`], windows
//!   `[k·w, (k+1)·w)` since t0 from the window of the first slot to that of
//!   the last.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::iso::{IsoConfig, IsoOutcome, IsoRequest};
use crate::schedule::Phase;
use crate::stats::{
    at_rank, censored_at_rank, lower_median_rank, p95_rank, p99_rank, RankQuantile,
};

/// p50 / p95 / p99 over successes, ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Quantiles {
    /// Lower median.
    pub p50_ms: Option<f64>,
    /// Nearest-rank 95th percentile.
    pub p95_ms: Option<f64>,
    /// Nearest-rank 99th percentile.
    pub p99_ms: Option<f64>,
}

impl Quantiles {
    /// Quantiles of `values` (sorted here).
    pub fn of(mut values: Vec<f64>) -> Self {
        values.sort_by(f64::total_cmp);
        let n = values.len();
        Self {
            p50_ms: at_rank(&values, lower_median_rank(n)),
            p95_ms: at_rank(&values, p95_rank(n)),
            p99_ms: at_rank(&values, p99_rank(n)),
        }
    }
}

/// p50 / p95 / p99 over all sent requests, censored ones as "≥ timeout".
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RankQuantiles {
    /// Lower median.
    pub p50: Option<RankQuantile>,
    /// Nearest-rank 95th percentile.
    pub p95: Option<RankQuantile>,
    /// Nearest-rank 99th percentile.
    pub p99: Option<RankQuantile>,
}

/// Counts and quantiles of one group of slots (a phase or a window).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsoSummary {
    /// Slots in the group (all outcomes).
    pub slots: u32,
    /// Requests sent and completed: `ok + censored`.
    pub sent: u32,
    /// Replies inside the timeout.
    pub ok: u32,
    /// No reply inside the timeout (loss or ≥ timeout delay).
    pub censored: u32,
    /// Of `censored`: a reply came after the timeout.
    pub late: u32,
    /// Slots that passed without a send (sender stalled).
    pub missed: u32,
    /// Sends that failed.
    pub send_errors: u32,
    /// Pending when the run stopped.
    pub abandoned: u32,
    /// RTT of the successes.
    pub rtt: Quantiles,
    /// RTT over all sent, censored at the timeout.
    pub rtt_censored: RankQuantiles,
    /// A→B delay of the successes; None unless the clock is shared.
    pub up: Option<Quantiles>,
    /// B→A delay of the successes; None unless the clock is shared.
    pub down: Option<Quantiles>,
    /// B's turnaround of the successes.
    pub turnaround: Quantiles,
}

/// Statistics of one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsoPhaseStats {
    /// Which phase.
    pub phase: Phase,
    /// Its counts and quantiles.
    pub stats: IsoSummary,
}

/// Statistics of one window of due time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsoWindowStats {
    /// Window start, s since t0 (inclusive).
    pub start_s: f64,
    /// Window end, s since t0 (exclusive).
    pub end_s: f64,
    /// Its counts and quantiles.
    pub stats: IsoSummary,
}

/// Summary of `requests` (any group); `timeout` is the censoring bound.
pub fn iso_summary<'a>(
    requests: impl IntoIterator<Item = &'a IsoRequest>,
    timeout: Duration,
    shared_clock: bool,
) -> IsoSummary {
    let mut s = IsoSummary {
        slots: 0,
        sent: 0,
        ok: 0,
        censored: 0,
        late: 0,
        missed: 0,
        send_errors: 0,
        abandoned: 0,
        rtt: Quantiles::default(),
        rtt_censored: RankQuantiles::default(),
        up: None,
        down: None,
        turnaround: Quantiles::default(),
    };
    let (mut rtt, mut up, mut down, mut turn) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in requests {
        s.slots += 1;
        match (&r.outcome, r.rtt_ms) {
            (IsoOutcome::Reply, Some(v)) => {
                rtt.push(v);
                up.extend(r.up_ms);
                down.extend(r.down_ms);
                turn.extend(r.turnaround_ms);
            }
            // a Reply without an RTT cannot be ranked: treat as no reply
            (IsoOutcome::Reply, None) | (IsoOutcome::Timeout, _) => {
                s.censored += 1;
                s.late += u32::from(r.late_rtt_ms.is_some());
            }
            (IsoOutcome::Missed, _) => s.missed += 1,
            (IsoOutcome::SendError { .. }, _) => s.send_errors += 1,
            (IsoOutcome::Abandoned | IsoOutcome::Pending, _) => s.abandoned += 1,
        }
    }
    s.ok = rtt.len() as u32;
    s.sent = s.ok + s.censored;
    rtt.sort_by(f64::total_cmp);
    let m = s.sent as usize;
    let bound = timeout.as_secs_f64() * 1e3;
    s.rtt_censored = RankQuantiles {
        p50: censored_at_rank(&rtt, m, lower_median_rank(m), bound),
        p95: censored_at_rank(&rtt, m, p95_rank(m), bound),
        p99: censored_at_rank(&rtt, m, p99_rank(m), bound),
    };
    s.rtt = Quantiles::of(rtt);
    if shared_clock {
        s.up = Some(Quantiles::of(up));
        s.down = Some(Quantiles::of(down));
    }
    s.turnaround = Quantiles::of(turn);
    s
}

/// Per-phase statistics in [`Phase::ALL`] order (empty phases included).
pub fn iso_phase_stats(requests: &[IsoRequest], cfg: &IsoConfig) -> Vec<IsoPhaseStats> {
    Phase::ALL
        .iter()
        .map(|&phase| IsoPhaseStats {
            phase,
            stats: iso_summary(
                requests.iter().filter(|r| r.phase == phase),
                cfg.timeout,
                cfg.shared_clock,
            ),
        })
        .collect()
}

/// Per-window statistics (width `cfg.window`, by due time), from the window
/// of the first slot to that of the last, empty windows included.
pub fn iso_window_stats(requests: &[IsoRequest], cfg: &IsoConfig) -> Vec<IsoWindowStats> {
    let w = cfg.window.as_secs_f64();
    // due_s = start + k·interval exactly in ns; a tiny epsilon keeps a due
    // time that is an exact multiple of w in its own window despite f64
    let index = |r: &IsoRequest| ((r.due_s + 1e-12) / w).floor() as usize;
    let (Some(first), Some(last)) = (requests.first(), requests.last()) else {
        return Vec::new();
    };
    let (lo, hi) = (index(first), index(last));
    let mut groups: Vec<Vec<&IsoRequest>> = vec![Vec::new(); hi - lo + 1];
    for r in requests {
        if let Some(g) = index(r).checked_sub(lo).and_then(|i| groups.get_mut(i)) {
            g.push(r);
        }
    }
    groups
        .into_iter()
        .enumerate()
        .map(|(i, g)| IsoWindowStats {
            start_s: (lo + i) as f64 * w,
            end_s: (lo + i + 1) as f64 * w,
            stats: iso_summary(g, cfg.timeout, cfg.shared_clock),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::PhaseBounds;

    fn req(seq: u32, due_s: f64, outcome: IsoOutcome, rtt: Option<f64>) -> IsoRequest {
        IsoRequest {
            seq,
            due_s,
            send_s: (outcome != IsoOutcome::Missed).then_some(due_s),
            phase: PhaseBounds::default().phase_of(Duration::from_secs_f64(due_s)),
            rtt_ms: rtt.filter(|_| outcome == IsoOutcome::Reply),
            late_rtt_ms: rtt.filter(|_| outcome == IsoOutcome::Timeout),
            up_ms: rtt.map(|v| v * 0.75),
            down_ms: rtt.map(|v| v * 0.25),
            turnaround_ms: rtt.map(|_| 0.01),
            reply_s: rtt.map(|v| due_s + v / 1e3),
            outcome,
        }
    }

    #[test]
    fn censoring_counts_and_bounds() {
        use IsoOutcome::*;
        // 10 sent: 7 ok (1..=7 ms), 3 censored of which 1 late; plus a missed
        // slot, a send error, an abandoned one
        let mut r: Vec<IsoRequest> = (0..7)
            .map(|i| req(i, 0.02 * i as f64, Reply, Some(f64::from(i + 1))))
            .collect();
        r.push(req(7, 0.14, Timeout, Some(1500.0)));
        r.push(req(8, 0.16, Timeout, None));
        r.push(req(9, 0.18, Timeout, None));
        r.push(req(10, 0.20, Missed, None));
        r.push(req(11, 0.22, SendError { error: "x".into() }, None));
        r.push(req(12, 0.24, Abandoned, None));
        let s = iso_summary(&r, Duration::from_secs(1), true);
        assert_eq!(
            (
                s.slots,
                s.sent,
                s.ok,
                s.censored,
                s.late,
                s.missed,
                s.send_errors,
                s.abandoned
            ),
            (13, 10, 7, 3, 1, 1, 1, 1)
        );
        // successes: lower median rank 4 → 4 ms; p95 rank 7 → 7; p99 rank 7
        assert_eq!(
            s.rtt,
            Quantiles {
                p50_ms: Some(4.0),
                p95_ms: Some(7.0),
                p99_ms: Some(7.0)
            }
        );
        // over M = 10: p50 rank 5 → 5 ms; p95 rank 10 > 7 → ≥ 1000 ms; the
        // late reply's 1500 ms is never used as a value
        assert_eq!(s.rtt_censored.p50, Some(RankQuantile::Value(5.0)));
        assert_eq!(s.rtt_censored.p95, Some(RankQuantile::AtLeast(1000.0)));
        assert_eq!(s.rtt_censored.p99, Some(RankQuantile::AtLeast(1000.0)));
        assert_eq!(s.up.unwrap().p50_ms, Some(3.0));
        assert_eq!(s.down.unwrap().p50_ms, Some(1.0));
        assert_eq!(s.turnaround.p99_ms, Some(0.01));
        let no_clock = iso_summary(&r, Duration::from_secs(1), false);
        assert_eq!((no_clock.up, no_clock.down), (None, None));
        let empty = iso_summary(&[], Duration::from_secs(1), true);
        assert_eq!(
            (empty.sent, empty.rtt.p50_ms, empty.rtt_censored.p50),
            (0, None, None)
        );
    }

    #[test]
    fn windows_by_due_time_show_a_timeline() {
        use IsoOutcome::*;
        // 20 ms slots over 3 s: window 1 is all censored
        let r: Vec<IsoRequest> = (0..150)
            .map(|k| {
                let due = k as f64 * 0.02;
                if (1.0..2.0).contains(&due) {
                    req(k, due, Timeout, None)
                } else {
                    req(k, due, Reply, Some(2.0))
                }
            })
            .collect();
        let cfg = IsoConfig::default();
        let w = iso_window_stats(&r, &cfg);
        assert_eq!(w.len(), 3);
        assert_eq!((w[0].start_s, w[0].end_s), (0.0, 1.0));
        assert!(w.iter().all(|x| x.stats.slots == 50), "{w:#?}");
        assert_eq!(w[1].stats.ok, 0);
        assert_eq!(
            w[1].stats.rtt_censored.p50,
            Some(RankQuantile::AtLeast(1000.0))
        );
        assert_eq!(w[2].stats.rtt.p99_ms, Some(2.0));
        let p = iso_phase_stats(&r, &cfg);
        assert_eq!(p[0].phase, Phase::Baseline);
        assert_eq!(
            (p[0].stats.sent, p[0].stats.ok, p[0].stats.censored),
            (150, 100, 50)
        );
        // 100 of 150 ok: p50 rank 75 ≤ 100 → value; p95 rank 143 → bound
        assert_eq!(p[0].stats.rtt_censored.p50, Some(RankQuantile::Value(2.0)));
        assert_eq!(
            p[0].stats.rtt_censored.p95,
            Some(RankQuantile::AtLeast(1000.0))
        );
        assert_eq!(p[1].stats.slots, 0);
        let json = serde_json::to_string(&w[1]).unwrap();
        let back: IsoWindowStats = serde_json::from_str(&json).unwrap();
        assert_eq!(back, w[1]);
    }
}
