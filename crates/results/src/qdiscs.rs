//! A bottleneck qdisc's record: the netlink requests that built it, its
//! readbacks after configuration and at the measured window's end (each
//! with its raw bytes), and its samples over the scenario.

use netlab_qdisc_model::{Psched, QdiscRecord, QdiscStats, QdiscXstats};
use serde::{Deserialize, Serialize};

/// A netlink request as sent, with the equivalent tc command line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestRecord {
    /// A command line a person can paste (inside R's namespace).
    pub tc_argv: Vec<String>,
    /// The same, prefixed to run from the host (`ip netns exec <R> tc …`).
    pub tc_argv_from_host: Vec<String>,
    /// The raw netlink request, hex.
    pub netlink_hex: String,
}

/// The whole dump behind a readback, to decode again later
/// (`netlab_qdisc_model::Readback::from_dump`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadbackDump {
    /// Interface the records were filtered by.
    pub ifindex: u32,
    /// When it was taken (s from t0), if the caller gave a time.
    pub taken_at_s: Option<f64>,
    /// The tick factors used to decode TBF's buffer.
    pub psched: Psched,
    /// Every message of the dump, hex.
    pub raw_hex: String,
}

impl ReadbackDump {
    /// The dump part of a readback (its records are kept apart).
    pub fn of(rb: &netlab_qdisc_model::Readback) -> ReadbackDump {
        ReadbackDump {
            ifindex: rb.ifindex,
            taken_at_s: rb.taken_at_s,
            psched: rb.psched,
            raw_hex: rb.raw_hex.clone(),
        }
    }
}

/// One qdisc's counters in a periodic sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampledQdisc {
    /// Kind, e.g. `tbf`.
    pub kind: String,
    /// Handle as tc prints it.
    pub handle: netlab_qdisc_model::Handle,
    /// Parent as tc prints it.
    pub parent: netlab_qdisc_model::Handle,
    /// Counters.
    pub stats: Option<QdiscStats>,
    /// Kind-specific statistics.
    pub xstats: Option<QdiscXstats>,
}

/// One periodic qdisc readback: backlog over time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QdiscSample {
    /// When it was taken (s from t0).
    pub t_s: Option<f64>,
    /// The interface's qdiscs.
    pub records: Vec<SampledQdisc>,
}

impl QdiscSample {
    /// The counters of a readback (options and bytes are in the full readbacks).
    pub fn of(rb: &netlab_qdisc_model::Readback) -> QdiscSample {
        QdiscSample {
            t_s: rb.taken_at_s,
            records: rb
                .records
                .iter()
                .map(|r| SampledQdisc {
                    kind: r.kind.clone(),
                    handle: r.handle,
                    parent: r.parent,
                    stats: r.stats,
                    xstats: r.xstats.clone(),
                })
                .collect(),
        }
    }
}

/// Qdisc configuration and readbacks of one scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QdiscResult {
    /// `up` (R's egress toward B) or `down` (toward A).
    #[serde(default)]
    pub direction: String,
    /// Interface (in R) that carries the bottleneck.
    pub dev: String,
    /// Requests, in order.
    pub requests: Vec<RequestRecord>,
    /// Readback right after configuration.
    pub after_config: Vec<QdiscRecord>,
    /// The whole dump behind `after_config` (raw hex, tick factors), to re-decode later.
    pub after_config_dump: Option<ReadbackDump>,
    /// Readback at the end of the measured window, before any socket closed.
    #[serde(rename = "final")]
    pub at_window_end: Vec<QdiscRecord>,
    /// The whole dump behind `final`.
    pub final_dump: Option<ReadbackDump>,
    /// When the final readback was taken (s from t0).
    pub final_taken_s: Option<f64>,
    /// Periodic readbacks: backlog over time.
    pub samples: Vec<QdiscSample>,
}
