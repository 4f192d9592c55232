//! Where the guest init binary is: `$NETLAB_GUEST_INIT`, else next to the
//! running executable.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::spec::{INIT_BINARY, INIT_ENV};

/// Finds the init binary: `$NETLAB_GUEST_INIT`, else `netlab-guest-init`
/// next to the current executable or in its parent directory (test
/// binaries live in `target/<profile>/deps`).
pub fn find_init() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(INIT_ENV) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(Error::InitNotFound(format!(
                "{INIT_ENV}={} does not name a file",
                p.display()
            )))
        };
    }
    let exe =
        std::env::current_exe().map_err(|e| Error::io("finding the current executable", e))?;
    let mut looked = Vec::new();
    let mut dir = exe.parent();
    for _ in 0..2 {
        let Some(d) = dir else { break };
        let candidate = d.join(INIT_BINARY);
        if candidate.is_file() {
            return Ok(candidate);
        }
        looked.push(candidate.display().to_string());
        dir = d.parent();
    }
    Err(Error::InitNotFound(format!(
        "{INIT_BINARY} not found (looked at {}); build the netlab-guest package, \
         which ships it, or set {INIT_ENV} to its path",
        looked.join(", ")
    )))
}
