//! The Kaplan–Meier estimator with right-censoring and the quantiles of
//! censored data, which say when they fall on the censored mass.

use crate::fmt_num;

/// One RTT observation: exact, or right-censored ("no reply within the
/// timeout" means the RTT is at least the timeout).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Observation {
    /// An observed value.
    Exact(f64),
    /// At least this value (censored).
    AtLeast(f64),
}

impl Observation {
    fn value(&self) -> f64 {
        match *self {
            Observation::Exact(v) | Observation::AtLeast(v) => v,
        }
    }
}

/// A step of the Kaplan–Meier CDF: from `t` on, `P(X ≤ t) = cdf`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KmStep {
    /// Event time.
    pub t: f64,
    /// Estimated CDF at and after `t` (until the next step).
    pub cdf: f64,
}

/// The Kaplan–Meier estimate of a CDF from right-censored observations.
#[derive(Debug, Clone, PartialEq)]
pub struct KaplanMeier {
    /// Steps in increasing `t`.
    pub steps: Vec<KmStep>,
    /// Observations.
    pub n: usize,
    /// Censored observations among them.
    pub censored: usize,
    /// The largest censoring value (the timeout bound), if any.
    pub max_censor: Option<f64>,
}

impl KaplanMeier {
    /// The highest the CDF gets: below 1 when mass is censored past the last event.
    pub fn final_cdf(&self) -> f64 {
        self.steps.last().map_or(0.0, |s| s.cdf)
    }

    /// The CDF at `t`.
    pub fn cdf_at(&self, t: f64) -> f64 {
        let i = self.steps.partition_point(|s| s.t <= t);
        if i == 0 {
            0.0
        } else {
            self.steps[i - 1].cdf
        }
    }
}

/// Kaplan–Meier: at each distinct event time `t`, `S ← S·(1 − d/n)` with `d`
/// events at `t` and `n` observations still at risk (value ≥ t; a censored
/// value equal to an event time is still at risk there). Non-finite values
/// are ignored.
pub fn kaplan_meier(obs: &[Observation]) -> KaplanMeier {
    let weighted: Vec<(Observation, f64)> = obs.iter().map(|o| (*o, 1.0)).collect();
    weighted_kaplan_meier(&weighted)
}

/// Kaplan–Meier with a weight per observation: `d` and `n` are the summed
/// weights of the events at `t` and of the observations still at risk.
/// With every weight 1 it is [`kaplan_meier`]; with each observation
/// weighted by the time it stands for (a probe reply by the time until the
/// next request), its quantiles are over time rather than over samples.
/// Non-finite values and weights that are not positive and finite are
/// ignored (`n` and `censored` count the observations kept).
pub fn weighted_kaplan_meier(obs: &[(Observation, f64)]) -> KaplanMeier {
    let mut v: Vec<(Observation, f64)> = obs
        .iter()
        .copied()
        .filter(|(o, w)| o.value().is_finite() && w.is_finite() && *w > 0.0)
        .collect();
    // Events before censorings at equal values.
    v.sort_by(|(a, _), (b, _)| {
        a.value().total_cmp(&b.value()).then_with(|| {
            matches!(a, Observation::AtLeast(_)).cmp(&matches!(b, Observation::AtLeast(_)))
        })
    });
    let n = v.len();
    let censored = v
        .iter()
        .filter(|(o, _)| matches!(o, Observation::AtLeast(_)))
        .count();
    let max_censor = v
        .iter()
        .filter_map(|(o, _)| match o {
            Observation::AtLeast(c) => Some(*c),
            Observation::Exact(_) => None,
        })
        .reduce(f64::max);
    // Weight still at risk from index i on, summed from the end so that
    // equal weights give exactly the counts of the unweighted estimator.
    let mut at_risk_from = vec![0.0f64; n + 1];
    for i in (0..n).rev() {
        at_risk_from[i] = at_risk_from[i + 1] + v[i].1;
    }
    let mut steps = Vec::new();
    let mut surv = 1.0f64;
    let mut i = 0;
    while i < n {
        let t = v[i].0.value();
        let at_risk = at_risk_from[i];
        let mut d = 0.0;
        let mut events = false;
        let mut j = i;
        while j < n && v[j].0.value() == t {
            if matches!(v[j].0, Observation::Exact(_)) {
                d += v[j].1;
                events = true;
            }
            j += 1;
        }
        if events {
            surv *= 1.0 - d / at_risk;
            steps.push(KmStep { t, cdf: 1.0 - surv });
        }
        i = j;
    }
    KaplanMeier {
        steps,
        n,
        censored,
        max_censor,
    }
}

/// A quantile of censored data: a number, or only a lower bound when it
/// falls on the censored mass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CensoredQuantile {
    /// The quantile.
    Value(f64),
    /// The quantile lies on the censored mass: at least this.
    AtLeast(f64),
    /// No observation at all.
    NoData,
}

impl CensoredQuantile {
    /// `12.3 ms`, `≥ 1000 ms`, `no data`.
    pub fn text(&self, unit: &str) -> String {
        match *self {
            CensoredQuantile::Value(v) => format!("{} {unit}", fmt_num(v)),
            CensoredQuantile::AtLeast(v) => format!("≥ {} {unit}", fmt_num(v)),
            CensoredQuantile::NoData => "no data".into(),
        }
    }
}

/// The `p`-quantile (0 < p ≤ 1): the smallest event time whose CDF reaches
/// `p`. When the curve never reaches `p` the quantile is on the censored
/// mass: at least the largest censoring value (or the last event).
pub fn km_quantile(km: &KaplanMeier, p: f64) -> CensoredQuantile {
    if km.n == 0 {
        return CensoredQuantile::NoData;
    }
    // A small tolerance so that e.g. 19 of 20 reaches 0.95 despite rounding.
    match km.steps.iter().find(|s| s.cdf >= p - 1e-12) {
        Some(s) => CensoredQuantile::Value(s.t),
        None => {
            let last = km.steps.last().map(|s| s.t);
            let bound = match (km.max_censor, last) {
                (Some(c), Some(l)) => c.max(l),
                (Some(c), None) => c,
                (None, Some(l)) => l,
                (None, None) => 0.0,
            };
            CensoredQuantile::AtLeast(bound)
        }
    }
}

/// The quantile of a set of observations (KM, then [`km_quantile`]).
pub fn censored_quantile(obs: &[Observation], p: f64) -> CensoredQuantile {
    km_quantile(&kaplan_meier(obs), p)
}

/// The quantile of a set of weighted observations
/// ([`weighted_kaplan_meier`], then [`km_quantile`]).
pub fn weighted_censored_quantile(obs: &[(Observation, f64)], p: f64) -> CensoredQuantile {
    km_quantile(&weighted_kaplan_meier(obs), p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Observation::{AtLeast as C, Exact as E};

    #[test]
    fn kaplan_meier_on_a_censored_set_by_hand() {
        // Values 1, 2, 2, 3+, 4, 5+ (+ = censored).
        // t=1: n=6, d=1 → S = 5/6.  t=2: n=5, d=2 → S = 5/6·3/5 = 1/2.
        // 3+ leaves the risk set. t=4: n=2, d=1 → S = 1/4. 5+ censored.
        let km = kaplan_meier(&[E(2.0), C(3.0), E(1.0), E(4.0), E(2.0), C(5.0)]);
        let want = [(1.0, 1.0 / 6.0), (2.0, 0.5), (4.0, 0.75)];
        assert_eq!(km.steps.len(), 3);
        for (s, (t, f)) in km.steps.iter().zip(want) {
            assert_eq!(s.t, t);
            assert!((s.cdf - f).abs() < 1e-12, "{s:?} vs {f}");
        }
        assert_eq!(km.censored, 2);
        assert_eq!(km.final_cdf(), 0.75, "the censored mass never reaches 1");
        assert_eq!(km.cdf_at(3.5), 0.5);
        assert_eq!(km.cdf_at(0.5), 0.0);
    }

    #[test]
    fn timeouts_at_the_bound_make_the_curve_stop_below_one() {
        // 3 replies, 2 timeouts at 1000 ms.
        let km = kaplan_meier(&[E(500.0), C(1000.0), E(600.0), C(1000.0), E(800.0)]);
        assert!((km.final_cdf() - 0.6).abs() < 1e-12);
        // Steps 0.2, 0.4, 0.6 at 500, 600, 800 ms.
        assert_eq!(km_quantile(&km, 0.4), CensoredQuantile::Value(600.0));
        assert_eq!(km_quantile(&km, 0.5), CensoredQuantile::Value(800.0));
        assert_eq!(km_quantile(&km, 0.6), CensoredQuantile::Value(800.0));
        // The p95 falls on the censored mass: a bound, not a number.
        assert_eq!(km_quantile(&km, 0.95), CensoredQuantile::AtLeast(1000.0));
        assert_eq!(km_quantile(&km, 0.95).text("ms"), "≥ 1000 ms");
        // Everything censored: even the median is a bound.
        let all = kaplan_meier(&[C(1000.0), C(1000.0)]);
        assert!(all.steps.is_empty());
        assert_eq!(km_quantile(&all, 0.5), CensoredQuantile::AtLeast(1000.0));
        assert_eq!(
            km_quantile(&kaplan_meier(&[]), 0.5),
            CensoredQuantile::NoData
        );
    }

    #[test]
    fn without_censoring_it_is_the_empirical_cdf() {
        let obs: Vec<_> = (1..=20).map(|i| E(i as f64)).collect();
        let km = kaplan_meier(&obs);
        assert_eq!(km.final_cdf(), 1.0);
        assert_eq!(censored_quantile(&obs, 0.5), CensoredQuantile::Value(10.0));
        assert_eq!(censored_quantile(&obs, 0.95), CensoredQuantile::Value(19.0));
    }

    #[test]
    fn equal_weights_give_the_unweighted_estimate() {
        let obs = [E(2.0), C(3.0), E(1.0), E(4.0), E(2.0), C(5.0)];
        let w: Vec<(Observation, f64)> = obs.iter().map(|o| (*o, 0.2)).collect();
        let (a, b) = (kaplan_meier(&obs), weighted_kaplan_meier(&w));
        assert_eq!(a.steps.len(), b.steps.len());
        for (x, y) in a.steps.iter().zip(&b.steps) {
            assert_eq!(x.t, y.t);
            assert!((x.cdf - y.cdf).abs() < 1e-12, "{x:?} {y:?}");
        }
        for p in [0.5, 0.95] {
            assert_eq!(
                censored_quantile(&obs, p),
                weighted_censored_quantile(&w, p)
            );
        }
    }

    #[test]
    fn weights_move_the_quantile_to_where_the_time_was() {
        // A probe that sends again right after a quick reply and waits out a
        // slow one: 4 replies of 100 ms each standing for 0.2 s, one of
        // 900 ms standing for 1 s. Half the samples are quick, but 1 s of
        // the 1.8 s was slow.
        let obs = [
            (E(100.0), 0.2),
            (E(100.0), 0.2),
            (E(900.0), 1.0),
            (E(100.0), 0.2),
            (E(100.0), 0.2),
        ];
        let plain: Vec<Observation> = obs.iter().map(|(o, _)| *o).collect();
        assert_eq!(
            censored_quantile(&plain, 0.5),
            CensoredQuantile::Value(100.0)
        );
        assert_eq!(
            weighted_censored_quantile(&obs, 0.5),
            CensoredQuantile::Value(900.0)
        );
        // 0.8 s of 1.8 s quick: the 0.44-quantile is still 100 ms.
        assert_eq!(
            weighted_censored_quantile(&obs, 0.44),
            CensoredQuantile::Value(100.0)
        );
        // A censored stretch at the top stays a bound.
        let with_timeout = [(E(100.0), 0.2), (C(1000.0), 1.0)];
        assert_eq!(
            weighted_censored_quantile(&with_timeout, 0.5),
            CensoredQuantile::AtLeast(1000.0)
        );
        // Zero or non-finite weights are left out.
        let odd = [(E(5.0), 0.0), (E(7.0), f64::NAN), (E(9.0), 1.0)];
        assert_eq!(weighted_kaplan_meier(&odd).n, 1);
    }
}
