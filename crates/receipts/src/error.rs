//! The one error type of this crate.

use std::io;
use std::path::PathBuf;

/// What can go wrong while keeping the registry and its state file.
#[derive(Debug, thiserror::Error)]
pub enum ReceiptsError {
    /// Reading, writing or removing a state file failed.
    #[error("{action} state file {path}: {source}")]
    StateFile {
        /// `writing`, `reading`, `removing`, ...
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// A state file is not valid JSON of the expected shape.
    #[error("state file {path} is malformed: {reason}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// Reading `/proc/<pid>/stat` failed.
    #[error("reading /proc/{pid}/stat: {reason}")]
    Process {
        /// The pid.
        pid: i32,
        /// What was wrong.
        reason: String,
    },
    /// Installing the SIGINT/SIGTERM handler failed.
    #[error("installing the SIGINT/SIGTERM handler: {0}")]
    Signal(#[source] io::Error),
}
