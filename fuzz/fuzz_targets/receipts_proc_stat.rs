//! `/proc/<pid>/stat` lines into `netlab_receipts::parse_proc_stat` (how a
//! process's identity and liveness are read; `comm` is chosen by the
//! process, so the line is outside text).
//!
//! Property: never panics; a parse is unaffected by what `comm` holds
//! (prefixing `pid (` + any `)`-free text + `) ` to the fields after the
//! last `)` gives the same result).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_receipts::parse_proc_stat;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = parse_proc_stat(text);
    if let Some(i) = text.rfind(')') {
        let fields = &text[i + 1..];
        let other = format!("1 (x y (z)){fields}");
        assert_eq!(parse_proc_stat(&other), parsed);
    } else {
        assert_eq!(parsed, None);
    }
});
