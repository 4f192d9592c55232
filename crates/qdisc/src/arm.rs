//! The arm under test: TBF's child qdisc, typed, parsed from tc words and
//! written back as tc words.
//!
//! Every option is an `Option`: only what the user gave is sent to the
//! kernel, everything else keeps the kernel's default.

use std::fmt;
use std::time::Duration;

use netlink_packet_core::DefaultNla;
use netlink_packet_route::tc::{TcOption, TcQdiscFqCodelOption};
use serde::{Deserialize, Serialize};

use crate::units::{format_time, micros_u32, parse_time, parse_u32, Rate, Size};
use crate::QdiscError;

/// The kinds [`Arm::parse`] understands.
pub const KNOWN_KINDS: &str = "pfifo, bfifo, fq_codel, codel, fq, cake, pie, fq_pie";

/// `pfifo`: a packet-count FIFO.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pfifo {
    /// Queue limit in packets.
    pub limit: Option<u32>,
}

/// `bfifo`: a byte-count FIFO.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bfifo {
    /// Queue limit in bytes.
    pub limit: Option<Size>,
}

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
    /// Packets dropped at once when over limit.
    pub drop_batch: Option<u32>,
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

/// `fq` (fair queue / pacing) options.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fq {
    /// Total queue limit in packets.
    pub limit: Option<u32>,
    /// Per-flow limit in packets.
    pub flow_limit: Option<u32>,
    /// DRR quantum in bytes.
    pub quantum: Option<Size>,
    /// Quantum of a new flow in bytes.
    pub initial_quantum: Option<Size>,
    /// Per-flow pacing ceiling.
    pub maxrate: Option<Rate>,
    /// Number of hash buckets (a power of two).
    pub buckets: Option<u32>,
    /// Pacing on (`pacing`) or off (`nopacing`).
    pub pacing: Option<bool>,
    /// CE-marking threshold.
    pub ce_threshold: Option<Duration>,
}

/// `cake` options (the common subset).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cake {
    /// Shaper bandwidth; `Some(None)` is `unlimited`.
    pub bandwidth: Option<Option<Rate>>,
    /// Assumed round-trip time.
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
    /// Alpha factor.
    pub alpha: Option<u32>,
    /// Beta factor.
    pub beta: Option<u32>,
    /// ECN marking (`ecn`) or dropping (`noecn`).
    pub ecn: Option<bool>,
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
    /// Alpha factor.
    pub alpha: Option<u32>,
    /// Beta factor.
    pub beta: Option<u32>,
    /// DRR quantum in bytes.
    pub quantum: Option<Size>,
    /// Memory limit in bytes.
    pub memory_limit: Option<Size>,
    /// Drop probability (percent) above which ECN-capable packets are dropped.
    pub ecn_prob: Option<u32>,
    /// ECN marking (`ecn`) or dropping (`noecn`).
    pub ecn: Option<bool>,
}

/// The child qdisc at `parent 1:1 handle 10:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Arm {
    /// `pfifo`.
    Pfifo(Pfifo),
    /// `bfifo`.
    Bfifo(Bfifo),
    /// `fq_codel`.
    FqCodel(FqCodel),
    /// `codel`.
    Codel(Codel),
    /// `fq`.
    Fq(Fq),
    /// `cake`.
    Cake(Cake),
    /// `pie`.
    Pie(Pie),
    /// `fq_pie`.
    FqPie(FqPie),
}

const CAKE_DIFFSERV: &[(&str, u32)] = &[
    ("diffserv3", 0),
    ("diffserv4", 1),
    ("diffserv8", 2),
    ("besteffort", 3),
    ("precedence", 4),
];
const CAKE_FLOW_MODES: &[(&str, u32)] = &[
    ("flowblind", 0),
    ("srchost", 1),
    ("dsthost", 2),
    ("hosts", 3),
    ("flows", 4),
    ("dual-srchost", 5),
    ("dual-dsthost", 6),
    ("triple-isolate", 7),
];

impl Arm {
    /// SPEC §2 arm: `pfifo limit 256`.
    pub fn spec_pfifo() -> Arm {
        Arm::Pfifo(Pfifo { limit: Some(256) })
    }

    /// SPEC §2 arm: `fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn`.
    pub fn spec_fq_codel() -> Arm {
        Arm::FqCodel(FqCodel {
            limit: Some(256),
            memory_limit: Some(Size(1_048_576)),
            target: Some(Duration::from_millis(5)),
            interval: Some(Duration::from_millis(100)),
            ecn: Some(true),
            ..FqCodel::default()
        })
    }

    /// The kernel's name of this qdisc kind, e.g. `fq_codel`.
    pub fn kind(&self) -> &'static str {
        match self {
            Arm::Pfifo(_) => "pfifo",
            Arm::Bfifo(_) => "bfifo",
            Arm::FqCodel(_) => "fq_codel",
            Arm::Codel(_) => "codel",
            Arm::Fq(_) => "fq",
            Arm::Cake(_) => "cake",
            Arm::Pie(_) => "pie",
            Arm::FqPie(_) => "fq_pie",
        }
    }

    /// The kernel module that provides this kind, e.g. `sch_fq_codel`
    /// (`pfifo`/`bfifo` live in `sch_fifo`, which is always built in).
    pub fn module_name(&self) -> String {
        module_for_kind(self.kind())
    }

    /// Parses tc words, e.g. `fq_codel limit 256 target 5ms interval 100ms ecn`.
    pub fn parse(text: &str) -> Result<Arm, QdiscError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        Arm::parse_words(&words)
    }

    /// Parses already split tc words (the first is the kind).
    pub fn parse_words(words: &[&str]) -> Result<Arm, QdiscError> {
        let Some((&kind, rest)) = words.split_first() else {
            return Err(QdiscError::UnknownKind {
                kind: String::new(),
                known: KNOWN_KINDS,
            });
        };
        let mut w = Words::new(kind, rest);
        let arm = match kind {
            "pfifo" => {
                let mut o = Pfifo::default();
                while let Some(word) = w.next() {
                    match word {
                        "limit" => o.limit = Some(w.count(word)?),
                        _ => return Err(w.unknown(word, "limit")),
                    }
                }
                Arm::Pfifo(o)
            }
            "bfifo" => {
                let mut o = Bfifo::default();
                while let Some(word) = w.next() {
                    match word {
                        "limit" => o.limit = Some(w.size(word)?),
                        _ => return Err(w.unknown(word, "limit")),
                    }
                }
                Arm::Bfifo(o)
            }
            "fq_codel" => {
                let mut o = FqCodel::default();
                while let Some(word) = w.next() {
                    match word {
                        "limit" => o.limit = Some(w.count(word)?),
                        "flows" => o.flows = Some(w.count(word)?),
                        "quantum" => o.quantum = Some(w.count(word)?),
                        "target" => o.target = Some(w.time(word)?),
                        "interval" => o.interval = Some(w.time(word)?),
                        "memory_limit" => o.memory_limit = Some(w.size(word)?),
                        "ce_threshold" => o.ce_threshold = Some(w.time(word)?),
                        "drop_batch" => o.drop_batch = Some(w.count(word)?),
                        "ecn" => o.ecn = Some(true),
                        "noecn" => o.ecn = Some(false),
                        _ => {
                            return Err(w.unknown(
                                word,
                                "limit, flows, quantum, target, interval, memory_limit, ce_threshold, drop_batch, ecn, noecn",
                            ))
                        }
                    }
                }
                Arm::FqCodel(o)
            }
            "codel" => {
                let mut o = Codel::default();
                while let Some(word) = w.next() {
                    match word {
                        "limit" => o.limit = Some(w.count(word)?),
                        "target" => o.target = Some(w.time(word)?),
                        "interval" => o.interval = Some(w.time(word)?),
                        "ce_threshold" => o.ce_threshold = Some(w.time(word)?),
                        "ecn" => o.ecn = Some(true),
                        "noecn" => o.ecn = Some(false),
                        _ => {
                            return Err(w.unknown(
                                word,
                                "limit, target, interval, ce_threshold, ecn, noecn",
                            ))
                        }
                    }
                }
                Arm::Codel(o)
            }
            "fq" => {
                let mut o = Fq::default();
                while let Some(word) = w.next() {
                    match word {
                        "limit" => o.limit = Some(w.count(word)?),
                        "flow_limit" => o.flow_limit = Some(w.count(word)?),
                        "quantum" => o.quantum = Some(w.size(word)?),
                        "initial_quantum" => o.initial_quantum = Some(w.size(word)?),
                        "maxrate" => o.maxrate = Some(w.rate(word)?),
                        "buckets" => {
                            let n = w.count(word)?;
                            if !n.is_power_of_two() {
                                return Err(QdiscError::bad("fq buckets", n.to_string(), "must be a power of two"));
                            }
                            o.buckets = Some(n);
                        }
                        "ce_threshold" => o.ce_threshold = Some(w.time(word)?),
                        "pacing" => o.pacing = Some(true),
                        "nopacing" => o.pacing = Some(false),
                        _ => {
                            return Err(w.unknown(
                                word,
                                "limit, flow_limit, quantum, initial_quantum, maxrate, buckets, ce_threshold, pacing, nopacing",
                            ))
                        }
                    }
                }
                Arm::Fq(o)
            }
            "cake" => {
                let mut o = Cake::default();
                while let Some(word) = w.next() {
                    match word {
                        "bandwidth" => o.bandwidth = Some(Some(w.rate(word)?)),
                        "unlimited" => o.bandwidth = Some(None),
                        "rtt" => o.rtt = Some(w.time(word)?),
                        "memlimit" => o.memlimit = Some(w.size(word)?),
                        "nat" => o.nat = Some(true),
                        "nonat" => o.nat = Some(false),
                        "wash" => o.wash = Some(true),
                        "nowash" => o.wash = Some(false),
                        _ if CAKE_DIFFSERV.iter().any(|(n, _)| *n == word) => o.diffserv = Some(word.to_string()),
                        _ if CAKE_FLOW_MODES.iter().any(|(n, _)| *n == word) => o.flow_mode = Some(word.to_string()),
                        _ => {
                            return Err(w.unknown(
                                word,
                                "bandwidth, unlimited, rtt, memlimit, nat, nonat, wash, nowash, besteffort, diffserv3, diffserv4, diffserv8, precedence, flowblind, srchost, dsthost, hosts, flows, dual-srchost, dual-dsthost, triple-isolate",
                            ))
                        }
                    }
                }
                Arm::Cake(o)
            }
            "pie" => {
                let mut o = Pie::default();
                while let Some(word) = w.next() {
                    match word {
                        "limit" => o.limit = Some(w.count(word)?),
                        "target" => o.target = Some(w.time(word)?),
                        "tupdate" => o.tupdate = Some(w.time(word)?),
                        "alpha" => o.alpha = Some(w.count(word)?),
                        "beta" => o.beta = Some(w.count(word)?),
                        "ecn" => o.ecn = Some(true),
                        "noecn" => o.ecn = Some(false),
                        _ => {
                            return Err(
                                w.unknown(word, "limit, target, tupdate, alpha, beta, ecn, noecn")
                            )
                        }
                    }
                }
                Arm::Pie(o)
            }
            "fq_pie" => {
                let mut o = FqPie::default();
                while let Some(word) = w.next() {
                    match word {
                        "limit" => o.limit = Some(w.count(word)?),
                        "flows" => o.flows = Some(w.count(word)?),
                        "target" => o.target = Some(w.time(word)?),
                        "tupdate" => o.tupdate = Some(w.time(word)?),
                        "alpha" => o.alpha = Some(w.count(word)?),
                        "beta" => o.beta = Some(w.count(word)?),
                        "quantum" => o.quantum = Some(w.size(word)?),
                        "memory_limit" => o.memory_limit = Some(w.size(word)?),
                        "ecn_prob" => o.ecn_prob = Some(w.count(word)?),
                        "ecn" => o.ecn = Some(true),
                        "noecn" => o.ecn = Some(false),
                        _ => {
                            return Err(w.unknown(
                                word,
                                "limit, flows, target, tupdate, alpha, beta, quantum, memory_limit, ecn_prob, ecn, noecn",
                            ))
                        }
                    }
                }
                Arm::FqPie(o)
            }
            other => {
                return Err(QdiscError::UnknownKind {
                    kind: other.to_string(),
                    known: KNOWN_KINDS,
                })
            }
        };
        arm.validate()?;
        Ok(arm)
    }

    /// Checks values that the kernel would reject or silently clamp.
    pub fn validate(&self) -> Result<(), QdiscError> {
        let positive = |what: &str, v: Option<u32>| match v {
            Some(0) => Err(QdiscError::bad(what, "0", "must be positive")),
            _ => Ok(()),
        };
        match self {
            Arm::Pfifo(o) => positive("pfifo limit", o.limit),
            Arm::Bfifo(o) => positive(
                "bfifo limit",
                o.limit.map(|s| s.0.min(u32::MAX as u64) as u32),
            ),
            Arm::FqCodel(o) => {
                positive("fq_codel limit", o.limit)?;
                positive("fq_codel flows", o.flows)?;
                positive("fq_codel drop_batch", o.drop_batch)
            }
            Arm::Codel(o) => positive("codel limit", o.limit),
            Arm::Fq(o) => positive("fq limit", o.limit),
            Arm::Cake(_) => Ok(()),
            Arm::Pie(o) => positive("pie limit", o.limit),
            Arm::FqPie(o) => {
                positive("fq_pie limit", o.limit)?;
                positive("fq_pie flows", o.flows)
            }
        }
    }

    /// The tc words after the kind, e.g. `["limit", "256"]`.
    pub fn tc_words(&self) -> Vec<String> {
        let mut v = Vec::new();
        let mut push = |k: &str, val: Option<String>| {
            if let Some(val) = val {
                v.push(k.to_string());
                v.push(val);
            }
        };
        let t = |d: &Option<Duration>| d.map(format_time);
        let n = |x: &Option<u32>| x.map(|x| x.to_string());
        let s = |x: &Option<Size>| x.map(|x| x.to_string());
        let flag =
            |b: Option<bool>, yes: &str, no: &str| b.map(|b| if b { yes } else { no }.to_string());
        let mut flags = Vec::new();
        match self {
            Arm::Pfifo(o) => push("limit", n(&o.limit)),
            Arm::Bfifo(o) => push("limit", s(&o.limit)),
            Arm::FqCodel(o) => {
                push("limit", n(&o.limit));
                push("flows", n(&o.flows));
                push("quantum", n(&o.quantum));
                push("memory_limit", s(&o.memory_limit));
                push("target", t(&o.target));
                push("interval", t(&o.interval));
                push("ce_threshold", t(&o.ce_threshold));
                push("drop_batch", n(&o.drop_batch));
                flags.extend(flag(o.ecn, "ecn", "noecn"));
            }
            Arm::Codel(o) => {
                push("limit", n(&o.limit));
                push("target", t(&o.target));
                push("interval", t(&o.interval));
                push("ce_threshold", t(&o.ce_threshold));
                flags.extend(flag(o.ecn, "ecn", "noecn"));
            }
            Arm::Fq(o) => {
                push("limit", n(&o.limit));
                push("flow_limit", n(&o.flow_limit));
                push("quantum", s(&o.quantum));
                push("initial_quantum", s(&o.initial_quantum));
                push("maxrate", o.maxrate.map(|r| r.to_string()));
                push("buckets", n(&o.buckets));
                push("ce_threshold", t(&o.ce_threshold));
                flags.extend(flag(o.pacing, "pacing", "nopacing"));
            }
            Arm::Cake(o) => {
                match o.bandwidth {
                    Some(Some(r)) => push("bandwidth", Some(r.to_string())),
                    Some(None) => flags.push("unlimited".to_string()),
                    None => {}
                }
                push("rtt", t(&o.rtt));
                push("memlimit", s(&o.memlimit));
                flags.extend(o.diffserv.clone());
                flags.extend(o.flow_mode.clone());
                flags.extend(flag(o.nat, "nat", "nonat"));
                flags.extend(flag(o.wash, "wash", "nowash"));
            }
            Arm::Pie(o) => {
                push("limit", n(&o.limit));
                push("target", t(&o.target));
                push("tupdate", t(&o.tupdate));
                push("alpha", n(&o.alpha));
                push("beta", n(&o.beta));
                flags.extend(flag(o.ecn, "ecn", "noecn"));
            }
            Arm::FqPie(o) => {
                push("limit", n(&o.limit));
                push("flows", n(&o.flows));
                push("target", t(&o.target));
                push("tupdate", t(&o.tupdate));
                push("alpha", n(&o.alpha));
                push("beta", n(&o.beta));
                push("quantum", s(&o.quantum));
                push("memory_limit", s(&o.memory_limit));
                push("ecn_prob", n(&o.ecn_prob));
                flags.extend(flag(o.ecn, "ecn", "noecn"));
            }
        }
        v.extend(flags);
        v
    }

    /// The `TCA_OPTIONS` payload the kernel expects for this arm.
    pub(crate) fn options_payload(&self) -> Result<OptionsPayload, QdiscError> {
        let mut a = NestBuilder::default();
        match self {
            Arm::Pfifo(o) => {
                return Ok(match o.limit {
                    Some(l) => OptionsPayload::Raw(l.to_ne_bytes().to_vec()),
                    None => OptionsPayload::None,
                })
            }
            Arm::Bfifo(o) => {
                return Ok(match o.limit {
                    Some(l) => OptionsPayload::Raw(l.to_u32("bfifo limit")?.to_ne_bytes().to_vec()),
                    None => OptionsPayload::None,
                })
            }
            Arm::FqCodel(o) => {
                a.typed = fq_codel_typed;
                // Attribute order as iproute2 sends them.
                a.u32(attr::FQ_CODEL_LIMIT, o.limit);
                a.u32(attr::FQ_CODEL_FLOWS, o.flows);
                a.u32(attr::FQ_CODEL_QUANTUM, o.quantum);
                a.u32(attr::FQ_CODEL_DROP_BATCH_SIZE, o.drop_batch);
                a.us(attr::FQ_CODEL_INTERVAL, "fq_codel interval", o.interval)?;
                a.us(attr::FQ_CODEL_TARGET, "fq_codel target", o.target)?;
                a.u32(attr::FQ_CODEL_ECN, o.ecn.map(u32::from));
                a.us(
                    attr::FQ_CODEL_CE_THRESHOLD,
                    "fq_codel ce_threshold",
                    o.ce_threshold,
                )?;
                a.size(
                    attr::FQ_CODEL_MEMORY_LIMIT,
                    "fq_codel memory_limit",
                    o.memory_limit,
                )?;
            }
            Arm::Codel(o) => {
                a.u32(attr::CODEL_LIMIT, o.limit);
                a.us(attr::CODEL_INTERVAL, "codel interval", o.interval)?;
                a.us(attr::CODEL_TARGET, "codel target", o.target)?;
                a.u32(attr::CODEL_ECN, o.ecn.map(u32::from));
                a.us(
                    attr::CODEL_CE_THRESHOLD,
                    "codel ce_threshold",
                    o.ce_threshold,
                )?;
            }
            Arm::Fq(o) => {
                a.u32(attr::FQ_PLIMIT, o.limit);
                a.u32(attr::FQ_FLOW_PLIMIT, o.flow_limit);
                a.size(attr::FQ_QUANTUM, "fq quantum", o.quantum)?;
                a.size(
                    attr::FQ_INITIAL_QUANTUM,
                    "fq initial_quantum",
                    o.initial_quantum,
                )?;
                a.u32(attr::FQ_RATE_ENABLE, o.pacing.map(u32::from));
                a.u32(
                    attr::FQ_FLOW_MAX_RATE,
                    o.maxrate
                        .map(|r| r.bytes_per_sec().min(u32::MAX as u64) as u32),
                );
                a.u32(attr::FQ_BUCKETS_LOG, o.buckets.map(|b| b.trailing_zeros()));
                a.us(attr::FQ_CE_THRESHOLD, "fq ce_threshold", o.ce_threshold)?;
            }
            Arm::Cake(o) => {
                if let Some(bw) = o.bandwidth {
                    a.raw(
                        attr::CAKE_BASE_RATE64,
                        bw.map_or(0, Rate::bytes_per_sec).to_ne_bytes().to_vec(),
                    );
                }
                if let Some(d) = &o.diffserv {
                    a.u32(
                        attr::CAKE_DIFFSERV_MODE,
                        CAKE_DIFFSERV.iter().find(|(n, _)| n == d).map(|x| x.1),
                    );
                }
                if let Some(f) = &o.flow_mode {
                    a.u32(
                        attr::CAKE_FLOW_MODE,
                        CAKE_FLOW_MODES.iter().find(|(n, _)| n == f).map(|x| x.1),
                    );
                }
                a.us(attr::CAKE_RTT, "cake rtt", o.rtt)?;
                a.size(attr::CAKE_MEMORY, "cake memlimit", o.memlimit)?;
                a.u32(attr::CAKE_NAT, o.nat.map(u32::from));
                a.u32(attr::CAKE_WASH, o.wash.map(u32::from));
            }
            Arm::Pie(o) => {
                a.u32(attr::PIE_LIMIT, o.limit);
                a.us(attr::PIE_TARGET, "pie target", o.target)?;
                a.us(attr::PIE_TUPDATE, "pie tupdate", o.tupdate)?;
                a.u32(attr::PIE_ALPHA, o.alpha);
                a.u32(attr::PIE_BETA, o.beta);
                a.u32(attr::PIE_ECN, o.ecn.map(u32::from));
            }
            Arm::FqPie(o) => {
                a.u32(attr::FQ_PIE_LIMIT, o.limit);
                a.u32(attr::FQ_PIE_FLOWS, o.flows);
                a.us(attr::FQ_PIE_TARGET, "fq_pie target", o.target)?;
                a.us(attr::FQ_PIE_TUPDATE, "fq_pie tupdate", o.tupdate)?;
                a.u32(attr::FQ_PIE_ALPHA, o.alpha);
                a.u32(attr::FQ_PIE_BETA, o.beta);
                a.size(attr::FQ_PIE_QUANTUM, "fq_pie quantum", o.quantum)?;
                a.size(
                    attr::FQ_PIE_MEMORY_LIMIT,
                    "fq_pie memory_limit",
                    o.memory_limit,
                )?;
                a.u32(attr::FQ_PIE_ECN_PROB, o.ecn_prob);
                a.u32(attr::FQ_PIE_ECN, o.ecn.map(u32::from));
            }
        }
        Ok(OptionsPayload::Nested(a.out))
    }
}

impl fmt::Display for Arm {
    /// The tc words, e.g. `fq_codel limit 256 memory_limit 1mb target 5ms interval 100ms ecn`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())?;
        for w in self.tc_words() {
            write!(f, " {w}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Arm {
    type Err = QdiscError;
    fn from_str(s: &str) -> Result<Arm, QdiscError> {
        Arm::parse(s)
    }
}

/// The kernel module that provides qdisc `kind` (`sch_<kind>`; the FIFOs
/// are `sch_fifo`).
pub fn module_for_kind(kind: &str) -> String {
    match kind {
        "pfifo" | "bfifo" | "pfifo_head_drop" => "sch_fifo".to_string(),
        other => format!("sch_{other}"),
    }
}

/// What goes inside `TCA_OPTIONS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OptionsPayload {
    /// No `TCA_OPTIONS` at all.
    None,
    /// A bare struct (the FIFOs' `tc_fifo_qopt`).
    Raw(Vec<u8>),
    /// Nested attributes.
    Nested(Vec<TcOption>),
}

/// Collects nested option attributes; `typed` turns a `(type, u32)` into
/// netlink-packet-route's typed option where that crate has one (fq_codel).
struct NestBuilder {
    typed: fn(u16, u32) -> Option<TcOption>,
    out: Vec<TcOption>,
}

impl Default for NestBuilder {
    fn default() -> Self {
        NestBuilder {
            typed: |_, _| None,
            out: Vec::new(),
        }
    }
}

/// netlink-packet-route's typed fq_codel options.
fn fq_codel_typed(kind: u16, v: u32) -> Option<TcOption> {
    use TcQdiscFqCodelOption as O;
    let o = match kind {
        attr::FQ_CODEL_TARGET => O::Target(v),
        attr::FQ_CODEL_LIMIT => O::Limit(v),
        attr::FQ_CODEL_INTERVAL => O::Interval(v),
        attr::FQ_CODEL_ECN => O::Ecn(v),
        attr::FQ_CODEL_FLOWS => O::Flows(v),
        attr::FQ_CODEL_QUANTUM => O::Quantum(v),
        attr::FQ_CODEL_CE_THRESHOLD => O::CeThreshold(v),
        attr::FQ_CODEL_DROP_BATCH_SIZE => O::DropBatchSize(v),
        attr::FQ_CODEL_MEMORY_LIMIT => O::MemoryLimit(v),
        _ => return None,
    };
    Some(TcOption::FqCodel(o))
}

impl NestBuilder {
    fn raw(&mut self, kind: u16, v: Vec<u8>) {
        self.out.push(TcOption::Other(DefaultNla::new(kind, v)));
    }
    fn u32(&mut self, kind: u16, v: Option<u32>) {
        if let Some(v) = v {
            match (self.typed)(kind, v) {
                Some(o) => self.out.push(o),
                None => self.raw(kind, v.to_ne_bytes().to_vec()),
            }
        }
    }
    fn us(&mut self, kind: u16, what: &str, v: Option<Duration>) -> Result<(), QdiscError> {
        if let Some(d) = v {
            self.u32(kind, Some(micros_u32(what, d)?));
        }
        Ok(())
    }
    fn size(&mut self, kind: u16, what: &str, v: Option<Size>) -> Result<(), QdiscError> {
        if let Some(s) = v {
            self.u32(kind, Some(s.to_u32(what)?));
        }
        Ok(())
    }
}

/// Attribute numbers from the kernel's `include/uapi/linux/pkt_sched.h`.
pub(crate) mod attr {
    pub const FQ_CODEL_TARGET: u16 = 1;
    pub const FQ_CODEL_LIMIT: u16 = 2;
    pub const FQ_CODEL_INTERVAL: u16 = 3;
    pub const FQ_CODEL_ECN: u16 = 4;
    pub const FQ_CODEL_FLOWS: u16 = 5;
    pub const FQ_CODEL_QUANTUM: u16 = 6;
    pub const FQ_CODEL_CE_THRESHOLD: u16 = 7;
    pub const FQ_CODEL_DROP_BATCH_SIZE: u16 = 8;
    pub const FQ_CODEL_MEMORY_LIMIT: u16 = 9;

    pub const CODEL_TARGET: u16 = 1;
    pub const CODEL_LIMIT: u16 = 2;
    pub const CODEL_INTERVAL: u16 = 3;
    pub const CODEL_ECN: u16 = 4;
    pub const CODEL_CE_THRESHOLD: u16 = 5;

    pub const FQ_PLIMIT: u16 = 1;
    pub const FQ_FLOW_PLIMIT: u16 = 2;
    pub const FQ_QUANTUM: u16 = 3;
    pub const FQ_INITIAL_QUANTUM: u16 = 4;
    pub const FQ_RATE_ENABLE: u16 = 5;
    pub const FQ_FLOW_MAX_RATE: u16 = 7;
    pub const FQ_BUCKETS_LOG: u16 = 8;
    pub const FQ_CE_THRESHOLD: u16 = 12;

    pub const CAKE_BASE_RATE64: u16 = 2;
    pub const CAKE_DIFFSERV_MODE: u16 = 3;
    pub const CAKE_FLOW_MODE: u16 = 5;
    pub const CAKE_RTT: u16 = 7;
    pub const CAKE_MEMORY: u16 = 10;
    pub const CAKE_NAT: u16 = 11;
    pub const CAKE_WASH: u16 = 13;

    pub const PIE_TARGET: u16 = 1;
    pub const PIE_LIMIT: u16 = 2;
    pub const PIE_TUPDATE: u16 = 3;
    pub const PIE_ALPHA: u16 = 4;
    pub const PIE_BETA: u16 = 5;
    pub const PIE_ECN: u16 = 6;

    pub const FQ_PIE_LIMIT: u16 = 1;
    pub const FQ_PIE_FLOWS: u16 = 2;
    pub const FQ_PIE_TARGET: u16 = 3;
    pub const FQ_PIE_TUPDATE: u16 = 4;
    pub const FQ_PIE_ALPHA: u16 = 5;
    pub const FQ_PIE_BETA: u16 = 6;
    pub const FQ_PIE_QUANTUM: u16 = 7;
    pub const FQ_PIE_MEMORY_LIMIT: u16 = 8;
    pub const FQ_PIE_ECN_PROB: u16 = 9;
    pub const FQ_PIE_ECN: u16 = 10;
}

/// A cursor over the words after the kind.
pub(crate) struct Words<'a> {
    kind: String,
    words: std::slice::Iter<'a, &'a str>,
}

impl<'a> Words<'a> {
    pub(crate) fn new(kind: &str, words: &'a [&'a str]) -> Words<'a> {
        Words {
            kind: kind.to_string(),
            words: words.iter(),
        }
    }

    pub(crate) fn next(&mut self) -> Option<&'a str> {
        self.words.next().copied()
    }

    pub(crate) fn value(&mut self, word: &str) -> Result<&'a str, QdiscError> {
        self.next().ok_or_else(|| QdiscError::MissingValue {
            kind: self.kind.clone(),
            word: word.to_string(),
        })
    }

    fn what(&self, word: &str) -> String {
        format!("{} {word}", self.kind)
    }

    pub(crate) fn count(&mut self, word: &str) -> Result<u32, QdiscError> {
        let v = self.value(word)?;
        parse_u32(&self.what(word), v)
    }

    pub(crate) fn size(&mut self, word: &str) -> Result<Size, QdiscError> {
        let v = self.value(word)?;
        Size::parse(v).map_err(|e| self.rename(word, e))
    }

    pub(crate) fn rate(&mut self, word: &str) -> Result<Rate, QdiscError> {
        let v = self.value(word)?;
        Rate::parse(v).map_err(|e| self.rename(word, e))
    }

    pub(crate) fn time(&mut self, word: &str) -> Result<Duration, QdiscError> {
        let v = self.value(word)?;
        parse_time(&self.what(word), v)
    }

    fn rename(&self, word: &str, e: QdiscError) -> QdiscError {
        match e {
            QdiscError::BadValue { text, reason, .. } => QdiscError::BadValue {
                what: self.what(word),
                text,
                reason,
            },
            other => other,
        }
    }

    pub(crate) fn unknown(&self, word: &str, known: &str) -> QdiscError {
        QdiscError::UnknownWord {
            kind: self.kind.clone(),
            word: word.to_string(),
            known: known.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlink_packet_core::Nla as _;

    #[test]
    fn spec_fq_codel_parses_and_prints_back() {
        let arm =
            Arm::parse("fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn")
                .unwrap();
        assert_eq!(arm, Arm::spec_fq_codel());
        assert_eq!(arm.kind(), "fq_codel");
        assert_eq!(arm.module_name(), "sch_fq_codel");
        assert_eq!(
            arm.to_string(),
            "fq_codel limit 256 memory_limit 1mb target 5ms interval 100ms ecn"
        );
        assert_eq!(Arm::parse(&arm.to_string()).unwrap(), arm);
    }

    #[test]
    fn spec_pfifo_parses() {
        let arm = Arm::parse("pfifo limit 256").unwrap();
        assert_eq!(arm, Arm::spec_pfifo());
        assert_eq!(arm.to_string(), "pfifo limit 256");
        assert_eq!(arm.module_name(), "sch_fifo");
    }

    #[test]
    fn every_kind_round_trips_through_tc_words() {
        for text in [
            "pfifo",
            "bfifo limit 64kb",
            "fq_codel limit 1024 flows 2048 quantum 1514 memory_limit 32mb target 10ms interval 200ms ce_threshold 1ms drop_batch 32 noecn",
            "codel limit 100 target 5ms interval 100ms ce_threshold 2ms ecn",
            "fq limit 10000 flow_limit 100 quantum 3028b initial_quantum 15140b maxrate 100mbit buckets 1024 ce_threshold 3ms nopacing",
            "cake bandwidth 5mbit rtt 100ms memlimit 4mb besteffort triple-isolate nonat wash",
            "cake unlimited",
            "pie limit 1000 target 15ms tupdate 15ms alpha 2 beta 20 ecn",
            "fq_pie limit 10240 flows 1024 target 15ms tupdate 15ms alpha 2 beta 20 quantum 1514b memory_limit 32mb ecn_prob 10 ecn",
        ] {
            let arm = Arm::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(arm.to_string(), text);
            assert_eq!(Arm::parse(&arm.to_string()).unwrap(), arm);
            arm.options_payload().unwrap();
        }
    }

    #[test]
    fn bad_words_get_clear_errors() {
        let e = Arm::parse("fq_codle limit 5").unwrap_err().to_string();
        assert!(e.contains("unknown qdisc kind \"fq_codle\""), "{e}");
        let e = Arm::parse("fq_codel limt 5").unwrap_err().to_string();
        assert!(e.contains("fq_codel: unknown option \"limt\""), "{e}");
        let e = Arm::parse("fq_codel limit").unwrap_err().to_string();
        assert_eq!(e, "fq_codel: option \"limit\" needs a value");
        let e = Arm::parse("fq_codel target 5min").unwrap_err().to_string();
        assert!(
            e.starts_with("bad fq_codel target \"5min\": unknown unit"),
            "{e}"
        );
        let e = Arm::parse("bfifo limit 64kib").unwrap_err().to_string();
        assert!(e.starts_with("bad bfifo limit \"64kib\""), "{e}");
        let e = Arm::parse("pfifo limit -1").unwrap_err().to_string();
        assert!(e.starts_with("bad pfifo limit \"-1\""), "{e}");
        assert!(Arm::parse("pfifo limit 0").is_err());
        assert!(Arm::parse("").is_err());
        assert!(Arm::parse("fq buckets 1000").is_err());
    }

    #[test]
    fn fq_codel_payload_matches_iproute2_order() {
        let OptionsPayload::Nested(attrs) = Arm::spec_fq_codel().options_payload().unwrap() else {
            panic!("nested expected")
        };
        let kinds: Vec<u16> = attrs.iter().map(|a| a.kind()).collect();
        assert_eq!(kinds, vec![2, 3, 1, 4, 9]);
        assert!(matches!(
            attrs[0],
            TcOption::FqCodel(TcQdiscFqCodelOption::Limit(256))
        ));
    }
}
