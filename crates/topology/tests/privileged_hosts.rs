//! Privileged: three sender hosts behind R (method §1.7). Each host's
//! datagram reaches B from its own address through R's one egress `r1`,
//! the readback names every host, the veths' offloads go off on every
//! end, and teardown leaves `/run/netns` as it was.

use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::time::Duration;

use netlab_topology::addresses::B_ADDR;
use netlab_topology::testing::require_privileged;
use netlab_topology::{netns, Offloads, Role, RunId, SenderHost, TopologyGuard, TopologySpec};

/// The namespaces of `/run/netns` that are not this run's (other tests
/// build their own beside it).
fn others(run: &RunId) -> Vec<String> {
    let mut n: Vec<String> = netns::list()
        .unwrap()
        .into_iter()
        .filter(|n| !netlab_topology::OwnedName::belongs_to(n, run))
        .filter(|n| !n.starts_with("nl-"))
        .collect();
    n.sort();
    n
}

/// This run's namespaces still in `/run/netns`.
fn left_of(run: &RunId) -> Vec<String> {
    netns::list()
        .unwrap()
        .into_iter()
        .filter(|n| n.starts_with(&format!("nl-{run}-")))
        .collect()
}

#[test]
fn privileged_hosts_three_senders_reach_b_through_r1_and_leave_nothing() {
    if !require_privileged("privileged_hosts_three_senders_reach_b_through_r1_and_leave_nothing") {
        return;
    }
    let run = RunId::random();
    let before = others(&run);
    let mut spec = TopologySpec::new(run.clone(), "hosts");
    spec.sender_hosts = 3;
    spec.offloads = Offloads::Off;
    let names = spec.all_netns_names();
    assert_eq!(names.len(), 5);
    let topo = TopologyGuard::build(&spec).unwrap();
    for n in &names {
        assert!(netns::exists(n), "{n}");
    }

    let b_sock = topo
        .b
        .run(|| UdpSocket::bind(SocketAddr::from((B_ADDR, 0))))
        .unwrap()
        .unwrap();
    b_sock
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let to = b_sock.local_addr().unwrap();
    for host in spec.hosts() {
        let ns = topo.host(host).unwrap();
        let s = ns.run(|| UdpSocket::bind("0.0.0.0:0")).unwrap().unwrap();
        s.send_to(format!("host {}", host.number()).as_bytes(), to)
            .unwrap();
        let mut buf = [0u8; 64];
        let (n, from) = b_sock.recv_from(&mut buf).expect("B receives");
        assert_eq!(&buf[..n], format!("host {}", host.number()).as_bytes());
        assert_eq!(from.ip(), std::net::IpAddr::V4(host.addr()), "no NAT");
        // and back: B's default route via R reaches every host subnet
        b_sock.send_to(b"back", from).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
        let (n, _) = s.recv_from(&mut buf).expect("the host gets B's answer");
        assert_eq!(&buf[..n], b"back");
    }
    assert!(topo.host(SenderHost::new(4).unwrap()).is_none());

    let rb = topo.readback().unwrap();
    assert_eq!(rb.namespaces.len(), 5);
    assert_eq!(rb.veth_offloads_all_off(), Some(true));
    let r = rb.role(Role::R).unwrap();
    for (ifname, ip) in [("r2", "10.21.2.1"), ("r3", "10.21.3.1")] {
        let l = r.link(ifname).unwrap_or_else(|| panic!("{ifname} in R"));
        assert!(l.up);
        assert!(r
            .addresses
            .iter()
            .any(|a| a.ifindex == l.ifindex && a.address.to_string() == ip));
    }
    for (ns, host) in rb.namespaces[3..].iter().zip(spec.hosts().skip(1)) {
        assert_eq!(ns.netns, spec.host_netns_name(host));
        assert_eq!(ns.role, Some(Role::A));
        assert_eq!(ns.sysctls["net.ipv4.ip_forward"], "0");
        let via = ns
            .main_routes()
            .find(|r| r.destination == "default")
            .and_then(|r| r.gateway);
        assert_eq!(via, Some(std::net::IpAddr::V4(host.router_addr())));
        assert!(ns
            .addresses
            .iter()
            .any(|a| a.address == std::net::IpAddr::V4(host.addr())));
        assert_ne!(host.addr(), Ipv4Addr::new(10, 20, 1, 2));
    }

    for t in topo.teardown() {
        assert_eq!(t.error, None, "{t:?}");
    }
    for n in &names {
        assert!(!netns::exists(n), "{n} left");
    }
    assert_eq!(left_of(&run), Vec::<String>::new());
    assert_eq!(others(&run), before, "no foreign namespace touched");
}

#[test]
fn privileged_hosts_delete_namespaces_of_covers_every_host() {
    if !require_privileged("privileged_hosts_delete_namespaces_of_covers_every_host") {
        return;
    }
    let run = RunId::random();
    let before = others(&run);
    let mut spec = TopologySpec::new(run.clone(), "hosts_del");
    spec.sender_hosts = 3;
    // Built, then forgotten (as after a crash): only the spec is known.
    let topo = TopologyGuard::build(&spec).unwrap().into_inner();
    std::mem::forget(topo);
    let gone = netlab_topology::delete_namespaces_of(&spec);
    assert_eq!(gone.len(), 5, "{gone:?}");
    assert!(gone.iter().all(|t| t.error.is_none()), "{gone:?}");
    assert_eq!(left_of(&run), Vec::<String>::new());
    assert_eq!(others(&run), before, "no foreign namespace touched");
}
