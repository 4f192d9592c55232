//! CLOCK_MONOTONIC in nanoseconds: the clock the stamped probe and the echo
//! both read (one kernel clock for every network namespace, so A's and B's
//! stamps are directly comparable on one machine).

use std::time::Instant;

use nix::time::{clock_gettime, ClockId};

/// CLOCK_MONOTONIC now, ns. `clock_gettime` on this clock cannot fail on
/// Linux (the clock id is valid and the pointer is ours); if it ever did,
/// 0 is returned and the reply's stamps are visibly absurd.
pub fn monotonic_ns() -> u64 {
    clock_gettime(ClockId::CLOCK_MONOTONIC)
        .map(|t| t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64)
        .unwrap_or(0)
}

/// `t0` (an `Instant`, which on Linux is CLOCK_MONOTONIC) as CLOCK_MONOTONIC
/// ns. An `Instant` is read between two CLOCK_MONOTONIC reads, so its
/// place on that clock is known to half the bracket; the tightest of
/// [`BRACKETS`] tries is used. A and B convert the same t0 on their own
/// threads and their "since t0" times are compared (a request's one-way
/// delay is B's receive time − A's send time), so the conversion must not
/// depend on when a thread was preempted: one wide bracket (a read
/// interrupted for 155 µs in the one-vCPU guest) made a one-way delay
/// negative. The error is at most half the tightest bracket, well under a
/// microsecond on an idle CPU.
pub fn instant_as_monotonic_ns(t0: Instant) -> u64 {
    let mut best: Option<(u64, u64)> = None; // (bracket width, t0 in ns)
    for _ in 0..BRACKETS {
        let before = monotonic_ns();
        let now = Instant::now();
        let after = monotonic_ns();
        let width = after.saturating_sub(before);
        let mid = before + width / 2;
        let t0_ns = match now.checked_duration_since(t0) {
            Some(past) => mid.saturating_sub(past.as_nanos() as u64),
            None => mid.saturating_add(t0.duration_since(now).as_nanos() as u64),
        };
        if best.is_none_or(|(w, _)| width < w) {
            best = Some((width, t0_ns));
        }
        if width <= TIGHT_NS {
            break;
        }
    }
    best.map_or(0, |(_, t0_ns)| t0_ns)
}

/// How many brackets [`instant_as_monotonic_ns`] tries at most.
const BRACKETS: usize = 16;
/// A bracket this tight ends the tries.
const TIGHT_NS: u64 = 2_000;

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn instant_maps_onto_clock_monotonic() {
        let t0 = Instant::now();
        let a = instant_as_monotonic_ns(t0);
        std::thread::sleep(Duration::from_millis(5));
        let b = instant_as_monotonic_ns(t0);
        // the same instant maps to the same ns, up to half a bracket
        assert!(a.abs_diff(b) < 20_000, "{a} vs {b}");
        let later = t0 + Duration::from_secs(3);
        let c = instant_as_monotonic_ns(later);
        assert!(
            c.abs_diff(a + 3_000_000_000) < 200_000,
            "future instants too"
        );
        let m = monotonic_ns();
        assert!(m >= a + 5_000_000);
    }
}
