//! Build + tear down one A–R–B topology N times over rtnetlink, and the same
//! topology N times through an `ip` command sequence (the baseline), then
//! print both medians and the ratio.
//!
//! `cargo bench -p netlab-topology --bench build_teardown [-- N]`
//! (N defaults to 20; env `NETLAB_BENCH_N` also works). Needs root.

use std::process::Command;
use std::time::{Duration, Instant};

use netlab_topology::{netns, RunId, Topology, TopologySpec};

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip {args:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The same topology, the iproute2 way; sysctls written and read back via
/// `ip netns exec NAME sh -c`.
fn ip_sequence(spec: &TopologySpec) -> Result<(), String> {
    let [a, r, b] = spec.netns_names();
    let (a, r, b) = (a.as_str(), r.as_str(), b.as_str());
    for n in [a, r, b] {
        ip(&["netns", "add", n])?;
    }
    ip(&[
        "link", "add", "a0", "netns", a, "type", "veth", "peer", "name", "r0", "netns", r,
    ])?;
    ip(&[
        "link", "add", "r1", "netns", r, "type", "veth", "peer", "name", "b0", "netns", b,
    ])?;
    ip(&["-n", r, "link", "set", "lo", "up"])?;
    ip(&["-n", r, "addr", "add", "10.20.1.1/24", "dev", "r0"])?;
    ip(&["-n", r, "addr", "add", "10.20.2.1/24", "dev", "r1"])?;
    ip(&["-n", r, "link", "set", "r0", "up"])?;
    ip(&["-n", r, "link", "set", "r1", "up"])?;
    ip(&["-n", a, "link", "set", "lo", "up"])?;
    ip(&["-n", a, "addr", "add", "10.20.1.2/24", "dev", "a0"])?;
    ip(&["-n", a, "link", "set", "a0", "up"])?;
    ip(&["-n", a, "route", "add", "default", "via", "10.20.1.1"])?;
    ip(&["-n", b, "link", "set", "lo", "up"])?;
    ip(&["-n", b, "addr", "add", "10.20.2.2/24", "dev", "b0"])?;
    ip(&["-n", b, "link", "set", "b0", "up"])?;
    ip(&["-n", b, "route", "add", "default", "via", "10.20.2.1"])?;
    let p = "/proc/sys/net/ipv4";
    let ab = format!(
        "echo 0 > {p}/ip_forward && echo 1 > {p}/tcp_ecn && cat {p}/ip_forward {p}/tcp_ecn"
    );
    ip(&["netns", "exec", a, "sh", "-c", &ab])?;
    ip(&[
        "netns",
        "exec",
        r,
        "sh",
        "-c",
        &format!("echo 1 > {p}/ip_forward && cat {p}/ip_forward"),
    ])?;
    ip(&["netns", "exec", b, "sh", "-c", &ab])?;
    for n in [b, r, a] {
        ip(&["netns", "del", n])?;
    }
    Ok(())
}

fn netlink_once(spec: &TopologySpec) -> Result<(), String> {
    let topo = Topology::build(spec).map_err(|e| e.to_string())?;
    for t in topo.teardown() {
        if let Some(e) = t.error {
            return Err(format!("deleting {}: {e}", t.netns));
        }
    }
    Ok(())
}

fn leftovers(spec: &TopologySpec) {
    for n in spec.netns_names() {
        if netns::exists(&n) {
            let _ = netns::delete(&n);
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    if !netlab_topology::testing::require_privileged("bench build_teardown") {
        return;
    }
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .or_else(|| std::env::var("NETLAB_BENCH_N").ok()?.parse().ok())
        .unwrap_or(20)
        .max(1);
    let run = RunId::random();
    let mut nl = Vec::with_capacity(n);
    let mut seq = Vec::with_capacity(n);
    for i in 0..n {
        // alternate so drift affects both equally
        let spec = TopologySpec::new(run.clone(), format!("bnl{i}"));
        let t = Instant::now();
        let r = netlink_once(&spec);
        nl.push(t.elapsed());
        leftovers(&spec);
        if let Err(e) = r {
            eprintln!("netlink build {i} failed: {e}");
            std::process::exit(1);
        }
        let spec = TopologySpec::new(run.clone(), format!("bip{i}"));
        let t = Instant::now();
        let r = ip_sequence(&spec);
        seq.push(t.elapsed());
        leftovers(&spec);
        if let Err(e) = r {
            eprintln!("ip sequence {i} failed: {e}");
            std::process::exit(1);
        }
    }
    let (m_nl, m_ip) = (median(nl), median(seq));
    println!("build+teardown of A–R–B, {n} rounds each (medians):");
    println!(
        "  netlink (this crate):  {:8.2} ms",
        m_nl.as_secs_f64() * 1e3
    );
    println!(
        "  ip command sequence:   {:8.2} ms",
        m_ip.as_secs_f64() * 1e3
    );
    println!(
        "  ratio ip / netlink:    {:8.1}x",
        m_ip.as_secs_f64() / m_nl.as_secs_f64()
    );
}
