//! A qdisc's counters: `TCA_STATS2` (`TCA_STATS_BASIC`, `TCA_STATS_QUEUE`,
//! `TCA_STATS_PKT64`, `TCA_STATS_APP`) or the old `TCA_STATS`
//! (`struct tc_stats`).
//!
//! The structs netlink-packet-route 0.34 knows are parsed with it
//! ([`TcStatsBasic`], [`TcStatsQueue`], [`TcStats`]), and `TCA_STATS2`'s
//! nested attributes are walked with netlink-packet-core's
//! [`NlasIterator`]. Two things stay by hand, each said where it is read:
//! `TCA_STATS_PKT64` (the crate has no variant for it) and
//! `TCA_STATS_APP`, kept as raw bytes for our per-kind xstats decoders:
//! `TcStats2::parse_with_param` would parse an fq_codel `TCA_STATS_APP`
//! itself and fail the whole message on a malformed one, where we keep it
//! as a `Raw` xstats record.
//!
//! Size: the crate's buffer types include the trailing padding an
//! x86_64 kernel sends (`sizeof` rounds a struct holding a `u64` up to 8
//! bytes: 16 for `gnet_stats_basic`, 40 for `tc_stats`). A 32-bit x86
//! kernel aligns `u64` to 4 and sends 12 and 36. Those values hold every
//! field, so we accept them: a value with all the C fields but not the
//! padding is zero-padded to the crate's size before parsing. Shorter
//! than the fields is a decode error naming the attribute.

use std::mem::size_of;

use netlink_packet_core::{DecodeError, NlaBuffer, NlasIterator, NLA_HEADER_SIZE};
use netlink_packet_route::tc::{
    TcStats, TcStatsBasic, TcStatsBasicBuffer, TcStatsBuffer, TcStatsQueue, TcStatsQueueBuffer,
};
use serde::{Deserialize, Serialize};

use crate::ModelError;

/// `TCA_STATS_*` inside `TCA_STATS2` (`linux/gen_stats.h`).
const TCA_STATS_BASIC: u16 = 1;
const TCA_STATS_QUEUE: u16 = 3;
const TCA_STATS_APP: u16 = 4;
const TCA_STATS_PKT64: u16 = 8;
/// The C fields of `struct gnet_stats_basic` (`__u64 bytes; __u32
/// packets;`), without the padding a 64-bit kernel adds.
const GNET_BASIC_FIELDS: usize = 12;
/// The C fields of `struct tc_stats` (`__u64 bytes;` and seven `__u32`).
const TC_STATS_FIELDS: usize = 36;

/// The counters every qdisc has (`gnet_stats_basic` + `gnet_stats_queue`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QdiscStats {
    /// Bytes sent.
    pub bytes: u64,
    /// Packets sent.
    pub packets: u64,
    /// Packets dropped (a parent and a child may both count one packet).
    pub drops: u32,
    /// Times the qdisc was over its limit (for TBF: shaping, not loss).
    pub overlimits: u32,
    /// Requeues.
    pub requeues: u32,
    /// Bytes queued now.
    pub backlog_bytes: u32,
    /// Packets queued now (what tc prints as `backlog ..p`; equals `qlen`).
    pub backlog_packets: u32,
    /// Queue length in packets.
    pub qlen: u32,
}

/// Decodes a `TCA_STATS2` value: the counters, and the `TCA_STATS_APP`
/// bytes (the kind's xstats) if the kernel sent them.
pub(crate) fn decode_stats2(value: &[u8]) -> Result<(QdiscStats, Option<&[u8]>), ModelError> {
    let mut s = QdiscStats::default();
    let mut app = None;
    let mut pkt64 = None;
    for a in NlasIterator::new(value) {
        let a = a.map_err(|e| ModelError::decode("TCA_STATS2", e.to_string()))?;
        match a.kind() {
            TCA_STATS_BASIC => {
                let b = parse_struct(
                    a.value(),
                    GNET_BASIC_FIELDS,
                    size_of::<TcStatsBasicBuffer>(),
                    "TCA_STATS_BASIC",
                    TcStatsBasic::parse,
                )?;
                s.bytes = b.bytes;
                s.packets = u64::from(b.packets);
            }
            TCA_STATS_QUEUE => {
                let q = parse_struct(
                    a.value(),
                    size_of::<TcStatsQueueBuffer>(),
                    size_of::<TcStatsQueueBuffer>(),
                    "TCA_STATS_QUEUE",
                    TcStatsQueue::parse,
                )?;
                s.qlen = q.qlen;
                s.backlog_bytes = q.backlog;
                s.drops = q.drops;
                s.requeues = q.requeues;
                s.overlimits = q.overlimits;
                s.backlog_packets = q.qlen;
            }
            // By hand: raw bytes for our xstats decoders (module doc).
            TCA_STATS_APP => app = Some(value_of(a)),
            // By hand: netlink-packet-route 0.34 has no TCA_STATS_PKT64
            // (the 64-bit packet count, kernel 5.5+; `TcStats2::Other`).
            TCA_STATS_PKT64 => {
                let v = a.value();
                let b: [u8; 8] = v.get(..8).and_then(|b| b.try_into().ok()).ok_or_else(|| {
                    ModelError::decode("TCA_STATS_PKT64", format!("{} bytes, need 8", v.len()))
                })?;
                pkt64 = Some(u64::from_ne_bytes(b));
            }
            _ => {}
        }
    }
    if let Some(p) = pkt64 {
        s.packets = p;
    }
    Ok((s, app))
}

/// Decodes the old `TCA_STATS` value (`struct tc_stats`), sent when a
/// kernel sends no `TCA_STATS2`. It has no requeue counter.
pub(crate) fn decode_tc_stats(value: &[u8]) -> Result<QdiscStats, ModelError> {
    let t = parse_struct(
        value,
        TC_STATS_FIELDS,
        size_of::<TcStatsBuffer>(),
        "TCA_STATS",
        TcStats::parse,
    )?;
    Ok(QdiscStats {
        bytes: t.bytes,
        packets: u64::from(t.packets),
        drops: t.drops,
        overlimits: t.overlimits,
        requeues: 0,
        backlog_bytes: t.backlog,
        backlog_packets: t.qlen,
        qlen: t.qlen,
    })
}

/// A checked attribute's value, borrowed from the whole buffer (not from
/// the `NlaBuffer`, as `NlaBuffer::value` is).
fn value_of(a: NlaBuffer<&[u8]>) -> &[u8] {
    let end = usize::from(a.length());
    a.into_inner().get(NLA_HEADER_SIZE..end).unwrap_or(&[])
}

/// Parses `value` with netlink-packet-route's `parse`. A value of at
/// least `fields` bytes (every C field) but shorter than the crate's
/// `buffer` (fields and a 64-bit kernel's trailing padding) is zero-padded
/// first; a shorter one fails naming `what`.
fn parse_struct<T>(
    value: &[u8],
    fields: usize,
    buffer: usize,
    what: &str,
    parse: fn(&[u8]) -> Result<T, DecodeError>,
) -> Result<T, ModelError> {
    if value.len() < fields {
        return Err(ModelError::decode(
            what,
            format!("{} bytes, need {fields}", value.len()),
        ));
    }
    let parsed = if value.len() < buffer {
        let mut padded = value.to_vec();
        padded.resize(buffer, 0);
        parse(&padded)
    } else {
        parse(value)
    };
    parsed.map_err(|e| ModelError::decode(what, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One attribute, its value padded to 4 bytes.
    fn nla(kind: u16, value: &[u8]) -> Vec<u8> {
        let mut b = ((4 + value.len()) as u16).to_ne_bytes().to_vec();
        b.extend_from_slice(&kind.to_ne_bytes());
        b.extend_from_slice(value);
        b.resize(b.len().next_multiple_of(4), 0);
        b
    }

    fn basic(bytes: u64, packets: u32, len: usize) -> Vec<u8> {
        let mut v = bytes.to_ne_bytes().to_vec();
        v.extend_from_slice(&packets.to_ne_bytes());
        v.resize(len, 0);
        v
    }

    fn queue(f: [u32; 5]) -> Vec<u8> {
        f.iter().flat_map(|v| v.to_ne_bytes()).collect()
    }

    #[test]
    fn stats2_reads_basic_queue_app_and_pkt64() {
        let mut v = nla(TCA_STATS_BASIC, &basic(142_962, 117, 16));
        v.extend(nla(TCA_STATS_QUEUE, &queue([156, 192_596, 330, 2, 792])));
        v.extend(nla(TCA_STATS_APP, &[1, 2, 3]));
        let (s, app) = decode_stats2(&v).unwrap();
        let want = QdiscStats {
            bytes: 142_962,
            packets: 117,
            drops: 330,
            overlimits: 792,
            requeues: 2,
            backlog_bytes: 192_596,
            backlog_packets: 156,
            qlen: 156,
        };
        assert_eq!((s, app), (want, Some(&[1u8, 2, 3][..])));
        // TCA_STATS_PKT64 wins over the 32-bit count, wherever it comes.
        let mut with64 = nla(TCA_STATS_PKT64, &(5u64 << 32).to_ne_bytes());
        with64.extend(&v);
        assert_eq!(decode_stats2(&with64).unwrap().0.packets, 5 << 32);
        let short64 = nla(TCA_STATS_PKT64, &[0; 3]);
        assert_eq!(
            decode_stats2(&short64).unwrap_err().to_string(),
            "decoding TCA_STATS_PKT64: 3 bytes, need 8"
        );
    }

    /// A 32-bit x86 kernel sends `struct gnet_stats_basic` without the
    /// padding (12 bytes): accepted, the same counters as 16 bytes; 11
    /// bytes miss a field and fail naming the attribute.
    #[test]
    fn stats_basic_of_a_32_bit_kernel_is_accepted_and_a_short_one_named() {
        let v12 = nla(TCA_STATS_BASIC, &basic(u64::MAX - 1, 7, 12));
        let v16 = nla(TCA_STATS_BASIC, &basic(u64::MAX - 1, 7, 16));
        let (s12, _) = decode_stats2(&v12).unwrap();
        assert_eq!((s12.bytes, s12.packets), (u64::MAX - 1, 7));
        assert_eq!(s12, decode_stats2(&v16).unwrap().0);
        let v11 = nla(TCA_STATS_BASIC, &basic(1, 1, 11));
        assert_eq!(
            decode_stats2(&v11).unwrap_err().to_string(),
            "decoding TCA_STATS_BASIC: 11 bytes, need 12"
        );
        let q = nla(TCA_STATS_QUEUE, &queue([1, 2, 3, 4, 5])[..19]);
        assert_eq!(
            decode_stats2(&q).unwrap_err().to_string(),
            "decoding TCA_STATS_QUEUE: 19 bytes, need 20"
        );
    }

    /// `struct tc_stats`: 40 bytes from a 64-bit kernel, 36 from a 32-bit
    /// x86 one (same counters), 35 is an error.
    #[test]
    fn tc_stats_of_both_sizes_and_a_short_one() {
        // bytes, then packets, drops, overlimits, bps, pps, qlen, backlog
        let mut v: Vec<u8> = 1_000_000u64.to_ne_bytes().to_vec();
        for f in [900u32, 30, 40, 50, 60, 7, 8_400] {
            v.extend_from_slice(&f.to_ne_bytes());
        }
        assert_eq!(v.len(), 36);
        let s36 = decode_tc_stats(&v).unwrap();
        assert_eq!(
            s36,
            QdiscStats {
                bytes: 1_000_000,
                packets: 900,
                drops: 30,
                overlimits: 40,
                requeues: 0,
                backlog_bytes: 8_400,
                backlog_packets: 7,
                qlen: 7,
            }
        );
        let mut v40 = v.clone();
        v40.extend_from_slice(&[0; 4]);
        assert_eq!(decode_tc_stats(&v40).unwrap(), s36);
        assert_eq!(
            decode_tc_stats(&v[..35]).unwrap_err().to_string(),
            "decoding TCA_STATS: 35 bytes, need 36"
        );
    }

    #[test]
    fn a_broken_nested_attribute_names_tca_stats2() {
        let mut v = nla(TCA_STATS_BASIC, &basic(1, 1, 16));
        v.push(0);
        let err = decode_stats2(&v).unwrap_err().to_string();
        assert!(err.starts_with("decoding TCA_STATS2: "), "{err}");
    }
}
