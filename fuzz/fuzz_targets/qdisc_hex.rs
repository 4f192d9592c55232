//! Hex text (`raw_hex` of readbacks in results files, `netlink_hex` of
//! requests) into `netlab_qdisc::hex::decode`.
//!
//! Properties: never panics; decoded bytes encode back to the input
//! lowercased (when it decodes), and any bytes survive encode → decode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_qdisc::hex;

fuzz_target!(|data: &[u8]| {
    assert_eq!(hex::decode(&hex::encode(data)).unwrap(), data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(bytes) = hex::decode(text) {
        let again = hex::encode(&bytes);
        assert_eq!(hex::decode(&again).unwrap(), bytes);
    }
});
