//! netlab-analysis: every figure netlab computes from results.json, and
//! nothing that draws or writes it.
//!
//! [`ReportBuilder`] reduces a run's scenarios, one at a time, to the
//! samples the figures are computed from ([`records::ReportInput`]);
//! [`input_from`] does it for a run already in memory. From that input come
//! the comparisons between arms and their verdicts ([`compare`]), the
//! standing states of the TCP senders ([`state`]), the probes' fates and
//! deliveries ([`delivery`]), the models' predictions ([`predict`],
//! [`sweep_model`]), a sweep's table ([`sweep`]) and the headline
//! ([`headline`]); what summary.md says of each scenario is reduced to
//! its small figures ([`summary`]). Everything here is a pure function of its
//! arguments: netlab-report draws, pages and exports these figures, and
//! netlab-crosscheck reuses them.
//!
//! ```no_run
//! # fn results() -> netlab_results::Results { unimplemented!() }
//! let input = netlab_analysis::input_from(&results())?;
//! let stats = netlab_analysis::compare::analyse(&input);
//! let headline = netlab_analysis::headline::of(&input, &stats);
//! println!("{}", headline.markdown());
//! # Ok::<(), netlab_analysis::InputError>(())
//! ```
//!
//! The statistics underneath (Kaplan–Meier, the rank interval over rounds,
//! the seeded bootstrap, medians) are netlab-stats'; the method is
//! described in docs/report.md.

#![forbid(unsafe_code)]

pub mod arms;
pub mod compare;
pub mod delivery;
pub mod headline;
pub mod hosts;
mod input;
pub mod ladder;
pub mod path_seen;
pub mod points;
pub mod predict;
pub mod readbacks;
pub mod records;
mod sentence;
pub mod state;
pub mod summary;
pub mod sweep;
mod sweep_headline;
pub mod sweep_model;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

use netlab_stats as stats;

pub use input::{input_from, ReportBuilder};

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
