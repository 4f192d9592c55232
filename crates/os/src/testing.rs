//! Test-only helpers (cargo feature `testing`; dev-dependencies enable it).

use std::path::PathBuf;

use crate::privilege::{
    effective_capabilities, missing_capability, privileged_tests_required, REQUIRE_PRIVILEGED_ENV,
};

/// Why this process cannot run privileged tests, or `None` if it can
/// (Linux, CAP_NET_ADMIN and CAP_SYS_ADMIN).
pub fn missing_privileges() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some(format!("{} is not Linux", std::env::consts::OS));
    }
    match effective_capabilities() {
        Ok(mask) => missing_capability(mask).map(|cap| {
            format!("{cap} is missing from the effective capability set (CapEff={mask:#018x})")
        }),
        Err(e) => Some(e.to_string()),
    }
}

/// For privileged tests: `true` if the process may build namespaces.
/// Otherwise prints why `test_name` is skipped and returns `false`, or,
/// when `NETLAB_REQUIRE_PRIVILEGED=1`, panics.
pub fn require_privileged(test_name: &str) -> bool {
    gate(test_name, missing_privileges(), privileged_tests_required())
}

fn gate(test_name: &str, missing: Option<String>, required: bool) -> bool {
    match missing {
        None => true,
        Some(why) if required => {
            panic!("{test_name}: privileges required ({REQUIRE_PRIVILEGED_ENV}=1) but {why}")
        }
        Some(why) => {
            eprintln!("skipping {test_name}: {why}");
            false
        }
    }
}

/// A scratch folder for a test, `<temp>/netlab-<name>-<random>`: a
/// `tempfile::TempDir` (created with a fresh name, removed on drop) whose
/// path is field `.0`.
pub struct Scratch(pub PathBuf, tempfile::TempDir);

impl Scratch {
    /// A fresh, empty folder named after `name`.
    pub fn new(name: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("netlab-{name}-"))
            .tempdir()
            .expect("a scratch folder under the temporary directory");
        Scratch(dir.path().to_path_buf(), dir)
    }

    /// The folder (the same path as `.0`).
    pub fn path(&self) -> &std::path::Path {
        self.1.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_skips_or_fails() {
        assert!(gate("t", None, true));
        assert!(!gate("t", Some("no caps".into()), false));
        let r = std::panic::catch_unwind(|| gate("t", Some("no caps".into()), true));
        assert!(r.is_err());
    }
}
