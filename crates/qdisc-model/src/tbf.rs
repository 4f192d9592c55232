//! The root token-bucket filter and the kernel's clock-tick arithmetic.
//!
//! TBF's `tc_tbf_qopt.buffer` is a time in scheduler ticks, not bytes; tc
//! converts burst ↔ ticks with the factors in `/proc/net/psched`, and so do
//! we, truncating where tc truncates, so the request bytes equal tc's.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::arm::Words;
use crate::units::{Rate, Size};
use crate::ModelError;

/// `tbf rate R burst B limit L`: the shaper at `root handle 1:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tbf {
    /// Token rate.
    pub rate: Rate,
    /// Bucket size in bytes.
    pub burst: Size,
    /// TBF's own queue limit in bytes (only binding for its default
    /// inner bfifo; a child qdisc replaces that).
    pub limit: Size,
}

impl Tbf {
    /// method §2: `tbf rate 5mbit burst 16kb limit 64kb`.
    pub fn spec_default() -> Tbf {
        Tbf {
            rate: Rate(5_000_000),
            burst: Size(16 * 1024),
            limit: Size(64 * 1024),
        }
    }

    /// Parses `rate 5mbit burst 16kb limit 64kb` (a leading `tbf` is allowed).
    pub fn parse(text: &str) -> Result<Tbf, ModelError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let words = match words.first() {
            Some(&"tbf") => &words[1..],
            _ => &words[..],
        };
        let mut w = Words::new("tbf", words);
        let (mut rate, mut burst, mut limit) = (None, None, None);
        while let Some(word) = w.next() {
            match word {
                "rate" => rate = Some(w.rate(word)?),
                "burst" | "buffer" | "maxburst" => burst = Some(w.size(word)?),
                "limit" => limit = Some(w.size(word)?),
                _ => return Err(w.unknown(word, "rate, burst, limit")),
            }
        }
        let tbf = Tbf {
            rate: rate.ok_or(ModelError::MissingParameter("rate"))?,
            burst: burst.ok_or(ModelError::MissingParameter("burst"))?,
            limit: limit.ok_or(ModelError::MissingParameter("limit"))?,
        };
        tbf.validate()?;
        Ok(tbf)
    }

    /// Checks that the values fit the kernel's structures.
    pub fn validate(&self) -> Result<(), ModelError> {
        if self.rate.bytes_per_sec() == 0 {
            return Err(ModelError::bad(
                "tbf rate",
                self.rate.to_string(),
                "must be at least 8bit",
            ));
        }
        if self.burst.0 == 0 {
            return Err(ModelError::bad("tbf burst", "0", "must be positive"));
        }
        self.burst.to_u32("tbf burst")?;
        self.limit.to_u32("tbf limit")?;
        Ok(())
    }

    /// The tc words after `tbf`.
    pub fn tc_words(&self) -> Vec<String> {
        vec![
            "rate".into(),
            self.rate.to_string(),
            "burst".into(),
            self.burst.to_string(),
            "limit".into(),
            self.limit.to_string(),
        ]
    }

    /// The nested `TCA_OPTIONS` attributes iproute2 would send, minus
    /// `TCA_TBF_RTAB` (the kernel ignores it when the rate's link layer is
    /// set, which it is: see the crate docs).
    pub(crate) fn options(&self, psched: &Psched) -> Result<Vec<(u16, Vec<u8>)>, ModelError> {
        self.validate()?;
        let rate64 = self.rate.bytes_per_sec();
        let rate32 = u32::try_from(rate64).unwrap_or(u32::MAX);
        let burst = self.burst.to_u32("tbf burst")?;
        let qopt = TbfQopt {
            rate: RateSpec {
                cell_log: DEFAULT_CELL_LOG,
                linklayer: LINKLAYER_ETHERNET,
                overhead: 0,
                cell_align: -1,
                mpu: 0,
                rate: rate32,
            },
            peakrate: RateSpec::default(),
            limit: self.limit.to_u32("tbf limit")?,
            // Like tc, from the 32-bit (saturated) rate; the kernel
            // recomputes the buffer from TCA_TBF_BURST and the 64-bit rate.
            buffer: psched.xmit_ticks(rate32 as u64, burst),
            mtu: 0,
        };
        let mut attrs = vec![
            (TCA_TBF_PARMS, qopt.to_bytes().to_vec()),
            (TCA_TBF_BURST, burst.to_ne_bytes().to_vec()),
        ];
        if rate64 >= 1 << 32 {
            attrs.push((TCA_TBF_RATE64, rate64.to_ne_bytes().to_vec()));
        }
        Ok(attrs)
    }
}

impl Tbf {
    /// [`Tbf::options`] as the nested `TCA_OPTIONS` of a request.
    pub(crate) fn nested_options(
        &self,
        psched: &Psched,
    ) -> Result<Vec<netlink_packet_route::tc::TcOption>, ModelError> {
        Ok(self
            .options(psched)?
            .into_iter()
            .map(|(k, v)| {
                netlink_packet_route::tc::TcOption::Other(netlink_packet_core::DefaultNla::new(
                    k, v,
                ))
            })
            .collect())
    }
}

impl fmt::Display for Tbf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tbf {}", self.tc_words().join(" "))
    }
}

pub(crate) const TCA_TBF_PARMS: u16 = 1;
pub(crate) const TCA_TBF_RATE64: u16 = 4;
pub(crate) const TCA_TBF_PRATE64: u16 = 5;
pub(crate) const TCA_TBF_BURST: u16 = 6;
/// `TC_LINKLAYER_ETHERNET`.
const LINKLAYER_ETHERNET: u8 = 1;
/// What iproute2's `tc_calc_rtable` picks for its default 2047-byte MTU.
const DEFAULT_CELL_LOG: u8 = 3;

/// The kernel's `struct tc_ratespec` (12 bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateSpec {
    /// Rate-table cell size log.
    pub cell_log: u8,
    /// Link layer (lower 4 bits): 0 unaware, 1 ethernet, 2 atm.
    pub linklayer: u8,
    /// Per-packet overhead in bytes.
    pub overhead: u16,
    /// Cell alignment.
    pub cell_align: i16,
    /// Minimum packet unit in bytes.
    pub mpu: u16,
    /// Rate in bytes per second (saturated at `u32::MAX`; see `TCA_TBF_RATE64`).
    pub rate: u32,
}

impl RateSpec {
    fn write(&self, out: &mut [u8]) {
        out[0] = self.cell_log;
        out[1] = self.linklayer;
        out[2..4].copy_from_slice(&self.overhead.to_ne_bytes());
        out[4..6].copy_from_slice(&self.cell_align.to_ne_bytes());
        out[6..8].copy_from_slice(&self.mpu.to_ne_bytes());
        out[8..12].copy_from_slice(&self.rate.to_ne_bytes());
    }

    fn read(b: &[u8; 12]) -> RateSpec {
        RateSpec {
            cell_log: b[0],
            linklayer: b[1],
            overhead: u16::from_ne_bytes([b[2], b[3]]),
            cell_align: i16::from_ne_bytes([b[4], b[5]]),
            mpu: u16::from_ne_bytes([b[6], b[7]]),
            rate: u32::from_ne_bytes([b[8], b[9], b[10], b[11]]),
        }
    }
}

/// The kernel's `struct tc_tbf_qopt` (36 bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TbfQopt {
    /// Token rate.
    pub rate: RateSpec,
    /// Peak rate (zero: none).
    pub peakrate: RateSpec,
    /// Queue limit in bytes.
    pub limit: u32,
    /// Bucket size as a time in scheduler ticks.
    pub buffer: u32,
    /// Peak-rate bucket as a time in ticks.
    pub mtu: u32,
}

impl TbfQopt {
    /// Size of the struct on the wire.
    pub const LEN: usize = 36;

    /// The struct in native byte order.
    pub fn to_bytes(&self) -> [u8; 36] {
        let mut b = [0u8; 36];
        self.rate.write(&mut b[0..12]);
        self.peakrate.write(&mut b[12..24]);
        b[24..28].copy_from_slice(&self.limit.to_ne_bytes());
        b[28..32].copy_from_slice(&self.buffer.to_ne_bytes());
        b[32..36].copy_from_slice(&self.mtu.to_ne_bytes());
        b
    }

    /// Reads the struct; `None` when fewer than 36 bytes are given.
    pub fn from_bytes(b: &[u8]) -> Option<TbfQopt> {
        let b: &[u8; 36] = b.get(..Self::LEN)?.try_into().ok()?;
        let u32_at = |i: usize| u32::from_ne_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Some(TbfQopt {
            rate: RateSpec::read(b[0..12].try_into().ok()?),
            peakrate: RateSpec::read(b[12..24].try_into().ok()?),
            limit: u32_at(24),
            buffer: u32_at(28),
            mtu: u32_at(32),
        })
    }
}

/// The tick conversion factors of a kernel (`/proc/net/psched`), used the
/// way iproute2's `tc_core_init` uses them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Psched {
    /// Ticks → microseconds numerator (`t2us`).
    pub t2us: u32,
    /// Microseconds → ticks (`us2t`).
    pub us2t: u32,
    /// Clock resolution field.
    pub clock_res: u32,
}

impl Psched {
    /// What every kernel since 2.6.31 reports (`000003e8 00000040 000f4240`):
    /// a tick is 64 ns, so 15.625 ticks per microsecond.
    pub const MODERN: Psched = Psched {
        t2us: 1000,
        us2t: 64,
        clock_res: 1_000_000,
    };

    /// Parses the text of `/proc/net/psched`.
    pub fn parse(text: &str) -> Result<Psched, ModelError> {
        let f: Vec<u32> = text
            .split_whitespace()
            .take(3)
            .map(|w| u32::from_str_radix(w, 16))
            .collect::<Result<_, _>>()
            .map_err(|e| ModelError::decode("/proc/net/psched", e.to_string()))?;
        match f[..] {
            [t2us, us2t, clock_res] if us2t != 0 && t2us != 0 => Ok(Psched {
                t2us,
                us2t,
                clock_res,
            }),
            _ => Err(ModelError::decode(
                "/proc/net/psched",
                format!("expected 3 non-zero hex fields, got {text:?}"),
            )),
        }
    }

    /// Ticks per microsecond, as `tc_core_init` computes it.
    pub fn ticks_per_usec(&self) -> f64 {
        let t2us = if self.clock_res == 1_000_000_000 {
            self.us2t
        } else {
            self.t2us
        };
        let clock_factor = self.clock_res as f64 / 1e6;
        t2us as f64 / self.us2t as f64 * clock_factor
    }

    /// `tc_calc_xmittime`: ticks needed to send `size` bytes at `rate_bytes` B/s.
    pub fn xmit_ticks(&self, rate_bytes: u64, size: u32) -> u32 {
        if rate_bytes == 0 {
            return 0;
        }
        let usec = (1e6 * (size as f64 / rate_bytes as f64)) as u32;
        (usec as f64 * self.ticks_per_usec()) as u32
    }

    /// `tc_core_tick2time`: ticks → whole microseconds.
    pub fn ticks_to_usec(&self, ticks: u32) -> u32 {
        (ticks as f64 / self.ticks_per_usec()) as u32
    }

    /// `tc_calc_xmitsize`: bytes sent at `rate_bytes` B/s during `ticks`.
    pub fn xmit_size(&self, rate_bytes: u64, ticks: u32) -> u32 {
        (rate_bytes as f64 * self.ticks_to_usec(ticks) as f64 / 1e6) as u32
    }
}

impl Default for Psched {
    fn default() -> Self {
        Psched::MODERN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_tbf_parses() {
        assert_eq!(
            Tbf::parse("rate 5mbit burst 16kb limit 64kb").unwrap(),
            Tbf::spec_default()
        );
        assert_eq!(
            Tbf::parse("tbf rate 5mbit burst 16kb limit 64kb").unwrap(),
            Tbf::spec_default()
        );
        assert_eq!(
            Tbf::spec_default().to_string(),
            "tbf rate 5mbit burst 16kb limit 64kb"
        );
        assert!(matches!(
            Tbf::parse("rate 5mbit burst 16kb"),
            Err(ModelError::MissingParameter("limit"))
        ));
        assert!(Tbf::parse("rate 5mbit burst 16kb limit 64kb peakrate 1mbit").is_err());
        assert!(Tbf::parse("rate 5mbit burst 0 limit 64kb").is_err());
    }

    #[test]
    fn psched_matches_host_and_tc_arithmetic() {
        let p = Psched::parse("000003e8 00000040 000f4240 3b9aca00\n").unwrap();
        assert_eq!(p, Psched::MODERN);
        assert_eq!(p.ticks_per_usec(), 15.625);
        // tc sends buffer 409593 for 5mbit/16kb (captured with strace).
        assert_eq!(p.xmit_ticks(625_000, 16384), 409_593);
        // The kernel dumps 409600 (it recomputes from TCA_TBF_BURST);
        // tc shows that as 16383 bytes ("16Kb").
        assert_eq!(p.xmit_size(625_000, 409_600), 16_383);
        assert!(Psched::parse("garbage").is_err());
        assert!(Psched::parse("").is_err());
    }

    #[test]
    fn qopt_round_trips() {
        let q = TbfQopt {
            rate: RateSpec {
                cell_log: 3,
                linklayer: 1,
                overhead: 0,
                cell_align: -1,
                mpu: 0,
                rate: 625_000,
            },
            limit: 65536,
            buffer: 409_593,
            ..TbfQopt::default()
        };
        assert_eq!(TbfQopt::from_bytes(&q.to_bytes()), Some(q));
        assert_eq!(TbfQopt::from_bytes(&[0; 35]), None);
    }
}
