//! Qdisc handles as tc writes them (`1:`, `1:1`, `10:`, `root`).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ModelError;

/// A 32-bit `major:minor` qdisc/class handle; tc writes both halves in hex.
/// Serializes as tc's text (`"1:"`, `"root"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Handle(pub u32);

impl Serialize for Handle {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Handle {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Handle, D::Error> {
        let text = String::deserialize(d)?;
        Handle::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl Handle {
    /// `TC_H_ROOT`.
    pub const ROOT: Handle = Handle(0xFFFF_FFFF);
    /// `TC_H_INGRESS` (also clsact).
    pub const INGRESS: Handle = Handle(0xFFFF_FFF1);
    /// `TC_H_UNSPEC`.
    pub const UNSPEC: Handle = Handle(0);

    /// A handle from its halves.
    pub const fn new(major: u16, minor: u16) -> Handle {
        Handle(((major as u32) << 16) | minor as u32)
    }

    /// Major half.
    pub fn major(self) -> u16 {
        (self.0 >> 16) as u16
    }

    /// Minor half.
    pub fn minor(self) -> u16 {
        self.0 as u16
    }

    /// A qdisc's handle as tc prints it: `major:` in hex, even for 0
    /// (`noqueue` shows as `0:`).
    pub fn qdisc_text(self) -> String {
        format!("{:x}:", self.major())
    }

    /// Parses `1:`, `1:1`, `10:`, `ffff:`, `root`, `ingress`, `none`.
    pub fn parse(text: &str) -> Result<Handle, ModelError> {
        match text {
            "root" => return Ok(Handle::ROOT),
            "ingress" | "clsact" => return Ok(Handle::INGRESS),
            "none" => return Ok(Handle::UNSPEC),
            _ => {}
        }
        let bad = |r: &str| ModelError::bad("handle", text, r.to_string());
        let (maj, min) = text
            .split_once(':')
            .ok_or_else(|| bad("expected major:minor in hex, e.g. 1:"))?;
        let half = |s: &str| -> Result<u16, ModelError> {
            if s.is_empty() {
                Ok(0)
            } else {
                u16::from_str_radix(s, 16).map_err(|_| bad("each half is a 16-bit hex number"))
            }
        };
        Ok(Handle::new(half(maj)?, half(min)?))
    }
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Handle::ROOT => f.write_str("root"),
            Handle::INGRESS => f.write_str("ingress"),
            Handle::UNSPEC => f.write_str("none"),
            h if h.major() == 0 => write!(f, ":{:x}", h.minor()),
            h if h.minor() == 0 => write!(f, "{:x}:", h.major()),
            h => write!(f, "{:x}:{:x}", h.major(), h.minor()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_print_like_tc() {
        assert_eq!(Handle::parse("1:").unwrap(), Handle(0x0001_0000));
        assert_eq!(Handle::parse("1:1").unwrap(), Handle(0x0001_0001));
        assert_eq!(Handle::parse("10:").unwrap(), Handle(0x0010_0000));
        assert_eq!(Handle::parse("root").unwrap(), Handle::ROOT);
        for s in ["1:", "1:1", "10:", "root", "ingress", "8001:", "none", ":5"] {
            assert_eq!(Handle::parse(s).unwrap().to_string(), s);
        }
        assert!(Handle::parse("10").is_err());
        assert_eq!(
            serde_json::to_string(&Handle::new(1, 1)).unwrap(),
            "\"1:1\""
        );
        assert_eq!(
            serde_json::from_str::<Handle>("\"root\"").unwrap(),
            Handle::ROOT
        );
        assert!(Handle::parse("g:").is_err());
    }
}

/// Serde for a qdisc's own handle: written as [`Handle::qdisc_text`]
/// (`10:`, `0:`), read back with [`Handle::parse`].
pub(crate) mod qdisc_handle {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::Handle;

    pub fn serialize<S: Serializer>(h: &Handle, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&h.qdisc_text())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Handle, D::Error> {
        let text = String::deserialize(d)?;
        Handle::parse(&text).map_err(serde::de::Error::custom)
    }
}
