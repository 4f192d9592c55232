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
/// ns: read both clocks back to back and subtract the elapsed time. The
/// error is the gap between the two reads (tens of ns); it shifts every
/// "since t0" time equally and cancels in every difference (RTT, one-way
/// delays), which are computed from raw CLOCK_MONOTONIC stamps.
pub fn instant_as_monotonic_ns(t0: Instant) -> u64 {
    let now_ns = monotonic_ns();
    let now = Instant::now();
    match now.checked_duration_since(t0) {
        Some(past) => now_ns.saturating_sub(past.as_nanos() as u64),
        None => now_ns.saturating_add(t0.duration_since(now).as_nanos() as u64),
    }
}

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
        // the same instant maps to the same ns, up to the read gap
        assert!(a.abs_diff(b) < 200_000, "{a} vs {b}");
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
