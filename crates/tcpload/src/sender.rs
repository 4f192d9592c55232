//! The TCP load sender (method §4), run in A.
//!
//! Two steps so the sampler can start on the connected flow:
//! [`new_sender_socket`] (inside A's namespace; sets `TCP_CONGESTION` before
//! connect) → [`Sender::connect`] (connects, reads the algorithm back) →
//! [`Sender::flow`] for the sampler → [`Sender::run`] (writes pattern blocks
//! until the lifetime ends or an error).

use std::io::{ErrorKind, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, Socket, Type};

use crate::pattern;
pub use crate::record::{SenderLog, Termination};
use crate::sampler::FlowId;
use crate::TcpLoadError;

/// Sender settings (method §4 defaults via [`SenderConfig::new`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SenderConfig {
    /// Receiver address (B:46020 in the topology).
    pub to: SocketAddr,
    /// Congestion control algorithm to set before connect ("reno").
    pub cc: String,
    /// Bytes per write (128 KiB, as iperf3; any size gives the same stream).
    pub block_size: usize,
    /// `SO_SNDTIMEO` (1 s): the longest a single write may block. A write
    /// that makes no progress for this long is a *send stall*: recorded in
    /// [`SenderLog::send_stalls_s`], then writing resumes (a > 1 s ack
    /// stall is normal for Reno recovering through a 256-packet queue at
    /// 5 Mbit/s, and must not silently end the load).
    pub send_timeout: Duration,
    /// End the sender with [`Termination::Timeout`] after this many
    /// consecutive send stalls; `None` (default): only the lifetime or an
    /// error ends it.
    pub max_consecutive_stalls: Option<u32>,
    /// Lifetime from [`Sender::connect`] being called (17 s); connect time
    /// counts against it.
    pub lifetime: Duration,
    /// Pause between the connect and the first write (0). Counts against
    /// the lifetime.
    pub start_delay: Duration,
    /// Bytes of the stream written *before* the `start_delay` pause (0):
    /// with a pause, a start like iperf3's (a few bytes on the new
    /// connection, an idle gap, then the bulk). The stream is the same.
    pub prime_bytes: usize,
}

impl SenderConfig {
    /// method defaults: reno, 128 KiB blocks, 1 s send timeout, 17 s lifetime.
    pub fn new(to: SocketAddr) -> Self {
        Self {
            to,
            cc: "reno".into(),
            block_size: 128 * 1024,
            send_timeout: Duration::from_secs(1),
            max_consecutive_stalls: None,
            lifetime: Duration::from_secs(17),
            start_delay: Duration::ZERO,
            prime_bytes: 0,
        }
    }

    /// Rejects unusable values with a message naming the field.
    pub fn validate(&self) -> Result<(), TcpLoadError> {
        if self.cc.is_empty() || self.cc.len() >= 16 || self.cc.contains('\0') {
            return Err(TcpLoadError::Config(format!(
                "congestion control name {:?} must be 1..15 bytes without NUL",
                self.cc
            )));
        }
        if self.block_size == 0 {
            return Err(TcpLoadError::Config("block_size must be > 0".into()));
        }
        if self.prime_bytes >= self.block_size {
            return Err(TcpLoadError::Config(format!(
                "prime_bytes ({}) must be below block_size ({})",
                self.prime_bytes, self.block_size
            )));
        }
        if self.send_timeout.is_zero() || self.lifetime.is_zero() {
            return Err(TcpLoadError::Config(
                "send_timeout and lifetime must be > 0".into(),
            ));
        }
        Ok(())
    }
}

/// A TCP socket with `TCP_CONGESTION` already set, bound to its local
/// address and port, not yet connected: its 4-tuple ([`SenderSocket::flow`])
/// is known before the connect, so a sampler can be told the flow without
/// anything between the connect and the first write.
#[derive(Debug)]
pub struct SenderSocket {
    sock: Socket,
    cc: String,
    flow: FlowId,
    /// The pattern's first lap, when [`SenderSocket::prepare_pattern`]
    /// computed it ahead of the connect.
    source: Option<pattern::PatternSource>,
}

impl SenderSocket {
    /// The flow this socket will carry once connected.
    pub fn flow(&self) -> FlowId {
        self.flow
    }

    /// Computes the pattern's first lap (about 1 MiB) for blocks of
    /// `block_size` now, so that [`Sender::connect`] finds it ready: e.g.
    /// before a scenario's t0. Under user-mode Linux a debug build took
    /// ~90 ms a lap, and 24 senders released together computed theirs one
    /// after another on the guest's one CPU, the last 2.2 s after the mark.
    pub fn prepare_pattern(&mut self, block_size: usize) {
        self.source = Some(pattern::PatternSource::prepared(block_size));
    }

    /// Takes `source` (computed once, e.g. by [`PatternSource::prepared`],
    /// and cloned for every sender of a scenario) as its pattern: the
    /// senders then share one lap instead of computing and holding one
    /// each (1 MiB of page faults a flow under user-mode Linux).
    ///
    /// [`PatternSource::prepared`]: pattern::PatternSource::prepared
    pub fn share_pattern(&mut self, source: &pattern::PatternSource) {
        self.source = Some(source.clone());
    }
}

/// The local address the kernel's routes choose for reaching `to`, read
/// from a connected UDP socket (a UDP connect sends nothing).
fn source_for(to: SocketAddr) -> std::io::Result<std::net::IpAddr> {
    let any: SocketAddr = if to.is_ipv4() {
        (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    };
    let probe = std::net::UdpSocket::bind(any)?;
    probe.connect(to)?;
    Ok(probe.local_addr()?.ip())
}

/// Creates the sender's socket in the calling thread's namespace (call it
/// inside A, e.g. `ns.run(|| new_sender_socket("reno", to))`) and sets
/// `TCP_CONGESTION` to `cc` before any connect. Fails, naming `cc`, if the
/// kernel does not offer it.
pub fn new_sender_socket(cc: &str, to: SocketAddr) -> Result<SenderSocket, TcpLoadError> {
    let sock = Socket::new(Domain::for_address(to), Type::STREAM, Some(Protocol::TCP)).map_err(
        |source| TcpLoadError::Io {
            what: "socket(TCP) for sender",
            source,
        },
    )?;
    sock.set_tcp_congestion(cc.as_bytes())
        .map_err(|source| TcpLoadError::Congestion {
            cc: cc.to_owned(),
            source,
        })?;
    // Bound before the connect (the route's source address, an ephemeral
    // port), as `iperf3 --cport` binds, so the 4-tuple is known up front.
    let ip = source_for(to).map_err(|source| TcpLoadError::Io {
        what: "choosing the sender's source address",
        source,
    })?;
    sock.bind(&SocketAddr::new(ip, 0).into())
        .map_err(|source| TcpLoadError::Io {
            what: "bind of the sender socket",
            source,
        })?;
    let local = sock
        .local_addr()
        .ok()
        .and_then(|a| a.as_socket())
        .ok_or_else(|| TcpLoadError::Config("sender socket has no local IP address".into()))?;
    Ok(SenderSocket {
        sock,
        cc: cc.to_owned(),
        flow: FlowId { local, remote: to },
        source: None,
    })
}

/// A connected sender, ready to [`Sender::run`].
#[derive(Debug)]
pub struct Sender {
    stream: TcpStream,
    cfg: SenderConfig,
    flow: FlowId,
    t0: Instant,
    deadline: Instant,
    start_s: f64,
    connect_s: f64,
    cc_readback: String,
    /// The stream's bytes, computed before the connect (see
    /// [`Sender::connect`]).
    source: pattern::PatternSource,
}

fn cc_name(raw: &[u8]) -> String {
    let end = raw.iter().position(|b| *b == 0).unwrap_or(raw.len());
    String::from_utf8_lossy(&raw[..end]).into_owned()
}

impl Sender {
    /// Connects `sock` to `cfg.to` (bounded by the lifetime), reads
    /// `TCP_CONGESTION` back (a mismatch is an error naming both) and
    /// applies the send timeout. The lifetime starts now; times are
    /// recorded relative to `t0`.
    pub fn connect(
        mut sock: SenderSocket,
        cfg: SenderConfig,
        t0: Instant,
    ) -> Result<Self, TcpLoadError> {
        cfg.validate()?;
        if sock.cc != cfg.cc {
            return Err(TcpLoadError::Config(format!(
                "socket was made for {:?} but the config asks for {:?}",
                sock.cc, cfg.cc
            )));
        }
        // The first block is computed before the connect: computing it (a
        // ~1 MiB pattern lap, its pages faulted in) between the connect and
        // the first write held the first data back by 1-6 ms, where a plain
        // bulk sender writes within a fraction of a millisecond; that idle
        // time is B's first receive-RTT sample and steers receive-buffer
        // autotuning, and so pfifo's standing state (method §13.5). A
        // caller that can computes it earlier still
        // ([`SenderSocket::prepare_pattern`]; netlab-run does, before t0).
        let mut source = match sock.source.take() {
            Some(ready) if ready.block() == cfg.block_size.max(1) => ready,
            _ => pattern::PatternSource::new(cfg.block_size),
        };
        source.block_at(0);
        if sock.flow.remote != cfg.to {
            return Err(TcpLoadError::Config(format!(
                "socket was made for {} but the config sends to {}",
                sock.flow.remote, cfg.to
            )));
        }
        // Set before the connect too: after it comes only the readback.
        sock.sock
            .set_write_timeout(Some(cfg.send_timeout))
            .map_err(|source| TcpLoadError::Io {
                what: "SO_SNDTIMEO on sender",
                source,
            })?;
        let start = Instant::now();
        let deadline = start + cfg.lifetime;
        sock.sock
            .connect_timeout(&cfg.to.into(), cfg.lifetime)
            .map_err(|source| TcpLoadError::Connect { to: cfg.to, source })?;
        let connected = Instant::now();
        let raw = sock
            .sock
            .tcp_congestion()
            .map_err(|source| TcpLoadError::Io {
                what: "getsockopt(TCP_CONGESTION)",
                source,
            })?;
        let cc_readback = cc_name(&raw);
        if cc_readback != cfg.cc {
            return Err(TcpLoadError::CongestionMismatch {
                requested: cfg.cc.clone(),
                readback: cc_readback,
            });
        }
        let flow = sock.flow;
        let stream: TcpStream = sock.sock.into();
        let since = |i: Instant| i.saturating_duration_since(t0).as_secs_f64();
        Ok(Self {
            flow,
            start_s: since(start),
            connect_s: since(connected),
            stream,
            cfg,
            t0,
            deadline,
            cc_readback,
            source,
        })
    }

    /// The connected 4-tuple (for the sampler).
    pub fn flow(&self) -> FlowId {
        self.flow
    }

    /// The algorithm read back after connect.
    pub fn cc_readback(&self) -> &str {
        &self.cc_readback
    }

    /// Writes pattern blocks until the lifetime ends or a write fails, then
    /// closes the socket. Each write waits at most `min(send_timeout,
    /// time left)`, so this returns by the deadline plus scheduling slack.
    pub fn run(mut self) -> SenderLog {
        let block = self.cfg.block_size;
        let source = &mut self.source;
        let mut offset: u64 = 0; // stream offset of the current block
        let mut pos = 0usize; // bytes of the current block already accepted
        let mut writes = 0u64;
        let mut stalls = Vec::new();
        let mut consecutive = 0u32;
        let mut current_timeout = self.cfg.send_timeout; // set by connect
                                                         // The prime: the stream's first bytes, before the pause (blocking
                                                         // write bounded by SO_SNDTIMEO; an empty send buffer takes them).
        while pos < self.cfg.prime_bytes {
            match self
                .stream
                .write(&source.block_at(0)[pos..self.cfg.prime_bytes])
            {
                Ok(0) => break,
                Ok(n) => {
                    writes += 1;
                    pos += n;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        std::thread::sleep(
            self.cfg
                .start_delay
                .min(self.deadline.saturating_duration_since(Instant::now())),
        );
        let termination = loop {
            let now = Instant::now();
            if now >= self.deadline {
                break Termination::Deadline;
            }
            // SO_SNDTIMEO = min(send timeout, time left), re-set only when it
            // changes (near the deadline), not once per write.
            let left = self.deadline - now;
            let timeout = left
                .min(self.cfg.send_timeout)
                .max(Duration::from_millis(1));
            if timeout != current_timeout {
                if let Err(e) = self.stream.set_write_timeout(Some(timeout)) {
                    break Termination::Other(format!("SO_SNDTIMEO: {e}"));
                }
                current_timeout = timeout;
            }
            match self.stream.write(&source.block_at(offset)[pos..]) {
                Ok(0) => break Termination::Other("write returned 0".into()),
                Ok(n) => {
                    consecutive = 0;
                    writes += 1;
                    pos += n;
                    if pos == block {
                        offset += block as u64;
                        pos = 0;
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => {
                    let t = Termination::from_io(&e);
                    if t != Termination::Timeout {
                        break t;
                    }
                    // A timeout cut short by the deadline is the deadline.
                    if Instant::now() >= self.deadline {
                        break Termination::Deadline;
                    }
                    stalls.push(now.saturating_duration_since(self.t0).as_secs_f64());
                    consecutive += 1;
                    if self
                        .cfg
                        .max_consecutive_stalls
                        .is_some_and(|m| consecutive >= m)
                    {
                        break Termination::Timeout;
                    }
                }
            }
        };
        let end_s = Instant::now()
            .saturating_duration_since(self.t0)
            .as_secs_f64();
        let bytes_accepted = offset + pos as u64;
        drop(self.stream);
        SenderLog {
            flow: self.flow,
            cc_requested: self.cfg.cc,
            cc_readback: self.cc_readback,
            start_s: self.start_s,
            connect_s: self.connect_s,
            end_s,
            bytes_accepted,
            writes,
            send_stalls_s: stalls,
            termination,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Error;

    #[test]
    fn termination_kinds_from_errors() {
        assert_eq!(
            Termination::from_io(&Error::from(ErrorKind::BrokenPipe)),
            Termination::BrokenPipe
        );
        assert_eq!(
            Termination::from_io(&Error::from_raw_os_error(104)),
            Termination::ConnectionReset
        );
        assert_eq!(
            Termination::from_io(&Error::from(ErrorKind::WouldBlock)),
            Termination::Timeout
        );
        assert!(matches!(
            Termination::from_io(&Error::from(ErrorKind::PermissionDenied)),
            Termination::Other(_)
        ));
    }

    #[test]
    fn termination_serializes_as_snake_case() {
        assert_eq!(
            serde_json::to_string(&Termination::BrokenPipe).unwrap(),
            "\"broken_pipe\""
        );
        assert_eq!(
            serde_json::to_string(&Termination::Other("x".into())).unwrap(),
            "{\"other\":\"x\"}"
        );
    }

    #[test]
    fn config_validation_names_the_field() {
        let mut c = SenderConfig::new("127.0.0.1:1".parse().unwrap());
        assert!(c.validate().is_ok());
        c.block_size = 0;
        assert!(c.validate().unwrap_err().to_string().contains("block_size"));
        let mut c = SenderConfig::new("127.0.0.1:1".parse().unwrap());
        c.cc = "a-very-long-cc-name".into();
        assert!(c.validate().unwrap_err().to_string().contains("congestion"));
    }

    #[test]
    fn cc_name_stops_at_nul() {
        assert_eq!(cc_name(b"reno\0\0\0"), "reno");
        assert_eq!(cc_name(b"cubic"), "cubic");
    }

    #[test]
    fn the_socket_knows_its_flow_before_the_connect() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let to = l.local_addr().unwrap();
        let sock = new_sender_socket("reno", to).unwrap();
        let flow = sock.flow();
        assert_eq!(flow.remote, to);
        assert_eq!(flow.local.ip(), to.ip(), "the route's source address");
        assert_ne!(flow.local.port(), 0, "bound to an ephemeral port");
        let tx = Sender::connect(sock, SenderConfig::new(to), Instant::now()).unwrap();
        let (_peer, seen) = l.accept().unwrap();
        assert_eq!(seen, flow.local, "the listener sees the announced 4-tuple");
        assert_eq!(tx.flow(), flow);
        // A socket made for another destination is refused by name.
        let other = new_sender_socket("reno", to).unwrap();
        let mut cfg = SenderConfig::new(to);
        cfg.to = "127.0.0.1:9".parse().unwrap();
        let err = Sender::connect(other, cfg, Instant::now()).unwrap_err();
        assert!(err.to_string().contains("127.0.0.1:9"), "{err}");
    }

    #[test]
    fn unknown_congestion_control_is_refused_naming_it() {
        let err = new_sender_socket("nosuchcc", "127.0.0.1:9".parse().unwrap()).unwrap_err();
        match &err {
            TcpLoadError::Congestion { cc, source } => {
                assert_eq!(cc, "nosuchcc");
                // ENOENT (2): the kernel has no algorithm of that name.
                assert_eq!(source.raw_os_error(), Some(2), "{err}");
            }
            other => panic!("not a congestion-control error: {other:?}"),
        }
    }

    #[test]
    fn send_stalls_are_recorded_and_end_the_sender_only_when_asked() {
        // The peer accepts but never reads: writes stall once buffers fill.
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let to = l.local_addr().unwrap();
        let keep = std::thread::spawn(move || {
            let mut held = Vec::new();
            for _ in 0..2 {
                held.push(l.accept().unwrap().0);
            }
            std::thread::sleep(Duration::from_millis(2500));
            drop(held);
        });
        let t0 = Instant::now();
        let run = |max: Option<u32>| {
            let mut cfg = SenderConfig::new(to);
            cfg.send_timeout = Duration::from_millis(200);
            cfg.lifetime = Duration::from_millis(1000);
            cfg.max_consecutive_stalls = max;
            let s = Sender::connect(new_sender_socket("reno", to).unwrap(), cfg, t0).unwrap();
            s.run()
        };
        let keep_going = run(None);
        assert_eq!(
            keep_going.termination,
            Termination::Deadline,
            "{keep_going:?}"
        );
        assert!(keep_going.send_stalls_s.len() >= 2, "{keep_going:?}");
        let give_up = run(Some(1));
        assert_eq!(give_up.termination, Termination::Timeout, "{give_up:?}");
        assert_eq!(give_up.send_stalls_s.len(), 1);
        keep.join().unwrap();
    }

    #[test]
    fn loopback_sender_against_a_closing_peer() {
        // Loopback in the test's own namespace, ephemeral port: the peer reads
        // a little then closes; the sender must end with a termination kind.
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let to = l.local_addr().unwrap();
        let t0 = Instant::now();
        let peer = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = vec![0u8; 100_000];
            let mut v = crate::pattern::Validator::new();
            let n = std::io::Read::read(&mut s, &mut buf).unwrap();
            v.feed(&buf[..n]);
            std::thread::sleep(Duration::from_millis(100));
            drop(s);
            v.validation()
        });
        let mut cfg = SenderConfig::new(to);
        cfg.lifetime = Duration::from_secs(3);
        let sock = new_sender_socket("reno", to).unwrap();
        let s = Sender::connect(sock, cfg, t0).unwrap();
        assert_eq!(s.cc_readback(), "reno");
        let r = s.run();
        let v = peer.join().unwrap();
        assert_eq!(v.failures, 0);
        assert!(r.bytes_accepted > 0);
        assert!(
            matches!(
                r.termination,
                Termination::BrokenPipe | Termination::ConnectionReset
            ),
            "{r:?}"
        );
        assert!(r.end_s < 3.5);
    }
}
