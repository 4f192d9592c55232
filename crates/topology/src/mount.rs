//! The namespace files: `/run/netns` as a shared mount, a new network
//! namespace bind-mounted onto its file and the lazy
//! unmount (all via nix's safe wrappers; nothing here needs `unsafe`).

use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::Mutex;

use nix::mount::{mount, umount2, MntFlags, MsFlags};
use nix::sched::{unshare, CloneFlags};

use crate::TopologyError;

/// Serialises the shared-mount setup of `/run/netns` within this process.
static RUN_DIR_LOCK: Mutex<()> = Mutex::new(());

/// Makes `dir` exist and be a shared mount (recursively), as iproute2 does:
/// try `MS_SHARED|MS_REC`; if the directory is not a mount point (`EINVAL`)
/// bind-mount it onto itself first.
pub(crate) fn prepare_run_dir(dir: &Path) -> Result<(), TopologyError> {
    let _guard = RUN_DIR_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    std::fs::create_dir_all(dir)
        .map_err(|e| TopologyError::io(format!("creating {}", dir.display()), e))?;
    let share = || {
        mount(
            Some("none"),
            dir,
            None::<&str>,
            MsFlags::MS_SHARED | MsFlags::MS_REC,
            None::<&str>,
        )
    };
    match share() {
        Ok(()) => Ok(()),
        Err(nix::errno::Errno::EINVAL) => {
            mount(
                Some(dir),
                dir,
                Some("none"),
                MsFlags::MS_BIND | MsFlags::MS_REC,
                None::<&str>,
            )
            .map_err(|e| {
                TopologyError::io(format!("bind-mounting {} onto itself", dir.display()), e)
            })?;
            share().map_err(|e| {
                TopologyError::io(format!("making {} a shared mount", dir.display()), e)
            })
        }
        Err(e) => Err(TopologyError::io(
            format!("making {} a shared mount", dir.display()),
            e,
        )),
    }
}

/// Creates the empty mount point file exclusively (`O_CREAT|O_EXCL`, mode 0).
pub(crate) fn create_mount_point(path: &Path) -> io::Result<()> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o000)
        .open(path)
        .map(drop)
}

/// On the calling (dedicated, short-lived) thread: leaves for a new network
/// namespace and bind-mounts it onto `path`.
pub(crate) fn unshare_and_bind(path: &Path) -> Result<(), TopologyError> {
    unshare(CloneFlags::CLONE_NEWNET).map_err(|e| TopologyError::io("unshare(CLONE_NEWNET)", e))?;
    let own = thread_ns_path();
    mount(
        Some(own.as_str()),
        path,
        Some("none"),
        MsFlags::MS_BIND,
        None::<&str>,
    )
    .map_err(|e| TopologyError::io(format!("bind-mounting {own} onto {}", path.display()), e))
}

/// This thread's own network namespace file.
fn thread_ns_path() -> String {
    if Path::new("/proc/thread-self/ns/net").exists() {
        "/proc/thread-self/ns/net".to_owned()
    } else {
        format!("/proc/self/task/{}/ns/net", nix::unistd::gettid())
    }
}

/// Lazily unmounts `path`.
pub(crate) fn detach(path: &Path) -> io::Result<()> {
    match umount2(path, MntFlags::MNT_DETACH) {
        Ok(()) => Ok(()),
        // not mounted (e.g. a half-created namespace): unlinking suffices
        Err(nix::errno::Errno::EINVAL) => Ok(()),
        Err(e) => Err(e.into()),
    }
}
