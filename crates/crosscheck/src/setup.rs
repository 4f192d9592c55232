//! A cross-check scenario as netlab-run's runner executes it (pure): the
//! experiment of one arm and the cross-check's path, probes and timeline
//! (`ScenarioSetup::new`, as the orchestrator's scenarios are made), then
//! what the load decides of netlab's own flow:
//!
//! - netlab's load: one upload flow with the load's block size, start
//!   delay, prime bytes and receiver buffer;
//! - iperf3: no netlab flow (B's first receiver still sets t0 and serves
//!   the probes' echoes);
//! - the ordinary pair: no netlab flow; with netlab's receiver, B's first
//!   receiver listens on [`DEFAULT_TCP_PORT`] and takes the ordinary sender's
//!   connection (its bind is t0, as before); with netlab's sender, one
//!   flow toward the ordinary receiver's port and no netlab receiver of
//!   its own; netlab at both ends, one flow as netlab's load with
//!   tcpload's defaults.
//!
//! The runner's timeline ends [`CONNECT_SLACK`] after the cross-check's,
//! as a bound: the scenario ends where the window from the load's actual
//! connect ends ([`Window`]), asked for by the hooks.

use std::net::SocketAddr;
use std::time::Duration;

use netlab_experiment::{ArmSpec, Direction, Experiment, FlowSpec, PathSpec, ProbeSpec, Timeline};
use netlab_qdisc_model::BottleneckSpec;
use netlab_run::ScenarioSetup;
use netlab_tcpload::{SamplerConfig, SenderConfig, SinkConfig};
use netlab_topology::addresses::B_ADDR;
use netlab_topology::{RunId, TopologySpec};

use crate::config::{CrosscheckConfig, End, Load, NetlabLoad};
use crate::CrosscheckError;
use netlab_path_settings::{DEFAULT_ISO_PROBE_PORT, DEFAULT_PROBE_PORT, DEFAULT_TCP_PORT};

/// The ordinary receiver's port in B.
pub const ORDINARY_PORT: u16 = 5301;
/// Spacing of the arm's samples.
pub const QUEUE_SAMPLE: Duration = Duration::from_millis(200);
/// Longest wait for the load's data connection after its start; the
/// scenario's phases are taken from the actual connect (see
/// [`Window`]).
pub const CONNECT_SLACK: Duration = Duration::from_secs(4);

/// The runner's timeline: the cross-check's baseline and warm-up, its end
/// [`CONNECT_SLACK`] later than the cross-check's (a bound, see the module).
pub fn run_timeline(tl: &crate::CrosscheckTimeline) -> Timeline {
    let end = tl.end() + CONNECT_SLACK;
    Timeline {
        baseline: tl.load_start(),
        warmup: tl.window_start() - tl.load_start(),
        measure: end - tl.window_start(),
    }
}

/// The experiment of one arm that the scenario's setup is made from.
fn experiment(
    cfg: &CrosscheckConfig,
    arm_words: &str,
    bottleneck: &BottleneckSpec,
    load: &Load,
) -> Experiment {
    let interval = Duration::from_secs_f64(cfg.probe_interval_s);
    let timeout = Duration::from_secs_f64(cfg.probe_timeout_s);
    let mut probes = vec![ProbeSpec {
        port: DEFAULT_PROBE_PORT,
        interval,
        timeout,
        max_requests: Some(10_000),
        ..ProbeSpec::stop_and_wait()
    }];
    if cfg.iso_probe {
        probes.push(ProbeSpec {
            port: DEFAULT_ISO_PROBE_PORT,
            interval,
            timeout,
            ..ProbeSpec::isochronous()
        });
    }
    Experiment {
        name: "crosscheck".into(),
        rounds: 1,
        arms: vec![ArmSpec {
            words: arm_words.to_owned(),
            arm: bottleneck.arm.clone(),
        }],
        timeline: run_timeline(&cfg.timeline),
        path: PathSpec {
            receive_buffer: load.receive_buffer().unwrap_or(cfg.receive_buffer),
            offloads: cfg.offloads,
            up: Some(bottleneck.tbf),
            down: None,
            ..PathSpec::default()
        },
        flows: vec![FlowSpec {
            direction: Direction::Up,
            cc: cfg.cc.clone(),
            port: DEFAULT_TCP_PORT,
            ..FlowSpec::default()
        }],
        probes,
        sample_interval: QUEUE_SAMPLE,
        ..Experiment::default()
    }
}

/// Scenario `index`'s setup: the arm `arm_words` (parsed: `bottleneck`)
/// and `load`, in namespaces `nl-<run_id>-x<index>-{a,r,b}`.
pub fn scenario_setup(
    cfg: &CrosscheckConfig,
    run_id: &RunId,
    index: u32,
    round: u32,
    arm_words: &str,
    bottleneck: &BottleneckSpec,
    load: &Load,
) -> Result<ScenarioSetup, CrosscheckError> {
    let exp = experiment(cfg, arm_words, bottleneck, load);
    let planned = exp
        .plan()
        .scenarios
        .into_iter()
        .next()
        .ok_or_else(|| CrosscheckError::step("planning the scenario", "an empty plan"))?;
    let mut setup = ScenarioSetup::new(&planned, run_id)
        .map_err(|e| CrosscheckError::step("the scenario's setup", e))?;
    let tl = cfg.timeline;
    setup.index = index;
    setup.round = round;
    // The cross-check's own namespace names and the path's defaults (ECN
    // accepted at both ends), with the load's receive buffer.
    let mut spec = TopologySpec::new(run_id.clone(), format!("x{index}"));
    spec.receive_buffer = setup.topology.receive_buffer;
    spec.offloads = setup.topology.offloads;
    setup.topology = spec;
    // Nothing is captured; the arm is sampled every 200 ms.
    setup.capture_flow = None;
    setup.pcap = None;
    setup.qdisc_sample_interval = QUEUE_SAMPLE;
    // The isochronous probe as the cross-check has always run it: its
    // interval and timeout, to the bound.
    if let Some(iso) = setup.iso_probe.as_mut() {
        let mut c = netlab_probe::IsoConfig::with_interval(
            Duration::from_secs_f64(cfg.probe_interval_s),
            tl.end() + CONNECT_SLACK,
        );
        c.timeout = Duration::from_secs_f64(cfg.probe_timeout_s);
        c.validate()
            .map_err(|e| CrosscheckError::step("isochronous probe config", e))?;
        iso.config = c;
    }
    let b_tcp = SocketAddr::from((B_ADDR, DEFAULT_TCP_PORT));
    let sending = match load {
        Load::Netlab(n) => Some((n.clone(), b_tcp, Some(n.recv_buf))),
        Load::Iperf3(_) => None,
        Load::Ordinary(o) => match (o.sender, o.receiver) {
            (End::Netlab, End::Netlab) => {
                let n = NetlabLoad::default();
                let recv_buf = n.recv_buf;
                Some((n, b_tcp, Some(recv_buf)))
            }
            (End::Netlab, End::Ordinary) => Some((
                NetlabLoad::default(),
                SocketAddr::from((B_ADDR, ORDINARY_PORT)),
                None,
            )),
            (End::Ordinary, End::Netlab) => {
                // B's first receiver takes the ordinary sender's flow.
                setup.clock_sink.receiver.listen = b_tcp;
                None
            }
            (End::Ordinary, End::Ordinary) => None,
        },
    };
    match sending {
        None => setup.flows.clear(),
        Some((n, to, recv_buf)) => {
            let flow = &mut setup.flows[0];
            let receiver_bound = tl.end() + CONNECT_SLACK + Duration::from_secs(2);
            flow.spec.block_size = u32::try_from(n.block_size).unwrap_or(u32::MAX);
            flow.receiver = recv_buf.map(|recv_buf| SinkConfig {
                recv_buf,
                duration: receiver_bound,
                ..SinkConfig::new(to)
            });
            flow.sender = SenderConfig {
                cc: cfg.cc.clone(),
                block_size: n.block_size,
                start_delay: Duration::from_millis(n.start_delay_ms),
                prime_bytes: n.prime_bytes,
                lifetime: tl.end() - tl.load_start() + Duration::from_secs(2),
                ..SenderConfig::new(to)
            };
            flow.tcp_info = SamplerConfig {
                interval: Duration::from_millis(cfg.tcp_sample_ms),
                max_duration: receiver_bound,
            };
            flow.start = tl.load_start();
        }
    }
    Ok(setup)
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
    pub fn from_connect(tl: &crate::CrosscheckTimeline, c: Duration) -> Window {
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
    pub fn phases(&self, tl: &crate::CrosscheckTimeline) -> netlab_probe::PhaseBounds {
        netlab_probe::PhaseBounds {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Iperf3Load, OrdinaryLoad};

    fn setup(load: Load) -> ScenarioSetup {
        let mut cfg = CrosscheckConfig::new(1);
        cfg.timeline = crate::CrosscheckTimeline::SHORT;
        cfg.iso_probe = true;
        let b = cfg.bottlenecks().unwrap().swap_remove(1);
        scenario_setup(&cfg, &RunId::random(), 7, 2, &cfg.arms[1], &b, &load).unwrap()
    }

    #[test]
    fn the_path_probes_and_bound_are_the_cross_check_s() {
        let s = setup(Load::Netlab(NetlabLoad::default()));
        let secs = Duration::from_secs;
        assert_eq!((s.index, s.round, s.arm_kind), (7, 2, "fq_codel"));
        assert!(s.namespaces().iter().all(|n| n.contains("-x7-")));
        assert_eq!((s.topology.tcp_ecn_a, s.topology.tcp_ecn_b), (1, 1));
        // TBF at the root of r1, the arm at 10: below it; nothing else.
        assert_eq!(s.egresses.len(), 1);
        let reqs = s.egresses[0]
            .requests(3, &netlab_qdisc_model::Psched::MODERN)
            .unwrap();
        assert_eq!(
            reqs[0].tc_command(),
            "tc qdisc add dev r1 root handle 1: tbf rate 5mbit burst 16kb limit 64kb"
        );
        assert!(reqs[1]
            .tc_command()
            .starts_with("tc qdisc add dev r1 parent 1:1 handle 10: fq_codel"));
        // SHORT: load 1–7 s; the runner's bound 4 s later.
        assert_eq!(s.timeline.load_start(), secs(1));
        assert_eq!(s.timeline.window_start(), secs(3));
        assert_eq!(s.timeline.end(), secs(11));
        let p = s.probe.as_ref().unwrap();
        assert_eq!(p.target, SocketAddr::from((B_ADDR, DEFAULT_PROBE_PORT)));
        assert_eq!(p.config.spacing, Duration::from_millis(200));
        assert_eq!((p.config.max_requests, p.config.end), (10_000, secs(11)));
        let iso = s.iso_probe.as_ref().unwrap();
        assert_eq!(iso.target.port(), DEFAULT_ISO_PROBE_PORT);
        assert_eq!(iso.config.end, secs(11));
        assert_eq!(s.qdisc_sample_interval, QUEUE_SAMPLE);
        assert_eq!(s.capture_flow, None);
        // The kernel's offloads unless the cross-check asks for them off.
        assert_eq!(s.topology.offloads, netlab_topology::Offloads::Kernel);
    }

    #[test]
    fn offloads_off_reach_the_cross_check_s_own_topology() {
        let mut cfg = CrosscheckConfig::new(1);
        cfg.offloads = netlab_topology::Offloads::Off;
        let b = cfg.bottlenecks().unwrap().swap_remove(0);
        let load = Load::Netlab(NetlabLoad::default());
        let s = scenario_setup(&cfg, &RunId::random(), 1, 1, &cfg.arms[0], &b, &load).unwrap();
        assert!(s.namespaces().iter().all(|n| n.contains("-x1-")));
        assert_eq!(s.topology.offloads, netlab_topology::Offloads::Off);
        // A record from before the field existed reads as the kernel's.
        let mut v = serde_json::to_value(CrosscheckConfig::new(1)).unwrap();
        v.as_object_mut().unwrap().remove("offloads");
        let old: CrosscheckConfig = serde_json::from_value(v).unwrap();
        assert_eq!(old.offloads, netlab_topology::Offloads::Kernel);
    }

    #[test]
    fn the_load_decides_netlab_s_flow() {
        let primed = NetlabLoad {
            block_size: 16_384,
            recv_buf: 4096,
            start_delay_ms: 50,
            prime_bytes: 37,
            receive_buffer: Some(netlab_topology::ReceiveBuffer::StartAtMax),
        };
        let s = setup(Load::Netlab(primed));
        assert_eq!(s.flows.len(), 1);
        let f = &s.flows[0];
        let b_tcp = SocketAddr::from((B_ADDR, DEFAULT_TCP_PORT));
        assert_eq!(
            f.receiver.map(|r| (r.listen, r.recv_buf)),
            Some((b_tcp, 4096))
        );
        assert_eq!(f.sender.to, b_tcp);
        assert_eq!(
            (
                f.sender.block_size,
                f.sender.start_delay,
                f.sender.prime_bytes
            ),
            (16_384, Duration::from_millis(50), 37)
        );
        assert_eq!(f.sender.cc, "reno");
        assert_eq!(f.sender.lifetime, Duration::from_secs(8));
        assert_eq!(f.tcp_info.interval, Duration::from_millis(200));
        assert_eq!(f.start, Duration::from_secs(1));
        assert_eq!(
            s.topology.receive_buffer,
            netlab_topology::ReceiveBuffer::StartAtMax
        );
        // iperf3: no netlab flow; B's first receiver on an ephemeral port.
        let s = setup(Load::Iperf3(Iperf3Load::default()));
        assert!(s.flows.is_empty());
        assert_eq!(s.clock_sink.receiver.listen.port(), 0);
        assert!(s.clock_sink.udp_echo.is_some());
        // The ordinary pair with netlab's receiver: B's first receiver
        // takes its flow on netlab's port.
        let half = |sender, receiver| {
            setup(Load::Ordinary(OrdinaryLoad {
                sender,
                receiver,
                receive_buffer: None,
            }))
        };
        let s = half(End::Ordinary, End::Netlab);
        assert!(s.flows.is_empty());
        assert_eq!(s.clock_sink.receiver.listen, b_tcp);
        // netlab's sender toward the ordinary receiver: no netlab receiver.
        let s = half(End::Netlab, End::Ordinary);
        assert_eq!(s.flows.len(), 1);
        assert_eq!(s.flows[0].receiver, None);
        assert_eq!(s.flows[0].sender.to.port(), ORDINARY_PORT);
        assert_eq!(
            s.flows[0].sender.block_size,
            NetlabLoad::default().block_size
        );
        assert!(half(End::Ordinary, End::Ordinary).flows.is_empty());
        let s = half(End::Netlab, End::Netlab);
        assert_eq!(s.flows[0].receiver.map(|r| r.listen), Some(b_tcp));
    }
}
