//! Units as `tc` writes them: rates, sizes and times.
//!
//! The suffixes follow iproute2's `get_rate64`, `get_size` and `get_time`
//! (case-insensitive): a rate without a suffix is bit/s, a size without a
//! suffix is bytes, a time without a suffix is microseconds; `kb` is 1024
//! bytes while `kbit` is 1000 bit/s.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::ModelError;

/// A rate in bits per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Rate(pub u64);

impl Rate {
    /// Bits per second.
    pub fn bits_per_sec(self) -> u64 {
        self.0
    }

    /// Bytes per second, truncated like tc (`bps / 8`).
    pub fn bytes_per_sec(self) -> u64 {
        self.0 / 8
    }

    /// A rate from bytes per second (what the kernel stores).
    pub fn from_bytes_per_sec(bytes: u64) -> Rate {
        Rate(bytes.saturating_mul(8))
    }

    /// Parses `5mbit`, `100kbit`, `1gbit`, `1.5mbit`, `625000bps`... as tc does.
    pub fn parse(text: &str) -> Result<Rate, ModelError> {
        let (number, suffix) = strtod_prefix(text).ok_or_else(|| {
            ModelError::bad("rate", text, "expected a number with a unit, e.g. 5mbit")
        })?;
        let scale = rate_scale(suffix).ok_or_else(|| {
            ModelError::bad(
                "rate",
                text,
                format!(
                    "unknown unit {suffix:?} (use bit, kbit, mbit, gbit, tbit, bps, kbps, mbps...)"
                ),
            )
        })?;
        let bits = number * scale;
        if !(1.0..1.8e19).contains(&bits) {
            return Err(ModelError::bad(
                "rate",
                text,
                "must be at least 1bit and finite",
            ));
        }
        Ok(Rate(bits.round() as u64))
    }
}

impl fmt::Display for Rate {
    /// Writes the shortest exact tc spelling: `5mbit`, `100kbit`, `1gbit`, `1234bit`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        for (unit, scale) in [
            ("tbit", 1_000_000_000_000u64),
            ("gbit", 1_000_000_000),
            ("mbit", 1_000_000),
            ("kbit", 1000),
        ] {
            if v >= scale && v.is_multiple_of(scale) {
                return write!(f, "{}{unit}", v / scale);
            }
        }
        write!(f, "{v}bit")
    }
}

/// A size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Size(pub u64);

impl Size {
    /// Bytes.
    pub fn bytes(self) -> u64 {
        self.0
    }

    /// Parses `16kb` (16384), `64kb`, `1mb`, `1500`, `1500b`, `8kbit` as tc does.
    pub fn parse(text: &str) -> Result<Size, ModelError> {
        const SUFFIXES: &[(&str, f64)] = &[
            ("", 1.0),
            ("b", 1.0),
            ("k", 1024.0),
            ("kb", 1024.0),
            ("m", 1048576.0),
            ("mb", 1048576.0),
            ("g", 1073741824.0),
            ("gb", 1073741824.0),
            ("kbit", 1024.0 / 8.0),
            ("mbit", 1048576.0 / 8.0),
            ("gbit", 1073741824.0 / 8.0),
        ];
        let (number, suffix) = strtod_prefix(text).ok_or_else(|| {
            ModelError::bad("size", text, "expected a number of bytes, e.g. 16kb")
        })?;
        let scale = lookup(SUFFIXES, suffix).ok_or_else(|| {
            ModelError::bad(
                "size",
                text,
                format!("unknown unit {suffix:?} (use b, kb, mb, gb)"),
            )
        })?;
        let bytes = number * scale;
        if !(0.0..=u32::MAX as f64).contains(&bytes) {
            return Err(ModelError::bad("size", text, "must be between 0 and 4gb"));
        }
        Ok(Size(bytes.floor() as u64))
    }

    /// The size as a kernel `u32`, or an error naming `what`.
    pub fn to_u32(self, what: &str) -> Result<u32, ModelError> {
        u32::try_from(self.0)
            .map_err(|_| ModelError::bad(what, self.to_string(), "does not fit in 32 bits"))
    }
}

impl fmt::Display for Size {
    /// Writes `64kb`, `1mb`, `1500b`, as tc accepts them back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        for (unit, scale) in [("gb", 1u64 << 30), ("mb", 1 << 20), ("kb", 1 << 10)] {
            if v >= scale && v.is_multiple_of(scale) {
                return write!(f, "{}{unit}", v / scale);
            }
        }
        write!(f, "{v}b")
    }
}

/// Parses a tc time: `5ms`, `100ms`, `1s`, `500us`, `250` (microseconds).
pub fn parse_time(what: &str, text: &str) -> Result<Duration, ModelError> {
    const SUFFIXES: &[(&str, f64)] = &[
        ("", 1e3),
        ("s", 1e9),
        ("sec", 1e9),
        ("secs", 1e9),
        ("ms", 1e6),
        ("msec", 1e6),
        ("msecs", 1e6),
        ("us", 1e3),
        ("usec", 1e3),
        ("usecs", 1e3),
        ("ns", 1.0),
        ("nsec", 1.0),
        ("nsecs", 1.0),
    ];
    let (number, suffix) = strtod_prefix(text)
        .ok_or_else(|| ModelError::bad(what, text, "expected a time, e.g. 5ms"))?;
    let scale = lookup(SUFFIXES, suffix).ok_or_else(|| {
        ModelError::bad(
            what,
            text,
            format!("unknown unit {suffix:?} (use s, ms, us)"),
        )
    })?;
    let nanos = number * scale;
    if !(0.0..4.0e18).contains(&nanos) {
        return Err(ModelError::bad(
            what,
            text,
            "must be a non-negative finite time",
        ));
    }
    Ok(Duration::from_nanos(nanos.round() as u64))
}

/// Writes a time the way a person types it for tc: `5ms`, `100ms`, `1s`, `500us`.
pub fn format_time(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns != 0 && ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns != 0 && ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1000) {
        format!("{}us", ns / 1000)
    } else {
        format!("{ns}ns")
    }
}

/// Reads the longest number at the start of `text` the way C's `strtod`
/// does (what tc uses for rates, sizes and times): optional sign, decimal
/// digits with an optional fraction and exponent, or `0x` hex digits with
/// an optional fraction and binary exponent. Returns the value and the
/// rest; `None` when no number starts the text. (`inf`/`nan` are refused.)
pub(crate) fn strtod_prefix(text: &str) -> Option<(f64, &str)> {
    let b = text.as_bytes();
    let mut i = 0;
    let negative = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let digits = |from: usize, hex: bool| {
        let mut j = from;
        while j < b.len()
            && (if hex {
                b[j].is_ascii_hexdigit()
            } else {
                b[j].is_ascii_digit()
            })
        {
            j += 1;
        }
        j
    };
    let is_hex = b.len() > i + 2
        && b[i] == b'0'
        && (b[i + 1] == b'x' || b[i + 1] == b'X')
        && (b[i + 2].is_ascii_hexdigit()
            || (b[i + 2] == b'.' && b.get(i + 3).is_some_and(u8::is_ascii_hexdigit)));
    if is_hex {
        let int_start = i + 2;
        let int_end = digits(int_start, true);
        let (frac_start, frac_end) = if b.get(int_end) == Some(&b'.') {
            (int_end + 1, digits(int_end + 1, true))
        } else {
            (int_end, int_end)
        };
        let mut value = 0f64;
        for &c in &b[int_start..int_end] {
            value = value * 16.0 + f64::from((c as char).to_digit(16)?);
        }
        let mut scale = 1.0 / 16.0;
        for &c in &b[frac_start..frac_end] {
            value += f64::from((c as char).to_digit(16)?) * scale;
            scale /= 16.0;
        }
        let mut end = frac_end;
        if matches!(b.get(end), Some(b'p' | b'P')) {
            let mut k = end + 1;
            let mut exp_neg = false;
            if matches!(b.get(k), Some(b'+' | b'-')) {
                exp_neg = b[k] == b'-';
                k += 1;
            }
            let exp_end = digits(k, false);
            if exp_end > k {
                let exp: i32 = text[k..exp_end].parse().unwrap_or(i32::MAX);
                value *= 2f64.powi(if exp_neg { -exp } else { exp });
                end = exp_end;
            }
        }
        return Some((if negative { -value } else { value }, &text[end..]));
    }
    let int_end = digits(i, false);
    let mut end = int_end;
    if b.get(end) == Some(&b'.') {
        end = digits(end + 1, false);
    }
    let mantissa = &text[i..end];
    if mantissa.is_empty() || mantissa == "." {
        return None;
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut k = end + 1;
        if matches!(b.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        let exp_end = digits(k, false);
        if exp_end > k {
            end = exp_end;
        }
    }
    let value: f64 = text[..end].parse().ok()?;
    Some((value, &text[end..]))
}

/// tc's `get_unsigned`/`get_u32` (`strtoul` with base 0): decimal, `0x`
/// hex or leading-`0` octal, the whole word, at most `u32::MAX`.
pub fn tc_unsigned(what: &str, text: &str) -> Result<u32, ModelError> {
    let bad = |r: &str| ModelError::bad(what, text, r.to_string());
    let t = text.strip_prefix('+').unwrap_or(text);
    let (radix, digits) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (16, h)
    } else if t.len() > 1 && t.starts_with('0') {
        (8, &t[1..])
    } else {
        (10, t)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(bad(
            "expected an unsigned 32-bit number (decimal, 0x hex or 0 octal)",
        ));
    }
    let v = u64::from_str_radix(digits, radix).map_err(|_| bad("does not fit in 32 bits"))?;
    u32::try_from(v).map_err(|_| bad("does not fit in 32 bits"))
}

/// tc's `get_size`: bytes with an optional `b`, `k`/`kb`, `m`/`mb`,
/// `g`/`gb`, `kbit`, `mbit`, `gbit` suffix (any case); the number is read
/// like `strtod`, so `0x80000000` and `1.5k` work. Truncated to whole
/// bytes; more than `u32::MAX` is refused.
pub fn tc_size(what: &str, text: &str) -> Result<u32, ModelError> {
    Size::parse(text)
        .map_err(|e| rename(e, what))
        .and_then(|s| s.to_u32(what))
}

/// tc's `get_rate64`: bytes per second from a rate word (`5mbit`, `1000`
/// = bit/s, `100KBps`).
pub fn tc_rate64(what: &str, text: &str) -> Result<u64, ModelError> {
    let (number, suffix) = strtod_prefix(text)
        .ok_or_else(|| ModelError::bad(what, text, "expected a rate, e.g. 5mbit"))?;
    let scale = rate_scale(suffix).ok_or_else(|| {
        ModelError::bad(
            what,
            text,
            format!(
                "unknown unit {suffix:?} (use bit, kbit, mbit, gbit, tbit, bps, kbps, mbps...)"
            ),
        )
    })?;
    let bytes = number * scale / 8.0;
    if !(0.0..1.8e19).contains(&bytes) {
        return Err(ModelError::bad(
            what,
            text,
            "must be a non-negative finite rate",
        ));
    }
    Ok(bytes as u64)
}

/// tc's `get_rate`: like [`tc_rate64`] but the kernel field is 32 bits.
pub fn tc_rate32(what: &str, text: &str) -> Result<u32, ModelError> {
    let v = tc_rate64(what, text)?;
    u32::try_from(v).map_err(|_| ModelError::bad(what, text, "more than 2^32-1 bytes/s"))
}

/// tc's `get_time`: microseconds (the kernel's unit) from `5ms`, `1s`,
/// `250us` or a bare number (microseconds), truncated like tc.
pub fn tc_time_us(what: &str, text: &str) -> Result<u32, ModelError> {
    let (number, suffix) = strtod_prefix(text)
        .ok_or_else(|| ModelError::bad(what, text, "expected a time, e.g. 5ms"))?;
    let scale = match suffix.to_ascii_lowercase().as_str() {
        "" | "us" | "usec" | "usecs" => 1.0,
        "ms" | "msec" | "msecs" => 1e3,
        "s" | "sec" | "secs" => 1e6,
        _ => {
            return Err(ModelError::bad(
                what,
                text,
                format!("unknown unit {suffix:?} (use s, ms, us)"),
            ))
        }
    };
    let us = number * scale;
    if !(0.0..=u32::MAX as f64).contains(&us) {
        return Err(ModelError::bad(
            what,
            text,
            "must be between 0 and 2^32-1 us",
        ));
    }
    Ok(us as u32)
}

/// tc's `get_time64`: nanoseconds, a bare number being nanoseconds.
pub fn tc_time64_ns(what: &str, text: &str) -> Result<u64, ModelError> {
    let (number, suffix) = strtod_prefix(text)
        .ok_or_else(|| ModelError::bad(what, text, "expected a time, e.g. 10us"))?;
    let scale = match suffix.to_ascii_lowercase().as_str() {
        "" | "ns" | "nsec" | "nsecs" => 1.0,
        "us" | "usec" | "usecs" => 1e3,
        "ms" | "msec" | "msecs" => 1e6,
        "s" | "sec" | "secs" => 1e9,
        _ => {
            return Err(ModelError::bad(
                what,
                text,
                format!("unknown unit {suffix:?} (use s, ms, us, ns)"),
            ))
        }
    };
    let ns = number * scale;
    if !(0.0..9.2e18).contains(&ns) {
        return Err(ModelError::bad(
            what,
            text,
            "must be a non-negative finite time",
        ));
    }
    Ok(ns as u64)
}

fn rate_scale(suffix: &str) -> Option<f64> {
    const SUFFIXES: &[(&str, f64)] = &[
        ("", 1.0),
        ("bit", 1.0),
        ("kibit", 1024.0),
        ("kbit", 1000.0),
        ("mibit", 1048576.0),
        ("mbit", 1e6),
        ("gibit", 1073741824.0),
        ("gbit", 1e9),
        ("tibit", 1099511627776.0),
        ("tbit", 1e12),
        ("bps", 8.0),
        ("kibps", 8.0 * 1024.0),
        ("kbps", 8000.0),
        ("mibps", 8.0 * 1048576.0),
        ("mbps", 8e6),
        ("gibps", 8.0 * 1073741824.0),
        ("gbps", 8e9),
        ("tibps", 8.0 * 1099511627776.0),
        ("tbps", 8e12),
    ];
    lookup(SUFFIXES, suffix)
}

fn rename(e: ModelError, what: &str) -> ModelError {
    match e {
        ModelError::BadValue { text, reason, .. } => ModelError::BadValue {
            what: what.to_string(),
            text,
            reason,
        },
        other => other,
    }
}

fn lookup(table: &[(&str, f64)], suffix: &str) -> Option<f64> {
    table
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(suffix))
        .map(|&(_, scale)| scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_follow_tc_units() {
        assert_eq!(Rate::parse("5mbit").unwrap(), Rate(5_000_000));
        assert_eq!(Rate::parse("5Mbit").unwrap(), Rate(5_000_000));
        assert_eq!(Rate::parse("100kbit").unwrap(), Rate(100_000));
        assert_eq!(Rate::parse("1gbit").unwrap(), Rate(1_000_000_000));
        assert_eq!(Rate::parse("1.5mbit").unwrap(), Rate(1_500_000));
        assert_eq!(Rate::parse("625000bps").unwrap(), Rate(5_000_000));
        assert_eq!(Rate::parse("8000").unwrap(), Rate(8000));
        assert_eq!(Rate::parse("5mbit").unwrap().bytes_per_sec(), 625_000);
        assert!(Rate::parse("5mbits").is_err());
        assert!(Rate::parse("mbit").is_err());
        assert!(Rate::parse("0bit").is_err());
        assert!(Rate::parse("").is_err());
    }

    #[test]
    fn rates_display_back_to_tc_words() {
        for s in ["5mbit", "100kbit", "1gbit", "1234bit", "2tbit"] {
            assert_eq!(Rate::parse(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn sizes_follow_tc_units() {
        assert_eq!(Size::parse("16kb").unwrap(), Size(16 * 1024));
        assert_eq!(Size::parse("64kb").unwrap(), Size(65536));
        assert_eq!(Size::parse("64K").unwrap(), Size(65536));
        assert_eq!(Size::parse("1mb").unwrap(), Size(1 << 20));
        assert_eq!(Size::parse("1500").unwrap(), Size(1500));
        assert_eq!(Size::parse("1500b").unwrap(), Size(1500));
        assert_eq!(Size::parse("8kbit").unwrap(), Size(1024));
        assert!(Size::parse("16kib").is_err());
        assert!(Size::parse("5gb").is_err());
        assert_eq!(Size(65536).to_string(), "64kb");
        assert_eq!(Size(1 << 20).to_string(), "1mb");
        assert_eq!(Size(1500).to_string(), "1500b");
    }

    #[test]
    fn times_follow_tc_units() {
        assert_eq!(parse_time("t", "5ms").unwrap(), Duration::from_millis(5));
        assert_eq!(
            parse_time("t", "100ms").unwrap(),
            Duration::from_millis(100)
        );
        assert_eq!(parse_time("t", "1s").unwrap(), Duration::from_secs(1));
        assert_eq!(parse_time("t", "250").unwrap(), Duration::from_micros(250));
        assert_eq!(
            parse_time("t", "1.5ms").unwrap(),
            Duration::from_micros(1500)
        );
        assert!(parse_time("t", "5min").is_err());
        assert_eq!(format_time(Duration::from_millis(5)), "5ms");
        assert_eq!(format_time(Duration::from_secs(1)), "1s");
        assert_eq!(format_time(Duration::from_micros(1500)), "1500us");
        assert_eq!(tc_time_us("t", "5ms").unwrap(), 5000);
    }
}
