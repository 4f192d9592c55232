//! Models that predict what a measurement should be, from a scenario's own
//! parameters, so the report can draw them beside the measurement (never
//! instead of it). Pure arithmetic; each derivation is in
//! docs/models.md, which cites the kernel functions it follows.
//!
//! ```
//! use std::time::Duration;
//! use netlab_report::predict::{fifo_delay_bound, SparseFlow};
//!
//! // pfifo limit 256 of 1,514-byte packets at 5 Mbit/s: at most 620 ms.
//! let bound = fifo_delay_bound(256, 1514, 5_000_000);
//! assert_eq!(bound.as_micros(), 620_134);
//!
//! // A probe of 64-byte frames every 20 ms beside N bulk flows, fq_codel's
//! // quantum 1,514 at 5 Mbit/s: sparse up to N* ≈ 8.26 bulk flows.
//! let m = SparseFlow { quantum: 1514, rate_bps: 5_000_000, probe_bytes: 64, interval: Duration::from_millis(20) };
//! assert!((m.boundary() - 8.256).abs() < 0.001);
//! ```

use std::time::Duration;

/// The most queueing delay a FIFO of `limit` packets of `packet_bytes`
/// (on the wire, link header included) adds at `rate_bps`:
/// limit × L × 8 / R. A sanity line for pfifo's figures: a measured delay
/// above it means the queue held larger packets than `packet_bytes`
/// (aggregates, with offloads on; method §1).
pub fn fifo_delay_bound(limit: u64, packet_bytes: u64, rate_bps: u64) -> Duration {
    link_time(limit.saturating_mul(packet_bytes), rate_bps)
}

/// How long `bytes` hold a link of `rate_bps`.
pub fn link_time(bytes: u64, rate_bps: u64) -> Duration {
    if rate_bps == 0 {
        return Duration::MAX;
    }
    let nanos = u128::from(bytes) * 8 * 1_000_000_000 / u128::from(rate_bps);
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

/// FQ-CoDel's sparse-flow boundary (docs/models.md): a flow that sends one
/// `probe_bytes` packet every `interval` beside N backlogged bulk flows,
/// each served `quantum` bytes per round at `rate_bps`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SparseFlow {
    /// The qdisc's quantum in bytes (fq_codel: the device MTU + link
    /// header, 1,514, unless set; read back from the arm).
    pub quantum: u64,
    /// The bottleneck rate in bit/s.
    pub rate_bps: u64,
    /// The probe packet's size on the wire.
    pub probe_bytes: u64,
    /// The probe's sending interval T.
    pub interval: Duration,
}

/// Where a probe packet is served at a given number of bulk flows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Regime {
    /// One round over the bulk flows is shorter than T: the probe's flow has
    /// left the lists before its next packet, which is served from
    /// `new_flows` (waiting at most for the packet on the link).
    Sparse,
    /// T ≤ W < 2T: a packet that finds its flow still on `old_flows`
    /// waits for the rest of the round (about W − T); the flow then leaves
    /// the lists, so roughly every other packet waits.
    Alternating,
    /// W ≥ 2T: the flow never leaves the lists; it is a bulk flow of its
    /// own and its packets wait up to a round.
    Listed,
}

/// The model's prediction at one number of bulk flows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SparsePrediction {
    /// N, the number of backlogged bulk flows.
    pub bulk_flows: u32,
    /// W = (N·Q + S)·8/R, one round over the bulk flows and the probe.
    pub round: Duration,
    /// The regime at this N.
    pub regime: Regime,
    /// The delay of a packet served as a sparse flow's: at most one bulk
    /// packet (a quantum) on the link, plus its own transmission.
    pub sparse_delay: Duration,
    /// The delay of a packet that waits for the rest of a round (W − T
    /// plus its own transmission); equal to `sparse_delay` when none waits.
    pub waiting_delay: Duration,
    /// The share of the probe's packets that open a new flow
    /// (fq_codel's `new_flow_count` per probe packet): 1, about ½, or
    /// about 0.
    pub new_flow_share: f64,
}

impl SparseFlow {
    /// One round W over `n` bulk flows and the probe.
    pub fn round(&self, n: u32) -> Duration {
        link_time(
            u64::from(n) * self.quantum + self.probe_bytes,
            self.rate_bps,
        )
    }

    /// N* = T·R / (8·Q): the number of bulk flows at which one round of
    /// quanta lasts T (the probe's own bytes left out, as in the issue's
    /// statement of the model; `round` keeps them).
    pub fn boundary(&self) -> f64 {
        self.interval.as_secs_f64() * self.rate_bps as f64 / (8.0 * self.quantum as f64)
    }

    /// The prediction at `n` bulk flows.
    pub fn at(&self, n: u32) -> SparsePrediction {
        let round = self.round(n);
        let own = link_time(self.probe_bytes, self.rate_bps);
        let sparse_delay = link_time(self.quantum, self.rate_bps) + own;
        let t = self.interval;
        let (regime, waiting_delay, new_flow_share) = if round < t {
            (Regime::Sparse, sparse_delay, 1.0)
        } else if round < 2 * t {
            (Regime::Alternating, round - t + own, 0.5)
        } else {
            (Regime::Listed, round + own, 0.0)
        };
        SparsePrediction {
            bulk_flows: n,
            round,
            regime,
            sparse_delay,
            waiting_delay,
            new_flow_share,
        }
    }

    /// The predicted p50 and p99 of the probe's one-way queueing delay at
    /// `n` bulk flows: sparse, both are the sparse delay; alternating,
    /// about half the packets wait, so the p99 shows the wait first and
    /// the p50 sits at the boundary between the two (the waiting one is
    /// given: the median of a half-and-half sample is either); listed,
    /// both are of the order of a round.
    pub fn quantiles(&self, n: u32) -> (Duration, Duration) {
        let p = self.at(n);
        match p.regime {
            Regime::Sparse => (p.sparse_delay, p.sparse_delay),
            Regime::Alternating => (p.sparse_delay, p.waiting_delay),
            Regime::Listed => (p.waiting_delay / 2, p.waiting_delay),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Duration) -> f64 {
        d.as_secs_f64() * 1000.0
    }

    /// The FIFO bound worked by hand: 256 × 1514 × 8 = 3,100,672 bit at
    /// 5 Mbit/s is 620.1344 ms; 1000 × 1514 × 8 at 100 Mbit/s is 121.12 ms.
    #[test]
    fn fifo_bound_by_hand() {
        assert_eq!(
            fifo_delay_bound(256, 1514, 5_000_000),
            Duration::from_nanos(620_134_400)
        );
        assert_eq!(
            fifo_delay_bound(1000, 1514, 100_000_000),
            Duration::from_nanos(121_120_000)
        );
        assert_eq!(fifo_delay_bound(1, 1, 0), Duration::MAX);
    }

    /// The issue's numbers: at 5 Mbit/s and T = 20 ms, N* = 0.02 × 5e6 /
    /// (8 × 1514) = 100,000 / 12,112 = 8.2563.
    #[test]
    fn boundary_by_hand() {
        let m = SparseFlow {
            quantum: 1514,
            rate_bps: 5_000_000,
            probe_bytes: 110,
            interval: Duration::from_millis(20),
        };
        assert!((m.boundary() - 100_000.0 / 12_112.0).abs() < 1e-9);
        // T = 10 ms halves it, T = 50 ms gives 20.64.
        let t10 = SparseFlow {
            interval: Duration::from_millis(10),
            ..m
        };
        let t50 = SparseFlow {
            interval: Duration::from_millis(50),
            ..m
        };
        assert!((t10.boundary() - 4.128).abs() < 1e-3);
        assert!((t50.boundary() - 20.641).abs() < 1e-3);
    }

    /// Rounds by hand (5 Mbit/s: 1 byte = 1.6 µs): N = 8: (8 × 1514 + 110)
    /// × 1.6 µs = 19.5552 ms < 20 ms, sparse; N = 9: 21.9776 ms, waits
    /// 1.9776 + 0.176 ms; N = 16: 38.9344 ms (< 40 ms), still alternating;
    /// N = 17: 41.3568 ms ≥ 2T, listed.
    #[test]
    fn regimes_by_hand() {
        let m = SparseFlow {
            quantum: 1514,
            rate_bps: 5_000_000,
            probe_bytes: 110,
            interval: Duration::from_millis(20),
        };
        let p8 = m.at(8);
        assert!((ms(p8.round) - 19.5552).abs() < 1e-9);
        assert_eq!(p8.regime, Regime::Sparse);
        assert_eq!(p8.new_flow_share, 1.0);
        // Sparse delay: 1514 + 110 bytes at 5 Mbit/s = 2.5984 ms.
        assert!((ms(p8.sparse_delay) - 2.5984).abs() < 1e-9);
        assert_eq!(p8.waiting_delay, p8.sparse_delay);

        let p9 = m.at(9);
        assert!((ms(p9.round) - 21.9776).abs() < 1e-9);
        assert_eq!(p9.regime, Regime::Alternating);
        assert!((ms(p9.waiting_delay) - (1.9776 + 0.176)).abs() < 1e-9);
        assert_eq!(p9.new_flow_share, 0.5);

        assert_eq!(m.at(16).regime, Regime::Alternating);
        assert!((ms(m.at(16).round) - 38.9344).abs() < 1e-9);
        assert_eq!(m.at(17).regime, Regime::Listed);
        assert_eq!(m.at(17).new_flow_share, 0.0);

        let (p50, p99) = m.quantiles(9);
        assert_eq!(p50, p9.sparse_delay);
        assert_eq!(p99, p9.waiting_delay);
        let (p50, p99) = m.quantiles(4);
        assert_eq!(p50, p99);
    }
}
