//! `fq`, the fair queue / pacer (iproute2 `tc/q_fq.c`, kernel `sch_fq.c`).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{to_us, word, Nest, OptionsPayload, Shown, Word};
use crate::error::Named;
use crate::raw::{raw_attr, RawAttr};
use crate::units::Rate;
use crate::ModelError;
use netlab_netlink_views::{Attrs, Fields};

/// The KIND.
pub const KIND: &str = "fq";

/// `TCA_FQ_*` from the kernel's `pkt_sched.h`.
pub(crate) mod attr {
    pub const PLIMIT: u16 = 1;
    pub const FLOW_PLIMIT: u16 = 2;
    pub const QUANTUM: u16 = 3;
    pub const INITIAL_QUANTUM: u16 = 4;
    pub const RATE_ENABLE: u16 = 5;
    pub const FLOW_DEFAULT_RATE: u16 = 6;
    pub const FLOW_MAX_RATE: u16 = 7;
    pub const BUCKETS_LOG: u16 = 8;
    pub const FLOW_REFILL_DELAY: u16 = 9;
    pub const ORPHAN_MASK: u16 = 10;
    pub const LOW_RATE_THRESHOLD: u16 = 11;
    pub const CE_THRESHOLD: u16 = 12;
    pub const TIMER_SLACK: u16 = 13;
    pub const HORIZON: u16 = 14;
    pub const HORIZON_DROP: u16 = 15;
}

/// `fq` (fair queue / pacing) options.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fq {
    /// Total queue limit in packets.
    pub limit: Option<u32>,
    /// Per-flow limit in packets.
    pub flow_limit: Option<u32>,
    /// DRR quantum in bytes (tc reads a plain number).
    pub quantum: Option<u32>,
    /// Quantum of a new flow in bytes (tc reads a plain number).
    pub initial_quantum: Option<u32>,
    /// Per-flow pacing ceiling (bytes/s as the kernel stores it).
    pub maxrate: Option<Rate>,
    /// Number of hash buckets; tc sends the base-2 log, rounded up.
    pub buckets: Option<u32>,
    /// Pacing on (`pacing`) or off (`nopacing`).
    pub pacing: Option<bool>,
    /// CE-marking threshold.
    pub ce_threshold: Option<Duration>,
    /// Rate below which packets are not aggregated (`low_rate_threshold`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low_rate_threshold: Option<Rate>,
    /// Obsolete default flow rate (`defrate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defrate: Option<Rate>,
    /// Flow credit refill delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refill_delay: Option<Duration>,
    /// Mask applied to orphaned skb hashes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orphan_mask: Option<u32>,
    /// Timer slack (nanosecond resolution).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer_slack: Option<Duration>,
    /// Time horizon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon: Option<Duration>,
    /// Beyond the horizon: drop (`horizon_drop`) or cap (`horizon_cap`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon_drop: Option<bool>,
}

fn rate_of(bytes: u32) -> Rate {
    Rate::from_bytes_per_sec(u64::from(bytes))
}

fn bytes_of(r: Rate) -> u32 {
    u32::try_from(r.bytes_per_sec()).unwrap_or(u32::MAX)
}

/// tc's `ilog2`: the base-2 log rounded up (`buckets 1000` → 10).
fn ilog2_up(v: u32) -> u32 {
    let mut v = v.wrapping_sub(1);
    let mut r = 0;
    while v != 0 {
        r += 1;
        v >>= 1;
    }
    r
}

pub(crate) const WORDS: &[Word<Fq>] = &[
    value!("limit", limit, |w| w.unsigned()?),
    value!("flow_limit", flow_limit, |w| w.unsigned()?),
    value!("quantum", quantum, |w| w.unsigned()?),
    value!("initial_quantum", initial_quantum, |w| w.unsigned()?),
    value!("maxrate", maxrate, |w| rate_of(w.rate32()?)),
    value!("buckets", buckets, |w| w.unsigned()?),
    time!("ce_threshold", ce_threshold),
    value!("low_rate_threshold", low_rate_threshold, |w| rate_of(
        w.rate32()?
    )),
    value!("defrate", defrate, |w| rate_of(w.rate32()?)),
    time!("refill_delay", refill_delay),
    value!("orphan_mask", orphan_mask, |w| w.unsigned()?),
    word(
        "timer_slack",
        |o, w| {
            let ns = w.time_ns()?;
            if ns > u64::from(u32::MAX) {
                return Err(ModelError::bad(
                    "fq timer_slack",
                    format!("{ns}ns"),
                    "more than 2^32-1 ns",
                ));
            }
            o.timer_slack = Some(Duration::from_nanos(ns));
            Ok(())
        },
        |o| {
            o.timer_slack
                .map(|d| Shown::Value(format!("{}ns", d.as_nanos())))
        },
    ),
    time!("horizon", horizon),
    choice!("horizon_drop", horizon_drop, true),
    choice!("horizon_cap", horizon_drop, false),
    choice!("pacing", pacing, true),
    choice!("nopacing", pacing, false),
];

impl Fq {
    /// Attributes in tc's order (buckets first, as a log; a zero bucket
    /// count is left out like tc does).
    pub(crate) fn options(&self) -> Result<OptionsPayload, ModelError> {
        let mut a = Nest::default();
        a.u32(
            attr::BUCKETS_LOG,
            self.buckets.filter(|&b| b != 0).map(ilog2_up),
        );
        a.u32(attr::PLIMIT, self.limit);
        a.u32(attr::FLOW_PLIMIT, self.flow_limit);
        a.u32(attr::QUANTUM, self.quantum);
        a.u32(attr::INITIAL_QUANTUM, self.initial_quantum);
        a.u32(attr::RATE_ENABLE, self.pacing.map(u32::from));
        a.u32(attr::FLOW_MAX_RATE, self.maxrate.map(bytes_of));
        a.u32(
            attr::LOW_RATE_THRESHOLD,
            self.low_rate_threshold.map(bytes_of),
        );
        a.u32(attr::FLOW_DEFAULT_RATE, self.defrate.map(bytes_of));
        a.u32(attr::FLOW_REFILL_DELAY, self.refill_delay.map(to_us));
        a.u32(attr::ORPHAN_MASK, self.orphan_mask);
        a.u32(attr::CE_THRESHOLD, self.ce_threshold.map(to_us));
        a.u32(
            attr::TIMER_SLACK,
            self.timer_slack
                .map(|d| u32::try_from(d.as_nanos()).unwrap_or(u32::MAX)),
        );
        a.u32(attr::HORIZON, self.horizon.map(to_us));
        a.u8(attr::HORIZON_DROP, self.horizon_drop.map(u8::from));
        Ok(OptionsPayload::Nested(a.out))
    }
}

/// fq options as dumped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FqReadback {
    /// Packet limit.
    pub limit: Option<u32>,
    /// Per-flow packet limit.
    pub flow_limit: Option<u32>,
    /// Quantum in bytes.
    pub quantum: Option<u32>,
    /// Initial quantum in bytes.
    pub initial_quantum: Option<u32>,
    /// Pacing on.
    pub pacing: Option<bool>,
    /// Per-flow max rate in bytes/s (`u32::MAX`: unlimited).
    pub maxrate_bytes_per_sec: Option<u32>,
    /// Default rate in bytes/s (obsolete).
    pub defrate_bytes_per_sec: Option<u32>,
    /// log2 of the bucket count.
    pub buckets_log: Option<u32>,
    /// Refill delay in µs.
    pub refill_delay_us: Option<u32>,
    /// Orphan mask.
    pub orphan_mask: Option<u32>,
    /// Low rate threshold in bytes/s.
    pub low_rate_threshold_bytes_per_sec: Option<u32>,
    /// CE threshold in µs (`u32::MAX`-ish when off).
    pub ce_threshold_us: Option<u32>,
    /// Timer slack in ns.
    pub timer_slack_ns: Option<u32>,
    /// Horizon in µs.
    pub horizon_us: Option<u32>,
    /// Drop (true) or cap (false) beyond the horizon.
    pub horizon_drop: Option<bool>,
    /// Attributes this crate does not know.
    pub other: Vec<RawAttr>,
}

pub(crate) fn decode(value: &[u8]) -> Result<FqReadback, ModelError> {
    let mut o = FqReadback::default();
    for a in Attrs::named(value, "fq options") {
        let a = a?;
        let v = |what| a.u32().named(what);
        match a.kind() {
            attr::PLIMIT => o.limit = Some(v("TCA_FQ_PLIMIT")?),
            attr::FLOW_PLIMIT => o.flow_limit = Some(v("TCA_FQ_FLOW_PLIMIT")?),
            attr::QUANTUM => o.quantum = Some(v("TCA_FQ_QUANTUM")?),
            attr::INITIAL_QUANTUM => o.initial_quantum = Some(v("TCA_FQ_INITIAL_QUANTUM")?),
            attr::RATE_ENABLE => o.pacing = Some(v("TCA_FQ_RATE_ENABLE")? != 0),
            attr::FLOW_DEFAULT_RATE => {
                o.defrate_bytes_per_sec = Some(v("TCA_FQ_FLOW_DEFAULT_RATE")?)
            }
            attr::FLOW_MAX_RATE => o.maxrate_bytes_per_sec = Some(v("TCA_FQ_FLOW_MAX_RATE")?),
            attr::BUCKETS_LOG => o.buckets_log = Some(v("TCA_FQ_BUCKETS_LOG")?),
            attr::FLOW_REFILL_DELAY => o.refill_delay_us = Some(v("TCA_FQ_FLOW_REFILL_DELAY")?),
            attr::ORPHAN_MASK => o.orphan_mask = Some(v("TCA_FQ_ORPHAN_MASK")?),
            attr::LOW_RATE_THRESHOLD => {
                o.low_rate_threshold_bytes_per_sec = Some(v("TCA_FQ_LOW_RATE_THRESHOLD")?)
            }
            attr::CE_THRESHOLD => o.ce_threshold_us = Some(v("TCA_FQ_CE_THRESHOLD")?),
            attr::TIMER_SLACK => o.timer_slack_ns = Some(v("TCA_FQ_TIMER_SLACK")?),
            attr::HORIZON => o.horizon_us = Some(v("TCA_FQ_HORIZON")?),
            attr::HORIZON_DROP => o.horizon_drop = Some(a.u8().named("TCA_FQ_HORIZON_DROP")? != 0),
            _ => o.other.push(raw_attr(&a)),
        }
    }
    Ok(o)
}

/// fq's `struct tc_fq_qd_stats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FqXstats {
    /// Flows garbage-collected.
    pub gc_flows: u64,
    /// High-priority packets.
    pub highprio_packets: u64,
    /// TCP retransmits seen.
    pub tcp_retrans: u64,
    /// Times throttled.
    pub throttled: u64,
    /// Drops because a flow hit its limit.
    pub flows_plimit: u64,
    /// Packets too long.
    pub pkts_too_long: u64,
    /// Allocation errors.
    pub allocation_errors: u64,
    /// Time of the next delayed flow (ns).
    pub time_next_delayed_flow: i64,
    /// Flows now.
    pub flows: u32,
    /// Inactive flows now.
    pub inactive_flows: u32,
    /// Throttled flows now.
    pub throttled_flows: u32,
    /// Unthrottle latency in ns.
    pub unthrottle_latency_ns: u32,
    /// Packets CE-marked above `ce_threshold`.
    pub ce_mark: u64,
    /// Drops beyond the horizon.
    pub horizon_drops: u64,
    /// Packets capped at the horizon.
    pub horizon_caps: u64,
}

pub(crate) fn decode_xstats(x: &[u8]) -> Option<FqXstats> {
    // struct tc_fq_qd_stats: 104 bytes
    let f = Fields::new_checked(x, 104, "tc_fq_qd_stats").ok()?;
    let q = |i: usize| f.u64(i);
    let d = |i: usize| f.u32(i);
    Some(FqXstats {
        gc_flows: q(0),
        highprio_packets: q(8),
        tcp_retrans: q(16),
        throttled: q(24),
        flows_plimit: q(32),
        pkts_too_long: q(40),
        allocation_errors: q(48),
        time_next_delayed_flow: q(56) as i64,
        flows: d(64),
        inactive_flows: d(68),
        throttled_flows: d(72),
        unthrottle_latency_ns: d(76),
        ce_mark: q(80),
        horizon_drops: q(88),
        horizon_caps: q(96),
    })
}

/// The options as `tc qdisc show` prints them (`q_fq.c`).
pub(crate) fn show(r: &FqReadback) -> String {
    use crate::show::{rate, size, time_ns, time_us, Line};
    let mut l = Line::default();
    l.opt(r.limit.map(|v| format!("limit {v}p")));
    l.opt(r.flow_limit.map(|v| format!("flow_limit {v}p")));
    l.opt(
        r.buckets_log
            .map(|v| format!("buckets {}", 1u64 << v.min(63))),
    );
    l.opt(r.orphan_mask.map(|v| format!("orphan_mask {v}")));
    if r.pacing == Some(false) {
        l.put("nopacing");
    }
    l.opt(r.quantum.map(|v| format!("quantum {}", size(v))));
    l.opt(
        r.initial_quantum
            .map(|v| format!("initial_quantum {}", size(v))),
    );
    l.opt(
        r.maxrate_bytes_per_sec
            .filter(|&v| v != u32::MAX)
            .map(|v| format!("maxrate {}", rate(u64::from(v)))),
    );
    l.opt(
        r.defrate_bytes_per_sec
            .filter(|&v| v != 0)
            .map(|v| format!("defrate {}", rate(u64::from(v)))),
    );
    l.opt(
        r.low_rate_threshold_bytes_per_sec
            .filter(|&v| v != 0)
            .map(|v| format!("low_rate_threshold {}", rate(u64::from(v)))),
    );
    l.opt(
        r.refill_delay_us
            .map(|v| format!("refill_delay {}", time_us(v))),
    );
    l.opt(
        r.ce_threshold_us
            .filter(|&v| v != u32::MAX)
            .map(|v| format!("ce_threshold {}", time_us(v))),
    );
    l.opt(
        r.timer_slack_ns
            .map(|v| format!("timer_slack {}", time_ns(u64::from(v)))),
    );
    l.opt(r.horizon_us.map(|v| format!("horizon {}", time_us(v))));
    match r.horizon_drop {
        Some(false) => l.put("horizon_cap"),
        Some(true) => l.put("horizon_drop"),
        None => {}
    }
    l.done()
}
