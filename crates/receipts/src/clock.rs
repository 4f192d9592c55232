//! Time stamps of receipts (UTC and monotonic), behind a trait so tests can
//! use a simulated clock.

use std::time::{Duration, SystemTime};

/// One instant, as wall-clock UTC and as `CLOCK_MONOTONIC`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Wall-clock time.
    pub utc: SystemTime,
    /// `CLOCK_MONOTONIC` (time since boot, comparable across processes).
    pub monotonic: Duration,
}

/// A source of [`Stamp`]s.
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> Stamp;
}

/// The real clocks (cargo feature `net`: `CLOCK_MONOTONIC` through nix).
#[cfg(feature = "net")]
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

#[cfg(feature = "net")]
impl Clock for SystemClock {
    fn now(&self) -> Stamp {
        let monotonic = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
            .map(Duration::from)
            .unwrap_or_default();
        Stamp {
            utc: SystemTime::now(),
            monotonic,
        }
    }
}
