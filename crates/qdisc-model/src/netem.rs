//! netem as the path's base delay (not an arm): a fixed one-way delay, with
//! optional jitter and random loss, placed at the root of R's egress so the
//! bottleneck (TBF + arm) hangs below it and netem never holds the measured
//! queue: a packet waits its delay in netem's time-sorted queue, then enters
//! the TBF child, where the arm under test queues it.
//!
//! Encoding as iproute2's `q_netem.c` does it: `TCA_OPTIONS` carries
//! `struct tc_netem_qopt` (latency and jitter in psched ticks, limit, loss as
//! a fraction of 2³²) followed by attributes in the same payload (not
//! `NLA_F_NESTED`): `TCA_NETEM_LATENCY64` / `TCA_NETEM_JITTER64` in
//! nanoseconds, which the kernel prefers over the tick fields.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::units::format_time;
use crate::{Handle, ModelError, Psched, QdiscRequest};

/// Kind string.
pub const KIND: &str = "netem";
/// `sizeof(struct tc_netem_qopt)`.
pub const QOPT_LEN: usize = 24;
/// `TCA_NETEM_LATENCY64` (s64 ns).
pub const TCA_NETEM_LATENCY64: u16 = 10;
/// `TCA_NETEM_JITTER64` (s64 ns).
pub const TCA_NETEM_JITTER64: u16 = 11;
/// A queue limit far above anything the delay holds (packets), so netem
/// itself never drops: 1 Gbit/s × 10 s of 1500-byte packets is ~833 000.
pub const NEVER_DROPS_LIMIT: u32 = 1_000_000;

/// The delay element of one direction.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Netem {
    /// One-way delay.
    #[serde(with = "nanos")]
    pub delay: Duration,
    /// Jitter around the delay (uniform, as netem without a distribution).
    #[serde(with = "nanos")]
    pub jitter: Duration,
    /// Random loss, percent.
    pub loss_percent: f64,
    /// Queue limit, packets.
    pub limit: u32,
}

mod nanos {
    use std::time::Duration;

    pub fn serialize<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_nanos() as u64)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let ns = <u64 as serde::Deserialize>::deserialize(d)?;
        Ok(Duration::from_nanos(ns))
    }
}

impl Netem {
    /// A plain delay with the never-drops limit.
    pub fn delay(delay: Duration) -> Netem {
        Netem {
            delay,
            jitter: Duration::ZERO,
            loss_percent: 0.0,
            limit: NEVER_DROPS_LIMIT,
        }
    }

    /// Checks what the kernel's structures can hold.
    pub fn validate(&self) -> Result<(), ModelError> {
        if !(0.0..=100.0).contains(&self.loss_percent) {
            return Err(ModelError::bad(
                "netem loss",
                format!("{}%", self.loss_percent),
                "must be between 0 and 100",
            ));
        }
        if self.jitter > self.delay {
            return Err(ModelError::bad(
                "netem jitter",
                format_time(self.jitter),
                "must not exceed the delay",
            ));
        }
        if self.delay > Duration::from_secs(60) {
            return Err(ModelError::bad(
                "netem delay",
                format_time(self.delay),
                "at most 60s",
            ));
        }
        if self.limit == 0 {
            return Err(ModelError::bad("netem limit", "0", "must be positive"));
        }
        Ok(())
    }

    /// The tc words after `netem`: `limit 1000000 delay 25ms [jitter] [loss 1%]`.
    pub fn tc_words(&self) -> Vec<String> {
        let mut w = vec![
            "limit".to_string(),
            self.limit.to_string(),
            "delay".to_string(),
            format_time(self.delay),
        ];
        if !self.jitter.is_zero() {
            w.push(format_time(self.jitter));
        }
        if self.loss_percent > 0.0 {
            w.push("loss".to_string());
            w.push(format!("{}%", self.loss_percent));
        }
        w
    }

    /// The `TCA_OPTIONS` payload: the qopt struct, then the 64-bit delays.
    pub fn options_bytes(&self, psched: &Psched) -> Result<Vec<u8>, ModelError> {
        self.validate()?;
        let ticks = |d: Duration| -> u32 {
            let t = d.as_micros() as f64 * psched.ticks_per_usec();
            if t >= u32::MAX as f64 {
                u32::MAX
            } else {
                t as u32
            }
        };
        let loss = (self.loss_percent / 100.0 * u32::MAX as f64).round() as u32;
        let mut out = Vec::with_capacity(QOPT_LEN + 24);
        for v in [
            ticks(self.delay),
            self.limit,
            loss,
            0,
            0,
            ticks(self.jitter),
        ] {
            out.extend_from_slice(&v.to_ne_bytes());
        }
        let mut attr = |kind: u16, ns: i64| {
            out.extend_from_slice(&12u16.to_ne_bytes());
            out.extend_from_slice(&kind.to_ne_bytes());
            out.extend_from_slice(&ns.to_ne_bytes());
        };
        attr(TCA_NETEM_LATENCY64, self.delay.as_nanos() as i64);
        if !self.jitter.is_zero() {
            attr(TCA_NETEM_JITTER64, self.jitter.as_nanos() as i64);
        }
        Ok(out)
    }
}

/// `tc qdisc add dev <dev> <parent> handle <handle> netem limit .. delay ..`:
/// the request as a plain value (bytes as hex and the tc line), like
/// [`crate::tbf_request`]. The path's delay sits at `root handle 1:` and the
/// bottleneck's TBF hangs below it (`parent 1:1`).
pub fn netem_request(
    dev: &str,
    ifindex: u32,
    handle: Handle,
    parent: Handle,
    netem: &Netem,
    psched: &Psched,
    seq: u32,
) -> Result<QdiscRequest, ModelError> {
    // TCA_OPTIONS carries the qopt struct followed by flat attributes.
    crate::request::build(
        dev,
        ifindex,
        handle,
        parent,
        KIND,
        crate::arm::OptionsPayload::Raw(netem.options_bytes(psched)?),
        netem.tc_words(),
        seq,
    )
}

/// What the kernel kept, decoded from a netem `TCA_OPTIONS` payload.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NetemReadback {
    /// Delay in ns (`TCA_NETEM_LATENCY64` when present, else the ticks).
    pub delay_ns: u64,
    /// Jitter in ns.
    pub jitter_ns: u64,
    /// Queue limit, packets.
    pub limit: u32,
    /// Loss, percent.
    pub loss_percent: f64,
}

/// Decodes a netem `TCA_OPTIONS` payload; `None` when it is shorter than the
/// qopt struct.
pub fn decode_options(payload: &[u8], psched: &Psched) -> Option<NetemReadback> {
    let field = |i: usize| -> Option<u32> {
        payload
            .get(i * 4..i * 4 + 4)
            .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
    };
    if payload.len() < QOPT_LEN {
        return None;
    }
    let from_ticks = |t: u32| (t as f64 / psched.ticks_per_usec() * 1000.0) as u64;
    let mut rb = NetemReadback {
        delay_ns: from_ticks(field(0)?),
        limit: field(1)?,
        loss_percent: field(2)? as f64 / u32::MAX as f64 * 100.0,
        jitter_ns: from_ticks(field(5)?),
    };
    let mut rest = &payload[QOPT_LEN..];
    while rest.len() >= 4 {
        let len = u16::from_ne_bytes([rest[0], rest[1]]) as usize;
        let kind = u16::from_ne_bytes([rest[2], rest[3]]) & 0x3fff;
        if len < 4 || len > rest.len() {
            break;
        }
        let value = &rest[4..len];
        if value.len() == 8 {
            let mut b = [0u8; 8];
            b.copy_from_slice(value);
            let ns = i64::from_ne_bytes(b).max(0) as u64;
            match kind {
                TCA_NETEM_LATENCY64 => rb.delay_ns = ns,
                TCA_NETEM_JITTER64 => rb.jitter_ns = ns,
                _ => {}
            }
        }
        let aligned = (len + 3) & !3;
        rest = rest.get(aligned..).unwrap_or(&[]);
    }
    Some(rb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_round_trip_through_the_decoder() {
        let n = Netem {
            delay: Duration::from_millis(25),
            jitter: Duration::from_millis(2),
            loss_percent: 1.0,
            limit: NEVER_DROPS_LIMIT,
        };
        let bytes = n.options_bytes(&Psched::MODERN).unwrap();
        assert_eq!(bytes.len(), QOPT_LEN + 12 + 12);
        // 25 ms = 25 000 us × 15.625 ticks/us.
        assert_eq!(&bytes[0..4], &390_625u32.to_ne_bytes());
        let rb = decode_options(&bytes, &Psched::MODERN).unwrap();
        assert_eq!(rb.delay_ns, 25_000_000);
        assert_eq!(rb.jitter_ns, 2_000_000);
        assert_eq!(rb.limit, NEVER_DROPS_LIMIT);
        assert!((rb.loss_percent - 1.0).abs() < 1e-6);
        assert_eq!(
            n.tc_words().join(" "),
            "limit 1000000 delay 25ms 2ms loss 1%"
        );
    }

    #[test]
    fn plain_delay_has_no_jitter_attribute_and_refuses_nonsense() {
        let n = Netem::delay(Duration::from_millis(10));
        assert_eq!(
            n.options_bytes(&Psched::MODERN).unwrap().len(),
            QOPT_LEN + 12
        );
        let mut bad = n;
        bad.loss_percent = 101.0;
        assert!(bad.options_bytes(&Psched::MODERN).is_err());
        let mut bad = n;
        bad.jitter = Duration::from_millis(20);
        assert!(bad.validate().is_err());
        assert!(decode_options(&[0u8; 10], &Psched::MODERN).is_none());
    }

    #[test]
    fn the_request_is_a_root_netem_with_a_pasteable_line() {
        let n = Netem::delay(Duration::from_millis(25));
        let r = netem_request(
            "r1",
            3,
            Handle::new(1, 0),
            Handle::ROOT,
            &n,
            &Psched::MODERN,
            1,
        )
        .unwrap();
        assert_eq!(
            r.tc_command(),
            "tc qdisc add dev r1 root handle 1: netem limit 1000000 delay 25ms"
        );
        let bytes = r.bytes();
        // The options payload is carried verbatim at the end of the message.
        let opts = n.options_bytes(&Psched::MODERN).unwrap();
        assert!(bytes.windows(opts.len()).any(|w| w == opts.as_slice()));
        assert_eq!(
            u32::from_ne_bytes(bytes[0..4].try_into().unwrap()) as usize,
            bytes.len()
        );
    }
}
