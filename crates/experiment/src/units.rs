//! Durations as people write them in experiment files and flags: `3s`,
//! `500ms`, `1.5s`, `250us`, `2m`. A unit is required (a bare `3` is refused:
//! tc reads it as microseconds, a person means seconds).

use std::time::Duration;

/// Parses a duration with a unit; `allow_zero` admits `0s` (offsets, base RTT).
/// The error is the reason only; the caller adds the key.
pub fn parse_duration(text: &str, allow_zero: bool) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .ok_or_else(|| format!("{text:?}: a unit is required (e.g. 3s, 500ms)"))?;
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| format!("{text:?}: not a number"))?;
    let scale = match unit {
        "us" | "usec" => 1e-6,
        "ms" | "msec" => 1e-3,
        "s" | "sec" | "secs" => 1.0,
        "m" | "min" => 60.0,
        other => {
            return Err(format!(
                "{text:?}: unknown unit {other:?} (use us, ms, s or m)"
            ))
        }
    };
    if !value.is_finite() || value < 0.0 || (value == 0.0 && !allow_zero) {
        return Err(format!(
            "{text:?}: must be {}",
            if allow_zero {
                "zero or positive"
            } else {
                "positive"
            }
        ));
    }
    let secs = value * scale;
    if secs > 24.0 * 3600.0 {
        return Err(format!("{text:?}: longer than a day"));
    }
    Ok(Duration::from_nanos((secs * 1e9).round() as u64))
}

/// Writes a duration so that [`parse_duration`] reads back the same value:
/// `3s`, `200ms`, `250us`, `0s`; fractions fall back to a decimal number of
/// microseconds.
pub fn format_duration(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns == 0 {
        "0s".to_string()
    } else if ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1000) {
        format!("{}us", ns / 1000)
    } else {
        format!("{}us", ns as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_refuses_bad_values() {
        assert_eq!(parse_duration("3s", false).unwrap(), Duration::from_secs(3));
        assert_eq!(
            parse_duration("1.5s", false).unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(
            parse_duration("250us", false).unwrap(),
            Duration::from_micros(250)
        );
        assert_eq!(
            parse_duration("2m", false).unwrap(),
            Duration::from_secs(120)
        );
        assert_eq!(parse_duration("0ms", true).unwrap(), Duration::ZERO);
        for bad in ["0s", "-1s", "3", "abc", "3h", "", "1e400s", "25h"] {
            assert!(parse_duration(bad, false).is_err(), "{bad}");
        }
    }

    #[test]
    fn format_reads_back() {
        for d in [
            Duration::ZERO,
            Duration::from_secs(3),
            Duration::from_millis(200),
            Duration::from_micros(250),
            Duration::from_nanos(1500),
            Duration::from_millis(1500),
        ] {
            assert_eq!(parse_duration(&format_duration(d), true).unwrap(), d);
        }
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
    }
}
