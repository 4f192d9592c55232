//! netlab-results: results.json, owned in one place. Its shape as typed
//! values ([`Results`], schema_version 4; versions 2 and 3 have the same
//! shape without its newer optional fields), one reader for every version
//! this netlab knows ([`Results::read`]; version 1 is read in its own shape
//! and migrated, [`v1`]), a reader that hands over one scenario at a time
//! ([`stream::read_each`]), the byte-exact splitter that merge and resume
//! copy scenarios with ([`split`]), the scenario store a run writes
//! through ([`ScenarioFiles`]), and the merge of a sharded run's folders
//! into one ([`merge`]). Every file is written through
//! [`netlab_os::atomic`] (temporary file, fsync, rename).
//!
//! Everything a figure in the summary comes from is here, raw: every probe
//! request, every recv-time series bin, every tcp_info sample, every qdisc
//! readback with its bytes. The crates' own types are held as they are
//! (so this crate links them; it opens no socket and enters no namespace);
//! the few records shaped here (the flat tcp_info sample, the sampled
//! qdisc counters, the ECN evidence with its `kernel_drops` alias) keep the
//! keys schema 1 has always had. Every type reads back what it writes.
//!
//! Version 2 records the experiment as run (resolved, every default
//! spelled out), per scenario its sweep point and seed, per flow its own
//! block, per direction the aggregate goodput and Jain's fairness index, and
//! the qdiscs of each of R's egresses. An unknown version is refused before
//! its shape is read.
//!
//! ```no_run
//! use netlab_results::Results;
//! let run = Results::read("results/seed-20261130T193513Z/results.json".as_ref())?;
//! for s in &run.scenarios {
//!     let goodput = s.directions.first().and_then(|d| d.goodput_mbps);
//!     println!("round {} {}: {goodput:?} Mbit/s", s.round, s.arm);
//! }
//! // The same, one scenario in memory at a time:
//! let header = netlab_results::stream::read_each(
//!     "results/seed-20261130T193513Z/results.json".as_ref(),
//!     |_experiment, s| println!("{} {}", s.index, s.arm),
//! )?;
//! println!("run {} ({} notes)", header.run_id, header.notes.len());
//! # Ok::<(), netlab_results::ReadError>(())
//! ```

#![forbid(unsafe_code)]

pub mod bottleneck;
pub mod fate;
mod file;
pub mod hosts;
pub mod judge;
pub mod link;
pub mod merge;
pub mod models_record;
mod qdiscs;
pub mod queue_seen;
mod read;
pub mod resume;
mod run;
mod scenario;
pub mod shares;
pub mod split;
mod step_sums;
mod steps;
pub mod store;
pub mod stream;
mod tcp_info;
#[cfg(feature = "testing")]
pub mod testing;
pub mod v1;
mod v1_config;

pub use bottleneck::{Bottleneck, CpuUse, DirectionBottleneck, Verdict};
pub use file::{read_json, write_json_atomic, ResultsFileError};
pub use hosts::HostResult;
pub use link::{link_bins, LinkBin, LinkResult};
pub use qdiscs::{QdiscResult, QdiscSample, ReadbackDump, RequestRecord, SampledQdisc};
pub use queue_seen::{queue_seen, QueueSeen};
pub use read::{file_in, open, ReadError, SUPPORTED_SCHEMAS};
pub use run::{
    Interrupted, KernelInfo, MergeRecord, MergeSource, Results, ShardRecord, Tool, SCHEMA_VERSION,
};
pub use scenario::{
    directions_of, CleanupResult, DirectionResult, EcnResult, FlowResult, IsoProbeResult,
    PointResult, ProbePhases, ProbeResult, RanOn, ReceiverSummary, ScenarioResult, SenderSummary,
    TcpInfoSamplerResult, TcpResult, TopologyResult,
};
pub use step_sums::StepSums;
pub use steps::{RunSteps, ScenarioSteps};
pub use store::ScenarioFiles;
