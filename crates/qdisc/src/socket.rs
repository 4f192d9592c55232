//! The I/O edge: netlab-os's netlink socket opened inside a namespace,
//! sending built requests and collecting qdisc dumps (bounded waits and
//! extended-ack text come from [`NetlinkSocket`]); a refusal becomes this
//! crate's error, a missing kind [`QdiscError::KindUnavailable`].

use netlab_os::{NetlinkSocket, Protocol, SysError};
use netlab_topology::netns::Netns;

use crate::QdiscError;
use netlab_qdisc_model::Readback;
use netlab_qdisc_model::{delete_request_bytes, dump_request_bytes, QdiscRequest};
use netlab_qdisc_model::{Handle, Psched};

/// An rtnetlink socket that lives in one namespace (it was opened there),
/// usable from any thread.
#[derive(Debug)]
pub struct QdiscSocket {
    sock: NetlinkSocket,
    netns: String,
}

impl QdiscSocket {
    /// Opens a socket inside `ns`.
    pub fn open_in(ns: &Netns) -> Result<QdiscSocket, QdiscError> {
        let label = format!("netns {}", ns.name());
        let sock = ns
            .run(|| NetlinkSocket::open(Protocol::Route, label.as_str()))
            .map_err(|source| QdiscError::Netns {
                step: format!("opening an rtnetlink socket in netns {}", ns.name()),
                source,
            })??;
        Ok(QdiscSocket {
            sock,
            netns: ns.name().to_string(),
        })
    }

    /// Opens a socket in the calling thread's current namespace (for code
    /// that already runs inside one, e.g. a guest kernel's init namespace).
    pub fn open_here(label: &str) -> Result<QdiscSocket, QdiscError> {
        Ok(QdiscSocket {
            sock: NetlinkSocket::open(Protocol::Route, label)?,
            netns: label.to_string(),
        })
    }

    /// The namespace name this socket belongs to.
    pub fn netns(&self) -> &str {
        &self.netns
    }

    /// Sends `req` and waits for its ACK. A refusal names the request (its
    /// tc line) and the errno; a missing qdisc kind becomes
    /// [`QdiscError::KindUnavailable`].
    pub fn apply(&self, req: &QdiscRequest) -> Result<(), QdiscError> {
        let what = req.tc_command();
        match self.sock.ack(&req.bytes(), &what) {
            Ok(()) => Ok(()),
            Err(SysError::Refused {
                errno,
                kernel_message,
                ..
            }) => Err(refusal(req, errno, kernel_message)),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes the qdisc at `parent` (e.g. [`Handle::ROOT`]) of `ifindex`
    /// and waits for the ACK.
    pub fn delete(&self, ifindex: u32, parent: Handle) -> Result<(), QdiscError> {
        let what = format!("tc qdisc del dev #{ifindex} {parent}");
        match self
            .sock
            .ack(&delete_request_bytes(ifindex, parent, 0), &what)
        {
            Ok(()) => Ok(()),
            Err(SysError::Refused {
                errno,
                errno_name,
                kernel_message,
                ..
            }) => Err(QdiscError::Refused {
                request: what,
                errno,
                errno_name,
                kernel_message,
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// Dumps all qdiscs of this namespace (RTM_GETQDISC): every message of
    /// the answer, concatenated (each padded to 4 bytes), up to and
    /// including `NLMSG_DONE`.
    pub fn dump_raw(&self) -> Result<Vec<u8>, QdiscError> {
        Ok(self.sock.dump(&dump_request_bytes(), "qdisc dump")?)
    }

    /// Dumps and decodes the qdiscs of `ifindex`. `taken_at_s` is the time
    /// the caller assigns to this readback (seconds from its origin).
    pub fn readback(
        &self,
        ifindex: u32,
        taken_at_s: Option<f64>,
        psched: &Psched,
    ) -> Result<Readback, QdiscError> {
        let raw = self.dump_raw()?;
        Ok(Readback::from_dump(&raw, ifindex, taken_at_s, psched)?)
    }
}

/// The refusal of `req`: [`QdiscError::KindUnavailable`] when the kernel
/// says the kind is unknown (or, without extended-ack text, answers
/// ENOENT / EOPNOTSUPP), [`QdiscError::Refused`] otherwise.
fn refusal(req: &QdiscRequest, errno: i32, kernel_message: Option<String>) -> QdiscError {
    let unknown_kind = match &kernel_message {
        Some(m) => m.contains("kind is unknown"),
        None => errno == nix::libc::ENOENT || errno == nix::libc::EOPNOTSUPP,
    };
    if unknown_kind {
        return QdiscError::KindUnavailable {
            kind: req.kind.clone(),
            release: release_or_unknown(),
            module: netlab_qdisc_model::module_for_kind(&req.kind),
            note: netlab_qdisc_model::absent_from_pinned_guest(&req.kind).map(str::to_string),
        };
    }
    QdiscError::Refused {
        request: req.tc_command(),
        errno,
        errno_name: netlab_os::errno_name(errno),
        kernel_message,
    }
}

/// The running kernel's release for a refusal's message.
pub(crate) fn release_or_unknown() -> String {
    netlab_os::kernel_release().unwrap_or_else(|| "unknown release".to_string())
}

/// The running kernel's tick factors (`/proc/net/psched`); the modern
/// constants when the file cannot be read.
pub fn read_psched() -> Psched {
    netlab_os::proc::psched_text()
        .ok()
        .and_then(|t| Psched::parse(&t).ok())
        .unwrap_or(Psched::MODERN)
}

/// The index of interface `dev` inside `ns`.
pub fn ifindex_in(ns: &Netns, dev: &str) -> Result<u32, QdiscError> {
    let found = ns
        .run(|| netlab_os::ifindex(dev))
        .map_err(|source| QdiscError::Netns {
            step: format!("resolving {dev} in netns {}", ns.name()),
            source,
        })?;
    found.map_err(|e| match e {
        SysError::NoSuchInterface { .. } => QdiscError::NoSuchInterface {
            dev: dev.to_string(),
            netns: ns.name().to_string(),
        },
        e => e.into(),
    })
}

/// Sends `req` inside `ns` (on a fresh socket) and checks the ACK.
pub fn apply(ns: &Netns, req: &QdiscRequest) -> Result<(), QdiscError> {
    QdiscSocket::open_in(ns)?.apply(req)
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_qdisc_model::{Arm, Handle};

    fn pie_request() -> QdiscRequest {
        let arm = Arm::parse("pie").unwrap();
        netlab_qdisc_model::arm_request("lo", 1, Handle::new(1, 0), Handle::ROOT, &arm, 1).unwrap()
    }

    #[test]
    fn unknown_kind_text_or_a_bare_enoent_is_kind_unavailable() {
        let req = pie_request();
        let text = Some("Specified qdisc kind is unknown".to_string());
        assert!(matches!(
            refusal(&req, nix::libc::ENOENT, text),
            QdiscError::KindUnavailable { ref kind, .. } if kind == "pie"
        ));
        for errno in [nix::libc::ENOENT, nix::libc::EOPNOTSUPP] {
            assert!(matches!(
                refusal(&req, errno, None),
                QdiscError::KindUnavailable { .. }
            ));
        }
        // other text, or another errno: a refusal naming the tc line
        let e = refusal(&req, nix::libc::ENOENT, Some("Invalid handle".into()));
        assert_eq!(e.errno(), Some(nix::libc::ENOENT));
        assert!(
            e.to_string()
                .starts_with("tc qdisc add dev lo root handle 1: pie: kernel answered ENOENT"),
            "{e}"
        );
        let e = refusal(&req, nix::libc::EINVAL, None);
        assert!(matches!(e, QdiscError::Refused { errno: 22, .. }), "{e}");
    }
}
