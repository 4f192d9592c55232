//! sock_diag dump answers into `netlab_tcpload::sampler::parse_dump`
//! (netlink walking, inet_diag header, attributes, `tcp_info`).
//!
//! Input: one receive buffer of a dump. The flow is the one of
//! fixtures/tcpload (10.20.1.2:45856 → 10.20.2.2:46020), so mutations of
//! the real dump reach the record decoding.
//! Properties: never panics; a found record implies at least one record.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_tcpload::sampler::{parse_dump, FlowId};

fuzz_target!(|data: &[u8]| {
    let flow = FlowId {
        local: "10.20.1.2:45856".parse().unwrap(),
        remote: "10.20.2.2:46020".parse().unwrap(),
    };
    if let Ok(chunk) = parse_dump(data, &flow) {
        assert!(chunk.found.is_none() || chunk.records >= 1);
    }
});
