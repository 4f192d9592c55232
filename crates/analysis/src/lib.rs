//! netlab-analysis: every figure netlab computes from results.json, and
//! nothing that draws or writes it.
//!
//! The entry point is [`input_from`] (or [`ReportBuilder`], one scenario
//! at a time): it reduces a run's results to the samples the figures are
//! computed from, a [`ReportInput`]. From that input come
//!
//! - the comparisons between arms and their verdicts ([`compare::analyse`]);
//! - the headline, one line per arm ([`headline::Headline::of`]);
//! - the delay over the measured window as its time saw it, every
//!   sample's fate apart ([`window::WindowDelay`]);
//! - the standing states of the TCP senders ([`state`]);
//! - the probes' fates and deliveries ([`ArmDelivery`]);
//! - the models' predictions ([`fifo_delay_bound`], [`SparseFlow`]) and a
//!   sweep's table with the models beside it ([`sweep::SweepTable::of`]);
//! - what summary.md says of each scenario, reduced to its small figures
//!   ([`summary`]);
//! - what the queue did when the bottleneck's rate moved ([`link`]);
//! - an arm's label, its tc words rather than its kind ([`ArmLabels`]),
//!   and the rate ladder's table ([`Rung`]).
//!
//! Everything here is a pure function of its arguments: netlab-report
//! draws, pages and exports these figures, and netlab-crosscheck reuses
//! them.
//!
//! ```
//! use netlab_analysis::{compare, headline::Headline};
//!
//! // A real one-round run of the user-mode-linux guest: pfifo against
//! // fq_codel at 5 Mbit/s (fixtures/orchestrator/golden).
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/orchestrator/golden/results.json");
//! let results = netlab_results::Results::read(path.as_ref()).unwrap();
//!
//! let input = netlab_analysis::input_from(&results)?;
//! let stats = compare::analyse(&input);
//! let headline = Headline::of(&input, &stats);
//! assert_eq!(input.scenarios.len(), 2);
//! assert!(headline.markdown().contains("goodput r1 4.24 Mbit/s (1 cut, changed inside the window)"));
//! # Ok::<(), netlab_analysis::InputError>(())
//! ```
//!
//! The statistics underneath (Kaplan–Meier, the rank interval over rounds,
//! the seeded bootstrap, medians) are netlab-stats'; the method is
//! described in docs/report.md. scripts/public-items.sh counts this
//! crate's public surface.

#![forbid(unsafe_code)]

mod arms;
pub mod compare;
mod comparison;
mod delivery;
pub mod headline;
pub mod headline_table;
pub mod host_conditions;
pub mod hosts;
mod input;
mod ladder;
pub mod link;
pub mod link_series;
pub mod path_seen;
mod points;
mod predict;
mod queue_counts;
mod readbacks;
pub mod records;
mod row_model;
mod sentence;
pub mod state;
pub mod summary;
pub mod sweep;
mod sweep_headline;
mod sweep_model;
mod table;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod window;

use netlab_stats as stats;

pub use arms::ArmLabels;
pub use delivery::{iso_slot_delays, own_bound_ms, ArmDelivery, LossCount, SlotCounts, WhichProbe};
pub use input::{input_from, ReportBuilder, ReportInput};
pub use ladder::Rung;
pub use points::PointInput;
pub use predict::{fifo_delay_bound, Regime, SparseFlow, SparsePrediction};
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
