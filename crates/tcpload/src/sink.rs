//! B's validating TCP receiver (method §3–§4), served by netlab-os's
//! [`event_loop`] with a hard end time, beside whatever other handlers the
//! caller registers (in netlab: the probe's UDP echoes).
//!
//! [`Sink::bind`] (inside B's namespace) binds the listener and sets the
//! common origin t0; the orchestrator reads [`Sink::t0`] to schedule the
//! probe and the sender, then calls [`Sink::run`] or, with the echoes,
//! [`Sink::run_serving`] (usually on its own thread), which returns the
//! [`ReceiverLog`] at `t0 + duration`.
//!
//! The first accepted connection is the controlled flow; later ones are
//! counted and closed at once. Each TCP `recv` is timestamped after it
//! returns, validated against the pattern and logged. Per wakeup the
//! handlers given to [`Sink::run_serving`] are served first (the echo's
//! latency is what the probe measures), then at most 4 TCP `recv`s are
//! made, so a busy flow cannot delay echo replies by more than that.

use std::io::{ErrorKind, Read};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::ops::ControlFlow;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

// What `Sink::run_serving` serves beside the receiver (netlab-os's).
use netlab_os::event_loop::Handler;
use netlab_os::event_loop::{self, LoopEnd};

use crate::goodput::RecvLog;
use crate::pattern::Validator;
pub use crate::record::{ReceiverLog, TcpEnd};
use crate::TcpLoadError;

/// Sink settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SinkConfig {
    /// TCP listen address (B:46020).
    pub listen: SocketAddr,
    /// Hard end: the loop stops and closes everything at `t0 + duration`
    /// (18 s).
    pub duration: Duration,
    /// Bytes per TCP recv call (256 KiB).
    pub recv_buf: usize,
    /// The listener's congestion control (`None`: the namespace's
    /// default). A sender whose congestion control needs ECN (DCTCP) sends
    /// its SYN ECT, and Linux answers such a SYN with ECN only when the
    /// listener's congestion control needs ECN too
    /// (`tcp_ecn_create_request`); without it the sender falls back to
    /// `dctcp-reno` (docs/method.md §16.2).
    pub cc: Option<&'static str>,
}

impl SinkConfig {
    /// method defaults: 18 s, 256 KiB recv buffer.
    pub fn new(listen: SocketAddr) -> Self {
        Self {
            listen,
            duration: Duration::from_secs(18),
            recv_buf: 256 * 1024,
            cc: None,
        }
    }
}

/// B's bound listener and the common origin t0.
#[derive(Debug)]
pub struct Sink {
    cfg: SinkConfig,
    listener: TcpListener,
    t0: Instant,
}

/// TCP recvs per wakeup before the echo is looked at again: with 256 KiB
/// buffers this bounds the echo's extra delay to a few hundred µs of
/// copying and validating, while saving a `poll` per recv at high rates.
const MAX_RECVS_PER_WAKEUP: usize = 4;

/// Connections accepted per wakeup at most.
const MAX_ACCEPTS_PER_WAKEUP: usize = 16;

impl Sink {
    /// Binds the TCP listener in the calling thread's namespace (call it
    /// inside B) and sets t0 = now.
    pub fn bind(cfg: SinkConfig) -> Result<Self, TcpLoadError> {
        let listener = TcpListener::bind(cfg.listen).map_err(|source| TcpLoadError::Bind {
            addr: cfg.listen,
            source,
        })?;
        Self::from_parts(cfg, listener)
    }

    /// Wraps a listener bound elsewhere (e.g. inside `Netns::run`); t0 = now.
    pub fn from_parts(cfg: SinkConfig, listener: TcpListener) -> Result<Self, TcpLoadError> {
        if cfg.duration.is_zero() || cfg.recv_buf == 0 {
            return Err(TcpLoadError::Config(
                "sink duration and recv_buf must be > 0".into(),
            ));
        }
        if let Some(cc) = &cfg.cc {
            socket2::SockRef::from(&listener)
                .set_tcp_congestion(cc.as_bytes())
                .map_err(|source| TcpLoadError::Congestion {
                    cc: cc.to_string(),
                    source,
                })?;
        }
        listener
            .set_nonblocking(true)
            .map_err(|source| TcpLoadError::Io {
                what: "set_nonblocking on listener",
                source,
            })?;
        // Before t0: a sender in this process then finds it ready too.
        crate::pattern::prepare();
        Ok(Self {
            cfg,
            listener,
            t0: Instant::now(),
        })
    }

    /// The same sink timed from `t0` instead of from its bind, for a
    /// listener bound before the common origin was known (e.g. before the
    /// scenario's clock starts, so that binding costs the timeline
    /// nothing): its receive times and its hard end move with it.
    pub fn starting_at(mut self, t0: Instant) -> Sink {
        self.t0 = t0;
        self
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

    /// Runs the loop until `t0 + duration`, then closes everything.
    pub fn run<Echo>(self) -> Result<ReceiverLog<Echo>, TcpLoadError> {
        self.run_serving(&mut [], None)
    }

    /// Like [`Sink::run`], also stopping (within 50 ms) when `stop` is set.
    pub fn run_with_stop<Echo>(self, stop: &AtomicBool) -> Result<ReceiverLog<Echo>, TcpLoadError> {
        self.run_serving(&mut [], Some(stop))
    }

    /// B's loop: serves `first` (each in turn, before the receiver, on every
    /// wakeup) and the TCP receiver until `t0 + duration` or until `stop` is
    /// set (seen within 50 ms), then closes the receiver's sockets. The
    /// caller owns `first` and reads what they served from them afterwards.
    pub fn run_serving<Echo>(
        self,
        first: &mut [&mut dyn Handler],
        stop: Option<&AtomicBool>,
    ) -> Result<ReceiverLog<Echo>, TcpLoadError> {
        let end = self.end();
        let Sink { cfg, listener, t0 } = self;
        let mut receiver = TcpReceiver::new(listener, t0, cfg.recv_buf);
        let mut handlers: Vec<&mut dyn Handler> = Vec::with_capacity(first.len() + 1);
        for h in first.iter_mut() {
            handlers.push(&mut **h);
        }
        handlers.push(&mut receiver);
        let ended =
            event_loop::serve(&mut handlers, end, stop).map_err(|source| TcpLoadError::Io {
                what: "poll in B's event loop",
                source,
            })?;
        drop(handlers);
        receiver.finish(&cfg, ended)
    }
}

/// The TCP half of B's loop: the listener, the controlled connection and
/// everything logged about it.
struct TcpReceiver {
    listener: TcpListener,
    t0: Instant,
    conn: Option<TcpStream>,
    /// The controlled connection has ended.
    conn_done: bool,
    validator: Validator,
    buf: Vec<u8>,
    accepted_s: Option<f64>,
    peer: Option<SocketAddr>,
    recvs: RecvLog,
    tcp_end: TcpEnd,
    tcp_end_s: Option<f64>,
    extra_connections: u64,
    /// A step that ends the loop (the run's error).
    failed: Option<TcpLoadError>,
}

impl TcpReceiver {
    fn new(listener: TcpListener, t0: Instant, recv_buf: usize) -> Self {
        TcpReceiver {
            listener,
            t0,
            conn: None,
            conn_done: false,
            validator: Validator::new(),
            buf: vec![0u8; recv_buf],
            accepted_s: None,
            peer: None,
            recvs: RecvLog::default(),
            tcp_end: TcpEnd::NeverConnected,
            tcp_end_s: None,
            extra_connections: 0,
            failed: None,
        }
    }

    /// Seconds since t0, now.
    fn now_s(&self) -> f64 {
        Instant::now()
            .saturating_duration_since(self.t0)
            .as_secs_f64()
    }

    /// Accepts what is pending: the first connection becomes the controlled
    /// one, any later one is counted and closed at once.
    fn accept(&mut self) -> Result<(), TcpLoadError> {
        for _ in 0..MAX_ACCEPTS_PER_WAKEUP {
            match self.listener.accept() {
                Ok((s, peer)) => {
                    if self.conn.is_none() && !self.conn_done && self.accepted_s.is_none() {
                        s.set_nonblocking(true).map_err(|source| TcpLoadError::Io {
                            what: "set_nonblocking on accepted connection",
                            source,
                        })?;
                        self.accepted_s = Some(self.now_s());
                        self.peer = Some(peer);
                        self.conn = Some(s);
                    } else {
                        self.extra_connections += 1;
                        drop(s);
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                // ECONNABORTED and similar: that client is gone; keep serving.
                Err(_) => break,
            }
        }
        Ok(())
    }

    /// Up to [`MAX_RECVS_PER_WAKEUP`] recvs on the controlled connection
    /// (stops at `WouldBlock` or at its end).
    fn receive(&mut self) {
        for _ in 0..MAX_RECVS_PER_WAKEUP {
            let Some(c) = self.conn.as_mut() else { break };
            match c.read(&mut self.buf) {
                Ok(0) => self.ended(TcpEnd::PeerClosed),
                Ok(n) => {
                    let t = Instant::now().saturating_duration_since(self.t0);
                    self.recvs.push(t, n);
                    self.validator.feed(&self.buf[..n]);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::ConnectionReset => self.ended(TcpEnd::Reset),
                Err(e) => self.ended(TcpEnd::Error(e.to_string())),
            }
        }
    }

    /// The controlled connection ended now, this way.
    fn ended(&mut self, how: TcpEnd) {
        self.tcp_end = how;
        self.tcp_end_s = Some(self.now_s());
        self.conn = None;
        self.conn_done = true;
    }

    /// Closes everything and writes the log (the echo fields empty).
    fn finish<Echo>(
        mut self,
        cfg: &SinkConfig,
        ended: LoopEnd,
    ) -> Result<ReceiverLog<Echo>, TcpLoadError> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let closed = ended
            .closed
            .saturating_duration_since(self.t0)
            .as_secs_f64();
        if let Some(conn) = self.conn.take() {
            // An abortive close (RST): the sender learns of the end one
            // reverse-path delay later, not when its next segment, queued
            // behind R's standing queue, reaches B (method §4.4).
            let _ = socket2::SockRef::from(&conn).set_linger(Some(Duration::ZERO));
            drop(conn);
            self.tcp_end = TcpEnd::ClosedAtEnd;
            self.tcp_end_s = Some(closed);
        }
        let listen = self.listener.local_addr().unwrap_or(cfg.listen);
        drop(self.listener);
        let validation = self.validator.validation();
        Ok(ReceiverLog {
            listen,
            udp_echo: None,
            duration_s: cfg.duration.as_secs_f64(),
            accepted_s: self.accepted_s,
            peer: self.peer,
            bytes_total: validation.bytes_checked,
            validation,
            recvs: self.recvs,
            tcp_end: self.tcp_end,
            tcp_end_s: self.tcp_end_s,
            extra_connections: self.extra_connections,
            echo: None,
            echo_error: None,
            iso_echo_addr: None,
            iso_echo: None,
            iso_echo_error: None,
            closed_s: closed,
            stopped_early: ended.stopped_early,
            wakeups: ended.wakeups,
        })
    }
}

impl Handler for TcpReceiver {
    fn fds<'a>(&'a self, fds: &mut Vec<BorrowedFd<'a>>) {
        fds.push(self.listener.as_fd());
        if let Some(c) = &self.conn {
            fds.push(c.as_fd());
        }
    }

    fn ready(&mut self, readable: &[bool]) -> ControlFlow<()> {
        // New connections first; a connection accepted now is read from on
        // the next wakeup (it was not polled in this one).
        if readable.first() == Some(&true) {
            if let Err(e) = self.accept() {
                self.failed = Some(e);
                return ControlFlow::Break(());
            }
        }
        if readable.get(1) == Some(&true) {
            self.receive();
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_probe::{EchoHandler, EchoResponder, EchoStats};
    use std::io::Write;
    use std::net::UdpSocket;
    use std::sync::atomic::Ordering;

    fn lo() -> SocketAddr {
        "127.0.0.1:0".parse().unwrap()
    }

    fn echo_handler() -> EchoHandler {
        EchoHandler::new(EchoResponder::bind(lo()).unwrap())
    }

    /// B's loop as netlab wires it: the echoes first, then the receiver;
    /// what they served goes into the log.
    fn serve(
        sink: Sink,
        mut echo: Option<EchoHandler>,
        mut iso: Option<EchoHandler>,
    ) -> Result<ReceiverLog<EchoStats>, TcpLoadError> {
        let mut first: Vec<&mut dyn Handler> = Vec::new();
        first.extend(echo.as_mut().map(|h| h as &mut dyn Handler));
        first.extend(iso.as_mut().map(|h| h as &mut dyn Handler));
        let mut log = sink.run_serving(&mut first, None)?;
        drop(first);
        if let Some(o) = echo.map(EchoHandler::finish) {
            log.set_echo(o.addr, o.stats, o.error);
        }
        if let Some(o) = iso.map(EchoHandler::finish) {
            log.set_iso_echo(o.addr, o.stats, o.error);
        }
        Ok(log)
    }

    #[test]
    fn loopback_sink_serves_the_iso_probe_on_its_own_port() {
        let mut cfg = SinkConfig::new(lo());
        cfg.duration = Duration::from_millis(1200);
        let sink = Sink::bind(cfg).unwrap();
        let (echo, iso_echo) = (echo_handler(), echo_handler());
        let udp = echo.local_addr().unwrap();
        let iso = iso_echo.local_addr().unwrap();
        assert_ne!(udp, iso);
        let t0 = sink.t0();
        let h = std::thread::spawn(move || serve(sink, Some(echo), Some(iso_echo)));

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
        let mut cfg = SinkConfig::new(lo());
        cfg.duration = Duration::from_millis(1500);
        let sink = Sink::bind(cfg).unwrap();
        let tcp = sink.local_addr().unwrap();
        let echo = echo_handler();
        let udp = echo.local_addr().unwrap();
        let t0 = sink.t0();
        let h = std::thread::spawn(move || serve(sink, Some(echo), None));

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
        let mut cfg = SinkConfig::new(lo());
        cfg.duration = Duration::from_millis(800);
        let sink = Sink::bind(cfg).unwrap();
        let tcp = sink.local_addr().unwrap();
        let h = std::thread::spawn(move || sink.run::<EchoStats>());
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
        let mut cfg = SinkConfig::new(lo());
        cfg.duration = Duration::from_secs(30);
        let sink = Sink::bind(cfg).unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let h = std::thread::spawn(move || sink.run_with_stop::<EchoStats>(&s2));
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, Ordering::Relaxed);
        let log = h.join().unwrap().unwrap();
        assert!(log.stopped_early);
        assert!(log.closed_s < 1.0);
        assert_eq!(log.tcp_end, TcpEnd::NeverConnected);
    }
}
