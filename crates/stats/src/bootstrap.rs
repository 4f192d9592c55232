//! The seeded bootstrap's pieces: a deterministic generator and its
//! resamples, differences of censored quantiles that may only be bounds,
//! and percentile endpoints over resamples that may themselves be bounds.

use crate::{fmt_num, CensoredQuantile};

/// SplitMix64's output function: the first value a [`SplitMix64`] seeded
/// with `x` gives. netlab's one mixer: the plan's scenario seeds
/// (netlab-experiment) and the load's byte pattern (netlab-tcpload) use it
/// as a hash of an index, the bootstrap as a generator.
#[inline]
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
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
        let out = splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        out
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

    /// Draws `xs.len()` values of `xs` with replacement into `out` (cleared
    /// first): one bootstrap resample. Each draw is one [`below`](Self::below),
    /// in order, so a seed gives the same resample on every machine. Nothing
    /// is drawn from an empty `xs`.
    pub fn resample_into<T: Copy>(&mut self, xs: &[T], out: &mut Vec<T>) {
        out.clear();
        out.extend((0..xs.len()).map(|_| xs[self.below(xs.len())]));
    }

    /// [`resample_into`](Self::resample_into) a new vector.
    pub fn resample<T: Copy>(&mut self, xs: &[T]) -> Vec<T> {
        let mut out = Vec::with_capacity(xs.len());
        self.resample_into(xs, &mut out);
        out
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_resample_draws_with_replacement_in_a_fixed_order() {
        let xs = [10, 20, 30, 40, 50];
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        // The same draws as calling `below` by hand.
        let by_hand: Vec<i32> = (0..xs.len()).map(|_| xs[b.below(xs.len())]).collect();
        let r = a.resample(&xs);
        assert_eq!(r, by_hand);
        assert_eq!(r.len(), xs.len());
        assert!(r.iter().all(|x| xs.contains(x)));
        // The generators stay in step; a reused buffer is cleared first.
        let mut out = vec![99; 9];
        a.resample_into(&xs[..2], &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(a.next_u64(), {
            b.below(2);
            b.below(2);
            b.next_u64()
        });
        // Nothing is drawn from an empty set.
        let mut c = SplitMix64::new(7);
        assert!(c.resample::<i32>(&[]).is_empty());
        assert_eq!(c.next_u64(), SplitMix64::new(7).next_u64());
    }
}
