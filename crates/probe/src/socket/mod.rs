//! The probe on real UDP sockets: with [`crate::clock`], the only code in
//! this crate that does I/O.
//!
//! [`echo`] is the non-blocking echo responder and its handler for B's
//! event loop;
//! [`client`] runs the pure [`crate::schedule::ProbeClient`] against a real
//! connected UDP socket; [`iso`] runs the isochronous
//! [`crate::iso::IsoClient`].

pub mod client;
pub mod echo;
pub mod iso;
