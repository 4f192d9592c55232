//! Readbacks: one dump of an interface's qdiscs, decoded, with its raw
//! bytes, and the time series a sampler collects. Pure: no I/O here (the
//! sampler thread is in `sampler.rs`, the socket in `socket.rs`).

use netlab_netlink_views::WireError;
use serde::{Deserialize, Serialize};

use crate::decode::{decode_dump, QdiscRecord};
use crate::stats::QdiscStats;

use crate::{Handle, ModelError, Psched};

/// The qdiscs of one interface at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Readback {
    /// When it was taken, seconds from the caller's origin (if given).
    pub taken_at_s: Option<f64>,
    /// Interface index the records were filtered by.
    pub ifindex: u32,
    /// Decoded qdiscs of that interface, in dump order.
    pub records: Vec<QdiscRecord>,
    /// The tick factors used to decode TBF's buffer.
    pub psched: Psched,
    /// The whole dump as received (all interfaces of the namespace), hex,
    /// so it can be decoded again later with [`Readback::from_dump`].
    pub raw_hex: String,
}

impl Readback {
    /// Decodes a raw dump, keeping the records of `ifindex`.
    pub fn from_dump(
        dump: &[u8],
        ifindex: u32,
        taken_at_s: Option<f64>,
        psched: &Psched,
    ) -> Result<Readback, ModelError> {
        Ok(Readback {
            taken_at_s,
            ifindex,
            records: decode_dump(dump, Some(ifindex), psched)?,
            psched: *psched,
            raw_hex: hex::encode(dump),
        })
    }

    /// Decodes `raw_hex` again (e.g. from a results file).
    pub fn redecode(&self) -> Result<Readback, ModelError> {
        let raw =
            hex::decode(&self.raw_hex).map_err(|e| WireError::new("raw_hex", e.to_string()))?;
        Readback::from_dump(&raw, self.ifindex, self.taken_at_s, &self.psched)
    }

    /// The record with handle `handle`.
    pub fn by_handle(&self, handle: Handle) -> Option<&QdiscRecord> {
        self.records.iter().find(|r| r.handle == handle)
    }

    /// The root qdisc.
    pub fn root(&self) -> Option<&QdiscRecord> {
        self.records.iter().find(|r| r.parent == Handle::ROOT)
    }

    /// Counters of the qdisc with `handle`.
    pub fn stats_of(&self, handle: Handle) -> Option<QdiscStats> {
        self.by_handle(handle).and_then(|r| r.stats)
    }

    /// The same readback without the raw dump (for dense time series).
    pub fn without_raw(mut self) -> Readback {
        self.raw_hex.clear();
        self
    }
}

/// Why a sampler stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SamplerStop {
    /// The stop flag was set.
    Stopped,
    /// The deadline passed.
    Deadline,
    /// `max_samples` were taken.
    MaxSamples,
}

/// A sample that failed, kept (never dropped silently).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleFailure {
    /// When it was attempted, seconds from the origin.
    pub at_s: f64,
    /// What went wrong.
    pub error: String,
}

/// The time series a sampler produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleSeries {
    /// Requested interval in milliseconds.
    pub interval_ms: f64,
    /// Successful readbacks, in time order.
    pub samples: Vec<Readback>,
    /// Failed attempts.
    pub failures: Vec<SampleFailure>,
    /// Why sampling ended.
    pub stopped_by: SamplerStop,
}

impl SampleSeries {
    /// `(t_s, backlog_bytes, backlog_packets)` of qdisc `handle`: what
    /// users plot.
    pub fn backlog_of(&self, handle: Handle) -> Vec<(f64, u32, u32)> {
        self.samples
            .iter()
            .filter_map(|rb| {
                let s = rb.stats_of(handle)?;
                Some((
                    rb.taken_at_s.unwrap_or(f64::NAN),
                    s.backlog_bytes,
                    s.backlog_packets,
                ))
            })
            .collect()
    }
}
