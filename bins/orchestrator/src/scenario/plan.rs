//! A scenario's plan: every parameter resolved from the run's configuration
//! into the values the crates take, before anything runs. Pure: built and
//! tested without root. The runner executes a plan and decides nothing.

use std::net::{SocketAddr, SocketAddrV4};
use std::time::Duration;

use netlab_ecn::{CaptureConfig, Flow};
use netlab_probe::ProbeConfig;
use netlab_qdisc::Bottleneck;
use netlab_tcpload::sink::SinkConfig;
use netlab_tcpload::{SamplerConfig as TcpInfoSamplerConfig, SenderConfig};
use netlab_topology::spec::{A_ADDR, B_ADDR, B_IF, R_B_IF};
use netlab_topology::{RunId, TopologySpec};

use super::error::ScenarioError;
use crate::config::{CompareConfig, Timeline};

/// Bin of the delivered-bytes series.
pub const SERIES_BIN: Duration = Duration::from_millis(200);

/// How long the receiver outlives the end of the window, as a bound only
/// (the runner stops it at the end).
const RECEIVER_SLACK: Duration = Duration::from_secs(2);

/// One load flow: A's sender to B's receiver, and its tcp_info sampling.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowPlan {
    /// The sender (receiver address, cc, block size, lifetime).
    pub sender: SenderConfig,
    /// Sampling of the sender's tcp_info.
    pub tcp_info: TcpInfoSamplerConfig,
    /// The flow as the capture filters it (A's port learnt from the SYN).
    pub capture_filter: Flow,
}

/// The UDP echo probe from A to B's echo.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbePlan {
    /// B's echo.
    pub target: SocketAddr,
    /// Schedule, timeout, cap and phase marks (validated).
    pub config: ProbeConfig,
    /// If the probe still runs at this time from t0, it is stopped.
    pub hard_stop: Duration,
}

/// Everything one scenario runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioPlan {
    /// 1-based position in the run.
    pub index: u32,
    /// Round.
    pub round: u32,
    /// The arm in the words it was given.
    pub arm_words: String,
    /// The A–R–B to build.
    pub topology: TopologySpec,
    /// R's interface toward B, which carries the bottleneck.
    pub bottleneck_dev: &'static str,
    /// TBF and the arm under it.
    pub bottleneck: Bottleneck,
    /// Phases from t0.
    pub timeline: Timeline,
    /// B's receiver (TCP sink and UDP echo); it sets t0.
    pub receiver: SinkConfig,
    /// B's interface the capture reads.
    pub capture_dev: &'static str,
    /// The capture's bounds.
    pub capture: CaptureConfig,
    /// The load flow.
    pub flow: FlowPlan,
    /// The probe.
    pub probe: ProbePlan,
    /// Spacing of the qdisc sampler on R.
    pub qdisc_sample_interval: Duration,
    /// The qdisc sampler stops by itself at this time from t0.
    pub qdisc_sampling_end: Duration,
}

impl ScenarioPlan {
    /// The plan of scenario `index` (1-based): round `round`, arm `arm` of `cfg`.
    pub fn new(
        cfg: &CompareConfig,
        run_id: &RunId,
        index: u32,
        round: u32,
        arm: usize,
    ) -> Result<ScenarioPlan, ScenarioError> {
        let tl = cfg.timeline;
        let mut topology = TopologySpec::new(run_id.clone(), index.to_string());
        topology.tcp_port = cfg.tcp_port;
        topology.udp_port = cfg.udp_port;
        let b_tcp = SocketAddr::from((B_ADDR, cfg.tcp_port));
        let b_udp = SocketAddr::from((B_ADDR, cfg.udp_port));

        let mut probe = ProbeConfig::with_end(tl.end());
        probe.spacing = cfg.probe_interval;
        probe.timeout = cfg.probe_timeout;
        probe.max_requests = cfg.probe_max;
        probe.phases.baseline_start = Duration::ZERO;
        probe.phases.baseline_end = tl.sender_start();
        probe.phases.loaded_start = tl.window_start();
        probe.phases.loaded_end = tl.end();
        probe.validate().map_err(|source| ScenarioError::Probe {
            step: "probe configuration",
            source: Box::new(source),
        })?;

        Ok(ScenarioPlan {
            index,
            round,
            arm_words: cfg.arm_words[arm].clone(),
            topology,
            bottleneck_dev: R_B_IF,
            bottleneck: Bottleneck {
                tbf: cfg.tbf,
                arm: cfg.arms[arm].clone(),
            },
            timeline: tl,
            receiver: SinkConfig {
                duration: tl.end() + RECEIVER_SLACK,
                ..SinkConfig::new(b_tcp, Some(b_udp))
            },
            capture_dev: B_IF,
            capture: CaptureConfig {
                max_frames: cfg.capture_frames,
                deadline: cfg.capture_deadline,
                ..CaptureConfig::default()
            },
            flow: FlowPlan {
                sender: SenderConfig {
                    cc: cfg.cc.clone(),
                    block_size: cfg.block_size,
                    send_timeout: Duration::from_secs(1),
                    lifetime: tl.sender_lifetime(),
                    ..SenderConfig::new(b_tcp)
                },
                tcp_info: TcpInfoSamplerConfig {
                    interval: cfg.sample_interval,
                    max_duration: tl.sender_lifetime() + Duration::from_secs(1),
                },
                capture_filter: Flow {
                    a: SocketAddrV4::new(A_ADDR, 0),
                    b: SocketAddrV4::new(B_ADDR, cfg.tcp_port),
                },
            },
            probe: ProbePlan {
                target: b_udp,
                hard_stop: tl.end() + cfg.probe_timeout + Duration::from_secs(2),
                config: probe,
            },
            qdisc_sample_interval: cfg.sample_interval,
            qdisc_sampling_end: tl.end() + Duration::from_secs(1),
        })
    }

    /// The arm's kind, e.g. `fq_codel`.
    pub fn arm_kind(&self) -> &'static str {
        self.bottleneck.arm.kind()
    }

    /// The scenario's namespaces (A, R, B).
    pub fn namespaces(&self) -> Vec<String> {
        self.topology.netns_names().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_config() -> CompareConfig {
        use clap::Parser as _;
        let cli = crate::cli::Cli::parse_from(["orchestrator", "compare", "--out", "o"]);
        let crate::cli::Command::Compare(a) = cli.command else {
            unreachable!()
        };
        CompareConfig::from_args(&a, "t").unwrap()
    }

    #[test]
    fn the_default_plan_follows_the_timeline() {
        let cfg = default_config();
        let run = RunId::random();
        let p = ScenarioPlan::new(&cfg, &run, 2, 1, 1).unwrap();
        let s = Duration::from_secs;
        assert_eq!(p.arm_kind(), "fq_codel");
        assert_eq!((p.index, p.round), (2, 1));
        assert_eq!(p.namespaces().len(), 3);
        assert!(p
            .namespaces()
            .iter()
            .all(|n| n.contains(run.as_str()) && n.contains("-2-")));
        assert_eq!(p.receiver.duration, s(20));
        assert_eq!(p.receiver.listen.port(), 46020);
        assert_eq!(p.receiver.udp_echo.map(|a| a.port()), Some(46021));
        assert_eq!(p.flow.sender.lifetime, s(17));
        assert_eq!(p.flow.sender.to, p.receiver.listen);
        assert_eq!(p.flow.tcp_info.max_duration, s(18));
        assert_eq!(p.probe.config.end, s(18));
        assert_eq!(p.probe.config.phases.baseline_end, s(3));
        assert_eq!(p.probe.config.phases.loaded_start, s(6));
        assert_eq!(p.probe.config.phases.loaded_end, s(18));
        assert_eq!(p.probe.hard_stop, s(21));
        assert_eq!(p.probe.target, p.receiver.udp_echo.unwrap());
        assert_eq!(p.qdisc_sampling_end, s(19));
        assert_eq!(p.capture.max_frames, 50_000);
        assert_eq!(p.capture.deadline, s(25));
    }
}
