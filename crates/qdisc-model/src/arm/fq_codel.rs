//! `fq_codel` (iproute2 `tc/q_fq_codel.c`, kernel `sch_fq_codel.c`).
//! netlink-packet-route types fq_codel's options and xstats: requests use
//! its [`TcQdiscFqCodelOption`], readbacks parse with it.

use std::time::Duration;

use netlink_packet_core::{NlaBuffer, Parseable};
use netlink_packet_route::tc::{TcFqCodelXstats, TcOption, TcQdiscFqCodelOption as O};
use serde::{Deserialize, Serialize};

use super::{nonzero, to_us, word, OptionsPayload, Shown, Word};
use crate::raw::{raw_attr, RawAttr};
use crate::units::Size;
use crate::ModelError;
use netlab_netlink_views::Attrs;

/// The KIND.
pub const KIND: &str = "fq_codel";

/// `fq_codel` options.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FqCodel {
    /// Total queue limit in packets.
    pub limit: Option<u32>,
    /// Number of flow buckets.
    pub flows: Option<u32>,
    /// DRR quantum in bytes.
    pub quantum: Option<u32>,
    /// CoDel target delay.
    pub target: Option<Duration>,
    /// CoDel interval.
    pub interval: Option<Duration>,
    /// Memory limit in bytes.
    pub memory_limit: Option<Size>,
    /// ECN marking (`ecn`) or dropping (`noecn`).
    pub ecn: Option<bool>,
    /// CE-marking threshold.
    pub ce_threshold: Option<Duration>,
    /// `ce_threshold_selector VALUE/MASK`: `(selector, mask)`, applied to
    /// the DS field before comparing with the threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold_selector: Option<(u8, u8)>,
    /// Packets dropped at once when over limit.
    pub drop_batch: Option<u32>,
}

fn u8_word(what: &str, text: &str) -> Result<u8, ModelError> {
    let v = crate::units::tc_unsigned(what, text)?;
    u8::try_from(v).map_err(|_| ModelError::bad(what, text, "must be at most 255"))
}

pub(crate) const WORDS: &[Word<FqCodel>] = &[
    value!("limit", limit, |w| w.unsigned()?),
    value!("flows", flows, |w| w.unsigned()?),
    value!("quantum", quantum, |w| w.unsigned()?),
    value!("memory_limit", memory_limit, |w| Size(u64::from(
        w.tc_size()?
    ))),
    time!("target", target),
    time!("interval", interval),
    time!("ce_threshold", ce_threshold),
    word(
        "ce_threshold_selector",
        |o, w| {
            let word = w.current();
            let v = w.value(word)?;
            let what = format!("fq_codel {word}");
            let (sel, mask) = v
                .split_once('/')
                .ok_or_else(|| ModelError::bad(&what, v, "expected VALUE/MASK, e.g. 0x1/0x3"))?;
            o.ce_threshold_selector = Some((u8_word(&what, sel)?, u8_word(&what, mask)?));
            Ok(())
        },
        |o| {
            o.ce_threshold_selector
                .map(|(s, m)| Shown::Value(format!("{s:#x}/{m:#x}")))
        },
    ),
    value!("drop_batch", drop_batch, |w| w.unsigned()?),
    choice!("ecn", ecn, true),
    choice!("noecn", ecn, false),
];

impl FqCodel {
    /// Attributes in tc's order, left out where tc leaves them out (a zero
    /// limit, flows, quantum, interval, target or drop_batch).
    pub(crate) fn options(&self) -> Result<OptionsPayload, ModelError> {
        let mut v = Vec::new();
        let mut push = |o: Option<O>| v.extend(o.map(TcOption::FqCodel));
        push(nonzero(self.limit).map(O::Limit));
        push(nonzero(self.flows).map(O::Flows));
        push(nonzero(self.quantum).map(O::Quantum));
        push(nonzero(self.interval.map(to_us)).map(O::Interval));
        push(nonzero(self.target.map(to_us)).map(O::Target));
        push(self.ecn.map(|e| O::Ecn(u32::from(e))));
        push(self.ce_threshold.map(|d| O::CeThreshold(to_us(d))));
        if let Some((sel, mask)) = self.ce_threshold_selector {
            push(Some(O::CeThresholdMask(mask)));
            push(Some(O::CeThresholdSelector(sel)));
        }
        if let Some(m) = self.memory_limit {
            push(Some(O::MemoryLimit(m.to_u32("fq_codel memory_limit")?)));
        }
        push(nonzero(self.drop_batch).map(O::DropBatchSize));
        Ok(OptionsPayload::Nested(v))
    }
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

/// Decodes fq_codel's `TCA_OPTIONS` with netlink-packet-route's parser.
pub(crate) fn decode(value: &[u8]) -> Result<FqCodelReadback, ModelError> {
    let mut o = FqCodelReadback::default();
    for a in Attrs::named(value, "fq_codel options") {
        let a = a?;
        let buf = NlaBuffer::new_checked(a.bytes())
            .map_err(|e| ModelError::decode("fq_codel option", e.to_string()))?;
        let parsed =
            O::parse(&buf).map_err(|e| ModelError::decode("fq_codel option", e.to_string()))?;
        match parsed {
            O::Target(v) => o.target_us = Some(v),
            O::Limit(v) => o.limit = Some(v),
            O::Interval(v) => o.interval_us = Some(v),
            O::Ecn(v) => o.ecn = Some(v != 0),
            O::Flows(v) => o.flows = Some(v),
            O::Quantum(v) => o.quantum = Some(v),
            O::CeThreshold(v) => o.ce_threshold_us = Some(v),
            O::DropBatchSize(v) => o.drop_batch = Some(v),
            O::MemoryLimit(v) => o.memory_limit = Some(v),
            O::CeThresholdSelector(v) => o.ce_threshold_selector = Some(v),
            O::CeThresholdMask(v) => o.ce_threshold_mask = Some(v),
            _ => o.other.push(raw_attr(&a)),
        }
    }
    Ok(o)
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

/// Decodes the qdisc xstats with netlink-packet-route's parser.
pub(crate) fn decode_xstats(x: &[u8]) -> Option<FqCodelXstats> {
    match TcFqCodelXstats::parse(x) {
        Ok(TcFqCodelXstats::Qdisc(q)) => Some(FqCodelXstats {
            maxpacket: q.maxpacket,
            drop_overlimit: q.drop_overlimit,
            drop_overmemory: q.drop_overmemory,
            ecn_mark: q.ecn_mark,
            new_flow_count: q.new_flow_count,
            new_flows_len: q.new_flows_len,
            old_flows_len: q.old_flows_len,
            ce_mark: q.ce_mark,
            memory_usage: q.memory_usage,
        }),
        _ => None,
    }
}

/// The options as `tc qdisc show` prints them (`q_fq_codel.c`).
pub(crate) fn show(r: &FqCodelReadback) -> String {
    use crate::show::{size, time_us, Line};
    let mut l = Line::default();
    l.opt(r.limit.map(|v| format!("limit {v}p")));
    l.opt(r.flows.map(|v| format!("flows {v}")));
    l.opt(r.quantum.map(|v| format!("quantum {v}")));
    l.opt(r.target_us.map(|v| format!("target {}", time_us(v))));
    l.opt(
        r.ce_threshold_us
            .map(|v| format!("ce_threshold {}", time_us(v))),
    );
    let (sel, mask) = (
        r.ce_threshold_selector.unwrap_or(0),
        r.ce_threshold_mask.unwrap_or(0),
    );
    if sel != 0 || mask != 0 {
        l.put(format!("ce_threshold_selector {sel:#x}/{mask:#x}"));
    }
    l.opt(r.interval_us.map(|v| format!("interval {}", time_us(v))));
    l.opt(r.memory_limit.map(|v| format!("memory_limit {}", size(v))));
    if r.ecn == Some(true) {
        l.put("ecn");
    }
    l.opt(
        r.drop_batch
            .filter(|&v| v != 0)
            .map(|v| format!("drop_batch {v}")),
    );
    l.done()
}
