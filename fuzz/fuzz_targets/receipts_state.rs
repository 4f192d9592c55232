//! Run state files (`/run/netlab/<runid>.json`) into
//! `netlab_receipts::read_state`, which `orchestrator cleanup` runs on
//! whatever it finds in the state dir.
//!
//! Input: the file's bytes, written to a scratch file (read_state takes a
//! path; no API change was needed).
//! Properties: never panics; an accepted state has the current schema and
//! serializes back to a file that reads back equal.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use netlab_receipts::{read_state, write_state, STATE_SCHEMA};

fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if std::path::Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!("netlab-fuzz-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let path = scratch().join("in.json");
    std::fs::write(&path, data).unwrap();
    let Ok(state) = read_state(&path) else {
        return;
    };
    assert_eq!(state.schema, STATE_SCHEMA);
    let out = scratch().join("out.json");
    write_state(&out, &state).unwrap();
    assert_eq!(read_state(&out).unwrap(), state);
});
