//! netlab-analysis: each scenario of a results.json reduced to the
//! figures its report is computed from, with nothing drawn or written.
//!
//! The entry point is [`input_from`] (or [`ReportBuilder`], one scenario
//! at a time): it reduces a run's results to the samples the figures are
//! computed from, a [`ReportInput`]. From each scenario come
//!
//! - the standing states of the TCP senders ([`state`]);
//! - the probes' fates and deliveries ([`ArmDelivery`]);
//! - the models' predictions ([`fifo_delay_bound`], [`SparseFlow`]);
//! - what summary.md says of each scenario, reduced to its small figures
//!   ([`summary`]);
//! - what the queue did when the bottleneck's rate moved ([`link`]);
//! - an arm's label, its tc words rather than its kind ([`ArmLabels`]).
//!
//! netlab-compare sets the arms against each other from this input (the
//! comparisons and their verdicts, the headline, a sweep's table);
//! netlab-figures draws, netlab-report pages and netlab-export writes
//! files. Everything here is a pure function of its arguments.
//!
//! ```
//! // A real one-round run of the user-mode-linux guest: pfifo against
//! // fq_codel at 5 Mbit/s (fixtures/orchestrator/golden).
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/orchestrator/golden/results.json");
//! let results = netlab_results::Results::read(path.as_ref()).unwrap();
//!
//! let input = netlab_analysis::input_from(&results)?;
//! assert_eq!(input.scenarios.len(), 2);
//! let goodput = input.scenarios[0].window_goodput().unwrap();
//! assert!((goodput - 4.24).abs() < 0.005, "{goodput}");
//! # Ok::<(), netlab_analysis::InputError>(())
//! ```
//!
//! The statistics underneath (Kaplan–Meier, the rank interval over rounds,
//! the seeded bootstrap, medians) are netlab-stats'; the method is
//! described in docs/report.md. scripts/public-items.sh counts this
//! crate's public surface.

#![forbid(unsafe_code)]

mod arms;
mod delivery;
pub mod host_conditions;
pub mod hosts;
mod input;
pub mod link;
pub mod link_series;
pub mod path_seen;
mod points;
mod predict;
mod queue_counts;
mod readbacks;
pub mod records;
mod scenario_values;
pub mod state;
pub mod summary;
mod table;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

use netlab_stats as stats;

pub use arms::ArmLabels;
pub use delivery::{iso_slot_delays, own_bound_ms, ArmDelivery, LossCount, SlotCounts, WhichProbe};
pub use input::{input_from, ReportBuilder, ReportInput};
pub use points::PointInput;
pub use predict::{
    fifo_delay_bound, BbrPrediction, BbrShare, MathisLaw, Regime, SparseFlow, SparsePrediction,
};
pub use readbacks::netem_base_rtt_s;
pub use table::Table;

/// A value of results.json the analysis cannot compute from honestly (a
/// non-positive probe timeout, a reply without a finite RTT, an experiment
/// that does not resolve), with the field named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("results.json: field {path}: {message}")]
pub struct InputError {
    /// Path of the field (`scenarios[2].probe.requests[5].send_s`).
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}
