//! Progress on stderr while an experiment runs: scenario i/N with its sweep
//! point, phase, seconds left, the last probe RTT, and one line per
//! direction with its live goodput (the sum over its flows). Line based (no
//! cursor tricks), so it reads the same through the guest console and in a
//! CI log.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use netlab_experiment::Direction;

/// Live figures of one flow, updated by its tcp_info sampler.
#[derive(Debug)]
pub struct FlowLive {
    /// The flow's direction.
    pub direction: Direction,
    /// Bytes acked by the receiver so far (tcp_info bytes_acked).
    pub bytes_acked: AtomicU64,
    /// When `bytes_acked` was last updated, µs since t0.
    pub acked_at_us: AtomicU64,
}

/// Live figures a scenario's threads update.
#[derive(Debug, Default)]
pub struct Live {
    /// Last successful probe RTT, in microseconds (0 = none yet).
    pub last_rtt_us: AtomicU64,
    /// Probe timeouts so far.
    pub timeouts: AtomicU64,
    /// One entry per flow, in flow order.
    pub flows: Vec<FlowLive>,
}

impl Live {
    /// Live figures for flows of these directions.
    pub fn for_flows(directions: impl IntoIterator<Item = Direction>) -> Live {
        Live {
            flows: directions
                .into_iter()
                .map(|direction| FlowLive {
                    direction,
                    bytes_acked: AtomicU64::new(0),
                    acked_at_us: AtomicU64::new(0),
                })
                .collect(),
            ..Live::default()
        }
    }

    /// Sum of acked bytes of a direction's flows and the latest update (s).
    fn acked(&self, dir: Direction) -> Option<(u64, f64)> {
        let of: Vec<&FlowLive> = self.flows.iter().filter(|f| f.direction == dir).collect();
        if of.is_empty() {
            return None;
        }
        let bytes = of
            .iter()
            .map(|f| f.bytes_acked.load(Ordering::Relaxed))
            .sum();
        let at = of
            .iter()
            .map(|f| f.acked_at_us.load(Ordering::Relaxed))
            .max()
            .unwrap_or(0) as f64
            / 1e6;
        Some((bytes, at))
    }
}

/// The progress printer.
#[derive(Debug)]
pub struct Progress {
    quiet: bool,
    started: Instant,
    /// Per direction (up, down): the last (time s, acked bytes) seen.
    last: Mutex<[(f64, u64); 2]>,
}

impl Progress {
    /// A printer; `quiet` silences everything but errors.
    pub fn new(quiet: bool) -> Self {
        Progress {
            quiet,
            started: Instant::now(),
            last: Mutex::new([(0.0, 0); 2]),
        }
    }

    /// A one-off line.
    pub fn say(&self, msg: &str) {
        if !self.quiet {
            eprintln!(
                "[netlab {:6.1}s] {msg}",
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    /// Resets the goodput estimators at a scenario start.
    pub fn reset(&self) {
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = [(0.0, 0); 2];
    }

    /// One tick: scenario i/N (with its point), phase, time left, last RTT,
    /// then one line per direction with its live goodput.
    pub fn tick(&self, scenario: &str, phase: &str, now_s: f64, end_s: f64, live: &Live) {
        if self.quiet {
            return;
        }
        let rtt = live.last_rtt_us.load(Ordering::Relaxed);
        let rtt = if rtt == 0 {
            "-".to_string()
        } else {
            format!("{:.1} ms", rtt as f64 / 1000.0)
        };
        let elapsed = self.started.elapsed().as_secs_f64();
        eprintln!(
            "[netlab {elapsed:6.1}s] {scenario} {phase:<8} t={now_s:5.1}s left={:5.1}s last probe RTT {rtt} timeouts {}",
            (end_s - now_s).max(0.0),
            live.timeouts.load(Ordering::Relaxed),
        );
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        for (slot, dir) in [Direction::Up, Direction::Down].into_iter().enumerate() {
            let Some((acked, at)) = live.acked(dir) else {
                continue;
            };
            let prev = last[slot];
            let g = (at > prev.0 && acked >= prev.1 && prev.0 > 0.0)
                .then(|| (acked - prev.1) as f64 * 8.0 / (at - prev.0) / 1e6);
            if at > prev.0 {
                last[slot] = (at, acked);
            }
            let n = live.flows.iter().filter(|f| f.direction == dir).count();
            let g = g.map_or_else(|| "-".to_string(), |g| format!("{g:.2} Mbit/s"));
            eprintln!(
                "[netlab {elapsed:6.1}s]   {:<4} {n} flow(s) goodput~{g}",
                dir.as_str()
            );
        }
    }
}
