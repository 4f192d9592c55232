//! rtnetlink answers into `netlab_topology::rtnl::decode_datagram`, and
//! every message it yields into the readback conversions
//! (`link_readback`, `address_readback`, `route_readback`).
//!
//! Input: one datagram (one or more netlink messages).
//! Property: never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_topology::readback::{address_readback, link_readback, route_readback};
use netlab_topology::rtnl::{decode_datagram, Answer};
use netlink_packet_route::RouteNetlinkMessage;

fuzz_target!(|data: &[u8]| {
    let Ok(answers) = decode_datagram(data) else {
        return;
    };
    for (_seq, answer) in answers {
        if let Answer::Message(m) = answer {
            match *m {
                RouteNetlinkMessage::NewLink(l) => {
                    link_readback(&l);
                }
                RouteNetlinkMessage::NewAddress(a) => {
                    address_readback(&a);
                }
                RouteNetlinkMessage::NewRoute(r) => {
                    route_readback(&r);
                }
                _ => {}
            }
        }
    }
});
