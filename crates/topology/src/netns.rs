//! Named, owned network namespaces, visible to `ip netns`.
//!
//! Created the way iproute2 does it: `/run/netns` is made a shared mount,
//! `/run/netns/NAME` is created exclusively, and the calling thread
//! `unshare(CLONE_NEWNET)`s, bind-mounts its own namespace file
//! (`/proc/thread-self/ns/net`) onto it and goes back. Code runs inside a
//! namespace on a thread that `setns()`'d into it (the caller's own for
//! [`Netns::run`], a pooled one for [`Netns::spawn`]); sockets made there
//! stay in that namespace for their whole life, whatever thread uses them
//! later.
//!
//! ```no_run
//! use netlab_topology::netns::Netns;
//! # fn main() -> Result<(), netlab_topology::TopologyError> {
//! let ns = Netns::create("nl-ab12-demo")?;
//! let sock = ns.run(|| std::net::UdpSocket::bind("127.0.0.1:0"))?.expect("bind");
//! drop(sock);
//! ns.delete()?;
//! # Ok(()) }
//! ```

use netlab_os::threads::{spawn_pooled, Pooled};
use std::fs::File;
use std::path::{Path, PathBuf};

use crate::{mount, TopologyError};

/// Where named namespaces live (as for `ip netns`).
pub const NETNS_RUN_DIR: &str = "/run/netns";

/// A named network namespace under [`NETNS_RUN_DIR`], held open.
///
/// Dropping a `Netns` only closes its file; the namespace stays until
/// [`Netns::delete`] (or [`delete`]) removes it.
#[derive(Debug)]
pub struct Netns {
    name: String,
    path: PathBuf,
    file: File,
}

impl serde::Serialize for Netns {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Netns", 2)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("path", &self.path)?;
        st.end()
    }
}

/// Checks that `name` is usable as a file name under `/run/netns`.
fn validate_netns_name(name: &str) -> Result<(), TopologyError> {
    let bad = |reason| {
        Err(TopologyError::InvalidName {
            name: name.to_owned(),
            reason,
        })
    };
    if name.is_empty() || name.len() > 200 {
        return bad("a namespace name has 1 to 200 characters");
    }
    if name == "." || name == ".." || name.contains('/') || name.contains('\0') {
        return bad("a namespace name is a plain file name");
    }
    Ok(())
}

/// The path of namespace `name` under [`NETNS_RUN_DIR`].
pub fn path_of(name: &str) -> PathBuf {
    Path::new(NETNS_RUN_DIR).join(name)
}

impl Netns {
    /// Creates namespace `name` (fails with `EEXIST` if it exists).
    pub fn create(name: &str) -> Result<Netns, TopologyError> {
        validate_netns_name(name)?;
        let path = path_of(name);
        mount::prepare_run_dir(Path::new(NETNS_RUN_DIR))?;
        mount::create_mount_point(&path)
            .map_err(|e| TopologyError::io(format!("creating {}", path.display()), e))?;
        // The calling thread makes it and goes back (netlab_os::threads).
        let made = netlab_os::threads::keeping_netns(|| mount::unshare_and_bind(&path))
            .map_err(|e| TopologyError::io(format!("creating netns {name}"), e))
            .and_then(|made| made);
        if let Err(e) = made {
            let _ = std::fs::remove_file(&path);
            return Err(match e {
                TopologyError::Io { step, source } => TopologyError::Io {
                    step: format!("creating netns {name}: {step}"),
                    source,
                },
                other => other,
            });
        }
        Netns::open(name)
    }

    /// Opens an existing namespace `name`.
    pub fn open(name: &str) -> Result<Netns, TopologyError> {
        validate_netns_name(name)?;
        let path = path_of(name);
        let file =
            File::open(&path).map_err(|e| TopologyError::io(format!("opening netns {name}"), e))?;
        Ok(Netns {
            name: name.to_owned(),
            path,
            file,
        })
    }

    /// The namespace's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its path, `/run/netns/NAME`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open namespace file (for `IFLA_NET_NS_FD` or `setns`).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Runs `f` inside this namespace on the calling thread, which goes
    /// back to its own namespace when `f` returns or panics
    /// (`netlab_os::threads::in_netns`: no thread is started). `f` may
    /// borrow from the caller; sockets it makes stay in this namespace.
    pub fn run<F, T>(&self, f: F) -> Result<T, TopologyError>
    where
        F: FnOnce() -> T,
    {
        netlab_os::threads::in_netns(&self.file, f)
            .map_err(|e| TopologyError::io(format!("entering netns {}", self.name), e))
    }

    /// Runs `f` on a long-lived thread named `thread_name` inside this
    /// namespace: a parked thread of the process's pool when there is one
    /// (`netlab_os::threads`: a thread start cost 2-15 ms under user-mode
    /// Linux), a new one otherwise. Returns once the thread has entered
    /// the namespace (or failed to; `f` then never runs). The thread goes
    /// back to the process's namespace when `f` returns.
    pub fn spawn<F, T>(&self, thread_name: &str, f: F) -> Result<Pooled<T>, TopologyError>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        spawn_pooled(thread_name, Some(&self.file), f)
            .map_err(|e| TopologyError::io(format!("entering netns {} on a thread", self.name), e))
    }

    /// Deletes the namespace (unmount + unlink) and confirms it is gone.
    pub fn delete(self) -> Result<(), TopologyError> {
        let Netns { name, file, .. } = self;
        drop(file);
        delete(&name)
    }
}

/// Deletes namespace `name` (lazy unmount + unlink) and confirms that
/// `/run/netns/NAME` no longer exists. Deleting an absent namespace is an
/// error (`ENOENT`).
pub fn delete(name: &str) -> Result<(), TopologyError> {
    validate_netns_name(name)?;
    let path = path_of(name);
    if !path.exists() {
        return Err(TopologyError::io(
            format!("deleting netns {name}"),
            std::io::Error::from_raw_os_error(nix::libc::ENOENT),
        ));
    }
    mount::detach(&path).map_err(|e| TopologyError::io(format!("unmounting netns {name}"), e))?;
    std::fs::remove_file(&path)
        .map_err(|e| TopologyError::io(format!("unlinking {}", path.display()), e))?;
    if path.exists() {
        return Err(TopologyError::StillPresent {
            name: name.to_owned(),
        });
    }
    Ok(())
}

/// True if `/run/netns/NAME` exists.
pub fn exists(name: &str) -> bool {
    validate_netns_name(name).is_ok() && path_of(name).exists()
}

/// Names under `/run/netns`, sorted (empty if the directory is absent).
pub fn list() -> Result<Vec<String>, TopologyError> {
    let rd = match std::fs::read_dir(NETNS_RUN_DIR) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(TopologyError::io(format!("listing {NETNS_RUN_DIR}"), e)),
    };
    let mut names = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| TopologyError::io(format!("listing {NETNS_RUN_DIR}"), e))?;
        if let Some(n) = entry.file_name().to_str() {
            names.push(n.to_owned());
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(validate_netns_name("nl-ab12-1-a").is_ok());
        assert!(validate_netns_name("").is_err());
        assert!(validate_netns_name("..").is_err());
        assert!(validate_netns_name("a/b").is_err());
        assert_eq!(path_of("x"), PathBuf::from("/run/netns/x"));
    }
}
