//! Bounded waits with a silent other side: a capture on a
//! link with no traffic ends by its deadline (+ 1 s). Needs root /
//! CAP_NET_RAW; skips with a printed reason otherwise, fails instead under
//! NETLAB_REQUIRE_PRIVILEGED=1.

use std::net::SocketAddrV4;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use netlab_ecn::{Capture, CaptureConfig, Flow, StopReason};
use netlab_topology::addresses::{A_ADDR, B_ADDR, B_IF};
use netlab_topology::testing::require_privileged;
use netlab_topology::testing::ScratchNetns;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

const DEADLINE: Duration = Duration::from_secs(2);

fn flow() -> Flow {
    Flow {
        a: SocketAddrV4::new(A_ADDR, 0),
        b: SocketAddrV4::new(B_ADDR, 46020),
    }
}

fn config() -> CaptureConfig {
    CaptureConfig {
        deadline: DEADLINE,
        ..CaptureConfig::default()
    }
}

#[test]
fn privileged_bounds_capture_on_a_silent_link_ends_by_its_deadline() {
    if !require_privileged("privileged_bounds_capture_on_a_silent_link_ends_by_its_deadline") {
        return;
    }
    // An owned A–R–B with nothing sent: B's b0 is up and silent (at most
    // the kernel's own neighbour/IPv6 chatter, never the TCP flow).
    let topo = TopologyGuard::build(&TopologySpec::new(RunId::random(), "silent_cap"))
        .expect("build A-R-B");
    let cap = topo
        .b
        .run(|| Capture::open(B_IF, config()))
        .expect("enter B")
        .expect("open the capture on b0");
    let never = AtomicBool::new(false);
    let t0 = Instant::now();
    let evidence = cap.run(flow(), &never, t0).expect("capture run");
    let took = t0.elapsed();
    drop(topo);
    println!(
        "silent b0: {} frames seen, ended after {took:?} ({:?})",
        evidence.frames_seen, evidence.stop_reason
    );
    assert!(
        took <= DEADLINE + Duration::from_secs(1),
        "the capture ran {took:?}, past its deadline {DEADLINE:?} + 1 s"
    );
    assert!(took >= DEADLINE, "it waited for the deadline: {took:?}");
    assert_eq!(evidence.stop_reason, Some(StopReason::Deadline));
    assert!(evidence.syn.is_none(), "no TCP flow was ever sent");
}

#[test]
fn privileged_bounds_capture_on_a_down_link_ends_by_its_deadline() {
    if !require_privileged("privileged_bounds_capture_on_a_down_link_ends_by_its_deadline") {
        return;
    }
    // The loopback of a fresh namespace stays down: the socket reports
    // ENETDOWN (an error naming the recvfrom) or the deadline passes;
    // either way within the bound.
    let ns = ScratchNetns::new("down_cap").expect("scratch namespace");
    let cap = ns
        .run(|| Capture::open("lo", config()))
        .expect("enter the namespace")
        .expect("open the capture on lo");
    let never = AtomicBool::new(false);
    let t0 = Instant::now();
    let result = cap.run(flow(), &never, t0);
    let took = t0.elapsed();
    drop(ns);
    println!("down lo: {result:?} after {took:?}");
    assert!(
        took <= DEADLINE + Duration::from_secs(1),
        "the capture ran {took:?}, past its deadline {DEADLINE:?} + 1 s"
    );
    match result {
        Ok(r) => assert_eq!(r.stop_reason, Some(StopReason::Deadline)),
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains("recvfrom") || text.contains("recvmsg"),
                "{text}"
            );
            assert!(text.contains("Network is down"), "{text}");
        }
    }
}
