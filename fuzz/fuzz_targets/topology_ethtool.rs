//! ethtool generic-netlink answers into `netlab_topology::ethtool`'s
//! parsers: `parse_family_id` (the controller's `CTRL_CMD_NEWFAMILY`) and
//! `parse_features_reply` (`ETHTOOL_MSG_FEATURES_GET_REPLY`, verbose
//! bitsets), and the states recorded from an accepted reply.
//!
//! Input: the messages of one answer (as `NetlinkSocket::get` returns them).
//! Property: never panics; every recorded state is an aggregation feature,
//! at most once, and the listed ones are always there.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_topology::ethtool::{
    is_aggregation_feature, parse_family_id, parse_features_reply, AGGREGATION_FEATURES,
};

fuzz_target!(|data: &[u8]| {
    let _ = parse_family_id(data);
    let Ok(reply) = parse_features_reply(data) else {
        return;
    };
    let states = reply.aggregation_states();
    let mut names: Vec<&str> = states.iter().map(|s| s.name.as_str()).collect();
    for n in &names {
        assert!(is_aggregation_feature(n), "{n}");
    }
    for n in AGGREGATION_FEATURES {
        assert!(names.contains(&n), "{n}");
    }
    let len = names.len();
    names.dedup();
    assert_eq!(names.len(), len, "each feature once (sorted by name)");
    for s in &states {
        assert_eq!(s.active, reply.active.contains(&s.name));
        assert_eq!(s.fixed, reply.is_fixed(&s.name));
    }
});
