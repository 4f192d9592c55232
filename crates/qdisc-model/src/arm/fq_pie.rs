//! `fq_pie` (iproute2 `tc/q_fq_pie.c`, kernel `sch_fq_pie.c`). tc sends
//! `TCA_OPTIONS` with `NLA_F_NESTED` set: the kernel's fq_pie parses its
//! options strictly and refuses them without it. (Debian's user-mode-linux
//! 6.1 kernel has no `sch_fq_pie` module.)

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::pie::factor;
use super::{nonzero, to_us, word, Nest, OptionsPayload, Shown, Word};
use crate::error::Named;
use crate::raw::{raw_attr, RawAttr};
use crate::units::Size;
use crate::ModelError;
use netlab_netlink_views::{Attrs, Fields};

/// The KIND.
pub const KIND: &str = "fq_pie";

/// `TCA_FQ_PIE_*` from the kernel's `pkt_sched.h`.
pub(crate) mod attr {
    pub const LIMIT: u16 = 1;
    pub const FLOWS: u16 = 2;
    pub const TARGET: u16 = 3;
    pub const TUPDATE: u16 = 4;
    pub const ALPHA: u16 = 5;
    pub const BETA: u16 = 6;
    pub const QUANTUM: u16 = 7;
    pub const MEMORY_LIMIT: u16 = 8;
    pub const ECN_PROB: u16 = 9;
    pub const ECN: u16 = 10;
    pub const BYTEMODE: u16 = 11;
    pub const DQ_RATE_ESTIMATOR: u16 = 12;
}

/// `fq_pie` options.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FqPie {
    /// Total queue limit in packets.
    pub limit: Option<u32>,
    /// Number of flow buckets.
    pub flows: Option<u32>,
    /// Target delay.
    pub target: Option<Duration>,
    /// Probability update interval.
    pub tupdate: Option<Duration>,
    /// Alpha factor (0..=32).
    pub alpha: Option<u32>,
    /// Beta factor (0..=32).
    pub beta: Option<u32>,
    /// DRR quantum in bytes.
    pub quantum: Option<Size>,
    /// Memory limit in bytes.
    pub memory_limit: Option<Size>,
    /// Drop probability (percent, below 100) above which ECN-capable
    /// packets are dropped.
    pub ecn_prob: Option<u32>,
    /// ECN marking (`ecn`) or dropping (`noecn`).
    pub ecn: Option<bool>,
    /// Queue in bytes (`bytemode`) or packets (`nobytemode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytemode: Option<bool>,
    /// Dequeue rate estimator on (`dq_rate_estimator`) or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dq_rate_estimator: Option<bool>,
}

pub(crate) const WORDS: &[Word<FqPie>] = &[
    value!("limit", limit, |w| w.unsigned()?),
    value!("flows", flows, |w| w.unsigned()?),
    time!("target", target),
    time!("tupdate", tupdate),
    value!("alpha", alpha, |w| factor(w)?),
    value!("beta", beta, |w| factor(w)?),
    value!("quantum", quantum, |w| Size(u64::from(w.tc_size()?))),
    value!("memory_limit", memory_limit, |w| Size(u64::from(
        w.tc_size()?
    ))),
    word(
        "ecn_prob",
        |o, w| {
            let v = w.unsigned()?;
            if v >= 100 {
                return Err(ModelError::bad(
                    "fq_pie ecn_prob",
                    v.to_string(),
                    "must be below 100 (percent)",
                ));
            }
            o.ecn_prob = Some(v);
            Ok(())
        },
        |o| Shown::value(o.ecn_prob),
    ),
    choice!("ecn", ecn, true),
    choice!("noecn", ecn, false),
    choice!("bytemode", bytemode, true),
    choice!("nobytemode", bytemode, false),
    choice!("dq_rate_estimator", dq_rate_estimator, true),
    choice!("no_dq_rate_estimator", dq_rate_estimator, false),
];

impl FqPie {
    /// Attributes in tc's order; zero values are left out as tc does;
    /// `TCA_OPTIONS` carries `NLA_F_NESTED`.
    pub(crate) fn options(&self) -> Result<OptionsPayload, ModelError> {
        let mut a = Nest::default();
        a.u32(attr::LIMIT, nonzero(self.limit));
        a.u32(attr::FLOWS, nonzero(self.flows));
        a.u32(attr::TARGET, nonzero(self.target.map(to_us)));
        a.u32(attr::TUPDATE, nonzero(self.tupdate.map(to_us)));
        a.u32(attr::ALPHA, nonzero(self.alpha));
        a.u32(attr::BETA, nonzero(self.beta));
        let size = |s: Option<Size>, what| s.map(|s| s.to_u32(what)).transpose();
        a.u32(
            attr::QUANTUM,
            nonzero(size(self.quantum, "fq_pie quantum")?),
        );
        a.u32(
            attr::MEMORY_LIMIT,
            nonzero(size(self.memory_limit, "fq_pie memory_limit")?),
        );
        a.u32(attr::ECN_PROB, nonzero(self.ecn_prob));
        a.u32(attr::ECN, self.ecn.map(u32::from));
        a.u32(attr::BYTEMODE, self.bytemode.map(u32::from));
        a.u32(
            attr::DQ_RATE_ESTIMATOR,
            self.dq_rate_estimator.map(u32::from),
        );
        Ok(OptionsPayload::NestedFlagged(a.out))
    }
}

/// fq_pie options as dumped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FqPieReadback {
    /// Packet limit.
    pub limit: Option<u32>,
    /// Flow buckets.
    pub flows: Option<u32>,
    /// Target in µs.
    pub target_us: Option<u32>,
    /// Update interval in µs.
    pub tupdate_us: Option<u32>,
    /// Alpha.
    pub alpha: Option<u32>,
    /// Beta.
    pub beta: Option<u32>,
    /// Quantum in bytes.
    pub quantum: Option<u32>,
    /// Memory limit in bytes.
    pub memory_limit: Option<u32>,
    /// ECN drop probability threshold, percent.
    pub ecn_prob: Option<u32>,
    /// ECN marking on.
    pub ecn: Option<bool>,
    /// Byte mode on.
    pub bytemode: Option<bool>,
    /// Dequeue rate estimator on.
    pub dq_rate_estimator: Option<bool>,
    /// Attributes this crate does not know.
    pub other: Vec<RawAttr>,
}

pub(crate) fn decode(value: &[u8]) -> Result<FqPieReadback, ModelError> {
    let mut o = FqPieReadback::default();
    for a in Attrs::named(value, "fq_pie options") {
        let a = a?;
        let v = |what| a.u32().named(what);
        match a.kind() {
            attr::LIMIT => o.limit = Some(v("TCA_FQ_PIE_LIMIT")?),
            attr::FLOWS => o.flows = Some(v("TCA_FQ_PIE_FLOWS")?),
            attr::TARGET => o.target_us = Some(v("TCA_FQ_PIE_TARGET")?),
            attr::TUPDATE => o.tupdate_us = Some(v("TCA_FQ_PIE_TUPDATE")?),
            attr::ALPHA => o.alpha = Some(v("TCA_FQ_PIE_ALPHA")?),
            attr::BETA => o.beta = Some(v("TCA_FQ_PIE_BETA")?),
            attr::QUANTUM => o.quantum = Some(v("TCA_FQ_PIE_QUANTUM")?),
            attr::MEMORY_LIMIT => o.memory_limit = Some(v("TCA_FQ_PIE_MEMORY_LIMIT")?),
            attr::ECN_PROB => o.ecn_prob = Some(v("TCA_FQ_PIE_ECN_PROB")?),
            attr::ECN => o.ecn = Some(v("TCA_FQ_PIE_ECN")? != 0),
            attr::BYTEMODE => o.bytemode = Some(v("TCA_FQ_PIE_BYTEMODE")? != 0),
            attr::DQ_RATE_ESTIMATOR => {
                o.dq_rate_estimator = Some(v("TCA_FQ_PIE_DQ_RATE_ESTIMATOR")? != 0)
            }
            _ => o.other.push(raw_attr(&a)),
        }
    }
    Ok(o)
}

/// fq_pie's `struct tc_fq_pie_xstats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FqPieXstats {
    /// Packets enqueued.
    pub packets_in: u32,
    /// Packets dropped by PIE.
    pub dropped: u32,
    /// Drops because the packet limit was hit.
    pub overlimit: u32,
    /// Drops because the memory limit was hit.
    pub overmemory: u32,
    /// Packets ECN-marked.
    pub ecn_mark: u32,
    /// Flows created.
    pub new_flow_count: u32,
    /// Flows in the new list now.
    pub new_flows_len: u32,
    /// Flows in the old list now.
    pub old_flows_len: u32,
    /// Memory in use, bytes.
    pub memory_usage: u32,
}

pub(crate) fn decode_xstats(x: &[u8]) -> Option<FqPieXstats> {
    // struct tc_fq_pie_xstats: nine 32-bit fields
    let x = Fields::new_checked(x, 36, "tc_fq_pie_xstats").ok()?;
    let d = |i: usize| x.u32(4 * i);
    Some(FqPieXstats {
        packets_in: d(0),
        dropped: d(1),
        overlimit: d(2),
        overmemory: d(3),
        ecn_mark: d(4),
        new_flow_count: d(5),
        new_flows_len: d(6),
        old_flows_len: d(7),
        memory_usage: d(8),
    })
}

/// The options as `tc qdisc show` prints them (`q_fq_pie.c`).
pub(crate) fn show(r: &FqPieReadback) -> String {
    use crate::show::{size, time_us, Line};
    let mut l = Line::default();
    l.opt(r.limit.map(|v| format!("limit {v}p")));
    l.opt(r.flows.map(|v| format!("flows {v}")));
    l.opt(r.target_us.map(|v| format!("target {}", time_us(v))));
    l.opt(r.tupdate_us.map(|v| format!("tupdate {}", time_us(v))));
    l.opt(r.alpha.map(|v| format!("alpha {v}")));
    l.opt(r.beta.map(|v| format!("beta {v}")));
    l.opt(r.quantum.map(|v| format!("quantum {}", size(v))));
    l.opt(r.memory_limit.map(|v| format!("memory_limit {}", size(v))));
    l.opt(r.ecn_prob.map(|v| format!("ecn_prob {v}")));
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
