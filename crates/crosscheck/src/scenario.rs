//! One cross-check scenario, run by netlab-run's runner: a
//! fresh A–R–B with TBF + arm on R's egress toward B, B's loop setting t0
//! with netlab's probe echoes, netlab's probe (and its isochronous probe)
//! from t0, netlab's flow when the load has one, the arm sampled every
//! 200 ms and read back at the end before anything closes, every worker
//! joined and the namespaces deleted with receipts ([`crate::setup`] says
//! what the load makes of netlab's flow). The cross-check's own parts
//! (iperf3, irtt, the ordinary pair, the outside client's tcp_info in A
//! and B, the window from the actual connect, the mid-window `tc`/`ss`
//! check) are hooks beside them ([`crate::beside`]). This module puts
//! both into one [`ScenarioRecord`].

use std::path::Path;
use std::time::Duration;

use netlab_probe::{Phase, PhaseBounds};
use netlab_receipts::Registry;
use netlab_results::ScenarioResult;
use netlab_run::progress::Progress;
use netlab_run::scenario::RunContext;
use netlab_topology::RunId;

use crate::beside::{first_line, Beside, BesideOut};
use crate::config::{CrosscheckConfig, End, Load};
use crate::external::{irtt_requests, Iperf3Report};
use crate::record::{tcpinfo_goodput, Metrics, QueueSample, ReceiverDigest, ScenarioRecord};
use crate::setup::Window;

pub use crate::beside::{IPERF_CPORT, IPERF_PORT, IRTT_PORT, ORDINARY_CPORT};
pub use crate::setup::{CONNECT_SLACK, ORDINARY_PORT};

/// Where a scenario runs.
pub struct ScenarioCtx<'a> {
    /// The whole configuration.
    pub cfg: &'a CrosscheckConfig,
    /// Run id (namespace names carry it).
    pub run_id: &'a RunId,
    /// The run's owned resources (each scenario's namespaces).
    pub registry: &'a Registry,
    /// Folder for tool output files (irtt's JSON).
    pub scratch: &'a Path,
    /// Kernel release, for the record.
    pub kernel: &'a str,
    /// Scenarios in the run.
    pub total: usize,
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
        load: Some(load.clone()),
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
    let setup = match crate::setup::scenario_setup(
        cfg,
        ctx.run_id,
        index,
        round,
        &cfg.arms[arm_idx],
        &bottleneck,
        &load,
    ) {
        Ok(s) => s,
        Err(e) => {
            rec.error = Some(e.to_string());
            return rec;
        }
    };
    let progress = Progress::new(true);
    let run = RunContext {
        registry: ctx.registry,
        progress: &progress,
        total: ctx.total,
        out: ctx.scratch,
    };
    let mut beside = Beside::new(
        cfg,
        load.clone(),
        ctx.scratch.join(format!("irtt-{index}.json")),
    );
    let (res, _) = netlab_run::scenario::run(&run, &setup, &mut beside);
    assemble(cfg, &load, &res, beside.out, &mut rec);
    rec.metrics = Metrics::derive(
        &rec,
        rec.window_s,
        bottleneck.tbf.rate.bytes_per_sec() as f64,
    );
    rec
}

/// Keeps the first error said (the cause; what fails after it follows
/// from it).
fn fail(rec: &mut ScenarioRecord, e: impl Into<String>) {
    if rec.error.is_none() {
        rec.error = Some(e.into());
    }
}

/// The record of one scenario from netlab's result and the cross-check's
/// parts.
fn assemble(
    cfg: &CrosscheckConfig,
    load: &Load,
    res: &ScenarioResult,
    mut out: BesideOut,
    rec: &mut ScenarioRecord,
) {
    // The cross-check's own failure names its cause (no connect, a tool);
    // netlab's follows.
    for e in &out.errors {
        fail(rec, e.clone());
    }
    if let Some(e) = &res.error {
        fail(rec, e.clone());
    }
    rec.offloads_off = res
        .topology
        .as_ref()
        .and_then(|t| t.readback.veth_offloads_all_off());
    rec.t0_wall_ns = out.t0_wall_ns;
    rec.connect_s = out.connect.map(|c| c.as_secs_f64());
    let Some(win) = out.window else {
        // No window: nothing measured is put in a phase.
        rec.sender = out.sender.map(|(s, _)| s);
        return;
    };
    rec.window_s = (win.start.as_secs_f64(), win.end.as_secs_f64());
    rec.readback = out.readback.take();
    netlab_received(load, res, &out, &win, rec);
    tools_of(load, &mut out, rec);
    probes_of(cfg, res, out.irtt.take(), &win, rec);
    // The arm: every 200 ms, and at the end of the window.
    if let Some(q) = res.qdiscs.first() {
        rec.queue = q
            .samples
            .iter()
            .filter_map(|s| QueueSample::from_sampled(s.t_s.unwrap_or(0.0), &s.records))
            .collect();
        rec.queue_final = q
            .final_taken_s
            .and_then(|t| QueueSample::from_records(t, &q.at_window_end));
    }
}

/// The goodput and receiver summary of a load netlab receives: netlab's
/// flow receiver (its clock started `offset` after t0) or B's first
/// receiver (t0's own clock). Other loads' come from their tools.
fn netlab_received(
    load: &Load,
    res: &ScenarioResult,
    out: &BesideOut,
    win: &Window,
    rec: &mut ScenarioRecord,
) {
    let netlab_rx = match load {
        Load::Netlab(_) => true,
        Load::Ordinary(o) => o.receiver == End::Netlab,
        Load::Iperf3(_) => false,
    };
    if !netlab_rx {
        return;
    }
    let flow = res.flows.first();
    let received = match (&out.clock_receiver, flow.and_then(|f| f.tcp.as_ref())) {
        (Some(log), _) => Some((log, 0.0)),
        (None, Some(tcp)) => Some((
            &tcp.receiver_log,
            flow.map_or(0.0, |f| f.receiver_t0_offset_s),
        )),
        (None, None) => None,
    };
    let Some((log, offset)) = received else {
        fail(rec, "netlab receiver: no log");
        return;
    };
    let shift = Duration::from_secs_f64(offset);
    rec.goodput_mbps = netlab_tcpload::goodput(
        &log.recvs,
        netlab_tcpload::GoodputWindow {
            start: win.start.saturating_sub(shift),
            end: win.end.saturating_sub(shift),
        },
    )
    .mbit_per_s;
    let mut summary = ReceiverDigest::from_log(log);
    summary.accepted_s = summary.accepted_s.map(|s| s + offset);
    summary.first_recv_s = summary.first_recv_s.map(|s| s + offset);
    rec.receiver = Some(summary);
}

/// The sender's log and both ends' tcp_info, iperf3's reports (its
/// server's goodput over the window), the ordinary receiver's exit, and
/// B's tcp_info goodput (the ordinary receiver's goodput: it keeps no log).
fn tools_of(load: &Load, out: &mut BesideOut, rec: &mut ScenarioRecord) {
    match out.sender.take() {
        Some((sender, tcp_a)) => {
            rec.sender = Some(sender);
            match tcp_a {
                Ok(log) => rec.tcp_a = log.samples,
                Err(e) => fail(rec, format!("tcp_info sampler in A: {e}")),
            }
        }
        None => rec.tcp_a = out.tcp_a.take().map(|l| l.samples).unwrap_or_default(),
    }
    rec.tcp_b = out.tcp_b.take().map(|l| l.samples).unwrap_or_default();
    if let (Load::Iperf3(_), Some(client)) = (load, &out.client) {
        match Iperf3Report::parse(&client.stdout) {
            Ok(r) => rec.iperf_client = Some(r),
            Err(e) => fail(rec, format!("{e}; stderr: {}", first_line(&client.stderr))),
        }
    }
    if let Some(o) = out
        .ordinary_receiver
        .as_ref()
        .filter(|o| !o.ended_by_us && o.code != Some(0))
    {
        fail(
            rec,
            format!(
                "ordinary receiver exited {:?} before the end: {}",
                o.code,
                first_line(&o.stderr)
            ),
        );
    }
    if let Some(server) = &out.iperf_server {
        match Iperf3Report::parse(&server.stdout) {
            Ok(r) => {
                // The server's clock starts about when the data connection
                // does: shift the window onto it.
                let origin = out.connect.unwrap_or_default().as_secs_f64();
                rec.goodput_mbps = r.window_mbps(rec.window_s.0 - origin, rec.window_s.1 - origin);
                rec.iperf_server = Some(r);
            }
            Err(e) => fail(
                rec,
                format!("iperf3 server: {e}; stderr: {}", first_line(&server.stderr)),
            ),
        }
    }
    rec.goodput_b_tcpinfo_mbps = tcpinfo_goodput(&rec.tcp_b, rec.window_s.0, rec.window_s.1);
    if let Load::Ordinary(o) = load {
        if o.receiver == End::Ordinary {
            rec.goodput_mbps = rec.goodput_b_tcpinfo_mbps;
        }
    }
}

/// netlab's two probes and irtt, each request's phase from the actual
/// connect.
fn probes_of(
    cfg: &CrosscheckConfig,
    res: &ScenarioResult,
    irtt: Option<(crate::tools::ToolOutput, Result<String, String>)>,
    win: &Window,
    rec: &mut ScenarioRecord,
) {
    let timeout = Duration::from_secs_f64(cfg.probe_timeout_s);
    let phases = win.phases(&cfg.timeline);
    if let Some(p) = res.probes.first() {
        let mut requests = p.requests.clone();
        for r in &mut requests {
            r.phase = phases.phase_of(Duration::from_secs_f64(r.send_s));
        }
        rec.probe_loaded = Some(netlab_probe::phase_stats(&requests, Phase::Loaded, timeout));
        rec.probe = requests;
    }
    if let Some(iso) = &res.iso_probe {
        rec.iso = iso_requests(&iso.log.requests, &phases);
        rec.iso_loaded = Some(netlab_probe::phase_stats(&rec.iso, Phase::Loaded, timeout));
    }
    if let Some((client, text)) = irtt {
        let parsed = text
            .map_err(|e| {
                crate::CrosscheckError::tool(
                    "irtt client",
                    format!("{e}; stderr: {}", first_line(&client.stderr)),
                )
            })
            .and_then(|j| irtt_requests(&j, rec.t0_wall_ns, timeout, &phases));
        match parsed {
            Ok(req) => {
                rec.irtt_loaded = Some(netlab_probe::phase_stats(&req, Phase::Loaded, timeout));
                rec.irtt = req;
            }
            Err(e) => fail(rec, e.to_string()),
        }
    }
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
                late_rtt_ms: None,
                phase: phases.phase_of(Duration::from_secs_f64(send_s.max(0.0))),
                outcome,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_probe::{EchoStats, IsoOutcome, IsoRequest, ProbeRequest, RequestOutcome};
    use netlab_results::{FlowResult, QdiscResult, QdiscSample, SampledQdisc, TcpResult};
    use netlab_tcpload::sink::{ReceiverLog, TcpEnd};

    #[test]
    fn offloads_read_off_only_when_all_four_veth_ends_say_so() {
        use netlab_topology::{LinkReadback, NamespaceReadback, TopologyReadback};
        let link = |name: &str, kind: &str, gso: Option<bool>| LinkReadback {
            ifindex: 2,
            name: name.into(),
            mac: None,
            mtu: Some(1500),
            up: true,
            kind: Some(kind.into()),
            offloads: gso.map(|active| {
                vec![netlab_topology::FeatureState {
                    name: "tx-generic-segmentation".into(),
                    active,
                    fixed: false,
                }]
            }),
        };
        let ns = |links: Vec<LinkReadback>| NamespaceReadback {
            netns: "nl-x".into(),
            role: None,
            links,
            addresses: vec![],
            routes: vec![],
            sysctls: Default::default(),
        };
        let rb = |gso: [Option<bool>; 4]| TopologyReadback {
            namespaces: vec![
                ns(vec![
                    link("lo", "loopback", None),
                    link("a0", "veth", gso[0]),
                ]),
                ns(vec![link("r0", "veth", gso[1]), link("r1", "veth", gso[2])]),
                ns(vec![link("b0", "veth", gso[3])]),
            ],
        };
        let off = Some(false);
        assert_eq!(rb([off; 4]).veth_offloads_all_off(), Some(true));
        assert_eq!(
            rb([off, off, Some(true), off]).veth_offloads_all_off(),
            Some(false)
        );
        assert_eq!(rb([off, None, off, off]).veth_offloads_all_off(), None);
        let mut three = rb([off; 4]);
        three.namespaces.pop();
        assert_eq!(three.veth_offloads_all_off(), None);
    }

    fn receiver_log(recvs: &[(f64, u32)]) -> ReceiverLog<EchoStats> {
        let mut log: ReceiverLog<EchoStats> = serde_json::from_value(serde_json::json!({
            "listen": "10.0.0.2:46020", "udp_echo": null, "duration_s": 13.0,
            "accepted_s": 1.0, "peer": null, "bytes_total": 0,
            "validation": {"bytes_checked": 0, "failures": 0, "first_bad_offset": null},
            "recvs": {"t_us": [], "len": []}, "tcp_end": "closed_at_end", "tcp_end_s": null,
            "extra_connections": 0, "echo": null, "echo_error": null,
            "closed_s": 7.0, "stopped_early": false, "wakeups": 1
        }))
        .unwrap();
        for &(t, len) in recvs {
            log.recvs.push(Duration::from_secs_f64(t), len as usize);
            log.bytes_total += u64::from(len);
        }
        assert_eq!(log.tcp_end, TcpEnd::ClosedAtEnd);
        log
    }

    fn request(seq: u32, send_s: f64) -> ProbeRequest {
        ProbeRequest {
            seq,
            due_s: send_s,
            send_s,
            reply_s: Some(send_s + 0.5),
            rtt_ms: Some(500.0),
            late_rtt_ms: None,
            phase: Phase::Other,
            outcome: RequestOutcome::Reply,
        }
    }

    fn arm_sample(t: f64, drops: u32) -> Vec<SampledQdisc> {
        let stats: netlab_qdisc_model::QdiscStats = serde_json::from_value(serde_json::json!({
            "bytes": 1000, "packets": 10, "drops": drops, "overlimits": 0,
            "requeues": 0, "backlog_bytes": 3000, "backlog_packets": 2, "qlen": 2
        }))
        .unwrap_or_else(|e| panic!("{e} at {t}"));
        vec![SampledQdisc {
            kind: "pfifo".into(),
            handle: netlab_qdisc_model::ARM_HANDLE,
            parent: netlab_qdisc_model::Handle::new(1, 1),
            stats: Some(stats),
            xstats: None,
        }]
    }

    /// netlab's load on the SHORT timeline, connected at 1.25 s: the
    /// window is [3.25, 7.25) s from the connect, the receiver's goodput
    /// is taken over it in the receiver's own clock (started 50 ms after
    /// t0), its accept time is put back on t0's clock, the probe's phases
    /// come from the connect, and the arm's samples are the runner's.
    #[test]
    fn the_record_takes_the_window_from_the_connect() {
        let mut cfg = CrosscheckConfig::new(1);
        cfg.timeline = crate::CrosscheckTimeline::SHORT;
        let load = Load::Netlab(crate::NetlabLoad::default());
        // 1250 B every 10 ms from 1.2 s to 7.19 s in the receiver's clock.
        let recvs: Vec<(f64, u32)> = (120..720).map(|i| (f64::from(i) / 100.0, 1250)).collect();
        let rx = receiver_log(&recvs);
        let tcp: TcpResult = TcpResult {
            cc_requested: "reno".into(),
            cc_readback: "reno".into(),
            start_s: 1.25,
            connect_s: 1.25,
            goodput_mbps: None,
            window_s: [3.0, 11.0],
            receiver: netlab_results::ReceiverSummary {
                bytes_in_window: 0,
                bytes_total: rx.bytes_total,
                validation_failures: 0,
                first_bad_offset: None,
                closed_s: 7.0,
            },
            sender: netlab_results::SenderSummary {
                accepted_bytes: 0,
                termination: netlab_tcpload::Termination::BrokenPipe,
                end_s: 7.3,
            },
            series: Vec::new(),
            series_bin_s: 0.2,
            receiver_log: rx,
        };
        let res = ScenarioResult {
            flows: vec![FlowResult {
                receiver_t0_offset_s: 0.05,
                tcp: Some(tcp),
                ..FlowResult::default()
            }],
            probes: vec![netlab_results::ProbeResult {
                kind: "stop-and-wait".into(),
                phases: netlab_results::ProbePhases {
                    baseline: None,
                    loaded: None,
                    other: Vec::new(),
                },
                requests: vec![request(0, 0.5), request(1, 4.0), request(2, 6.5)],
                stale_replies: 0,
                malformed_replies: 0,
                recv_errors: 0,
                config: netlab_probe::ProbeConfig::with_end(Duration::from_secs(11)),
                echo_arrivals: None,
                fates: None,
            }],
            qdiscs: vec![QdiscResult {
                samples: vec![
                    QdiscSample {
                        t_s: Some(0.2),
                        records: arm_sample(0.2, 0),
                    },
                    QdiscSample {
                        t_s: Some(0.4),
                        records: vec![],
                    },
                ],
                final_taken_s: None,
                ..QdiscResult::default()
            }],
            ..ScenarioResult::default()
        };
        let out = BesideOut {
            connect: Some(Duration::from_millis(1250)),
            window: Some(Window::from_connect(
                &cfg.timeline,
                Duration::from_millis(1250),
            )),
            ..BesideOut::default()
        };
        let mut rec = ScenarioRecord::default();
        assemble(&cfg, &load, &res, out, &mut rec);
        assert_eq!(rec.error, None);
        assert_eq!(rec.window_s, (3.25, 7.25));
        assert_eq!(rec.connect_s, Some(1.25));
        // [3.2, 7.2) in the receiver's clock: 400 blocks of 1250 B in 4 s.
        let g = rec.goodput_mbps.unwrap();
        assert!((g - 1.0).abs() < 0.01, "{g}");
        let r = rec.receiver.unwrap();
        assert!((r.accepted_s.unwrap() - 1.05).abs() < 1e-9);
        assert!((r.first_recv_s.unwrap() - 1.25).abs() < 1e-9);
        let phases: Vec<Phase> = rec.probe.iter().map(|r| r.phase).collect();
        // 6.5 s is in the window but its last second: not loaded.
        assert_eq!(phases, [Phase::Baseline, Phase::Loaded, Phase::Other]);
        assert_eq!(rec.probe_loaded.as_ref().map(|p| p.sent), Some(1));
        assert_eq!(rec.queue.len(), 1);
        assert_eq!((rec.queue[0].t_s, rec.queue[0].backlog_bytes), (0.2, 3000));
        assert_eq!(rec.queue_final, None);

        // No connect: the watcher's error, nothing put in a phase.
        let mut rec = ScenarioRecord::default();
        let out = BesideOut {
            errors: vec!["the load: no data connection".into()],
            ..BesideOut::default()
        };
        assemble(&cfg, &load, &res, out, &mut rec);
        assert_eq!(rec.error.as_deref(), Some("the load: no data connection"));
        assert!(rec.probe.is_empty() && rec.goodput_mbps.is_none());
    }

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
