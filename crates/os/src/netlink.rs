//! The one netlink socket of the workspace, with one policy for sequence
//! numbers, timeouts and errors.
//!
//! A socket lives in the network namespace of the thread that opened it
//! (for its whole life, whatever thread uses it later): open it inside a
//! namespace (e.g. in `Netns::run`) to talk to that namespace's kernel
//! state. Requests are plain bytes built elsewhere (one whole netlink
//! message); the socket stamps its own sequence number and the flags its
//! wait needs into a copy, sends it, and reads answers with that sequence
//! number only (stale answers of an earlier, timed-out request are
//! skipped). Every wait is bounded: each `recv` by [`RECV_TIMEOUT`], a
//! whole answer by the socket's deadline ([`NETLINK_DEADLINE`] unless
//! changed) and [`MAX_DATAGRAMS`] datagrams. A refusal carries the errno,
//! its name and the kernel's extended-ack text.
//!
//! ```no_run
//! use netlab_os::netlink::{NetlinkSocket, Protocol};
//! # fn request_bytes() -> Vec<u8> { Vec::new() }
//! let sock = NetlinkSocket::open(Protocol::Route, "netns nl-7f3a-1-r")?;
//! sock.ack(&request_bytes(), "adding qdisc 1: root tbf on r1")?;
//! let dump = sock.dump(&request_bytes(), "RTM_GETQDISC dump")?;
//! for msg in netlab_os::wire::Messages::new(&dump) {
//!     let _msg = msg?;
//! }
//! # Ok::<(), netlab_os::SysError>(())
//! ```

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use netlink_sys::{protocols, Socket, SocketAddr};
use nix::sys::socket::{setsockopt, sockopt};
use nix::sys::time::TimeVal;

use crate::errno::errno_name;
use crate::wire::{
    self, ErrorMessage, Message, Messages, NLMSG_DONE, NLMSG_ERROR, NLM_F_ACK, NLM_F_DUMP,
    NLM_F_REQUEST,
};
use crate::SysError;

/// How long one `recv` may block before the deadline is checked again.
pub const RECV_TIMEOUT: Duration = Duration::from_millis(200);
/// How long an ACK or a whole dump may take, unless changed with
/// [`NetlinkSocket::with_deadline`].
pub const NETLINK_DEADLINE: Duration = Duration::from_secs(5);
/// Most datagrams read for one answer.
pub const MAX_DATAGRAMS: usize = 10_000;
/// Receive buffer: larger than any datagram the kernel sends (dump skbs
/// are at most 32 KiB); a longer one is reported, not cut.
const RECV_BUF: usize = 64 * 1024;

/// The netlink family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `NETLINK_ROUTE` (links, addresses, routes, qdiscs).
    Route,
    /// `NETLINK_SOCK_DIAG` (`ss`'s socket dumps).
    SockDiag,
    /// `NETLINK_GENERIC` (ethtool's family, resolved by name).
    Generic,
}

impl Protocol {
    fn number(self) -> isize {
        match self {
            Protocol::Route => protocols::NETLINK_ROUTE,
            Protocol::SockDiag => protocols::NETLINK_SOCK_DIAG,
            Protocol::Generic => protocols::NETLINK_GENERIC,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Protocol::Route => "NETLINK_ROUTE",
            Protocol::SockDiag => "NETLINK_SOCK_DIAG",
            Protocol::Generic => "NETLINK_GENERIC",
        }
    }
}

/// A netlink socket bound to the namespace it was opened in. Usable from
/// any thread; one request is in flight at a time (a second caller waits).
#[derive(Debug)]
pub struct NetlinkSocket {
    sock: Socket,
    protocol: Protocol,
    label: String,
    seq: AtomicU32,
    deadline: Duration,
    /// The receive buffer; held for a whole request/answer exchange.
    exchange: Mutex<Vec<u8>>,
}

// "Usable from any thread": the build fails if the socket stops being
// `Send + Sync`.
const _: fn() = || {
    fn shared_between_threads<T: Send + Sync>() {}
    shared_between_threads::<NetlinkSocket>();
};

impl NetlinkSocket {
    /// Opens a socket of `protocol` in the calling thread's network
    /// namespace. `label` says where it lives (e.g. `netns nl-7f3a-1-r`)
    /// and is added to every error.
    pub fn open(protocol: Protocol, label: impl Into<String>) -> Result<NetlinkSocket, SysError> {
        let label = label.into();
        let at = |what: &str| format!("{what} ({} socket{})", protocol.name(), in_label(&label));
        let mut sock = Socket::new(protocol.number())
            .map_err(|e| SysError::io(at("socket(AF_NETLINK)"), e))?;
        sock.bind_auto()
            .map_err(|e| SysError::io(at("binding the netlink socket"), e))?;
        sock.connect(&SocketAddr::new(0, 0))
            .map_err(|e| SysError::io(at("connecting the netlink socket to the kernel"), e))?;
        // Extended acks carry the kernel's reason, capped acks keep them
        // short. Best effort: older kernels lack them and still answer.
        let _ = sock.set_ext_ack(true);
        let _ = sock.set_cap_ack(true);
        let tv = TimeVal::new(0, RECV_TIMEOUT.as_micros() as _);
        setsockopt(&sock, sockopt::ReceiveTimeout, &tv)
            .map_err(|e| SysError::io(at("setting SO_RCVTIMEO"), e))?;
        Ok(NetlinkSocket {
            sock,
            protocol,
            label,
            seq: AtomicU32::new(1),
            deadline: NETLINK_DEADLINE,
            exchange: Mutex::new(vec![0; RECV_BUF]),
        })
    }

    /// The same socket with another bound on a whole answer.
    pub fn with_deadline(mut self, deadline: Duration) -> NetlinkSocket {
        self.deadline = deadline;
        self
    }

    /// The bound on a whole answer.
    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// The netlink family.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Where the socket lives, as given to [`NetlinkSocket::open`].
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Sends `request` (one whole netlink message; its sequence number is
    /// replaced and `NLM_F_REQUEST | NLM_F_ACK` set) and waits for its ACK.
    /// A refusal is [`SysError::Refused`]; `what` names the request in
    /// every error.
    pub fn ack(&self, request: &[u8], what: &str) -> Result<(), SysError> {
        let what = self.describe(what);
        let mut exchange = self.lock();
        let seq = self.send(request, NLM_F_REQUEST | NLM_F_ACK, &what)?;
        let deadline = Instant::now() + self.deadline;
        for _ in 0..MAX_DATAGRAMS {
            let n = self.recv(&mut exchange, deadline, &what)?;
            for msg in Messages::new(&exchange[..n]) {
                let msg = msg?;
                if msg.seq() != seq || msg.kind() != NLMSG_ERROR {
                    continue;
                }
                let err = ErrorMessage::new_checked(&msg)?;
                if err.is_ack() {
                    return Ok(());
                }
                return Err(refused(what, &err));
            }
        }
        Err(self.too_many(&what))
    }

    /// Sends `request` (one whole netlink message, a `GET` of one object;
    /// its sequence number is replaced and `NLM_F_REQUEST | NLM_F_ACK`
    /// set) and returns the messages of the answer that came before its
    /// ACK, each padded to 4 bytes (walk them with [`Messages`]). A
    /// refusal is [`SysError::Refused`].
    pub fn get(&self, request: &[u8], what: &str) -> Result<Vec<u8>, SysError> {
        let what = self.describe(what);
        let mut exchange = self.lock();
        let seq = self.send(request, NLM_F_REQUEST | NLM_F_ACK, &what)?;
        let deadline = Instant::now() + self.deadline;
        let mut out = Vec::new();
        for _ in 0..MAX_DATAGRAMS {
            let n = self.recv(&mut exchange, deadline, &what)?;
            for msg in Messages::new(&exchange[..n]) {
                let msg = msg?;
                if msg.seq() != seq {
                    continue;
                }
                if msg.kind() != NLMSG_ERROR {
                    append(&mut out, &msg);
                    continue;
                }
                let err = ErrorMessage::new_checked(&msg)?;
                if err.is_ack() {
                    return Ok(out);
                }
                return Err(refused(what, &err));
            }
        }
        Err(self.too_many(&what))
    }

    /// Sends the dump `request` (one whole netlink message; its sequence
    /// number is replaced and `NLM_F_REQUEST | NLM_F_DUMP` set) and returns
    /// every message of the answer, `NLMSG_DONE` included, each padded to 4
    /// bytes (walk them with [`Messages`]). An `NLMSG_ERROR` in the answer,
    /// or a negative code in `NLMSG_DONE`, is [`SysError::Refused`].
    pub fn dump(&self, request: &[u8], what: &str) -> Result<Vec<u8>, SysError> {
        let what = self.describe(what);
        let mut exchange = self.lock();
        let seq = self.send(request, NLM_F_REQUEST | NLM_F_DUMP, &what)?;
        let deadline = Instant::now() + self.deadline;
        let mut out = Vec::new();
        for _ in 0..MAX_DATAGRAMS {
            let n = self.recv(&mut exchange, deadline, &what)?;
            for msg in Messages::new(&exchange[..n]) {
                let msg = msg?;
                if msg.seq() != seq {
                    continue;
                }
                match msg.kind() {
                    NLMSG_ERROR => {
                        let err = ErrorMessage::new_checked(&msg)?;
                        if !err.is_ack() {
                            return Err(refused(what, &err));
                        }
                    }
                    NLMSG_DONE => {
                        if let Some(code) = done_code(&msg) {
                            if code < 0 {
                                return Err(SysError::Refused {
                                    errno: -code,
                                    errno_name: errno_name(-code),
                                    kernel_message: None,
                                    what,
                                });
                            }
                        }
                        append(&mut out, &msg);
                        return Ok(out);
                    }
                    _ => append(&mut out, &msg),
                }
            }
        }
        Err(self.too_many(&what))
    }

    fn describe(&self, what: &str) -> String {
        format!("{what}{}", in_label(&self.label))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.exchange.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Copies `request`, stamps a fresh sequence number and `flags`, sends.
    fn send(&self, request: &[u8], flags: u16, what: &str) -> Result<u32, SysError> {
        let msg = Message::new_checked(request)?;
        let mut bytes = msg.bytes().to_vec();
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        wire::stamp(&mut bytes, seq, flags);
        let sent = self
            .sock
            .send(&bytes, 0)
            .map_err(|e| SysError::io(format!("sending {what}"), e))?;
        if sent != bytes.len() {
            return Err(SysError::io(
                format!("sending {what}"),
                io::Error::new(io::ErrorKind::WriteZero, "short netlink send"),
            ));
        }
        Ok(seq)
    }

    /// Receives one datagram into `buf` before `deadline`; its length.
    fn recv(&self, buf: &mut [u8], deadline: Instant, what: &str) -> Result<usize, SysError> {
        loop {
            let mut slice = &mut buf[..];
            match self.sock.recv(&mut slice, nix::libc::MSG_TRUNC) {
                Ok(n) if n > buf.len() => {
                    return Err(SysError::malformed(
                        format!("the answer to {what}"),
                        format!(
                            "datagram of {n} bytes exceeds the {} byte buffer",
                            buf.len()
                        ),
                    ))
                }
                Ok(n) => return Ok(n),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) =>
                {
                    if Instant::now() >= deadline {
                        return Err(SysError::Timeout {
                            what: what.to_owned(),
                            after: self.deadline,
                        });
                    }
                }
                Err(e) => return Err(SysError::io(format!("receiving the answer to {what}"), e)),
            }
        }
    }

    fn too_many(&self, what: &str) -> SysError {
        SysError::malformed(
            format!("the answer to {what}"),
            format!("no end after {MAX_DATAGRAMS} datagrams"),
        )
    }
}

fn in_label(label: &str) -> String {
    if label.is_empty() {
        String::new()
    } else {
        format!(" in {label}")
    }
}

fn refused(what: String, err: &ErrorMessage<'_>) -> SysError {
    SysError::Refused {
        errno: err.errno(),
        errno_name: errno_name(err.errno()),
        kernel_message: err.kernel_message(),
        what,
    }
}

/// The `int` a `NLMSG_DONE` may carry (negative: the dump failed).
fn done_code(msg: &Message<'_>) -> Option<i32> {
    let b = msg.payload().get(..4)?;
    Some(i32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
}

fn append(out: &mut Vec<u8>, msg: &Message<'_>) {
    out.extend_from_slice(msg.bytes());
    out.resize(wire::align4(out.len()), 0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::NLMSG_HDRLEN;

    /// `RTM_GETLINK` dump request: header + 16-byte ifinfomsg.
    fn getlink() -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&32u32.to_ne_bytes());
        b.extend_from_slice(&18u16.to_ne_bytes());
        b.extend_from_slice(&0u16.to_ne_bytes());
        b.extend_from_slice(&0u32.to_ne_bytes());
        b.extend_from_slice(&0u32.to_ne_bytes());
        b.extend_from_slice(&[0; 16]);
        b
    }

    /// Unprivileged: the generic-netlink controller answers a GET of one
    /// family (`nlctrl`, always present) with its message, then the ACK;
    /// an unknown family is refused with ENOENT.
    #[test]
    fn get_returns_the_answer_before_the_ack() {
        let family = |name: &str| {
            let mut b = Vec::new();
            let attr_len = 4 + name.len() + 1;
            let len = NLMSG_HDRLEN + 4 + wire::align4(attr_len);
            b.extend_from_slice(&(len as u32).to_ne_bytes());
            b.extend_from_slice(&0x10u16.to_ne_bytes()); // GENL_ID_CTRL
            b.extend_from_slice(&[0; 10]);
            b.extend_from_slice(&[3, 1, 0, 0]); // CTRL_CMD_GETFAMILY
            b.extend_from_slice(&(attr_len as u16).to_ne_bytes());
            b.extend_from_slice(&2u16.to_ne_bytes()); // CTRL_ATTR_FAMILY_NAME
            b.extend_from_slice(name.as_bytes());
            b.resize(len, 0);
            b
        };
        let sock = NetlinkSocket::open(Protocol::Generic, "").unwrap();
        let answer = sock
            .get(&family("nlctrl"), "CTRL_CMD_GETFAMILY nlctrl")
            .unwrap();
        let msgs: Vec<Message<'_>> = Messages::new(&answer).collect::<Result<_, _>>().unwrap();
        assert_eq!(msgs.len(), 1);
        assert_eq!(msgs[0].kind(), 0x10);
        assert_eq!(msgs[0].payload()[0], 1, "CTRL_CMD_NEWFAMILY");
        let e = sock
            .get(&family("no-such-family"), "CTRL_CMD_GETFAMILY")
            .unwrap_err();
        assert_eq!(e.errno(), Some(2), "{e}");
    }

    /// Unprivileged: any process may dump its own namespace's links and
    /// is refused a bogus request with an errno.
    #[test]
    fn dump_ends_with_done_and_a_bad_request_is_refused() {
        let sock = NetlinkSocket::open(Protocol::Route, "").unwrap();
        let dump = sock.dump(&getlink(), "RTM_GETLINK dump").unwrap();
        let msgs: Vec<Message<'_>> = Messages::new(&dump).collect::<Result<_, _>>().unwrap();
        assert_eq!(msgs.last().map(Message::kind), Some(NLMSG_DONE));
        assert!(msgs.iter().any(|m| m.kind() == 16), "at least lo");
        // a second dump on the same socket gets a new sequence number
        let again = sock.dump(&getlink(), "RTM_GETLINK dump").unwrap();
        let first = Message::new_checked(&dump).unwrap().seq();
        assert_ne!(Message::new_checked(&again).unwrap().seq(), first);
        // message type 0x7fff does not exist: refused, never a hang
        let mut bogus = getlink();
        bogus[4..6].copy_from_slice(&0x7fffu16.to_ne_bytes());
        let e = sock.ack(&bogus, "a bogus request").unwrap_err();
        assert!(matches!(e, SysError::Refused { .. }), "{e}");
        assert!(
            e.to_string().starts_with("a bogus request: kernel refused"),
            "{e}"
        );
        // not a whole message: refused before sending
        assert!(matches!(
            sock.ack(&getlink()[..NLMSG_HDRLEN - 1], "x"),
            Err(SysError::Malformed { .. })
        ));
    }
}
