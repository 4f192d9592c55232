//! `pie` (iproute2 `tc/q_pie.c`, kernel `sch_pie.c`).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{nonzero, to_us, Nest, OptionsPayload, Word};
use crate::error::Named;
use crate::raw::{raw_attr, RawAttr};
use crate::ModelError;
use netlab_netlink_views::{Attrs, Fields};

/// The KIND.
pub const KIND: &str = "pie";

/// tc's `ALPHA_MAX` and `BETA_MAX` (pie and fq_pie).
pub(crate) const ALPHA_BETA_MAX: u32 = 32;

/// `TCA_PIE_*` from the kernel's `pkt_sched.h`.
pub(crate) mod attr {
    pub const TARGET: u16 = 1;
    pub const LIMIT: u16 = 2;
    pub const TUPDATE: u16 = 3;
    pub const ALPHA: u16 = 4;
    pub const BETA: u16 = 5;
    pub const ECN: u16 = 6;
    pub const BYTEMODE: u16 = 7;
    pub const DQ_RATE_ESTIMATOR: u16 = 8;
}

/// `pie` options.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pie {
    /// Queue limit in packets.
    pub limit: Option<u32>,
    /// Target delay.
    pub target: Option<Duration>,
    /// Probability update interval.
    pub tupdate: Option<Duration>,
    /// Alpha factor (0..=32).
    pub alpha: Option<u32>,
    /// Beta factor (0..=32).
    pub beta: Option<u32>,
    /// ECN marking (`ecn`) or dropping (`noecn`).
    pub ecn: Option<bool>,
    /// Queue in bytes (`bytemode`) or packets (`nobytemode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytemode: Option<bool>,
    /// Dequeue rate estimator on (`dq_rate_estimator`) or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dq_rate_estimator: Option<bool>,
}

/// `alpha`/`beta`: tc's `get_unsigned` and at most 32.
pub(crate) fn factor(w: &mut super::Words<'_>) -> Result<u32, ModelError> {
    let v = w.unsigned()?;
    if v > ALPHA_BETA_MAX {
        return Err(ModelError::bad(
            format!("{} {}", KIND, w.current()),
            v.to_string(),
            format!("must be at most {ALPHA_BETA_MAX}"),
        ));
    }
    Ok(v)
}

pub(crate) const WORDS: &[Word<Pie>] = &[
    value!("limit", limit, |w| w.unsigned()?),
    time!("target", target),
    time!("tupdate", tupdate),
    value!("alpha", alpha, |w| factor(w)?),
    value!("beta", beta, |w| factor(w)?),
    choice!("ecn", ecn, true),
    choice!("noecn", ecn, false),
    choice!("bytemode", bytemode, true),
    choice!("nobytemode", bytemode, false),
    choice!("dq_rate_estimator", dq_rate_estimator, true),
    choice!("no_dq_rate_estimator", dq_rate_estimator, false),
];

impl Pie {
    /// Attributes in tc's order; zero values are left out as tc does.
    pub(crate) fn options(&self) -> Result<OptionsPayload, ModelError> {
        let mut a = Nest::default();
        a.u32(attr::LIMIT, nonzero(self.limit));
        a.u32(attr::TUPDATE, nonzero(self.tupdate.map(to_us)));
        a.u32(attr::TARGET, nonzero(self.target.map(to_us)));
        a.u32(attr::ALPHA, nonzero(self.alpha));
        a.u32(attr::BETA, nonzero(self.beta));
        a.u32(attr::ECN, self.ecn.map(u32::from));
        a.u32(attr::BYTEMODE, self.bytemode.map(u32::from));
        a.u32(
            attr::DQ_RATE_ESTIMATOR,
            self.dq_rate_estimator.map(u32::from),
        );
        Ok(OptionsPayload::Nested(a.out))
    }
}

/// pie options as dumped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PieReadback {
    /// Packet limit.
    pub limit: Option<u32>,
    /// Target in µs.
    pub target_us: Option<u32>,
    /// Update interval in µs.
    pub tupdate_us: Option<u32>,
    /// Alpha.
    pub alpha: Option<u32>,
    /// Beta.
    pub beta: Option<u32>,
    /// ECN marking on.
    pub ecn: Option<bool>,
    /// Byte mode on.
    pub bytemode: Option<bool>,
    /// Dequeue rate estimator on.
    pub dq_rate_estimator: Option<bool>,
    /// Attributes this crate does not know.
    pub other: Vec<RawAttr>,
}

pub(crate) fn decode(value: &[u8]) -> Result<PieReadback, ModelError> {
    let mut o = PieReadback::default();
    for a in Attrs::named(value, "pie options") {
        let a = a?;
        match a.kind() {
            attr::TARGET => o.target_us = Some(a.u32().named("TCA_PIE_TARGET")?),
            attr::LIMIT => o.limit = Some(a.u32().named("TCA_PIE_LIMIT")?),
            attr::TUPDATE => o.tupdate_us = Some(a.u32().named("TCA_PIE_TUPDATE")?),
            attr::ALPHA => o.alpha = Some(a.u32().named("TCA_PIE_ALPHA")?),
            attr::BETA => o.beta = Some(a.u32().named("TCA_PIE_BETA")?),
            attr::ECN => o.ecn = Some(a.u32().named("TCA_PIE_ECN")? != 0),
            attr::BYTEMODE => o.bytemode = Some(a.u32().named("TCA_PIE_BYTEMODE")? != 0),
            attr::DQ_RATE_ESTIMATOR => {
                o.dq_rate_estimator = Some(a.u32().named("TCA_PIE_DQ_RATE_ESTIMATOR")? != 0)
            }
            _ => o.other.push(raw_attr(&a)),
        }
    }
    Ok(o)
}

/// pie's `struct tc_pie_xstats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PieXstats {
    /// Drop/mark probability, 0..1 (tc's `prob / UINT64_MAX`).
    pub probability: f64,
    /// The kernel's raw probability (`u64`, scaled to `u64::MAX`).
    pub prob_raw: u64,
    /// Current queue delay, µs.
    pub delay_us: u32,
    /// Average dequeue rate (bytes per PIE time unit).
    pub avg_dq_rate: u32,
    /// Whether the dequeue rate is being estimated.
    pub dq_rate_estimating: bool,
    /// Packets enqueued.
    pub packets_in: u32,
    /// Packets dropped by PIE.
    pub dropped: u32,
    /// Packets dropped because the queue was full.
    pub overlimit: u32,
    /// Largest queue length seen (packets).
    pub maxq: u32,
    /// Packets ECN-marked.
    pub ecn_mark: u32,
}

pub(crate) fn decode_xstats(x: &[u8]) -> Option<PieXstats> {
    // struct tc_pie_xstats: a u64 probability, then eight 32-bit fields
    let x = Fields::new_checked(x, 40, "tc_pie_xstats").ok()?;
    let prob = x.u64(0);
    let d = |i: usize| x.u32(8 + 4 * i);
    Some(PieXstats {
        probability: prob as f64 / u64::MAX as f64,
        prob_raw: prob,
        delay_us: d(0),
        avg_dq_rate: d(1),
        dq_rate_estimating: d(2) != 0,
        packets_in: d(3),
        dropped: d(4),
        overlimit: d(5),
        maxq: d(6),
        ecn_mark: d(7),
    })
}

/// The options as `tc qdisc show` prints them (`q_pie.c`).
pub(crate) fn show(r: &PieReadback) -> String {
    use crate::show::{time_us, Line};
    let mut l = Line::default();
    l.opt(r.limit.map(|v| format!("limit {v}p")));
    l.opt(r.target_us.map(|v| format!("target {}", time_us(v))));
    l.opt(r.tupdate_us.map(|v| format!("tupdate {}", time_us(v))));
    l.opt(r.alpha.map(|v| format!("alpha {v}")));
    l.opt(r.beta.map(|v| format!("beta {v}")));
    for (on, word) in [
        (r.ecn, "ecn"),
        (r.bytemode, "bytemode"),
        (r.dq_rate_estimator, "dq_rate_estimator"),
    ] {
        if on == Some(true) {
            l.put(word);
        }
    }
    l.done()
}
