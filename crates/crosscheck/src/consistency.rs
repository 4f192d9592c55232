//! Is the difference between netlab's probe and irtt in one scenario more
//! than sampling noise? (pairing 2, pure)
//!
//! The fixed rules ([`crate::markdown::probes_agree`]: p50 and p95 within max(1 ms, 5 %); timeouts
//! within one request) judge two samples of 30–55 requests each as if they
//! were exact: a p95 over 35 successes is the second-largest value and moves
//! by several ms between two probes of the same queue. This module asks the
//! statistical question instead: a seeded bootstrap of netlab − irtt for
//! the loaded p50 and p95, each probe resampled on its own, with timeouts
//! kept as right-censored observations ("≥ timeout", netlab-stats'
//! Kaplan–Meier quantiles, the report's too), and a 95 % percentile
//! interval. The two probes are *consistent* when no interval excludes 0.

use netlab_probe::{Phase, ProbeRequest, RequestOutcome};
use netlab_stats::{
    censored_quantile, percentile_interval, quantile_difference, Bounded, Observation, SplitMix64,
};

/// Resamples per interval.
pub const REPLICATES: usize = 2000;

/// Both quantiles' intervals and the verdict for one scenario.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Consistency {
    /// 95 % interval of netlab − irtt for the loaded p50, ms.
    pub p50: (Bounded, Bounded),
    /// The same for the p95.
    pub p95: (Bounded, Bounded),
    /// `Some(true)` when neither interval excludes 0, `Some(false)` when one
    /// does, `None` when neither could be computed (no data, or both sides
    /// censored at that quantile in too many resamples).
    pub consistent: Option<bool>,
}

/// The loaded requests that were sent, as observations: a reply before
/// `timeout_ms` is exact, anything else (no reply, or a reply at or beyond
/// the timeout, as irtt reports) is "≥ timeout".
pub fn loaded_observations(reqs: &[ProbeRequest], timeout_ms: f64) -> Vec<Observation> {
    reqs.iter()
        .filter(|r| r.phase == Phase::Loaded)
        .filter_map(|r| match (&r.outcome, r.rtt_ms) {
            (RequestOutcome::SendError { .. } | RequestOutcome::Abandoned, _) => None,
            (RequestOutcome::Pending, _) => None,
            (_, Some(v)) if v < timeout_ms => Some(Observation::Exact(v)),
            _ => Some(Observation::AtLeast(timeout_ms)),
        })
        .collect()
}

fn excludes_zero((lo, hi): (Bounded, Bounded)) -> Option<bool> {
    let low_above = match lo {
        Bounded::Value(x) | Bounded::AtLeast(x) => Some(x > 0.0),
        Bounded::AtMost(_) => Some(false),
        Bounded::Unknown => None,
    };
    let high_below = match hi {
        Bounded::Value(x) | Bounded::AtMost(x) => Some(x < 0.0),
        Bounded::AtLeast(_) => Some(false),
        Bounded::Unknown => None,
    };
    match (low_above, high_below) {
        (None, None) => None,
        (a, b) => Some(a == Some(true) || b == Some(true)),
    }
}

/// The bootstrap for one scenario; deterministic for a given `seed`.
pub fn consistency(netlab: &[Observation], irtt: &[Observation], seed: u64) -> Consistency {
    let none = (Bounded::Unknown, Bounded::Unknown);
    if netlab.is_empty() || irtt.is_empty() {
        return Consistency {
            p50: none,
            p95: none,
            consistent: None,
        };
    }
    let mut rng = SplitMix64::new(seed);
    let mut d50 = Vec::with_capacity(REPLICATES);
    let mut d95 = Vec::with_capacity(REPLICATES);
    let mut a = Vec::with_capacity(netlab.len());
    let mut b = Vec::with_capacity(irtt.len());
    for _ in 0..REPLICATES {
        rng.resample_into(netlab, &mut a);
        rng.resample_into(irtt, &mut b);
        // quantile_difference(x, y) is y − x: netlab − irtt.
        for (p, out) in [(0.5, &mut d50), (0.95, &mut d95)] {
            out.push(quantile_difference(
                censored_quantile(&b, p),
                censored_quantile(&a, p),
            ));
        }
    }
    let p50 = interval(&d50);
    let p95 = interval(&d95);
    let consistent = match (excludes_zero(p50), excludes_zero(p95)) {
        (None, None) => None,
        (x, y) => Some(x != Some(true) && y != Some(true)),
    };
    Consistency {
        p50,
        p95,
        consistent,
    }
}

fn interval(d: &[Bounded]) -> (Bounded, Bounded) {
    let (lo, hi, _) = percentile_interval(d, 0.05);
    (lo, hi)
}

/// `[−2.4, 0.6]`, with bounds shown as such.
pub fn interval_text((lo, hi): (Bounded, Bounded)) -> String {
    let t = |b: Bounded| match b {
        Bounded::Value(v) => format!("{v:.1}"),
        Bounded::AtMost(v) => format!("≤ {v:.1}"),
        Bounded::AtLeast(v) => format!("≥ {v:.1}"),
        Bounded::Unknown => "?".into(),
    };
    if matches!((lo, hi), (Bounded::Unknown, Bounded::Unknown)) {
        return "–".into();
    }
    format!("[{}, {}]", t(lo), t(hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(v: &[f64]) -> Vec<Observation> {
        v.iter().map(|&x| Observation::Exact(x)).collect()
    }

    /// A deterministic spread of `n` values around `centre`.
    fn spread(n: usize, centre: f64, width: f64) -> Vec<f64> {
        (0..n)
            .map(|i| centre + width * ((i * 37 % n) as f64 / n as f64 - 0.5))
            .collect()
    }

    #[test]
    fn two_samples_of_one_distribution_are_consistent() {
        let a = exact(&spread(40, 5.0, 8.0));
        let b = exact(&spread(55, 5.0, 8.0));
        let c = consistency(&a, &b, 1);
        assert_eq!(c.consistent, Some(true), "{c:?}");
        assert_eq!(c, consistency(&a, &b, 1), "seeded: the same every time");
    }

    #[test]
    fn a_shift_far_beyond_the_noise_is_not() {
        let a = exact(&spread(40, 5.0, 2.0));
        let b = exact(&spread(55, 25.0, 2.0));
        let c = consistency(&a, &b, 1);
        assert_eq!(c.consistent, Some(false), "{c:?}");
        match c.p50.1 {
            Bounded::Value(v) => assert!(v < -15.0, "{c:?}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn censored_requests_stay_censored() {
        let reqs = |rtts: &[Option<f64>]| -> Vec<ProbeRequest> {
            rtts.iter()
                .enumerate()
                .map(|(i, r)| ProbeRequest {
                    seq: i as u32,
                    due_s: i as f64,
                    send_s: i as f64,
                    reply_s: r.map(|ms| i as f64 + ms / 1e3),
                    rtt_ms: *r,
                    late_rtt_ms: None,
                    phase: Phase::Loaded,
                    outcome: if r.is_some() {
                        RequestOutcome::Reply
                    } else {
                        RequestOutcome::Timeout
                    },
                })
                .collect()
        };
        // irtt reports a late reply with its RTT: beyond the timeout it is censored.
        let obs = loaded_observations(&reqs(&[Some(500.0), None, Some(1200.0)]), 1000.0);
        assert_eq!(
            obs,
            vec![
                Observation::Exact(500.0),
                Observation::AtLeast(1000.0),
                Observation::AtLeast(1000.0)
            ]
        );
        // Both all-censored: nothing can be said.
        let all = vec![Observation::AtLeast(1000.0); 20];
        assert_eq!(consistency(&all, &all, 3).consistent, None);
        // Mostly censored on both sides: the p95 is unknown, the p50 judged.
        let mut a = exact(&spread(12, 540.0, 40.0));
        a.extend(vec![Observation::AtLeast(1000.0); 6]);
        let mut b = exact(&spread(36, 540.0, 40.0));
        b.extend(vec![Observation::AtLeast(1000.0); 18]);
        let c = consistency(&a, &b, 3);
        assert_eq!(c.consistent, Some(true), "{c:?}");
        assert_eq!(interval_text(c.p95), "–");
    }
}
