//! netlab-netlink-views: the pure byte-level pieces under netlab's netlink code, as
//! netlink-packet-core is under netlink-sys: no socket, no syscall.
//!
//! Checked views over netlink bytes, in the style of smoltcp's `wire`:
//! a length check once, in `new_checked`, and accessors that cannot fail
//! (or panic) afterwards. Walkers split a buffer into messages
//! ([`Messages`]) and a message body into attributes ([`Attrs`], nested
//! attributes through [`Attr::nested`]). Garbage yields an error, never a
//! panic; a walker stops after its first error. Every failure is one
//! [`WireError`].
//!
//! `netlab-os` re-exports this crate as `netlab_os::wire` beside the
//! socket that sends and receives the bytes.
//!
//! ```
//! use netlab_netlink_views::{Attrs, Messages, NLMSG_DONE};
//! // one NLMSG_DONE message, as the kernel ends a dump
//! let mut buf = Vec::new();
//! buf.extend_from_slice(&20u32.to_ne_bytes());
//! buf.extend_from_slice(&NLMSG_DONE.to_ne_bytes());
//! buf.extend_from_slice(&[0; 14]); // flags, seq, port, the DONE code
//! let msgs: Vec<_> = Messages::new(&buf).collect::<Result<_, _>>()?;
//! assert_eq!(msgs[0].kind(), NLMSG_DONE);
//! assert_eq!(Attrs::new(&[5, 0, 1, 0, 7]).next().unwrap()?.value(), &[7]);
//! assert_eq!(msgs[0].bytes().len(), 20);
//! # Ok::<(), netlab_netlink_views::WireError>(())
//! ```
#![forbid(unsafe_code)]

mod views;

pub use views::*;

/// Bytes or text that do not have the expected shape: what was being
/// parsed and what was wrong with it (`netlink attribute: length 3 is
/// shorter than its 4-byte header`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}: {reason}")]
pub struct WireError {
    /// What was being parsed, e.g. `netlink attribute`.
    pub what: String,
    /// What was wrong.
    pub reason: String,
}

impl WireError {
    /// A parse error of `what`.
    pub fn new(what: impl Into<String>, reason: impl Into<String>) -> Self {
        WireError {
            what: what.into(),
            reason: reason.into(),
        }
    }
}
