//! Shared by the privileged and guest tests: the echo in B driven by a
//! bounded poll loop, and the iso probe from A, over an owned A–R–B.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use netlab_probe::{connect_socket, run_iso_probe, EchoResponder, EchoStats, IsoConfig, IsoLog};
use netlab_topology::addresses::B_ADDR;
use netlab_topology::{TopologyGuard, TopologySpec};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

/// Echo in B (its own thread, bounded to 60 s), iso probe in A with `cfg`.
pub fn iso_over_a_r_b(
    topo: &TopologyGuard,
    spec: &TopologySpec,
    cfg: &IsoConfig,
) -> (IsoLog, EchoStats) {
    let echo_addr = SocketAddr::from((B_ADDR, spec.udp_port));
    let mut echo = topo
        .b
        .run(|| EchoResponder::bind(echo_addr))
        .unwrap()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stop_b = stop.clone();
    let b_loop = std::thread::spawn(move || {
        let hard_end = Instant::now() + Duration::from_secs(60);
        while !stop_b.load(Ordering::Relaxed) && Instant::now() < hard_end {
            let mut fds = [PollFd::new(echo.as_fd(), PollFlags::POLLIN)];
            poll(&mut fds, PollTimeout::from(20u8)).expect("poll in B");
            echo.drain().expect("drain");
        }
        echo.stats()
    });
    // The path first carries a packet (as netlab's runner makes sure before
    // t0): on a just-built A–R–B an ARP request sent before the links'
    // qdiscs are active is lost, and its retry comes 1 s later, with the
    // first requests queued behind it.
    topo.a
        .run(|| {
            netlab_topology::warm_neighbours(Duration::from_secs(5), Duration::from_millis(200))
        })
        .unwrap()
        .expect("the path answers within 5 s");
    let sock = topo
        .a
        .run(|| connect_socket(None, echo_addr))
        .unwrap()
        .unwrap();
    let log = run_iso_probe(&sock, Instant::now(), cfg, None, |_| {}).expect("run_iso_probe");
    stop.store(true, Ordering::Relaxed);
    (log, b_loop.join().unwrap())
}

/// Nearest-rank quantile of `v` (sorted here).
pub fn quantile(mut v: Vec<f64>, q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let k = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[k - 1]
}

/// Tears down and checks nothing of ours is left.
pub fn teardown(topo: TopologyGuard, spec: &TopologySpec) {
    let names = spec.netns_names();
    for r in topo.teardown() {
        assert!(r.error.is_none(), "{r:?}");
    }
    for name in &names {
        assert!(!netlab_topology::netns::exists(name), "{name} leaked");
    }
}
