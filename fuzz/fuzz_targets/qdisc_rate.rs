//! Rates (`5mbit`, `1.5gbit`, `625000bps`) into `netlab_qdisc_model::Rate::parse`.
//!
//! Properties: never panics; a parsed rate is ≥ 1 bit/s and its `Display`
//! (`5mbit`) parses back to the same rate.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_qdisc_model::Rate;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(rate) = Rate::parse(text) else {
        return;
    };
    assert!(rate.bits_per_sec() >= 1);
    let printed = rate.to_string();
    let back = Rate::parse(&printed)
        .unwrap_or_else(|e| panic!("{printed:?} (from {text:?}) does not parse back: {e}"));
    assert_eq!(back, rate, "{printed:?} from {text:?}");
});
