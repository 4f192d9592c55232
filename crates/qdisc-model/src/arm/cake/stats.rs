//! CAKE's statistics (`TCA_STATS_APP`): the qdisc's figures and one nest
//! per tin (drops, marks, backlog, delays), decoded typed.

use serde::{Deserialize, Serialize};

use crate::error::Named;
use crate::raw::{raw_attr, RawAttr};
use crate::ModelError;
use netlab_netlink_views::Attrs;

/// Attribute numbers from the kernel's `pkt_sched.h`.
mod attr {
    /// `TCA_CAKE_STATS_*` (inside `TCA_STATS_APP`).
    pub const STATS_CAPACITY_ESTIMATE64: u16 = 2;
    pub const STATS_MEMORY_LIMIT: u16 = 3;
    pub const STATS_MEMORY_USED: u16 = 4;
    pub const STATS_AVG_NETOFF: u16 = 5;
    pub const STATS_MIN_NETLEN: u16 = 6;
    pub const STATS_MAX_NETLEN: u16 = 7;
    pub const STATS_MIN_ADJLEN: u16 = 8;
    pub const STATS_MAX_ADJLEN: u16 = 9;
    pub const STATS_TIN_STATS: u16 = 10;

    /// `TCA_CAKE_TIN_STATS_*` (one nest per tin).
    pub const TIN_SENT_PACKETS: u16 = 2;
    pub const TIN_SENT_BYTES64: u16 = 3;
    pub const TIN_DROPPED_PACKETS: u16 = 4;
    pub const TIN_DROPPED_BYTES64: u16 = 5;
    pub const TIN_ACKS_DROPPED_PACKETS: u16 = 6;
    pub const TIN_ACKS_DROPPED_BYTES64: u16 = 7;
    pub const TIN_ECN_MARKED_PACKETS: u16 = 8;
    pub const TIN_ECN_MARKED_BYTES64: u16 = 9;
    pub const TIN_BACKLOG_PACKETS: u16 = 10;
    pub const TIN_BACKLOG_BYTES: u16 = 11;
    pub const TIN_THRESHOLD_RATE64: u16 = 12;
    pub const TIN_TARGET_US: u16 = 13;
    pub const TIN_INTERVAL_US: u16 = 14;
    pub const TIN_WAY_INDIRECT_HITS: u16 = 15;
    pub const TIN_WAY_MISSES: u16 = 16;
    pub const TIN_WAY_COLLISIONS: u16 = 17;
    pub const TIN_PEAK_DELAY_US: u16 = 18;
    pub const TIN_AVG_DELAY_US: u16 = 19;
    pub const TIN_BASE_DELAY_US: u16 = 20;
    pub const TIN_SPARSE_FLOWS: u16 = 21;
    pub const TIN_BULK_FLOWS: u16 = 22;
    pub const TIN_UNRESPONSIVE_FLOWS: u16 = 23;
    pub const TIN_MAX_SKBLEN: u16 = 24;
    pub const TIN_FLOW_QUANTUM: u16 = 25;
}

/// CAKE's qdisc statistics (`TCA_CAKE_STATS_*`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CakeXstats {
    /// Estimated capacity, bytes/s.
    pub capacity_estimate_bytes_per_sec: Option<u64>,
    /// Memory limit in bytes.
    pub memory_limit: Option<u32>,
    /// Memory used in bytes.
    pub memory_used: Option<u32>,
    /// Average network offset.
    pub avg_netoff: Option<u32>,
    /// Smallest packet seen (network length).
    pub min_netlen: Option<u32>,
    /// Largest packet seen (network length).
    pub max_netlen: Option<u32>,
    /// Smallest packet after overhead adjustment.
    pub min_adjlen: Option<u32>,
    /// Largest packet after overhead adjustment.
    pub max_adjlen: Option<u32>,
    /// Per-tin statistics, in tin order.
    pub tins: Vec<CakeTinStats>,
    /// Attributes this crate does not know.
    pub other: Vec<RawAttr>,
}

/// One CAKE tin's statistics (`TCA_CAKE_TIN_STATS_*`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CakeTinStats {
    /// Packets sent.
    pub sent_packets: u32,
    /// Bytes sent.
    pub sent_bytes: u64,
    /// Packets dropped.
    pub dropped_packets: u32,
    /// Bytes dropped.
    pub dropped_bytes: u64,
    /// ACKs dropped by the ACK filter.
    pub acks_dropped_packets: u32,
    /// ACK bytes dropped by the ACK filter.
    pub acks_dropped_bytes: u64,
    /// Packets ECN-marked.
    pub ecn_marked_packets: u32,
    /// Bytes ECN-marked.
    pub ecn_marked_bytes: u64,
    /// Packets queued now.
    pub backlog_packets: u32,
    /// Bytes queued now.
    pub backlog_bytes: u32,
    /// Tin threshold rate, bytes/s.
    pub threshold_rate_bytes_per_sec: u64,
    /// Tin target, µs.
    pub target_us: u32,
    /// Tin interval, µs.
    pub interval_us: u32,
    /// Hash way indirect hits.
    pub way_indirect_hits: u32,
    /// Hash way misses.
    pub way_misses: u32,
    /// Hash way collisions.
    pub way_collisions: u32,
    /// Peak delay, µs.
    pub peak_delay_us: u32,
    /// Average delay, µs.
    pub avg_delay_us: u32,
    /// Base delay, µs.
    pub base_delay_us: u32,
    /// Sparse flows now.
    pub sparse_flows: u32,
    /// Bulk flows now.
    pub bulk_flows: u32,
    /// Unresponsive flows now.
    pub unresponsive_flows: u32,
    /// Largest packet (skb) seen.
    pub max_skblen: u32,
    /// Flow quantum in bytes.
    pub flow_quantum: u32,
}

pub(crate) fn decode_xstats(x: &[u8]) -> Result<CakeXstats, ModelError> {
    let mut s = CakeXstats::default();
    for a in Attrs::named(x, "cake xstats") {
        let a = a?;
        let v = |what| a.u32().named(what).map(Some);
        match a.kind() {
            attr::STATS_CAPACITY_ESTIMATE64 => {
                s.capacity_estimate_bytes_per_sec =
                    Some(a.u64().named("TCA_CAKE_STATS_CAPACITY_ESTIMATE64")?)
            }
            attr::STATS_MEMORY_LIMIT => s.memory_limit = v("TCA_CAKE_STATS_MEMORY_LIMIT")?,
            attr::STATS_MEMORY_USED => s.memory_used = v("TCA_CAKE_STATS_MEMORY_USED")?,
            attr::STATS_AVG_NETOFF => s.avg_netoff = v("TCA_CAKE_STATS_AVG_NETOFF")?,
            attr::STATS_MIN_NETLEN => s.min_netlen = v("TCA_CAKE_STATS_MIN_NETLEN")?,
            attr::STATS_MAX_NETLEN => s.max_netlen = v("TCA_CAKE_STATS_MAX_NETLEN")?,
            attr::STATS_MIN_ADJLEN => s.min_adjlen = v("TCA_CAKE_STATS_MIN_ADJLEN")?,
            attr::STATS_MAX_ADJLEN => s.max_adjlen = v("TCA_CAKE_STATS_MAX_ADJLEN")?,
            attr::STATS_TIN_STATS => {
                for tin in Attrs::named(a.value(), "cake tin stats") {
                    s.tins.push(decode_tin(tin?.value())?);
                }
            }
            _ => s.other.push(raw_attr(&a)),
        }
    }
    Ok(s)
}

fn decode_tin(value: &[u8]) -> Result<CakeTinStats, ModelError> {
    let mut t = CakeTinStats::default();
    for a in Attrs::named(value, "cake tin") {
        let a = a?;
        let v = |what| a.u32().named(what);
        let q = |what| a.u64().named(what);
        match a.kind() {
            attr::TIN_SENT_PACKETS => t.sent_packets = v("TIN_SENT_PACKETS")?,
            attr::TIN_SENT_BYTES64 => t.sent_bytes = q("TIN_SENT_BYTES64")?,
            attr::TIN_DROPPED_PACKETS => t.dropped_packets = v("TIN_DROPPED_PACKETS")?,
            attr::TIN_DROPPED_BYTES64 => t.dropped_bytes = q("TIN_DROPPED_BYTES64")?,
            attr::TIN_ACKS_DROPPED_PACKETS => {
                t.acks_dropped_packets = v("TIN_ACKS_DROPPED_PACKETS")?
            }
            attr::TIN_ACKS_DROPPED_BYTES64 => t.acks_dropped_bytes = q("TIN_ACKS_DROPPED_BYTES64")?,
            attr::TIN_ECN_MARKED_PACKETS => t.ecn_marked_packets = v("TIN_ECN_MARKED_PACKETS")?,
            attr::TIN_ECN_MARKED_BYTES64 => t.ecn_marked_bytes = q("TIN_ECN_MARKED_BYTES64")?,
            attr::TIN_BACKLOG_PACKETS => t.backlog_packets = v("TIN_BACKLOG_PACKETS")?,
            attr::TIN_BACKLOG_BYTES => t.backlog_bytes = v("TIN_BACKLOG_BYTES")?,
            attr::TIN_THRESHOLD_RATE64 => {
                t.threshold_rate_bytes_per_sec = q("TIN_THRESHOLD_RATE64")?
            }
            attr::TIN_TARGET_US => t.target_us = v("TIN_TARGET_US")?,
            attr::TIN_INTERVAL_US => t.interval_us = v("TIN_INTERVAL_US")?,
            attr::TIN_WAY_INDIRECT_HITS => t.way_indirect_hits = v("TIN_WAY_INDIRECT_HITS")?,
            attr::TIN_WAY_MISSES => t.way_misses = v("TIN_WAY_MISSES")?,
            attr::TIN_WAY_COLLISIONS => t.way_collisions = v("TIN_WAY_COLLISIONS")?,
            attr::TIN_PEAK_DELAY_US => t.peak_delay_us = v("TIN_PEAK_DELAY_US")?,
            attr::TIN_AVG_DELAY_US => t.avg_delay_us = v("TIN_AVG_DELAY_US")?,
            attr::TIN_BASE_DELAY_US => t.base_delay_us = v("TIN_BASE_DELAY_US")?,
            attr::TIN_SPARSE_FLOWS => t.sparse_flows = v("TIN_SPARSE_FLOWS")?,
            attr::TIN_BULK_FLOWS => t.bulk_flows = v("TIN_BULK_FLOWS")?,
            attr::TIN_UNRESPONSIVE_FLOWS => t.unresponsive_flows = v("TIN_UNRESPONSIVE_FLOWS")?,
            attr::TIN_MAX_SKBLEN => t.max_skblen = v("TIN_MAX_SKBLEN")?,
            attr::TIN_FLOW_QUANTUM => t.flow_quantum = v("TIN_FLOW_QUANTUM")?,
            _ => {}
        }
    }
    Ok(t)
}
