//! `codel` (iproute2 `tc/q_codel.c`, kernel `sch_codel.c`).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{nonzero, to_us, Nest, OptionsPayload, Word};
use crate::error::Named;
use crate::raw::{raw_attr, RawAttr};
use crate::ModelError;
use netlab_netlink_views::{Attrs, Fields};

/// The KIND.
pub const KIND: &str = "codel";

/// `TCA_CODEL_*` from the kernel's `pkt_sched.h`.
pub(crate) mod attr {
    pub const TARGET: u16 = 1;
    pub const LIMIT: u16 = 2;
    pub const INTERVAL: u16 = 3;
    pub const ECN: u16 = 4;
    pub const CE_THRESHOLD: u16 = 5;
}

/// `codel` options.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Codel {
    /// Queue limit in packets.
    pub limit: Option<u32>,
    /// Target delay.
    pub target: Option<Duration>,
    /// Interval.
    pub interval: Option<Duration>,
    /// ECN marking (`ecn`) or dropping (`noecn`).
    pub ecn: Option<bool>,
    /// CE-marking threshold.
    pub ce_threshold: Option<Duration>,
}

pub(crate) const WORDS: &[Word<Codel>] = &[
    value!("limit", limit, |w| w.unsigned()?),
    time!("target", target),
    time!("interval", interval),
    time!("ce_threshold", ce_threshold),
    choice!("ecn", ecn, true),
    choice!("noecn", ecn, false),
];

impl Codel {
    /// Attributes in tc's order; zero limit/target/interval are left out
    /// as tc does, `ce_threshold` is sent whenever given.
    pub(crate) fn options(&self) -> Result<OptionsPayload, ModelError> {
        let mut a = Nest::default();
        a.u32(attr::LIMIT, nonzero(self.limit));
        a.u32(attr::INTERVAL, nonzero(self.interval.map(to_us)));
        a.u32(attr::TARGET, nonzero(self.target.map(to_us)));
        a.u32(attr::ECN, self.ecn.map(u32::from));
        a.u32(attr::CE_THRESHOLD, self.ce_threshold.map(to_us));
        Ok(OptionsPayload::Nested(a.out))
    }
}

/// codel options as dumped (times in µs after the kernel's rounding).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodelReadback {
    /// Packet limit.
    pub limit: Option<u32>,
    /// Target in µs.
    pub target_us: Option<u32>,
    /// Interval in µs.
    pub interval_us: Option<u32>,
    /// ECN marking on.
    pub ecn: Option<bool>,
    /// CE threshold in µs (absent when off).
    pub ce_threshold_us: Option<u32>,
    /// Attributes this crate does not know.
    pub other: Vec<RawAttr>,
}

pub(crate) fn decode(value: &[u8]) -> Result<CodelReadback, ModelError> {
    let mut o = CodelReadback::default();
    for a in Attrs::named(value, "codel options") {
        let a = a?;
        match a.kind() {
            attr::TARGET => o.target_us = Some(a.u32().named("TCA_CODEL_TARGET")?),
            attr::LIMIT => o.limit = Some(a.u32().named("TCA_CODEL_LIMIT")?),
            attr::INTERVAL => o.interval_us = Some(a.u32().named("TCA_CODEL_INTERVAL")?),
            attr::ECN => o.ecn = Some(a.u32().named("TCA_CODEL_ECN")? != 0),
            attr::CE_THRESHOLD => {
                o.ce_threshold_us = Some(a.u32().named("TCA_CODEL_CE_THRESHOLD")?)
            }
            _ => o.other.push(raw_attr(&a)),
        }
    }
    Ok(o)
}

/// codel's `struct tc_codel_xstats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodelXstats {
    /// Largest packet seen.
    pub maxpacket: u32,
    /// Drops since entering the dropping state.
    pub count: u32,
    /// Count at entry to the dropping state.
    pub lastcount: u32,
    /// Sojourn time of the last dequeued packet, µs.
    pub ldelay_us: u32,
    /// Time to the next drop, µs (negative: overdue).
    pub drop_next_us: i32,
    /// Drops because the limit was hit.
    pub drop_overlimit: u32,
    /// Packets ECN-marked instead of dropped.
    pub ecn_mark: u32,
    /// In the dropping state now.
    pub dropping: bool,
    /// Packets CE-marked because of `ce_threshold`.
    pub ce_mark: u32,
}

pub(crate) fn decode_xstats(x: &[u8]) -> Option<CodelXstats> {
    // struct tc_codel_xstats: nine 32-bit fields
    let x = Fields::new_checked(x, 36, "tc_codel_xstats").ok()?;
    let f = |i: usize| x.u32(i * 4);
    Some(CodelXstats {
        maxpacket: f(0),
        count: f(1),
        lastcount: f(2),
        ldelay_us: f(3),
        drop_next_us: f(4) as i32,
        drop_overlimit: f(5),
        ecn_mark: f(6),
        dropping: f(7) != 0,
        ce_mark: f(8),
    })
}

/// The options as `tc qdisc show` prints them (`q_codel.c`).
pub(crate) fn show(r: &CodelReadback) -> String {
    use crate::show::{time_us, Line};
    let mut l = Line::default();
    l.opt(r.limit.map(|v| format!("limit {v}p")));
    l.opt(r.target_us.map(|v| format!("target {}", time_us(v))));
    l.opt(
        r.ce_threshold_us
            .map(|v| format!("ce_threshold {}", time_us(v))),
    );
    l.opt(r.interval_us.map(|v| format!("interval {}", time_us(v))));
    if r.ecn == Some(true) {
        l.put("ecn");
    }
    l.done()
}
