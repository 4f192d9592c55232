//! Throughput of our load generator + sink vs iperf3 on the same unshaped
//! A–R–B, in the same run (needs root; prints figures, asserts nothing).
//!
//! `cargo bench -p netlab-tcpload --bench throughput`
//!
//! Three rounds, order alternating (ours first, then iperf3 first, …), both
//! Reno, ~5 s each. Ours: goodput
//! of the validated stream over [connect + 0.5 s, connect + 5 s) by post-recv
//! timestamps (every byte checked against the pattern); iperf3: its
//! receiver's `sum_received` over `-t 5`. Ours also runs the UDP probe
//! against B's echo during the load and prints the echo RTTs, to show the
//! single event loop keeps serving the echo at full TCP rate.

#[path = "../tests/support/mod.rs"]
mod support;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use netlab_tcpload::{goodput, GoodputWindow};
use support::{b_tcp, run_scenario, topology, Timeline};

const IPERF_PORT: &str = "5201";

/// Goodput, validation failures, and the UDP echo RTTs (ms) of probes sent
/// while the load ran (B's single event loop serves both).
fn ours(topo: &netlab_topology::TopologyGuard) -> (f64, u64, Vec<f64>) {
    let tl = Timeline {
        sink_for: Duration::from_millis(5800),
        sender_at: Duration::from_millis(200),
        sender_for: Duration::from_secs(5),
        probe_end: Some(Duration::from_millis(5800)),
    };
    let out = run_scenario(topo, tl, |_, _| {});
    let c = Duration::from_secs_f64(out.tx.connect_s);
    let w = GoodputWindow {
        start: c + Duration::from_millis(500),
        end: c + Duration::from_secs(5),
    };
    let g = goodput(&out.rx.recvs, w);
    let mut rtts: Vec<f64> = out
        .probe
        .map(|p| p.requests)
        .unwrap_or_default()
        .iter()
        .filter(|r| r.send_s >= w.start.as_secs_f64() && r.send_s < w.end.as_secs_f64())
        .filter_map(|r| r.rtt_ms)
        .collect();
    rtts.sort_by(f64::total_cmp);
    (
        g.mbit_per_s.unwrap_or(0.0),
        out.rx.validation.failures,
        rtts,
    )
}

fn wait_bounded(mut child: Child, limit: Duration) -> std::process::Output {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if child.try_wait().expect("try_wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill(); // our own child, by handle
    child.wait_with_output().expect("output after kill")
}

fn iperf3(a: &str, b: &str) -> f64 {
    let server = Command::new("timeout")
        .args([
            "20", "ip", "netns", "exec", b, "iperf3", "-s", "-1", "-p", IPERF_PORT,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("iperf3 server");
    std::thread::sleep(Duration::from_millis(500));
    let client = Command::new("timeout")
        .args(["15", "ip", "netns", "exec", a, "iperf3", "-c"])
        .arg(b_tcp().ip().to_string())
        .args(["-p", IPERF_PORT, "-t", "5", "-C", "reno", "-J"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("iperf3 client");
    let out = wait_bounded(client, Duration::from_secs(16));
    let _ = wait_bounded(server, Duration::from_secs(5));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "iperf3 JSON: {e}; stderr {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    v["end"]["sum_received"]["bits_per_second"]
        .as_f64()
        .expect("sum_received")
        / 1e6
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    if !netlab_topology::testing::require_privileged("bench throughput") {
        return;
    }
    let topo = topology("tl_bench");
    let (a, b) = (topo.a.name().to_owned(), topo.b.name().to_owned());
    let mut ours_v = Vec::new();
    let mut iperf_v = Vec::new();
    // Alternate the order so neither tool always runs first.
    for round in 1..=3 {
        let run_ours = |ours_v: &mut Vec<f64>| {
            let (o, fails, rtts) = ours(&topo);
            println!("round {round}: netlab-tcpload {o:.1} Mbit/s (validation failures {fails})");
            if let (Some(lo), Some(hi)) = (rtts.first(), rtts.last()) {
                let p50 = rtts[(rtts.len() - 1) / 2];
                println!(
                    "round {round}: UDP echo during that load: {} replies, min {lo:.3} / p50 {p50:.3} / max {hi:.3} ms",
                    rtts.len()
                );
            }
            ours_v.push(o);
        };
        let run_iperf = |iperf_v: &mut Vec<f64>| {
            let i = iperf3(&a, &b);
            println!("round {round}: iperf3         {i:.1} Mbit/s");
            iperf_v.push(i);
        };
        if round % 2 == 1 {
            run_ours(&mut ours_v);
            run_iperf(&mut iperf_v);
        } else {
            run_iperf(&mut iperf_v);
            run_ours(&mut ours_v);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (o, i) = (mean(&ours_v), mean(&iperf_v));
    println!(
        "mean: netlab-tcpload {o:.1} Mbit/s, iperf3 {i:.1} Mbit/s, ratio {:.3} (target >= 0.9)",
        o / i
    );
}
