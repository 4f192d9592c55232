//! A distribution-free interval for the shift between two small sets of
//! per-round values: the interval of Mann–Whitney's test inverted (Hodges
//! & Lehmann 1963; Bauer 1972), whose endpoints are order statistics of
//! the `m·n` pairwise differences `b_j − a_i`. Its level is exact (U's
//! null distribution counted) up to [`COUNTED_UP_TO`] rounds on the
//! smaller side; beyond, where counting costs too much and rounds off,
//! U's normal approximation gives it, within 4e-5 of the count at 300
//! against 300 rounds.
//!
//! Under the shift model (the second arm's rounds are the first arm's
//! shifted by Δ, rounds independent), `[D(k), D(mn+1−k)]` covers Δ with
//! probability `1 − 2·P(U ≤ k−1)`, where `U` is Mann–Whitney's statistic
//! under the null; nothing else is assumed. The level is a step function
//! of the round counts: 3 rounds against 3 can give 90 % at most (k = 1:
//! the smallest and largest pairwise difference, `1 − 2/20`), 4 against 4
//! 97.1 %, 5 against 5 96.8 % (k = 3). [`shift_interval`] takes the largest
//! `k` that reaches the wanted level and, when none does, `k = 1` with the
//! level it really has, and says which.
//!
//! A per-round value may be only a bound (a quantile on the censored mass,
//! "≥ 1000 ms"), so a pairwise difference may be `≤ x`, `≥ x` or unknown.
//! Each is the set of values it allows; the endpoints are then the sharp
//! outer bounds of every interval the true values could give: the `k`-th
//! smallest of the differences' lower ends and the `(mn+1−k)`-th smallest
//! of their upper ends.
//!
//! ```
//! use netlab_stats::{shift_interval, Bounded, CensoredQuantile::Value};
//!
//! let a = [Value(4.78), Value(5.12), Value(4.95)];
//! let b = [Value(4.80), Value(4.90), Value(5.02)];
//! let s = shift_interval(&a, &b, 0.95);
//! assert_eq!(s.k, 1);
//! assert!((s.level - 0.9).abs() < 1e-12); // 3 vs 3 rounds: 90 % at most
//! assert!(matches!(s.low, Bounded::Value(x) if (x - (4.80 - 5.12)).abs() < 1e-12));
//! assert!(matches!(s.high, Bounded::Value(x) if (x - (5.02 - 4.78)).abs() < 1e-12));
//! ```

use crate::{Bounded, CensoredQuantile};

/// The interval of [`shift_interval`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShiftInterval {
    /// Lower endpoint (`≥ x`: at least x; `≤ x`: somewhere at or below x).
    pub low: Bounded,
    /// Upper endpoint (`≤ x`: at most x; `≥ x`: somewhere at or above x).
    pub high: Bounded,
    /// Its confidence level under the shift model (0.9 for 3 vs 3 rounds).
    pub level: f64,
    /// The order statistic used (`D(k)`, `D(mn+1−k)`).
    pub k: usize,
    /// Rounds with data on each side, `(m, n)`: `m·n` pairwise differences.
    pub rounds: (usize, usize),
    /// Pairwise differences with both sides on the censored mass (unknown).
    pub unknown_pairs: usize,
}

/// `P(U ≤ u)` for `u = 0, 1, …, m·n` under the null (every arrangement of
/// the `m + n` ranks equally likely), exact: the lower half by
/// [`lower_cdf`], the upper by the distribution's symmetry
/// (`P(U ≤ u) = 1 − P(U ≤ m·n − u − 1)`).
pub fn mann_whitney_cdf(m: usize, n: usize) -> Vec<f64> {
    let total = m * n;
    let half = total / 2;
    let low = lower_cdf(m, n, half);
    (0..=total)
        .map(|u| {
            if u <= half {
                low[u]
            } else if u == total {
                1.0
            } else {
                1.0 - low[total - u - 1]
            }
        })
        .collect()
}

/// Up to this many rounds on the smaller side U's distribution is
/// counted ([`counted_cdf`]); beyond, its normal approximation
/// ([`normal_cdf`]) stands in (docs/method.md §12.3).
pub const COUNTED_UP_TO: usize = 300;

/// `P(U ≤ u)` for `u = 0, …, limit` (`limit ≤ m·n`): counted where the
/// smaller side has at most [`COUNTED_UP_TO`] rounds and the count passes
/// its check, else the normal approximation.
fn lower_cdf(m: usize, n: usize, limit: usize) -> Vec<f64> {
    let limit = limit.min(m * n);
    if m.min(n) <= COUNTED_UP_TO {
        if let Some(c) = counted_cdf(m, n, limit) {
            return c;
        }
    }
    normal_cdf(m, n, limit)
}

/// `P(U ≤ u)` for `u = 0, …, limit` counted, by the generating function
/// of U's counts, the Gaussian binomial `∏_{i=1..m} (1 − q^(n+i)) /
/// (1 − q^i)` (Harding 1984), each factor taken with its share `i/(n+i)`
/// of the arrangements so the coefficients stay probabilities. Each
/// factor changes a coefficient only from those below it, so the first
/// `limit + 1` are exact without the others: `O(min(m, n) · limit)` time,
/// `O(limit)` memory (the recursion over (m, n) it replaced held
/// `O(m·n²)` numbers: 2 GB and minutes for 1000 rounds against 1000).
///
/// The division by `1 − q^i` amplifies rounding as the rounds grow (by
/// 1e-11 at 300 against 300, past any use at 700): None when the result
/// fails U's symmetry (`P(U ≤ (mn−1)/2) = ½` for odd `mn`) by more than
/// 1e-9 or a probability falls below zero, and the caller approximates.
fn counted_cdf(m: usize, n: usize, limit: usize) -> Option<Vec<f64>> {
    let (m, n) = (m.min(n), m.max(n));
    let total = m * n;
    // The check needs the coefficients up to the middle.
    let upto = limit.max(total / 2).min(total);
    let mut p = vec![0.0; upto + 1];
    p[0] = 1.0;
    for i in 1..=m {
        let s = n + i;
        // × (1 − q^s), from the top down.
        for u in (s..=upto).rev() {
            p[u] -= p[u - s];
        }
        // ÷ (1 − q^i) and × i/s, from the bottom up.
        let f = i as f64 / s as f64;
        for u in 0..=upto {
            p[u] = if u >= i {
                f * p[u] + p[u - i]
            } else {
                f * p[u]
            };
        }
    }
    if p.iter().any(|x| *x < -1e-12) {
        return None;
    }
    let mut acc = 0.0;
    for x in p.iter_mut() {
        acc += *x;
        *x = acc;
    }
    // Symmetric about mn/2: P(U ≤ h−1) + P(U ≤ h) = 1 for h = mn/2 (even
    // mn), P(U ≤ (mn−1)/2) = ½ (odd).
    let h = total / 2;
    let off = if total == 0 {
        0.0
    } else if total % 2 == 1 {
        p[h] - 0.5
    } else {
        p[h - 1] + p[h] - 1.0
    };
    if off.abs() > 1e-9 {
        return None;
    }
    p.truncate(limit + 1);
    for x in p.iter_mut() {
        *x = x.clamp(0.0, 1.0);
    }
    Some(p)
}

/// `P(U ≤ u)` for `u = 0, …, limit` by the normal approximation with the
/// continuity correction, `Φ((u + ½ − mn/2) / σ)`, `σ² = mn(m+n+1)/12`.
/// Its tail (P between 0.001 and 0.05) differs from the count by at most
/// 6e-4 at 20 against 20 rounds, 1.1e-4 at 100 against 100 and 3.8e-5 at
/// 300 against 300, shrinking as the rounds grow (the tests check it).
pub fn normal_cdf(m: usize, n: usize, limit: usize) -> Vec<f64> {
    let (mf, nf) = (m as f64, n as f64);
    let mean = mf * nf / 2.0;
    let sd = (mf * nf * (mf + nf + 1.0) / 12.0).sqrt();
    (0..=limit.min(m * n))
        .map(|u| {
            if sd == 0.0 {
                1.0
            } else {
                0.5 * erfc(-(u as f64 + 0.5 - mean) / sd / std::f64::consts::SQRT_2)
            }
        })
        .collect()
}

/// The complementary error function, to a relative 1.2e-7 (the
/// Chebyshev fit of Press et al., Numerical Recipes §6.2).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The set of values a pairwise difference allows: `[low, high]`.
pub(crate) fn range(a: CensoredQuantile, b: CensoredQuantile) -> Option<(f64, f64)> {
    use CensoredQuantile as Q;
    match (a, b) {
        (Q::Value(x), Q::Value(y)) => Some((y - x, y - x)),
        (Q::AtLeast(x), Q::Value(y)) => Some((f64::NEG_INFINITY, y - x)),
        (Q::Value(x), Q::AtLeast(y)) => Some((y - x, f64::INFINITY)),
        (Q::AtLeast(_), Q::AtLeast(_)) => Some((f64::NEG_INFINITY, f64::INFINITY)),
        _ => None,
    }
}

/// The lower and the upper ends of every pairwise difference's
/// [`range`], as two lists (pair by pair in the same order): `m·n` numbers
/// each and nothing else held (a million for 1000 rounds against 1000).
pub(crate) fn pair_ranges(a: &[CensoredQuantile], b: &[CensoredQuantile]) -> (Vec<f64>, Vec<f64>) {
    let mut lows = Vec::with_capacity(a.len() * b.len());
    let mut highs = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            if let Some((l, h)) = range(*x, *y) {
                lows.push(l);
                highs.push(h);
            }
        }
    }
    (lows, highs)
}

fn endpoint(lo: f64, hi: f64, upper: bool) -> Bounded {
    if lo == hi {
        return Bounded::Value(lo);
    }
    let (near, far) = if upper { (hi, lo) } else { (lo, hi) };
    match (near.is_finite(), far.is_finite(), upper) {
        (true, _, true) => Bounded::AtMost(near),
        (true, _, false) => Bounded::AtLeast(near),
        (false, true, true) => Bounded::AtLeast(far),
        (false, true, false) => Bounded::AtMost(far),
        (false, false, _) => Bounded::Unknown,
    }
}

/// The distribution-free interval for `b − a` over per-round values (see
/// the module): the largest `k` whose level reaches `wanted` (0.95), else
/// `k = 1` with its own, lower, level (0.9 for 3 vs 3 rounds). Rounds without data are left out; with no round on either side
/// both endpoints are unknown and the level is 0.
pub fn shift_interval(
    a: &[CensoredQuantile],
    b: &[CensoredQuantile],
    wanted: f64,
) -> ShiftInterval {
    let a: Vec<CensoredQuantile> = a
        .iter()
        .copied()
        .filter(|q| !matches!(q, CensoredQuantile::NoData))
        .collect();
    let b: Vec<CensoredQuantile> = b
        .iter()
        .copied()
        .filter(|q| !matches!(q, CensoredQuantile::NoData))
        .collect();
    let (m, n) = (a.len(), b.len());
    if m == 0 || n == 0 {
        return ShiftInterval {
            low: Bounded::Unknown,
            high: Bounded::Unknown,
            level: 0.0,
            k: 0,
            rounds: (m, n),
            unknown_pairs: 0,
        };
    }
    let half = (m * n).div_ceil(2);
    // Only the lower tail is needed: k ≤ half.
    let cdf = lower_cdf(m, n, half);
    let level = |k: usize| 1.0 - 2.0 * cdf[k - 1];
    let k = (1..=half)
        .take_while(|&k| level(k) >= wanted - 1e-12)
        .last()
        .unwrap_or(1);
    let (mut lows, mut highs) = pair_ranges(&a, &b);
    let unknown_pairs = lows
        .iter()
        .zip(&highs)
        .filter(|(l, h)| !l.is_finite() && !h.is_finite())
        .count();
    lows.sort_by(f64::total_cmp);
    highs.sort_by(f64::total_cmp);
    let r = m * n + 1 - k;
    // The k-th smallest true difference lies in [k-th low, k-th high].
    let low = endpoint(lows[k - 1], highs[k - 1], false);
    let high = endpoint(lows[r - 1], highs[r - 1], true);
    ShiftInterval {
        low,
        high,
        level: level(k),
        k,
        rounds: (m, n),
        unknown_pairs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CensoredQuantile::{AtLeast, Value};

    fn binom(n: u64, k: u64) -> f64 {
        (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
    }

    #[test]
    fn the_null_distribution_counts_arrangements() {
        // 3 vs 3: 20 arrangements; U = 0, 1, 2 in 1, 1, 2 of them.
        let c = mann_whitney_cdf(3, 3);
        assert_eq!(c.len(), 10);
        for (u, want) in [(0, 1.0), (1, 2.0), (2, 4.0), (8, 19.0), (9, 20.0)] {
            assert!((c[u] - want / 20.0).abs() < 1e-12, "u={u}: {}", c[u]);
        }
        // Unequal sizes: P(U = 0) = 1 / C(m+n, m).
        for (m, n) in [(2, 5), (4, 3), (6, 6), (1, 1)] {
            let c = mann_whitney_cdf(m, n);
            assert!((c[0] - 1.0 / binom((m + n) as u64, m as u64)).abs() < 1e-12);
            assert!((c[m * n] - 1.0).abs() < 1e-12);
        }
    }

    /// The recursion `p(u; m, n) = n/(m+n)·p(u − m; m, n−1) +
    /// m/(m+n)·p(u; m−1, n)`, as the distribution was first computed.
    fn by_recursion(m: usize, n: usize) -> Vec<f64> {
        let mut table: Vec<Vec<f64>> = (0..=n).map(|_| vec![1.0]).collect();
        for i in 1..=m {
            let mut next: Vec<Vec<f64>> = vec![vec![1.0]];
            for j in 1..=n {
                let w = (i + j) as f64;
                let row = (0..=i * j)
                    .map(|u| {
                        let b = if u >= i {
                            next[j - 1].get(u - i).copied().unwrap_or(0.0)
                        } else {
                            0.0
                        };
                        let a = table[j].get(u).copied().unwrap_or(0.0);
                        j as f64 / w * b + i as f64 / w * a
                    })
                    .collect();
                next.push(row);
            }
            table = next;
        }
        let mut acc = 0.0;
        let mut cdf = table.pop().unwrap_or_else(|| vec![1.0]);
        for p in cdf.iter_mut() {
            acc += *p;
            *p = acc.min(1.0);
        }
        cdf
    }

    #[test]
    fn the_generating_function_gives_the_recursions_distribution() {
        for m in 0..=12 {
            for n in 0..=12 {
                let (a, b) = (mann_whitney_cdf(m, n), by_recursion(m, n));
                assert_eq!(a.len(), b.len(), "{m} vs {n}");
                for (u, (x, y)) in a.iter().zip(&b).enumerate() {
                    assert!((x - y).abs() < 1e-12, "{m} vs {n}, u = {u}: {x} {y}");
                }
            }
        }
        // Counted up to 300 rounds a side: 300 against 300 and 10
        // against 300 pass the symmetry check.
        for (m, n) in [(300, 300), (10, 300), (120, 250)] {
            assert!(counted_cdf(m, n, m * n / 2).is_some(), "{m} vs {n}");
        }
        // 1000 rounds against 1000: the normal approximation (U's mean
        // 500000, sd 12913; the 2.5 % point near the mean − 1.96 sd).
        let c = lower_cdf(1000, 1000, 500_000);
        let q = c.iter().position(|p| *p > 0.025).unwrap() as f64;
        assert!((q - (500_000.0 - 1.96 * 12_913.0)).abs() < 100.0, "{q}");
    }

    #[test]
    fn the_normal_approximation_is_close_in_the_tail_where_it_stands_in() {
        // Where the count and the approximation both exist, the tail the
        // interval reads (P from 0.001 to 0.05) differs by little, and
        // less as the rounds grow.
        for (m, n, most) in [(20, 20, 7e-4), (100, 100, 1.5e-4), (300, 300, 5e-5)] {
            let half = m * n / 2;
            let exact = counted_cdf(m, n, half).unwrap();
            let approx = normal_cdf(m, n, half);
            let worst = exact
                .iter()
                .zip(&approx)
                .filter(|(e, _)| (0.001..0.05).contains(*e))
                .map(|(e, a)| (e - a).abs())
                .fold(0.0, f64::max);
            assert!(worst < most, "{m} vs {n}: {worst}");
        }
        // The level 1000 vs 1000 rounds give at k = 1: as good as 1.
        let s = shift_interval(&[Value(1.0); 1000], &[Value(2.0); 1000], 0.95);
        assert!(s.level >= 0.95 && s.k > 1, "{s:?}");
    }

    #[test]
    fn the_level_is_the_one_the_rounds_allow() {
        let v = |xs: &[f64]| xs.iter().map(|x| Value(*x)).collect::<Vec<_>>();
        let s = shift_interval(&v(&[1.0, 2.0, 3.0]), &v(&[1.5, 2.5, 3.5]), 0.95);
        assert_eq!((s.k, s.rounds), (1, (3, 3)));
        assert!((s.level - 0.9).abs() < 1e-12);
        assert_eq!((s.low, s.high), (Bounded::Value(-1.5), Bounded::Value(2.5)));
        // 4 vs 4: k = 1 gives 1 − 2/70 = 97.1 %, k = 2 only 94.3 %.
        let s = shift_interval(&v(&[1.0, 2.0, 3.0, 4.0]), &v(&[1.0, 2.0, 3.0, 4.0]), 0.95);
        assert_eq!(s.k, 1);
        assert!((s.level - (1.0 - 2.0 / 70.0)).abs() < 1e-12);
        // 5 vs 5: P(U ≤ 2) = 4/252, so k = 3 at 96.8 %.
        let x = v(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        let y = v(&[10.0, 20.0, 30.0, 40.0, 50.0]);
        let s = shift_interval(&x, &y, 0.95);
        assert_eq!(s.k, 3);
        assert!((s.level - (1.0 - 8.0 / 252.0)).abs() < 1e-12);
        // The third smallest of the 25 differences: 10 − 5, 10 − 4, 10 − 3.
        assert_eq!(s.low, Bounded::Value(7.0));
        assert_eq!(s.high, Bounded::Value(47.0));
    }

    #[test]
    fn per_round_goodputs_give_an_interval_within_their_spread() {
        // Goodputs of 4.78–5.12 Mbit/s per round. Over the
        // rounds' own values the interval can never be wider than the
        // extreme pairwise differences (±0.34), unlike the bin bootstrap's
        // [-1.51, 0.877].
        let a = [Value(4.78), Value(5.12), Value(4.95)];
        let b = [Value(4.80), Value(4.90), Value(5.02)];
        let s = shift_interval(&a, &b, 0.95);
        let (Bounded::Value(lo), Bounded::Value(hi)) = (s.low, s.high) else {
            panic!("{s:?}")
        };
        assert!((lo - (4.80 - 5.12)).abs() < 1e-12 && (hi - (5.02 - 4.78)).abs() < 1e-12);
        assert!(lo < 0.0 && hi > 0.0);
    }

    #[test]
    fn censored_rounds_give_bounded_endpoints() {
        // Every first-arm round on the censored mass (≥ 1000 ms), the
        // second arm's medians 14.3, 4.6, 6.6 ms: every difference is only
        // "≤ x"; the upper endpoint is at most the largest of them.
        let a = [AtLeast(1000.0); 3];
        let b = [Value(14.3), Value(4.6), Value(6.6)];
        let s = shift_interval(&a, &b, 0.95);
        assert!(
            matches!(s.high, Bounded::AtMost(x) if (x - (14.3 - 1000.0)).abs() < 1e-9),
            "{s:?}"
        );
        assert!(
            matches!(s.low, Bounded::AtMost(x) if (x - (4.6 - 1000.0)).abs() < 1e-9),
            "{s:?}"
        );
        // Mixed: one first-arm round known at 600 ms.
        let a = [AtLeast(1000.0), Value(600.0), AtLeast(1000.0)];
        let s = shift_interval(&a, &b, 0.95);
        // Largest upper end: 14.3 − 600.
        assert!(
            matches!(s.high, Bounded::Value(x) if (x - (14.3 - 600.0)).abs() < 1e-9),
            "{s:?}"
        );
        // Both arms censored in every round: nothing known.
        let s = shift_interval(&a, &[AtLeast(1000.0); 3], 0.95);
        assert_eq!(s.high, Bounded::AtLeast(400.0));
        let s = shift_interval(&[AtLeast(1000.0); 3], &[AtLeast(1000.0); 3], 0.95);
        assert_eq!(
            (s.low, s.high, s.unknown_pairs),
            (Bounded::Unknown, Bounded::Unknown, 9)
        );
        // No data at all.
        let s = shift_interval(&[], &b, 0.95);
        assert_eq!((s.low, s.level), (Bounded::Unknown, 0.0));
    }
}
