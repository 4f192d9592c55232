//! Shared by the privileged tests and the throughput bench: an owned A–R–B,
//! one compressed scenario (sink in B, sender + sampler in A), and bounded
//! iproute2 helpers used ONLY as independent cross-checks / test setup.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use netlab_path_settings::{DEFAULT_PROBE_PORT, DEFAULT_TCP_PORT};
use netlab_probe::{EchoHandler, EchoResponder, EchoStats};
use netlab_tcpload::{
    new_sender_socket, DiagSocket, ReceiverLog, SamplerConfig, SamplerLog, Sender, SenderConfig,
    SenderLog, Sink, SinkConfig, TcpSampler,
};
use netlab_topology::addresses::B_ADDR;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

/// Builds a fresh, guarded A–R–B.
pub fn topology(scenario: &str) -> TopologyGuard {
    let spec = TopologySpec::new(RunId::random(), scenario);
    TopologyGuard::build(&spec).expect("build A–R–B")
}

/// Runs `ip netns exec <ns> <args…>` bounded by `timeout 10`; returns stdout,
/// panics with stderr on failure.
pub fn in_netns(ns: &str, args: &[&str]) -> String {
    let out = Command::new("timeout")
        .args(["10", "ip", "netns", "exec", ns])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("spawn timeout/ip");
    assert!(
        out.status.success(),
        "ip netns exec {ns} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// TBF 5mbit + pfifo 256 on R's r1 (method §2), via tc (test setup only).
pub fn shape_r1(r_ns: &str) {
    in_netns(
        r_ns,
        &[
            "tc", "qdisc", "add", "dev", "r1", "root", "handle", "1:", "tbf", "rate", "5mbit",
            "burst", "16kb", "limit", "64kb",
        ],
    );
    in_netns(
        r_ns,
        &[
            "tc", "qdisc", "add", "dev", "r1", "parent", "1:1", "handle", "10:", "pfifo", "limit",
            "256",
        ],
    );
}

/// B's listen and echo addresses.
pub fn b_tcp() -> SocketAddr {
    SocketAddr::from((B_ADDR, DEFAULT_TCP_PORT))
}
/// B's UDP echo address.
pub fn b_udp() -> SocketAddr {
    SocketAddr::from((B_ADDR, DEFAULT_PROBE_PORT))
}

/// Timeline of one compressed scenario (seconds since t0).
#[derive(Debug, Clone, Copy)]
pub struct Timeline {
    /// Sink hard end.
    pub sink_for: Duration,
    /// When the sender is started.
    pub sender_at: Duration,
    /// Sender lifetime.
    pub sender_for: Duration,
    /// Run the UDP probe from t0 with this scenario end (None: no probe).
    pub probe_end: Option<Duration>,
}

/// Everything one scenario produced.
pub struct Outcome {
    /// The common origin.
    pub t0: Instant,
    /// B's log.
    pub rx: ReceiverLog<EchoStats>,
    /// A's sender.
    pub tx: SenderLog,
    /// The sampler.
    pub samples: SamplerLog,
    /// The probe, if run.
    pub probe: Option<netlab_probe::ProbeLog>,
}

/// Runs sink (B) + the probe's echo, served by B's one loop (the echo
/// first), + sender and sampler (A). `during` runs on the test thread
/// while the sender runs (gets t0, A's namespace name and the flow).
pub fn run_scenario(
    topo: &TopologyGuard,
    tl: Timeline,
    during: impl FnOnce(Instant, &netlab_tcpload::FlowId) + Send,
) -> Outcome {
    let mut cfg = SinkConfig::new(b_tcp());
    cfg.duration = tl.sink_for;
    let (mut echo, sink) = topo
        .b
        .run(|| {
            let echo = EchoResponder::bind(b_udp()).expect("bind echo in B");
            (
                EchoHandler::new(echo),
                Sink::bind(cfg).expect("bind sink in B"),
            )
        })
        .unwrap();
    let t0 = sink.t0();
    let rx = std::thread::spawn(move || {
        let mut log = sink.run_serving(&mut [&mut echo], None)?;
        let o = echo.finish();
        log.set_echo(o.addr, o.stats, o.error);
        Ok::<_, netlab_tcpload::TcpLoadError>(log)
    });
    let probe = tl.probe_end.map(|end| {
        let sock = topo
            .a
            .run(|| netlab_probe::connect_socket(None, b_udp()))
            .unwrap()
            .expect("probe socket in A");
        std::thread::spawn(move || {
            let cfg = netlab_probe::ProbeConfig::with_end(end);
            netlab_probe::run_probe(&sock, t0, &cfg, None, |_| {}).expect("probe run")
        })
    });
    std::thread::sleep((t0 + tl.sender_at).saturating_duration_since(Instant::now()));
    let sock = topo
        .a
        .run(|| new_sender_socket("reno", b_tcp()))
        .unwrap()
        .expect("sender socket in A");
    let mut scfg = SenderConfig::new(b_tcp());
    scfg.lifetime = tl.sender_for;
    let sender = Sender::connect(sock, scfg, t0).expect("connect");
    let flow = sender.flow();
    let diag = topo
        .a
        .run(DiagSocket::open)
        .unwrap()
        .expect("diag socket in A");
    let sampler_cfg = SamplerConfig {
        max_duration: tl.sender_for + Duration::from_secs(1),
        ..SamplerConfig::default()
    };
    let sampler = TcpSampler::spawn(diag, flow, t0, sampler_cfg).expect("spawn sampler");
    let tx_thread = std::thread::spawn(move || sender.run());
    during(t0, &flow);
    let tx = tx_thread.join().expect("sender thread");
    let samples = sampler.stop().expect("sampler");
    let rx = rx.join().expect("sink thread").expect("sink run");
    let probe = probe.map(|h| h.join().expect("probe thread"));
    Outcome {
        t0,
        rx,
        tx,
        samples,
        probe,
    }
}

/// The value after `key` in `ss -tinm` text (e.g. "cwnd:" → "10").
pub fn ss_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(&format!(" {key}"))? + 1 + key.len();
    let rest = &text[at..];
    let end = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
    Some(&rest[..end])
}
