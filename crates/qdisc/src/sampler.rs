//! The sampler: a bounded thread that takes a [`netlab_qdisc_model::Readback`] every N ms over
//! its own socket (made in the namespace), on netlab-os's slot grid
//! ([`Pacer`]: a late sample skips the missed slots, never bursts) and
//! stopped by a [`StopFlag`].

use netlab_os::threads::{spawn_pooled, Pooled};
use std::time::{Duration, Instant};

use netlab_os::{Pacer, StopFlag};
use netlab_topology::netns::Netns;

use crate::socket::QdiscSocket;
use crate::QdiscError;
use netlab_qdisc_model::Psched;
use netlab_qdisc_model::{SampleFailure, SampleSeries, SamplerStop};

/// How a [`Sampler`] runs.
#[derive(Debug, Clone, Copy)]
pub struct QdiscSamplerConfig {
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

impl QdiscSamplerConfig {
    /// Every `interval`, from `origin`, until `deadline`, at most 100 000
    /// samples, raw dumps kept.
    pub fn new(interval: Duration, origin: Instant, deadline: Instant) -> QdiscSamplerConfig {
        QdiscSamplerConfig {
            interval,
            origin,
            deadline,
            max_samples: 100_000,
            keep_raw: true,
        }
    }
}

/// Takes a readback of one interface every N ms on its own thread.
#[derive(Debug)]
pub struct Sampler {
    stop: StopFlag,
    thread: Pooled<SampleSeries>,
}

impl Sampler {
    /// Starts sampling interface `ifindex` of `ns` (the socket is made in
    /// `ns`). Returns once the socket exists.
    pub fn start(
        ns: &Netns,
        ifindex: u32,
        psched: Psched,
        config: QdiscSamplerConfig,
    ) -> Result<Sampler, QdiscError> {
        let sock = QdiscSocket::open_in(ns)?;
        let stop = StopFlag::new();
        let flag = stop.clone();
        let thread = spawn_pooled("qdisc-sampler", None, move || {
            run(sock, ifindex, psched, config, &flag)
        })
        .map_err(|e| QdiscError::io("spawning the qdisc sampler thread", e))?;
        Ok(Sampler { stop, thread })
    }

    /// The flag that stops sampling when set.
    pub fn stop_flag(&self) -> StopFlag {
        self.stop.clone()
    }

    /// Whether the sampler thread has ended (deadline or max samples).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Stops sampling and returns the series.
    pub fn stop(self) -> Result<SampleSeries, QdiscError> {
        self.stop.stop();
        self.thread.join().map_err(|_| QdiscError::SamplerPanicked)
    }
}

fn run(
    sock: QdiscSocket,
    ifindex: u32,
    psched: Psched,
    cfg: QdiscSamplerConfig,
    stop: &StopFlag,
) -> SampleSeries {
    let start = Instant::now();
    let mut series = SampleSeries {
        interval_ms: cfg.interval.as_secs_f64() * 1e3,
        samples: Vec::new(),
        failures: Vec::new(),
        stopped_by: SamplerStop::Deadline,
    };
    let mut pacer = Pacer::new(Duration::ZERO, min_interval(cfg.interval));
    loop {
        // Sleep until the slot (or the deadline), woken early by a stop.
        let due = start + pacer.slot();
        if stop.sleep_until(due.min(cfg.deadline)) {
            series.stopped_by = SamplerStop::Stopped;
            return series;
        }
        let now = Instant::now();
        if now >= cfg.deadline {
            series.stopped_by = SamplerStop::Deadline;
            return series;
        }
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
        pacer.advance(start.elapsed());
        if series.samples.len() + series.failures.len() >= cfg.max_samples {
            series.stopped_by = SamplerStop::MaxSamples;
            return series;
        }
    }
}

/// The sampling interval, at least 1 ms (a zero interval would spin).
fn min_interval(interval: Duration) -> Duration {
    interval.max(Duration::from_millis(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sampler's grid: slots every interval from its start, a slow
    /// sample skips the slots it missed instead of bursting.
    #[test]
    fn samples_are_paced_and_skip_missed_slots() {
        let ms = Duration::from_millis;
        let mut p = Pacer::new(Duration::ZERO, min_interval(ms(100)));
        assert_eq!(p.slot(), Duration::ZERO);
        assert_eq!(p.advance(ms(5)), ms(100));
        // A slow sample that ends at 350 ms skips the 200 and 300 ms slots.
        assert_eq!(p.advance(ms(350)), ms(400));
        assert_eq!(p.advance(ms(401)), ms(500));
        assert_eq!(min_interval(Duration::ZERO), ms(1));
    }
}
