//! Replacing a file atomically, the one way netlab does it: the new
//! contents go to a temporary file in the same folder (so the rename stays
//! on one filesystem), which is synced and then renamed over the old file;
//! the folder is synced last, so the rename itself survives a crash. A
//! reader, or a process killed at any instant, sees the previous complete
//! file or the new one, never a part of either. A temporary file that is
//! not committed (an error, a panic, an early return) is removed when its
//! [`AtomicFile`] is dropped.
//!
//! ```no_run
//! use std::io::Write as _;
//! let mut f = netlab_os::atomic::AtomicFile::create("out/summary.md".as_ref())?;
//! f.write_all(b"# summary\n").map_err(f.error("writing"))?;
//! f.commit(netlab_os::atomic::Durability::Synced)?;
//! // or, for bytes already in memory:
//! netlab_os::atomic::write("out/summary.md".as_ref(), b"# summary\n")?;
//! # Ok::<(), netlab_os::atomic::FileError>(())
//! ```

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file operation that failed: the step and the file it was applied to.
#[derive(Debug, thiserror::Error)]
#[error("{what} {path}: {source}")]
pub struct FileError {
    /// The step (`creating`, `writing`, `syncing`, `renaming into place`).
    pub what: &'static str,
    /// The file it was applied to (the temporary one until the rename).
    pub path: PathBuf,
    /// The OS error.
    #[source]
    pub source: io::Error,
}

/// Whether a commit waits for the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync of the file before the rename and of the folder after it:
    /// after a crash the new file is there, complete.
    Synced,
    /// The rename only: the file is complete or absent for every reader,
    /// but a crash may lose it (working copies, or a file whose writer
    /// has synced it already).
    Unsynced,
}

/// The temporary file a write of `path` goes through:
/// `.<name>.<pid>.tmp` in the same folder.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// A new version of a file, written under [`temp_path`] until
/// [`AtomicFile::commit`] renames it into place.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
}

impl AtomicFile {
    /// Creates (or truncates) the temporary file of `path`.
    pub fn create(path: &Path) -> Result<AtomicFile, FileError> {
        let tmp = temp_path(path);
        let file = File::create(&tmp).map_err(step("creating", &tmp))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            file: Some(file),
        })
    }

    /// The temporary file, for error messages.
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// The open temporary file (for `std::io::copy` from another file,
    /// which the kernel then does by itself).
    pub fn as_file(&mut self) -> &mut File {
        self.file.as_mut().expect("open until committed")
    }

    /// An error of `what` on the temporary file, for `map_err`.
    pub fn error(&self, what: &'static str) -> impl FnOnce(io::Error) -> FileError {
        step(what, &self.tmp)
    }

    /// Renames the temporary file over the target, after syncing it when
    /// `durability` says so (and the folder after the rename). On an error
    /// the temporary file is removed and the target is left as it was.
    pub fn commit(mut self, durability: Durability) -> Result<(), FileError> {
        let file = self.file.take().expect("open until committed");
        if durability == Durability::Synced {
            file.sync_all().map_err(step("syncing", &self.tmp))?;
        }
        drop(file);
        std::fs::rename(&self.tmp, &self.path).map_err(step("renaming into place", &self.path))?;
        // Renamed: nothing left for the drop to remove.
        self.tmp = PathBuf::new();
        if durability == Durability::Synced {
            if let Some(dir) = self.path.parent() {
                sync_dir(dir);
            }
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.as_file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.as_file().flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            self.file = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Replaces `path` by `bytes`, synced ([`Durability::Synced`]).
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(f.error("writing"))?;
    f.commit(Durability::Synced)
}

/// Syncs a folder so the renames in it are durable. Best effort: some
/// filesystems cannot open a folder for it, and the files are in place.
pub fn sync_dir(dir: &Path) {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

fn step(what: &'static str, path: &Path) -> impl FnOnce(io::Error) -> FileError {
    let path = path.to_path_buf();
    move |source| FileError { what, path, source }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Scratch;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_temp_file() {
        let dir = Scratch::new("atomic-replace");
        let path = dir.0.join("results.json");
        write(&path, b"[1,2,3]").unwrap();
        write(&path, b"[4]").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"[4]");
        assert_eq!(names(&dir.0), ["results.json"]);
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"[5]").unwrap();
        f.commit(Durability::Unsynced).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"[5]");
        assert_eq!(names(&dir.0), ["results.json"]);
    }

    #[test]
    fn a_failed_or_abandoned_write_keeps_the_previous_version() {
        let dir = Scratch::new("atomic-fail");
        let path = dir.0.join("results.json");
        write(&path, b"complete").unwrap();
        // The temp file's place is taken by a folder: creating it fails.
        std::fs::create_dir(temp_path(&path)).unwrap();
        let e = write(&path, b"new").unwrap_err();
        assert_eq!(e.what, "creating");
        assert!(e.to_string().starts_with("creating "), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"complete");
        std::fs::remove_dir(temp_path(&path)).unwrap();
        // Dropped before its commit: the temporary file goes, the file stays.
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"half").unwrap();
        drop(f);
        assert_eq!(std::fs::read(&path).unwrap(), b"complete");
        assert_eq!(names(&dir.0), ["results.json"]);
        // The target's place is a non-empty folder: the rename fails and
        // the temporary file is removed.
        let blocked = dir.0.join("blocked");
        std::fs::create_dir_all(blocked.join("inside")).unwrap();
        let e = write(&blocked, b"x").unwrap_err();
        assert_eq!(e.what, "renaming into place");
        assert_eq!(names(&dir.0), ["blocked", "results.json"]);
    }

    const WRITER_ENV: &str = "NETLAB_TEST_ATOMIC_WRITER";
    const BODY_LEN: usize = 8 << 20;

    /// The writer half of the SIGKILL test: run as a child process, it
    /// rewrites a large file as fast as it can until it is killed.
    #[test]
    fn atomic_writer_child() {
        let Ok(path) = std::env::var(WRITER_ENV) else {
            return; // Only meaningful as the child of the test below.
        };
        let path = PathBuf::from(path);
        // Large versions, so most of the time is spent writing the file.
        let mut body = vec![b'x'; BODY_LEN];
        for version in 0u64.. {
            body[..8].copy_from_slice(&version.to_le_bytes().map(|b| b'a' + b % 26));
            write(&path, &body).unwrap();
        }
    }

    /// Checked against a mutant that writes straight into the file through
    /// a BufWriter: it finds a truncated file within a few trials.
    #[test]
    fn sigkill_at_any_instant_leaves_the_last_complete_version() {
        use std::process::{Command, Stdio};
        let dir = Scratch::new("atomic-sigkill");
        let path = dir.0.join("results.json");
        let me = std::env::current_exe().unwrap();
        for trial in 0..12u64 {
            let mut child = Command::new(&me)
                .args([
                    "--exact",
                    "atomic::tests::atomic_writer_child",
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
            let body = std::fs::read(&path).expect("a version is always in place");
            assert_eq!(body.len(), BODY_LEN, "never a truncated file");
            assert!(body[8..].iter().all(|&b| b == b'x'));
        }
    }
}
