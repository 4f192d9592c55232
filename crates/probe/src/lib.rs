//! netlab-probe: the UDP latency probe of SPEC §5.
//!
//! * [`EchoResponder`]: a non-blocking UDP echo that B's single `poll` event
//!   loop drives (register [`EchoResponder::as_fd`], call
//!   [`EchoResponder::drain`] when readable).
//!
//! ```no_run
//! use netlab_probe::EchoResponder;
//! let mut echo = EchoResponder::bind("127.0.0.1:46021".parse().unwrap())?;
//! // in the poll loop, when echo.as_fd() is readable:
//! let n = echo.drain()?;
//! println!("echoed {n}, totals {:?}", echo.stats());
//! # Ok::<(), netlab_probe::ProbeError>(())
//! ```
#![forbid(unsafe_code)]

pub mod sys;

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
