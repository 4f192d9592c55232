//! Checked views over netlink bytes: messages and attributes. Every length
//! is checked before it is used, so garbage yields an error, never a panic.

use serde::{Deserialize, Serialize};

use crate::{hex, QdiscError};

/// An attribute kept as bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawAttr {
    /// Attribute type.
    pub kind: u16,
    /// Value, hex.
    pub hex: String,
}

/// `a` kept as bytes.
pub(crate) fn raw_attr(a: &Attr<'_>) -> RawAttr {
    RawAttr {
        kind: a.kind,
        hex: hex::encode(a.value),
    }
}

/// `NLMSG_ERROR`.
pub(crate) const NLMSG_ERROR: u16 = 2;
/// `NLMSG_DONE`.
pub(crate) const NLMSG_DONE: u16 = 3;
/// `RTM_NEWQDISC`.
pub(crate) const RTM_NEWQDISC: u16 = 36;
/// `RTM_GETQDISC`.
pub(crate) const RTM_GETQDISC: u16 = 38;
/// Netlink message header length.
pub(crate) const NLMSG_HDRLEN: usize = 16;

const NLA_TYPE_MASK: u16 = !(0x8000 | 0x4000);

/// One netlink message inside a datagram.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NlMsg<'a> {
    pub ty: u16,
    pub flags: u16,
    pub seq: u32,
    /// Everything after the 16-byte header, up to `nlmsg_len`.
    pub payload: &'a [u8],
    /// The whole message, header included (without trailing padding).
    pub raw: &'a [u8],
}

fn u16_at(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(i..i + 2)?.try_into().ok()?))
}

pub(crate) fn u32_at(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(i..i + 4)?.try_into().ok()?))
}

pub(crate) fn u64_at(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_ne_bytes(b.get(i..i + 8)?.try_into().ok()?))
}

fn align4(n: usize) -> usize {
    n.saturating_add(3) & !3
}

/// Splits a datagram (or several concatenated) into messages.
pub(crate) fn messages(buf: &[u8]) -> impl Iterator<Item = Result<NlMsg<'_>, QdiscError>> {
    let mut rest = buf;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let parsed = (|| {
            if rest.len() < NLMSG_HDRLEN {
                return Err(QdiscError::decode(
                    "netlink message header",
                    format!("{} bytes left, need {NLMSG_HDRLEN}", rest.len()),
                ));
            }
            let len = u32_at(rest, 0).unwrap_or(0) as usize;
            if len < NLMSG_HDRLEN || len > rest.len() {
                return Err(QdiscError::decode(
                    "netlink message header",
                    format!("nlmsg_len {len} outside 16..={}", rest.len()),
                ));
            }
            let msg = NlMsg {
                ty: u16_at(rest, 4).unwrap_or(0),
                flags: u16_at(rest, 6).unwrap_or(0),
                seq: u32_at(rest, 8).unwrap_or(0),
                payload: &rest[NLMSG_HDRLEN..len],
                raw: &rest[..len],
            };
            let next = align4(len).min(rest.len());
            Ok((msg, next))
        })();
        match parsed {
            Ok((msg, next)) => {
                rest = &rest[next..];
                Some(Ok(msg))
            }
            Err(e) => {
                rest = &[];
                Some(Err(e))
            }
        }
    })
}

/// One attribute: type (flags masked off) and value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attr<'a> {
    pub kind: u16,
    pub value: &'a [u8],
    /// The whole attribute, header included (without trailing padding).
    pub raw: &'a [u8],
}

impl<'a> Attr<'a> {
    pub(crate) fn u32(&self, what: &str) -> Result<u32, QdiscError> {
        u32_at(self.value, 0).ok_or_else(|| self.short(what, 4))
    }

    pub(crate) fn u64(&self, what: &str) -> Result<u64, QdiscError> {
        u64_at(self.value, 0).ok_or_else(|| self.short(what, 8))
    }

    pub(crate) fn i32(&self, what: &str) -> Result<i32, QdiscError> {
        Ok(self.u32(what)? as i32)
    }

    pub(crate) fn u8(&self, what: &str) -> Result<u8, QdiscError> {
        self.value
            .first()
            .copied()
            .ok_or_else(|| self.short(what, 1))
    }

    pub(crate) fn short(&self, what: &str, need: usize) -> QdiscError {
        QdiscError::decode(what, format!("{} bytes, need {need}", self.value.len()))
    }
}

/// Iterates the attributes packed in `buf`; `what` names the container
/// in errors.
pub(crate) fn attrs<'a>(
    buf: &'a [u8],
    what: &'a str,
) -> impl Iterator<Item = Result<Attr<'a>, QdiscError>> + 'a {
    let mut rest = buf;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if rest.len() < 4 {
            let e = QdiscError::decode(
                what,
                format!("{} stray bytes after the last attribute", rest.len()),
            );
            rest = &[];
            return Some(Err(e));
        }
        let len = u16_at(rest, 0).unwrap_or(0) as usize;
        let kind = u16_at(rest, 2).unwrap_or(0) & NLA_TYPE_MASK;
        if len < 4 || len > rest.len() {
            let e = QdiscError::decode(
                what,
                format!(
                    "attribute type {kind} has length {len} outside 4..={}",
                    rest.len()
                ),
            );
            rest = &[];
            return Some(Err(e));
        }
        let attr = Attr {
            kind,
            value: &rest[4..len],
            raw: &rest[..len],
        };
        rest = &rest[align4(len).min(rest.len())..];
        Some(Ok(attr))
    })
}

/// Collects all attributes or the first error.
pub(crate) fn collect_attrs<'a>(buf: &'a [u8], what: &'a str) -> Result<Vec<Attr<'a>>, QdiscError> {
    attrs(buf, what).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attrs_reject_bad_lengths() {
        assert!(collect_attrs(&[8, 0, 1, 0, 1, 2, 3, 4], "x").is_ok());
        assert!(collect_attrs(&[9, 0, 1, 0, 1, 2, 3, 4], "x").is_err());
        assert!(collect_attrs(&[3, 0, 1, 0], "x").is_err());
        assert!(collect_attrs(&[8, 0, 1], "x").is_err());
        // Last attribute without trailing padding is fine.
        let a = collect_attrs(&[5, 0, 1, 0, 7], "x").unwrap();
        assert_eq!(a[0].value, &[7]);
    }

    #[test]
    fn messages_reject_bad_lengths() {
        let mut m = vec![0u8; 20];
        m[0] = 20;
        m[4] = 3;
        assert_eq!(messages(&m).count(), 1);
        m[0] = 21;
        assert!(messages(&m).next().unwrap().is_err());
        m[0] = 4;
        assert!(messages(&m).next().unwrap().is_err());
    }
}
