//! results.json bytes into the report's reader `netlab_report::v1::parse`
//! (what `netlab_report::read_results` does once it has the file's bytes;
//! results folders are shared and edited, so the file is outside input).
//!
//! Property: never panics, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = netlab_report::v1::parse(data);
});
