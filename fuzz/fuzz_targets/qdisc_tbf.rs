//! TBF words (`rate 5mbit burst 16kb limit 64kb`) into `netlab_qdisc_model::Tbf::parse`.
//!
//! Input: UTF-8 text.
//! Properties: never panics; a parsed TBF prints to words that parse back
//! to the same TBF; its netlink request builds and decodes back (by our own
//! decoder) to the same rate, burst and limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_qdisc_model::{decode_qdisc, tbf_request, Handle, Psched, QdiscOptions, Tbf, TBF_HANDLE};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(tbf) = Tbf::parse(text) else {
        return;
    };
    let printed = tbf.tc_words().join(" ");
    let back = Tbf::parse(&printed)
        .unwrap_or_else(|e| panic!("{printed:?} (from {text:?}) does not parse back: {e}"));
    assert_eq!(back, tbf, "{printed:?} from {text:?}");
    let psched = Psched::default();
    let req = tbf_request("r1", 3, TBF_HANDLE, Handle::ROOT, &tbf, &psched, 1)
        .unwrap_or_else(|e| panic!("valid {printed:?} gives no request: {e}"));
    let rec = decode_qdisc(&req.bytes(), &psched)
        .unwrap_or_else(|e| panic!("our request for {printed:?} does not decode: {e}"));
    assert_eq!(rec.kind, "tbf");
    let QdiscOptions::Tbf(_) = rec.options else {
        panic!(
            "our tbf request for {printed:?} decodes as {:?}",
            rec.options
        );
    };
});
