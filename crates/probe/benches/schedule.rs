//! Probe send-time accuracy on an idle path:
//! `cargo bench -p netlab-probe --bench schedule`
//!
//! As root (CAP_NET_ADMIN): an owned, unshaped A–R–B topology, echo in B,
//! probe in A. Otherwise: host loopback 127.0.0.1 (ephemeral ports).
//! Runs the method's schedule (§5.2) (200 ms spacing, 1 s timeout) for
//! `NETLAB_PROBE_BENCH_SECS` seconds of sending (default 10) and prints the
//! send-time deviation from the schedule (`send_s - due_s`: how late each
//! request left compared to when the state machine wanted it), the RTTs, and
//! the cumulative drift (spacing counts from the actual previous send).
//!
//! Baseline in the same run: the wake-up lateness of a bare
//! `std::thread::sleep` loop with the same spacing and count (default timer
//! slack), i.e. what the machine gives any sleeping thread; the ratio
//! probe/baseline shows what the probe adds or saves.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use netlab_probe::{connect_socket, run_probe, EchoResponder, ProbeConfig, ProbeLog};
use netlab_topology::addresses::B_ADDR;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

fn spawn_echo(
    mut echo: EchoResponder,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<netlab_probe::EchoStats> {
    std::thread::spawn(move || {
        let hard_end = Instant::now() + Duration::from_secs(120);
        while !stop.load(Ordering::Relaxed) && Instant::now() < hard_end {
            let mut fds = [PollFd::new(echo.as_fd(), PollFlags::POLLIN)];
            poll(&mut fds, PollTimeout::from(20u8)).expect("poll");
            echo.drain().expect("drain");
        }
        echo.stats()
    })
}

/// Nearest-rank quantile (q in (0, 1]) of sorted values.
fn q(sorted: &[f64], q: f64) -> f64 {
    let k = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[k - 1]
}

fn print_result(path: &str, log: &ProbeLog, wall: Duration) {
    let n = log.requests.len();
    let mut dev: Vec<f64> = log
        .requests
        .iter()
        .map(|r| (r.send_s - r.due_s) * 1e6)
        .collect();
    dev.sort_by(f64::total_cmp);
    let mut rtt: Vec<f64> = log.requests.iter().filter_map(|r| r.rtt_ms).collect();
    rtt.sort_by(f64::total_cmp);
    let ok = rtt.len();
    println!("path: {path}");
    println!(
        "requests: {n} ({ok} replies, {} stale), wall {:.2} s",
        log.stale_replies,
        wall.as_secs_f64()
    );
    for r in log.requests.iter().filter(|r| r.rtt_ms.is_none()) {
        println!(
            "  no reply: seq {} sent {:.4} s: {:?}",
            r.seq, r.send_s, r.outcome
        );
    }
    if n == 0 {
        return;
    }
    println!(
        "send-time deviation from schedule (us): p50 {:.1}  p99 {:.1}  max {:.1}  (p99 is nearest rank over {n} samples; target p99 < 1000)",
        q(&dev, 0.5),
        q(&dev, 0.99),
        dev[n - 1]
    );
    if ok > 0 {
        println!(
            "first rtt (includes ARP on a fresh path): {:.3} ms",
            log.requests[0].rtt_ms.unwrap_or(f64::NAN)
        );
        println!(
            "rtt (ms): p50 {:.3}  p99 {:.3}  max {:.3}",
            q(&rtt, 0.5),
            q(&rtt, 0.99),
            rtt[ok - 1]
        );
    }
    let first = log.requests[0].send_s;
    let last = log.requests[n - 1].send_s;
    let nominal = first + (n - 1) as f64 * log.config.spacing.as_secs_f64();
    println!(
        "cumulative drift of last send vs first + (n-1)*spacing: {:.1} us over {} intervals (mean actual spacing {:.4} ms)",
        (last - nominal) * 1e6,
        n - 1,
        if n > 1 { (last - first) / (n - 1) as f64 * 1e3 } else { f64::NAN }
    );
}

fn main() {
    let secs: f64 = std::env::var("NETLAB_PROBE_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|v: &f64| *v > 0.0 && *v <= 60.0)
        .unwrap_or(10.0);
    // sends in [0, secs]; end = secs + 1 s quiet
    let cfg = ProbeConfig::with_end(Duration::from_secs_f64(secs + 1.0));
    let stop = Arc::new(AtomicBool::new(false));

    let privileged = netlab_topology::privilege::check_capabilities().is_ok();
    let (path, _guard, sock, echo) = if privileged {
        let spec = TopologySpec::new(RunId::random(), "probe_bench");
        let topo = TopologyGuard::build(&spec).expect("build A-R-B");
        let addr = SocketAddr::from((B_ADDR, spec.udp_port));
        let echo = topo.b.run(|| EchoResponder::bind(addr)).unwrap().unwrap();
        let sock = topo.a.run(|| connect_socket(None, addr)).unwrap().unwrap();
        (
            "unshaped A-R-B (owned netns, veth via R)",
            Some(topo),
            sock,
            echo,
        )
    } else {
        let echo = EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let sock = connect_socket(None, echo.local_addr().unwrap()).unwrap();
        ("host loopback 127.0.0.1 (not privileged)", None, sock, echo)
    };
    let b = spawn_echo(echo, stop.clone());
    let t0 = Instant::now();
    let log = run_probe(&sock, t0, &cfg, None, |_| {}).expect("run_probe");
    let wall = t0.elapsed();
    stop.store(true, Ordering::Relaxed);
    let echo_stats = b.join().unwrap();
    print_result(path, &log, wall);
    println!("echo: {echo_stats:?}");

    // baseline: bare sleep loop, same spacing and count
    let n = log.requests.len().max(1);
    let mut late: Vec<f64> = Vec::with_capacity(n);
    let start = Instant::now();
    let mut due = start;
    for _ in 0..n {
        if let Some(d) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(d);
        }
        let now = Instant::now();
        late.push(now.saturating_duration_since(due).as_secs_f64() * 1e6);
        due = now + cfg.spacing;
    }
    late.sort_by(f64::total_cmp);
    let mut dev: Vec<f64> = log
        .requests
        .iter()
        .map(|r| (r.send_s - r.due_s) * 1e6)
        .collect();
    dev.sort_by(f64::total_cmp);
    println!(
        "baseline std::thread::sleep lateness (us), {n} samples: p50 {:.1}  p99 {:.1}",
        q(&late, 0.5),
        q(&late, 0.99)
    );
    if !dev.is_empty() {
        println!(
            "ratio probe/baseline: p50 {:.2}  p99 {:.2}",
            q(&dev, 0.5) / q(&late, 0.5),
            q(&dev, 0.99) / q(&late, 0.99)
        );
    }
}
