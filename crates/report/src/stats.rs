//! Pure statistics: the Kaplan–Meier estimator with right-censoring, quantiles
//! that say when they fall on the censored mass, a seeded deterministic
//! random source for the bootstrap, and percentile endpoints over resamples
//! that may themselves be bounds.

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

/// Compact number: three significant digits or at most one decimal for ≥ 100.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
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

/// SplitMix64: a small, seeded, deterministic generator (the same seed gives
/// the same resamples on every machine).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform index in `0..n` (n > 0), by rejection (no modulo bias).
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }
}

/// A value that may only be known as a bound (a resampled difference where
/// one side fell on the censored mass).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bounded {
    /// Known.
    Value(f64),
    /// At most this.
    AtMost(f64),
    /// At least this.
    AtLeast(f64),
    /// Nothing known (both sides censored, or no data).
    Unknown,
}

impl Bounded {
    /// `-480`, `≤ -950`, `≥ 12`, `unknown`, with a unit.
    pub fn text(&self, unit: &str) -> String {
        match *self {
            Bounded::Value(v) => format!("{} {unit}", fmt_num(v)),
            Bounded::AtMost(v) => format!("≤ {} {unit}", fmt_num(v)),
            Bounded::AtLeast(v) => format!("≥ {} {unit}", fmt_num(v)),
            Bounded::Unknown => "unknown".into(),
        }
    }
}

/// `b − a` for two censored quantiles.
pub fn quantile_difference(a: CensoredQuantile, b: CensoredQuantile) -> Bounded {
    use CensoredQuantile as Q;
    match (a, b) {
        (Q::Value(x), Q::Value(y)) => Bounded::Value(y - x),
        (Q::AtLeast(x), Q::Value(y)) => Bounded::AtMost(y - x),
        (Q::Value(x), Q::AtLeast(y)) => Bounded::AtLeast(y - x),
        _ => Bounded::Unknown,
    }
}

/// Percentile endpoints of resampled values that may be bounds.
///
/// `AtMost` values sort below every known value and `AtLeast` values above
/// (their true place is unknown). An endpoint that falls among the `AtMost`
/// values is reported as `AtMost(largest of their bounds)`: at least that
/// many resamples lie at or below it, so the true percentile does too. The
/// same, mirrored, for `AtLeast`. `Unknown` resamples are left out and
/// counted; when more than `alpha` of them are unknown, both endpoints are
/// `Unknown`.
pub fn percentile_interval(values: &[Bounded], alpha: f64) -> (Bounded, Bounded, usize) {
    let unknown = values
        .iter()
        .filter(|v| matches!(v, Bounded::Unknown))
        .count();
    let n = values.len() - unknown;
    if n == 0 || unknown as f64 > alpha * values.len() as f64 {
        return (Bounded::Unknown, Bounded::Unknown, unknown);
    }
    let mut low: Vec<f64> = Vec::new();
    let mut mid: Vec<f64> = Vec::new();
    let mut high: Vec<f64> = Vec::new();
    for v in values {
        match *v {
            Bounded::AtMost(x) => low.push(x),
            Bounded::Value(x) => mid.push(x),
            Bounded::AtLeast(x) => high.push(x),
            Bounded::Unknown => {}
        }
    }
    mid.sort_by(f64::total_cmp);
    let pick = |rank: usize| -> Bounded {
        if rank < low.len() {
            Bounded::AtMost(low.iter().copied().fold(f64::MIN, f64::max))
        } else if rank < low.len() + mid.len() {
            Bounded::Value(mid[rank - low.len()])
        } else {
            Bounded::AtLeast(high.iter().copied().fold(f64::MAX, f64::min))
        }
    };
    let lo_rank = ((alpha / 2.0) * n as f64).floor() as usize;
    let hi_rank = (((1.0 - alpha / 2.0) * n as f64).ceil() as usize).clamp(1, n) - 1;
    (pick(lo_rank.min(n - 1)), pick(hi_rank), unknown)
}

/// Jain's fairness index of per-flow amounts (1 = equal shares).
pub fn jain_index(x: &[f64]) -> Option<f64> {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 == 0.0 {
        None
    } else {
        Some(s * s / (x.len() as f64 * s2))
    }
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
    fn splitmix_is_deterministic_and_in_range() {
        let mut a = SplitMix64::new(13);
        let mut b = SplitMix64::new(13);
        let xs: Vec<usize> = (0..100).map(|_| a.below(7)).collect();
        let ys: Vec<usize> = (0..100).map(|_| b.below(7)).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|x| *x < 7));
        assert!((0..7).all(|k| xs.contains(&k)));
        assert_ne!(
            SplitMix64::new(14).next_u64(),
            SplitMix64::new(13).next_u64()
        );
    }

    #[test]
    fn differences_of_bounds() {
        use CensoredQuantile as Q;
        assert_eq!(
            quantile_difference(Q::Value(500.0), Q::Value(20.0)),
            Bounded::Value(-480.0)
        );
        assert_eq!(
            quantile_difference(Q::AtLeast(1000.0), Q::Value(20.0)),
            Bounded::AtMost(-980.0)
        );
        assert_eq!(
            quantile_difference(Q::Value(20.0), Q::AtLeast(1000.0)),
            Bounded::AtLeast(980.0)
        );
        assert_eq!(
            quantile_difference(Q::AtLeast(1000.0), Q::AtLeast(1000.0)),
            Bounded::Unknown
        );
    }

    #[test]
    fn percentile_interval_with_bounds() {
        let mut v: Vec<Bounded> = (0..100).map(|i| Bounded::Value(i as f64)).collect();
        let (lo, hi, u) = percentile_interval(&v, 0.05);
        assert_eq!((lo, hi, u), (Bounded::Value(2.0), Bounded::Value(97.0), 0));
        // Ten resamples only known as "≤ -900": the lower endpoint is a bound.
        for x in v.iter_mut().take(10) {
            *x = Bounded::AtMost(-900.0);
        }
        let (lo, hi, _) = percentile_interval(&v, 0.05);
        assert_eq!(lo, Bounded::AtMost(-900.0));
        assert_eq!(hi, Bounded::Value(97.0));
        // Too many unknown resamples: no interval.
        for x in v.iter_mut().take(10) {
            *x = Bounded::Unknown;
        }
        assert_eq!(percentile_interval(&v, 0.05).0, Bounded::Unknown);
    }

    #[test]
    fn jain() {
        assert_eq!(jain_index(&[1.0, 1.0]), Some(1.0));
        assert_eq!(jain_index(&[1.0, 0.0]), Some(0.5));
        assert_eq!(jain_index(&[]), None);
    }
}
