//! Models that predict what a measurement should be, from a scenario's own
//! parameters, so the report can draw them beside the measurement (never
//! instead of it). Pure arithmetic; each derivation is in
//! docs/models.md, which cites the kernel functions it follows.
//!
//! ```
//! use std::time::Duration;
//! use netlab_analysis::{fifo_delay_bound, SparseFlow};
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
pub(crate) fn link_time(bytes: u64, rate_bps: u64) -> Duration {
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
    /// quanta lasts T (the probe's own bytes left out, as docs/models.md
    /// states the model; `round` keeps them).
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

/// Mathis et al. (1997) with the measured RTT (docs/models.md, model 3):
/// N long-lived Reno flows that share a link of `rate_bps` fill it, each
/// with a mean window W = R · RTT / (8 · N · L) packets of `packet_bytes`
/// on the link, and Reno holds W ≈ √(3 / (2p)) at a congestion signal
/// probability p, so p ≈ 1.5 / W² = 1.5 · (8 · N · L / (R · RTT))².
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MathisLaw {
    /// The bottleneck rate, bit/s.
    pub rate_bps: u64,
    /// A full segment on the link (MSS plus TCP/IP options and link
    /// header), bytes.
    pub packet_bytes: u64,
    /// The flows' measured mean RTT (base plus the queue the arm kept).
    pub rtt: Duration,
}

/// The least window, in packets, the law is asked for: below 2 packets a
/// Reno flow lives on timeouts and fast retransmit cannot work, which the
/// law's derivation does not allow for.
pub(crate) const MATHIS_MIN_WINDOW: f64 = 2.0;

impl MathisLaw {
    /// Each of `n` flows' mean window, packets.
    pub fn window(&self, n: u32) -> f64 {
        let pipe_bits = self.rate_bps as f64 * self.rtt.as_secs_f64();
        pipe_bits / (8.0 * f64::from(n.max(1)) * self.packet_bytes.max(1) as f64)
    }

    /// The congestion-signal probability at `n` flows; `None` out of the
    /// law's range (a window under [`MATHIS_MIN_WINDOW`]).
    pub fn p(&self, n: u32) -> Option<f64> {
        let w = self.window(n);
        (w >= MATHIS_MIN_WINDOW).then(|| 1.5 / (w * w))
    }
}

/// Ware et al. (IMC 2019) §4–5 (docs/models.md, model 4): BBRv1 flows
/// against loss-based flows in a drop-tail buffer of `buffer_packets`,
/// `bdp_multiple` BDPs deep, on a link of `rate_pps` packets/s with base
/// RTT `base_rtt`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BbrShare {
    /// The buffer in BDPs, X.
    pub bdp_multiple: f64,
    /// The buffer in packets, q = X · c · l.
    pub buffer_packets: f64,
    /// The link rate in packets/s, c.
    pub rate_pps: f64,
    /// The base RTT, l.
    pub base_rtt: Duration,
    /// BBR flows, N.
    pub bbr_flows: u32,
}

/// What model 4 gives: the loss-based flows' and BBR's aggregate shares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BbrPrediction {
    /// p = max(0, 1/2 − 1/(2X) − 4N/q).
    pub loss_based: f64,
    /// (1 − p) · (1 − (q/c + 0.2 s + l) / 10 s): BBR's share less its
    /// time in ProbeRTT.
    pub bbr: f64,
}

impl BbrShare {
    /// A buffer of `bdp_multiple` BDPs at `rate_bps` in packets of
    /// `packet_bytes` and base RTT `base_rtt` (the tests' way to state a
    /// case; a sweep's rows fill the fields from their readbacks).
    #[cfg(test)]
    pub fn new(
        bdp_multiple: f64,
        rate_bps: u64,
        packet_bytes: u64,
        base_rtt: Duration,
        bbr_flows: u32,
    ) -> BbrShare {
        let rate_pps = rate_bps as f64 / (8.0 * packet_bytes.max(1) as f64);
        BbrShare {
            bdp_multiple,
            buffer_packets: bdp_multiple * rate_pps * base_rtt.as_secs_f64(),
            rate_pps,
            base_rtt,
            bbr_flows,
        }
    }

    /// The shares; `None` out of the model's range (X < 1: BBR's
    /// in-flight cap of 2 BDP never binds against a buffer that small,
    /// which the model does not cover).
    pub fn predict(&self) -> Option<BbrPrediction> {
        if self.bdp_multiple < 1.0 || self.buffer_packets <= 0.0 || self.rate_pps <= 0.0 {
            return None;
        }
        let x = self.bdp_multiple;
        let p = (0.5 - 1.0 / (2.0 * x) - 4.0 * f64::from(self.bbr_flows) / self.buffer_packets)
            .max(0.0);
        let probe_rtt =
            (self.buffer_packets / self.rate_pps + 0.2 + self.base_rtt.as_secs_f64()) / 10.0;
        Some(BbrPrediction {
            loss_based: p,
            bbr: (1.0 - p) * (1.0 - probe_rtt),
        })
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

    /// By hand: at 5 Mbit/s and T = 20 ms, N* = 0.02 × 5e6 /
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

    /// Model 3 by hand: 10 Mbit/s, 25 ms, 1,514-byte segments on the link.
    /// The pipe is 250,000 bit = 20.64 packets; one flow's window 20.64
    /// gives p = 1.5 / 20.64² = 0.003521; at N = 8 W = 2.580, p = 0.2253;
    /// at N = 16 W = 1.290 < 2: out of range.
    #[test]
    fn mathis_law_by_hand() {
        let m = MathisLaw {
            rate_bps: 10_000_000,
            packet_bytes: 1514,
            rtt: Duration::from_millis(25),
        };
        assert!((m.window(1) - 20.6407).abs() < 1e-4, "{}", m.window(1));
        assert!((m.p(1).unwrap() - 0.0035209).abs() < 1e-6, "{:?}", m.p(1));
        assert!((m.window(8) - 2.58009).abs() < 1e-4);
        assert!((m.p(8).unwrap() - 0.225335).abs() < 1e-5, "{:?}", m.p(8));
        assert_eq!(m.p(16), None);
        // p grows as N² while the RTT holds: 4× from N = 1 to 2.
        assert!((m.p(2).unwrap() / m.p(1).unwrap() - 4.0).abs() < 1e-9);
    }

    /// Model 4 by hand at 10 Mbit/s, 40 ms, 1,500-byte packets, one BBR
    /// flow: c = 833.33 packets/s, a BDP of 33.33 packets. X = 1: p = 0,
    /// BBR 1 − (0.04 + 0.2 + 0.04)/10 = 0.972. X = 2: p = 0.25 − 0.06 =
    /// 0.19, BBR 0.81 · 0.968 = 0.78408. X = 64: q = 2133.3, p = 0.5 −
    /// 0.0078125 − 0.001875 = 0.4903125, BBR 0.5096875 · 0.72 = 0.366975.
    /// docs/models.md's table (0.97, 0.78, …, 0.37) rounds these.
    #[test]
    fn bbr_share_by_hand() {
        let at = |x: f64| {
            BbrShare::new(x, 10_000_000, 1500, Duration::from_millis(40), 1)
                .predict()
                .unwrap()
        };
        let one = at(1.0);
        assert!(
            one.loss_based.abs() < 1e-12 && (one.bbr - 0.972).abs() < 1e-9,
            "{one:?}"
        );
        let two = at(2.0);
        assert!(
            (two.loss_based - 0.19).abs() < 1e-9 && (two.bbr - 0.78408).abs() < 1e-9,
            "{two:?}"
        );
        let deep = at(64.0);
        assert!((deep.loss_based - 0.4903125).abs() < 1e-9, "{deep:?}");
        assert!((deep.bbr - 0.366975).abs() < 1e-9, "{deep:?}");
        let table: Vec<String> = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
            .iter()
            .map(|&x| format!("{:.2}", at(x).bbr))
            .collect();
        assert_eq!(
            table,
            ["0.97", "0.78", "0.63", "0.55", "0.49", "0.44", "0.37"]
        );
        assert_eq!(
            BbrShare::new(0.5, 10_000_000, 1500, Duration::from_millis(40), 1).predict(),
            None
        );
    }
}
