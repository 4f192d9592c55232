//! Non-blocking UDP echo responder, driven by somebody else's `poll` loop
//! (netlab-os's `event_loop` through an [`EchoHandler`]).

use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::ops::ControlFlow;
use std::os::fd::{AsFd, BorrowedFd};

use netlab_os::event_loop::Handler;

use crate::clock::monotonic_ns;
pub use crate::record::{EchoReceipt, EchoStats};
use crate::wire;
use crate::ProbeError;

/// Largest datagram payload we can receive (IPv4 UDP maximum is 65 507 B);
/// a 64 KiB buffer means no datagram is ever truncated before it is echoed.
const RECV_BUF: usize = 65_536;

/// Upper bound on datagrams echoed by one [`EchoResponder::drain`] call, so a
/// flood cannot starve the other sockets of the same poll loop. The socket is
/// level-triggered readable again if more are pending.
pub const MAX_DRAIN_PER_CALL: usize = 1024;

/// Most receipts one [`EchoResponder`] logs (16 bytes each, 4 MiB): the
/// stop-and-wait probe sends at most 100 requests, the isochronous probe
/// 1000 a second at its densest; beyond it receipts are only counted.
pub const MAX_RECEIPTS: usize = 262_144;

/// The sequence number a probe datagram carries: a valid stamped request's
/// seq, or the stop-and-wait probe's 4 bytes (with zero padding when that
/// probe is sized up, [`wire::write_plain`]); None for anything else.
pub fn probe_seq(datagram: &[u8]) -> Option<u32> {
    if datagram.len() >= wire::STAMPED_LEN {
        if let Ok(p) = wire::Stamped::new_checked(datagram) {
            return (p.kind() == wire::Kind::Request).then(|| p.seq());
        }
    }
    wire::parse_plain(datagram)
}

/// Non-blocking UDP echo for one poll loop: register [`EchoResponder::as_fd`]
/// for `POLLIN`, call [`EchoResponder::drain`] when it is readable.
///
/// Every datagram is sent back to the address it came from: byte for byte
/// (the stop-and-wait probe's requests, and anything else), except a valid
/// stamped request of the isochronous probe ([`crate::wire`]), which is
/// answered with a stamped reply of the same length carrying B's
/// CLOCK_MONOTONIC receive time (read right after `recvfrom`) and send time
/// (read right before `sendto`).
/// `drain` never blocks: the socket is non-blocking and each call stops at
/// `WouldBlock` or after [`MAX_DRAIN_PER_CALL`] datagrams.
#[derive(Debug)]
pub struct EchoResponder {
    sock: UdpSocket,
    buf: Vec<u8>,
    stats: EchoStats,
    receipts: Vec<EchoReceipt>,
    receipts_not_logged: u64,
}

impl EchoResponder {
    /// Binds a UDP socket on `addr` (in the caller's current network
    /// namespace) and makes it non-blocking.
    pub fn bind(addr: SocketAddr) -> Result<Self, ProbeError> {
        let sock = UdpSocket::bind(addr).map_err(|source| ProbeError::Bind { addr, source })?;
        Self::from_socket(sock)
    }

    /// Wraps an existing (bound) socket, e.g. one created inside a namespace
    /// with `Netns::run`, and makes it non-blocking.
    pub fn from_socket(sock: UdpSocket) -> Result<Self, ProbeError> {
        sock.set_nonblocking(true)
            .map_err(|source| ProbeError::Socket {
                what: "set_nonblocking(true) on echo socket",
                source,
            })?;
        Ok(Self {
            sock,
            buf: vec![0; RECV_BUF],
            stats: EchoStats::default(),
            receipts: Vec::new(),
            receipts_not_logged: 0,
        })
    }

    /// The address the responder is bound to.
    pub fn local_addr(&self) -> Result<SocketAddr, ProbeError> {
        self.sock.local_addr().map_err(|source| ProbeError::Socket {
            what: "getsockname on echo socket",
            source,
        })
    }

    /// The socket's file descriptor, to register for `POLLIN`.
    pub fn as_fd(&self) -> BorrowedFd<'_> {
        self.sock.as_fd()
    }

    /// Echoes every pending datagram (at most [`MAX_DRAIN_PER_CALL`]) and
    /// returns how many were echoed in this call. Never blocks.
    ///
    /// Send failures are counted in [`EchoStats::errors`] and the datagram is
    /// dropped (the probe client will see a timeout, which is the truth).
    /// ICMP-derived `ConnectionRefused`/`ConnectionReset` on receive are
    /// counted and skipped. Any other receive error is returned.
    pub fn drain(&mut self) -> Result<usize, ProbeError> {
        let mut echoed = 0;
        for _ in 0..MAX_DRAIN_PER_CALL {
            let (len, from) = match self.sock.recv_from(&mut self.buf) {
                Ok(v) => v,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::ConnectionRefused | ErrorKind::ConnectionReset
                    ) =>
                {
                    self.stats.errors += 1;
                    continue;
                }
                Err(source) => {
                    return Err(ProbeError::Socket {
                        what: "recvfrom on echo socket",
                        source,
                    })
                }
            };
            let recv_ns = monotonic_ns();
            self.stats.received += 1;
            self.log_receipt(len, recv_ns);
            if len >= wire::STAMPED_LEN && wire::make_reply(&mut self.buf[..len], recv_ns) {
                self.stats.stamped += 1;
                wire::set_b_send(&mut self.buf[..len], monotonic_ns());
            }
            match self.sock.send_to(&self.buf[..len], from) {
                Ok(n) if n == len => {
                    self.stats.echoed += 1;
                    echoed += 1;
                }
                Ok(_) | Err(_) => self.stats.errors += 1,
            }
        }
        Ok(echoed)
    }

    /// Counters so far.
    pub fn stats(&self) -> EchoStats {
        self.stats
    }

    /// Every probe request received so far (seq and receive time), in
    /// receive order, at most [`MAX_RECEIPTS`].
    pub fn receipts(&self) -> &[EchoReceipt] {
        &self.receipts
    }

    /// Probe requests received past [`MAX_RECEIPTS`], counted only.
    pub fn receipts_not_logged(&self) -> u64 {
        self.receipts_not_logged
    }

    fn log_receipt(&mut self, len: usize, recv_ns: u64) {
        if let Some(seq) = probe_seq(&self.buf[..len]) {
            if self.receipts.len() < MAX_RECEIPTS {
                self.receipts.push(EchoReceipt { seq, recv_ns });
            } else {
                self.receipts_not_logged += 1;
            }
        }
    }

    /// Gives the socket back (still non-blocking).
    pub fn into_socket(self) -> UdpSocket {
        self.sock
    }
}

impl AsFd for EchoResponder {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.sock.as_fd()
    }
}

/// An [`EchoResponder`] as a handler of B's event loop (`netlab_os::event_loop`):
/// the stop-and-wait probe's echo and the isochronous probe's echo (its own
/// port) are each one of these. When readable it drains the socket; on a
/// receive error that is not transient it keeps the error and the counters,
/// closes the socket and is not polled again (the probe then sees timeouts),
/// while the loop goes on serving the others.
#[derive(Debug)]
pub struct EchoHandler {
    responder: Option<EchoResponder>,
    addr: Option<SocketAddr>,
    stats: EchoStats,
    error: Option<String>,
    receipts: Vec<EchoReceipt>,
    receipts_not_logged: u64,
}

/// What one [`EchoHandler`] served, for B's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EchoOutcome {
    /// The address it was bound to (None if it could not be read).
    pub addr: Option<SocketAddr>,
    /// Its counters, up to the end or to its error.
    pub stats: EchoStats,
    /// The error that stopped it, if one did.
    pub error: Option<String>,
    /// Every probe request it received (seq, receive time), in order.
    pub receipts: Vec<EchoReceipt>,
    /// Probe requests received past [`MAX_RECEIPTS`], counted only.
    pub receipts_not_logged: u64,
}

impl EchoHandler {
    /// Serves `responder` (bound by the caller, in B).
    pub fn new(responder: EchoResponder) -> Self {
        EchoHandler {
            addr: responder.local_addr().ok(),
            stats: responder.stats(),
            responder: Some(responder),
            error: None,
            receipts: Vec::new(),
            receipts_not_logged: 0,
        }
    }

    /// The bound address.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.addr
    }

    /// Closes the socket (if still open) and gives what it served.
    pub fn finish(mut self) -> EchoOutcome {
        if let Some(r) = self.responder.take() {
            self.keep(r);
        }
        EchoOutcome {
            addr: self.addr,
            stats: self.stats,
            error: self.error,
            receipts: self.receipts,
            receipts_not_logged: self.receipts_not_logged,
        }
    }

    /// Keeps what a closing responder served.
    fn keep(&mut self, r: EchoResponder) {
        self.stats = r.stats;
        self.receipts = r.receipts;
        self.receipts_not_logged = r.receipts_not_logged;
    }
}

impl Handler for EchoHandler {
    fn fds<'a>(&'a self, fds: &mut Vec<BorrowedFd<'a>>) {
        if let Some(r) = &self.responder {
            fds.push(r.as_fd());
        }
    }

    fn ready(&mut self, readable: &[bool]) -> ControlFlow<()> {
        if readable.first() == Some(&true) {
            if let Some(r) = self.responder.as_mut() {
                if let Err(e) = r.drain() {
                    self.error = Some(e.to_string());
                    if let Some(r) = self.responder.take() {
                        self.keep(r);
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn probe_seq_reads_both_probes_requests_only() {
        assert_eq!(probe_seq(&[0, 0, 1, 2]), Some(258));
        assert_eq!(probe_seq(&wire::request(9, 1)), Some(9));
        let mut reply = wire::request(9, 1);
        assert!(wire::make_reply(&mut reply, 2));
        assert_eq!(probe_seq(&reply), None, "a reply is not a request");
        assert_eq!(probe_seq(&[1, 2, 3]), None);
        let mut padded = [0u8; 300];
        assert!(wire::write_request(&mut padded, 11, 1));
        assert_eq!(probe_seq(&padded), Some(11), "a padded stamped request");
        assert!(wire::write_plain(&mut padded, 12));
        assert_eq!(probe_seq(&padded), Some(12), "a padded plain request");
        padded[299] = 1;
        assert_eq!(probe_seq(&padded), None, "neither: padding not zero");
    }

    #[test]
    fn drain_on_empty_socket_returns_zero_without_blocking() {
        let mut r = EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let t = std::time::Instant::now();
        assert_eq!(r.drain().unwrap(), 0);
        assert!(t.elapsed() < Duration::from_millis(100));
        assert_eq!(r.stats(), EchoStats::default());
    }

    #[test]
    fn stamps_only_valid_stamped_requests_and_echoes_the_rest_unchanged() {
        let mut r = EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let c = UdpSocket::bind("127.0.0.1:0").unwrap();
        c.connect(r.local_addr().unwrap()).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
        let before = crate::clock::monotonic_ns();
        let req = wire::request(42, 123_456);
        let mut v2 = req;
        v2[4] = 2; // a future version: not ours to stamp
        let spec = 7u32.to_be_bytes();
        for d in [&req[..], &v2[..], &spec[..]] {
            c.send(d).unwrap();
        }
        let mut total = 0;
        for _ in 0..100 {
            total += r.drain().unwrap();
            if total == 3 {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let after = crate::clock::monotonic_ns();
        let mut buf = [0u8; 64];
        let n = c.recv(&mut buf).unwrap();
        let reply = wire::parse_reply(&buf[..n]).expect("a stamped reply");
        assert_eq!((reply.seq, reply.a_send_ns), (42, 123_456));
        assert!(before <= reply.b_recv_ns && reply.b_recv_ns <= reply.b_send_ns);
        assert!(reply.b_send_ns <= after);
        assert_eq!((&buf[..4], buf[5]), (&b"NLIP"[..], 2), "kind is now reply");
        let n = c.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], &v2[..], "unknown version echoed byte for byte");
        let n = c.recv(&mut buf).unwrap();
        assert_eq!(
            &buf[..n],
            &spec[..],
            "the stop-and-wait probe's 4 bytes, unchanged"
        );
        assert_eq!(
            (r.stats().received, r.stats().stamped, r.stats().echoed),
            (3, 1, 3)
        );
        // B's receive log: the stamped request and the 4-byte one, with
        // the receive time the reply carries; the unknown version is not a
        // probe request of ours.
        let seqs: Vec<u32> = r.receipts().iter().map(|x| x.seq).collect();
        assert_eq!(seqs, [42, 7]);
        assert_eq!(r.receipts()[0].recv_ns, reply.b_recv_ns);
        assert!(r.receipts()[1].recv_ns >= r.receipts()[0].recv_ns);
        assert!(r.receipts()[1].recv_ns <= after);
    }

    #[test]
    fn echoes_every_pending_datagram_byte_for_byte() {
        let mut r = EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let c = UdpSocket::bind("127.0.0.1:0").unwrap();
        c.connect(r.local_addr().unwrap()).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
        for i in 0u32..5 {
            c.send(&i.to_be_bytes()).unwrap();
        }
        let big = vec![0xa5u8; 9000];
        c.send(&big).unwrap();
        // loopback delivery is synchronous, but allow for it not to be
        let mut total = 0;
        for _ in 0..100 {
            total += r.drain().unwrap();
            if total == 6 {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(total, 6);
        let mut buf = [0u8; 10000];
        for i in 0u32..5 {
            let n = c.recv(&mut buf).unwrap();
            assert_eq!(&buf[..n], &i.to_be_bytes());
        }
        let n = c.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], &big[..]);
        assert_eq!(
            r.stats(),
            EchoStats {
                received: 6,
                echoed: 6,
                stamped: 0,
                errors: 0
            }
        );
        let json = serde_json::to_string(&r.stats()).unwrap();
        // No stamped request: `stamped` stays out, as in results written
        // before the isochronous probe existed.
        assert_eq!(json, r#"{"received":6,"echoed":6,"errors":0}"#);
    }

    #[test]
    fn handler_echoes_in_an_event_loop_and_reports_its_counters() {
        let r = EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let mut h = EchoHandler::new(r);
        let addr = h.local_addr().unwrap();
        let c = UdpSocket::bind("127.0.0.1:0").unwrap();
        c.connect(addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
        c.send(&[0, 0, 0, 5]).unwrap();
        let end = std::time::Instant::now() + Duration::from_millis(100);
        let ended = netlab_os::event_loop::serve(&mut [&mut h], end, None).unwrap();
        assert!(!ended.aborted);
        let mut buf = [0u8; 8];
        assert_eq!(c.recv(&mut buf).unwrap(), 4);
        assert_eq!(&buf[..4], &[0, 0, 0, 5]);
        let out = h.finish();
        assert_eq!(out.receipts.len(), 1);
        assert_eq!((out.receipts[0].seq, out.receipts_not_logged), (5, 0));
        assert_eq!(out.addr, Some(addr));
        assert_eq!((out.stats.received, out.stats.echoed), (1, 1));
        assert_eq!(out.error, None);
    }
}
