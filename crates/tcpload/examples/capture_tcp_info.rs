//! Captures the sock_diag fixture: builds an owned, shaped A–R–B (TBF 5mbit
//! and pfifo via `tc`, as in the privileged tests), runs a Reno load for ~4 s,
//! and at ~3 s writes the raw sock_diag dump reply of A's namespace (whole
//! netlink messages: INET_DIAG_INFO/CONG/SKMEMINFO) plus `ss -tinm` read
//! right after it, into `fixtures/tcpload/`. Needs root.
//!
//! `cargo run -p netlab-tcpload --example capture_tcp_info -- fixtures/tcpload`

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use netlab_tcpload::sampler::family_of;
use netlab_tcpload::DiagSocket;
use support::{in_netns, run_scenario, shape_r1, topology, Timeline};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fixtures/tcpload".into());
    let topo = topology("tl_capture");
    shape_r1(topo.r.name());
    let a_name = topo.a.name().to_owned();
    let tl = Timeline {
        sink_for: Duration::from_secs(5),
        sender_at: Duration::from_millis(200),
        sender_for: Duration::from_secs(4),
        probe_end: None,
    };
    let mut captured = None;
    let out = run_scenario(&topo, tl, |t0, flow| {
        std::thread::sleep((t0 + Duration::from_secs(3)).saturating_duration_since(Instant::now()));
        let diag = topo.a.run(DiagSocket::open).unwrap().unwrap();
        let raw = diag.dump_raw(family_of(flow)).unwrap();
        let filter = format!("dport = :{}", flow.remote.port());
        let ss = in_netns(&a_name, &["ss", "-tinmH", "state", "established", &filter]);
        captured = Some((raw, ss, *flow));
    });
    let (raw, ss, flow) = captured.expect("captured");
    std::fs::write(format!("{dir}/sock_diag_dump_reno_tbf5mbit.bin"), &raw).unwrap();
    std::fs::write(
        format!("{dir}/sock_diag_dump_reno_tbf5mbit.ss.txt"),
        format!(
            "# ss -tinmH state established '{}' in A, read right after the dump\n# flow local {} remote {}\n{}",
            format_args!("dport = :{}", flow.remote.port()),
            flow.local,
            flow.remote,
            ss
        ),
    )
    .unwrap();
    println!(
        "wrote {} bytes; flow {:?}; load {} bytes validated, {} failures",
        raw.len(),
        flow,
        out.rx.bytes_total,
        out.rx.validation.failures
    );
}
