//! Fixture tool: capture on an interface of the *current* network namespace
//! (run it under `ip netns exec`) and write every frame as one line
//! `<direction> <orig_len> <at_s> <hex>`, then print the [`EcnEvidence`] as JSON.
//!
//! `ecn_dump <ifname> <seconds> <out-file> <a-ip:port> <b-ip:port> [snap_len]`

use std::io::Write;
use std::net::SocketAddrV4;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use netlab_ecn::{Capture, CaptureConfig, CaptureDirection, Flow};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 6 {
        eprintln!(
            "usage: ecn_dump <ifname> <seconds> <out-file> <a-ip:port> <b-ip:port> [snap_len]"
        );
        std::process::exit(2);
    }
    let secs: u64 = args[2].parse().expect("seconds");
    let a: SocketAddrV4 = args[4].parse().expect("a-ip:port");
    let b: SocketAddrV4 = args[5].parse().expect("b-ip:port");
    let snap_len: usize = args.get(6).map_or(256, |s| s.parse().expect("snap_len"));
    let cfg = CaptureConfig {
        deadline: Duration::from_secs(secs),
        snap_len,
        ..CaptureConfig::default()
    };
    let cap = Capture::open(&args[1], cfg).expect("open capture");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args[3]).expect("out file"));
    let stop = AtomicBool::new(false);
    let evidence = cap
        .run_with(Flow { a, b }, &stop, Instant::now(), |f| {
            let dir = match f.direction {
                CaptureDirection::Incoming => "in".to_string(),
                CaptureDirection::Outgoing => "out".to_string(),
                CaptureDirection::Other(t) => format!("pkttype{t}"),
            };
            let hex = hex::encode(f.bytes);
            writeln!(out, "{dir} {} {:.6} {hex}", f.orig_len, f.at.as_secs_f64()).expect("write");
        })
        .expect("capture");
    out.flush().expect("flush");
    println!("{}", serde_json::to_string_pretty(&evidence).expect("json"));
}
