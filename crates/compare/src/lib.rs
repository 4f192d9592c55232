//! netlab-compare: every figure that sets a run's arms against each
//! other, from the headline to a sweep's table.
//!
//! Its input is netlab-analysis' [`ReportInput`](netlab_analysis::ReportInput),
//! a run reduced scenario by scenario. From it come
//!
//! - the delay over the measured window as its time saw it, every
//!   sample's fate apart ([`window::WindowDelay`]);
//! - the comparisons between arms, each with an exact interval over the
//!   rounds and its verdict ([`compare::analyse`]), said in words that
//!   never claim more than the interval;
//! - the headline, one line per arm ([`headline::Headline::of`]), and the
//!   same as a table ([`headline_table`]);
//! - a sweep's table, one row per scenario with the models beside it
//!   ([`sweep::SweepTable::of`]), and the rate ladder's table over runs
//!   at several rates ([`Rung`], docs/scale.md §4).
//!
//! Everything here is a pure function of its arguments: netlab-figures
//! draws these figures, netlab-report pages them and netlab-export writes
//! a sweep's table.
//!
//! ```
//! use netlab_compare::{compare, headline::Headline};
//!
//! // A real one-round run of the user-mode-linux guest: pfifo against
//! // fq_codel at 5 Mbit/s (fixtures/orchestrator/golden).
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/orchestrator/golden/results.json");
//! let results = netlab_results::Results::read(path.as_ref()).unwrap();
//!
//! let input = netlab_analysis::input_from(&results)?;
//! let stats = compare::analyse(&input);
//! let headline = Headline::of(&input, &stats);
//! assert!(headline.markdown().contains("goodput r1 4.24 Mbit/s (1 cut, changed inside the window)"));
//! # Ok::<(), netlab_analysis::InputError>(())
//! ```
//!
//! The statistics underneath (Kaplan–Meier, the rank interval over
//! rounds, the seeded bootstrap, medians) are netlab-stats'; the method
//! is described in docs/report.md.

#![forbid(unsafe_code)]

pub mod compare;
mod comparison;
pub mod headline;
pub mod headline_table;
mod ladder;
mod row_model;
mod sentence;
pub mod sweep;
mod sweep_headline;
mod sweep_model;
pub mod window;

pub use ladder::Rung;
