//! netlab-qdisc: the bottleneck of method §2 over rtnetlink.
//!
//! The values (words, units, requests, decoding, tc's print) are the pure
//! crate netlab-qdisc-model, used from there (`netlab_qdisc_model::Arm`);
//! this crate adds what touches the kernel: the socket, apply, dumps, the
//! sampler and the support check.
//!
//! * Describe it with types: a root [`Tbf`] (`rate 5mbit burst 16kb limit
//!   64kb`) and a child [`Arm`] (`pfifo limit 256`, `fq_codel ... ecn`, ...)
//!   parsed from the words a person would give `tc`.
//! * Build the RTM_NEWQDISC requests as plain values ([`QdiscRequest`]:
//!   the bytes as hex and the equivalent `tc` argv), then send them with
//!   [`QdiscSocket::apply`] inside a namespace, which checks the ACK.
//! * Read the qdiscs back ([`Readback`]: decoded [`QdiscRecord`]s with
//!   options, counters and fq_codel xstats, plus the raw dump), any time,
//!   or every N ms with a bounded [`Sampler`].
//! * Print a decoded qdisc the way `tc qdisc show` does: [`QdiscRecord::tc_show`].
//! * Change a TBF's rate on a schedule, reading its counters between
//!   changes, without touching the arm beneath it: [`rate_driver`].
//! * Ask the kernel which kinds it lacks before a run, in a namespace the
//!   caller owns: [`support::missing_kinds`].
//!
//! TBF's request is what iproute2 sends minus `TCA_TBF_RTAB`: the kernel
//! only reads the rate table when the rate's link layer is unset, and we
//! set it (ethernet), as tc does.
//!
//! ```no_run
//! use netlab_qdisc::{QdiscSocket, read_psched, ifindex_in};
//! use netlab_qdisc_model::{Arm, BottleneckSpec};
//! # fn main() -> Result<(), netlab_qdisc::QdiscError> {
//! # let ns = netlab_topology::netns::Netns::open("nl-example-r").unwrap();
//! let arm = Arm::parse("fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn")?;
//! let bottleneck = BottleneckSpec::spec(arm);
//! let ifindex = ifindex_in(&ns, "r1")?;
//! let psched = read_psched();
//! let requests = bottleneck.requests("r1", ifindex, &psched)?;
//! assert_eq!(requests[0].tc_argv.join(" "),
//!            "tc qdisc add dev r1 root handle 1: tbf rate 5mbit burst 16kb limit 64kb");
//! let sock = QdiscSocket::open_in(&ns)?;
//! for r in &requests {
//!     sock.apply(r)?;
//! }
//! let after_config = sock.readback(ifindex, Some(0.0), &psched)?;
//! println!("{}", after_config.records.len());
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

mod error;
pub mod rate_driver;
mod sampler;
mod socket;
pub mod support;

pub use error::QdiscError;
pub use sampler::{QdiscSamplerConfig, Sampler};
pub use socket::{apply, ifindex_in, read_psched, QdiscSocket};

use std::time::Instant;

use netlab_qdisc_model::{BottleneckSpec, Psched, QdiscRequest};
use netlab_topology::netns::Netns;

/// Configures `bottleneck` on `dev` inside `ns`: resolves the interface,
/// builds both requests, applies them in order and returns them (for the
/// record) with the interface index. Fails on the first refusal.
pub fn configure(
    ns: &Netns,
    dev: &str,
    bottleneck: &BottleneckSpec,
) -> Result<Configured, QdiscError> {
    let ifindex = ifindex_in(ns, dev)?;
    let psched = read_psched();
    let requests = bottleneck.requests(dev, ifindex, &psched)?;
    let sock = QdiscSocket::open_in(ns)?;
    for r in &requests {
        sock.apply(r)?;
    }
    Ok(Configured {
        ifindex,
        psched,
        requests,
    })
}

/// What [`configure`] did.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Configured {
    /// Interface index of the bottleneck device.
    pub ifindex: u32,
    /// Tick factors used for TBF.
    pub psched: Psched,
    /// The requests that were sent, in order.
    pub requests: Vec<QdiscRequest>,
}

/// Seconds from `origin` to `now`, for `taken_at_s`.
pub fn seconds_since(origin: Instant, now: Instant) -> f64 {
    now.saturating_duration_since(origin).as_secs_f64()
}
