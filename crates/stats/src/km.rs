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
    let mut v: Vec<Observation> = obs
        .iter()
        .copied()
        .filter(|o| o.value().is_finite())
        .collect();
    // Events before censorings at equal values.
    v.sort_by(|a, b| {
        a.value().total_cmp(&b.value()).then_with(|| {
            matches!(a, Observation::AtLeast(_)).cmp(&matches!(b, Observation::AtLeast(_)))
        })
    });
    let n = v.len();
    let censored = v
        .iter()
        .filter(|o| matches!(o, Observation::AtLeast(_)))
        .count();
    let max_censor = v
        .iter()
        .filter_map(|o| match o {
            Observation::AtLeast(c) => Some(*c),
            Observation::Exact(_) => None,
        })
        .reduce(f64::max);
    let mut steps = Vec::new();
    let mut surv = 1.0f64;
    let mut i = 0;
    while i < n {
        let t = v[i].value();
        let at_risk = n - i;
        let mut d = 0;
        let mut j = i;
        while j < n && v[j].value() == t {
            if matches!(v[j], Observation::Exact(_)) {
                d += 1;
            }
            j += 1;
        }
        if d > 0 {
            surv *= 1.0 - d as f64 / at_risk as f64;
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
}
