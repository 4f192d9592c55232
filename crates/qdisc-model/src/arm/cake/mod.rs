//! `cake` (iproute2 `tc/q_cake.c`, kernel `sch_cake.c`): every keyword tc
//! 6.1 accepts, with tc's derived values (an `rtt` or preset also sends
//! `target = rtt / 20`; `bandwidth`/`unlimited` send `autorate 0`; the
//! framing keywords add to the overhead and set ATM/PTM and MPU).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{to_us, us, word, Nest, OptionsPayload, Shown, Word, Words};
use crate::error::Named;
use crate::raw::{raw_attr, RawAttr};
use crate::units::{Rate, Size};
use netlab_netlink_views::Attrs;

mod stats;
use crate::ModelError;
pub(crate) use stats::decode_xstats;
pub use stats::{CakeTinStats, CakeXstats};

/// The KIND.
pub const KIND: &str = "cake";

/// `TCA_CAKE_*` from the kernel's `pkt_sched.h`.
pub(crate) mod attr {
    pub const BASE_RATE64: u16 = 2;
    pub const DIFFSERV_MODE: u16 = 3;
    pub const ATM: u16 = 4;
    pub const FLOW_MODE: u16 = 5;
    pub const OVERHEAD: u16 = 6;
    pub const RTT: u16 = 7;
    pub const TARGET: u16 = 8;
    pub const AUTORATE: u16 = 9;
    pub const MEMORY: u16 = 10;
    pub const NAT: u16 = 11;
    pub const RAW: u16 = 12;
    pub const WASH: u16 = 13;
    pub const MPU: u16 = 14;
    pub const INGRESS: u16 = 15;
    pub const ACK_FILTER: u16 = 16;
    pub const SPLIT_GSO: u16 = 17;
    pub const FWMARK: u16 = 18;
}

/// Priority-queue modes (`CAKE_DIFFSERV_*`), by value.
pub const DIFFSERV_MODES: &[&str] = &[
    "diffserv3",
    "diffserv4",
    "diffserv8",
    "besteffort",
    "precedence",
];
/// Flow-isolation modes (`CAKE_FLOW_*`), by value.
pub const FLOW_MODES: &[&str] = &[
    "flowblind",
    "srchost",
    "dsthost",
    "hosts",
    "flows",
    "dual-srchost",
    "dual-dsthost",
    "triple-isolate",
];
/// Cell framing (`CAKE_ATM_*`), by value.
pub const ATM_MODES: &[&str] = &["noatm", "atm", "ptm"];
/// ACK filter modes (`CAKE_ACK_*`), by value.
pub const ACK_FILTER_MODES: &[&str] = &["no-ack-filter", "ack-filter", "ack-filter-aggressive"];
/// `cake` options, as tc's parser leaves its variables.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cake {
    /// Shaper bandwidth; `Some(None)` is `unlimited`.
    pub bandwidth: Option<Option<Rate>>,
    /// `autorate-ingress` (true), or false when a bandwidth was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autorate: Option<bool>,
    /// Assumed round-trip time (`rtt` or a preset); tc derives the target.
    pub rtt: Option<Duration>,
    /// Memory limit in bytes.
    pub memlimit: Option<Size>,
    /// Priority-queue mode word (`besteffort`, `diffserv3`, ...).
    pub diffserv: Option<String>,
    /// Flow-isolation mode word (`flowblind`, `flows`, `triple-isolate`, ...).
    pub flow_mode: Option<String>,
    /// NAT lookup (`nat`/`nonat`).
    pub nat: Option<bool>,
    /// DSCP washing (`wash`/`nowash`).
    pub wash: Option<bool>,
    /// GSO splitting (`split-gso`/`no-split-gso`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split_gso: Option<bool>,
    /// `raw`: overhead from the packet only, no link-layer guess.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub raw: bool,
    /// Cell framing word (`noatm`, `atm`, `ptm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atm: Option<String>,
    /// Per-packet overhead in bytes (-64..=256).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<i32>,
    /// Minimum packet unit in bytes (0..=256; 0 is not sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpu: Option<u32>,
    /// Ingress mode (`ingress`/`egress`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingress: Option<bool>,
    /// ACK filter word (`no-ack-filter`, `ack-filter`, `ack-filter-aggressive`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_filter: Option<String>,
    /// Firewall-mark mask for tin selection (0 is not sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fwmark: Option<u32>,
}

fn index_of(table: &[&str], word: Option<&String>) -> Option<u32> {
    let w = word?;
    table.iter().position(|n| n == w).map(|i| i as u32)
}

/// Adds a framing keyword's bytes to the overhead, as tc does (`ethernet`
/// twice is 76). A sum outside -64..=256, the range `overhead N` takes,
/// is refused: netlab prints an arm as `overhead N`, which must parse back
/// (tc itself would send the sum).
fn add_overhead(o: &mut Cake, atm: Option<&str>, add: i32) -> Result<(), ModelError> {
    if let Some(a) = atm {
        o.atm = Some(a.to_string());
    }
    let sum = o.overhead.unwrap_or(0) + add;
    if !(-64..=256).contains(&sum) {
        return Err(ModelError::bad(
            "cake overhead",
            sum.to_string(),
            "the framing keywords add up outside -64..=256, the range of `overhead N`",
        ));
    }
    o.overhead = Some(sum);
    Ok(())
}

macro_rules! mode {
    ($name:literal, $field:ident) => {
        word(
            $name,
            |o, _| {
                o.$field = Some($name.to_string());
                Ok(())
            },
            |o| Shown::flag(o.$field.as_deref() == Some($name)),
        )
    };
}

/// A keyword that only changes other options (never written back itself).
macro_rules! keyword {
    ($name:literal, $apply:expr) => {
        word(
            $name,
            |o, w| {
                let apply: fn(&mut Cake, &mut Words<'_>) -> Result<(), ModelError> = $apply;
                apply(o, w)
            },
            |_| None,
        )
    };
}

macro_rules! framing {
    ($name:literal, $atm:expr, $add:expr) => {
        keyword!($name, |o, _| add_overhead(o, $atm, $add))
    };
}

macro_rules! preset {
    ($name:literal, $rtt_us:expr) => {
        keyword!($name, |o, _| {
            o.rtt = Some(us($rtt_us));
            Ok(())
        })
    };
}

pub(crate) const WORDS: &[Word<Cake>] = &[
    word(
        "bandwidth",
        |o, w| {
            o.bandwidth = Some(Some(Rate::from_bytes_per_sec(w.rate64()?)));
            o.autorate = Some(false);
            Ok(())
        },
        |o| match o.bandwidth {
            Some(Some(r)) => Some(Shown::Value(r.to_string())),
            _ => None,
        },
    ),
    word(
        "unlimited",
        |o, _| {
            o.bandwidth = Some(None);
            o.autorate = Some(false);
            Ok(())
        },
        |o| Shown::flag(o.bandwidth == Some(None)),
    ),
    choice!("autorate-ingress", autorate, true),
    time!("rtt", rtt),
    value!("memlimit", memlimit, |w| Size(u64::from(w.tc_size()?))),
    mode!("besteffort", diffserv),
    mode!("precedence", diffserv),
    mode!("diffserv8", diffserv),
    mode!("diffserv4", diffserv),
    mode!("diffserv3", diffserv),
    mode!("flowblind", flow_mode),
    mode!("srchost", flow_mode),
    mode!("dsthost", flow_mode),
    mode!("hosts", flow_mode),
    mode!("flows", flow_mode),
    mode!("dual-srchost", flow_mode),
    mode!("dual-dsthost", flow_mode),
    mode!("triple-isolate", flow_mode),
    choice!("nat", nat, true),
    choice!("nonat", nat, false),
    choice!("wash", wash, true),
    choice!("nowash", wash, false),
    choice!("split-gso", split_gso, true),
    choice!("no-split-gso", split_gso, false),
    word(
        "raw",
        |o, _| {
            o.raw = true;
            o.atm = Some("noatm".to_string());
            o.overhead = Some(0);
            Ok(())
        },
        |o| Shown::flag(o.raw),
    ),
    mode!("noatm", atm),
    mode!("atm", atm),
    mode!("ptm", atm),
    value!("overhead", overhead, |w| w.int_in(-64, 256)?),
    value!("mpu", mpu, |w| w.int_in(0, 256)? as u32),
    choice!("ingress", ingress, true),
    choice!("egress", ingress, false),
    mode!("no-ack-filter", ack_filter),
    mode!("ack-filter", ack_filter),
    mode!("ack-filter-aggressive", ack_filter),
    value!("fwmark", fwmark, |w| w.unsigned()?),
    // Words that only change the options above.
    keyword!("diffserv", |o, _| {
        o.diffserv = Some("diffserv4".to_string());
        Ok(())
    }),
    preset!("datacentre", 100),
    preset!("lan", 1000),
    preset!("metro", 10_000),
    preset!("regional", 30_000),
    preset!("internet", 100_000),
    preset!("oceanic", 300_000),
    preset!("satellite", 1_000_000),
    preset!("interplanetary", 1_000_000_000),
    keyword!("conservative", |o, _| {
        o.atm = Some("atm".to_string());
        o.overhead = Some(48);
        Ok(())
    }),
    framing!("ipoa-vcmux", Some("atm"), 8),
    framing!("ipoa-llcsnap", Some("atm"), 16),
    framing!("bridged-vcmux", Some("atm"), 24),
    framing!("bridged-llcsnap", Some("atm"), 32),
    framing!("pppoa-vcmux", Some("atm"), 10),
    framing!("pppoa-llc", Some("atm"), 14),
    framing!("pppoe-vcmux", Some("atm"), 32),
    framing!("pppoe-llcsnap", Some("atm"), 40),
    framing!("pppoe-ptm", Some("ptm"), 30),
    framing!("bridged-ptm", Some("ptm"), 22),
    keyword!("via-ethernet", |_, _| Ok(())),
    keyword!("ethernet", |o, _| {
        add_overhead(o, None, 38)?;
        o.mpu = Some(84);
        Ok(())
    }),
    framing!("ether-vlan", None, 4),
    keyword!("docsis", |o, _| {
        add_overhead(o, Some("noatm"), 18)?;
        o.mpu = Some(64);
        Ok(())
    }),
];

impl Cake {
    /// The target tc derives: `rtt / 20`, at least 1 µs.
    pub fn target(&self) -> Option<Duration> {
        self.rtt.map(|r| us((to_us(r) / 20).max(1)))
    }

    /// Attributes in tc's order, with tc's derived values.
    pub(crate) fn options(&self) -> Result<OptionsPayload, ModelError> {
        let mut a = Nest::default();
        match self.bandwidth {
            Some(None) => a.u64(attr::BASE_RATE64, Some(0)),
            Some(Some(r)) if r.bytes_per_sec() != 0 => {
                a.u64(attr::BASE_RATE64, Some(r.bytes_per_sec()))
            }
            _ => {}
        }
        a.u32(
            attr::DIFFSERV_MODE,
            index_of(DIFFSERV_MODES, self.diffserv.as_ref()),
        );
        a.u32(attr::ATM, index_of(ATM_MODES, self.atm.as_ref()));
        a.u32(
            attr::FLOW_MODE,
            index_of(FLOW_MODES, self.flow_mode.as_ref()),
        );
        a.i32(attr::OVERHEAD, self.overhead);
        if self.raw {
            a.u32(attr::RAW, Some(0));
        }
        a.u32(attr::MPU, self.mpu.filter(|&m| m > 0));
        a.u32(attr::RTT, self.rtt.map(to_us).filter(|&r| r != 0));
        a.u32(attr::TARGET, self.target().map(to_us));
        a.u32(attr::AUTORATE, self.autorate.map(u32::from));
        if let Some(m) = self.memlimit {
            a.u32(
                attr::MEMORY,
                Some(m.to_u32("cake memlimit")?).filter(|&m| m != 0),
            );
        }
        a.u32(attr::FWMARK, self.fwmark.filter(|&f| f != 0));
        a.u32(attr::NAT, self.nat.map(u32::from));
        a.u32(attr::WASH, self.wash.map(u32::from));
        a.u32(attr::SPLIT_GSO, self.split_gso.map(u32::from));
        a.u32(attr::INGRESS, self.ingress.map(u32::from));
        a.u32(
            attr::ACK_FILTER,
            index_of(ACK_FILTER_MODES, self.ack_filter.as_ref()),
        );
        Ok(OptionsPayload::Nested(a.out))
    }
}

/// cake options as dumped, with the mode numbers named.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CakeReadback {
    /// Shaper rate in bytes/s (0: unlimited).
    pub base_rate_bytes_per_sec: Option<u64>,
    /// Priority-queue mode word.
    pub diffserv: Option<String>,
    /// Cell framing word.
    pub atm: Option<String>,
    /// Flow-isolation mode word.
    pub flow_mode: Option<String>,
    /// Per-packet overhead in bytes.
    pub overhead: Option<i32>,
    /// RTT in µs.
    pub rtt_us: Option<u32>,
    /// Target in µs.
    pub target_us: Option<u32>,
    /// Autorate (ingress) on.
    pub autorate: Option<bool>,
    /// Memory limit in bytes (0: automatic).
    pub memory_limit: Option<u32>,
    /// NAT lookup on.
    pub nat: Option<bool>,
    /// `raw` overhead mode (the kernel sends the attribute only then).
    pub raw: bool,
    /// DSCP washing on.
    pub wash: Option<bool>,
    /// Minimum packet unit.
    pub mpu: Option<u32>,
    /// Ingress mode on.
    pub ingress: Option<bool>,
    /// ACK filter word.
    pub ack_filter: Option<String>,
    /// GSO splitting on.
    pub split_gso: Option<bool>,
    /// Firewall-mark mask.
    pub fwmark: Option<u32>,
    /// Attributes this crate does not know.
    pub other: Vec<RawAttr>,
}

fn name_of(table: &[&str], v: u32) -> String {
    table
        .get(v as usize)
        .map_or_else(|| format!("unknown({v})"), |s| s.to_string())
}

pub(crate) fn decode(value: &[u8]) -> Result<CakeReadback, ModelError> {
    let mut o = CakeReadback::default();
    for a in Attrs::named(value, "cake options") {
        let a = a?;
        let v = |what| a.u32().named(what);
        match a.kind() {
            attr::BASE_RATE64 => {
                o.base_rate_bytes_per_sec = Some(a.u64().named("TCA_CAKE_BASE_RATE64")?)
            }
            attr::DIFFSERV_MODE => {
                o.diffserv = Some(name_of(DIFFSERV_MODES, v("TCA_CAKE_DIFFSERV_MODE")?))
            }
            attr::ATM => o.atm = Some(name_of(ATM_MODES, v("TCA_CAKE_ATM")?)),
            attr::FLOW_MODE => o.flow_mode = Some(name_of(FLOW_MODES, v("TCA_CAKE_FLOW_MODE")?)),
            attr::OVERHEAD => {
                o.overhead = Some(a.u32().map(|v| v as i32).named("TCA_CAKE_OVERHEAD")?)
            }
            attr::RTT => o.rtt_us = Some(v("TCA_CAKE_RTT")?),
            attr::TARGET => o.target_us = Some(v("TCA_CAKE_TARGET")?),
            attr::AUTORATE => o.autorate = Some(v("TCA_CAKE_AUTORATE")? != 0),
            attr::MEMORY => o.memory_limit = Some(v("TCA_CAKE_MEMORY")?),
            attr::NAT => o.nat = Some(v("TCA_CAKE_NAT")? != 0),
            attr::RAW => o.raw = true,
            attr::WASH => o.wash = Some(v("TCA_CAKE_WASH")? != 0),
            attr::MPU => o.mpu = Some(v("TCA_CAKE_MPU")?),
            attr::INGRESS => o.ingress = Some(v("TCA_CAKE_INGRESS")? != 0),
            attr::ACK_FILTER => {
                o.ack_filter = Some(name_of(ACK_FILTER_MODES, v("TCA_CAKE_ACK_FILTER")?))
            }
            attr::SPLIT_GSO => o.split_gso = Some(v("TCA_CAKE_SPLIT_GSO")? != 0),
            attr::FWMARK => o.fwmark = Some(v("TCA_CAKE_FWMARK")?),
            _ => o.other.push(raw_attr(&a)),
        }
    }
    Ok(o)
}

/// The options as `tc qdisc show` prints them (`q_cake.c`).
pub(crate) fn show(r: &CakeReadback) -> String {
    use crate::show::{rate, size, time_us, Line};
    let mut l = Line::default();
    match r.base_rate_bytes_per_sec {
        Some(0) => l.put("bandwidth unlimited"),
        Some(b) => l.put(format!("bandwidth {}", rate(b))),
        None => {}
    }
    if r.autorate == Some(true) {
        l.put("autorate-ingress");
    }
    l.opt(r.diffserv.as_ref());
    l.opt(r.flow_mode.as_ref());
    l.put(if r.nat == Some(true) { "nat" } else { "nonat" });
    l.put(if r.wash == Some(true) {
        "wash"
    } else {
        "nowash"
    });
    if r.ingress == Some(true) {
        l.put("ingress");
    }
    l.put(r.ack_filter.as_deref().unwrap_or("no-ack-filter"));
    l.put(if r.split_gso == Some(true) {
        "split-gso"
    } else {
        "no-split-gso"
    });
    l.opt(
        r.rtt_us
            .filter(|&v| v != 0)
            .map(|v| format!("rtt {}", time_us(v))),
    );
    if r.raw {
        l.put("raw");
    }
    match r.atm.as_deref() {
        Some("atm") => l.put("atm"),
        Some("ptm") => l.put("ptm"),
        _ if !r.raw => l.put("noatm"),
        _ => {}
    }
    l.put(format!("overhead {}", r.overhead.unwrap_or(0)));
    l.opt(r.mpu.filter(|&v| v != 0).map(|v| format!("mpu {v}")));
    l.opt(
        r.memory_limit
            .filter(|&v| v != 0)
            .map(|v| format!("memlimit {}", size(v))),
    );
    l.opt(
        r.fwmark
            .filter(|&v| v != 0)
            .map(|v| format!("fwmark {v:#x}")),
    );
    l.done()
}
