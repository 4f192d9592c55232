//! One cross-check scenario: a fresh A–R–B with TBF + arm on R's egress
//! toward B, netlab's probe (B's echo) and optionally `irtt` probing from
//! t0, the load (netlab's or iperf3) from the baseline mark, both flows
//! sampled the same way (sock_diag in A and in B, every 200 ms), the arm
//! sampled every 200 ms, a bracketed `tc`/`ss` check mid-window, the final
//! qdisc readback at the end before anything closes. Every child and
//! thread is bounded; the namespaces go when the guard drops.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use netlab_probe::{connect_socket, run_probe, Phase, PhaseBounds, ProbeConfig, ProbeLog};
use netlab_qdisc::{Bottleneck, QdiscSocket};
use netlab_run::b_loop::{BLoop, BLoopConfig};
use netlab_tcpload::sampler::{DiagSocket, SamplerConfig, SamplerHandle};
use netlab_tcpload::{new_sender_socket, FlowId, Sender, SenderConfig, SinkConfig, TcpSampler};
use netlab_topology::spec::{A_ADDR, B_ADDR, R_B_IF};
use netlab_topology::{RunId, Topology, TopologyGuard, TopologySpec};

use crate::config::{CrosscheckConfig, End, Load, NetlabLoad};
use crate::external::{irtt_requests, parse_tc_json, Iperf3Report, SsLine};
use crate::record::{
    tcpinfo_goodput, Metrics, QueueSample, ReadbackCheck, ReceiverSummary, ScenarioRecord,
};
use crate::tools::{argv, run_in, wait_listening, Tool};
use crate::CrosscheckError;

/// iperf3's port in B.
pub const IPERF_PORT: u16 = 5201;
/// iperf3 client's data-connection port in A (`--cport`), so its flow is
/// known before it connects.
pub const IPERF_CPORT: u16 = 5202;
/// irtt server port in B.
pub const IRTT_PORT: u16 = 2112;
/// netlab's TCP port in B.
pub const TCP_PORT: u16 = 46020;
/// netlab's UDP echo port in B.
pub const UDP_PORT: u16 = 46021;
/// netlab's isochronous probe echo port in B.
pub const ISO_PORT: u16 = 46022;
/// The ordinary receiver's port in B.
pub const ORDINARY_PORT: u16 = 5301;
/// The ordinary sender's port in A, so its flow is known before it connects.
pub const ORDINARY_CPORT: u16 = 5302;
/// The ordinary pair (`python3 -c` this, method §13).
const ORDINARY_PY: &str = include_str!("ordinary.py");
const SAMPLE: Duration = Duration::from_millis(200);
/// Longest wait for the load's data connection after its start; the
/// scenario's phases are taken from the actual connect (see [`Window`]).
pub const CONNECT_SLACK: Duration = Duration::from_secs(4);

fn wall_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// tcp_info samplers of an outside client's known flow: in A (`flow`) and
/// in B (the same flow seen from B).
fn both_samplers(
    in_a: DiagSocket,
    in_b: DiagSocket,
    flow: FlowId,
    t0: Instant,
    cfg: SamplerConfig,
) -> Result<(SamplerHandle, SamplerHandle), CrosscheckError> {
    let back = FlowId {
        local: flow.remote,
        remote: flow.local,
    };
    let a = TcpSampler::spawn(in_a, flow, t0, cfg)
        .map_err(|e| CrosscheckError::step("tcp_info sampler in A", e))?;
    let b = TcpSampler::spawn(in_b, back, t0, cfg)
        .map_err(|e| CrosscheckError::step("tcp_info sampler in B", e))?;
    Ok((a, b))
}

/// `python3 -c <ordinary.py> args…`.
fn ordinary_argv(args: &[&str]) -> Vec<String> {
    let mut v = argv(&["python3", "-c", ORDINARY_PY]);
    v.extend(argv(args));
    v
}

fn first_line(s: &str) -> &str {
    s.trim().lines().next().unwrap_or("")
}

fn sleep_until(t: Instant) {
    std::thread::sleep(t.saturating_duration_since(Instant::now()));
}

/// Where a scenario runs.
pub struct ScenarioCtx<'a> {
    /// The whole configuration.
    pub cfg: &'a CrosscheckConfig,
    /// Run id (namespace names carry it).
    pub run_id: &'a RunId,
    /// Folder for tool output files (irtt's JSON).
    pub scratch: &'a std::path::Path,
    /// Kernel release, for the record.
    pub kernel: &'a str,
}

/// Runs one scenario; failures are recorded in [`ScenarioRecord::error`]
/// together with whatever was measured until then.
pub fn run_scenario(
    ctx: &ScenarioCtx<'_>,
    index: u32,
    round: u32,
    arm_idx: usize,
    load_idx: usize,
) -> ScenarioRecord {
    let cfg = ctx.cfg;
    let load = cfg.loads[load_idx].clone();
    let mut rec = ScenarioRecord {
        index,
        round,
        arm_words: cfg.arms[arm_idx].clone(),
        load_label: load.label(),
        load: Some(load),
        kernel: ctx.kernel.to_owned(),
        load_start_s: cfg.timeline.baseline_s,
        ..ScenarioRecord::default()
    };
    let bottleneck = match cfg.bottlenecks() {
        Ok(mut b) => b.swap_remove(arm_idx),
        Err(e) => {
            rec.error = Some(e.to_string());
            return rec;
        }
    };
    rec.arm = bottleneck.arm.kind().to_owned();
    if let Err(e) = measure(ctx, index, &bottleneck, &mut rec) {
        rec.error = Some(e.to_string());
    }
    rec.metrics = Metrics::derive(
        &rec,
        rec.window_s,
        bottleneck.tbf.rate.bytes_per_sec() as f64,
    );
    rec
}

/// The load while it runs: netlab's sender thread, or an outside client
/// (iperf3's, the ordinary sender) with tcp_info sampled on both ends.
enum Running {
    Netlab(std::thread::JoinHandle<Result<NetlabOut, CrosscheckError>>),
    Client {
        client: Tool,
        a: SamplerHandle,
        b: SamplerHandle,
    },
}

struct NetlabOut {
    sender: netlab_tcpload::SenderLog,
    a: Option<netlab_tcpload::SamplerLog>,
    b: Option<netlab_tcpload::SamplerLog>,
}

fn measure(
    ctx: &ScenarioCtx<'_>,
    index: u32,
    bottleneck: &Bottleneck,
    rec: &mut ScenarioRecord,
) -> Result<(), CrosscheckError> {
    let cfg = ctx.cfg;
    let tl = cfg.timeline;
    let load = rec.load.clone().expect("set by run_scenario");
    let mut spec = TopologySpec::new(ctx.run_id.clone(), format!("x{index}"));
    spec.receive_buffer = load.receive_buffer().unwrap_or(cfg.receive_buffer);
    let topo = TopologyGuard::new(
        Topology::build(&spec).map_err(|e| CrosscheckError::step("building A–R–B", e))?,
    );
    let configured = netlab_qdisc::configure(&topo.r, R_B_IF, bottleneck)
        .map_err(|e| CrosscheckError::step(format!("configuring the bottleneck on {R_B_IF}"), e))?;
    let qsock =
        QdiscSocket::open_in(&topo.r).map_err(|e| CrosscheckError::step("qdisc socket in R", e))?;
    let (a_ns, b_ns, r_ns) = (
        topo.a.name().to_owned(),
        topo.b.name().to_owned(),
        topo.r.name().to_owned(),
    );
    let b_tcp = SocketAddr::from((B_ADDR, TCP_PORT));
    let b_udp = SocketAddr::from((B_ADDR, UDP_PORT));

    // Servers of the independent tools, up before t0.
    let irtt_server = if cfg.irtt {
        Some(Tool::spawn(
            "irtt server in B",
            &b_ns,
            &argv(&[
                "irtt",
                "server",
                "-b",
                &format!("{B_ADDR}:{IRTT_PORT}"),
                "--timeout=2m",
            ]),
        )?)
    } else {
        None
    };
    let mut load_server = match &load {
        Load::Iperf3(i) => {
            let mut args = argv(&[
                "iperf3",
                "-s",
                "-1",
                "-J",
                "-i",
                "0.2",
                "-B",
                &B_ADDR.to_string(),
                "-p",
                &IPERF_PORT.to_string(),
            ]);
            if let Some(l) = i.length {
                args.extend(argv(&["-l", &l.to_string()]));
            }
            Some(Tool::spawn("iperf3 server in B", &b_ns, &args)?)
        }
        Load::Ordinary(o) if o.receiver == End::Ordinary => Some(Tool::spawn(
            "ordinary receiver in B",
            &b_ns,
            &ordinary_argv(&[
                "recv",
                &B_ADDR.to_string(),
                &ORDINARY_PORT.to_string(),
                &format!("{}", (tl.end() + CONNECT_SLACK).as_secs_f64() + 2.0),
            ]),
        )?),
        Load::Netlab(_) | Load::Ordinary(_) => None,
    };
    // The ordinary sender is started now and told to connect at the load's
    // start (a byte on its stdin), so the interpreter's start-up (seconds
    // in the guest) is not part of its flow's start, as netlab's sender is
    // ready before it connects.
    let mut ordinary_sender = match &load {
        Load::Ordinary(o) if o.sender == End::Ordinary => {
            let to = match o.receiver {
                End::Netlab => TCP_PORT,
                End::Ordinary => ORDINARY_PORT,
            };
            let secs = tl.end() - tl.load_start() + Duration::from_secs(2);
            Some((
                to,
                Tool::spawn_piped(
                    "ordinary sender in A",
                    &a_ns,
                    &ordinary_argv(&[
                        "send",
                        &B_ADDR.to_string(),
                        &to.to_string(),
                        &cfg.cc,
                        &format!("{}", secs.as_secs_f64()),
                        &ORDINARY_CPORT.to_string(),
                    ]),
                )?,
            ))
        }
        _ => None,
    };
    if irtt_server.is_some() {
        wait_listening(&b_ns, true, IRTT_PORT, Duration::from_secs(5))?;
    }
    if load_server.is_some() {
        // Python's start-up takes seconds in the guest, and its first one
        // after the guest booted (an empty page cache, the interpreter and
        // its library read through hostfs) took over 30 s in one CI run on
        // a machine whose hypervisor stole the CPU: 90 s bounds it.
        let (port, bound) = match &load {
            Load::Ordinary(_) => (ORDINARY_PORT, Duration::from_secs(90)),
            _ => (IPERF_PORT, Duration::from_secs(5)),
        };
        wait_listening(&b_ns, false, port, bound)?;
    }

    // B's loop (the probe's echoes, then the TCP receiver): sets t0. With
    // iperf3 as the load it serves only the echoes, so both loads see the
    // same probe. The echoes' counters are not recorded here.
    let mut sink_cfg = SinkConfig::new(b_tcp);
    let b_iso = SocketAddr::from((B_ADDR, ISO_PORT));
    sink_cfg.duration = tl.end() + CONNECT_SLACK + Duration::from_secs(2);
    if let Load::Netlab(n) = &load {
        sink_cfg.recv_buf = n.recv_buf;
    }
    // B's loop as netlab wires it (netlab_run::b_loop): the echoes, then
    // the receiver, whose bind sets t0.
    let b_loop = topo
        .b
        .run(|| {
            BLoop::bind(BLoopConfig {
                receiver: sink_cfg,
                udp_echo: Some(b_udp),
                iso_echo: cfg.iso_probe.then_some(b_iso),
            })
        })
        .map_err(|e| CrosscheckError::step("entering B", e))?
        .map_err(|e| CrosscheckError::step("binding netlab's receiver in B", e))?;
    let t0 = b_loop.t0();
    rec.t0_wall_ns = wall_ns();
    let at = |s: Duration| t0 + s;
    let sink_stop = Arc::new(AtomicBool::new(false));
    let flag = sink_stop.clone();
    let sink_h = std::thread::spawn(move || b_loop.run(Some(&flag)));

    let mut qcfg = netlab_qdisc::SamplerConfig::new(
        SAMPLE,
        t0,
        at(tl.end() + CONNECT_SLACK + Duration::from_secs(1)),
    );
    qcfg.keep_raw = false;
    let qsampler =
        netlab_qdisc::Sampler::start(&topo.r, configured.ifindex, configured.psched, qcfg)
            .map_err(|e| CrosscheckError::step("starting the qdisc sampler", e))?;

    // netlab's probe in A.
    let psock = topo
        .a
        .run(|| connect_socket(None, b_udp))
        .map_err(|e| CrosscheckError::step("entering A", e))?
        .map_err(|e| CrosscheckError::step("probe socket in A", e))?;
    // The probe's schedule runs past the latest possible end; it is stopped
    // at the actual end and its phases are taken from the actual connect.
    let mut pcfg = ProbeConfig::with_end(tl.end() + CONNECT_SLACK);
    pcfg.spacing = Duration::from_secs_f64(cfg.probe_interval_s);
    pcfg.timeout = Duration::from_secs_f64(cfg.probe_timeout_s);
    pcfg.max_requests = 10_000;
    pcfg.phases = PhaseBounds {
        baseline_start: Duration::ZERO,
        baseline_end: tl.load_start(),
        loaded_start: tl.window_start(),
        loaded_end: tl.end(),
    };
    pcfg.validate()
        .map_err(|e| CrosscheckError::step("probe config", e))?;
    let probe_stop = Arc::new(AtomicBool::new(false));
    let flag = probe_stop.clone();
    let probe_h = std::thread::spawn(move || run_probe(&psock, t0, &pcfg, Some(&flag), |_| {}));

    // netlab's isochronous probe in A (pairing 2b), same spacing and
    // timeout, its own echo port; stopped with the stop-and-wait probe.
    let iso_h = if cfg.iso_probe {
        let isock = topo
            .a
            .run(|| connect_socket(None, b_iso))
            .map_err(|e| CrosscheckError::step("entering A", e))?
            .map_err(|e| CrosscheckError::step("isochronous probe socket in A", e))?;
        let mut icfg = netlab_probe::IsoConfig::with_interval(
            Duration::from_secs_f64(cfg.probe_interval_s),
            tl.end() + CONNECT_SLACK,
        );
        icfg.timeout = Duration::from_secs_f64(cfg.probe_timeout_s);
        icfg.validate()
            .map_err(|e| CrosscheckError::step("isochronous probe config", e))?;
        let flag = probe_stop.clone();
        Some(std::thread::spawn(move || {
            netlab_probe::run_iso_probe(&isock, t0, &icfg, Some(&flag), |_| {})
        }))
    } else {
        None
    };

    // irtt client in A, same spacing, sending until 1 s before the end.
    let irtt_file = ctx.scratch.join(format!("irtt-{index}.json"));
    let irtt_client = if cfg.irtt {
        let d = (tl.end() + CONNECT_SLACK).as_secs_f64() - 1.0;
        Some(Tool::spawn(
            "irtt client in A",
            &a_ns,
            &argv(&[
                "irtt",
                "client",
                "-Q",
                "-i",
                &format!("{}ms", (cfg.probe_interval_s * 1e3).round() as u64),
                "-d",
                &format!("{}ms", (d * 1e3).round() as u64),
                &format!(
                    "--wait={}ms",
                    (cfg.probe_timeout_s * 1e3 + 500.0).round() as u64
                ),
                "-o",
                &irtt_file.display().to_string(),
                &format!("{B_ADDR}:{IRTT_PORT}"),
            ]),
        )?)
    } else {
        None
    };

    sleep_until(at(tl.load_start()));
    let (flow_tx, flow_rx) = mpsc::channel::<FlowId>();
    let scfg = SamplerConfig {
        interval: Duration::from_millis(cfg.tcp_sample_ms),
        max_duration: tl.end() + CONNECT_SLACK + Duration::from_secs(2),
    };
    let diag_a = || {
        topo.a
            .run(DiagSocket::open)
            .map_err(|e| CrosscheckError::step("entering A", e))?
            .map_err(|e| CrosscheckError::step("sock_diag in A", e))
    };
    let diag_b = || {
        topo.b
            .run(DiagSocket::open)
            .map_err(|e| CrosscheckError::step("entering B", e))?
            .map_err(|e| CrosscheckError::step("sock_diag in B", e))
    };
    let netlab_sender = match &load {
        Load::Netlab(n) => Some((n.clone(), b_tcp)),
        Load::Ordinary(o) if o.sender == End::Netlab => {
            let to = match o.receiver {
                End::Netlab => b_tcp,
                End::Ordinary => SocketAddr::from((B_ADDR, ORDINARY_PORT)),
            };
            Some((NetlabLoad::default(), to))
        }
        _ => None,
    };
    let running = match (&load, netlab_sender) {
        (_, Some((n, b_tcp))) => {
            let sock = topo
                .a
                .run(|| new_sender_socket(&cfg.cc, b_tcp))
                .map_err(|e| CrosscheckError::step("entering A", e))?
                .map_err(|e| CrosscheckError::step("sender socket in A", e))?;
            let (da, db) = (diag_a()?, diag_b()?);
            let sender_cfg = SenderConfig {
                cc: cfg.cc.clone(),
                block_size: n.block_size,
                start_delay: Duration::from_millis(n.start_delay_ms),
                prime_bytes: n.prime_bytes,
                lifetime: tl.end() - tl.load_start() + Duration::from_secs(2),
                ..SenderConfig::new(b_tcp)
            };
            Running::Netlab(std::thread::spawn(move || {
                // Both samplers wait for the flow before the connect, so
                // the first write follows the connect at once (method §4.1).
                let (pa, sa) = TcpSampler::spawn_before_connect(da, t0, scfg, |_| {})
                    .map_err(|e| CrosscheckError::step("tcp_info sampler in A", e))?;
                let (pb, sb) = TcpSampler::spawn_before_connect(db, t0, scfg, |_| {})
                    .map_err(|e| CrosscheckError::step("tcp_info sampler in B", e))?;
                // The socket is bound: both samplers and the main thread
                // learn the flow before the connect, so nothing wakes
                // between it and the first write.
                let flow = sock.flow();
                pa.connected(flow);
                pb.connected(FlowId {
                    local: flow.remote,
                    remote: flow.local,
                });
                let _ = flow_tx.send(flow);
                let tx = Sender::connect(sock, sender_cfg, t0)
                    .map_err(|e| CrosscheckError::step("netlab sender", e))?;
                let sender = tx.run();
                Ok(NetlabOut {
                    sender,
                    a: sa.stop().ok(),
                    b: sb.stop().ok(),
                })
            }))
        }
        (Load::Ordinary(_), None) => {
            let (to, mut client) = ordinary_sender
                .take()
                .expect("an ordinary sender was started with the servers");
            let flow = FlowId {
                local: SocketAddr::from((A_ADDR, ORDINARY_CPORT)),
                remote: SocketAddr::from((B_ADDR, to)),
            };
            let (a, b) = both_samplers(diag_a()?, diag_b()?, flow, t0, scfg)?;
            client.send(b"g")?;
            let _ = flow_tx.send(flow);
            Running::Client { client, a, b }
        }
        (Load::Iperf3(i), None) => {
            let flow = FlowId {
                local: SocketAddr::from((A_ADDR, IPERF_CPORT)),
                remote: SocketAddr::from((B_ADDR, IPERF_PORT)),
            };
            let (a, b) = both_samplers(diag_a()?, diag_b()?, flow, t0, scfg)?;
            // One second past the window so the end is ours, not iperf3's.
            let secs = tl.load_s + 1.0;
            let mut args = argv(&[
                "iperf3",
                "-c",
                &B_ADDR.to_string(),
                "-p",
                &IPERF_PORT.to_string(),
                "--cport",
                &IPERF_CPORT.to_string(),
                "-C",
                &cfg.cc,
                "-J",
                "-i",
                "0.2",
                "-t",
                &format!("{secs}"),
            ]);
            if let Some(l) = i.length {
                args.extend(argv(&["-l", &l.to_string()]));
            }
            let client = Tool::spawn("iperf3 client in A", &a_ns, &args)?;
            let _ = flow_tx.send(flow);
            Running::Client { client, a, b }
        }
        (Load::Netlab(_), None) => unreachable!("a netlab load always has netlab's sender"),
    };
    let flow = flow_rx.recv_timeout(CONNECT_SLACK).ok();
    // The load's phases start at its data connection: iperf3 takes from
    // 0.2 to 2.5 s to connect in the guest (process start, control
    // connection), netlab's sender a few ms; a window fixed to t0 would put
    // a late flow's slow-start overshoot inside the measured window.
    let connected = match (matches!(running, Running::Netlab(_)), flow) {
        (_, None) => None,
        // netlab's sender hands its flow over just before its connect,
        // which takes well under a millisecond on this path (the sender's
        // own connect time is in its report).
        (true, Some(_)) => Some(Instant::now()),
        (false, Some(f)) => wait_connected(&diag_a, &f, at(tl.load_start()) + CONNECT_SLACK),
    };
    let Some(connected) = connected else {
        return Err(CrosscheckError::step(
            "the load",
            format!("no data connection within {CONNECT_SLACK:?} of its start"),
        ));
    };
    let c = connected.saturating_duration_since(t0);
    let win = Window::from_connect(&tl, c);
    rec.connect_s = Some(c.as_secs_f64());
    rec.window_s = (win.start.as_secs_f64(), win.end.as_secs_f64());

    // Pairing 3: netlab vs tc and ss, bracketed, mid-window.
    if cfg.readback_check {
        sleep_until(at(win.readback));
        rec.readback = Some(readback_check(
            &qsock,
            &configured,
            t0,
            &r_ns,
            &a_ns,
            flow,
            &diag_a,
        ));
    }

    sleep_until(at(win.end));
    let end_s = Instant::now().saturating_duration_since(t0).as_secs_f64();
    match qsock.readback(configured.ifindex, Some(end_s), &configured.psched) {
        Ok(rb) => rec.queue_final = QueueSample::from_records(end_s, &rb.records),
        Err(e) => rec.error = Some(format!("final qdisc readback: {e}")),
    }

    // The common end: B closes; everything else is joined with a bound.
    // The ordinary receiver closes by being ended (SIGTERM), as netlab's
    // receive loop closes at its stop: the sender then sees the close.
    sink_stop.store(true, Ordering::SeqCst);
    let ordinary_receiver = match load {
        Load::Ordinary(_) => load_server.take().map(Tool::stop).transpose()?,
        _ => None,
    };
    let rx = sink_h
        .join()
        .map_err(|_| CrosscheckError::step("netlab receiver", "thread panicked"))?;
    let window = rec.window_s;
    match rx {
        Ok(log) => {
            let netlab_receives = match &load {
                Load::Netlab(_) => true,
                Load::Ordinary(o) => o.receiver == End::Netlab,
                Load::Iperf3(_) => false,
            };
            if netlab_receives {
                rec.goodput_mbps = netlab_tcpload::goodput(
                    &log.recvs,
                    netlab_tcpload::GoodputWindow {
                        start: win.start,
                        end: win.end,
                    },
                )
                .mbit_per_s;
                rec.receiver = Some(ReceiverSummary::from_log(&log));
            }
        }
        Err(e) => rec.error = Some(format!("netlab receiver: {e}")),
    }
    match running {
        Running::Netlab(h) => {
            let out = h
                .join()
                .map_err(|_| CrosscheckError::step("netlab sender", "thread panicked"))??;
            rec.sender = Some(out.sender);
            rec.tcp_a = out.a.map(|l| l.samples).unwrap_or_default();
            rec.tcp_b = out.b.map(|l| l.samples).unwrap_or_default();
        }
        Running::Client { client, a, b } => {
            let out = client.wait(Duration::from_secs(5))?;
            rec.tcp_a = a.stop().map(|l| l.samples).unwrap_or_default();
            rec.tcp_b = b.stop().map(|l| l.samples).unwrap_or_default();
            if matches!(load, Load::Iperf3(_)) {
                match Iperf3Report::parse(&out.stdout) {
                    Ok(r) => rec.iperf_client = Some(r),
                    Err(e) => rec.error = Some(format!("{e}; stderr: {}", first_line(&out.stderr))),
                }
            }
        }
    }
    if let Some(out) = ordinary_receiver.filter(|o| !o.ended_by_us && o.code != Some(0)) {
        rec.error = Some(format!(
            "ordinary receiver exited {:?} before the end: {}",
            out.code,
            first_line(&out.stderr)
        ));
    }
    if let Some(server) = load_server {
        let out = server.wait(Duration::from_secs(5))?;
        match Iperf3Report::parse(&out.stdout) {
            Ok(r) => {
                // The server's clock starts about when the data connection
                // does: shift the window onto it.
                let origin = c.as_secs_f64();
                rec.goodput_mbps = r.window_mbps(window.0 - origin, window.1 - origin);
                rec.iperf_server = Some(r);
            }
            Err(e) => {
                rec.error = Some(format!(
                    "iperf3 server: {e}; stderr: {}",
                    first_line(&out.stderr)
                ))
            }
        }
    }
    rec.goodput_b_tcpinfo_mbps = tcpinfo_goodput(&rec.tcp_b, window.0, window.1);
    if let Load::Ordinary(o) = &load {
        if o.receiver == End::Ordinary {
            // The ordinary receiver keeps no log: its goodput is B's
            // tcp_info bytes_received over the window.
            rec.goodput_mbps = rec.goodput_b_tcpinfo_mbps;
        }
    }

    probe_stop.store(true, Ordering::SeqCst);
    let probe: Result<ProbeLog, _> = probe_h
        .join()
        .map_err(|_| CrosscheckError::step("netlab probe", "thread panicked"))?;
    let mut probe = probe.map_err(|e| CrosscheckError::step("netlab probe", e))?;
    let phases = win.phases(&tl);
    for r in &mut probe.requests {
        r.phase = phases.phase_of(Duration::from_secs_f64(r.send_s));
    }
    let timeout = Duration::from_secs_f64(cfg.probe_timeout_s);
    rec.probe_loaded = Some(netlab_probe::phase_stats(
        &probe.requests,
        Phase::Loaded,
        timeout,
    ));
    rec.probe = probe.requests;
    if let Some(h) = iso_h {
        let log = h
            .join()
            .map_err(|_| CrosscheckError::step("isochronous probe", "thread panicked"))?
            .map_err(|e| CrosscheckError::step("isochronous probe", e))?;
        rec.iso = iso_requests(&log.requests, &phases);
        rec.iso_loaded = Some(netlab_probe::phase_stats(&rec.iso, Phase::Loaded, timeout));
    }

    if let Some(client) = irtt_client {
        // irtt sends until 1 s before t0 + end + slack, then waits
        // timeout + 0.5 s for late replies: give it that plus 10 s.
        let until = at(tl.end()
            + CONNECT_SLACK
            + Duration::from_secs_f64(cfg.probe_timeout_s)
            + Duration::from_secs(10));
        let out = client.wait(until.saturating_duration_since(Instant::now()))?;
        let parsed = std::fs::read_to_string(&irtt_file)
            .map_err(|e| {
                CrosscheckError::tool(
                    "irtt client",
                    format!(
                        "reading {}: {e}; stderr: {}",
                        irtt_file.display(),
                        first_line(&out.stderr)
                    ),
                )
            })
            .and_then(|j| irtt_requests(&j, rec.t0_wall_ns, timeout, &phases));
        let _ = std::fs::remove_file(&irtt_file);
        match parsed {
            Ok(req) => {
                rec.irtt_loaded = Some(netlab_probe::phase_stats(&req, Phase::Loaded, timeout));
                rec.irtt = req;
            }
            Err(e) => rec.error = Some(e.to_string()),
        }
    }
    if let Some(server) = irtt_server {
        let _ = server.stop();
    }
    match qsampler.stop() {
        Ok(series) => {
            rec.queue = series
                .samples
                .iter()
                .filter_map(|rb| {
                    QueueSample::from_records(rb.taken_at_s.unwrap_or(0.0), &rb.records)
                })
                .collect();
        }
        Err(e) => rec.error = Some(format!("qdisc sampler: {e}")),
    }
    drop(topo);
    Ok(())
}

/// The isochronous probe's slots as requests, with the phases of this
/// scenario: slots never sent (missed, send error) are left out, a reply
/// is kept with its RTT, anything else (timeout, late, abandoned) counts as
/// a timeout, as irtt's round trips do.
pub fn iso_requests(
    slots: &[netlab_probe::IsoRequest],
    phases: &PhaseBounds,
) -> Vec<netlab_probe::ProbeRequest> {
    use netlab_probe::{IsoOutcome, RequestOutcome};
    slots
        .iter()
        .filter_map(|r| {
            let send_s = r.send_s?;
            let (outcome, rtt_ms, reply_s) = match r.outcome {
                IsoOutcome::Reply => (RequestOutcome::Reply, r.rtt_ms, r.reply_s),
                IsoOutcome::Timeout | IsoOutcome::Abandoned => {
                    (RequestOutcome::Timeout, None, None)
                }
                IsoOutcome::Pending | IsoOutcome::Missed | IsoOutcome::SendError { .. } => {
                    return None
                }
            };
            Some(netlab_probe::ProbeRequest {
                seq: r.seq,
                due_s: r.due_s,
                send_s,
                reply_s,
                rtt_ms,
                phase: phases.phase_of(Duration::from_secs_f64(send_s.max(0.0))),
                outcome,
            })
        })
        .collect()
}

/// A scenario's phases, from the load's actual connect `c` (s since t0):
/// window `[c + warmup, c + load)`, as method §3's 6–18 s for a connect at
/// 3 s; the probe's loaded phase ends 1 s before the window does (method §5:
/// no new request in the last second), the readback check is 2/3 in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Start of the measured window.
    pub start: Duration,
    /// End of the window = the scenario's end.
    pub end: Duration,
    /// When the tc/ss check is taken.
    pub readback: Duration,
}

impl Window {
    /// From the timeline and the actual connect.
    pub fn from_connect(tl: &crate::Timeline, c: Duration) -> Window {
        let start = c + Duration::from_secs_f64(tl.warmup_s);
        let end = c + Duration::from_secs_f64(tl.load_s);
        Window {
            start,
            end,
            readback: start + (end - start) * 2 / 3,
        }
    }

    /// Probe phases: baseline before the load's start, loaded in the window
    /// up to 1 s before its end.
    pub fn phases(&self, tl: &crate::Timeline) -> PhaseBounds {
        PhaseBounds {
            baseline_start: Duration::ZERO,
            baseline_end: tl.load_start(),
            loaded_start: self.start,
            loaded_end: self
                .end
                .saturating_sub(Duration::from_secs(1))
                .max(self.start),
        }
    }
}

/// Polls sock_diag (every 10 ms, until `until`) for `flow`; returns when
/// it was first seen.
fn wait_connected(
    diag_a: &dyn Fn() -> Result<DiagSocket, CrosscheckError>,
    flow: &FlowId,
    until: Instant,
) -> Option<Instant> {
    let diag = diag_a().ok()?;
    while Instant::now() < until {
        if let Ok(Some(r)) = diag.query(flow) {
            // 1 = TCP_ESTABLISHED
            if r.state == 1 {
                return Some(Instant::now());
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// netlab readback, `tc -s -d -j`, netlab readback; tcp_info, `ss -tinm`,
/// tcp_info — as close together as two process spawns allow.
fn readback_check(
    qsock: &QdiscSocket,
    configured: &netlab_qdisc::Configured,
    t0: Instant,
    r_ns: &str,
    a_ns: &str,
    flow: Option<FlowId>,
    diag_a: &dyn Fn() -> Result<DiagSocket, CrosscheckError>,
) -> ReadbackCheck {
    let now_s = || Instant::now().saturating_duration_since(t0).as_secs_f64();
    let mut chk = ReadbackCheck {
        t_s: now_s(),
        qdisc_before: None,
        tc: None,
        qdisc_after: None,
        tcp_before: None,
        ss: None,
        ss_text: String::new(),
        tcp_after: None,
        errors: Vec::new(),
    };
    let read = |errors: &mut Vec<String>| {
        let t = now_s();
        match qsock.readback(configured.ifindex, Some(t), &configured.psched) {
            Ok(rb) => QueueSample::from_records(t, &rb.records),
            Err(e) => {
                errors.push(format!("qdisc readback: {e}"));
                None
            }
        }
    };
    chk.qdisc_before = read(&mut chk.errors);
    match run_in(
        "tc in R",
        r_ns,
        &argv(&["tc", "-s", "-d", "-j", "qdisc", "show", "dev", R_B_IF]),
        Duration::from_secs(5),
    )
    .and_then(|s| parse_tc_json(&s))
    {
        Ok(q) => chk.tc = q.into_iter().find(|q| q.handle == "10:"),
        Err(e) => chk.errors.push(e.to_string()),
    }
    chk.qdisc_after = read(&mut chk.errors);

    let Some(flow) = flow else {
        chk.errors
            .push("the load's flow was never seen; no ss check".into());
        return chk;
    };
    let diag = match diag_a() {
        Ok(d) => d,
        Err(e) => {
            chk.errors.push(e.to_string());
            return chk;
        }
    };
    let sample = |errors: &mut Vec<String>| {
        let start = now_s();
        match diag.query(&flow) {
            Ok(Some(record)) => Some(netlab_tcpload::TcpSample {
                start_s: start,
                end_s: now_s(),
                record,
            }),
            Ok(None) => {
                errors.push("tcp_info: flow not found".into());
                None
            }
            Err(e) => {
                errors.push(format!("tcp_info: {e}"));
                None
            }
        }
    };
    chk.tcp_before = sample(&mut chk.errors);
    let filter = format!(
        "( sport = :{} and dport = :{} )",
        flow.local.port(),
        flow.remote.port()
    );
    match run_in(
        "ss in A",
        a_ns,
        &argv(&["ss", "-tinmH", "state", "established", &filter]),
        Duration::from_secs(5),
    ) {
        Ok(text) => {
            chk.ss = Some(SsLine::parse(&text));
            chk.ss_text = text;
        }
        Err(e) => chk.errors.push(e.to_string()),
    }
    chk.tcp_after = sample(&mut chk.errors);
    chk
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_probe::{IsoOutcome, IsoRequest, RequestOutcome};

    fn slot(seq: u32, send_s: Option<f64>, outcome: IsoOutcome, rtt_ms: Option<f64>) -> IsoRequest {
        IsoRequest {
            seq,
            due_s: f64::from(seq) * 0.2,
            send_s,
            phase: Phase::Other,
            outcome,
            reply_s: rtt_ms.zip(send_s).map(|(r, s)| s + r / 1e3),
            rtt_ms,
            late_rtt_ms: None,
            up_ms: None,
            down_ms: None,
            turnaround_ms: None,
        }
    }

    #[test]
    fn iso_slots_become_requests_as_irtt_round_trips_do() {
        let phases = PhaseBounds {
            baseline_start: Duration::ZERO,
            baseline_end: Duration::from_secs(3),
            loaded_start: Duration::from_secs(6),
            loaded_end: Duration::from_secs(17),
        };
        let slots = vec![
            slot(0, Some(1.0), IsoOutcome::Reply, Some(0.3)),
            slot(1, Some(7.0), IsoOutcome::Timeout, None),
            slot(2, None, IsoOutcome::Missed, None),
            slot(
                3,
                Some(8.0),
                IsoOutcome::SendError { error: "x".into() },
                None,
            ),
            slot(4, Some(9.0), IsoOutcome::Abandoned, None),
            slot(5, Some(10.0), IsoOutcome::Reply, Some(540.0)),
        ];
        let r = iso_requests(&slots, &phases);
        // Missed and failed sends never left: not requests.
        assert_eq!(
            r.iter().map(|q| q.seq).collect::<Vec<_>>(),
            vec![0, 1, 4, 5]
        );
        assert_eq!(r[0].phase, Phase::Baseline);
        assert_eq!(
            (r[1].phase, &r[1].outcome),
            (Phase::Loaded, &RequestOutcome::Timeout)
        );
        assert_eq!(r[2].outcome, RequestOutcome::Timeout);
        assert_eq!(
            (r[3].rtt_ms, &r[3].outcome),
            (Some(540.0), &RequestOutcome::Reply)
        );
    }
}
