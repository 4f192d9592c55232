//! netlab-tcpload: the controlled TCP load of method §3, §4 and §6.
//!
//! * [`pattern`] (pure): the deterministic position-dependent byte pattern
//!   and its [`Validator`].
//! * [`goodput`] (pure): the per-recv [`RecvLog`], goodput over a
//!   [`GoodputWindow`] and the per-200 ms [`DeliveredSeries`].
//! * [`sender`]: A's sender (`TCP_CONGESTION` before connect, read back
//!   after), writing pattern blocks until its lifetime ends.
//! * [`sink`]: B's validating TCP receiver, a handler of netlab-os's
//!   `poll` event loop; [`Sink::run_serving`] serves the caller's other
//!   handlers (in netlab: `netlab-probe`'s UDP echoes) before it in the same
//!   loop. Its bind sets the common origin t0.
//! * [`sampler`] + [`tcp_info`]: the sender's TCP state via sock_diag, every
//!   200 ms nominal, decoded from the kernel's own `tcp_info`.
//! * [`role`]: the standalone `load` role, printing JSON lines.
//! * [`record`] (pure): what the sender, the receiver and the sampler
//!   leave, as results.json holds it ([`SenderLog`], [`ReceiverLog`],
//!   [`SamplerLog`], [`TcpSample`]).
//!
//! The cargo feature `net` (docs/architecture.md, "Pure builds") holds the
//! sockets: [`sender`], [`sink`], [`sampler`], [`role`], with nix, socket2
//! and netlink-packet-sock-diag. Without it the crate is [`pattern`],
//! [`goodput`], [`tcp_info`] and [`record`].
//!
//! How one scenario drives it (namespaces from `netlab-topology`):
//!
//! ```no_run
//! # #[cfg(feature = "net")]
//! # fn main() -> Result<(), netlab_tcpload::TcpLoadError> {
//! use std::time::{Duration, Instant};
//! use netlab_tcpload::{goodput, sampler, sender, sink};
//! let b_addr = "10.20.2.2:46020".parse().unwrap();
//! let cfg = sink::SinkConfig::new(b_addr);
//! // inside B: topo.b.run(|| sink::Sink::bind(cfg))
//! let sink = sink::Sink::bind(cfg)?;
//! let t0: Instant = sink.t0(); // the common origin: give it to the probe too
//! // The receiver alone; with the probe's echo beside it:
//! // sink.run_serving(&mut [&mut echo_handler], None).
//! let rx = std::thread::spawn(move || sink.run::<()>());
//! std::thread::sleep((t0 + Duration::from_secs(3)).saturating_duration_since(Instant::now()));
//! // inside A: topo.a.run(|| sender::new_sender_socket("reno", b_addr))
//! let sock = sender::new_sender_socket("reno", b_addr)?;
//! // inside A too: topo.a.run(sampler::DiagSocket::open). The sampler is
//! // started and told the flow before the connect, so nothing sits between
//! // the connect and the first write (method §4.1).
//! let diag = sampler::DiagSocket::open()?;
//! let cfg = sampler::SamplerConfig::default();
//! let (pending, smp) = sampler::TcpSampler::spawn_before_connect(diag, t0, cfg, |_| {})?;
//! pending.connected(sock.flow()); // the socket is bound: its 4-tuple is known
//! let tx = sender::Sender::connect(sock, sender::SenderConfig::new(b_addr), t0)?;
//! let sent = tx.run(); // bytes accepted, termination kind
//! let samples = smp.stop()?;
//! let log = rx.join().expect("sink thread")?;
//! let g = goodput::goodput(&log.recvs, goodput::GoodputWindow::METHOD);
//! let series = goodput::delivered_series(&log.recvs, Duration::from_millis(200), Duration::from_secs(18));
//! # let _ = (sent, samples, g, series);
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "net"))] // the example needs the sockets
//! # fn main() {}
//! ```
#![forbid(unsafe_code)]

use std::net::SocketAddr;

pub mod goodput;
pub mod pattern;
pub mod record;
#[cfg(feature = "net")]
pub mod role;
#[cfg(feature = "net")]
pub mod sampler;
#[cfg(feature = "net")]
pub mod sender;
#[cfg(feature = "net")]
pub mod sink;
pub mod tcp_info;

pub use goodput::{delivered_series, goodput, DeliveredSeries, Goodput, GoodputWindow, RecvLog};
pub use pattern::{Validation, Validator};
pub use record::{
    DiagRecord, FlowId, ReceiverLog, SamplerEnd, SamplerLog, SenderLog, SkMemInfo, TcpEnd,
    TcpSample, Termination,
};
#[cfg(feature = "net")]
pub use sampler::{
    DiagSocket, PendingFlow, PendingStart, SamplerConfig, SamplerHandle, TcpSampler,
};
#[cfg(feature = "net")]
pub use sender::{new_sender_socket, Sender, SenderConfig, SenderSocket};
#[cfg(feature = "net")]
pub use sink::{Sink, SinkConfig};
pub use tcp_info::{TcpInfo, TcpInfoView};

/// Errors of this crate; each message names what failed.
#[derive(Debug, thiserror::Error)]
pub enum TcpLoadError {
    /// A socket or syscall step failed; `what` names it.
    #[error("tcpload: {what} failed: {source}")]
    Io {
        /// The step, e.g. "socket(NETLINK_SOCK_DIAG)".
        what: &'static str,
        /// OS error.
        source: std::io::Error,
    },
    /// A netlink exchange (the sock_diag dump) failed; the message names
    /// the request and the errno or bound.
    #[error("tcpload: {0}")]
    Sys(#[from] netlab_os::SysError),
    /// Binding a listening socket failed.
    #[error("tcpload: bind TCP listener to {addr} failed: {source}")]
    Bind {
        /// Address.
        addr: SocketAddr,
        /// OS error.
        source: std::io::Error,
    },
    /// The sender's connect failed.
    #[error("tcpload: connect to {to} failed: {source}")]
    Connect {
        /// Receiver address.
        to: SocketAddr,
        /// OS error.
        source: std::io::Error,
    },
    /// setsockopt(TCP_CONGESTION) refused the algorithm (not offered by
    /// the kernel, or not allowed).
    #[error("tcpload: setsockopt(TCP_CONGESTION, {cc:?}) failed (is it in net.ipv4.tcp_allowed_congestion_control / loaded?): {source}")]
    Congestion {
        /// Requested algorithm.
        cc: String,
        /// OS error.
        source: std::io::Error,
    },
    /// The algorithm read back after connect differs from the request.
    #[error("tcpload: TCP_CONGESTION mismatch: requested {requested:?}, read back {readback:?} after connect")]
    CongestionMismatch {
        /// Requested.
        requested: String,
        /// Read back.
        readback: String,
    },
    /// A kernel structure was shorter than its fields need.
    #[error("tcpload: {what} is {len} bytes, need at least {need}")]
    Decode {
        /// The structure.
        what: &'static str,
        /// Length received.
        len: usize,
        /// Length required.
        need: usize,
    },
    /// A sock_diag exchange failed.
    #[error("tcpload: sock_diag: {0}")]
    Diag(String),
    /// A configuration value is unusable.
    #[error("tcpload: invalid config: {0}")]
    Config(String),
    /// Writing JSON lines failed.
    #[error("tcpload: writing JSON output failed: {0}")]
    Output(String),
}
