//! Helpers for the privileged and guest tests: traffic through R, and the
//! independent cross-check against iproute2's `tc -s -d -j qdisc show`
//! (tests only; the product never runs tc).

#![allow(dead_code)]

use std::net::{SocketAddrV4, UdpSocket};
use std::os::fd::AsRawFd;
use std::process::Command;
use std::time::{Duration, Instant};

pub mod flood;

use netlab_qdisc_model::{QdiscOptions, QdiscRecord, QdiscXstats, Readback};
use netlab_topology::addresses::B_ADDR;
use netlab_topology::Topology;
use serde_json::Value;

/// `tc -n <ns> -s -d -j qdisc show dev <dev>`, parsed.
pub fn tc_show(netns: &str, dev: &str) -> Vec<Value> {
    let out = Command::new("tc")
        .args(["-n", netns, "-s", "-d", "-j", "qdisc", "show", "dev", dev])
        .output()
        .expect("running tc");
    assert!(
        out.status.success(),
        "tc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("tc -j output is JSON");
    v.as_array().expect("a list of qdiscs").clone()
}

/// Sends `count` UDP datagrams of `size` bytes from A to B (ECT(0) when
/// `ect`), as fast as A's socket takes them. B need not listen: the
/// packets still cross R's r1 egress.
pub fn udp_burst(topo: &Topology, count: usize, size: usize, ect: bool) {
    topo.a
        .run(|| {
            let sock = UdpSocket::bind("0.0.0.0:0").expect("bind in A");
            if ect {
                nix::sys::socket::setsockopt(&sock, nix::sys::socket::sockopt::Ipv4Tos, &0x02)
                    .expect("IP_TOS ECT(0)");
            }
            let _ = sock.as_raw_fd();
            let dst = SocketAddrV4::new(B_ADDR, 46099);
            let payload = vec![0x5au8; size];
            for _ in 0..count {
                // ENOBUFS/ECONNREFUSED (ICMP from B) are fine: we only load R.
                let _ = sock.send_to(&payload, dst);
            }
        })
        .expect("run in A");
}

/// Polls until qdisc `handle` has no backlog (bounded).
pub fn wait_drained(
    sock: &netlab_qdisc::QdiscSocket,
    ifindex: u32,
    handle: netlab_qdisc_model::Handle,
    within: Duration,
) -> Readback {
    let deadline = Instant::now() + within;
    loop {
        let rb = sock
            .readback(ifindex, None, &netlab_qdisc::read_psched())
            .expect("readback");
        let s = rb.stats_of(handle).expect("stats of the handle");
        if s.qlen == 0 && s.backlog_bytes == 0 {
            return rb;
        }
        assert!(
            Instant::now() < deadline,
            "{handle} still has a backlog after {within:?}: {s:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn u(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("tc output has no numeric {key:?}: {v}"))
}

/// tc's `sprint_size`, to compare TBF's burst with tc's text (`16Kb`).
pub fn tc_size_text(bytes: u32) -> String {
    let (kb, mb) = (1024.0f64, 1024.0f64 * 1024.0);
    let t = bytes as f64;
    if t >= mb && (mb * (t / mb).round() - t).abs() < 1024.0 {
        format!("{}Mb", (t / mb).round())
    } else if t >= kb && (kb * (t / kb).round() - t).abs() < 16.0 {
        format!("{}Kb", (t / kb).round())
    } else {
        format!("{bytes}b")
    }
}

/// Compares every decoded field of `ours` with tc's JSON for the same
/// qdisc. Counters must be taken while nothing moves (drained queue).
pub fn assert_record_matches_tc(ours: &QdiscRecord, tc: &Value) {
    let ctx = format!("{} {}", ours.kind, ours.handle);
    assert_eq!(tc["kind"], ours.kind.as_str(), "{ctx}: kind");
    assert_eq!(tc["handle"], ours.handle.to_string(), "{ctx}: handle");
    if ours.parent == netlab_qdisc_model::Handle::ROOT {
        assert_eq!(tc["root"], true, "{ctx}: root");
    } else {
        assert_eq!(tc["parent"], ours.parent.to_string(), "{ctx}: parent");
    }
    let s = ours.stats.expect("stats");
    assert_eq!(u(tc, "bytes"), s.bytes, "{ctx}: bytes");
    assert_eq!(u(tc, "packets"), s.packets, "{ctx}: packets");
    assert_eq!(u(tc, "drops"), s.drops as u64, "{ctx}: drops");
    assert_eq!(
        u(tc, "overlimits"),
        s.overlimits as u64,
        "{ctx}: overlimits"
    );
    assert_eq!(u(tc, "requeues"), s.requeues as u64, "{ctx}: requeues");
    assert_eq!(
        u(tc, "backlog"),
        s.backlog_bytes as u64,
        "{ctx}: backlog bytes"
    );
    assert_eq!(u(tc, "qlen"), s.qlen as u64, "{ctx}: qlen");
    assert_eq!(s.backlog_packets, s.qlen, "{ctx}: backlog packets is qlen");

    let o = &tc["options"];
    match &ours.options {
        QdiscOptions::Tbf(t) => {
            assert_eq!(u(o, "rate"), t.rate_bytes_per_sec, "{ctx}: rate (bytes/s)");
            // tc prints burst as sprint_size(burst)/(1 << cell_log); the
            // kernel dumps cell_log 0.
            assert_eq!(
                o["burst"],
                format!("{}/1", tc_size_text(t.burst_bytes)),
                "{ctx}: burst"
            );
            assert_eq!(u(o, "mpu"), t.mpu as u64, "{ctx}: mpu");
            assert_eq!(u(o, "lat"), t.latency_us as u64, "{ctx}: latency (µs)");
            assert_eq!(o["linklayer"], "ethernet", "{ctx}: linklayer");
            assert_eq!(t.linklayer, 1);
        }
        QdiscOptions::Pfifo { limit_packets } => {
            assert_eq!(u(o, "limit"), *limit_packets as u64, "{ctx}: limit")
        }
        QdiscOptions::Bfifo { limit_bytes } => {
            assert_eq!(u(o, "limit"), *limit_bytes as u64, "{ctx}: limit")
        }
        QdiscOptions::FqCodel(f) => {
            assert_eq!(Some(u(o, "limit") as u32), f.limit, "{ctx}: limit");
            assert_eq!(Some(u(o, "flows") as u32), f.flows, "{ctx}: flows");
            assert_eq!(Some(u(o, "quantum") as u32), f.quantum, "{ctx}: quantum");
            assert_eq!(Some(u(o, "target") as u32), f.target_us, "{ctx}: target");
            assert_eq!(
                Some(u(o, "interval") as u32),
                f.interval_us,
                "{ctx}: interval"
            );
            assert_eq!(
                Some(u(o, "memory_limit") as u32),
                f.memory_limit,
                "{ctx}: memory_limit"
            );
            assert_eq!(o["ecn"].as_bool(), f.ecn, "{ctx}: ecn");
            assert_eq!(
                Some(u(o, "drop_batch") as u32),
                f.drop_batch,
                "{ctx}: drop_batch"
            );
            assert_eq!(
                o["ce_threshold"].as_u64().map(|v| v as u32),
                f.ce_threshold_us,
                "{ctx}: ce_threshold"
            );
        }
        other => panic!("{ctx}: no tc comparison for {other:?}"),
    }
    if let Some(QdiscXstats::FqCodel(x)) = &ours.xstats {
        assert_eq!(u(tc, "maxpacket"), x.maxpacket as u64, "{ctx}: maxpacket");
        assert_eq!(
            u(tc, "drop_overlimit"),
            x.drop_overlimit as u64,
            "{ctx}: drop_overlimit"
        );
        assert_eq!(
            u(tc, "new_flow_count"),
            x.new_flow_count as u64,
            "{ctx}: new_flow_count"
        );
        assert_eq!(u(tc, "ecn_mark"), x.ecn_mark as u64, "{ctx}: ecn_mark");
        assert_eq!(
            tc["drop_overmemory"].as_u64().unwrap_or(0),
            x.drop_overmemory as u64,
            "{ctx}: drop_overmemory"
        );
        assert_eq!(
            u(tc, "new_flows_len"),
            x.new_flows_len as u64,
            "{ctx}: new_flows_len"
        );
        assert_eq!(
            u(tc, "old_flows_len"),
            x.old_flows_len as u64,
            "{ctx}: old_flows_len"
        );
        // tc prints these only when non-zero.
        assert_eq!(
            tc["ce_mark"].as_u64().unwrap_or(0),
            x.ce_mark as u64,
            "{ctx}: ce_mark"
        );
        assert_eq!(
            tc["memory_used"].as_u64().unwrap_or(0),
            x.memory_usage as u64,
            "{ctx}: memory_usage"
        );
    }
}

/// Compares a whole readback with tc's list (same order, same length).
pub fn assert_readback_matches_tc(rb: &Readback, tc: &[Value]) {
    assert_eq!(
        rb.records.len(),
        tc.len(),
        "qdisc count: ours {:?} vs tc {tc:?}",
        rb.records
    );
    for (ours, theirs) in rb.records.iter().zip(tc) {
        assert_record_matches_tc(ours, theirs);
    }
}
