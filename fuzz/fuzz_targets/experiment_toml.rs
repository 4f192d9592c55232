//! Experiment files (TOML written by people) into `netlab_experiment::parse`.
//!
//! Properties: never panics; an accepted experiment prints (`to_toml`, what
//! `--print-experiment` shows) as text that parses back to the same
//! experiment.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(exp) = netlab_experiment::parse(text) else {
        return;
    };
    let printed = exp.to_toml();
    match netlab_experiment::parse(&printed) {
        Ok(again) => assert_eq!(again, exp, "round trip changed it; printed:\n{printed}"),
        Err(e) => panic!("printed experiment refused: {e}\nprinted:\n{printed}"),
    }
});
