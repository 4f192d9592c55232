//! `/proc/<pid>/stat` lines into `netlab_os::proc::parse_proc_stat` (how a
//! process's identity and liveness are read; `comm` is chosen by the
//! process, so the line is outside text).
//!
//! Property: never panics; a parse is unaffected by what `comm` holds
//! (replacing everything between the first `(` and the last `)` by other
//! text, parentheses included, gives the same result, or the same error);
//! a line without `(` or `)` is refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_os::proc::parse_proc_stat;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = parse_proc_stat(text).map_err(|e| e.to_string());
    match (text.find('('), text.rfind(')')) {
        (Some(open), Some(close)) if open < close => {
            let other = format!("{}(x y (z)){}", &text[..open], &text[close + 1..]);
            let again = parse_proc_stat(&other).map_err(|e| e.to_string());
            assert_eq!(again, parsed);
        }
        (None, _) | (_, None) => assert!(parsed.is_err()),
        _ => {}
    }
});
