//! Progress on stderr while a comparison runs: scenario i/N, phase, seconds
//! left, live goodput and the last probe RTT. Line based (no cursor tricks),
//! so it reads the same through the guest console and in a CI log.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Live figures a scenario's threads update.
#[derive(Debug, Default)]
pub struct Live {
    /// Last successful probe RTT, in microseconds (0 = none yet).
    pub last_rtt_us: AtomicU64,
    /// Probe timeouts so far.
    pub timeouts: AtomicU64,
    /// Bytes acked by the receiver so far (tcp_info bytes_acked), for live goodput.
    pub bytes_acked: AtomicU64,
    /// When `bytes_acked` was last updated, µs since t0.
    pub acked_at_us: AtomicU64,
}

/// The progress printer.
#[derive(Debug)]
pub struct Progress {
    quiet: bool,
    started: Instant,
    last: Mutex<(f64, u64)>,
}

impl Progress {
    /// A printer; `quiet` silences everything but errors.
    pub fn new(quiet: bool) -> Self {
        Progress {
            quiet,
            started: Instant::now(),
            last: Mutex::new((0.0, 0)),
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

    /// Resets the goodput estimator at a scenario start.
    pub fn reset(&self) {
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = (0.0, 0);
    }

    /// One tick: scenario i/N, phase, time left, live goodput, last RTT.
    pub fn tick(&self, scenario: &str, phase: &str, now_s: f64, end_s: f64, live: &Live) {
        if self.quiet {
            return;
        }
        let acked = live.bytes_acked.load(Ordering::Relaxed);
        let at = live.acked_at_us.load(Ordering::Relaxed) as f64 / 1e6;
        let goodput = {
            let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
            let g = if at > last.0 && acked >= last.1 && last.0 > 0.0 {
                Some((acked - last.1) as f64 * 8.0 / (at - last.0) / 1e6)
            } else {
                None
            };
            if at > last.0 {
                *last = (at, acked);
            }
            g
        };
        let rtt = live.last_rtt_us.load(Ordering::Relaxed);
        let rtt = if rtt == 0 {
            "-".to_string()
        } else {
            format!("{:.1} ms", rtt as f64 / 1000.0)
        };
        let goodput = goodput.map_or_else(|| "-".to_string(), |g| format!("{g:.2} Mbit/s"));
        eprintln!(
            "[netlab {:6.1}s] {scenario} {phase:<8} t={now_s:5.1}s left={:5.1}s goodput~{goodput} last probe RTT {rtt} timeouts {}",
            self.started.elapsed().as_secs_f64(),
            (end_s - now_s).max(0.0),
            live.timeouts.load(Ordering::Relaxed),
        );
    }
}
