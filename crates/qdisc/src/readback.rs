//! Readbacks (one dump of an interface's qdiscs, decoded, with its raw
//! bytes) and a bounded sampler that takes one every N ms.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use netlab_topology::netns::Netns;
use serde::{Deserialize, Serialize};

use crate::decode::{decode_dump, QdiscRecord, QdiscStats};
use crate::sys::QdiscSocket;
use crate::{hex, Psched, QdiscError};

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
    ) -> Result<Readback, QdiscError> {
        Ok(Readback {
            taken_at_s,
            ifindex,
            records: decode_dump(dump, Some(ifindex), psched)?,
            psched: *psched,
            raw_hex: hex::encode(dump),
        })
    }

    /// Decodes `raw_hex` again (e.g. from a results file).
    pub fn redecode(&self) -> Result<Readback, QdiscError> {
        let raw = hex::decode(&self.raw_hex)?;
        Readback::from_dump(&raw, self.ifindex, self.taken_at_s, &self.psched)
    }

    /// The record with handle `handle` (as tc prints it, e.g. `10:`).
    pub fn by_handle(&self, handle: &str) -> Option<&QdiscRecord> {
        self.records.iter().find(|r| r.handle == handle)
    }

    /// The root qdisc.
    pub fn root(&self) -> Option<&QdiscRecord> {
        self.records.iter().find(|r| r.parent == "root")
    }

    /// Counters of the qdisc with `handle`.
    pub fn stats_of(&self, handle: &str) -> Option<QdiscStats> {
        self.by_handle(handle).and_then(|r| r.stats)
    }

    /// The same readback without the raw dump (for dense time series).
    pub fn without_raw(mut self) -> Readback {
        self.raw_hex.clear();
        self
    }
}

/// How a [`Sampler`] runs.
#[derive(Debug, Clone, Copy)]
pub struct SamplerConfig {
    /// Time between samples.
    pub interval: Duration,
    /// Sample times are measured from here (`taken_at_s`).
    pub origin: Instant,
    /// The sampler stops by itself at this instant.
    pub deadline: Instant,
    /// And after this many samples.
    pub max_samples: usize,
    /// Keep each sample's raw dump (hex) beside the decoded records.
    pub keep_raw: bool,
}

impl SamplerConfig {
    /// Every `interval`, from `origin`, until `deadline`, at most 100 000
    /// samples, raw dumps kept.
    pub fn new(interval: Duration, origin: Instant, deadline: Instant) -> SamplerConfig {
        SamplerConfig {
            interval,
            origin,
            deadline,
            max_samples: 100_000,
            keep_raw: true,
        }
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
    pub fn backlog_of(&self, handle: &str) -> Vec<(f64, u32, u32)> {
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

/// Decides when the next sample is due; pure, driven by `now`.
#[derive(Debug, Clone, Copy)]
pub struct SampleClock {
    start: Instant,
    interval: Duration,
    taken: u64,
}

impl SampleClock {
    /// The first sample is due at `start`.
    pub fn new(start: Instant, interval: Duration) -> SampleClock {
        SampleClock {
            start,
            interval: interval.max(Duration::from_millis(1)),
            taken: 0,
        }
    }

    /// When the next sample is due.
    pub fn next_due(&self) -> Instant {
        self.start
            + self
                .interval
                .saturating_mul(self.taken.min(u32::MAX as u64) as u32)
    }

    /// Records a sample taken at `now`; if sampling fell behind, skips the
    /// missed slots instead of bursting.
    pub fn taken(&mut self, now: Instant) {
        self.taken += 1;
        while self.next_due() + self.interval <= now {
            self.taken += 1;
        }
    }
}

/// Takes a readback of one interface every N ms on its own thread.
#[derive(Debug)]
pub struct Sampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<SampleSeries>,
}

impl Sampler {
    /// Starts sampling interface `ifindex` of `ns` (the socket is made in
    /// `ns`). Returns once the socket exists.
    pub fn start(
        ns: &Netns,
        ifindex: u32,
        psched: Psched,
        config: SamplerConfig,
    ) -> Result<Sampler, QdiscError> {
        let sock = QdiscSocket::open_in(ns)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("qdisc-sampler".into())
            .spawn(move || run(sock, ifindex, psched, config, &flag))
            .map_err(|e| QdiscError::io("spawning the qdisc sampler thread", e))?;
        Ok(Sampler { stop, thread })
    }

    /// The flag that stops sampling when set.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Whether the sampler thread has ended (deadline or max samples).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Stops sampling and returns the series.
    pub fn stop(self) -> Result<SampleSeries, QdiscError> {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.join().map_err(|_| QdiscError::SamplerPanicked)
    }
}

fn run(
    sock: QdiscSocket,
    ifindex: u32,
    psched: Psched,
    cfg: SamplerConfig,
    stop: &AtomicBool,
) -> SampleSeries {
    let mut clock = SampleClock::new(Instant::now(), cfg.interval);
    let mut series = SampleSeries {
        interval_ms: cfg.interval.as_secs_f64() * 1e3,
        samples: Vec::new(),
        failures: Vec::new(),
        stopped_by: SamplerStop::Deadline,
    };
    loop {
        // Sleep until due, in slices, watching the stop flag and deadline.
        loop {
            if stop.load(Ordering::SeqCst) {
                series.stopped_by = SamplerStop::Stopped;
                return series;
            }
            let now = Instant::now();
            if now >= cfg.deadline {
                series.stopped_by = SamplerStop::Deadline;
                return series;
            }
            let due = clock.next_due();
            if now >= due {
                break;
            }
            std::thread::sleep(
                (due - now)
                    .min(Duration::from_millis(20))
                    .min(cfg.deadline - now),
            );
        }
        let now = Instant::now();
        let at_s = now.saturating_duration_since(cfg.origin).as_secs_f64();
        match sock.readback(ifindex, Some(at_s), &psched) {
            Ok(rb) => series
                .samples
                .push(if cfg.keep_raw { rb } else { rb.without_raw() }),
            Err(e) => series.failures.push(SampleFailure {
                at_s,
                error: e.to_string(),
            }),
        }
        clock.taken(Instant::now());
        if series.samples.len() + series.failures.len() >= cfg.max_samples {
            series.stopped_by = SamplerStop::MaxSamples;
            return series;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_paces_and_skips_missed_slots() {
        let t0 = Instant::now();
        let mut c = SampleClock::new(t0, Duration::from_millis(100));
        assert_eq!(c.next_due(), t0);
        c.taken(t0 + Duration::from_millis(5));
        assert_eq!(c.next_due(), t0 + Duration::from_millis(100));
        // A slow sample that ends at 350 ms skips the 200 ms slot.
        c.taken(t0 + Duration::from_millis(350));
        assert_eq!(c.next_due(), t0 + Duration::from_millis(300));
        c.taken(t0 + Duration::from_millis(301));
        assert_eq!(c.next_due(), t0 + Duration::from_millis(400));
    }
}
