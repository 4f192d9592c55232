//! Arm words (`--arm "fq_codel limit 256 ..."`) into `netlab_qdisc_model::Arm::parse`.
//!
//! Input: UTF-8 text (other bytes are skipped).
//! Properties: never panics; a parsed arm prints (`Display`, the tc words)
//! to text that parses back to the same arm; building its netlink request
//! never panics, and our own decoder reads that request back as the same
//! kind.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_qdisc_model::{arm_request, decode_qdisc, Arm, Handle, Psched, ARM_HANDLE, ARM_PARENT};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(arm) = Arm::parse(text) else {
        return;
    };
    let printed = arm.to_string();
    let back = Arm::parse(&printed)
        .unwrap_or_else(|e| panic!("{printed:?} (from {text:?}) does not parse back: {e}"));
    assert_eq!(back, arm, "{printed:?} from {text:?}");
    if let Ok(req) = arm_request("r1", 3, ARM_HANDLE, ARM_PARENT, &arm, 2) {
        let rec = decode_qdisc(&req.bytes(), &Psched::default())
            .unwrap_or_else(|e| panic!("our request for {printed:?} does not decode: {e}"));
        assert_eq!(rec.kind, arm.kind());
        assert_eq!(Handle(rec.handle_raw), ARM_HANDLE);
    }
});
