//! Where a loss-based flow settles behind a tail-drop FIFO, and whether two
//! loads land in each state equally often (method §13.5). Pure.
//!
//! Behind `pfifo limit L` at rate R, a Reno flow overshoots in slow start,
//! is cut, and settles where its window fits the queue. pfifo counts skbs,
//! not bytes: a queue of L single-segment skbs holds `L × 1514 B / R` of
//! delay, a queue of two-segment skbs twice that. Which one a round gets
//! depends on how often the receiver ACKs (one ACK per segment gives the
//! sender one-segment skbs), so the rounds of one load fall into a *deep*
//! state (standing delay above the single-segment capacity: the queue holds
//! multi-segment skbs) or a *shallow* one. The split is drawn halfway
//! between the two capacities, at 1.5 × `L × 1514 B / R`.

use netlab_analysis::fifo_delay_bound;
use serde::{Deserialize, Serialize};

/// Bytes on the wire of a full-sized frame (1448 B payload + TCP/IP with
/// timestamps + Ethernet header), as TBF counts it.
pub const FULL_FRAME_BYTES: u64 = 1514;

/// A round's standing state behind a tail-drop FIFO.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StandingState {
    /// The standing delay exceeds what the queue holds in single-segment
    /// skbs by half as much again: it holds multi-segment skbs.
    Deep,
    /// At or below that.
    Shallow,
}

/// The delay a `pfifo` of `limit` skbs holds when every skb is one
/// full-sized frame, at `rate_bytes_per_s` (ms).
/// The report's FIFO bound ([`netlab_analysis::fifo_delay_bound`],
/// method §12) of `limit` full-sized frames: one figure, one definition.
pub fn single_segment_capacity_ms(limit: u32, rate_bytes_per_s: f64) -> f64 {
    let rate_bps = (rate_bytes_per_s * 8.0).round() as u64;
    fifo_delay_bound(u64::from(limit), FULL_FRAME_BYTES, rate_bps).as_secs_f64() * 1e3
}

/// The split between the states: 1.5 × the single-segment capacity (ms).
pub fn split_ms(limit: u32, rate_bytes_per_s: f64) -> f64 {
    1.5 * single_segment_capacity_ms(limit, rate_bytes_per_s)
}

/// The state of a round whose sender's median tcp_info RTT over the
/// window was `rtt_median_ms`.
pub fn standing_state(rtt_median_ms: f64, split_ms: f64) -> StandingState {
    if rtt_median_ms > split_ms {
        StandingState::Deep
    } else {
        StandingState::Shallow
    }
}

fn ln_factorial(n: u32) -> f64 {
    (2..=n).map(|k| f64::from(k).ln()).sum()
}

/// Fisher's exact test, two-sided, for the 2×2 table `[[a, b], [c, d]]`
/// (rows: two loads; columns: rounds deep, rounds shallow): the
/// probability, with the margins fixed, of a table at most as likely as
/// the one observed. 1.0 for an empty table.
pub fn fisher_two_sided(a: u32, b: u32, c: u32, d: u32) -> f64 {
    let (r1, r2, c1) = (a + b, c + d, a + c);
    let n = r1 + r2;
    if n == 0 {
        return 1.0;
    }
    let ln_p = |x: u32| -> f64 {
        // P(top-left = x) under the hypergeometric law with these margins.
        ln_factorial(r1) + ln_factorial(r2) + ln_factorial(c1) + ln_factorial(n - c1)
            - ln_factorial(n)
            - ln_factorial(x)
            - ln_factorial(r1 - x)
            - ln_factorial(c1 - x)
            - ln_factorial(r2 + x - c1)
    };
    let lo = c1.saturating_sub(r2);
    let hi = r1.min(c1);
    let observed = ln_p(a);
    let p: f64 = (lo..=hi)
        .map(ln_p)
        // A relative tolerance, as R's fisher.test uses, so tables exactly
        // as likely as the observed one are not lost to rounding.
        .filter(|lp| *lp <= observed + 1e-7)
        .map(f64::exp)
        .sum();
    p.min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_sits_between_the_one_and_two_segment_capacities() {
        // pfifo limit 256 at 5 Mbit/s: 620 ms of single-segment skbs.
        let one = single_segment_capacity_ms(256, 625_000.0);
        assert!((one - 620.1).abs() < 0.1, "{one}");
        let s = split_ms(256, 625_000.0);
        assert!((s - 930.2).abs() < 0.1, "{s}");
        assert_eq!(standing_state(1044.0, s), StandingState::Deep);
        assert_eq!(standing_state(516.0, s), StandingState::Shallow);
        assert_eq!(standing_state(s, s), StandingState::Shallow);
    }

    #[test]
    fn fisher_matches_known_values() {
        // Fisher's tea-tasting table: p = 0.4857 two-sided.
        assert!((fisher_two_sided(3, 1, 1, 3) - 0.485_714).abs() < 1e-5);
        // 10 of 10 against 0 of 10: p = 2 / C(20, 10) = 1.0825e-5.
        assert!((fisher_two_sided(10, 0, 0, 10) - 1.082_5e-5).abs() < 1e-8);
        // The same proportions: nothing to see.
        assert!((fisher_two_sided(5, 5, 5, 5) - 1.0).abs() < 1e-12);
        // 6 of 6 deep against 2 of 6: p = 0.0606.
        assert!((fisher_two_sided(6, 0, 2, 4) - 0.060_606).abs() < 1e-5);
        assert_eq!(fisher_two_sided(0, 0, 0, 0), 1.0);
        // Symmetric in the rows and in the columns.
        let p = fisher_two_sided(7, 3, 2, 8);
        assert!((p - fisher_two_sided(2, 8, 7, 3)).abs() < 1e-12);
        assert!((p - fisher_two_sided(3, 7, 8, 2)).abs() < 1e-12);
        // 7 of 10 against 2 of 10: p = 0.0698.
        assert!((p - 0.069_779).abs() < 1e-5, "{p}");
    }
}
