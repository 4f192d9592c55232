//! netlab-utc: UTC instants as RFC 3339 text and back, in the proleptic
//! Gregorian calendar (Howard Hinnant's civil-date algorithms), without a
//! time crate. Pure: no clock is read here; callers pass the instant.
//!
//! One implementation for every place netlab writes or reads a UTC time:
//! receipts and results (`started_utc`, `t0_utc`, …) with milliseconds,
//! Flent's data files with microseconds (its `%Y-%m-%dT%H:%M:%S.%fZ`).
//! It has no dependencies, so the report crate uses it without linking the
//! socket and namespace crates.
//!
//! ```
//! use std::time::{Duration, UNIX_EPOCH};
//! let t = UNIX_EPOCH + Duration::from_millis(951_782_400_250);
//! assert_eq!(netlab_utc::format_rfc3339(t), "2000-02-29T00:00:00.250Z");
//! assert_eq!(netlab_utc::format_rfc3339_micros(951_782_400.25), "2000-02-29T00:00:00.250000Z");
//! assert_eq!(netlab_utc::parse_rfc3339("2000-02-29T00:00:00.250Z"), Some(951_782_400.25));
//! ```
#![forbid(unsafe_code)]

use std::time::{SystemTime, UNIX_EPOCH};

/// Formats `t` as RFC 3339 UTC with milliseconds (truncated), e.g.
/// `2026-11-30T02:55:53.123Z`; a time before 1970 prints as the epoch.
pub fn format_rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    text(d.as_secs() as i64, u64::from(d.subsec_millis()), 3)
}

/// `t` to the millisecond as a folder name without colons or dots, e.g.
/// `20261130T024805123Z` (the default results folder's stamp).
pub fn folder_stamp(t: SystemTime) -> String {
    format_rfc3339(t)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

/// Formats seconds since the Unix epoch as RFC 3339 UTC with microseconds
/// (rounded), e.g. `2026-11-30T19:35:34.260000Z` (Flent's time format).
pub fn format_rfc3339_micros(epoch_s: f64) -> String {
    let micros = (epoch_s * 1e6).round() as i64;
    text(
        micros.div_euclid(1_000_000),
        micros.rem_euclid(1_000_000) as u64,
        6,
    )
}

/// Seconds since the Unix epoch of an RFC 3339 UTC time
/// (`2026-11-30T19:35:34.260Z`, fraction optional); None if it is not one
/// (only `Z` is accepted as the offset).
pub fn parse_rfc3339(s: &str) -> Option<f64> {
    let s = s.strip_suffix('Z')?;
    let (date, time) = s.split_once('T')?;
    let mut d = date.split('-').map(|x| x.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':');
    let (hh, mm) = (
        t.next()?.parse::<i64>().ok()?,
        t.next()?.parse::<i64>().ok()?,
    );
    let ss: f64 = t.next()?.parse().ok()?;
    if !(1..=12).contains(&m)
        || !(1..=31).contains(&day)
        || hh > 23
        || mm > 59
        || !(0.0..61.0).contains(&ss)
    {
        return None;
    }
    let days = days_from_civil(y, m, day);
    Some(days as f64 * 86_400.0 + (hh * 3600 + mm * 60) as f64 + ss)
}

/// `secs` since the epoch plus a fraction of `digits` digits as text.
fn text(secs: i64, frac: u64, digits: usize) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{frac:0digits$}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day).
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

/// (year, month 1–12, day 1–31) to days since 1970-01-01.
fn days_from_civil(y: i64, m: i64, day: i64) -> i64 {
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_folder_stamp_is_the_instant_without_separators() {
        let t = UNIX_EPOCH + Duration::from_millis(1_764_471_285_123);
        assert_eq!(format_rfc3339(t), "2025-11-30T02:54:45.123Z");
        assert_eq!(folder_stamp(t), "20251130T025445123Z");
    }

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
    fn milliseconds_are_truncated_microseconds_rounded() {
        let t = UNIX_EPOCH + Duration::from_micros(1_999_999);
        assert_eq!(format_rfc3339(t), "1970-01-01T00:00:01.999Z");
        assert_eq!(
            format_rfc3339_micros(1.999_999_6),
            "1970-01-01T00:00:02.000000Z"
        );
        assert_eq!(format_rfc3339_micros(-0.5), "1969-12-31T23:59:59.500000Z");
    }

    #[test]
    fn utc_round_trip() {
        let t = parse_rfc3339("2026-11-30T19:35:34.260Z").unwrap();
        assert_eq!(format_rfc3339_micros(t), "2026-11-30T19:35:34.260000Z");
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(
            format_rfc3339_micros(951_782_400.0),
            "2000-02-29T00:00:00.000000Z"
        );
        assert_eq!(parse_rfc3339("2026-13-01T00:00:00Z"), None);
        assert_eq!(parse_rfc3339("yesterday"), None);
    }

    #[test]
    fn every_day_of_four_centuries_round_trips_through_the_civil_date() {
        // 1900-03-01 .. 2300-03-01 covers the 100- and 400-year rules.
        for days in -25_508..120_589 {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, i64::from(m), i64::from(d)), days);
        }
    }
}
