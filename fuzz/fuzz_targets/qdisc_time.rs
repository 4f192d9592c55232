//! tc times (`5ms`, `100ms`, `1s`, `250`) into `netlab_qdisc_model::parse_time`.
//!
//! Properties: never panics; `format_time` of a parsed time parses back to
//! the same duration.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_qdisc_model::{format_time, parse_time};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(d) = parse_time("time", text) else {
        return;
    };
    let printed = format_time(d);
    let back = parse_time("time", &printed)
        .unwrap_or_else(|e| panic!("{printed:?} (from {text:?}) does not parse back: {e}"));
    assert_eq!(back, d, "{printed:?} from {text:?}");
});
