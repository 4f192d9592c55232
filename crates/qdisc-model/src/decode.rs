//! Decoding RTM_NEWQDISC dump messages into typed records.
//!
//! What netlink-packet-route 0.34 knows is read with it: the `struct
//! tcmsg` header ([`TcHeader`]), the counters (`TCA_STATS2`'s basic and
//! queue structs, the old `TCA_STATS`: see `stats.rs`) and
//! fq_codel's options and xstats (`arm::fq_codel`). The rest is read here
//! and in `arm::*` with netlab-netlink-views, because that crate does not
//! know it: the options and xstats of every other kind (TBF, fifo, codel,
//! fq, cake, pie, fq_pie) and `TCA_STATS_PKT64`. We do not hand the whole
//! message to its `TcMessage`: that would fail the message on an fq_codel
//! xstats it cannot parse, where we keep a `Raw` record, and it would not
//! keep each attribute's raw bytes, which we do. The message framing and
//! the top-level attribute walk are netlab-netlink-views' (its errors say
//! which attribute was malformed). docs/architecture.md, "Netlink bytes
//! read by hand, and why".

use serde::{Deserialize, Serialize};

use crate::arm::cake::{self, CakeReadback, CakeXstats};
use crate::arm::codel::{self, CodelReadback, CodelXstats};
use crate::arm::fifo;
use crate::arm::fq::{self, FqReadback, FqXstats};
use crate::arm::fq_codel::{self, FqCodelReadback, FqCodelXstats};
use crate::arm::fq_pie::{self, FqPieReadback, FqPieXstats};
use crate::arm::pie::{self, PieReadback, PieXstats};
use netlab_netlink_views::{Attr, Attrs, ErrorMessage, Message, Messages, NLMSG_DONE, NLMSG_ERROR};
use netlink_packet_route::tc::TcHeader;

use crate::error::Named;
use crate::raw::{raw_attr, RawAttr};
use crate::stats::{decode_stats2, decode_tc_stats, QdiscStats};
use crate::tbf::{TbfQopt, TCA_TBF_PARMS, TCA_TBF_PRATE64, TCA_TBF_RATE64};
use crate::units::Rate;
use crate::{Handle, ModelError, Psched};

/// `RTM_NEWQDISC` (`linux/rtnetlink.h`).
pub(crate) const RTM_NEWQDISC: u16 = 36;

/// `TCA_*` attributes of a qdisc message (`linux/rtnetlink.h`).
const TCA_KIND: u16 = 1;
const TCA_OPTIONS: u16 = 2;
const TCA_STATS: u16 = 3;
const TCA_XSTATS: u16 = 4;
const TCA_STATS2: u16 = 7;
/// `struct tcmsg`'s length: the attributes start after it.
const TCMSG_LEN: usize = 20;

/// One qdisc as the kernel reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QdiscRecord {
    /// Kind, e.g. `tbf`, `fq_codel`.
    pub kind: String,
    /// Interface index.
    pub ifindex: u32,
    /// Handle (serialized as tc prints it: `1:`, `0:`).
    #[serde(with = "crate::handle::qdisc_handle")]
    pub handle: Handle,
    /// Parent (serialized as tc prints it: `root`, `1:1`).
    pub parent: Handle,
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
    /// codel.
    Codel(CodelReadback),
    /// fq.
    Fq(FqReadback),
    /// cake.
    Cake(CakeReadback),
    /// pie.
    Pie(PieReadback),
    /// fq_pie.
    FqPie(FqPieReadback),
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

impl QdiscOptions {
    /// The options as `tc qdisc show` (iproute2 6.1) prints them, for the
    /// arm kinds (e.g. `limit 1000p target 5ms interval 100ms`); `None`
    /// for TBF, raw and absent options.
    pub fn tc_show(&self) -> Option<String> {
        Some(match self {
            QdiscOptions::Pfifo { limit_packets } => format!("limit {limit_packets}p"),
            QdiscOptions::Bfifo { limit_bytes } => {
                format!("limit {}", crate::show::size(*limit_bytes))
            }
            QdiscOptions::FqCodel(r) => fq_codel::show(r),
            QdiscOptions::Codel(r) => codel::show(r),
            QdiscOptions::Fq(r) => fq::show(r),
            QdiscOptions::Cake(r) => cake::show(r),
            QdiscOptions::Pie(r) => pie::show(r),
            QdiscOptions::FqPie(r) => fq_pie::show(r),
            QdiscOptions::Tbf(_) | QdiscOptions::Raw { .. } | QdiscOptions::None => return None,
        })
    }
}

impl QdiscRecord {
    /// This qdisc as the first line of `tc qdisc show` prints it, without
    /// `refcnt` (which a dump does not carry), e.g.
    /// `qdisc codel 1: root limit 1000p target 5ms interval 100ms`.
    pub fn tc_show(&self) -> String {
        let place = if self.parent == Handle::ROOT {
            "root".to_string()
        } else {
            format!("parent {}", self.parent)
        };
        let mut line = format!("qdisc {} {} {place}", self.kind, self.handle.qdisc_text());
        if let Some(o) = self.options.tc_show().filter(|o| !o.is_empty()) {
            line.push(' ');
            line.push_str(&o);
        }
        line
    }
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

/// Kind-specific statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum QdiscXstats {
    /// fq_codel's qdisc statistics.
    FqCodel(FqCodelXstats),
    /// codel's statistics.
    Codel(CodelXstats),
    /// fq's statistics.
    Fq(FqXstats),
    /// CAKE's statistics, per tin.
    Cake(CakeXstats),
    /// PIE's statistics (probability and delay).
    Pie(PieXstats),
    /// fq_pie's statistics.
    FqPie(FqPieXstats),
    /// Anything else, hex.
    Raw {
        /// The xstats bytes, hex.
        hex: String,
    },
}

/// Decodes every RTM_NEWQDISC message in `dump` (one or more datagrams,
/// concatenated) whose interface is `ifindex` (all when `None`). Stops at
/// `NLMSG_DONE`; an `NLMSG_ERROR` in the dump is an error.
pub fn decode_dump(
    dump: &[u8],
    ifindex: Option<u32>,
    psched: &Psched,
) -> Result<Vec<QdiscRecord>, ModelError> {
    let mut out = Vec::new();
    for msg in Messages::new(dump) {
        let msg = msg?;
        match msg.kind() {
            NLMSG_DONE => break,
            NLMSG_ERROR => {
                let err = ErrorMessage::new_checked(&msg)?;
                return Err(ModelError::decode(
                    "qdisc dump",
                    format!("kernel sent an error (errno {})", err.errno()),
                ));
            }
            RTM_NEWQDISC => {
                let rec = decode_message(&msg, psched)?;
                if ifindex.is_none_or(|i| i == rec.ifindex) {
                    out.push(rec);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Decodes one RTM_NEWQDISC message (header included).
pub fn decode_qdisc(raw: &[u8], psched: &Psched) -> Result<QdiscRecord, ModelError> {
    let msg = Message::new_checked(raw)?;
    if msg.kind() != RTM_NEWQDISC {
        return Err(ModelError::decode(
            "qdisc message",
            format!("type {} is not RTM_NEWQDISC", msg.kind()),
        ));
    }
    decode_message(&msg, psched)
}

/// Decodes one checked RTM_NEWQDISC message.
fn decode_message(msg: &Message<'_>, psched: &Psched) -> Result<QdiscRecord, ModelError> {
    let payload = msg.payload();
    let header = TcHeader::parse(payload).map_err(|_| {
        ModelError::decode(
            "struct tcmsg",
            format!("{} bytes, need {TCMSG_LEN}", payload.len()),
        )
    })?;
    // tcm_ifindex is a C int; an interface index is never negative, and
    // `as` keeps the bits of any value the kernel sends.
    let ifindex = header.index as u32;
    let handle = Handle(u32::from(header.handle));
    let parent = Handle(u32::from(header.parent));
    let attrs: Vec<Attr<'_>> = msg
        .attrs_after(TCMSG_LEN, "qdisc attributes")?
        .collect::<Result<_, _>>()?;
    let find = |kind: u16| attrs.iter().find(|a| a.kind() == kind);

    let kind = match find(TCA_KIND) {
        Some(a) => {
            let s = a.value().split(|&b| b == 0).next().unwrap_or(&[]);
            String::from_utf8(s.to_vec())
                .map_err(|_| ModelError::decode("TCA_KIND", "not UTF-8"))?
        }
        None => return Err(ModelError::decode("qdisc message", "no TCA_KIND")),
    };
    let options = match find(TCA_OPTIONS) {
        Some(a) => decode_options(&kind, a.value(), psched)?,
        None => QdiscOptions::None,
    };

    let mut stats = None;
    let mut app: Option<&[u8]> = None;
    if let Some(a) = find(TCA_STATS2) {
        let (s, a) = decode_stats2(a.value())?;
        stats = Some(s);
        app = a;
    } else if let Some(a) = find(TCA_STATS) {
        stats = Some(decode_tc_stats(a.value())?);
    }
    let xbytes = find(TCA_XSTATS).map(|a| a.value()).or(app);
    let xstats = xbytes.map(|x| decode_xstats(&kind, x));

    Ok(QdiscRecord {
        kind,
        ifindex,
        handle,
        parent,
        handle_raw: handle.0,
        parent_raw: parent.0,
        options,
        stats,
        xstats,
        raw_hex: hex::encode(msg.bytes()),
    })
}

fn decode_options(kind: &str, value: &[u8], psched: &Psched) -> Result<QdiscOptions, ModelError> {
    Ok(match kind {
        "tbf" => QdiscOptions::Tbf(decode_tbf(value, psched)?),
        fifo::PFIFO_KIND | "pfifo_head_drop" => QdiscOptions::Pfifo {
            limit_packets: fifo::decode_limit(kind, value)?,
        },
        fifo::BFIFO_KIND => QdiscOptions::Bfifo {
            limit_bytes: fifo::decode_limit(kind, value)?,
        },
        fq_codel::KIND => QdiscOptions::FqCodel(fq_codel::decode(value)?),
        codel::KIND => QdiscOptions::Codel(codel::decode(value)?),
        fq::KIND => QdiscOptions::Fq(fq::decode(value)?),
        cake::KIND => QdiscOptions::Cake(cake::decode(value)?),
        pie::KIND => QdiscOptions::Pie(pie::decode(value)?),
        fq_pie::KIND => QdiscOptions::FqPie(fq_pie::decode(value)?),
        _ => QdiscOptions::Raw {
            hex: hex::encode(value),
            attrs: Attrs::named(value, "options")
                .collect::<Result<Vec<_>, _>>()
                .ok()
                .filter(|v| !v.is_empty())
                .map(|v| v.iter().map(raw_attr).collect()),
        },
    })
}

fn decode_tbf(value: &[u8], psched: &Psched) -> Result<TbfReadback, ModelError> {
    let mut qopt = None;
    let mut rate64 = None;
    let mut prate64 = None;
    for a in Attrs::named(value, "tbf options") {
        let a = a?;
        match a.kind() {
            TCA_TBF_PARMS => {
                qopt = Some(TbfQopt::from_bytes(a.value()).ok_or_else(|| {
                    let got = a.value().len();
                    ModelError::decode("TCA_TBF_PARMS", format!("{got} bytes, need 36"))
                })?)
            }
            TCA_TBF_RATE64 => rate64 = Some(a.u64().named("TCA_TBF_RATE64")?),
            TCA_TBF_PRATE64 => prate64 = Some(a.u64().named("TCA_TBF_PRATE64")?),
            _ => {}
        }
    }
    let q = qopt.ok_or_else(|| ModelError::decode("tbf options", "no TCA_TBF_PARMS"))?;
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

fn decode_xstats(kind: &str, x: &[u8]) -> QdiscXstats {
    let typed = match kind {
        fq_codel::KIND => fq_codel::decode_xstats(x).map(QdiscXstats::FqCodel),
        codel::KIND => codel::decode_xstats(x).map(QdiscXstats::Codel),
        fq::KIND => fq::decode_xstats(x).map(QdiscXstats::Fq),
        cake::KIND => cake::decode_xstats(x).ok().map(QdiscXstats::Cake),
        pie::KIND => pie::decode_xstats(x).map(QdiscXstats::Pie),
        fq_pie::KIND => fq_pie::decode_xstats(x).map(QdiscXstats::FqPie),
        _ => None,
    };
    typed.unwrap_or_else(|| QdiscXstats::Raw {
        hex: hex::encode(x),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_wrong_message_type_and_short_tcmsg() {
        let mut m = vec![0u8; 16];
        m[0] = 16;
        m[4] = 36;
        assert_eq!(
            decode_qdisc(&m, &Psched::MODERN).unwrap_err().to_string(),
            "decoding struct tcmsg: 0 bytes, need 20"
        );
        m[4] = 16;
        assert!(decode_qdisc(&m, &Psched::MODERN).is_err());
    }

    /// The header through netlink-packet-route's `TcHeader`: ifindex (a C
    /// int there) keeps its bits in our `u32`, handle and parent as sent.
    #[test]
    fn tcmsg_header_fields_and_a_negative_ifindex() {
        let mut m = vec![0u8; 16];
        m[4..6].copy_from_slice(&RTM_NEWQDISC.to_ne_bytes());
        m.extend_from_slice(&[0; 4]); // family, pad
        m.extend_from_slice(&(-1i32).to_ne_bytes());
        m.extend_from_slice(&0x0010_0000u32.to_ne_bytes()); // 10: (hex, as tc)
        m.extend_from_slice(&0x0001_0001u32.to_ne_bytes()); // 1:1
        m.extend_from_slice(&1u32.to_ne_bytes()); // tcm_info
        m.extend_from_slice(&[10, 0, 1, 0, b'p', b'i', b'e', 0, 0, 0, 0, 0]); // TCA_KIND
        let len = m.len() as u32;
        m[0..4].copy_from_slice(&len.to_ne_bytes());
        let r = decode_qdisc(&m, &Psched::MODERN).unwrap();
        assert_eq!((r.kind.as_str(), r.ifindex), ("pie", u32::MAX));
        assert_eq!((r.handle_raw, r.parent_raw), (0x0010_0000, 0x0001_0001));
        assert_eq!(
            (r.handle.to_string(), r.parent.to_string()),
            ("10:".into(), "1:1".into())
        );
        assert_eq!(
            (r.options, r.stats, r.xstats),
            (QdiscOptions::None, None, None)
        );
    }

    /// Fuzz reproducer (fuzz/README.md, qdisc_dump): an NLMSG_ERROR in a
    /// dump with code i32::MIN made the errno negation overflow (a panic in
    /// debug builds); it is a decode error naming the saturated errno.
    #[test]
    fn dump_error_code_i32_min_does_not_overflow() {
        let crash = hex::decode(
            "380000000200000000000000000008000000008000000000000000000300000000001000\
             01400100000000000a000100706669666f0000000800020000010000",
        )
        .unwrap();
        let err = decode_dump(&crash, None, &Psched::MODERN).unwrap_err();
        match err {
            ModelError::Decode { what, reason } => {
                assert_eq!(what, "qdisc dump");
                assert_eq!(reason, "kernel sent an error (errno 2147483647)");
            }
            other => panic!("not a decode error: {other:?}"),
        }
    }
}
