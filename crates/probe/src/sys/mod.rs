//! The I/O edge: the only code in this crate that touches sockets and clocks.
//!
//! [`echo`] is the non-blocking echo responder that B's event loop drives;
//! [`client`] runs the pure [`crate::schedule::ProbeClient`] against a real
//! connected UDP socket.

pub mod client;
pub mod echo;
