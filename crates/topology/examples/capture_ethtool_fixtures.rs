//! Captures real kernel answers of ethtool's generic-netlink family for the
//! fixtures in `fixtures/topology/`: builds one A–R–B with the kernel's
//! offloads and one with `offloads = "off"`, sends this crate's requests
//! from a generic-netlink socket inside R, and writes the messages of each
//! answer (before its ACK) to `<dir>/`:
//! `r_ethtool_family.bin` (`CTRL_CMD_GETFAMILY "ethtool"`),
//! `r1_features_kernel.bin` and `r1_features_off.bin`
//! (`ETHTOOL_MSG_FEATURES_GET` of `r1`). Needs root.
//!
//! `cargo run -p netlab-topology --example capture_ethtool_fixtures -- fixtures/topology`

use netlab_os::{NetlinkSocket, Protocol};
use netlab_topology::{ethtool, Offloads, RunId, TopologyGuard, TopologySpec};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fixtures/topology".into());
    let write = |file: &str, bytes: &[u8]| {
        let path = std::path::Path::new(&dir).join(file);
        std::fs::write(&path, bytes).expect("write");
        println!("{}: {} bytes", path.display(), bytes.len());
    };
    for (offloads, file) in [
        (Offloads::Kernel, "r1_features_kernel.bin"),
        (Offloads::Off, "r1_features_off.bin"),
    ] {
        let mut spec = TopologySpec::new(RunId::random(), "fixture");
        spec.offloads = offloads;
        let topo = TopologyGuard::build(&spec).expect("build");
        let sock = topo
            .r
            .run(|| NetlinkSocket::open(Protocol::Generic, "R").expect("socket"))
            .expect("enter R");
        let req = ethtool::get_family(ethtool::ETHTOOL_GENL_NAME, "family".into());
        let family = sock.get(&req.to_bytes(0), &req.step).expect("family");
        if offloads == Offloads::Kernel {
            write("r_ethtool_family.bin", &family);
        }
        let id = ethtool::parse_family_id(&family).expect("family id");
        let req = ethtool::features_get(id, "r1", "features of r1".into());
        write(
            file,
            &sock.get(&req.to_bytes(0), &req.step).expect("features"),
        );
    }
}
