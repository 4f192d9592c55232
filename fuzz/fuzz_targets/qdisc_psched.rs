//! `/proc/net/psched` text into `netlab_qdisc_model::Psched::parse`, and the tick
//! conversions that use its factors.
//!
//! Property: never panics (a parsed Psched has non-zero divisors).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_qdisc_model::Psched;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(p) = Psched::parse(text) else {
        return;
    };
    let _ = p.ticks_per_usec();
    let ticks = p.xmit_ticks(625_000, 16_384);
    let _ = p.ticks_to_usec(ticks);
    let _ = p.xmit_size(625_000, ticks);
});
