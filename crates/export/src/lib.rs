//! netlab-export: the report's input written as the data files other tools
//! read.
//!
//! - [`flent`]: one `.flent.gz` per scenario that Flent's own plotting
//!   loads (docs/flent.md);
//! - [`tables`]: probes.csv and flows.csv, a row per probe request and per
//!   flow bin, a scenario's rows at a time (docs/usage.md, "Flat tables");
//! - [`sweep_file`]: a sweep's table as sweep.csv and sweep.json, and
//!   sweep.json read back (docs/report.md, "Sweep data").
//!
//! Everything here is a pure function of netlab-analysis' figures: it
//! returns bytes or text, and netlab-report puts them in the results
//! folder beside the pages and figures.

#![forbid(unsafe_code)]

pub mod flent;
pub mod sweep_file;
pub mod tables;

/// A scenario the Flent export cannot write honestly (a t0 that is not an
/// RFC 3339 UTC time), or a file that could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("flent export of scenario {scenario}: {message}")]
pub struct FlentError {
    /// Scenario index.
    pub scenario: u32,
    /// What failed.
    pub message: String,
}
