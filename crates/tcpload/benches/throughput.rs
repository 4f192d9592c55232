//! Throughput of our load generator + sink vs iperf3 on the same unshaped
//! A–R–B, in the same run (needs root; prints figures, asserts nothing).
//!
//! `cargo bench -p netlab-tcpload --bench throughput`
//!
//! Order: ours, iperf3, ours, iperf3 (both Reno, ~5 s each). Ours counts the
//! receiver's validated bytes between 1 s and 5 s after the connect... more
//! exactly: goodput over [connect + 0.5 s, connect + 5 s) by post-recv
//! timestamps; iperf3 reports its receiver's `sum_received` over 5 s.

#[path = "../tests/support/mod.rs"]
mod support;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use netlab_tcpload::{goodput, GoodputWindow};
use support::{b_tcp, run_scenario, topology, Timeline};

const IPERF_PORT: &str = "5201";

fn ours(topo: &netlab_topology::TopologyGuard) -> (f64, u64) {
    let tl = Timeline {
        sink_for: Duration::from_millis(5800),
        sender_at: Duration::from_millis(200),
        sender_for: Duration::from_secs(5),
        probe_end: None,
    };
    let out = run_scenario(topo, tl, |_, _| {});
    let c = Duration::from_secs_f64(out.tx.connect_s);
    let w = GoodputWindow {
        start: c + Duration::from_millis(500),
        end: c + Duration::from_secs(5),
    };
    let g = goodput(&out.rx.recvs, w);
    (g.mbit_per_s.unwrap_or(0.0), out.rx.validation.failures)
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
    if !netlab_topology::privilege::require_privileged("bench throughput") {
        return;
    }
    let topo = topology("tl_bench");
    let (a, b) = (topo.a.name().to_owned(), topo.b.name().to_owned());
    let mut ours_v = Vec::new();
    let mut iperf_v = Vec::new();
    for round in 1..=2 {
        let (o, fails) = ours(&topo);
        println!("round {round}: netlab-tcpload {o:.1} Mbit/s (validation failures {fails})");
        let i = iperf3(&a, &b);
        println!("round {round}: iperf3        {i:.1} Mbit/s");
        ours_v.push(o);
        iperf_v.push(i);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (o, i) = (mean(&ours_v), mean(&iperf_v));
    println!(
        "mean: netlab-tcpload {o:.1} Mbit/s, iperf3 {i:.1} Mbit/s, ratio {:.3} (target >= 0.9)",
        o / i
    );
}
