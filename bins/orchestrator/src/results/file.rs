//! Writing and reading results.json. A write goes to a temporary file in the
//! same folder, is flushed to disk, then renamed over the old file, so a
//! reader (or a run killed at any instant) sees the previous complete
//! version or the new one, never a part of either.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Why results.json could not be written or read.
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
    /// The file is not a results.json this version reads.
    #[error("reading {path}: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
}

pub(super) fn io(
    what: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> ResultsFileError {
    let path = path.to_path_buf();
    move |source| ResultsFileError::Io { what, path, source }
}

/// The temporary file a write of `path` goes through (same folder, so the
/// rename stays on one filesystem).
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(
        || "results.json".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Writes `v` as pretty JSON to `path` atomically: temp file, fsync, rename,
/// then fsync of the folder so the rename itself is durable.
pub fn write_json_atomic<T: Serialize>(path: &Path, v: &T) -> Result<(), ResultsFileError> {
    let text = serde_json::to_vec_pretty(v).map_err(|source| ResultsFileError::Serialize {
        path: path.to_path_buf(),
        source,
    })?;
    let tmp = temp_path(path);
    let written = (|| {
        let mut f = File::create(&tmp).map_err(io("creating", &tmp))?;
        f.write_all(&text).map_err(io("writing", &tmp))?;
        f.sync_all().map_err(io("syncing", &tmp))
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(io("renaming into place", path)(e));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Durability of the rename; a folder that cannot be opened for it
        // (some filesystems) still has the complete file in place.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Reads a JSON file into `T`.
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

    use crate::scratch::Scratch;

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_temp_file() {
        let dir = Scratch::new("results-replace");
        let path = dir.0.join("results.json");
        write_json_atomic(&path, &vec![1, 2, 3]).unwrap();
        write_json_atomic(&path, &vec![4]).unwrap();
        let back: Vec<u32> = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back, vec![4]);
        let names: Vec<_> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("results.json")]);
    }

    #[test]
    fn a_failed_write_keeps_the_previous_version() {
        let dir = Scratch::new("results-fail");
        let path = dir.0.join("results.json");
        write_json_atomic(&path, &"complete").unwrap();
        // The temp file's place is taken by a folder: creating it fails.
        std::fs::create_dir(temp_path(&path)).unwrap();
        assert!(write_json_atomic(&path, &"new").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "\"complete\"");
    }

    const WRITER_ENV: &str = "NETLAB_TEST_ATOMIC_WRITER";

    /// The writer half of the SIGKILL test: run as a child process, it
    /// rewrites a large file as fast as it can until it is killed.
    #[test]
    fn atomic_writer_child() {
        let Ok(path) = std::env::var(WRITER_ENV) else {
            return; // Only meaningful as the child of the test below.
        };
        let path = PathBuf::from(path);
        // Large versions, so most of the time is spent writing the file.
        let body = "x".repeat(BODY_LEN);
        for version in 0u64.. {
            write_json_atomic(&path, &(version, &body)).unwrap();
        }
    }

    const BODY_LEN: usize = 8 << 20;

    /// Checked against a mutant that streams JSON straight into results.json
    /// through a BufWriter: it finds a truncated file within a few trials.
    #[test]
    fn sigkill_at_any_instant_leaves_the_last_complete_version() {
        use std::process::{Command, Stdio};
        let dir = Scratch::new("results-sigkill");
        let path = dir.0.join("results.json");
        let me = std::env::current_exe().unwrap();
        let mut last_seen = None;
        for trial in 0..12u64 {
            let mut child = Command::new(&me)
                .args([
                    "--exact",
                    "results::file::tests::atomic_writer_child",
                    "--nocapture",
                ])
                .env(WRITER_ENV, &path)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            // Wait until a first version exists, then kill at a varying moment.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            while !path.exists() && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            std::thread::sleep(std::time::Duration::from_millis(17 * trial + 3));
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            let text = std::fs::read(&path).expect("a version is always in place");
            let (version, body): (u64, String) =
                serde_json::from_slice(&text).expect("never a truncated file");
            assert_eq!(body.len(), BODY_LEN);
            last_seen = Some(version);
        }
        assert!(last_seen.is_some());
    }
}
