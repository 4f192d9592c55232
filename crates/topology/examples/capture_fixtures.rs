//! Captures real kernel answers for the fixtures in `fixtures/topology/`:
//! builds one A–R–B, sends this crate's dump requests from a netlink socket
//! inside R and writes the raw reply datagrams (concatenated) to
//! `<dir>/r_{links,addresses,routes}.bin`. Needs root.
//!
//! `cargo run -p netlab-topology --example capture_fixtures -- fixtures/topology`

use netlab_topology::{rtnl, RunId, TopologyGuard, TopologySpec};
use netlink_sys::{protocols::NETLINK_ROUTE, Socket, SocketAddr};

fn exchange(sock: &Socket, req: &rtnl::Request) -> Vec<u8> {
    sock.send(&req.to_bytes(1), 0).expect("send");
    let mut all = Vec::new();
    for _ in 0..1000 {
        let (buf, _) = sock.recv_from_full().expect("recv");
        all.extend_from_slice(&buf);
        let done = rtnl::decode_datagram(&buf)
            .expect("decode")
            .iter()
            .any(|(_, a)| matches!(a, rtnl::Answer::Done | rtnl::Answer::Errno(_)));
        if done {
            break;
        }
    }
    all
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fixtures/topology".into());
    let topo = TopologyGuard::build(&TopologySpec::new(RunId::random(), "fixture")).expect("build");
    let sock = topo
        .r
        .run(|| {
            let mut s = Socket::new(NETLINK_ROUTE).expect("socket");
            s.bind_auto().expect("bind");
            s.connect(&SocketAddr::new(0, 0)).expect("connect");
            s
        })
        .expect("enter R");
    for (file, req) in [
        ("r_links.bin", rtnl::dump_links("links".into())),
        (
            "r_addresses.bin",
            rtnl::dump_ipv4_addresses("addresses".into()),
        ),
        ("r_routes.bin", rtnl::dump_ipv4_routes("routes".into())),
    ] {
        let bytes = exchange(&sock, &req);
        let path = std::path::Path::new(&dir).join(file);
        std::fs::write(&path, &bytes).expect("write");
        println!("{}: {} bytes", path.display(), bytes.len());
    }
}
