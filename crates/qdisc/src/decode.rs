//! Decoding RTM_NEWQDISC dump messages into typed records.

use netlink_packet_core::Parseable;
use netlink_packet_route::tc::TcFqCodelXstats;
use serde::{Deserialize, Serialize};

use crate::hex;
use crate::tbf::{TbfQopt, TCA_TBF_PARMS, TCA_TBF_RATE64};
use crate::units::Rate;
use crate::wire::{self, Attr, NLMSG_DONE, NLMSG_ERROR, RTM_NEWQDISC};
use crate::{Handle, Psched, QdiscError};

const TCA_KIND: u16 = 1;
const TCA_OPTIONS: u16 = 2;
const TCA_STATS: u16 = 3;
const TCA_XSTATS: u16 = 4;
const TCA_STATS2: u16 = 7;
const TCA_STATS_BASIC: u16 = 1;
const TCA_STATS_QUEUE: u16 = 3;
const TCA_STATS_APP: u16 = 4;
const TCA_STATS_PKT64: u16 = 8;
const TCMSG_LEN: usize = 20;

/// One qdisc as the kernel reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QdiscRecord {
    /// Kind, e.g. `tbf`, `fq_codel`.
    pub kind: String,
    /// Interface index.
    pub ifindex: u32,
    /// Handle as tc prints it (`1:`).
    pub handle: String,
    /// Parent as tc prints it (`root`, `1:1`).
    pub parent: String,
    /// Handle as a number.
    pub handle_raw: u32,
    /// Parent as a number.
    pub parent_raw: u32,
    /// Options decoded per kind.
    pub options: QdiscOptions,
    /// Counters (absent only if the kernel sent none).
    pub stats: Option<QdiscStats>,
    /// Kind-specific statistics.
    pub xstats: Option<QdiscXstats>,
    /// This message's bytes (header included), hex.
    pub raw_hex: String,
}

/// Options of one qdisc, decoded where the kind is known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum QdiscOptions {
    /// TBF.
    Tbf(TbfReadback),
    /// pfifo: limit in packets.
    Pfifo {
        /// Queue limit in packets.
        limit_packets: u32,
    },
    /// bfifo: limit in bytes.
    Bfifo {
        /// Queue limit in bytes.
        limit_bytes: u32,
    },
    /// fq_codel.
    FqCodel(FqCodelReadback),
    /// Any other kind: the raw `TCA_OPTIONS` value, split into attributes
    /// when it parses as nested attributes.
    Raw {
        /// The `TCA_OPTIONS` value, hex.
        hex: String,
        /// The nested attributes, if the value is a clean attribute list.
        attrs: Option<Vec<RawAttr>>,
    },
    /// The kernel sent no `TCA_OPTIONS`.
    None,
}

/// An attribute kept as bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawAttr {
    /// Attribute type.
    pub kind: u16,
    /// Value, hex.
    pub hex: String,
}

/// TBF options as dumped, with the figures tc derives from them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TbfReadback {
    /// Token rate (from `TCA_TBF_RATE64` when present).
    pub rate: Rate,
    /// Token rate in bytes/s, as the kernel stores it.
    pub rate_bytes_per_sec: u64,
    /// Peak rate in bytes/s (0: none).
    pub peakrate_bytes_per_sec: u64,
    /// TBF's queue limit in bytes (binds only its default inner bfifo).
    pub limit_bytes: u32,
    /// Bucket size in scheduler ticks, as dumped.
    pub buffer_ticks: u32,
    /// Bucket size in bytes, computed back from the ticks like tc
    /// (`tc_calc_xmitsize`, truncating: 16kb shows as 16383).
    pub burst_bytes: u32,
    /// Peak-rate bucket in ticks.
    pub mtu_ticks: u32,
    /// tc's `lat`: `limit / rate - buffer time`, in microseconds. It is the
    /// worst queueing delay of TBF's own bfifo, not of a child arm.
    pub latency_us: f64,
    /// Link layer (1 = ethernet).
    pub linklayer: u8,
    /// Minimum packet unit.
    pub mpu: u16,
    /// Per-packet overhead.
    pub overhead: u16,
}

/// fq_codel options as dumped (times in microseconds, as the kernel
/// reports them after its own rounding: `target 5ms` reads back 4999).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FqCodelReadback {
    /// Packet limit.
    pub limit: Option<u32>,
    /// Flow buckets.
    pub flows: Option<u32>,
    /// DRR quantum in bytes.
    pub quantum: Option<u32>,
    /// Target in µs.
    pub target_us: Option<u32>,
    /// Interval in µs.
    pub interval_us: Option<u32>,
    /// Memory limit in bytes.
    pub memory_limit: Option<u32>,
    /// ECN marking on.
    pub ecn: Option<bool>,
    /// CE threshold in µs (absent when off).
    pub ce_threshold_us: Option<u32>,
    /// Drop batch size.
    pub drop_batch: Option<u32>,
    /// CE threshold selector (absent when unset).
    pub ce_threshold_selector: Option<u8>,
    /// CE threshold mask (absent when unset).
    pub ce_threshold_mask: Option<u8>,
    /// Attributes this crate does not know.
    pub other: Vec<RawAttr>,
}

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

/// Kind-specific statistics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum QdiscXstats {
    /// fq_codel's qdisc statistics.
    FqCodel(FqCodelXstats),
    /// Anything else, hex.
    Raw {
        /// The xstats bytes, hex.
        hex: String,
    },
}

/// fq_codel's `tc_fq_codel_qd_stats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FqCodelXstats {
    /// Largest packet seen.
    pub maxpacket: u32,
    /// Drops because the packet limit was hit.
    pub drop_overlimit: u32,
    /// Drops because the memory limit was hit.
    pub drop_overmemory: u32,
    /// Packets CE-marked by CoDel.
    pub ecn_mark: u32,
    /// Flows created.
    pub new_flow_count: u32,
    /// Flows in the new list now.
    pub new_flows_len: u32,
    /// Flows in the old list now.
    pub old_flows_len: u32,
    /// Packets CE-marked because of `ce_threshold`.
    pub ce_mark: u32,
    /// Memory in use, bytes.
    pub memory_usage: u32,
}

/// Decodes every RTM_NEWQDISC message in `dump` (one or more datagrams,
/// concatenated) whose interface is `ifindex` (all when `None`). Stops at
/// `NLMSG_DONE`; an `NLMSG_ERROR` in the dump is an error.
pub fn decode_dump(
    dump: &[u8],
    ifindex: Option<u32>,
    psched: &Psched,
) -> Result<Vec<QdiscRecord>, QdiscError> {
    let mut out = Vec::new();
    for msg in wire::messages(dump) {
        let msg = msg?;
        match msg.ty {
            NLMSG_DONE => break,
            NLMSG_ERROR => {
                let errno = wire::u32_at(msg.payload, 0)
                    .map(|e| (e as i32).saturating_neg()) // i32::MIN: no overflow (fuzz)
                    .unwrap_or(0);
                return Err(QdiscError::decode(
                    "qdisc dump",
                    format!("kernel sent an error (errno {errno})"),
                ));
            }
            RTM_NEWQDISC => {
                let rec = decode_qdisc(msg.raw, psched)?;
                if ifindex.map_or(true, |i| i == rec.ifindex) {
                    out.push(rec);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Decodes one RTM_NEWQDISC message (header included).
pub fn decode_qdisc(raw: &[u8], psched: &Psched) -> Result<QdiscRecord, QdiscError> {
    let msg = wire::messages(raw)
        .next()
        .ok_or_else(|| QdiscError::decode("qdisc message", "empty"))??;
    if msg.ty != RTM_NEWQDISC {
        return Err(QdiscError::decode(
            "qdisc message",
            format!("type {} is not RTM_NEWQDISC", msg.ty),
        ));
    }
    let p = msg.payload;
    if p.len() < TCMSG_LEN {
        return Err(QdiscError::decode(
            "struct tcmsg",
            format!("{} bytes, need {TCMSG_LEN}", p.len()),
        ));
    }
    let ifindex = wire::u32_at(p, 4).unwrap_or(0);
    let handle = Handle(wire::u32_at(p, 8).unwrap_or(0));
    let parent = Handle(wire::u32_at(p, 12).unwrap_or(0));
    let attrs = wire::collect_attrs(&p[TCMSG_LEN..], "qdisc attributes")?;

    let kind = match attrs.iter().find(|a| a.kind == TCA_KIND) {
        Some(a) => {
            let s = a.value.split(|&b| b == 0).next().unwrap_or(&[]);
            String::from_utf8(s.to_vec())
                .map_err(|_| QdiscError::decode("TCA_KIND", "not UTF-8"))?
        }
        None => return Err(QdiscError::decode("qdisc message", "no TCA_KIND")),
    };
    let options = match attrs.iter().find(|a| a.kind == TCA_OPTIONS) {
        Some(a) => decode_options(&kind, a.value, psched)?,
        None => QdiscOptions::None,
    };

    let mut stats = None;
    let mut app: Option<&[u8]> = None;
    if let Some(a) = attrs.iter().find(|a| a.kind == TCA_STATS2) {
        let (s, a) = decode_stats2(a.value)?;
        stats = Some(s);
        app = a;
    } else if let Some(a) = attrs.iter().find(|a| a.kind == TCA_STATS) {
        stats = Some(decode_tc_stats(a)?);
    }
    let xbytes = attrs
        .iter()
        .find(|a| a.kind == TCA_XSTATS)
        .map(|a| a.value)
        .or(app);
    let xstats = xbytes.map(|x| decode_xstats(&kind, x));

    Ok(QdiscRecord {
        kind,
        ifindex,
        // tc prints a qdisc's handle as `major:` even when it is 0 (noqueue).
        handle: format!("{:x}:", handle.major()),
        parent: parent.to_string(),
        handle_raw: handle.0,
        parent_raw: parent.0,
        options,
        stats,
        xstats,
        raw_hex: hex::encode(msg.raw),
    })
}

fn decode_options(kind: &str, value: &[u8], psched: &Psched) -> Result<QdiscOptions, QdiscError> {
    Ok(match kind {
        "tbf" => QdiscOptions::Tbf(decode_tbf(value, psched)?),
        "pfifo" | "pfifo_head_drop" => QdiscOptions::Pfifo {
            limit_packets: wire::u32_at(value, 0)
                .ok_or_else(|| QdiscError::decode("pfifo tc_fifo_qopt", "shorter than 4 bytes"))?,
        },
        "bfifo" => QdiscOptions::Bfifo {
            limit_bytes: wire::u32_at(value, 0)
                .ok_or_else(|| QdiscError::decode("bfifo tc_fifo_qopt", "shorter than 4 bytes"))?,
        },
        "fq_codel" => QdiscOptions::FqCodel(decode_fq_codel(value)?),
        _ => QdiscOptions::Raw {
            hex: hex::encode(value),
            attrs: wire::collect_attrs(value, "options")
                .ok()
                .filter(|v| !v.is_empty())
                .map(|v| v.iter().map(raw_attr).collect()),
        },
    })
}

fn raw_attr(a: &Attr<'_>) -> RawAttr {
    RawAttr {
        kind: a.kind,
        hex: hex::encode(a.value),
    }
}

fn decode_tbf(value: &[u8], psched: &Psched) -> Result<TbfReadback, QdiscError> {
    let mut qopt = None;
    let mut rate64 = None;
    let mut prate64 = None;
    for a in wire::attrs(value, "tbf options") {
        let a = a?;
        match a.kind {
            TCA_TBF_PARMS => {
                qopt = Some(
                    TbfQopt::from_bytes(a.value)
                        .ok_or_else(|| a.short("TCA_TBF_PARMS", TbfQopt::LEN))?,
                )
            }
            TCA_TBF_RATE64 => rate64 = Some(a.u64("TCA_TBF_RATE64")?),
            5 => prate64 = Some(a.u64("TCA_TBF_PRATE64")?),
            _ => {}
        }
    }
    let q = qopt.ok_or_else(|| QdiscError::decode("tbf options", "no TCA_TBF_PARMS"))?;
    let rate = rate64.unwrap_or(q.rate.rate as u64);
    let prate = prate64.unwrap_or(q.peakrate.rate as u64);
    let latency_us = if rate == 0 {
        0.0
    } else {
        let mut lat = 1e6 * (q.limit as f64 / rate as f64) - psched.ticks_to_usec(q.buffer) as f64;
        if prate != 0 {
            let lat2 = 1e6 * (q.limit as f64 / prate as f64) - psched.ticks_to_usec(q.mtu) as f64;
            lat = lat.max(lat2);
        }
        lat
    };
    Ok(TbfReadback {
        rate: Rate::from_bytes_per_sec(rate),
        rate_bytes_per_sec: rate,
        peakrate_bytes_per_sec: prate,
        limit_bytes: q.limit,
        buffer_ticks: q.buffer,
        burst_bytes: psched.xmit_size(rate, q.buffer),
        mtu_ticks: q.mtu,
        latency_us,
        linklayer: q.rate.linklayer & 0x0f,
        mpu: q.rate.mpu,
        overhead: q.rate.overhead,
    })
}

fn decode_fq_codel(value: &[u8]) -> Result<FqCodelReadback, QdiscError> {
    let mut o = FqCodelReadback::default();
    for a in wire::attrs(value, "fq_codel options") {
        let a = a?;
        match a.kind {
            1 => o.target_us = Some(a.u32("TCA_FQ_CODEL_TARGET")?),
            2 => o.limit = Some(a.u32("TCA_FQ_CODEL_LIMIT")?),
            3 => o.interval_us = Some(a.u32("TCA_FQ_CODEL_INTERVAL")?),
            4 => o.ecn = Some(a.u32("TCA_FQ_CODEL_ECN")? != 0),
            5 => o.flows = Some(a.u32("TCA_FQ_CODEL_FLOWS")?),
            6 => o.quantum = Some(a.u32("TCA_FQ_CODEL_QUANTUM")?),
            7 => o.ce_threshold_us = Some(a.u32("TCA_FQ_CODEL_CE_THRESHOLD")?),
            8 => o.drop_batch = Some(a.u32("TCA_FQ_CODEL_DROP_BATCH_SIZE")?),
            9 => o.memory_limit = Some(a.u32("TCA_FQ_CODEL_MEMORY_LIMIT")?),
            10 => o.ce_threshold_selector = Some(a.u8("TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR")?),
            11 => o.ce_threshold_mask = Some(a.u8("TCA_FQ_CODEL_CE_THRESHOLD_MASK")?),
            _ => o.other.push(raw_attr(&a)),
        }
    }
    Ok(o)
}

fn decode_stats2(value: &[u8]) -> Result<(QdiscStats, Option<&[u8]>), QdiscError> {
    let mut s = QdiscStats::default();
    let mut app = None;
    let mut pkt64 = None;
    for a in wire::attrs(value, "TCA_STATS2") {
        let a = a?;
        match a.kind {
            TCA_STATS_BASIC => {
                // struct gnet_stats_basic { __u64 bytes; __u32 packets; }
                s.bytes = wire::u64_at(a.value, 0).ok_or_else(|| a.short("TCA_STATS_BASIC", 12))?;
                s.packets =
                    wire::u32_at(a.value, 8).ok_or_else(|| a.short("TCA_STATS_BASIC", 12))? as u64;
            }
            TCA_STATS_QUEUE => {
                // struct gnet_stats_queue { qlen, backlog, drops, requeues, overlimits }
                let f = |i: usize| {
                    wire::u32_at(a.value, i * 4).ok_or_else(|| a.short("TCA_STATS_QUEUE", 20))
                };
                s.qlen = f(0)?;
                s.backlog_bytes = f(1)?;
                s.drops = f(2)?;
                s.requeues = f(3)?;
                s.overlimits = f(4)?;
                s.backlog_packets = s.qlen;
            }
            TCA_STATS_APP => app = Some(a.value),
            TCA_STATS_PKT64 => pkt64 = Some(a.u64("TCA_STATS_PKT64")?),
            _ => {}
        }
    }
    if let Some(p) = pkt64 {
        s.packets = p;
    }
    Ok((s, app))
}

fn decode_tc_stats(a: &Attr<'_>) -> Result<QdiscStats, QdiscError> {
    // struct tc_stats { u64 bytes; u32 packets, drops, overlimits, bps, pps, qlen, backlog; }
    let f = |i: usize| wire::u32_at(a.value, i).ok_or_else(|| a.short("TCA_STATS", 36));
    let qlen = f(28)?;
    Ok(QdiscStats {
        bytes: wire::u64_at(a.value, 0).ok_or_else(|| a.short("TCA_STATS", 36))?,
        packets: f(8)? as u64,
        drops: f(12)?,
        overlimits: f(16)?,
        requeues: 0,
        backlog_bytes: f(32)?,
        backlog_packets: qlen,
        qlen,
    })
}

fn decode_xstats(kind: &str, x: &[u8]) -> QdiscXstats {
    if kind == "fq_codel" {
        if let Ok(TcFqCodelXstats::Qdisc(q)) = TcFqCodelXstats::parse(x) {
            return QdiscXstats::FqCodel(FqCodelXstats {
                maxpacket: q.maxpacket,
                drop_overlimit: q.drop_overlimit,
                drop_overmemory: q.drop_overmemory,
                ecn_mark: q.ecn_mark,
                new_flow_count: q.new_flow_count,
                new_flows_len: q.new_flows_len,
                old_flows_len: q.old_flows_len,
                ce_mark: q.ce_mark,
                memory_usage: q.memory_usage,
            });
        }
    }
    QdiscXstats::Raw {
        hex: hex::encode(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_wrong_message_type_and_short_tcmsg() {
        let mut m = vec![0u8; 16];
        m[0] = 16;
        m[4] = 36;
        assert!(decode_qdisc(&m, &Psched::MODERN)
            .unwrap_err()
            .to_string()
            .contains("struct tcmsg"));
        m[4] = 16;
        assert!(decode_qdisc(&m, &Psched::MODERN).is_err());
    }

    /// Fuzz reproducer (fuzz/README.md, qdisc_dump): an NLMSG_ERROR in a
    /// dump with code i32::MIN made the errno negation overflow (a panic in
    /// debug builds); it is a decode error naming the saturated errno.
    #[test]
    fn dump_error_code_i32_min_does_not_overflow() {
        let crash = crate::hex::decode(
            "380000000200000000000000000008000000008000000000000000000300000000001000\
             01400100000000000a000100706669666f0000000800020000010000",
        )
        .unwrap();
        let err = decode_dump(&crash, None, &Psched::MODERN).unwrap_err();
        assert!(err.to_string().contains("errno 2147483647"), "{err}");
    }
}
