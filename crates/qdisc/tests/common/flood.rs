//! A UDP flood from A to B's discard port, faster than any rate a TBF
//! test gives (tests and the rate_change bench; bounded in time), and
//! the TBF's bytes at a time from the driver's readings.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use netlab_qdisc::rate_driver::{PlannedChange, RateDriver, RateDriverConfig, TbfTarget};
use netlab_qdisc_model::{RateLog, TbfReading};
use netlab_topology::addresses::B_ADDR;
use netlab_topology::Topology;

/// A UDP socket made in A.
pub fn socket_in_a(topo: &Topology) -> UdpSocket {
    topo.a
        .run(|| UdpSocket::bind("0.0.0.0:0"))
        .expect("entering A")
        .expect("a UDP socket in A")
}

/// Sends 1472-byte datagrams (1514-byte frames) to B's discard port at
/// 30 Mbit/s (25 every 10 ms) until `stop` is set or `end` passes.
pub fn flood_until(sock: &UdpSocket, stop: &AtomicBool, end: Instant) {
    let to = SocketAddr::from((B_ADDR, 9));
    let payload = [0u8; 1472];
    let mut next = Instant::now();
    while !stop.load(Ordering::SeqCst) && Instant::now() < end {
        for _ in 0..25 {
            let _ = sock.send_to(&payload, to);
        }
        next += Duration::from_millis(10);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
}

/// The first reading at or after `s` seconds: its time and the TBF's bytes.
pub fn reading_at(readings: &[TbfReading], s: f64) -> (f64, u64) {
    let r = readings
        .iter()
        .find(|r| r.at_s >= s)
        .unwrap_or_else(|| panic!("a reading after {s} s"));
    (r.at_s, r.bytes)
}

/// Runs `plan` on `target` in R from 300 ms from now until `run_for`
/// later, A flooding B all along; returns what the driver did (bounded:
/// 20 s past the deadline at most).
pub fn drive_under_flood(
    topo: &Topology,
    target: TbfTarget,
    plan: Vec<PlannedChange>,
    run_for: Duration,
) -> RateLog {
    let flood = socket_in_a(topo);
    let stop = AtomicBool::new(false);
    let origin = Instant::now() + Duration::from_millis(300);
    std::thread::scope(|s| {
        s.spawn(|| flood_until(&flood, &stop, origin + run_for + Duration::from_millis(200)));
        let config = RateDriverConfig {
            origin,
            deadline: origin + run_for,
            reading_every: Duration::from_millis(100),
        };
        let driver = RateDriver::start(&topo.r, target, plan, config).expect("start the driver");
        let give_up = Instant::now() + run_for + Duration::from_secs(20);
        while !driver.is_finished() && Instant::now() < give_up {
            std::thread::sleep(Duration::from_millis(20));
        }
        let log = driver.stop().expect("driver thread");
        stop.store(true, Ordering::SeqCst);
        log
    })
}
