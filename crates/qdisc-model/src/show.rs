//! Values written the way `tc qdisc show` (iproute2 6.1) prints them, so a
//! decoded readback can be read (and checked) against tc's output:
//! `sprint_size`, `print_rate` (SI units), `sprint_time`, `sprint_time64`.

/// `%.3g` of C's printf, for the non-negative values tc prints.
pub(crate) fn g3(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let exp = v.abs().log10().floor() as i32;
    // Rounding to 3 significant digits may carry into the next decade.
    let rounded = format!("{:.*e}", 2, v);
    let (mant, e) = rounded.split_once('e').unwrap_or((&rounded, "0"));
    let e: i32 = e.parse().unwrap_or(exp);
    if !(-4..3).contains(&e) {
        let mant = trim(mant);
        return format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (2 - e).max(0) as usize;
    trim(&format!("{:.*}", decimals, v)).to_string()
}

fn trim(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// tc's `sprint_size`: `32Mb`, `64Kb`, `100000b`.
pub(crate) fn size(sz: u32) -> String {
    let (kilo, mega) = (1024f64, 1024f64 * 1024f64);
    let t = f64::from(sz);
    if t >= mega && (mega * (t / mega).round() - t).abs() < 1024.0 {
        format!("{}Mb", g((t / mega).round()))
    } else if t >= kilo && (kilo * (t / kilo).round() - t).abs() < 16.0 {
        format!("{}Kb", g((t / kilo).round()))
    } else {
        format!("{sz}b")
    }
}

/// `%g` of a whole number.
fn g(v: f64) -> String {
    if v < 1e6 {
        format!("{v:.0}")
    } else {
        g3(v)
    }
}

/// tc's `print_rate` (SI): bytes/s printed as `100Kbit`, `5Mbit`, `1234bit`.
pub(crate) fn rate(bytes_per_sec: u64) -> String {
    let mut r = bytes_per_sec.wrapping_shl(3);
    let units = ["", "K", "M", "G", "T"];
    let mut i = 0;
    while i < units.len() - 1 {
        if r < 1000 || (!r.is_multiple_of(1000) && r < 1000 * 1000) {
            break;
        }
        r /= 1000;
        i += 1;
    }
    format!("{r}{}bit", units[i])
}

/// tc's `sprint_time` of microseconds: `5ms`, `1.02s`, `200us`.
pub(crate) fn time_us(us: u32) -> String {
    let t = f64::from(us);
    if t >= 1e6 {
        format!("{}s", g3(t / 1e6))
    } else if t >= 1e3 {
        format!("{}ms", g3(t / 1e3))
    } else {
        format!("{us}us")
    }
}

/// tc's `sprint_time64` of nanoseconds: `100ns`, `10us`.
pub(crate) fn time_ns(ns: u64) -> String {
    let t = ns as f64;
    if t >= 1e9 {
        format!("{}s", g3(t / 1e9))
    } else if t >= 1e6 {
        format!("{}ms", g3(t / 1e6))
    } else if t >= 1e3 {
        format!("{}us", g3(t / 1e3))
    } else {
        format!("{ns}ns")
    }
}

/// Collects `word value ` pieces like tc's printers (each ends in a space).
#[derive(Default)]
pub(crate) struct Line(pub String);

impl Line {
    pub(crate) fn put(&mut self, text: impl AsRef<str>) {
        self.0.push_str(text.as_ref());
        self.0.push(' ');
    }
    pub(crate) fn opt(&mut self, text: Option<impl AsRef<str>>) {
        if let Some(t) = text {
            self.put(t);
        }
    }
    pub(crate) fn done(self) -> String {
        self.0.trim_end().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_like_tc() {
        assert_eq!(size(32 << 20), "32Mb");
        assert_eq!(size(100_000), "100000b");
        assert_eq!(size(900_000), "900000b");
        assert_eq!(size(9000), "9000b");
        assert_eq!(size(64 * 1024), "64Kb");
        assert_eq!(size(0x8000_0000), "2048Mb");
        assert_eq!(rate(125), "1Kbit");
        assert_eq!(rate(12_500), "100Kbit");
        assert_eq!(rate(625_000), "5Mbit");
        assert_eq!(rate(1234), "9872bit");
        assert_eq!(time_us(4999), "5ms");
        assert_eq!(time_us(99_999), "100ms");
        assert_eq!(time_us(1_024_000), "1.02s");
        assert_eq!(time_us(200), "200us");
        assert_eq!(time_us(1_000_000_000), "1e+03s");
        assert_eq!(time_ns(100), "100ns");
        assert_eq!(time_ns(10_000), "10us");
    }
}
