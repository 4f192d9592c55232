//! Namespace names found under `/run/netns` (anyone's) into
//! `netlab_topology::naming::OwnedName::parse`, which decides what netlab
//! may delete.
//!
//! Properties: never panics; a name recognised as ours (a sender host's
//! `-a<i>` included) is exactly the name netlab would build from its parts (so no foreign name is claimed by a
//! looser reading).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_topology::hosts::SenderHost;
use netlab_topology::naming::{netns_name, OwnedName};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(n) = OwnedName::parse(text) else {
        return;
    };
    let rebuilt = match (n.role, n.host) {
        // Sender host i ≥ 2 (method §1.7): `-a<i>`, as the topology names it.
        (_, Some(i)) => format!(
            "nl-{}-{}-{}",
            n.run_id,
            n.label,
            SenderHost::new(i).expect("parse gives hosts in range").suffix()
        ),
        (Some(role), None) => netns_name(&n.run_id, &n.label, role),
        (None, None) => format!("nl-{}-{}", n.run_id, n.label),
    };
    assert_eq!(rebuilt, text);
    assert!(OwnedName::belongs_to(text, &n.run_id));
});
