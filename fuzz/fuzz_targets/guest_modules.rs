//! The pinned guest kernel's `modules.dep` and `modules.builtin` into
//! `netlab_guest::modules::ModuleIndex::parse`.
//!
//! Input: `modules.dep` text, a NUL byte, `modules.builtin` text.
//! Property: never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_guest::modules::ModuleIndex;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (dep, builtin) = text.split_once('\0').unwrap_or((text, ""));
    let _ = ModuleIndex::parse(dep, builtin);
});
