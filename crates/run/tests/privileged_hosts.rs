//! A `Session` with three sender hosts on the host kernel (needs root:
//! namespaces, qdiscs; skipped without unless
//! `NETLAB_REQUIRE_PRIVILEGED=1`): every host's upload crosses the one
//! shaped egress, results.json records each host and each flow's host,
//! and every namespace, the hosts' too, is gone at the end (method §1.7).

use netlab_os::testing::{require_privileged, Scratch};
use netlab_results::Results;
use netlab_run::{RunOutcome, Session, SessionConfig};
use netlab_topology::{netns, Role};

#[test]
fn privileged_hosts_three_hosts_share_the_bottleneck_and_leave_nothing() {
    if !require_privileged("privileged_hosts_three_hosts_share_the_bottleneck_and_leave_nothing") {
        return;
    }
    let dir = Scratch::new("run-hosts");
    let toml = r#"
        name = "hosts"
        rounds = 1
        kernel = "host"
        arms = ["pfifo limit 64"]
        [timeline]
        baseline = "1s"
        warmup = "1s"
        measure = "2s"
        [[hosts]]
        name = "one"
        [[hosts]]
        name = "two"
        [[hosts]]
        name = "three"
        [[flows]]
        host = "one"
        [[flows]]
        host = "two"
        [[flows]]
        host = "three"
        [[flows]]
        host = "three"
        [[probes]]
        host = "two"
    "#;
    let exp = netlab_experiment::parse(toml).unwrap();
    let out = dir.0.join("out");
    let mut cfg = SessionConfig::new(exp, out.clone());
    cfg.quiet = true;
    assert_eq!(Session::new(cfg).run(), Ok(RunOutcome::Complete));
    let results = Results::read(&out.join("results.json")).unwrap();
    let s = &results.scenarios[0];
    assert_eq!(s.error, None);
    assert_eq!(s.namespaces.len(), 5, "{:?}", s.namespaces);
    assert!(s.namespaces.iter().all(|n| !netns::exists(n)), "{s:?}");
    assert!(s.cleanup.receipts.iter().all(|r| r.outcome.is_ok()));
    // A receipt for every namespace, the hosts' too.
    let receipts = format!("{:?}", s.cleanup.receipts);
    for n in &s.namespaces {
        assert!(receipts.contains(n.as_str()), "no receipt for {n}");
    }

    let names: Vec<&str> = s.hosts.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["one", "two", "three"]);
    let addrs: Vec<&str> = s.hosts.iter().map(|h| h.address.as_str()).collect();
    assert_eq!(addrs, ["10.20.1.2", "10.21.2.2", "10.21.3.2"]);
    // No delay anywhere: no netem, a zero base RTT read.
    assert!(s.hosts.iter().all(|h| h.link.is_none()));
    assert!(s
        .hosts
        .iter()
        .all(|h| h.base_rtt_read_s(&s.qdiscs) == Some(0.0)));
    let flow_hosts: Vec<Option<&str>> = s.flows.iter().map(|f| f.host.as_deref()).collect();
    assert_eq!(
        flow_hosts,
        [Some("one"), Some("two"), Some("three"), Some("three")]
    );
    for f in &s.flows {
        assert_eq!(f.error, None, "flow {}", f.index);
        let g = f.tcp.as_ref().and_then(|t| t.goodput_mbps).unwrap_or(0.0);
        assert!(
            g > 0.0,
            "flow {} from {:?} carried nothing",
            f.index,
            f.host
        );
    }
    let total: f64 = s
        .flows
        .iter()
        .filter_map(|f| f.tcp.as_ref()?.goodput_mbps)
        .sum();
    // All four share the one 5 Mbit/s TBF (a 2 s window's edges let a
    // little more through: 5.7 measured), far from four links' 20.
    assert!(total < 7.0, "all four share the 5 Mbit/s TBF: {total}");
    let topo = s.topology.as_ref().unwrap();
    assert_eq!(topo.spec.sender_hosts, 3);
    assert_eq!(topo.readback.namespaces.len(), 5);
    assert_eq!(
        topo.readback
            .namespaces
            .iter()
            .filter(|n| n.role == Some(Role::A))
            .count(),
        3
    );
    // The probe ran from host "two" and was answered.
    let p = s.probe().unwrap();
    assert!(p.requests.iter().any(|r| r.rtt_ms.is_some()));
}
