//! Writing and reading one JSON file. A write goes through
//! [`netlab_os::atomic`] (temporary file, fsync, rename, fsync of the
//! folder), so a reader, or a run killed at any instant, sees the previous
//! complete version or the new one, never a part of either.

use std::path::{Path, PathBuf};

use netlab_os::atomic::{AtomicFile, Durability, FileError};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Why a results file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ResultsFileError {
    /// The value did not serialise.
    #[error("serializing {path}: {source}")]
    Serialize {
        /// The file being written.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// A file operation failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// The step (`writing`, `syncing`, `renaming into place`, …).
        what: &'static str,
        /// The file it was applied to.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not JSON of the expected shape.
    #[error("reading {path}: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
}

impl From<FileError> for ResultsFileError {
    fn from(e: FileError) -> ResultsFileError {
        ResultsFileError::Io {
            what: e.what,
            path: e.path,
            source: e.source,
        }
    }
}

/// An I/O error of step `what` on `path`, for `map_err`.
pub(crate) fn io(
    what: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> ResultsFileError {
    let path = path.to_path_buf();
    move |source| ResultsFileError::Io { what, path, source }
}

/// Writes `v` as pretty JSON to `path` atomically and durably.
pub fn write_json_atomic<T: Serialize>(path: &Path, v: &T) -> Result<(), ResultsFileError> {
    let text = serde_json::to_vec_pretty(v).map_err(|source| ResultsFileError::Serialize {
        path: path.to_path_buf(),
        source,
    })?;
    let mut f = AtomicFile::create(path)?;
    std::io::Write::write_all(&mut f, &text).map_err(f.error("writing"))?;
    Ok(f.commit(Durability::Synced)?)
}

/// Reads a JSON file into `T` (no version check: see [`crate::Results::read`]
/// for results.json itself).
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, ResultsFileError> {
    let text = std::fs::read(path).map_err(io("reading", path))?;
    serde_json::from_slice(&text).map_err(|source| ResultsFileError::Parse {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_reads_back_what_it_writes_and_errors_name_the_file() {
        let dir = netlab_os::testing::Scratch::new("file-json");
        let path = dir.0.join("results.json");
        write_json_atomic(&path, &vec![1, 2, 3]).unwrap();
        assert_eq!(read_json::<Vec<u32>>(&path).unwrap(), [1, 2, 3]);
        let e = read_json::<String>(&path).unwrap_err().to_string();
        assert!(
            e.starts_with("reading ") && e.contains("results.json"),
            "{e}"
        );
        let e = read_json::<Vec<u32>>(&dir.0.join("none.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("none.json"), "{e}");
        // The write goes through a temporary file: where it cannot be
        // created, the previous version stays.
        std::fs::create_dir(netlab_os::atomic::temp_path(&path)).unwrap();
        let e = write_json_atomic(&path, &"new").unwrap_err().to_string();
        assert!(e.starts_with("creating "), "{e}");
        assert_eq!(read_json::<Vec<u32>>(&path).unwrap(), [1, 2, 3]);
    }
}
