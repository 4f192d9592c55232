//! Sizes (`16kb`, `1mb`, `1500`) into `netlab_qdisc_model::Size::parse`.
//!
//! Properties: never panics; a parsed size fits 32 bits and its `Display`
//! (`16kb`) parses back to the same size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_qdisc_model::Size;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(size) = Size::parse(text) else {
        return;
    };
    assert!(size.to_u32("size").is_ok(), "{text:?} gave {size:?}");
    let printed = size.to_string();
    let back = Size::parse(&printed)
        .unwrap_or_else(|e| panic!("{printed:?} (from {text:?}) does not parse back: {e}"));
    assert_eq!(back, size, "{printed:?} from {text:?}");
});
