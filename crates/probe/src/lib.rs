//! netlab-probe: the UDP latency probe of SPEC §5.
//!
//! * [`EchoResponder`] (B): a non-blocking UDP echo that B's single `poll`
//!   event loop drives (register [`EchoResponder::as_fd`], call
//!   [`EchoResponder::drain`] when readable).
//! * [`ProbeClient`] (pure): the request schedule — one outstanding request,
//!   200 ms spacing from the previous send without catch-up, 1 s timeout,
//!   stale replies discarded, nothing new in the last second, at most 100
//!   requests, phase by send time. See [`schedule`] for the exact rules.
//! * [`run_probe`] (A): drives a [`ProbeClient`] on a connected UDP socket
//!   (4-byte big-endian sequence numbers) and returns a [`ProbeLog`] with
//!   every request.
//! * [`stats`] (pure): per-phase counts, p50 (lower median) / p95 (nearest
//!   rank) of successes, and the censoring-aware [`CensoredQuantile`] view.
//!
//! ```no_run
//! use std::time::{Duration, Instant};
//! use netlab_probe::{connect_socket, run_probe, EchoResponder, ProbeConfig};
//!
//! // B: inside its poll loop
//! let mut echo = EchoResponder::bind("127.0.0.1:46021".parse().unwrap())?;
//! let _n = echo.drain()?; // when echo.as_fd() is readable
//!
//! // A: the probe, with t0 from B's receiver
//! let t0 = Instant::now();
//! let sock = connect_socket(None, "127.0.0.1:46021".parse().unwrap())?;
//! let cfg = ProbeConfig::with_end(Duration::from_secs(18));
//! let log = run_probe(&sock, t0, &cfg, None, |r| println!("seq {} rtt {:?}", r.seq, r.rtt_ms))?;
//! for s in log.phase_stats() {
//!     println!("{:?}: sent {} ok {} p95 {:?}", s.phase, s.sent, s.ok, s.p95_censored);
//! }
//! # Ok::<(), netlab_probe::ProbeError>(())
//! ```
#![forbid(unsafe_code)]

pub mod schedule;
mod secs;
pub mod stats;
pub mod sys;

pub use schedule::{
    Phase, PhaseBounds, ProbeAction, ProbeClient, ProbeConfig, ProbeRequest, ReplyVerdict,
    RequestOutcome,
};
pub use stats::{all_phase_stats, phase_stats, CensoredQuantile, PhaseStats};
pub use sys::client::{connect_socket, run_probe, ProbeLog};
pub use sys::echo::{EchoResponder, EchoStats, MAX_DRAIN_PER_CALL};

/// Errors of this crate; each message names the operation that failed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// Binding a UDP socket failed.
    #[error("probe: bind UDP socket to {addr} failed: {source}")]
    Bind {
        /// Address we tried to bind.
        addr: std::net::SocketAddr,
        /// OS error.
        source: std::io::Error,
    },
    /// Connecting the client's UDP socket failed.
    #[error("probe: connect UDP socket to {addr} failed: {source}")]
    Connect {
        /// Remote address.
        addr: std::net::SocketAddr,
        /// OS error.
        source: std::io::Error,
    },
    /// A socket operation failed; `what` names the syscall and socket.
    #[error("probe: {what} failed: {source}")]
    Socket {
        /// The operation, e.g. "recvfrom on echo socket".
        what: &'static str,
        /// OS error.
        source: std::io::Error,
    },
    /// A configuration value is unusable.
    #[error("probe: invalid config: {0}")]
    Config(String),
}
