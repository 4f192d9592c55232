//! The I/O edge: the only code in this crate that touches sockets and clocks.
//!
//! [`echo`] is the non-blocking echo responder and its handler for B's
//! event loop;
//! [`client`] runs the pure [`crate::schedule::ProbeClient`] against a real
//! connected UDP socket; [`iso`] runs the isochronous
//! [`crate::iso::IsoClient`]; [`clock`] reads CLOCK_MONOTONIC.

pub mod client;
pub mod clock;
pub mod echo;
pub mod iso;
