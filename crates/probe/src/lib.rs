//! netlab-probe: the UDP latency probe of method §5.
//!
//! * [`EchoResponder`] (B): a non-blocking UDP echo that a `poll` loop
//!   drives (register [`EchoResponder::as_fd`], call
//!   [`EchoResponder::drain`] when readable); [`EchoHandler`] is it as a
//!   handler of B's single event loop (`netlab_os::event_loop`), which
//!   whoever wires B registers beside tcpload's receiver: one for the
//!   stop-and-wait probe's echo, one for the isochronous probe's.
//! * [`ProbeClient`] (pure): the request schedule — one outstanding request,
//!   200 ms spacing from the previous send without catch-up, 1 s timeout,
//!   stale replies discarded, nothing new in the last second, at most 100
//!   requests, phase by send time. See [`schedule`] for the exact rules.
//! * [`run_probe`] (A): drives a [`ProbeClient`] on a connected UDP socket
//!   (4-byte big-endian sequence numbers) and returns a [`ProbeLog`] with
//!   every request.
//! * [`stats`] (pure): per-phase counts, p50 (lower median) / p95 (nearest
//!   rank) of successes, and the censoring-aware [`RankQuantile`] view.
//!
//! Beside it, the **isochronous probe**, for dense distributions:
//! * [`IsoClient`] (pure, [`iso`]): a request every `interval` (default
//!   20 ms, down to 1 ms) on a fixed grid whatever is outstanding; missed
//!   slots recorded, never a catch-up burst; replies matched by seq; late
//!   (kept, never successes), duplicate, malformed and unmatched replies
//!   counted.
//! * [`run_iso_probe`] (A): drives it on a connected socket with 40-byte
//!   stamped requests ([`wire`]) and returns an [`IsoLog`].
//! * [`iso_stats`] (pure): per phase and per 1 s window, p50/p95/p99 over
//!   successes with their counts, the censored view ("≥ timeout"), and the
//!   one-way delays.
//! * **Exact one-way delays.** The [`EchoResponder`] answers a stamped
//!   request with its CLOCK_MONOTONIC receive and send times. A and B read
//!   the same kernel clock — network namespaces share CLOCK_MONOTONIC, and
//!   so do A and B inside one guest — so up (A→B) = B receive − A send and
//!   down (B→A) = A receive − B send are exact, with no clock
//!   synchronisation (irtt or crusader can only estimate them across
//!   machines). This holds only because the clock is shared: in the
//!   real-host roles (A and B on different machines) the caller sets
//!   [`IsoConfig::shared_clock`] to false and up/down are absent. They are
//!   kept apart from the RTT (which needs one clock only).
//!
//! The stop-and-wait probe is untouched on the wire: its 4-byte requests are echoed
//! byte for byte as before; only 40-byte datagrams with the `NLIP` magic
//! and version 1 are stamped.
//!
//! The cargo feature `net` (docs/architecture.md, "Pure builds") holds the
//! sockets ([`socket`]) and the clock ([`clock`]), with nix. Without it the
//! crate is the pure state machines, statistics and wire format, and
//! [`record`]: the logs results.json holds.
//!
//! ```no_run
//! # #[cfg(feature = "net")]
//! # fn main() -> Result<(), netlab_probe::ProbeError> {
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
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "net"))] // the example needs the sockets
//! # fn main() {}
//! ```
//!
//! The isochronous probe against the same kind of echo (its own port):
//!
//! ```no_run
//! # #[cfg(feature = "net")]
//! # fn main() -> Result<(), netlab_probe::ProbeError> {
//! use std::sync::atomic::AtomicBool;
//! use std::time::{Duration, Instant};
//! use netlab_probe::{connect_socket, run_iso_probe, IsoConfig};
//!
//! let t0 = Instant::now();
//! let stop = AtomicBool::new(false);
//! let sock = connect_socket(None, "127.0.0.1:46022".parse().unwrap())?;
//! let cfg = IsoConfig {
//!     interval: Duration::from_millis(20),
//!     shared_clock: true, // A and B on one kernel
//!     ..IsoConfig::with_end(Duration::from_secs(18))
//! };
//! let log = run_iso_probe(&sock, t0, &cfg, Some(&stop), |_| {})?;
//! for p in log.phase_stats() {
//!     let s = &p.stats;
//!     println!(
//!         "{:?}: sent {} ok {} censored {} (late {}) missed {} p99 {:?} up p50 {:?}",
//!         p.phase, s.sent, s.ok, s.censored, s.late, s.missed,
//!         s.rtt_censored.p99, s.up.and_then(|u| u.p50_ms)
//!     );
//! }
//! println!("{:?}: {}", log.one_way_delays, log.one_way_note);
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "net"))] // the example needs the sockets
//! # fn main() {}
//! ```
#![forbid(unsafe_code)]

#[cfg(feature = "net")]
pub mod clock;
pub mod iso;
pub mod iso_stats;
pub mod record;
#[cfg(feature = "net")]
pub mod role;
pub mod schedule;
#[cfg(feature = "net")]
pub mod socket;
pub mod stats;
pub mod wire;

pub use iso::{IsoAction, IsoClient, IsoConfig, IsoOutcome, IsoRequest, IsoVerdict, ReplyCounters};
pub use iso_stats::{
    iso_phase_stats, iso_summary, iso_window_stats, IsoPhaseStats, IsoSummary, IsoWindowStats,
    Quantiles, RankQuantiles,
};

pub use record::{
    EchoReceipt, EchoStats, IsoLog, OneWayDelays, ProbeLog, ONE_WAY_NOT_SHARED_NOTE,
    ONE_WAY_SHARED_NOTE,
};
pub use schedule::{
    Phase, PhaseBounds, ProbeAction, ProbeClient, ProbeConfig, ProbeRequest, ReplyVerdict,
    RequestOutcome,
};
#[cfg(feature = "net")]
pub use socket::client::{connect_socket, run_probe};
#[cfg(feature = "net")]
pub use socket::echo::{
    probe_seq, EchoHandler, EchoOutcome, EchoResponder, MAX_DRAIN_PER_CALL, MAX_RECEIPTS,
};
#[cfg(feature = "net")]
pub use socket::iso::{run_iso_probe, spin_margin};
pub use stats::{all_phase_stats, phase_stats, PhaseStats, RankQuantile};

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
