//! Privileged (root / CAP_NET_ADMIN, host kernel): classic ECN negotiation is
//! seen on B's wire when A and B have tcp_ecn=1, and not when A has tcp_ecn=0.

mod common;

use std::time::Duration;

use netlab_ecn::{CaptureConfig, StopReason};
use netlab_topology::testing::require_privileged;
use netlab_topology::{netns, Role, RunId, TopologyGuard, TopologySpec};

#[test]
fn privileged_tcp_ecn_1_negotiates_on_the_wire() {
    if !require_privileged("privileged_tcp_ecn_1_negotiates_on_the_wire") {
        return;
    }
    let spec = TopologySpec::new(RunId::random(), "ecn_on");
    let topo = TopologyGuard::build(&spec).expect("build A-R-B");
    let run = common::bulk_with_capture(
        &topo,
        spec.tcp_port,
        Duration::from_millis(300),
        CaptureConfig::default(),
    );
    let r = &run.evidence;
    println!("{}", serde_json::to_string_pretty(r).unwrap());
    assert!(run.received > 0, "no bytes reached B");
    let syn = r.syn.as_ref().expect("SYN captured");
    assert!(
        syn.fields.flags.ece && syn.fields.flags.cwr,
        "SYN carries ECE+CWR"
    );
    let sa = r.syn_ack.as_ref().expect("SYN-ACK captured");
    assert!(
        sa.fields.flags.ece && !sa.fields.flags.cwr,
        "SYN-ACK carries ECE only"
    );
    assert!(r.negotiated);
    assert_eq!(r.flow_a.port(), syn.fields.src.port());
    assert!(r.counts.ect0 > 0, "data sent ECT(0) once negotiated");
    // Retransmitted segments are sent Not-ECT (RFC 3168 §6.1.5), so a
    // busy run can show a few; new data must be ECT(0).
    assert!(
        r.counts.not_ect * 10 <= r.counts.ect0,
        "Not-ECT {} vs ECT(0) {}",
        r.counts.not_ect,
        r.counts.ect0
    );
    assert_eq!(r.stop_reason, Some(StopReason::Stopped));
    let k = r.kernel.expect("PACKET_STATISTICS read");
    assert!(k.packets >= r.frames_seen);
    if k.drops > 0 {
        assert!(r.notes.iter().any(|n| n.contains("could not keep up")));
    }
    drop(topo);
    assert!(!netns::exists(&spec.netns_name(Role::B)));
}

#[test]
fn privileged_tcp_ecn_0_in_a_is_not_negotiated() {
    if !require_privileged("privileged_tcp_ecn_0_in_a_is_not_negotiated") {
        return;
    }
    let mut spec = TopologySpec::new(RunId::random(), "ecn_off_a");
    spec.tcp_ecn_a = 0;
    let topo = TopologyGuard::build(&spec).expect("build A-R-B");
    let run = common::bulk_with_capture(
        &topo,
        spec.tcp_port,
        Duration::from_millis(300),
        CaptureConfig::default(),
    );
    let r = &run.evidence;
    println!("{}", serde_json::to_string_pretty(r).unwrap());
    assert!(run.received > 0, "no bytes reached B");
    let syn = r.syn.as_ref().expect("SYN captured");
    assert!(!syn.fields.flags.ece && !syn.fields.flags.cwr, "plain SYN");
    let sa = r.syn_ack.as_ref().expect("SYN-ACK captured");
    assert!(
        !sa.fields.flags.ece,
        "B does not answer an ECN setup it was not offered"
    );
    assert!(!r.negotiated);
    assert!(
        r.counts.not_ect > 0 && r.counts.ect0 == 0,
        "data is Not-ECT"
    );
    assert_eq!((r.counts.ce, r.counts.ece), (0, 0));
}
