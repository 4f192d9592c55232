//! results.json bytes into the one reader of every schema version,
//! `netlab_results::Results::parse` (what `netlab_report::read_results` and
//! `orchestrator report` read through; results folders are shared and
//! edited, so the file is outside input), and what it accepts into the
//! report's input (`netlab_analysis::input_from`).
//!
//! Property: never panics, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(results) = netlab_results::Results::parse(data) {
        let _ = netlab_analysis::input_from(&results);
    }
});
