//! Captures real kernel answers for the fixtures in `fixtures/topology/`:
//! builds one A–R–B, sends this crate's dump requests from a netlink socket
//! inside R and writes the messages of each answer (concatenated) to
//! `<dir>/r_{links,addresses,routes}.bin`. Needs root.
//!
//! `cargo run -p netlab-topology --example capture_fixtures -- fixtures/topology`

use netlab_os::{NetlinkSocket, Protocol};
use netlab_topology::{rtnl, RunId, TopologyGuard, TopologySpec};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fixtures/topology".into());
    let topo = TopologyGuard::build(&TopologySpec::new(RunId::random(), "fixture")).expect("build");
    let sock = topo
        .r
        .run(|| NetlinkSocket::open(Protocol::Route, "R").expect("socket"))
        .expect("enter R");
    for (file, req) in [
        ("r_links.bin", rtnl::dump_links("links".into())),
        (
            "r_addresses.bin",
            rtnl::dump_ipv4_addresses("addresses".into()),
        ),
        ("r_routes.bin", rtnl::dump_ipv4_routes("routes".into())),
    ] {
        // every message of the answer, NLMSG_DONE included
        let bytes = sock.dump(&req.to_bytes(0), &req.step).expect("dump");
        let path = std::path::Path::new(&dir).join(file);
        std::fs::write(&path, &bytes).expect("write");
        println!("{}: {} bytes", path.display(), bytes.len());
    }
}
