//! Guest kernel (UML via netlab-guest; the host has no fq_codel): with
//! TBF 5mbit + fq_codel ecn on R's r1 under a few seconds of bulk TCP, CE,
//! ECE and CWR are all seen on B's wire and fq_codel's ecn_mark is > 0.

mod common;

use std::process::Command;
use std::time::Duration;

use netlab_ecn::CaptureConfig;
use netlab_topology::addresses::R_B_IF;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

fn tc(netns: &str, args: &[&str]) -> String {
    let out = Command::new("tc")
        .arg("-n")
        .arg(netns)
        .args(args)
        .output()
        .expect("running tc");
    assert!(
        out.status.success(),
        "tc -n {netns} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// fq_codel's `ecn_mark` on r1, read back with `tc -s -j` (independent of the product).
fn fq_codel_ecn_mark(netns: &str) -> u64 {
    let json = tc(netns, &["-s", "-j", "qdisc", "show", "dev", R_B_IF]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("tc -j output");
    v.as_array()
        .expect("qdisc list")
        .iter()
        .find(|q| q["kind"] == "fq_codel")
        .and_then(|q| q["ecn_mark"].as_u64())
        .unwrap_or_else(|| panic!("no fq_codel ecn_mark in {json}"))
}

#[test]
fn guest_fq_codel_ecn_ce_ece_cwr_on_the_wire() {
    netlab_guest::test_in_guest(
        "guest_fq_codel_ecn_ce_ece_cwr_on_the_wire",
        &["sch_tbf", "sch_fq_codel", "veth"],
        || {
            let spec = TopologySpec::new(RunId::random(), "ecn_guest");
            let topo = TopologyGuard::build(&spec).expect("build A-R-B in the guest");
            let r_ns = topo.r.name().to_string();
            let tbf = "root handle 1: tbf rate 5mbit burst 32kbit latency 400ms";
            let fq = "parent 1: handle 10: fq_codel ecn";
            for q in [tbf, fq] {
                let mut args = vec!["qdisc", "add", "dev", R_B_IF];
                args.extend(q.split_whitespace());
                tc(&r_ns, &args);
            }
            let run = common::bulk_with_capture(
                &topo,
                spec.tcp_port,
                Duration::from_secs(4),
                CaptureConfig::default(),
            );
            let ecn_mark = fq_codel_ecn_mark(&r_ns);
            let r = &run.evidence;
            println!("{}", serde_json::to_string_pretty(r).unwrap());
            println!(
                "received {} B in {:?}; counts {:?}; fq_codel ecn_mark {ecn_mark}; kernel {:?}",
                run.received, run.load_time, r.counts, r.kernel
            );
            assert!(r.negotiated, "classic ECN negotiated");
            assert!(r.counts.ce > 0, "CE-marked A→B frames seen");
            assert!(r.counts.ece > 0, "ECE on B→A ACKs seen");
            assert!(r.counts.cwr > 0, "CWR on A→B seen");
            assert!(ecn_mark > 0, "fq_codel marked");
            assert!(r.first.ce.is_some() && r.first.ece.is_some() && r.first.cwr.is_some());
            assert_eq!(
                r.kernel.map(|k| k.drops),
                Some(0),
                "capture kept up at 5 Mbit/s"
            );
            drop(topo);
        },
    );
}
