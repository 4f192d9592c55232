//! Builds the ptrace shim that lets user-mode-linux 6.1 run on hosts with a
//! large XSAVE area (AVX-512, AMX): `src/xstate_shim.c` → a shared object
//! in OUT_DIR, embedded by `src/xstate.rs` and preloaded into `linux.uml`.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let src = "src/xstate_shim.c";
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-env-changed=CC");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("libnetlab_uml_xstate.so");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args([
            "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-o",
        ])
        .arg(&out)
        .arg(src)
        .args(["-ldl", "-lpthread"])
        .status()
        .unwrap_or_else(|e| panic!("running the C compiler {cc:?} for {src}: {e}"));
    assert!(status.success(), "{cc} failed to build {src}");
}
