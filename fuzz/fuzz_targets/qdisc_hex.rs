//! Hex text from a results file (`raw_hex` of a readback) into
//! `netlab_qdisc_model::Readback::redecode`, which decodes the hex (the
//! `hex` crate) and then the dump it holds.
//!
//! Properties: never panics; a readback that decodes again gives the
//! same records when its own `raw_hex` is decoded a second time.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_qdisc_model::{Psched, Readback};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let stored = Readback {
        taken_at_s: None,
        ifindex: 1,
        records: Vec::new(),
        psched: Psched::default(),
        raw_hex: text.to_string(),
    };
    if let Ok(first) = stored.redecode() {
        let second = first.redecode().expect("our own raw_hex decodes again");
        assert_eq!(second.records, first.records);
    }
});
