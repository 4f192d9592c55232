//! netlab experiment files: what an experiment says, checked before anything
//! touches the network.
//!
//! An experiment (TOML) names the arms, the path (a TBF + arm bottleneck per
//! direction, a base RTT added by netem off the measured queue), the TCP
//! flows (direction, congestion control, ECN, start/stop, port), the probes,
//! the sender hosts behind R (`[[hosts]]`), the rounds and an optional
//! sweep grid. [`parse`] reads and resolves it
//! (defaults filled, every value checked, refusals naming the key, e.g.
//! `flows[2].cc: unknown congestion control "cubc"`); [`Experiment::plan`]
//! turns it into the ordered scenarios, a pure function; and
//! [`Experiment::to_toml`] prints it back with every default spelled out.
//!
//! ```
//! let exp = netlab_experiment::parse(r#"
//!     arms = ["pfifo limit 256", "fq_codel ecn"]
//!     rounds = 2
//!     [path]
//!     base_rtt = "40ms"
//!     [[flows]]
//!     cc = "cubic"
//!     [[flows]]
//!     direction = "down"
//! "#).unwrap();
//! let plan = exp.plan();
//! assert_eq!(plan.scenarios.len(), 4); // 2 rounds × 2 arms
//! assert_eq!(plan.scenarios[1].arm.words, "fq_codel ecn");
//! assert!(exp.requirements().qdiscs.contains("netem"));
//! // What --print-experiment shows reads back to the same experiment.
//! assert_eq!(netlab_experiment::parse(&exp.to_toml()).unwrap(), exp);
//! ```
#![forbid(unsafe_code)]

mod check;
pub mod dctcp;
pub mod file;
pub mod hash;
pub mod hosts;
pub mod link;
pub mod listing;
pub mod model;
pub mod models;
pub mod plan;
pub mod probes;
mod resolve;
pub mod shard;
mod sweep;
pub mod trace;
pub mod units;
pub mod warnings;

pub use check::{check_cc, KNOWN_CCS};
pub use file::ExperimentFile;
pub use hosts::{HostSpec, MAX_HOSTS};
pub use link::{RateSchedule, RateStep, TraceOrigin, HOLD_RATE};
pub use listing::{PlanListing, PlannedLine};
pub use model::frame_over_burst;
pub use model::{
    check_mtu, ArmSpec, AxisValue, CaptureSpec, Direction, Experiment, FlowSpec, KernelChoice,
    Offloads, PathSpec, PcapMode, ProbeKind, ProbeSpec, ReceiveBuffer, Sweep, Timeline,
    DEFAULT_ARMS, DEFAULT_MTU, DEFAULT_PCAP_MAX_BYTES, DEFAULT_PCAP_SNAP_LEN, IPV4_UDP_HEADERS,
    LINK_HEADER, MAX_ISO_SLOTS, MAX_PCAP_SNAP_LEN, MIN_ISOCHRONOUS_SIZE, MIN_PCAP_MAX_BYTES,
    MIN_PCAP_SNAP_LEN, MIN_PROBE_INTERVAL, MIN_STOP_AND_WAIT_SIZE,
};
pub use models::ModelKind;
pub use plan::{Plan, Point, Requirements, ScenarioPlan};
pub use shard::{unit_of, Shard, ShardError};
pub use trace::{Trace, TraceError};
pub use warnings::{grouped, warnings, LinkAssumptions, Warning, WarningGroup, WarningKind};

/// Why an experiment was refused. Every variant is a usage error (the
/// binary exits 2): nothing has been touched yet.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExperimentError {
    /// The text is not TOML, or a key is unknown or of the wrong type.
    #[error("{key}: {reason}")]
    Syntax {
        /// Path of the offending key (`flows[2].cc`), or `(file)`.
        key: String,
        /// What the TOML reader said.
        reason: String,
    },
    /// A value is impossible.
    #[error("{key}: {reason}")]
    Key {
        /// Path of the offending key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// The file could not be read.
    #[error("reading {path}: {reason}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        reason: String,
    },
}

impl ExperimentError {
    /// The key the refusal names (`(file)` when it concerns the whole file).
    pub fn key(&self) -> &str {
        match self {
            ExperimentError::Syntax { key, .. } | ExperimentError::Key { key, .. } => key,
            ExperimentError::Read { .. } => "(file)",
        }
    }
}

/// Reads TOML into the file form; unknown keys and wrong types are refused
/// with the key's path.
pub fn parse_file(text: &str) -> Result<ExperimentFile, ExperimentError> {
    let de = toml::Deserializer::parse(text).map_err(|e| ExperimentError::Syntax {
        key: "(file)".to_string(),
        reason: one_line(&e.to_string()),
    })?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        ExperimentError::Syntax {
            key: if path == "." || path.is_empty() {
                "(file)".to_string()
            } else {
                path
            },
            reason: one_line(&e.into_inner().to_string()),
        }
    })
}

fn one_line(s: &str) -> String {
    // toml's messages quote the offending line with a caret; keep the first
    // sentence, which names the problem.
    let mut lines = s.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("").trim().to_string();
    match s
        .lines()
        .find(|l| !l.contains('|') && !l.trim().is_empty() && !l.starts_with("TOML parse error"))
    {
        Some(reason) if first.starts_with("TOML parse error") => {
            format!(
                "{} ({})",
                reason.trim(),
                first.trim_start_matches("TOML parse error ").trim()
            )
        }
        _ => first,
    }
}

/// Parses and resolves an experiment (a relative `trace` path is read
/// from the current folder).
pub fn parse(text: &str) -> Result<Experiment, ExperimentError> {
    Experiment::from_file(&parse_file(text)?)
}

/// Reads, parses and resolves an experiment file; a relative `trace` path
/// is read from the file's folder.
pub fn load(path: &std::path::Path) -> Result<Experiment, ExperimentError> {
    let text = std::fs::read_to_string(path).map_err(|e| ExperimentError::Read {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    Experiment::from_file_in(&parse_file(&text)?, path.parent())
}

impl Experiment {
    /// The experiment as TOML with every default spelled out.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.to_file()).expect("the file form always serializes")
    }
}

#[cfg(test)]
mod tests;
