//! netlab-qdisc-model: the bottleneck of method §2 as values, with no
//! socket and no namespace (as netlink-packet-route is to rtnetlink).
//!
//! * Describe it with types: a root [`Tbf`] (`rate 5mbit burst 16kb limit
//!   64kb`) and a child [`Arm`] (`pfifo limit 256`, `fq_codel ... ecn`, ...)
//!   parsed from the words a person would give `tc`, printed back as tc
//!   prints them; rates, sizes and times as tc reads them ([`Rate`],
//!   [`Size`], [`parse_time`]); [`netem`] for the path's delay.
//! * Build the RTM_NEWQDISC requests as plain values ([`QdiscRequest`]:
//!   the bytes as hex and the equivalent `tc` argv).
//! * Decode a qdisc dump ([`decode_dump`], [`Readback::from_dump`]) into
//!   [`QdiscRecord`]s with options, counters and each kind's xstats, and
//!   print one the way `tc qdisc show` does ([`QdiscRecord::tc_show`]).
//!
//! Sending the requests and taking the dumps is netlab-qdisc's, which
//! re-exports everything here under its own paths.
//!
//! TBF's request is what iproute2 sends minus `TCA_TBF_RTAB`: the kernel
//! only reads the rate table when the rate's link layer is unset, and we
//! set it (ethernet), as tc does.
//!
//! ```
//! use netlab_qdisc_model::{Arm, BottleneckSpec, Psched};
//! # fn main() -> Result<(), netlab_qdisc_model::ModelError> {
//! let arm = Arm::parse("fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn")?;
//! assert_eq!(arm.tc_words().join(" "),
//!            "limit 256 memory_limit 1mb target 5ms interval 100ms ecn");
//! let bottleneck = BottleneckSpec::spec(arm);
//! let requests = bottleneck.requests("r1", 3, &Psched::MODERN)?;
//! assert_eq!(requests[0].tc_argv.join(" "),
//!            "tc qdisc add dev r1 root handle 1: tbf rate 5mbit burst 16kb limit 64kb");
//! assert!(Arm::parse("fq_codel ecn bogus").is_err());
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

mod arm;
mod decode;
mod error;
mod handle;
pub mod netem;
mod rate_log;
mod raw;
mod readback;
mod request;
mod show;
mod stats;
mod tbf;
mod tbf_change;
mod units;

pub use arm::cake::{CakeReadback, CakeTinStats, CakeXstats};
pub use arm::codel::{CodelReadback, CodelXstats};
pub use arm::fq::{FqReadback, FqXstats};
pub use arm::fq_codel::{FqCodelReadback, FqCodelXstats};
pub use arm::fq_pie::{FqPieReadback, FqPieXstats};
pub use arm::pie::{PieReadback, PieXstats};
pub use arm::{
    absent_from_pinned_guest, module_for_kind, Arm, Bfifo, Cake, Codel, Fq, FqCodel, FqPie, Pfifo,
    Pie, KNOWN_KINDS,
};
pub use decode::{decode_dump, decode_qdisc, QdiscOptions, QdiscRecord, QdiscXstats, TbfReadback};
pub use error::ModelError;
pub use handle::Handle;
pub use rate_log::{lateness_ms, RateChange, RateLog, TbfReading};
pub use raw::RawAttr;
pub use readback::{Readback, SampleFailure, SampleSeries, SamplerStop};
pub use request::{
    arm_request, bare_request, delete_request_bytes, dump_request_bytes, tbf_request,
    BottleneckSpec, QdiscRequest, ARM_HANDLE, ARM_PARENT, TBF_HANDLE,
};
pub use stats::QdiscStats;
pub use tbf::{Psched, RateSpec, Tbf, TbfQopt};
pub use tbf_change::{fifo_child_limit, tbf_change_request};
pub use units::{format_time, parse_time, Rate, Size};
pub use units::{tc_rate32, tc_rate64, tc_size, tc_time64_ns, tc_time_us, tc_unsigned};
