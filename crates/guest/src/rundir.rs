//! The run's host folder (removed on Drop) and the tailing of the files the
//! guest writes into it.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// The host stream a tailed guest file is echoed to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum HostStream {
    /// The host's stdout.
    Stdout,
    /// The host's stderr.
    Stderr,
}

/// Follows a file the guest appends to.
pub(crate) struct Tail {
    file: File,
    buf: Vec<u8>,
    limit: usize,
    dropped: u64,
    echo: Option<HostStream>,
}

impl Tail {
    pub(crate) fn open(path: &Path, limit: usize, echo: Option<HostStream>) -> Result<Self> {
        let file =
            File::open(path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        Ok(Tail {
            file,
            buf: Vec::new(),
            limit,
            dropped: 0,
            echo,
        })
    }

    pub(crate) fn pump(&mut self) {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            let n = match self.file.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let data = &chunk[..n];
            match self.echo {
                Some(HostStream::Stdout) => {
                    let mut o = std::io::stdout().lock();
                    let _ = o.write_all(data).and_then(|()| o.flush());
                }
                Some(HostStream::Stderr) => {
                    let mut o = std::io::stderr().lock();
                    let _ = o.write_all(data).and_then(|()| o.flush());
                }
                None => {}
            }
            let room = self.limit.saturating_sub(self.buf.len()).min(n);
            self.buf.extend_from_slice(&data[..room]);
            self.dropped += (n - room) as u64;
        }
    }

    pub(crate) fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.buf).into_owned();
        if self.dropped > 0 {
            s.push_str(&format!(
                "\n[netlab-guest: {} more bytes not kept]\n",
                self.dropped
            ));
        }
        s
    }
}

impl std::fmt::Debug for Tail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tail")
            .field("len", &self.buf.len())
            .finish()
    }
}

/// The run's host folder; removed on Drop.
#[derive(Debug)]
pub(crate) struct RunDir {
    pub(crate) path: PathBuf,
}

impl RunDir {
    pub(crate) fn create() -> Result<Self> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "{}{}-{}-{:08x}",
            crate::stale::RUN_DIR_PREFIX,
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed),
            nanos
        );
        let path = std::env::temp_dir().join(name);
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|e| Error::io(format!("creating run folder {}", path.display()), e))?;
        let dir = RunDir { path };
        crate::stale::record_owner(&dir.path)
            .map_err(|e| Error::io(format!("recording the owner of {}", dir.path.display()), e))?;
        Ok(dir)
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_dir_is_removed_on_drop() {
        let d = RunDir::create().unwrap();
        let p = d.path.clone();
        std::fs::write(p.join("f"), b"x").unwrap();
        drop(d);
        assert!(!p.exists());
    }
}
