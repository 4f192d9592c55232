//! The value parsers of every flag: each function takes one flag's text
//! and gives its type or the reason it is refused, and clap calls it, so
//! a bad value is refused before anything runs, with the same grammar as
//! the experiment files (`netlab_experiment::units`). What needs two
//! values at once (the TBF's rate, burst and limit; an MTU against the
//! burst; two ports apart) is checked after parsing, by the command's
//! configuration (`commands::compare::CompareConfig::check`). The flags
//! belong to the binary: no library parses a `--` word.
//!
//! Pure: text in, a typed value or the reason out.

use std::net::SocketAddr;
use std::time::Duration;

use netlab_experiment::{Offloads, Shard, MIN_PROBE_INTERVAL};
use netlab_qdisc_model::{Arm, Rate, Size};

/// An arm as its tc words and what they parse to; results.json records
/// the words as written.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmArg {
    /// The words as given.
    pub words: String,
    /// What they describe.
    pub arm: Arm,
}

/// `--arm`: tc words of a qdisc netlab knows, with values it accepts.
pub fn arm(text: &str) -> Result<ArmArg, String> {
    let arm = Arm::parse(text).map_err(|e| e.to_string())?;
    Ok(ArmArg {
        words: text.to_string(),
        arm,
    })
}

/// The method's arms ([`netlab_experiment::DEFAULT_ARMS`]), as `--arm` would give
/// them: what a comparison runs when no `--arm` is given.
pub fn default_arms() -> Vec<ArmArg> {
    netlab_experiment::DEFAULT_ARMS
        .iter()
        .map(|w| arm(w).expect("the default arms parse (tested)"))
        .collect()
}

/// A duration written like `3s`, `500ms`, `1.5s`, `250us` or `2m`; zero,
/// negative and unit-less values are refused (the experiment files'
/// grammar).
pub fn duration(text: &str) -> Result<Duration, String> {
    netlab_experiment::units::parse_duration(text, false)
}

/// A positive number of seconds (`--for 10`, `--end 2.5`), at most a day;
/// a duration with its unit is accepted too.
pub fn seconds(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => Ok(Duration::from_secs_f64(v)),
        Ok(_) => Err("must be a positive number of seconds, at most 86400".into()),
        Err(_) => duration(text),
    }
}

/// `--sample-interval`: a duration of at least 10 ms.
pub fn sample_interval(text: &str) -> Result<Duration, String> {
    let d = duration(text)?;
    if d < Duration::from_millis(10) {
        return Err("must be at least 10ms".into());
    }
    Ok(d)
}

/// `--iso-probe`: the isochronous probe's interval, at least its minimum.
pub fn iso_interval(text: &str) -> Result<Duration, String> {
    let d = duration(text)?;
    if d < MIN_PROBE_INTERVAL {
        return Err(format!("must be at least {MIN_PROBE_INTERVAL:?}"));
    }
    Ok(d)
}

/// Whether the isochronous probe runs, and at which interval: `off`, or
/// an interval ([`iso_interval`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsoProbeArg(pub Option<Duration>);

impl IsoProbeArg {
    /// The method's: on, at the isochronous probe's default interval.
    pub fn method() -> IsoProbeArg {
        IsoProbeArg(Some(netlab_experiment::ProbeSpec::isochronous().interval))
    }
}

/// `20ms` or `off`, as [`iso_probe`] reads it back.
impl std::fmt::Display for IsoProbeArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(d) => f.write_str(&netlab_experiment::units::format_duration(d)),
            None => f.write_str("off"),
        }
    }
}

/// `--iso-probe`: `off`, or the isochronous probe's interval.
pub fn iso_probe(text: &str) -> Result<IsoProbeArg, String> {
    if text.trim() == "off" {
        return Ok(IsoProbeArg(None));
    }
    iso_interval(text)
        .map(|d| IsoProbeArg(Some(d)))
        .map_err(|why| format!("{why} (or off)"))
}

/// A rate as tc writes it (`5mbit`, `100kbit`, `1.5gbit`, `625000bps`).
pub fn rate(text: &str) -> Result<Rate, String> {
    Rate::parse(text).map_err(|e| e.to_string())
}

/// A size as tc writes it (`16kb`, `64kb`, `1500`).
pub fn size(text: &str) -> Result<Size, String> {
    Size::parse(text).map_err(|e| e.to_string())
}

/// `--offloads`: `kernel` or `off`.
pub fn offloads(text: &str) -> Result<Offloads, String> {
    Offloads::from_file_word(text.trim()).ok_or_else(|| "expected kernel or off".into())
}

/// `--mtu`: a whole number of bytes a veth takes (the burst it must fit is
/// checked beside `--burst`).
pub fn mtu(text: &str) -> Result<u32, String> {
    let mtu = text
        .trim()
        .parse::<u32>()
        .map_err(|_| "not a whole number of bytes".to_string())?;
    netlab_experiment::check_mtu(mtu)?;
    Ok(mtu)
}

/// `--cc`: a congestion control's name as the kernel spells it (letters,
/// digits, `_`; at most 15 characters, TCP_CA_NAME_MAX less its NUL).
pub fn cc(text: &str) -> Result<String, String> {
    let cc = text.trim();
    if cc.is_empty() || cc.len() > 15 || !cc.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err("not a congestion control name".into());
    }
    Ok(cc.to_string())
}

/// `--pair 'A-WORDS=B-WORDS'`: two arms of two runs paired by `diff`
/// although their words differ; each side must parse as an arm.
pub fn arm_pair(text: &str) -> Result<(String, String), String> {
    let (a, b) = text
        .split_once('=')
        .ok_or("expected 'A-WORDS=B-WORDS', e.g. 'fq_codel target 5ms=fq_codel target 2ms'")?;
    let a = arm(a)?.words;
    let b = arm(b)?.words;
    Ok((a, b))
}

/// Guest memory as user-mode-linux takes it: a positive number of `M` or
/// `G` (`512M`, `1G`).
pub fn guest_mem(text: &str) -> Result<String, String> {
    let mem = text.trim();
    let ok = mem.ends_with(['M', 'G']) && mem[..mem.len() - 1].parse::<u32>().is_ok_and(|v| v > 0);
    if !ok {
        return Err("expected e.g. 512M or 1G".into());
    }
    Ok(mem.to_string())
}

/// `--shard K/N`.
pub fn shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text).map_err(|e| e.to_string())
}

/// `--shards N`: a whole number of shards, at least 1 (what `K/N` allows
/// for N).
pub fn shards(text: &str) -> Result<u32, String> {
    Shard::parse(&format!("1/{}", text.trim()))
        .map(|s| s.n)
        .map_err(|e| format!("a whole number of shards ≥ 1 ({e})"))
}

/// `ADDR:PORT` (the roles' `--to` and `--listen`).
pub fn addr(text: &str) -> Result<SocketAddr, String> {
    text.trim()
        .parse()
        .map_err(|e| format!("{e} (expected ADDR:PORT)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_parser_takes_its_words_and_refuses_the_rest() {
        assert_eq!(duration("1.5s"), Ok(Duration::from_millis(1500)));
        for bad in ["0s", "-3s", "3", "fast"] {
            assert!(duration(bad).is_err(), "{bad}");
        }
        assert_eq!(seconds("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(seconds("250ms"), Ok(Duration::from_millis(250)));
        for bad in ["0", "-1", "86401", "inf", "NaN"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert!(sample_interval("9ms").is_err());
        assert_eq!(sample_interval("10ms"), Ok(Duration::from_millis(10)));
        assert!(iso_interval("500us").is_err());
        assert_eq!(iso_interval("1ms"), Ok(Duration::from_millis(1)));
        assert_eq!(iso_probe("off"), Ok(IsoProbeArg(None)));
        assert_eq!(
            iso_probe("20ms"),
            Ok(IsoProbeArg(Some(Duration::from_millis(20))))
        );
        assert!(iso_probe("500us").unwrap_err().contains("or off"));
        for arg in [IsoProbeArg::method(), IsoProbeArg(None)] {
            assert_eq!(iso_probe(&arg.to_string()), Ok(arg));
        }
        assert_eq!(IsoProbeArg::method().to_string(), "20ms");
        assert_eq!(rate("5mbit").map(Rate::bits_per_sec), Ok(5_000_000));
        assert!(rate("fast").is_err());
        assert_eq!(size("16kb").map(|s| s.0), Ok(16_384));
        assert_eq!(offloads(" off "), Ok(Offloads::Off));
        assert!(offloads("on").is_err());
        assert_eq!(mtu("9000"), Ok(9000));
        for bad in ["67", "65536", "1.5k", ""] {
            assert!(mtu(bad).is_err(), "{bad}");
        }
        assert_eq!(cc("bbr").as_deref(), Ok("bbr"));
        for bad in ["", "a-b", "sixteen_letters_"] {
            assert!(cc(bad).is_err(), "{bad}");
        }
        assert_eq!(guest_mem("512M").as_deref(), Ok("512M"));
        for bad in ["0G", "1T", "M", "1.5G"] {
            assert!(guest_mem(bad).is_err(), "{bad}");
        }
        assert_eq!(shard("2/3").map(|s| (s.k, s.n)), Ok((2, 3)));
        assert!(shard("4/3").is_err());
        assert_eq!(shards("5"), Ok(5));
        assert!(shards("0").is_err());
        let a = arm("pfifo limit 100").unwrap();
        assert_eq!(a.words, "pfifo limit 100");
        assert!(arm("sfq perturb 10").is_err());
        let d = default_arms();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].words, "pfifo limit 256");
        assert!(matches!(d[1].arm, Arm::FqCodel(_)), "{:?}", d[1].arm);
        assert!(addr("127.0.0.1").is_err());
        assert_eq!(addr("127.0.0.1:9").map(|a| a.port()), Ok(9));
    }
}
