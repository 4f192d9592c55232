//! B's event loop (method §3–§4): ONE `poll` loop serving the TCP receiver
//! and the UDP echo, with a hard end time.
//!
//! [`Sink::bind`] (inside B's namespace) binds both sockets and sets the
//! common origin t0; the orchestrator reads [`Sink::t0`] to schedule the
//! probe and the sender, then calls [`Sink::run`] (usually on its own
//! thread), which returns the [`ReceiverLog`] at `t0 + duration`.
//!
//! The first accepted connection is the controlled flow; later ones are
//! counted and closed at once. Each TCP `recv` is timestamped after it
//! returns, validated against the pattern and logged. Per wakeup the echo is
//! drained first, then at most 4 TCP `recv`s are made, so a busy flow cannot
//! delay echo replies by more than that. The isochronous probe's echo
//! ([`SinkConfig::iso_echo`], its own port) is drained right after the method
//! echo, before any TCP work.

use std::io::{ErrorKind, Read};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use netlab_probe::{EchoResponder, EchoStats};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use serde::{Deserialize, Serialize};

use crate::goodput::RecvLog;
use crate::pattern::{ValidationReport, Validator};
use crate::TcpLoadError;

/// Sink settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SinkConfig {
    /// TCP listen address (B:46020).
    pub listen: SocketAddr,
    /// UDP echo address (B:46021), or None for no echo.
    pub udp_echo: Option<SocketAddr>,
    /// A second UDP echo on its own port for the isochronous probe (issue
    /// 15), served by the same loop; None (the default) for none.
    pub iso_echo: Option<SocketAddr>,
    /// Hard end: the loop stops and closes everything at `t0 + duration`
    /// (18 s).
    pub duration: Duration,
    /// Bytes per TCP recv call (256 KiB).
    pub recv_buf: usize,
}

impl SinkConfig {
    /// method defaults: 18 s, 256 KiB recv buffer.
    pub fn new(listen: SocketAddr, udp_echo: Option<SocketAddr>) -> Self {
        Self {
            listen,
            udp_echo,
            iso_echo: None,
            duration: Duration::from_secs(18),
            recv_buf: 256 * 1024,
        }
    }
}

/// How the controlled TCP connection ended, as seen by the receiver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpEnd {
    /// No connection was accepted before the end.
    NeverConnected,
    /// Still open at the end time; the receiver closed it (the common end).
    ClosedAtEnd,
    /// The sender closed first (recv returned 0).
    PeerClosed,
    /// The connection was reset.
    Reset,
    /// Another receive error, as text.
    Error(String),
}

/// What B's receiver saw (serializable). Times are seconds since t0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReceiverLog {
    /// TCP listen address.
    pub listen: SocketAddr,
    /// UDP echo address, if any.
    pub udp_echo: Option<SocketAddr>,
    /// Configured hard end, seconds after t0.
    pub duration_s: f64,
    /// When the controlled connection was accepted.
    pub accepted_s: Option<f64>,
    /// The controlled connection's peer.
    pub peer: Option<SocketAddr>,
    /// Bytes received on the controlled connection.
    pub bytes_total: u64,
    /// Pattern validation (failures expected 0).
    pub validation: ValidationReport,
    /// Every recv block (post-recv time, length).
    pub recvs: RecvLog,
    /// How the controlled connection ended and when.
    pub tcp_end: TcpEnd,
    /// When `tcp_end` happened (the close time for `closed_at_end`).
    pub tcp_end_s: Option<f64>,
    /// Connections after the first, accepted and closed at once.
    pub extra_connections: u64,
    /// Echo counters, if the echo was served.
    pub echo: Option<EchoStats>,
    /// A fatal echo error (the echo stopped being served then), if any.
    pub echo_error: Option<String>,
    /// The isochronous probe's echo address, if one was served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iso_echo_addr: Option<SocketAddr>,
    /// Its counters, if it was served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iso_echo: Option<EchoStats>,
    /// Its fatal error (it stopped being served then), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iso_echo_error: Option<String>,
    /// When the loop stopped and closed everything.
    pub closed_s: f64,
    /// Whether the loop was stopped early by the stop flag.
    pub stopped_early: bool,
    /// `poll` wakeups (for diagnosis).
    pub wakeups: u64,
}

/// B's bound sockets and the common origin t0.
#[derive(Debug)]
pub struct Sink {
    cfg: SinkConfig,
    listener: TcpListener,
    echo: Option<EchoResponder>,
    iso_echo: Option<EchoResponder>,
    t0: Instant,
}

/// TCP recvs per wakeup before the echo is looked at again: with 256 KiB
/// buffers this bounds the echo's extra delay to a few hundred µs of
/// copying and validating, while saving a `poll` per recv at high rates.
const MAX_RECVS_PER_WAKEUP: usize = 4;

/// Longest single poll wait when a stop flag is watched.
const STOP_CHECK: Duration = Duration::from_millis(50);

impl Sink {
    /// Binds the TCP listener and the UDP echo in the calling thread's
    /// namespace (call it inside B) and sets t0 = now.
    pub fn bind(cfg: SinkConfig) -> Result<Self, TcpLoadError> {
        let listener = TcpListener::bind(cfg.listen).map_err(|source| TcpLoadError::Bind {
            addr: cfg.listen,
            source,
        })?;
        let echo = cfg.udp_echo.map(EchoResponder::bind).transpose()?;
        let iso_echo = cfg.iso_echo.map(EchoResponder::bind).transpose()?;
        let mut sink = Self::from_parts(cfg, listener, echo)?;
        sink.iso_echo = iso_echo;
        Ok(sink)
    }

    /// Wraps sockets bound elsewhere (e.g. inside `Netns::run`); t0 = now.
    pub fn from_parts(
        cfg: SinkConfig,
        listener: TcpListener,
        echo: Option<EchoResponder>,
    ) -> Result<Self, TcpLoadError> {
        if cfg.duration.is_zero() || cfg.recv_buf == 0 {
            return Err(TcpLoadError::Config(
                "sink duration and recv_buf must be > 0".into(),
            ));
        }
        listener
            .set_nonblocking(true)
            .map_err(|source| TcpLoadError::Io {
                what: "set_nonblocking on listener",
                source,
            })?;
        Ok(Self {
            cfg,
            listener,
            echo,
            iso_echo: None,
            t0: Instant::now(),
        })
    }

    /// Adds the isochronous probe's echo (bound elsewhere, e.g. inside
    /// `Netns::run`), served by the same loop after the stop-and-wait echo.
    pub fn with_iso_echo(mut self, echo: EchoResponder) -> Self {
        self.iso_echo = Some(echo);
        self
    }

    /// The bound isochronous echo address, if any.
    pub fn iso_echo_addr(&self) -> Result<Option<SocketAddr>, TcpLoadError> {
        self.iso_echo
            .as_ref()
            .map(|e| e.local_addr())
            .transpose()
            .map_err(Into::into)
    }

    /// The common clock origin.
    pub fn t0(&self) -> Instant {
        self.t0
    }

    /// The hard end time, `t0 + duration`.
    pub fn end(&self) -> Instant {
        self.t0 + self.cfg.duration
    }

    /// The bound TCP address (useful with port 0).
    pub fn local_addr(&self) -> Result<SocketAddr, TcpLoadError> {
        self.listener
            .local_addr()
            .map_err(|source| TcpLoadError::Io {
                what: "getsockname on listener",
                source,
            })
    }

    /// The bound echo address, if any.
    pub fn echo_addr(&self) -> Result<Option<SocketAddr>, TcpLoadError> {
        self.echo
            .as_ref()
            .map(|e| e.local_addr())
            .transpose()
            .map_err(Into::into)
    }

    /// Runs the loop until `t0 + duration`, then closes everything.
    pub fn run(self) -> Result<ReceiverLog, TcpLoadError> {
        self.run_until(None)
    }

    /// Like [`Sink::run`], also stopping (within 50 ms) when `stop` is set.
    pub fn run_with_stop(self, stop: &AtomicBool) -> Result<ReceiverLog, TcpLoadError> {
        self.run_until(Some(stop))
    }

    fn run_until(self, stop: Option<&AtomicBool>) -> Result<ReceiverLog, TcpLoadError> {
        let Sink {
            cfg,
            listener,
            mut echo,
            mut iso_echo,
            t0,
        } = self;
        let end = t0 + cfg.duration;
        let since = |i: Instant| i.saturating_duration_since(t0);
        let mut log = ReceiverLog {
            listen: listener.local_addr().unwrap_or(cfg.listen),
            udp_echo: echo.as_ref().and_then(|e| e.local_addr().ok()),
            duration_s: cfg.duration.as_secs_f64(),
            accepted_s: None,
            peer: None,
            bytes_total: 0,
            validation: ValidationReport::default(),
            recvs: RecvLog::default(),
            tcp_end: TcpEnd::NeverConnected,
            tcp_end_s: None,
            extra_connections: 0,
            echo: None,
            echo_error: None,
            iso_echo_addr: iso_echo.as_ref().and_then(|e| e.local_addr().ok()),
            iso_echo: None,
            iso_echo_error: None,
            closed_s: 0.0,
            stopped_early: false,
            wakeups: 0,
        };
        let mut conn: Option<TcpStream> = None;
        let mut conn_done = false; // the controlled connection has ended
        let mut validator = Validator::new();
        let mut buf = vec![0u8; cfg.recv_buf];

        loop {
            let now = Instant::now();
            if now >= end {
                break;
            }
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                log.stopped_early = true;
                break;
            }
            let mut wait = end - now;
            if stop.is_some() {
                wait = wait.min(STOP_CHECK);
            }
            // Round up so we do not spin just before the end.
            let ms = wait.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
            let timeout = PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX);

            let (echo_ready, iso_ready, listen_ready, conn_ready) = {
                let mut fds = Vec::with_capacity(4);
                fds.push(PollFd::new(listener.as_fd(), PollFlags::POLLIN));
                let echo_idx = echo.as_ref().map(|e| {
                    fds.push(PollFd::new(e.as_fd(), PollFlags::POLLIN));
                    fds.len() - 1
                });
                let iso_idx = iso_echo.as_ref().map(|e| {
                    fds.push(PollFd::new(e.as_fd(), PollFlags::POLLIN));
                    fds.len() - 1
                });
                let conn_idx = conn.as_ref().map(|c| {
                    fds.push(PollFd::new(c.as_fd(), PollFlags::POLLIN));
                    fds.len() - 1
                });
                match poll(&mut fds, timeout) {
                    Ok(_) => {}
                    Err(nix::errno::Errno::EINTR) => continue,
                    Err(e) => {
                        return Err(TcpLoadError::Io {
                            what: "poll in B's event loop",
                            source: e.into(),
                        })
                    }
                }
                log.wakeups += 1;
                let ready = |i: Option<usize>| {
                    i.and_then(|i| fds[i].revents())
                        .is_some_and(|r| !r.is_empty())
                };
                (
                    ready(echo_idx),
                    ready(iso_idx),
                    ready(Some(0)),
                    ready(conn_idx),
                )
            };

            // 1. Echo first: its latency is what the probe measures.
            if echo_ready {
                if let Some(e) = echo.as_mut() {
                    if let Err(err) = e.drain() {
                        log.echo_error = Some(err.to_string());
                        log.echo = Some(e.stats());
                        echo = None;
                    }
                }
            }
            if iso_ready {
                if let Some(e) = iso_echo.as_mut() {
                    if let Err(err) = e.drain() {
                        log.iso_echo_error = Some(err.to_string());
                        log.iso_echo = Some(e.stats());
                        iso_echo = None;
                    }
                }
            }
            // 2. New connections.
            if listen_ready {
                for _ in 0..16 {
                    match listener.accept() {
                        Ok((s, peer)) => {
                            if conn.is_none() && !conn_done && log.accepted_s.is_none() {
                                s.set_nonblocking(true).map_err(|source| TcpLoadError::Io {
                                    what: "set_nonblocking on accepted connection",
                                    source,
                                })?;
                                log.accepted_s = Some(since(Instant::now()).as_secs_f64());
                                log.peer = Some(peer);
                                conn = Some(s);
                            } else {
                                log.extra_connections += 1;
                                drop(s);
                            }
                        }
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == ErrorKind::Interrupted => {}
                        // ECONNABORTED and similar: that client is gone; keep serving.
                        Err(_) => break,
                    }
                }
            }
            // 3. Up to MAX_RECVS_PER_WAKEUP TCP recvs (stop at WouldBlock).
            if conn_ready {
                for _ in 0..MAX_RECVS_PER_WAKEUP {
                    let Some(c) = conn.as_mut() else { break };
                    match c.read(&mut buf) {
                        Ok(0) => {
                            log.tcp_end = TcpEnd::PeerClosed;
                            log.tcp_end_s = Some(since(Instant::now()).as_secs_f64());
                            conn = None;
                            conn_done = true;
                        }
                        Ok(n) => {
                            let t = since(Instant::now());
                            log.recvs.push(t, n);
                            validator.feed(&buf[..n]);
                        }
                        Err(e) if e.kind() == ErrorKind::Interrupted => {}
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) => {
                            log.tcp_end = if e.kind() == ErrorKind::ConnectionReset {
                                TcpEnd::Reset
                            } else {
                                TcpEnd::Error(e.to_string())
                            };
                            log.tcp_end_s = Some(since(Instant::now()).as_secs_f64());
                            conn = None;
                            conn_done = true;
                        }
                    }
                }
            }
        }

        let closed = since(Instant::now()).as_secs_f64();
        if conn.take().is_some() {
            log.tcp_end = TcpEnd::ClosedAtEnd;
            log.tcp_end_s = Some(closed);
        }
        if let Some(e) = echo.take() {
            log.echo = Some(e.stats());
        }
        if let Some(e) = iso_echo.take() {
            log.iso_echo = Some(e.stats());
        }
        drop(listener);
        log.closed_s = closed;
        log.validation = validator.report();
        log.bytes_total = log.validation.bytes_checked;
        Ok(log)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::UdpSocket;

    fn lo() -> SocketAddr {
        "127.0.0.1:0".parse().unwrap()
    }

    #[test]
    fn loopback_sink_serves_the_iso_probe_on_its_own_port() {
        let mut cfg = SinkConfig::new(lo(), Some(lo()));
        cfg.iso_echo = Some(lo());
        cfg.duration = Duration::from_millis(1200);
        let sink = Sink::bind(cfg).unwrap();
        let udp = sink.echo_addr().unwrap().unwrap();
        let iso = sink.iso_echo_addr().unwrap().unwrap();
        assert_ne!(udp, iso);
        let t0 = sink.t0();
        let h = std::thread::spawn(move || sink.run());

        // the stop-and-wait echo is unchanged: 4 bytes back byte for byte
        let u = UdpSocket::bind(lo()).unwrap();
        u.connect(udp).unwrap();
        u.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
        u.send(&[0, 0, 0, 9]).unwrap();
        let mut r = [0u8; 16];
        assert_eq!(u.recv(&mut r).unwrap(), 4);
        assert_eq!(&r[..4], &[0, 0, 0, 9]);

        let sock = netlab_probe::connect_socket(None, iso).unwrap();
        let icfg = netlab_probe::IsoConfig {
            timeout: Duration::from_millis(200),
            quiet_before_end: Duration::from_millis(300),
            ..netlab_probe::IsoConfig::with_interval(
                Duration::from_millis(10),
                Duration::from_millis(1000),
            )
        };
        let ilog = netlab_probe::run_iso_probe(&sock, t0, &icfg, None, |_| {}).unwrap();
        let log = h.join().unwrap().unwrap();
        let s = &ilog.phase_stats()[0].stats;
        assert_eq!(s.slots, 71, "0, 10, …, 700 ms");
        assert!(s.ok + s.missed + 3 >= 71, "{s:?}");
        assert!(s.up.unwrap().p50_ms.unwrap() > 0.0);
        let iso_stats = log.iso_echo.unwrap();
        assert_eq!(iso_stats.stamped, u64::from(s.sent + s.send_errors));
        assert_eq!(log.echo.unwrap().stamped, 0);
        assert_eq!(log.iso_echo_addr, Some(iso));
        assert_eq!(log.iso_echo_error, None);
    }

    #[test]
    fn loopback_sink_serves_tcp_and_echo_until_its_end() {
        let mut cfg = SinkConfig::new(lo(), Some(lo()));
        cfg.duration = Duration::from_millis(1500);
        let sink = Sink::bind(cfg).unwrap();
        let tcp = sink.local_addr().unwrap();
        let udp = sink.echo_addr().unwrap().unwrap();
        let t0 = sink.t0();
        let h = std::thread::spawn(move || sink.run());

        let mut s = TcpStream::connect(tcp).unwrap();
        let mut data = vec![0u8; 300_000];
        crate::pattern::fill(0, &mut data);
        s.write_all(&data).unwrap();
        let extra = TcpStream::connect(tcp).unwrap();

        let u = UdpSocket::bind(lo()).unwrap();
        u.connect(udp).unwrap();
        u.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
        u.send(&[1, 2, 3, 4]).unwrap();
        let mut r = [0u8; 16];
        assert_eq!(u.recv(&mut r).unwrap(), 4);
        assert_eq!(&r[..4], &[1, 2, 3, 4]);

        let log = h.join().unwrap().unwrap();
        drop((s, extra));
        assert_eq!(log.bytes_total, 300_000);
        assert_eq!(log.validation.failures, 0);
        assert_eq!(log.recvs.bytes_total(), 300_000);
        assert_eq!(log.extra_connections, 1);
        assert_eq!(log.tcp_end, TcpEnd::ClosedAtEnd);
        assert_eq!(log.echo.unwrap().echoed, 1);
        assert!(
            log.closed_s >= 1.5 && log.closed_s < 1.7,
            "{}",
            log.closed_s
        );
        let elapsed = t0.elapsed();
        assert!(elapsed >= Duration::from_millis(1500));
        // Timestamps are monotone and inside the run.
        let ts: Vec<u64> = log.recvs.t_us.clone();
        assert!(ts.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn corrupted_stream_is_counted_and_peer_close_recorded() {
        let mut cfg = SinkConfig::new(lo(), None);
        cfg.duration = Duration::from_millis(800);
        let sink = Sink::bind(cfg).unwrap();
        let tcp = sink.local_addr().unwrap();
        let h = std::thread::spawn(move || sink.run());
        let mut s = TcpStream::connect(tcp).unwrap();
        let mut data = vec![0u8; 10_000];
        crate::pattern::fill(0, &mut data);
        data[1234] ^= 0x5a;
        s.write_all(&data).unwrap();
        drop(s);
        let log = h.join().unwrap().unwrap();
        assert_eq!(log.validation.failures, 1);
        assert_eq!(log.validation.first_bad_offset, Some(1234));
        assert_eq!(log.tcp_end, TcpEnd::PeerClosed);
        assert!(log.echo.is_none());
    }

    #[test]
    fn stop_flag_ends_the_loop_early() {
        let mut cfg = SinkConfig::new(lo(), None);
        cfg.duration = Duration::from_secs(30);
        let sink = Sink::bind(cfg).unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let h = std::thread::spawn(move || sink.run_with_stop(&s2));
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, Ordering::Relaxed);
        let log = h.join().unwrap().unwrap();
        assert!(log.stopped_early);
        assert!(log.closed_s < 1.0);
        assert_eq!(log.tcp_end, TcpEnd::NeverConnected);
    }
}
