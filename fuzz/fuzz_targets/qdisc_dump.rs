//! RTM_GETQDISC dump answers into `netlab_qdisc_model::decode_dump` (which walks
//! the netlink messages and attributes of `wire.rs`).
//!
//! Input: the raw dump bytes (one or more netlink messages).
//! Properties: never panics; every decoded record keeps its message bytes
//! (`raw_hex`), and decoding those bytes again with `decode_qdisc` gives
//! the same record.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_qdisc_model::{decode_dump, decode_qdisc, Psched};

fuzz_target!(|data: &[u8]| {
    let psched = Psched::default();
    let Ok(records) = decode_dump(data, None, &psched) else {
        return;
    };
    for rec in records {
        let raw = hex::decode(&rec.raw_hex).expect("raw_hex is our own hex");
        let again = decode_qdisc(&raw, &psched).expect("a decoded message decodes again");
        assert_eq!(again, rec);
    }
});
