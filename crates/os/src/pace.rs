//! Pacing on a fixed grid: slots at `origin + k·interval`. A late wake-up
//! skips the slots it missed instead of catching up in a burst. Pure: the
//! time is passed in.

use std::time::Duration;

/// The next slot after `now` on the grid through `prev`: the first
/// `prev + k·interval` (k ≥ 1) strictly later than `now`. A zero interval
/// returns `now`.
pub fn next_slot(prev: Duration, now: Duration, interval: Duration) -> Duration {
    if interval.is_zero() {
        return now;
    }
    let next = prev.saturating_add(interval);
    if next > now {
        return next;
    }
    let behind = (now - prev).as_nanos() / interval.as_nanos();
    let k = u32::try_from(behind + 1).unwrap_or(u32::MAX);
    prev.saturating_add(interval.saturating_mul(k))
}

/// A grid of slots, each `interval` after the previous (times are
/// durations since a common origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacer {
    interval: Duration,
    slot: Duration,
}

impl Pacer {
    /// A grid whose first slot is `first`.
    pub fn new(first: Duration, interval: Duration) -> Pacer {
        Pacer {
            interval,
            slot: first,
        }
    }

    /// The current slot (the one last returned, or `first`).
    pub fn slot(&self) -> Duration {
        self.slot
    }

    /// The spacing.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Moves to the first slot strictly after `now` and returns it.
    pub fn advance(&mut self, now: Duration) -> Duration {
        self.slot = next_slot(self.slot, now, self.interval);
        self.slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn next_slot_keeps_the_grid_and_never_bursts() {
        let i = ms(200);
        assert_eq!(next_slot(ms(1000), ms(1010), i), ms(1200));
        assert_eq!(next_slot(ms(1000), ms(1199), i), ms(1200));
        // exactly on a slot: the next one
        assert_eq!(next_slot(ms(1000), ms(1200), i), ms(1400));
        // a 650 ms stall skips the missed slots instead of catching up
        assert_eq!(next_slot(ms(1000), ms(1650), i), ms(1800));
        assert_eq!(next_slot(ms(1000), ms(500), i), ms(1200));
        assert_eq!(next_slot(ms(1000), ms(1500), Duration::ZERO), ms(1500));
        // no overflow at the far end
        assert_eq!(next_slot(Duration::MAX, ms(1), i), Duration::MAX);
    }

    #[test]
    fn pacer_walks_the_grid() {
        let mut p = Pacer::new(ms(100), ms(200));
        assert_eq!(p.slot(), ms(100));
        assert_eq!(p.advance(ms(150)), ms(300));
        assert_eq!(p.advance(ms(300)), ms(500));
        assert_eq!(p.advance(ms(1234)), ms(1300));
        assert_eq!(p.interval(), ms(200));
    }
}
