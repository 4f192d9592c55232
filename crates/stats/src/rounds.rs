//! How the rounds of one arm (or one sweep point) are summarised, and the
//! point estimate of a shift between two arms' rounds (docs/report.md,
//! "Rounds"). A round is the unit of the method; one round is never made
//! to stand for the others:
//!
//! - fewer than [`MEDIAN_FROM`] rounds: their mean, and every output shows
//!   each round's value beside it ([`RoundsSummary::text`]: `7.88 / 16.82`);
//! - from [`MEDIAN_FROM`] rounds on: the median (of an even count, the mean
//!   of the middle two), with the range beside it.
//!
//! A censored round ("≥ 1000 ms") counts at its bound; the summary is then
//! a bound too wherever that bound can move it.
//!
//! [`hodges_lehmann`] is the point estimate that belongs to
//! [`crate::shift_interval`]: the median of the pairwise differences
//! between the rounds, the estimator whose order statistics the interval's
//! endpoints are (Hodges & Lehmann 1963).
//!
//! ```
//! use netlab_stats::rounds::{summarise, Summary};
//! use netlab_stats::{CensoredQuantile, Observation::Exact};
//!
//! let two = summarise(&[Exact(7.88), Exact(16.82)]).unwrap();
//! assert_eq!(two.how, Summary::Mean);
//! assert_eq!(two.text(|v| format!("{v:.2}")), "7.88 / 16.82 (mean 12.35)");
//! let three = summarise(&[Exact(5.0), Exact(4.0), Exact(9.0)]).unwrap();
//! assert_eq!(three.how, Summary::Median);
//! assert_eq!(three.value, CensoredQuantile::Value(5.0));
//! assert_eq!(three.text(|v| format!("{v}")), "median 5 (4–9)");
//! ```

use crate::{Bounded, CensoredQuantile, Observation};

/// From this many rounds on, a summary is their median with the range.
pub const MEDIAN_FROM: usize = 3;

/// Which summary stands for the rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Summary {
    /// The mean (fewer than [`MEDIAN_FROM`] rounds; each is shown too).
    Mean,
    /// The median, with the range beside it.
    Median,
}

impl Summary {
    /// `mean` or `median`.
    pub fn word(&self) -> &'static str {
        match self {
            Summary::Mean => "mean",
            Summary::Median => "median",
        }
    }

    /// The summary that stands for `n` rounds.
    pub fn for_rounds(n: usize) -> Summary {
        if n < MEDIAN_FROM {
            Summary::Mean
        } else {
            Summary::Median
        }
    }
}

/// The rounds' values and the one figure that stands for them.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundsSummary {
    /// Mean or median.
    pub how: Summary,
    /// The summary (a bound where a censored round can move it).
    pub value: CensoredQuantile,
    /// Every round's value, in the order given.
    pub rounds: Vec<Observation>,
}

impl RoundsSummary {
    /// The smallest and largest round.
    pub fn range(&self) -> (Observation, Observation) {
        let by_level = |a: &&Observation, b: &&Observation| level(**a).total_cmp(&level(**b));
        let lo = self.rounds.iter().min_by(by_level).copied();
        let hi = self.rounds.iter().max_by(by_level).copied();
        (
            lo.unwrap_or(Observation::Exact(f64::NAN)),
            hi.unwrap_or(Observation::Exact(f64::NAN)),
        )
    }

    /// `7.88 / 16.82 (mean 12.35)` for fewer than [`MEDIAN_FROM`] rounds
    /// (one round: its value), `median 5 (4–9)` from then on; a censored
    /// value as `≥ x`. `num` formats a number.
    pub fn text(&self, num: impl Fn(f64) -> String) -> String {
        let obs = |o: Observation| match o {
            Observation::Exact(v) => num(v),
            Observation::AtLeast(v) => format!("≥ {}", num(v)),
        };
        let value = match self.value {
            CensoredQuantile::Value(v) => num(v),
            CensoredQuantile::AtLeast(v) => format!("≥ {}", num(v)),
            CensoredQuantile::NoData => "no data".into(),
        };
        match (self.how, self.rounds.len()) {
            (_, 1) => obs(self.rounds[0]),
            (Summary::Mean, _) => format!(
                "{} (mean {value})",
                self.rounds
                    .iter()
                    .map(|o| obs(*o))
                    .collect::<Vec<_>>()
                    .join(" / ")
            ),
            (Summary::Median, _) => {
                let (lo, hi) = self.range();
                format!("median {value} ({}–{})", obs(lo), obs(hi))
            }
        }
    }
}

fn level(o: Observation) -> f64 {
    match o {
        Observation::Exact(v) | Observation::AtLeast(v) => v,
    }
}

/// The summary of the rounds' values (see the module); `None` without a
/// round.
pub fn summarise(rounds: &[Observation]) -> Option<RoundsSummary> {
    if rounds.is_empty() {
        return None;
    }
    let how = Summary::for_rounds(rounds.len());
    let censored = |o: &Observation| matches!(o, Observation::AtLeast(_));
    let value = match how {
        Summary::Mean => {
            let mean = rounds.iter().map(|o| level(*o)).sum::<f64>() / rounds.len() as f64;
            if rounds.iter().any(censored) {
                CensoredQuantile::AtLeast(mean)
            } else {
                CensoredQuantile::Value(mean)
            }
        }
        Summary::Median => {
            let mut sorted = rounds.to_vec();
            sorted.sort_by(|a, b| level(*a).total_cmp(&level(*b)));
            let n = sorted.len();
            let (lo, hi) = if n % 2 == 1 {
                (n / 2, n / 2)
            } else {
                (n / 2 - 1, n / 2)
            };
            let m = (level(sorted[lo]) + level(sorted[hi])) / 2.0;
            // Each true value is at least its level, so every order
            // statistic is at least the levels'; it is exact only when no
            // censored round sits at or below the middle.
            if sorted[..=hi].iter().any(censored) {
                CensoredQuantile::AtLeast(m)
            } else {
                CensoredQuantile::Value(m)
            }
        }
    };
    Some(RoundsSummary {
        how,
        value,
        rounds: rounds.to_vec(),
    })
}

/// The Hodges–Lehmann estimate of the shift `b − a` between two arms'
/// per-round values: the median of the `m·n` pairwise differences
/// `b_j − a_i`. A difference touching a censored round is only a range; the
/// estimate is then the sharp bound those ranges allow (`≥ x`, `≤ x`) or
/// unknown. Rounds without data are left out.
pub fn hodges_lehmann(a: &[CensoredQuantile], b: &[CensoredQuantile]) -> Bounded {
    let (mut lows, mut highs) = crate::rank::pair_ranges(a, b);
    if lows.is_empty() {
        return Bounded::Unknown;
    }
    lows.sort_by(f64::total_cmp);
    highs.sort_by(f64::total_cmp);
    let n = lows.len();
    let mid = |v: &[f64]| {
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    // The median of the true differences lies in [median of the lows,
    // median of the highs].
    let (lo, hi) = (mid(&lows), mid(&highs));
    match (lo.is_finite(), hi.is_finite()) {
        _ if lo == hi => Bounded::Value(lo),
        (true, false) => Bounded::AtLeast(lo),
        (false, true) => Bounded::AtMost(hi),
        (true, true) if lo >= 0.0 => Bounded::AtLeast(lo),
        (true, true) if hi <= 0.0 => Bounded::AtMost(hi),
        _ => Bounded::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Observation::{AtLeast, Exact};

    #[test]
    fn two_rounds_are_never_summarised_as_the_lower_one() {
        let s = summarise(&[Exact(104.8), Exact(190.5)]).unwrap();
        assert_eq!(s.how, Summary::Mean);
        assert_eq!(s.value, CensoredQuantile::Value((104.8 + 190.5) / 2.0));
        assert_eq!(s.text(|v| format!("{v:.1}")), "104.8 / 190.5 (mean 147.7)");
        let one = summarise(&[Exact(3.0)]).unwrap();
        assert_eq!(one.text(|v| format!("{v}")), "3");
        assert!(summarise(&[]).is_none());
    }

    #[test]
    fn a_censored_round_makes_a_bound_only_where_it_can_move_the_summary() {
        let s = summarise(&[Exact(10.0), AtLeast(1000.0)]).unwrap();
        assert_eq!(s.value, CensoredQuantile::AtLeast(505.0));
        // Censored above the middle: the median is exact.
        let s = summarise(&[Exact(10.0), Exact(20.0), AtLeast(1000.0)]).unwrap();
        assert_eq!(s.value, CensoredQuantile::Value(20.0));
        assert_eq!(s.text(|v| format!("{v}")), "median 20 (10–≥ 1000)");
        // Censored at or below the middle: a bound.
        let s = summarise(&[AtLeast(5.0), Exact(20.0), Exact(30.0)]).unwrap();
        assert_eq!(s.value, CensoredQuantile::AtLeast(20.0));
        // Four rounds: the mean of the middle two.
        let s = summarise(&[Exact(1.0), Exact(2.0), Exact(4.0), Exact(9.0)]).unwrap();
        assert_eq!(s.value, CensoredQuantile::Value(3.0));
    }

    #[test]
    fn hodges_lehmann_is_the_median_of_the_pairwise_differences() {
        use CensoredQuantile::{AtLeast as Ge, Value as V};
        // 3 vs 3: nine differences b − a.
        let a = [V(600.0), V(650.0), V(700.0)];
        let b = [V(4.0), V(5.0), V(6.0)];
        // Differences: 4−600 … 6−700; their median is 5 − 650.
        assert_eq!(hodges_lehmann(&a, &b), Bounded::Value(-645.0));
        // Even count: the mean of the middle two.
        assert_eq!(
            hodges_lehmann(&[V(0.0), V(10.0)], &[V(1.0)]),
            Bounded::Value(-4.0)
        );
        // Two of a's rounds censored at 1000: their six differences are
        // ≤ b − 1000 (highs −996 −996 −995 −995 −994 −994), the other three
        // exact (−896 −895 −894); the fifth of nine highs is −994.
        let a = [Ge(1000.0), Ge(1000.0), V(900.0)];
        assert_eq!(hodges_lehmann(&a, &b), Bounded::AtMost(-994.0));
        assert_eq!(hodges_lehmann(&[], &b), Bounded::Unknown);
    }

    #[test]
    fn the_estimate_lies_inside_the_interval_it_belongs_to() {
        use CensoredQuantile::Value as V;
        let mut seed = crate::SplitMix64::new(7);
        for _ in 0..500 {
            let m = 2 + seed.below(5);
            let n = 2 + seed.below(5);
            let draw = |s: &mut crate::SplitMix64, k| {
                (0..k)
                    .map(|_| V((s.next_u64() % 1000) as f64 / 10.0))
                    .collect::<Vec<_>>()
            };
            let a = draw(&mut seed, m);
            let b = draw(&mut seed, n);
            let iv = crate::shift_interval(&a, &b, 0.95);
            let (Bounded::Value(lo), Bounded::Value(hi), Bounded::Value(p)) =
                (iv.low, iv.high, hodges_lehmann(&a, &b))
            else {
                panic!("exact rounds give exact figures");
            };
            assert!(lo <= p && p <= hi, "{lo} ≤ {p} ≤ {hi}");
        }
    }
}
