//! A scenario's setup: every parameter of one planned scenario of the
//! experiment (`netlab_experiment::ScenarioPlan`) resolved into the values
//! the crates take, before anything runs. Pure: built and tested without
//! root. The runner executes a [`ScenarioSetup`] and decides nothing.
//!
//! The path (docs/method.md §2): each of R's egresses gets, when a
//! base RTT (or jitter, loss) is set, a root netem with half the RTT
//! (`handle 1:`); the shaped direction's TBF hangs below it (`parent 1:1
//! handle 2:`) and the arm below TBF (`parent 2:1 handle 10:`). netem only
//! holds packets for their delay; the measured queue forms in TBF/arm.
//! Without a delay TBF is the root (`1:`) and the arm `parent 1:1 handle 10:`.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::time::Duration;

use netlab_ecn::{CaptureConfig, Flow};
use netlab_experiment::{Direction, FlowSpec, Point, ProbeKind};
use netlab_probe::{IsoConfig, PhaseBounds, ProbeConfig};
use netlab_qdisc::QdiscError;
use netlab_qdisc_model::netem::{netem_request, Netem};
use netlab_qdisc_model::{
    arm_request, tbf_request, Arm, Handle, Psched, QdiscRequest, Tbf, ARM_HANDLE,
};
use netlab_tcpload::sink::SinkConfig;
use netlab_tcpload::{SamplerConfig as TcpInfoSamplerConfig, SenderConfig};
use netlab_topology::addresses::{B_ADDR, B_IF, R_A_IF, R_B_IF};
use netlab_topology::{RunId, SenderHost, TopologySpec};

use crate::b_loop::BLoopConfig;
use crate::scenario::error::ScenarioError;

/// Bin of the delivered-bytes series.
pub const SERIES_BIN: Duration = Duration::from_millis(200);

/// How long the receivers outlive the end of the window, as a bound only
/// (the runner stops them at the end).
const RECEIVER_SLACK: Duration = Duration::from_secs(2);

/// netem's handle at the root of an egress.
pub const NETEM_HANDLE: Handle = Handle::new(1, 0);
/// TBF's handle below netem.
pub const TBF_BELOW_NETEM: Handle = Handle::new(2, 0);

/// The qdiscs of one of R's egresses.
#[derive(Debug, Clone, PartialEq)]
pub struct EgressSetup {
    /// Which flows' packets leave here: `up` = R's egress toward B.
    pub direction: Direction,
    /// R's interface.
    pub dev: &'static str,
    /// The path's one-way delay, at the root.
    pub netem: Option<Netem>,
    /// TBF and the arm under it (`None`: this direction is unshaped).
    pub bottleneck: Option<(Tbf, Arm)>,
    /// TBF's rate over time, when it moves (method §15); the TBF is made
    /// at its rate at t0.
    pub schedule: Option<netlab_experiment::RateSchedule>,
}

impl EgressSetup {
    /// TBF's handle: `1:` at the root, `2:` below netem.
    pub fn tbf_handle(&self) -> Handle {
        if self.netem.is_some() {
            TBF_BELOW_NETEM
        } else {
            Handle::new(1, 0)
        }
    }

    /// TBF's parent: the root, or netem's class `1:1`.
    pub fn tbf_parent(&self) -> Handle {
        if self.netem.is_some() {
            Handle::new(NETEM_HANDLE.major(), 1)
        } else {
            Handle::ROOT
        }
    }

    /// The arm's handle (`10:`).
    pub fn arm_handle(&self) -> Handle {
        ARM_HANDLE
    }

    /// The requests in order: netem, TBF, arm (each only when planned).
    pub fn requests(&self, ifindex: u32, psched: &Psched) -> Result<Vec<QdiscRequest>, QdiscError> {
        let mut out = Vec::new();
        let mut parent = Handle::ROOT;
        let mut seq = 1;
        if let Some(n) = &self.netem {
            out.push(netem_request(
                self.dev,
                ifindex,
                NETEM_HANDLE,
                parent,
                n,
                psched,
                seq,
            )?);
            parent = Handle::new(NETEM_HANDLE.major(), 1);
            seq += 1;
        }
        if let Some((tbf, arm)) = &self.bottleneck {
            let th = self.tbf_handle();
            out.push(tbf_request(
                self.dev, ifindex, th, parent, tbf, psched, seq,
            )?);
            out.push(arm_request(
                self.dev,
                ifindex,
                self.arm_handle(),
                Handle::new(th.major(), 1),
                arm,
                seq + 1,
            )?);
        }
        Ok(out)
    }
}

/// One TCP flow: its receiver, its sender, its tcp_info sampling.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowSetup {
    /// The flow as the experiment says it.
    pub spec: FlowSpec,
    /// Its receiver, in the receiving namespace (B for up, A for down);
    /// `None`: the caller's own program receives the flow at `sender.to`
    /// (netlab-crosscheck's ordinary receiver) and netlab binds none.
    pub receiver: Option<SinkConfig>,
    /// The sender, in the sending namespace.
    pub sender: SenderConfig,
    /// Sampling of the sender's tcp_info.
    pub tcp_info: TcpInfoSamplerConfig,
    /// When the sender starts, from t0.
    pub start: Duration,
    /// When it stops, from t0 (`None`: with the others, after the end).
    pub stop: Option<Duration>,
    /// The sender host at A's end (method §1.7): it sends an upload from
    /// there and receives a download there.
    pub host: SenderHost,
}

/// The UDP echo probe from A to B's echo.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeSetup {
    /// B's echo.
    pub target: SocketAddr,
    /// Schedule, timeout, cap and phase marks (validated).
    pub config: ProbeConfig,
    /// If the probe still runs at this time from t0, it is stopped.
    pub hard_stop: Duration,
    /// The sender host it runs from (method §1.7).
    pub host: SenderHost,
}

/// The isochronous probe from A to B's stamping echo on its own
/// port, beside the stop-and-wait probe.
#[derive(Debug, Clone, PartialEq)]
pub struct IsoProbeSetup {
    /// B's stamping echo.
    pub target: SocketAddr,
    /// Interval, timeout, phase marks; `shared_clock` (A and B on one kernel).
    pub config: IsoConfig,
    /// If the probe still runs at this time from t0, it is stopped.
    pub hard_stop: Duration,
    /// The sender host it runs from (method §1.7).
    pub host: SenderHost,
}

/// One sender host of a scenario with `[[hosts]]` (method §1.7).
#[derive(Debug, Clone, PartialEq)]
pub struct HostSetup {
    /// Its number in the topology (1: the seed's A).
    pub host: SenderHost,
    /// Its `[[hosts]]` name.
    pub name: String,
    /// The base RTT asked for on its own link.
    pub base_rtt: Duration,
    /// The netem at the root of R's egress toward it, for hosts from 2 on
    /// when the path or the host has a delay: the path's half RTT (as on
    /// `r0`) plus the host's whole base RTT. Host 1's link is R's `down`
    /// egress, whose netem carries its base RTT ([`ScenarioSetup::egresses`]).
    pub netem: Option<Netem>,
}

impl HostSetup {
    /// R's interface toward the host.
    pub fn router_dev(&self) -> String {
        self.host.router_if()
    }

    /// The requests of its link's netem (none without one).
    pub fn requests(&self, ifindex: u32, psched: &Psched) -> Result<Vec<QdiscRequest>, QdiscError> {
        let dev = self.router_dev();
        self.netem
            .iter()
            .map(|n| {
                Ok(netem_request(
                    &dev,
                    ifindex,
                    NETEM_HANDLE,
                    Handle::ROOT,
                    n,
                    psched,
                    1,
                )?)
            })
            .collect()
    }
}

/// Everything one scenario runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioSetup {
    /// 1-based position in the run.
    pub index: u32,
    /// Round.
    pub round: u32,
    /// The sweep point.
    pub point: Point,
    /// Seed of this scenario.
    pub seed: u64,
    /// The arm in the words it was given.
    pub arm_words: String,
    /// The arm's kind.
    pub arm_kind: &'static str,
    /// The A–R–B to build.
    pub topology: TopologySpec,
    /// R's egresses that carry a qdisc (up first).
    pub egresses: Vec<EgressSetup>,
    /// Phases from t0.
    pub timeline: netlab_experiment::Timeline,
    /// B's first receiver: it sets t0 and carries the probes' UDP echoes
    /// (its TCP listener on an ephemeral port takes no connection).
    pub clock_sink: BLoopConfig,
    /// B's interface the capture reads.
    pub capture_dev: &'static str,
    /// The capture's bounds.
    pub capture: CaptureConfig,
    /// The flow the capture follows (the first upload) and its filter.
    pub capture_flow: Option<(usize, Flow)>,
    /// The headers pcapng file, when the experiment asks for one.
    pub pcap: Option<PcapSetup>,
    /// The sender hosts, host 1 first; empty without `[[hosts]]` (the
    /// seed's one A).
    pub hosts: Vec<HostSetup>,
    /// The flows.
    pub flows: Vec<FlowSetup>,
    /// The stop-and-wait probe.
    pub probe: Option<ProbeSetup>,
    /// The isochronous probe, when the experiment asks for it.
    pub iso_probe: Option<IsoProbeSetup>,
    /// Spacing of the qdisc samplers on R.
    pub qdisc_sample_interval: Duration,
    /// The qdisc samplers stop by themselves at this time from t0.
    pub qdisc_sampling_end: Duration,
}

/// The headers file of a scenario's capture (method §7.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcapSetup {
    /// Bytes kept per frame.
    pub snap_len: u32,
    /// Byte cap of the file.
    pub max_bytes: u64,
}

fn receiver_addr(dir: Direction, host: SenderHost) -> Ipv4Addr {
    match dir {
        Direction::Up => B_ADDR,
        Direction::Down => host.addr(),
    }
}

/// Sender host `index` (0-based, as the experiment counts `[[hosts]]`).
fn host_at(index: usize) -> SenderHost {
    u16::try_from(index + 1)
        .ok()
        .and_then(|n| SenderHost::new(n).ok())
        .expect("the experiment allows no more hosts than the address plan")
}

/// The sender hosts of a planned scenario and the netem on each one's
/// link from host 2 on (method §1.7): the path's half RTT, jitter and
/// loss as on `r0`, plus the host's whole base RTT, all on R's egress
/// toward the host. Not on the host's own `a0`: a netem there would hold
/// the sender's segments inside its own stack, where TCP small queues
/// (`tcp_small_queue_check`) throttle it to about 1 ms of data.
fn hosts_of(s: &netlab_experiment::ScenarioPlan) -> Vec<HostSetup> {
    s.hosts
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let host = host_at(i);
            let netem = (i > 0 && (s.path.needs_netem() || h.needs_netem())).then(|| Netem {
                delay: s.path.base_rtt / 2 + h.base_rtt,
                jitter: s.path.jitter / 2,
                loss_percent: s.path.loss_percent,
                ..Netem::delay(Duration::ZERO)
            });
            HostSetup {
                host,
                name: h.name.clone(),
                base_rtt: h.base_rtt,
                netem,
            }
        })
        .collect()
}

/// The isochronous probe of a planned scenario, if it has one: phases as
/// the stop-and-wait probe's (baseline to the load start, loaded over the
/// measured window), no slot due in the last `max(1 s, timeout)` so every
/// request completes by the end, and a shared clock (A and B are network
/// namespaces of one kernel, host or guest).
fn iso_probe_setup(
    s: &netlab_experiment::ScenarioPlan,
) -> Result<Option<IsoProbeSetup>, ScenarioError> {
    let Some(p) = s.probes.iter().find(|p| p.kind == ProbeKind::Isochronous) else {
        return Ok(None);
    };
    let tl = s.timeline;
    let mut config = IsoConfig::with_interval(p.interval, tl.end());
    config.timeout = p.timeout;
    config.quiet_before_end = p.timeout.max(Duration::from_secs(1));
    config.phases = phases_of(&tl);
    config.shared_clock = true;
    config.size = p.size as usize;
    config.validate().map_err(|source| ScenarioError::Probe {
        step: "isochronous probe configuration",
        source: Box::new(source),
    })?;
    Ok(Some(IsoProbeSetup {
        target: SocketAddr::from((B_ADDR, p.port)),
        hard_stop: tl.end() + p.timeout + Duration::from_secs(2),
        config,
        host: host_at(p.host),
    }))
}

/// The probes' phases from the timeline: baseline from t0 to the load's
/// start, loaded from the window's start to the end.
fn phases_of(tl: &netlab_experiment::Timeline) -> PhaseBounds {
    PhaseBounds {
        baseline_start: Duration::ZERO,
        baseline_end: tl.load_start(),
        loaded_start: tl.window_start(),
        loaded_end: tl.end(),
    }
}

/// The scenario's namespaces and their sysctls: each end's `tcp_ecn`,
/// the receive buffer, the veths' offloads and MTU, the ports.
fn topology_of(s: &netlab_experiment::ScenarioPlan, run_id: &RunId) -> TopologySpec {
    let mut topology = TopologySpec::new(run_id.clone(), s.index.to_string());
    let sender_ecn = |dir: Direction| {
        let of: Vec<&FlowSpec> = s.flows.iter().filter(|f| f.direction == dir).collect();
        match of.first() {
            // The experiment refuses mixed ECN per end. `ecn = false` is
            // tcp_ecn 2, not 0: this end's own connections do not ask for
            // ECN, but it still accepts ECN on connections the other end
            // opens (0 would refuse it and silently turn ECN off for the
            // other direction's flows too).
            Some(f) if !f.ecn => 2,
            _ => 1,
        }
    };
    topology.tcp_ecn_a = sender_ecn(Direction::Up);
    topology.tcp_ecn_b = sender_ecn(Direction::Down);
    topology.receive_buffer = s.path.receive_buffer;
    topology.offloads = s.path.offloads;
    topology.mtu = s.path.mtu;
    topology.sender_hosts = u16::try_from(s.hosts.len().max(1)).expect("at most 254 hosts");
    if let Some(f) = s.flows.first() {
        topology.tcp_port = f.port;
    }
    if let Some(p) = stop_and_wait_spec(s) {
        topology.udp_port = p.port;
    }
    topology
}

/// The scenario's stop-and-wait probe, if it has one.
fn stop_and_wait_spec(
    s: &netlab_experiment::ScenarioPlan,
) -> Option<&netlab_experiment::ProbeSpec> {
    s.probes.iter().find(|p| p.kind == ProbeKind::StopAndWait)
}

/// R's egresses that carry something: the path's delay (netem, half the
/// base RTT each way) and the bottleneck with the arm under it. R's egress
/// toward A is also host 1's link: its netem carries host 1's base RTT
/// too (method §1.7).
fn egresses_of(s: &netlab_experiment::ScenarioPlan) -> Vec<EgressSetup> {
    let host_one = s.hosts.first().map_or(Duration::ZERO, |h| h.base_rtt);
    let netem = |dir: Direction| {
        let own = if dir == Direction::Down {
            host_one
        } else {
            Duration::ZERO
        };
        (s.path.needs_netem() || !own.is_zero()).then(|| Netem {
            delay: s.path.base_rtt / 2 + own,
            jitter: s.path.jitter / 2,
            loss_percent: s.path.loss_percent,
            ..Netem::delay(Duration::ZERO)
        })
    };
    [(Direction::Up, R_B_IF), (Direction::Down, R_A_IF)]
        .into_iter()
        .map(|(direction, dev)| EgressSetup {
            direction,
            dev,
            netem: netem(direction),
            bottleneck: s.path.shaper(direction).map(|t| (*t, s.arm.arm.clone())),
            schedule: s.path.schedule(direction).cloned(),
        })
        .filter(|e| e.netem.is_some() || e.bottleneck.is_some())
        .collect()
}

/// Each flow's receiver, sender and tcp_info sampler, with its start and
/// stop on the timeline.
fn flows_of(s: &netlab_experiment::ScenarioPlan) -> Vec<FlowSetup> {
    let tl = s.timeline;
    let load = tl.load_start();
    s.flows
        .iter()
        .map(|f| {
            let host = host_at(f.host);
            let listen = SocketAddr::from((receiver_addr(f.direction, host), f.port));
            let start = load + f.start;
            let stop = f.stop.map(|d| load + d);
            let lifetime = match stop {
                Some(stop) => stop.saturating_sub(start).max(Duration::from_millis(1)),
                None => (tl.end() + RECEIVER_SLACK).saturating_sub(start),
            };
            FlowSetup {
                spec: f.clone(),
                receiver: Some(SinkConfig {
                    duration: tl.end() + RECEIVER_SLACK,
                    // DCTCP's ECT SYN gets ECN only from a listener that
                    // needs ECN too (method §16.2).
                    cc: netlab_experiment::dctcp::listener_cc(&f.cc),
                    ..SinkConfig::new(listen)
                }),
                sender: SenderConfig {
                    cc: f.cc.clone(),
                    block_size: f.block_size as usize,
                    send_timeout: Duration::from_secs(1),
                    lifetime,
                    ..SenderConfig::new(listen)
                },
                tcp_info: TcpInfoSamplerConfig {
                    interval: s.sample_interval,
                    max_duration: lifetime + Duration::from_secs(1),
                },
                start,
                stop,
                host,
            }
        })
        .collect()
}

/// The stop-and-wait probe's configuration, its phases from the timeline.
fn probe_setup(s: &netlab_experiment::ScenarioPlan) -> Result<Option<ProbeSetup>, ScenarioError> {
    let Some(p) = stop_and_wait_spec(s) else {
        return Ok(None);
    };
    let tl = s.timeline;
    let mut config = ProbeConfig::with_end(tl.end());
    config.spacing = p.interval;
    config.timeout = p.timeout;
    config.max_requests = p.max_requests.unwrap_or(u32::MAX);
    config.size = p.size as usize;
    config.phases = phases_of(&tl);
    config.validate().map_err(|source| ScenarioError::Probe {
        step: "probe configuration",
        source: Box::new(source),
    })?;
    Ok(Some(ProbeSetup {
        target: SocketAddr::from((B_ADDR, p.port)),
        hard_stop: tl.end() + p.timeout + Duration::from_secs(2),
        config,
        host: host_at(p.host),
    }))
}

impl ScenarioSetup {
    /// The setup of one planned scenario of the experiment.
    pub fn new(
        s: &netlab_experiment::ScenarioPlan,
        run_id: &RunId,
    ) -> Result<ScenarioSetup, ScenarioError> {
        let tl = s.timeline;
        let topology = topology_of(s, run_id);
        let egresses = egresses_of(s);
        let flows = flows_of(s);
        let probe = probe_setup(s)?;
        let iso_probe = iso_probe_setup(s)?;
        let capture_flow = s
            .flows
            .iter()
            .position(|f| f.direction == Direction::Up)
            .map(|i| {
                (
                    i,
                    Flow {
                        a: SocketAddrV4::new(host_at(s.flows[i].host).addr(), 0),
                        b: SocketAddrV4::new(B_ADDR, s.flows[i].port),
                    },
                )
            });

        Ok(ScenarioSetup {
            index: s.index,
            round: s.round,
            point: s.point.clone(),
            seed: s.seed,
            arm_words: s.arm.words.clone(),
            arm_kind: s.arm.arm.kind(),
            topology,
            egresses,
            timeline: tl,
            clock_sink: BLoopConfig {
                receiver: SinkConfig {
                    duration: tl.end() + RECEIVER_SLACK,
                    ..SinkConfig::new(SocketAddr::from((B_ADDR, 0)))
                },
                udp_echo: probe.as_ref().map(|p| p.target),
                iso_echo: iso_probe.as_ref().map(|p| p.target),
            },
            capture_dev: B_IF,
            capture: CaptureConfig {
                max_frames: s.capture.frames,
                deadline: s.capture.deadline,
                // The capture copies at least what the headers file keeps.
                snap_len: CaptureConfig::default()
                    .snap_len
                    .max(s.capture.snap_len as usize),
                ..CaptureConfig::default()
            },
            pcap: (s.capture.pcap == netlab_experiment::PcapMode::Headers
                && capture_flow.is_some())
            .then_some(PcapSetup {
                snap_len: s.capture.snap_len,
                max_bytes: s.capture.pcap_max_bytes,
            }),
            capture_flow,
            hosts: hosts_of(s),
            flows,
            probe,
            iso_probe,
            qdisc_sample_interval: s.sample_interval,
            qdisc_sampling_end: tl.end() + Duration::from_secs(1),
        })
    }

    /// The scenario's namespaces (A, R, B, then the sender hosts from 2
    /// on, method §1.7): what the receipts register and cleanup deletes.
    pub fn namespaces(&self) -> Vec<String> {
        self.topology.all_netns_names()
    }

    /// How long the neighbour warm-up may wait in all: three tries' worth
    /// plus the kernel's 1 s ARP retry.
    pub fn warm_up_bound(&self) -> Duration {
        self.warm_up_try() * 3 + Duration::from_secs(1)
    }

    /// How long one warm-up datagram waits for its answer before the next
    /// is sent: two round trips through netem (one for ARP, one for the
    /// datagram) plus 200 ms.
    pub fn warm_up_try(&self) -> Duration {
        let host_link = self
            .hosts
            .iter()
            .filter_map(|h| h.netem.map(|n| n.delay + n.jitter))
            .max()
            .unwrap_or_default();
        let one_way: Duration = self
            .egresses
            .iter()
            .filter_map(|e| e.netem.map(|n| n.delay + n.jitter))
            .sum::<Duration>()
            + host_link;
        one_way * 2 + Duration::from_millis(200)
    }

    /// The flow start times from t0, in flow order (for the clock).
    pub fn flow_starts(&self) -> Vec<Duration> {
        self.flows.iter().map(|f| f.start).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_topology::addresses::A_ADDR;

    fn setup_of(toml: &str, i: usize) -> ScenarioSetup {
        let exp = netlab_experiment::parse(toml).unwrap();
        ScenarioSetup::new(&exp.plan().scenarios[i], &RunId::random()).unwrap()
    }

    #[test]
    fn the_default_setup_follows_the_timeline() {
        let p = setup_of("", 1);
        let s = Duration::from_secs;
        assert_eq!(p.arm_kind, "fq_codel");
        assert_eq!((p.index, p.round), (2, 1));
        assert_eq!(p.namespaces().len(), 3);
        assert!(p.namespaces().iter().all(|n| n.contains("-2-")));
        assert_eq!(p.clock_sink.receiver.duration, s(20));
        assert_eq!(p.clock_sink.udp_echo.map(|a| a.port()), Some(46021));
        assert_eq!(p.flows.len(), 1);
        let f = &p.flows[0];
        let listen = f.receiver.unwrap().listen;
        assert_eq!(listen, SocketAddr::from((B_ADDR, 46020)));
        assert_eq!(f.sender.lifetime, s(17));
        assert_eq!(f.sender.to, listen);
        assert_eq!(f.tcp_info.max_duration, s(18));
        assert_eq!(f.start, s(3));
        let probe = p.probe.as_ref().unwrap();
        assert_eq!(probe.config.end, s(18));
        assert_eq!(probe.config.phases.baseline_end, s(3));
        assert_eq!(probe.config.phases.loaded_start, s(6));
        assert_eq!(probe.config.phases.loaded_end, s(18));
        assert_eq!(probe.hard_stop, s(21));
        assert_eq!(p.qdisc_sampling_end, s(19));
        assert_eq!(p.capture.max_frames, 50_000);
        assert_eq!(p.capture.deadline, s(25));
        assert_eq!(p.capture_flow.map(|c| c.0), Some(0));
        // The method's bottleneck: TBF at the root of r1, the arm below.
        assert_eq!(p.egresses.len(), 1);
        let reqs = p.egresses[0].requests(3, &Psched::MODERN).unwrap();
        assert_eq!(
            reqs[0].tc_command(),
            "tc qdisc add dev r1 root handle 1: tbf rate 5mbit burst 16kb limit 64kb"
        );
        assert!(reqs[1]
            .tc_command()
            .starts_with("tc qdisc add dev r1 parent 1:1 handle 10: fq_codel"));
        assert_eq!(reqs[1].kind, "fq_codel");
    }

    #[test]
    fn offloads_and_mtu_reach_the_topology_per_sweep_point() {
        let toml = "rounds = 1\narms = [\"pfifo\"]\n[path]\nmtu = 9000\n\
                    [sweep]\noffloads = [\"kernel\", \"off\"]\n";
        let kernel = setup_of(toml, 0).topology;
        let off = setup_of(toml, 1).topology;
        assert_eq!(
            (kernel.offloads, kernel.mtu),
            (netlab_topology::Offloads::Kernel, 9000)
        );
        assert_eq!(
            (off.offloads, off.mtu),
            (netlab_topology::Offloads::Off, 9000)
        );
        let default = setup_of("", 0).topology;
        assert_eq!(
            (default.offloads, default.mtu),
            (netlab_topology::Offloads::Kernel, 1500)
        );
    }

    #[test]
    fn a_base_rtt_puts_netem_at_both_roots_above_tbf() {
        let p = setup_of(
            r#"
            arms = ["pfifo limit 100"]
            [path]
            base_rtt = "50ms"
            [path.down]
            rate = "20mbit"
            [[flows]]
            direction = "up"
            [[flows]]
            direction = "down"
            ecn = false
            "#,
            0,
        );
        assert_eq!(p.egresses.len(), 2);
        let up: Vec<String> = p.egresses[0]
            .requests(3, &Psched::MODERN)
            .unwrap()
            .iter()
            .map(|r| r.tc_command())
            .collect();
        assert_eq!(
            up,
            [
                "tc qdisc add dev r1 root handle 1: netem limit 1000000 delay 25ms",
                "tc qdisc add dev r1 parent 1:1 handle 2: tbf rate 5mbit burst 16kb limit 64kb",
                "tc qdisc add dev r1 parent 2:1 handle 10: pfifo limit 100",
            ]
        );
        assert_eq!(p.egresses[1].dev, "r0");
        assert_eq!(p.egresses[1].tbf_handle(), Handle::new(2, 0));
        // The download's receiver is in A, its sender B; ECN per end.
        assert_eq!(
            p.flows[1].receiver.unwrap().listen.ip(),
            std::net::IpAddr::V4(A_ADDR)
        );
        assert_ne!(p.flows[0].spec.port, p.flows[1].spec.port);
        assert_eq!((p.topology.tcp_ecn_a, p.topology.tcp_ecn_b), (1, 2));
    }

    #[test]
    fn an_isochronous_probe_gets_its_echo_and_the_probe_phases() {
        let p = setup_of(
            r#"
            [[probes]]
            kind = "stop-and-wait"
            [[probes]]
            kind = "isochronous"
            interval = "5ms"
            "#,
            0,
        );
        let s = Duration::from_secs;
        let iso = p.iso_probe.as_ref().unwrap();
        assert_eq!(iso.target, SocketAddr::from((B_ADDR, 46022)));
        assert_eq!(p.clock_sink.iso_echo, Some(iso.target));
        assert_eq!(p.clock_sink.udp_echo.map(|a| a.port()), Some(46021));
        let c = &iso.config;
        assert_eq!(c.interval, Duration::from_millis(5));
        assert!(c.shared_clock);
        assert_eq!((c.end, c.quiet_before_end), (s(18), s(1)));
        assert_eq!(c.phases, p.probe.as_ref().unwrap().config.phases);
        assert_eq!(iso.hard_stop, s(21));
        // without it, nothing changes
        let plain = setup_of("", 0);
        assert_eq!(plain.iso_probe, None);
        assert_eq!(plain.clock_sink.iso_echo, None);
    }

    #[test]
    fn swept_probe_intervals_and_sizes_reach_each_probe_configuration() {
        let toml = r#"
            arms = ["pfifo"]
            rounds = 1
            [[probes]]
            kind = "stop-and-wait"
            size = 100
            [[probes]]
            kind = "isochronous"
            [sweep]
            stop_and_wait_interval = ["50ms", "100ms"]
            isochronous_interval = ["10ms", "30ms"]
            isochronous_size = [40, 500]
            "#;
        let exp = netlab_experiment::parse(toml).unwrap();
        let plan = exp.plan();
        assert_eq!(plan.scenarios.len(), 8);
        let ms = Duration::from_millis;
        let mut seen = Vec::new();
        for s in &plan.scenarios {
            let p = ScenarioSetup::new(s, &RunId::random()).unwrap();
            let saw = &p.probe.as_ref().unwrap().config;
            let iso = &p.iso_probe.as_ref().unwrap().config;
            assert_eq!(saw.size, 100, "the unswept size of [[probes]]");
            seen.push((saw.spacing, iso.interval, iso.size));
        }
        assert_eq!(
            seen,
            [
                (ms(50), ms(10), 40),
                (ms(50), ms(10), 500),
                (ms(50), ms(30), 40),
                (ms(50), ms(30), 500),
                (ms(100), ms(10), 40),
                (ms(100), ms(10), 500),
                (ms(100), ms(30), 40),
                (ms(100), ms(30), 500),
            ]
        );
    }

    /// The experiment crate (pure, no probe code) keeps its own copies of
    /// the probes' bounds: they must be the probes'.
    #[test]
    fn the_experiment_checks_the_bounds_the_probes_accept() {
        use netlab_probe::wire;
        assert_eq!(
            netlab_experiment::MIN_STOP_AND_WAIT_SIZE as usize,
            wire::PLAIN_LEN
        );
        assert_eq!(
            netlab_experiment::MIN_ISOCHRONOUS_SIZE as usize,
            wire::STAMPED_LEN
        );
        assert_eq!(
            netlab_experiment::MIN_PROBE_INTERVAL,
            netlab_probe::iso::MIN_INTERVAL
        );
        assert_eq!(
            netlab_experiment::MAX_ISO_SLOTS,
            netlab_probe::iso::MAX_SLOTS
        );
        // The largest payload the experiment admits (the largest MTU less
        // the headers) is one the probes send.
        let max_mtu = (60_000..=70_000u32)
            .rev()
            .find(|m| netlab_experiment::check_mtu(*m).is_ok())
            .unwrap();
        let largest = max_mtu - netlab_experiment::IPV4_UDP_HEADERS;
        assert!(largest as usize <= wire::MAX_DATAGRAM_LEN, "{largest}");
        assert_eq!(
            netlab_experiment::ProbeSpec::isochronous().size as usize,
            netlab_probe::IsoConfig::default().size
        );
        assert_eq!(
            netlab_experiment::ProbeSpec::stop_and_wait().size as usize,
            netlab_probe::ProbeConfig::default().size
        );
    }

    #[test]
    fn each_flow_and_probe_runs_from_its_host_with_the_hosts_base_rtt() {
        let p = setup_of(
            r#"
            arms = ["pfifo limit 256"]
            [path]
            base_rtt = "20ms"
            [[hosts]]
            name = "near"
            base_rtt = "10ms"
            [[hosts]]
            name = "far"
            base_rtt = "40ms"
            [[hosts]]
            name = "idle"
            [[flows]]
            host = "far"
            [[flows]]
            host = "near"
            [[flows]]
            host = "far"
            direction = "down"
            [[probes]]
            host = "idle"
            "#,
            0,
        );
        let ms = Duration::from_millis;
        assert_eq!(p.topology.sender_hosts, 3);
        assert_eq!(p.namespaces().len(), 5);
        assert_eq!(
            p.flows.iter().map(|f| f.host.number()).collect::<Vec<_>>(),
            [2, 1, 2]
        );
        // A download's receiver listens on its host's address.
        assert_eq!(
            p.flows[2].receiver.unwrap().listen.ip(),
            std::net::IpAddr::V4(std::net::Ipv4Addr::new(10, 21, 2, 2))
        );
        assert_eq!(p.probe.as_ref().unwrap().host.number(), 3);
        // The capture follows the first upload, from its own host.
        assert_eq!(
            p.capture_flow.map(|(i, f)| (i, *f.a.ip())),
            Some((0, std::net::Ipv4Addr::new(10, 21, 2, 2)))
        );
        // Host 1's base RTT rides on r0's netem with the path's half; the
        // others get their own netem on R's egress toward them.
        let r0 = p.egresses.iter().find(|e| e.dev == "r0").unwrap();
        assert_eq!(r0.netem.unwrap().delay, ms(10) + ms(10));
        let r1 = p.egresses.iter().find(|e| e.dev == "r1").unwrap();
        assert_eq!(r1.netem.unwrap().delay, ms(10));
        assert_eq!(p.hosts.len(), 3);
        assert_eq!(p.hosts[0].netem, None);
        assert_eq!(p.hosts[1].netem.unwrap().delay, ms(10) + ms(40));
        assert_eq!(p.hosts[2].netem.unwrap().delay, ms(10));
        let reqs = p.hosts[1].requests(4, &Psched::MODERN).unwrap();
        assert_eq!(
            reqs[0].tc_command(),
            "tc qdisc add dev r2 root handle 1: netem limit 1000000 delay 50ms"
        );
        // The warm-up waits for the longest host link too.
        assert!(p.warm_up_try() >= (ms(20) + ms(10) + ms(50)) * 2);
    }

    #[test]
    fn without_hosts_the_seeds_path_is_unchanged_and_a_host_rtt_alone_adds_netem() {
        let seed = setup_of("", 0);
        assert!(seed.hosts.is_empty());
        assert_eq!(seed.topology.sender_hosts, 1);
        assert!(seed.flows.iter().all(|f| f.host == SenderHost::FIRST));
        let p = setup_of(
            "arms = [\"pfifo\"]\n[[hosts]]\nname = \"a\"\nbase_rtt = \"30ms\"\n\
             [[hosts]]\nname = \"b\"\n",
            0,
        );
        // No path delay: r0 gets host 1's 30 ms alone, r1 nothing, host 2 none.
        let r0 = p.egresses.iter().find(|e| e.dev == "r0").unwrap();
        assert_eq!(r0.netem.unwrap().delay, Duration::from_millis(30));
        assert!(p
            .egresses
            .iter()
            .all(|e| e.dev != "r1" || e.netem.is_none()));
        assert_eq!(p.hosts[1].netem, None);
    }

    #[test]
    fn the_experiment_allows_the_hosts_the_address_plan_has() {
        assert_eq!(
            netlab_experiment::MAX_HOSTS,
            usize::from(netlab_topology::MAX_SENDER_HOSTS)
        );
    }

    #[test]
    fn flow_offsets_are_inside_the_load_phase() {
        let p = setup_of(
            r#"
            [timeline]
            baseline = "1s"
            warmup = "1s"
            measure = "3s"
            [[flows]]
            [[flows]]
            start = "1s"
            stop = "3s"
            "#,
            0,
        );
        let s = Duration::from_secs;
        assert_eq!(p.flow_starts(), [s(1), s(2)]);
        assert_eq!(p.flows[1].stop, Some(s(4)));
        assert_eq!(p.flows[1].sender.lifetime, s(2));
        assert_eq!(p.flows[0].sender.lifetime, s(6));
    }
}
