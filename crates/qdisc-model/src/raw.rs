//! An attribute of a dump kept as its bytes (hex) beside its typed
//! readback: the one helper the decoder and every arm's decoder share,
//! below both.

use netlab_netlink_views::Attr;
use serde::{Deserialize, Serialize};

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
        kind: a.kind(),
        hex: hex::encode(a.value()),
    }
}
