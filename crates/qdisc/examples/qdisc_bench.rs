//! Figures, not assertions: how long building requests, decoding a real
//! dump and (with privileges) one live readback take. The live readback
//! time bounds how short a sampler interval can usefully be.
//!
//! ```sh
//! cargo run --release -p netlab-qdisc --example qdisc_bench
//! ```

use std::time::{Duration, Instant};

use netlab_qdisc::{configure, read_psched, QdiscSocket};
use netlab_qdisc_model::{decode_dump, Arm, BottleneckSpec, Psched};
use netlab_topology::addresses::R_B_IF;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

fn per_op(label: &str, n: u32, f: impl FnMut()) -> Duration {
    let mut f = f;
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    let each = t.elapsed() / n;
    println!(
        "{label:<48} {:>10.2} µs/op  ({n} ops)",
        each.as_secs_f64() * 1e6
    );
    each
}

fn main() {
    let dump_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/qdisc/guest_tbf_fq_codel.loaded.hex"
    );
    let dump =
        hex::decode(std::fs::read_to_string(dump_path).expect("fixture").trim()).expect("hex");
    let b = BottleneckSpec::spec(Arm::spec_fq_codel());
    per_op("build TBF + fq_codel requests", 20_000, || {
        std::hint::black_box(b.requests("r1", 3, &Psched::MODERN).unwrap());
    });
    let decode = per_op(
        "decode a 4-qdisc dump (1 KB, fq_codel xstats)",
        20_000,
        || {
            std::hint::black_box(decode_dump(&dump, Some(3), &Psched::MODERN).unwrap());
        },
    );
    let hexed = per_op("hex-encode the same dump (baseline)", 20_000, || {
        std::hint::black_box(hex::encode(&dump));
    });
    println!(
        "decode / hex-encode ratio: {:.1}",
        decode.as_secs_f64() / hexed.as_secs_f64()
    );

    if netlab_topology::privilege::check_capabilities().is_err() {
        println!("live readback: skipped (needs CAP_NET_ADMIN)");
        return;
    }
    let topo =
        TopologyGuard::build(&TopologySpec::new(RunId::random(), "qdisc_bench")).expect("A-R-B");
    let done =
        configure(&topo.r, R_B_IF, &BottleneckSpec::spec(Arm::spec_pfifo())).expect("configure");
    let sock = QdiscSocket::open_in(&topo.r).expect("socket");
    let psched = read_psched();
    let live = per_op("live readback of r1 (dump + decode)", 2_000, || {
        std::hint::black_box(sock.readback(done.ifindex, None, &psched).unwrap());
    });
    let raw = per_op("live dump only (baseline)", 2_000, || {
        std::hint::black_box(sock.dump_raw().unwrap());
    });
    println!(
        "readback / dump ratio: {:.2}",
        live.as_secs_f64() / raw.as_secs_f64()
    );
}
