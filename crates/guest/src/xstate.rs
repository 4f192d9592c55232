//! The ptrace shim preloaded into `linux.uml` (`src/xstate_shim.c`, built
//! by `build.rs`).
//!
//! Debian's user-mode-linux 6.1 hands the host 832-byte FPU areas
//! (x87/SSE + AVX) with `PTRACE_SETREGSET`, and the host kernel takes only
//! its whole XSAVE area: on a CPU with AVX-512 or AMX every guest process
//! dies at once ("ptrace set fp regs failed, errno = 14"). The shim keeps a
//! full-size copy per guest thread and writes the whole area; every other
//! ptrace request passes through. On a host whose area is 832 bytes it
//! changes nothing.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The shim's bytes, built from `xstate_shim.c` for this target.
const SHIM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libnetlab_uml_xstate.so"));

/// File name of the shim in a run folder.
pub const SHIM_FILE: &str = "uml-xstate.so";

/// Writes the shim into the run folder `dir` and returns its path, for
/// `LD_PRELOAD` of the kernel process.
pub fn install(dir: &Path) -> Result<PathBuf> {
    let path = dir.join(SHIM_FILE);
    std::fs::write(&path, SHIM).map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shim_is_a_shared_object_that_defines_ptrace() {
        assert_eq!(&super::SHIM[..4], b"\x7fELF");
        // ET_DYN
        assert_eq!(super::SHIM[16], 3);
        let text = String::from_utf8_lossy(super::SHIM);
        assert!(text.contains("ptrace") && text.contains("dlsym"));
    }
}
