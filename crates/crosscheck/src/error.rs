//! The crate's one error type.

use std::path::PathBuf;

/// Errors of a cross-check run; each message names the step that failed.
#[derive(Debug, thiserror::Error)]
pub enum CrosscheckError {
    /// A configuration value is unusable.
    #[error("crosscheck: invalid config: {0}")]
    Config(String),
    /// A step of a scenario failed (building, configuring, a socket).
    #[error("crosscheck: {step}: {detail}")]
    Step {
        /// What was being done, e.g. "building A–R–B".
        step: String,
        /// The underlying error, as text.
        detail: String,
    },
    /// An external tool (iperf3, irtt, tc, ss) failed or its output did not
    /// parse.
    #[error("crosscheck: {tool}: {detail}")]
    Tool {
        /// The tool and its role, e.g. "iperf3 client in A".
        tool: String,
        /// What went wrong, with the tool's stderr when there is one.
        detail: String,
    },
    /// Writing the markdown page or the raw data failed.
    #[error("crosscheck: writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// OS error.
        source: std::io::Error,
    },
}

impl CrosscheckError {
    /// A [`CrosscheckError::Step`] from any displayable error.
    pub fn step(step: impl Into<String>, detail: impl std::fmt::Display) -> Self {
        CrosscheckError::Step {
            step: step.into(),
            detail: detail.to_string(),
        }
    }

    /// A [`CrosscheckError::Tool`] from any displayable error.
    pub fn tool(tool: impl Into<String>, detail: impl std::fmt::Display) -> Self {
        CrosscheckError::Tool {
            tool: tool.into(),
            detail: detail.to_string(),
        }
    }
}
