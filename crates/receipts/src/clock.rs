//! Time stamps of receipts (UTC and monotonic), behind a trait so tests can
//! use a simulated clock.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

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

/// The real clocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

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

/// Formats `t` as RFC 3339 UTC with milliseconds, e.g.
/// `2026-11-30T02:55:53.123Z`.
pub fn format_rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, dd) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{dd:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian
/// calendar (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_known_instants() {
        assert_eq!(format_rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(951_782_400_250); // leap day 2000
        assert_eq!(format_rfc3339(t), "2000-02-29T00:00:00.250Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_796_006_153);
        assert_eq!(format_rfc3339(t), "2026-11-30T02:35:53.000Z");
        let t = UNIX_EPOCH + Duration::from_secs(4_102_444_799);
        assert_eq!(format_rfc3339(t), "2099-12-31T23:59:59.000Z");
    }

    #[test]
    fn system_clock_is_monotonic() {
        let a = SystemClock.now();
        let b = SystemClock.now();
        assert!(b.monotonic >= a.monotonic);
        assert!(a.monotonic > Duration::ZERO);
    }
}
