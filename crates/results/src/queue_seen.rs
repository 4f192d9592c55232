//! What R's queue held over the measured window (docs/method.md §14.1),
//! from the qdisc samples results.json already keeps: the arm's own
//! largest packet (fq_codel's and codel's `maxpacket`, CAKE's largest
//! per-tin `max_skblen`) and the aggregation in the queue, backlog bytes ÷
//! queue length in skbs. Not the `packets` counter: it counts GSO
//! segments, so tc's bytes ÷ packets reads about one MTU whether the queue
//! held single frames or aggregates of several.
//!
//! Pure: numbers in, numbers out.

use std::time::Duration;

use netlab_qdisc_model::{Handle, QdiscXstats, ARM_HANDLE};
use serde::{Deserialize, Serialize};

use crate::{QdiscResult, QdiscSample, ScenarioResult};

/// Ethernet's header, which the kernel counts in a qdisc's packet length
/// on a veth: a frame of one MTU is MTU + 14 bytes in the qdisc
/// (netlab-path-settings's, the one the experiment's checks use).
pub use netlab_experiment::LINK_HEADER;

/// The path's MTU when results.json does not record one (the kernel's
/// default on a veth; netlab-path-settings's).
pub use netlab_topology::spec::DEFAULT_MTU;

/// What one shaped direction's arm held over the measured window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueSeen {
    /// `up` or `down`.
    pub direction: String,
    /// The arm's kind.
    pub arm_kind: String,
    /// The largest packet the arm reports having handled, bytes (its own
    /// `maxpacket`/`max_skblen` at the window's end); `None` for kinds that
    /// report none (pfifo, bfifo, fq, pie, fq_pie).
    pub max_packet_bytes: Option<u32>,
    /// Samples inside the measured window.
    pub samples: usize,
    /// Of those, samples whose arm held at least one skb.
    pub samples_queued: usize,
    /// The largest backlog bytes ÷ qlen over those samples, bytes.
    pub aggregate_max_bytes: Option<f64>,
    /// The median of backlog bytes ÷ qlen over those samples, bytes.
    pub aggregate_median_bytes: Option<f64>,
    /// The shaper's rate, bit/s (`None`: unshaped).
    pub rate_bps: Option<f64>,
}

impl QueueSeen {
    /// The larger of the arm's own largest packet and the largest mean
    /// skb in a sample, bytes.
    pub fn largest_bytes(&self) -> Option<f64> {
        let a = self.max_packet_bytes.map(f64::from);
        match (a, self.aggregate_max_bytes) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    /// How long `bytes` hold the link at the shaper's rate.
    pub fn link_time(&self, bytes: f64) -> Option<Duration> {
        let rate = self.rate_bps.filter(|r| *r > 0.0)?;
        Some(Duration::from_secs_f64(bytes * 8.0 / rate))
    }

    /// Whether the queue held something larger than one frame of `mtu`
    /// (MTU + the link header).
    pub fn held_aggregates(&self, mtu: u32) -> bool {
        self.largest_bytes()
            .is_some_and(|b| b > f64::from(mtu + LINK_HEADER))
    }
}

/// The arm's own largest packet in a kind's xstats, bytes.
pub fn max_packet_of(x: &QdiscXstats) -> Option<u32> {
    match x {
        QdiscXstats::FqCodel(x) => Some(x.maxpacket),
        QdiscXstats::Codel(x) => Some(x.maxpacket),
        QdiscXstats::Cake(x) => x.tins.iter().map(|t| t.max_skblen).max(),
        _ => None,
    }
}

/// The samples taken inside `window` (s from t0, both ends included).
pub fn in_window(samples: &[QdiscSample], window: [f64; 2]) -> impl Iterator<Item = &QdiscSample> {
    samples
        .iter()
        .filter(move |s| s.t_s.is_some_and(|t| t >= window[0] && t <= window[1]))
}

/// What the arm of one egress held in `window`; `rate_bps` is the
/// direction's shaper rate.
pub fn queue_seen_of(
    q: &QdiscResult,
    arm_kind: &str,
    window: [f64; 2],
    rate_bps: Option<f64>,
) -> QueueSeen {
    let arm = |s: &QdiscSample| s.records.iter().find(|r| r.handle == ARM_HANDLE).cloned();
    let mut samples = 0;
    let mut aggregates = Vec::new();
    let mut max_packet: Option<u32> = None;
    let mut see_max = |x: Option<&QdiscXstats>| {
        if let Some(m) = x.and_then(max_packet_of) {
            max_packet = Some(max_packet.map_or(m, |p| p.max(m)));
        }
    };
    for s in in_window(&q.samples, window) {
        let Some(r) = arm(s) else { continue };
        samples += 1;
        see_max(r.xstats.as_ref());
        if let Some(st) = r.stats.filter(|st| st.qlen > 0) {
            aggregates.push(f64::from(st.backlog_bytes) / f64::from(st.qlen));
        }
    }
    // The readback at the window's end (the samples may stop short of it).
    if let Some(r) = q.at_window_end.iter().find(|r| r.handle == ARM_HANDLE) {
        see_max(r.xstats.as_ref());
    }
    QueueSeen {
        direction: q.direction.clone(),
        arm_kind: arm_kind.to_string(),
        max_packet_bytes: max_packet,
        samples,
        samples_queued: aggregates.len(),
        aggregate_max_bytes: aggregates.iter().copied().reduce(f64::max),
        aggregate_median_bytes: netlab_stats::median(&mut aggregates),
        rate_bps,
    }
}

/// The measured window of a scenario (its first flow's), s from t0.
pub fn measured_window(s: &ScenarioResult) -> Option<[f64; 2]> {
    s.flows
        .iter()
        .find_map(|f| f.tcp.as_ref().map(|t| t.window_s))
}

/// The shaper's rate of a direction, bit/s.
pub fn rate_bps_of(s: &ScenarioResult, direction: &str) -> Option<f64> {
    s.directions
        .iter()
        .find(|d| d.direction == direction)
        .and_then(|d| d.rate_mbps)
        .map(|m| m * 1e6)
}

/// What each shaped egress's arm held over the scenario's measured window
/// (up first); empty for a scenario without a window.
pub fn queue_seen(s: &ScenarioResult) -> Vec<QueueSeen> {
    queue_seen_in(s, measured_window(s))
}

/// [`queue_seen`] over a given measured window (s from t0).
pub fn queue_seen_in(s: &ScenarioResult, window: Option<[f64; 2]>) -> Vec<QueueSeen> {
    let Some(window) = window else {
        return Vec::new();
    };
    s.qdiscs
        .iter()
        .filter(|q| has(q, ARM_HANDLE))
        .map(|q| queue_seen_of(q, &s.arm, window, rate_bps_of(s, &q.direction)))
        .collect()
}

fn has(q: &QdiscResult, handle: Handle) -> bool {
    q.after_config.iter().any(|r| r.handle == handle)
        || q.samples
            .iter()
            .any(|s| s.records.iter().any(|r| r.handle == handle))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SampledQdisc;
    use netlab_qdisc_model::{FqCodelXstats, QdiscStats};

    fn sample(t: f64, backlog: u32, qlen: u32, maxpacket: Option<u32>) -> QdiscSample {
        QdiscSample {
            t_s: Some(t),
            records: vec![SampledQdisc {
                kind: if maxpacket.is_some() {
                    "fq_codel"
                } else {
                    "pfifo"
                }
                .into(),
                handle: ARM_HANDLE,
                parent: Handle::new(1, 1),
                stats: Some(QdiscStats {
                    backlog_bytes: backlog,
                    backlog_packets: qlen,
                    qlen,
                    ..QdiscStats::default()
                }),
                xstats: maxpacket.map(|m| {
                    QdiscXstats::FqCodel(FqCodelXstats {
                        maxpacket: m,
                        ..FqCodelXstats::default()
                    })
                }),
            }],
        }
    }

    /// Worked by hand: in the window [4, 14] three samples queue 3028 B in
    /// 2 skbs (1514), 18168 B in 3 (6056), 9084 B in 3 (3028); one is
    /// empty; the samples at 3 s and 15 s are outside. Max 6056, median
    /// 3028. maxpacket grows to 6056 inside the window.
    #[test]
    fn aggregation_is_backlog_over_qlen_in_the_window() {
        let q = QdiscResult {
            direction: "up".into(),
            samples: vec![
                sample(3.0, 90_000, 1, Some(1514)),
                sample(4.0, 3028, 2, Some(3028)),
                sample(6.0, 18_168, 3, Some(6056)),
                sample(8.0, 0, 0, Some(6056)),
                sample(14.0, 9084, 3, Some(6056)),
                sample(15.0, 65_000, 1, Some(65_000)),
            ],
            ..QdiscResult::default()
        };
        let seen = queue_seen_of(&q, "fq_codel", [4.0, 14.0], Some(5e6));
        assert_eq!(seen.samples, 4);
        assert_eq!(seen.samples_queued, 3);
        assert_eq!(seen.aggregate_max_bytes, Some(6056.0));
        assert_eq!(seen.aggregate_median_bytes, Some(3028.0));
        assert_eq!(seen.max_packet_bytes, Some(6056));
        assert_eq!(seen.largest_bytes(), Some(6056.0));
        // 6056 B × 8 / 5 Mbit/s = 9.6896 ms
        let t = seen.link_time(6056.0).unwrap();
        assert!((t.as_secs_f64() - 0.0096896).abs() < 1e-9, "{t:?}");
        assert!(seen.held_aggregates(1500));
        assert!(!seen.held_aggregates(9000));
    }

    /// One full frame (1514 B) is not an aggregate; 1515 is. A FIFO has
    /// no maxpacket: the aggregate alone counts. No rate, no link time.
    #[test]
    fn one_frame_is_not_an_aggregate() {
        let q = QdiscResult {
            samples: vec![sample(5.0, 1514 * 4, 4, None)],
            ..QdiscResult::default()
        };
        let seen = queue_seen_of(&q, "pfifo", [0.0, 10.0], None);
        assert_eq!(seen.max_packet_bytes, None);
        assert_eq!(seen.largest_bytes(), Some(1514.0));
        assert!(!seen.held_aggregates(1500));
        assert_eq!(seen.link_time(1514.0), None);
        let q = QdiscResult {
            samples: vec![sample(5.0, 1515, 1, None), sample(6.0, 1000, 1, None)],
            ..QdiscResult::default()
        };
        let seen = queue_seen_of(&q, "pfifo", [0.0, 10.0], None);
        assert!(seen.held_aggregates(1500));
        assert_eq!(seen.aggregate_median_bytes, Some(1257.5));
        // Nothing queued: no figure, no aggregate.
        let empty = queue_seen_of(&QdiscResult::default(), "pfifo", [0.0, 1.0], None);
        assert_eq!(empty.largest_bytes(), None);
        assert!(!empty.held_aggregates(1500));
    }
}
