//! The I/O edge: an rtnetlink socket made inside a namespace, sending
//! built requests, checking ACKs and collecting dumps. Every wait is
//! bounded by a receive timeout and a deadline.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use netlab_topology::netns::Netns;
use netlink_sys::{protocols::NETLINK_ROUTE, Socket};
use nix::sys::socket::{setsockopt, sockopt};
use nix::sys::time::TimeVal;

use crate::readback::Readback;
use crate::request::QdiscRequest;
use crate::wire::{self, NLMSG_DONE, NLMSG_ERROR, NLMSG_HDRLEN, RTM_GETQDISC};
use crate::{Psched, QdiscError};

/// How long one `recv` may block.
const RECV_TIMEOUT: Duration = Duration::from_millis(500);
/// How long an ACK or a whole dump may take.
const ANSWER_DEADLINE: Duration = Duration::from_secs(5);
const NLM_F_REQUEST: u16 = 1;
const NLM_F_DUMP: u16 = 0x300;
const NLM_F_CAPPED: u16 = 0x100;
const NLM_F_ACK_TLVS: u16 = 0x200;
const NLMSGERR_ATTR_MSG: u16 = 1;

/// An rtnetlink socket that lives in one namespace (it was created there),
/// usable from any thread.
#[derive(Debug)]
pub struct QdiscSocket {
    sock: Socket,
    netns: String,
    seq: AtomicU32,
}

impl QdiscSocket {
    /// Opens a socket inside `ns`.
    pub fn open_in(ns: &Netns) -> Result<QdiscSocket, QdiscError> {
        let sock = ns.run(open_socket).map_err(|source| QdiscError::Netns {
            step: format!("opening an rtnetlink socket in netns {}", ns.name()),
            source,
        })??;
        Ok(QdiscSocket {
            sock,
            netns: ns.name().to_string(),
            seq: AtomicU32::new(1000),
        })
    }

    /// Opens a socket in the calling thread's current namespace (for code
    /// that already runs inside one, e.g. a guest kernel's init namespace).
    pub fn open_here(label: &str) -> Result<QdiscSocket, QdiscError> {
        Ok(QdiscSocket {
            sock: open_socket()?,
            netns: label.to_string(),
            seq: AtomicU32::new(1000),
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
        let bytes = req.bytes();
        let seq = wire::u32_at(&bytes, 8).unwrap_or(0);
        match self.transact(&bytes, seq, &req.tc_command())? {
            None => Ok(()),
            Some((errno, msg)) => Err(refusal(req, errno, msg)),
        }
    }

    /// Sends raw request bytes that ask for an ACK; returns the kernel's
    /// `(errno, extack message)` on refusal.
    pub(crate) fn transact(
        &self,
        bytes: &[u8],
        seq: u32,
        what: &str,
    ) -> Result<Option<(i32, Option<String>)>, QdiscError> {
        self.sock
            .send(bytes, 0)
            .map_err(|e| QdiscError::io(format!("sending {what} in netns {}", self.netns), e))?;
        let deadline = Instant::now() + ANSWER_DEADLINE;
        loop {
            let buf = self.recv(deadline, what)?;
            for msg in wire::messages(&buf) {
                let msg = msg?;
                if msg.ty == NLMSG_ERROR && msg.seq == seq {
                    let errno = wire::u32_at(msg.payload, 0)
                        .map(|e| (e as i32).saturating_neg())
                        .ok_or_else(|| QdiscError::decode("NLMSG_ERROR", "shorter than 4 bytes"))?;
                    if errno == 0 {
                        return Ok(None);
                    }
                    return Ok(Some((errno, extack_message(msg.flags, msg.payload))));
                }
            }
        }
    }

    /// Dumps all qdiscs of this namespace (RTM_GETQDISC): the raw
    /// datagrams, concatenated, up to and including `NLMSG_DONE`.
    pub fn dump_raw(&self) -> Result<Vec<u8>, QdiscError> {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let mut req = Vec::with_capacity(NLMSG_HDRLEN + 20);
        req.extend_from_slice(&((NLMSG_HDRLEN + 20) as u32).to_ne_bytes());
        req.extend_from_slice(&RTM_GETQDISC.to_ne_bytes());
        req.extend_from_slice(&(NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
        req.extend_from_slice(&seq.to_ne_bytes());
        req.extend_from_slice(&0u32.to_ne_bytes());
        req.extend_from_slice(&[0u8; 20]);
        let what = format!("qdisc dump in netns {}", self.netns);
        self.sock
            .send(&req, 0)
            .map_err(|e| QdiscError::io(format!("sending {what}"), e))?;
        let deadline = Instant::now() + ANSWER_DEADLINE;
        let mut out = Vec::new();
        loop {
            let buf = self.recv(deadline, &what)?;
            let mut done = false;
            for msg in wire::messages(&buf) {
                let msg = msg?;
                if msg.seq != seq {
                    continue;
                }
                if msg.ty == NLMSG_DONE {
                    done = true;
                }
                if msg.ty == NLMSG_ERROR {
                    let errno = wire::u32_at(msg.payload, 0)
                        .map(|e| (e as i32).saturating_neg())
                        .unwrap_or(0);
                    return Err(QdiscError::Refused {
                        request: what,
                        errno,
                        errno_name: errno_name(errno),
                        kernel_message: extack_message(msg.flags, msg.payload),
                    });
                }
                out.extend_from_slice(msg.raw);
                let pad = msg.raw.len().next_multiple_of(4) - msg.raw.len();
                out.resize(out.len() + pad, 0);
            }
            if done {
                return Ok(out);
            }
        }
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
        Readback::from_dump(&raw, ifindex, taken_at_s, psched)
    }

    fn recv(&self, deadline: Instant, what: &str) -> Result<Vec<u8>, QdiscError> {
        loop {
            let mut buf: Vec<u8> = Vec::with_capacity(256 * 1024);
            match self.sock.recv(&mut buf, 0) {
                Ok(_) => return Ok(buf),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) =>
                {
                    if Instant::now() >= deadline {
                        return Err(QdiscError::Timeout {
                            what: format!("the kernel's answer to {what} in netns {}", self.netns),
                            millis: ANSWER_DEADLINE.as_millis() as u64,
                        });
                    }
                }
                Err(e) => {
                    return Err(QdiscError::io(
                        format!("receiving the answer to {what} in netns {}", self.netns),
                        e,
                    ))
                }
            }
        }
    }
}

fn open_socket() -> Result<Socket, QdiscError> {
    let mut sock = Socket::new(NETLINK_ROUTE)
        .map_err(|e| QdiscError::io("socket(AF_NETLINK, NETLINK_ROUTE)", e))?;
    sock.bind_auto()
        .map_err(|e| QdiscError::io("binding the rtnetlink socket", e))?;
    // Extended acks give the kernel's reason; capped acks keep them short.
    // Both are best effort: old kernels lack them and still answer.
    let _ = sock.set_ext_ack(true);
    let _ = sock.set_cap_ack(true);
    let tv = TimeVal::new(0, RECV_TIMEOUT.as_micros() as _);
    setsockopt(&sock, sockopt::ReceiveTimeout, &tv)
        .map_err(|e| QdiscError::io("setting SO_RCVTIMEO on the rtnetlink socket", e))?;
    Ok(sock)
}

/// The extended-ack text of an `NLMSG_ERROR` payload, if present.
fn extack_message(flags: u16, payload: &[u8]) -> Option<String> {
    if flags & NLM_F_ACK_TLVS == 0 {
        return None;
    }
    let inner_len = if flags & NLM_F_CAPPED != 0 {
        NLMSG_HDRLEN
    } else {
        wire::u32_at(payload, 4)? as usize
    };
    let tlvs = payload.get(4 + inner_len.next_multiple_of(4)..)?;
    wire::attrs(tlvs, "extack")
        .filter_map(Result::ok)
        .find(|a| a.kind == NLMSGERR_ATTR_MSG)
        .map(|a| {
            let s = a.value.split(|&b| b == 0).next().unwrap_or(&[]);
            String::from_utf8_lossy(s).into_owned()
        })
}

fn refusal(req: &QdiscRequest, errno: i32, kernel_message: Option<String>) -> QdiscError {
    let unknown_kind = match &kernel_message {
        Some(m) => m.contains("kind is unknown"),
        None => errno == nix::libc::ENOENT || errno == nix::libc::EOPNOTSUPP,
    };
    if unknown_kind {
        return QdiscError::KindUnavailable {
            kind: req.kind.clone(),
            release: kernel_release(),
            module: crate::arm::module_for_kind(&req.kind),
        };
    }
    QdiscError::Refused {
        request: req.tc_command(),
        errno,
        errno_name: errno_name(errno),
        kernel_message,
    }
}

/// `ENOENT` for 2, and so on.
pub(crate) fn errno_name(errno: i32) -> String {
    format!("{:?}", nix::errno::Errno::from_raw(errno))
}

/// The running kernel's release (`/proc/sys/kernel/osrelease`).
pub fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown release".to_string())
}

/// The running kernel's tick factors (`/proc/net/psched`); the modern
/// constants when the file cannot be read.
pub fn read_psched() -> Psched {
    std::fs::read_to_string("/proc/net/psched")
        .ok()
        .and_then(|t| Psched::parse(&t).ok())
        .unwrap_or(Psched::MODERN)
}

/// The index of interface `dev` inside `ns`.
pub fn ifindex_in(ns: &Netns, dev: &str) -> Result<u32, QdiscError> {
    let r = ns
        .run(|| nix::net::if_::if_nametoindex(dev))
        .map_err(|source| QdiscError::Netns {
            step: format!("resolving {dev} in netns {}", ns.name()),
            source,
        })?;
    r.map_err(|_| QdiscError::NoSuchInterface {
        dev: dev.to_string(),
        netns: ns.name().to_string(),
    })
}

/// Sends `req` inside `ns` (on a fresh socket) and checks the ACK.
pub fn apply(ns: &Netns, req: &QdiscRequest) -> Result<(), QdiscError> {
    QdiscSocket::open_in(ns)?.apply(req)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extack_text_is_found_after_a_capped_header() {
        let mut p = Vec::new();
        p.extend_from_slice(&(-2i32).to_ne_bytes());
        p.extend_from_slice(&[0u8; 16]);
        let msg = b"Specified qdisc kind is unknown\0";
        p.extend_from_slice(&((4 + msg.len()) as u16).to_ne_bytes());
        p.extend_from_slice(&1u16.to_ne_bytes());
        p.extend_from_slice(msg);
        assert_eq!(
            extack_message(NLM_F_CAPPED | NLM_F_ACK_TLVS, &p).as_deref(),
            Some("Specified qdisc kind is unknown")
        );
        assert_eq!(extack_message(0, &p), None);
        assert_eq!(errno_name(2), "ENOENT");
    }
}
