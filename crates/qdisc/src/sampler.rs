//! The sampler: a bounded thread that takes a [`crate::Readback`] every N ms over
//! its own socket (made in the namespace), paced by a pure [`SampleClock`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use netlab_topology::netns::Netns;

use crate::readback::{SampleFailure, SampleSeries, SamplerStop};
use crate::sys::QdiscSocket;
use crate::{Psched, QdiscError};

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
