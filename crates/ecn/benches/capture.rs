//! `cargo bench -p netlab-ecn --bench capture` (root / CAP_NET_ADMIN).
//!
//! Unshaped A–R–B at full speed, 5 s of bulk TCP A→B, B's interface captured:
//! frames read vs the kernel's PACKET_STATISTICS drops, for several capture
//! configurations. Prints figures; asserts nothing about time.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Duration;

use netlab_ecn::CaptureConfig;
use netlab_topology::privilege::check_capabilities;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

struct Variant {
    name: &'static str,
    cfg: CaptureConfig,
    /// TBF on R's r1 (`tc` words after `tbf`), or unshaped.
    tbf: Option<&'static str>,
}

/// Shapes R's r1 with `tc` (bench tooling only; the product uses netlink).
fn add_tbf(r_netns: &str, words: &str) {
    let mut args = vec!["-n", r_netns, "qdisc", "add", "dev", "r1", "root", "tbf"];
    args.extend(words.split_whitespace());
    let out = std::process::Command::new("tc")
        .args(&args)
        .output()
        .expect("running tc");
    assert!(
        out.status.success(),
        "tc {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn main() {
    if let Err(e) = check_capabilities() {
        println!("capture bench skipped: {e}");
        return;
    }
    let load = std::env::var("NETLAB_ECN_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_secs(5), Duration::from_secs);
    let unbounded = CaptureConfig {
        max_frames: u64::MAX,
        deadline: load + Duration::from_secs(15),
        ..CaptureConfig::default()
    };
    let variants = [
        Variant {
            name: "default: snap 256 (MSG_TRUNC), SO_RCVBUFFORCE 64 MiB",
            cfg: unbounded,
            tbf: None,
        },
        Variant {
            name: "plain: snap 256, SO_RCVBUF 208 KiB",
            cfg: CaptureConfig {
                rcvbuf_bytes: 212_992 / 2,
                ..unbounded
            },
            tbf: None,
        },
        Variant {
            name: "naive: snap 65 535 (full copy), SO_RCVBUF 208 KiB",
            cfg: CaptureConfig {
                rcvbuf_bytes: 212_992 / 2,
                snap_len: 65_535,
                ..unbounded
            },
            tbf: None,
        },
        Variant {
            name: "spec bounds: default config (50 000 frames / 25 s)",
            cfg: CaptureConfig::default(),
            tbf: None,
        },
        Variant {
            name: "default config, TBF 1gbit burst 16kb limit 64kb on r1 (MTU-sized frames)",
            cfg: unbounded,
            tbf: Some("rate 1gbit burst 16kb limit 64kb"),
        },
        Variant {
            name: "plain: snap 256, SO_RCVBUF 208 KiB, TBF 1gbit burst 16kb limit 64kb",
            cfg: CaptureConfig {
                rcvbuf_bytes: 212_992 / 2,
                ..unbounded
            },
            tbf: Some("rate 1gbit burst 16kb limit 64kb"),
        },
        Variant {
            name: "default config, TBF 100mbit burst 16kb limit 64kb on r1",
            cfg: unbounded,
            tbf: Some("rate 100mbit burst 16kb limit 64kb"),
        },
    ];
    println!("capture bench: A-R-B, {load:?} bulk TCP A->B per variant");
    for (i, v) in variants.iter().enumerate() {
        let spec = TopologySpec::new(RunId::random(), format!("ecnbench{i}"));
        let topo = TopologyGuard::build(&spec).expect("build A-R-B");
        if let Some(words) = v.tbf {
            add_tbf(topo.r.name(), words);
        }
        let run = common::bulk_with_capture(&topo, spec.tcp_port, load, v.cfg);
        drop(topo);
        let r = &run.evidence;
        let k = r.kernel.unwrap_or_default();
        let secs = r.duration_s.max(1e-9);
        let gbit = run.received as f64 * 8.0 / run.load_time.as_secs_f64() / 1e9;
        let drop_frac = if k.packets > 0 {
            k.drops as f64 / k.packets as f64
        } else {
            0.0
        };
        println!(
            "- {}\n    goodput {gbit:.2} Gbit/s, frames read {} in {secs:.2} s = {:.0} frames/s \
             (truncated {}), kernel packets {} drops {} (drop fraction {drop_frac:.5}), \
             stop {:?}, a_to_b {} b_to_a {} other {}",
            v.name,
            r.frames_seen,
            r.frames_seen as f64 / secs,
            r.frames_truncated,
            k.packets,
            k.drops,
            r.stop_reason,
            r.counts.a_to_b,
            r.counts.b_to_a,
            r.counts.other,
        );
    }
}
