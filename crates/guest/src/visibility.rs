//! Which host paths the guest cannot see, and which it must be given back
//! (pure).
//!
//! The guest's root is the host's root (hostfs), but init mounts the
//! guest's own file systems over `/dev` (devtmpfs), `/run` and `/tmp`
//! (tmpfs), so the guest does not write into the host's runtime state. A
//! program, working directory or shared folder below one of these would
//! be hidden; init bind-mounts each such path back at the same path, from a
//! descriptor it opened before mounting. The mount points themselves are
//! never given back: that would undo the guest's own mounts.

use std::path::{Path, PathBuf};

/// Where init mounts the guest's own file systems over the host's.
pub const GUEST_MOUNTS: [&str; 3] = ["/dev", "/run", "/tmp"];

/// True when `p` (absolute) lies at or below one of [`GUEST_MOUNTS`].
pub(crate) fn hidden_in_guest(p: &Path) -> bool {
    GUEST_MOUNTS.iter().any(|m| p.starts_with(m))
}

fn is_guest_mount(p: &Path) -> bool {
    GUEST_MOUNTS.iter().any(|m| p == Path::new(m))
}

/// The host paths init must bind back so that `program`, `cwd` and each of
/// `shared` are visible at the same paths in the guest. All paths are
/// absolute and, where they exist, with symbolic links resolved (the
/// guest resolves links through its own mounts).
///
/// The program's folder is given back (so what lies next to it, e.g. the
/// init binary beside a test binary, stays visible), or the program file
/// alone when its folder is a guest mount point (`/tmp/prog`). A working
/// directory or shared folder that *is* a guest mount point is an error
/// naming it. Paths below another path in the list are dropped: they are
/// visible through it.
pub(crate) fn paths_to_give_back(
    program: &Path,
    cwd: &Path,
    shared: &[PathBuf],
) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    if hidden_in_guest(program) {
        match program.parent() {
            Some(dir) if !is_guest_mount(dir) => out.push(dir.to_path_buf()),
            _ => out.push(program.to_path_buf()),
        }
    }
    let named = std::iter::once(("working directory", cwd))
        .chain(shared.iter().map(|d| ("shared folder", d.as_path())));
    for (what, p) in named {
        if is_guest_mount(p) {
            return Err(format!(
                "{what} {} is where the guest mounts its own file system, so the guest \
                 cannot share it; use a folder below it",
                p.display()
            ));
        }
        if hidden_in_guest(p) {
            out.push(p.to_path_buf());
        }
    }
    // Component order puts a folder right before what lies below it.
    out.sort();
    out.dedup();
    let mut kept: Vec<PathBuf> = Vec::new();
    for p in out {
        if !kept.iter().any(|k| p.starts_with(k)) {
            kept.push(p);
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn hidden_roots_are_whole_components() {
        assert!(hidden_in_guest(Path::new("/tmp/x")));
        assert!(hidden_in_guest(Path::new("/tmp")));
        assert!(hidden_in_guest(Path::new("/run/user/0/x")));
        assert!(hidden_in_guest(Path::new("/dev/shm/x")));
        assert!(!hidden_in_guest(Path::new("/tmpfoo/x")));
        assert!(!hidden_in_guest(Path::new("/home/u/tmp")));
    }

    #[test]
    fn visible_paths_need_nothing() {
        let v = paths_to_give_back(
            Path::new("/home/u/netlab/target/release/orchestrator"),
            Path::new("/home/u/netlab"),
            &[p("/var/tmp/out")],
        )
        .unwrap();
        assert!(v.is_empty(), "{v:?}");
    }

    #[test]
    fn checkout_under_tmp_gives_back_the_checkout_once() {
        let v = paths_to_give_back(
            Path::new("/tmp/x/target/release/orchestrator"),
            Path::new("/tmp/x"),
            &[p("/tmp/x/results"), p("/tmp/out")],
        )
        .unwrap();
        assert_eq!(v, [p("/tmp/out"), p("/tmp/x")]);
        let v = paths_to_give_back(
            Path::new("/tmp/x/target/release/orchestrator"),
            Path::new("/home/u"),
            &[],
        )
        .unwrap();
        assert_eq!(v, [p("/tmp/x/target/release")]);
    }

    #[test]
    fn siblings_with_a_common_prefix_are_both_kept() {
        let v = paths_to_give_back(Path::new("/tmp/a/prog"), Path::new("/tmp/ab"), &[]).unwrap();
        assert_eq!(v, [p("/tmp/a"), p("/tmp/ab")]);
    }

    #[test]
    fn program_directly_in_a_mount_point_is_given_back_alone() {
        let v = paths_to_give_back(Path::new("/tmp/prog"), Path::new("/"), &[]).unwrap();
        assert_eq!(v, [p("/tmp/prog")]);
    }

    #[test]
    fn a_mount_point_itself_cannot_be_shared() {
        let e = paths_to_give_back(Path::new("/bin/true"), Path::new("/tmp"), &[]).unwrap_err();
        assert!(e.contains("working directory /tmp"), "{e}");
        let e =
            paths_to_give_back(Path::new("/bin/true"), Path::new("/"), &[p("/run")]).unwrap_err();
        assert!(e.contains("shared folder /run"), "{e}");
    }
}
