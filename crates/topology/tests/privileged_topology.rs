//! Privileged: build A–R–B over rtnetlink, pass traffic through R, read it
//! back, tear it down, and leave the host exactly as it was.

use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use netlab_topology::addresses::B_ADDR;
use netlab_topology::snapshot::snapshot_current_netns;
use netlab_topology::spec::{IP_FORWARD, TCP_ECN, TCP_RMEM};
use netlab_topology::testing::require_privileged;
use netlab_topology::{netns, Role, RunId, TopologyGuard, TopologySpec};

/// Host state that must be identical before and after.
#[derive(Debug, PartialEq)]
struct HostState {
    ip_link: String,
    ip_addr: String,
    ip_route: String,
    netlink: netlab_topology::NamespaceReadback,
    ip_forward: String,
    tcp_ecn: String,
    tcp_rmem: String,
    foreign_netns: Vec<String>,
}

fn ip_json(args: &[&str]) -> String {
    let out = std::process::Command::new("ip")
        .args(args)
        .output()
        .expect("running ip");
    assert!(out.status.success(), "ip {args:?} failed");
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("ip -j output");
    // lifetimes of dynamic addresses count down; they are not state we change
    if let Some(items) = v.as_array_mut() {
        for item in items {
            if let Some(infos) = item.get_mut("addr_info").and_then(|a| a.as_array_mut()) {
                for i in infos {
                    if let Some(o) = i.as_object_mut() {
                        o.remove("valid_life_time");
                        o.remove("preferred_life_time");
                    }
                }
            }
        }
    }
    v.to_string()
}

fn host_state() -> HostState {
    // read from a fresh thread so nothing of this thread's state matters
    std::thread::spawn(|| HostState {
        ip_link: ip_json(&["-j", "link", "show"]),
        ip_addr: ip_json(&["-j", "addr", "show"]),
        ip_route: ip_json(&["-j", "route", "show", "table", "all"]),
        netlink: snapshot_current_netns("host", None).unwrap(),
        ip_forward: std::fs::read_to_string("/proc/sys/net/ipv4/ip_forward").unwrap(),
        tcp_ecn: std::fs::read_to_string("/proc/sys/net/ipv4/tcp_ecn").unwrap(),
        tcp_rmem: std::fs::read_to_string("/proc/sys/net/ipv4/tcp_rmem").unwrap(),
        foreign_netns: netns::list()
            .unwrap()
            .into_iter()
            .filter(|n| !n.starts_with("nl-"))
            .collect(),
    })
    .join()
    .unwrap()
}

fn echo_through_r(topo: &netlab_topology::Topology) {
    let port = topo.spec.udp_port;
    let b_sock = topo
        .b
        .run(|| UdpSocket::bind(SocketAddr::from((B_ADDR, port))))
        .unwrap()
        .unwrap();
    b_sock
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let echo = std::thread::spawn(move || {
        let mut buf = [0u8; 64];
        let (n, from) = b_sock.recv_from(&mut buf).expect("B receives");
        b_sock.send_to(&buf[..n], from).expect("B echoes");
        from
    });
    let a_sock = topo
        .a
        .run(|| UdpSocket::bind("0.0.0.0:0"))
        .unwrap()
        .unwrap();
    a_sock
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    a_sock
        .send_to(b"netlab-hello", SocketAddr::from((B_ADDR, port)))
        .unwrap();
    let mut buf = [0u8; 64];
    let (n, from) = a_sock.recv_from(&mut buf).expect("A gets the echo");
    assert_eq!(&buf[..n], b"netlab-hello");
    assert_eq!(from, SocketAddr::from((B_ADDR, port)));
    let seen_from = echo.join().unwrap();
    assert_eq!(
        seen_from.ip().to_string(),
        "10.20.1.2",
        "B sees A's address (routed, no NAT)"
    );
}

#[test]
fn privileged_topology_build_traffic_readback_teardown_host_unchanged() {
    if !require_privileged("privileged_topology_build_traffic_readback_teardown_host_unchanged") {
        return;
    }
    let before = host_state();
    let spec = TopologySpec::new(RunId::random(), "full");
    let names = spec.netns_names();
    let topo = TopologyGuard::build(&spec).unwrap();
    for n in &names {
        assert!(netns::exists(n), "{n}");
    }
    // sysctls written were read back at build time
    let fw: Vec<_> = topo
        .sysctls
        .iter()
        .filter(|s| s.key == IP_FORWARD)
        .collect();
    assert_eq!(fw.len(), 3);
    for s in &topo.sysctls {
        assert_eq!(s.wrote, s.read, "{s:?}");
    }

    echo_through_r(&topo);

    let rb = topo.readback().unwrap();
    let json = serde_json::to_string(&rb).unwrap();
    let back: netlab_topology::TopologyReadback = serde_json::from_str(&json).unwrap();
    assert_eq!(back, rb);
    let a = rb.role(Role::A).unwrap();
    let r = rb.role(Role::R).unwrap();
    let b = rb.role(Role::B).unwrap();
    assert_eq!(a.sysctls[IP_FORWARD], "0");
    assert_eq!(r.sysctls[IP_FORWARD], "1");
    assert_eq!(b.sysctls[IP_FORWARD], "0");
    assert_eq!(a.sysctls[TCP_ECN], "1");
    assert_eq!(b.sysctls[TCP_ECN], "1");
    // The method's path keeps the kernel's tcp_rmem everywhere (method
    // §1.3): nothing written, A, R and B read what the host has.
    for ns in [a, r, b] {
        assert_eq!(ns.sysctls[TCP_RMEM], before.tcp_rmem.trim());
    }
    assert_eq!(
        topo.sysctls.iter().filter(|s| s.key == TCP_RMEM).count(),
        0,
        "tcp_rmem is not written by default"
    );
    for (ns, ifname) in [
        (a, "a0"),
        (r, "r0"),
        (r, "r1"),
        (b, "b0"),
        (a, "lo"),
        (r, "lo"),
        (b, "lo"),
    ] {
        let l = ns
            .link(ifname)
            .unwrap_or_else(|| panic!("{ifname} missing in {}", ns.netns));
        assert!(l.up, "{ifname} down in {}", ns.netns);
        if ifname != "lo" {
            assert_eq!(l.kind.as_deref(), Some("veth"));
            assert!(l.mac.is_some());
        }
    }
    assert_eq!(a.links.len(), 2, "only lo and a0 in A");
    assert_eq!(r.links.len(), 3);
    let has_addr = |ns: &netlab_topology::NamespaceReadback, ip: &str| {
        ns.addresses
            .iter()
            .any(|x| x.address.to_string() == ip && x.prefix_len == 24)
    };
    assert!(has_addr(a, "10.20.1.2"));
    assert!(has_addr(r, "10.20.1.1") && has_addr(r, "10.20.2.1"));
    assert!(has_addr(b, "10.20.2.2"));
    let default_via = |ns: &netlab_topology::NamespaceReadback| {
        ns.main_routes()
            .find(|r| r.destination == "default")
            .and_then(|r| r.gateway)
            .map(|g| g.to_string())
    };
    assert_eq!(default_via(a).as_deref(), Some("10.20.1.1"));
    assert_eq!(default_via(b).as_deref(), Some("10.20.2.1"));
    assert_eq!(default_via(r), None);

    // cross-check with iproute2 (tests may use it)
    let out = std::process::Command::new("ip")
        .args(["-n", &names[1], "-br", "addr"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("10.20.1.1/24") && text.contains("10.20.2.1/24"),
        "{text}"
    );

    for t in topo.teardown() {
        assert_eq!(t.error, None, "{t:?}");
    }
    for n in &names {
        assert!(!netns::exists(n), "{n} left");
    }
    let after = host_state();
    assert_eq!(before, after, "host network state changed");
}

#[test]
fn privileged_topology_tcp_ecn_and_receive_buffer_are_configurable() {
    if !require_privileged("privileged_topology_tcp_ecn_and_receive_buffer_are_configurable") {
        return;
    }
    let mut spec = TopologySpec::new(RunId::random(), "ecn_off");
    spec.tcp_ecn_a = 0;
    // ... and the opt-in receive-buffer start: tcp_rmem's default raised to
    // its max in A and B only.
    spec.receive_buffer = netlab_topology::ReceiveBuffer::StartAtMax;
    let host_rmem = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_rmem").unwrap();
    let h: Vec<&str> = host_rmem.split_whitespace().collect();
    let at_max = format!("{}\t{}\t{}", h[0], h[2], h[2]);
    let topo = TopologyGuard::build(&spec).unwrap();
    // what was built serializes (namespaces by name and path)
    let built = serde_json::to_value(&*topo).unwrap();
    assert_eq!(built["a"]["name"], spec.netns_names()[0].as_str());
    assert_eq!(built["spec"]["tcp_ecn_a"], 0);
    assert_eq!(built["sysctls"].as_array().unwrap().len(), 7);
    let rb = topo.readback().unwrap();
    assert_eq!(rb.role(Role::A).unwrap().sysctls[TCP_ECN], "0");
    assert_eq!(rb.role(Role::B).unwrap().sysctls[TCP_ECN], "1");
    assert_eq!(rb.role(Role::A).unwrap().sysctls[TCP_RMEM], at_max);
    assert_eq!(rb.role(Role::B).unwrap().sysctls[TCP_RMEM], at_max);
    assert_eq!(
        rb.role(Role::R).unwrap().sysctls[TCP_RMEM],
        host_rmem.trim()
    );
}

#[test]
fn privileged_topology_two_at_once_do_not_collide() {
    if !require_privileged("privileged_topology_two_at_once_do_not_collide") {
        return;
    }
    let run = RunId::random();
    let handles: Vec<_> = ["par1", "par2"]
        .into_iter()
        .map(|scenario| {
            let spec = TopologySpec::new(run.clone(), scenario);
            std::thread::spawn(move || {
                let topo = TopologyGuard::build(&spec).unwrap();
                echo_through_r(&topo);
                let names = spec.netns_names();
                for t in topo.teardown() {
                    assert_eq!(t.error, None, "{t:?}");
                }
                names
            })
        })
        .collect();
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.join().unwrap());
    }
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 6);
    for n in &all {
        assert!(!netns::exists(n), "{n} left");
    }
}

#[test]
fn privileged_topology_build_error_names_the_step_and_cleans_up() {
    if !require_privileged("privileged_topology_build_error_names_the_step_and_cleans_up") {
        return;
    }
    let spec = TopologySpec::new(RunId::random(), "dup");
    let first = TopologyGuard::build(&spec).unwrap();
    // building the same names again fails at the first namespace
    let e = TopologyGuard::build(&spec).unwrap_err();
    assert!(e.to_string().contains(&spec.netns_names()[0]), "{e}");
    assert_eq!(e.raw_os_error(), Some(17), "{e}");
    // the first one is untouched
    assert!(first.readback().is_ok());
    drop(first);
    for n in spec.netns_names() {
        assert!(!netns::exists(&n));
    }
}
