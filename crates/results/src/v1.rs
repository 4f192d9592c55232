//! results.json schema_version 1 (one Reno-style upload, one bottleneck,
//! the compare flags as configuration), read and migrated to version 2:
//! the flags become the experiment they describe, the single flow becomes
//! `flows[0]`, the bottleneck becomes the upload's qdiscs, and B's echo
//! counters move out of the flow's receiver log.
//!
//! [`CompareConfig`] is that configuration block: the flags of
//! `orchestrator compare`, validated, as version 1 recorded them whole.
//! `compare` still validates its flags into it and runs the experiment it
//! describes ([`CompareConfig::experiment`]), so the migration and the
//! command read the flags the same way.

use std::path::PathBuf;
use std::time::Duration;

use netlab_experiment::{
    ArmSpec, CaptureSpec, Direction, Experiment, FlowSpec, KernelChoice, Offloads, PathSpec,
    PcapMode, ProbeSpec,
};
use netlab_os::secs;
use netlab_qdisc_model::{Arm, Tbf};
use serde::{Deserialize, Serialize};

use crate::{
    directions_of, CleanupResult, EcnResult, FlowResult, KernelInfo, PointResult, ProbeResult,
    QdiscResult, Results, ScenarioResult, TcpInfoSample, TcpInfoSamplerResult, TcpResult, Tool,
    TopologyResult,
};

/// The whole version 1 file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultsV1 {
    /// 1.
    pub schema_version: u32,
    /// The tool that wrote it.
    pub tool: Tool,
    /// The kernel that ran it.
    pub kernel: KernelInfo,
    /// The compare flags, validated.
    pub config: CompareConfig,
    /// Run id.
    pub run_id: String,
    /// Start, UTC.
    pub started_utc: String,
    /// End, UTC.
    pub finished_utc: String,
    /// Scenarios.
    pub scenarios: Vec<ScenarioResultV1>,
    /// Notes.
    pub notes: Vec<String>,
}

/// One version 1 scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResultV1 {
    /// Position.
    pub index: u32,
    /// Round.
    pub round: u32,
    /// Arm kind.
    pub arm: String,
    /// Arm words.
    pub arm_words: String,
    /// Namespaces.
    pub namespaces: Vec<String>,
    /// t0, UTC.
    pub t0_utc: Option<String>,
    /// Topology.
    pub topology: Option<TopologyResult>,
    /// The one bottleneck (R's egress toward B).
    pub qdisc: QdiscResult,
    /// The one flow.
    pub tcp: Option<TcpResult>,
    /// Its tcp_info samples.
    pub tcp_info: Vec<TcpInfoSample>,
    /// Their sampler.
    pub tcp_info_sampler: Option<TcpInfoSamplerResult>,
    /// The stop-and-wait probe.
    pub probe: Option<ProbeResult>,
    /// ECN evidence.
    pub ecn: Option<EcnResult>,
    /// Cleanup.
    pub cleanup: CleanupResult,
    /// Wall time, s.
    pub elapsed_s: f64,
    /// Error.
    pub error: Option<String>,
}

/// The phases of one scenario, all measured from t0 (method §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeline {
    /// Probe-only phase `[0, baseline)`; the sender starts at its end.
    #[serde(with = "secs")]
    pub baseline: Duration,
    /// Warm-up after the sender starts, excluded from goodput.
    #[serde(with = "secs")]
    pub warmup: Duration,
    /// The measured load window.
    #[serde(with = "secs")]
    pub measure: Duration,
}

impl Timeline {
    /// When the sender is started.
    pub fn sender_start(&self) -> Duration {
        self.baseline
    }
}

/// An optional `Duration` as seconds (f64) or null.
mod opt_secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        d.map(|d| d.as_secs_f64()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let v = Option::<f64>::deserialize(d)?;
        v.map(|v| {
            Duration::try_from_secs_f64(v).map_err(|e| serde::de::Error::custom(e.to_string()))
        })
        .transpose()
    }
}

fn default_mtu() -> u32 {
    netlab_experiment::DEFAULT_MTU
}

fn default_snap_len() -> u32 {
    netlab_experiment::DEFAULT_PCAP_SNAP_LEN
}

fn default_pcap_max_bytes() -> u64 {
    netlab_experiment::DEFAULT_PCAP_MAX_BYTES
}

/// whole in results.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareConfig {
    /// Rounds.
    pub rounds: u32,
    /// Arms, in the order they run within a round.
    pub arms: Vec<Arm>,
    /// The arms as the words the user typed (or the method defaults).
    pub arm_words: Vec<String>,
    /// Root TBF of the bottleneck.
    pub tbf: Tbf,
    /// Congestion control requested for the sender.
    pub cc: String,
    /// Phases.
    pub timeline: Timeline,
    /// Probe spacing.
    #[serde(with = "secs")]
    pub probe_interval: Duration,
    /// Probe timeout.
    #[serde(with = "secs")]
    pub probe_timeout: Duration,
    /// Probe request cap.
    pub probe_max: u32,
    /// TCP-state and qdisc sampling interval.
    #[serde(with = "secs")]
    pub sample_interval: Duration,
    /// Capture frame cap.
    pub capture_frames: u64,
    /// Capture deadline.
    #[serde(with = "secs")]
    pub capture_deadline: Duration,
    /// Every frame's headers to a pcapng file (`--pcap`).
    #[serde(default)]
    pub pcap: bool,
    /// Snap length of that file.
    #[serde(default = "default_snap_len")]
    pub pcap_snap_len: u32,
    /// Byte cap of that file.
    #[serde(default = "default_pcap_max_bytes")]
    pub pcap_max_bytes: u64,
    /// TCP port.
    pub tcp_port: u16,
    /// UDP probe port.
    pub udp_port: u16,
    /// Sender block size in bytes.
    pub block_size: usize,
    /// Interval of the isochronous probe, when `--iso-probe` asks for it.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_secs")]
    pub iso_probe: Option<Duration>,
    /// The veths' offloads (`--offloads`; version 1 files ran with the
    /// kernel's).
    #[serde(default)]
    pub offloads: Offloads,
    /// MTU of every link (`--mtu`; version 1 files ran with 1500).
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// Kernel choice as given (not recorded: `kernel` of the results says
    /// which kernel ran and why).
    #[serde(skip)]
    pub kernel: KernelChoice,
    /// Guest memory, as passed to the kernel (`1G`).
    pub guest_mem: String,
    /// Results folder.
    pub out: PathBuf,
    /// No progress display.
    pub quiet: bool,
    /// Running inside the guest.
    pub inside_guest: bool,
}

impl CompareConfig {
    /// The experiment these flags describe: the method's experiment with
    /// the flags applied (what `compare` runs, and what
    /// `--print-experiment` prints).
    pub fn experiment(&self) -> Experiment {
        let d = Experiment::default();
        Experiment {
            rounds: self.rounds,
            kernel: self.kernel,
            arms: self
                .arm_words
                .iter()
                .zip(&self.arms)
                .map(|(w, a)| ArmSpec {
                    words: w.split_whitespace().collect::<Vec<_>>().join(" "),
                    arm: a.clone(),
                })
                .collect(),
            timeline: netlab_experiment::Timeline {
                baseline: self.timeline.baseline,
                warmup: self.timeline.warmup,
                measure: self.timeline.measure,
            },
            path: PathSpec {
                up: Some(self.tbf),
                offloads: self.offloads,
                mtu: self.mtu,
                ..d.path.clone()
            },
            flows: vec![FlowSpec {
                direction: Direction::Up,
                cc: self.cc.clone(),
                ecn: true,
                start: Duration::ZERO,
                stop: None,
                port: self.tcp_port,
                block_size: self.block_size as u32,
            }],
            probes: std::iter::once(ProbeSpec {
                port: self.udp_port,
                interval: self.probe_interval,
                timeout: self.probe_timeout,
                max_requests: Some(self.probe_max),
                ..ProbeSpec::stop_and_wait()
            })
            .chain(self.iso_probe.map(|interval| ProbeSpec {
                interval,
                ..ProbeSpec::isochronous()
            }))
            .collect(),
            sample_interval: self.sample_interval,
            capture: CaptureSpec {
                frames: self.capture_frames,
                deadline: self.capture_deadline,
                pcap: if self.pcap {
                    PcapMode::Headers
                } else {
                    PcapMode::Off
                },
                snap_len: self.pcap_snap_len,
                pcap_max_bytes: self.pcap_max_bytes,
            },
            ..d
        }
    }
}

fn convert(s: ScenarioResultV1, cfg: &CompareConfig) -> ScenarioResult {
    let has_flow = s.tcp.is_some() || !s.tcp_info.is_empty() || s.error.is_none();
    let echo = s.tcp.as_ref().and_then(|t| t.receiver_log.echo);
    let tl = cfg.timeline;
    let flows = if has_flow {
        vec![FlowResult {
            index: 0,
            direction: "up".into(),
            cc: cfg.cc.clone(),
            ecn: true,
            port: cfg.tcp_port,
            start_s: tl.sender_start().as_secs_f64(),
            stop_s: None,
            receiver_t0_offset_s: 0.0,
            tcp: s.tcp,
            tcp_info: s.tcp_info,
            tcp_info_sampler: s.tcp_info_sampler,
            error: None,
        }]
    } else {
        Vec::new()
    };
    let rate = cfg.tbf.rate.bits_per_sec() as f64 / 1e6;
    let directions = directions_of(&flows, |d| (d == "up").then_some(rate));
    let mut qdisc = s.qdisc;
    qdisc.direction = "up".into();
    ScenarioResult {
        index: s.index,
        round: s.round,
        point: PointResult {
            index: 1,
            label: "default".into(),
            values: Vec::new(),
        },
        seed: 0,
        arm: s.arm,
        arm_words: s.arm_words,
        namespaces: s.namespaces,
        t0_utc: s.t0_utc,
        topology: s.topology,
        qdiscs: vec![qdisc],
        ecn_flow: s.ecn.as_ref().map(|_| 0),
        flows,
        directions,
        probes: s
            .probe
            .map(|mut p| {
                p.kind = "stop-and-wait".into();
                p
            })
            .into_iter()
            .collect(),
        iso_probe: None,
        echo,
        ecn: s.ecn,
        cleanup: s.cleanup,
        elapsed_s: s.elapsed_s,
        error: s.error,
        open_fds: None,
        ran_on: None,
        bottleneck: None,
    }
}

impl From<ResultsV1> for Results {
    fn from(r: ResultsV1) -> Results {
        let exp = r.config.experiment();
        let timeline_total_s = exp.plan().timeline_total().as_secs_f64();
        let wall_s = r.scenarios.iter().map(|s| s.elapsed_s).sum();
        let cfg = r.config;
        Results {
            schema_version: crate::SCHEMA_VERSION,
            tool: r.tool,
            kernel: r.kernel,
            experiment: exp.to_file(),
            run_id: r.run_id,
            started_utc: r.started_utc,
            finished_utc: r.finished_utc,
            timeline_total_s,
            wall_s,
            scenarios: r.scenarios.into_iter().map(|s| convert(s, &cfg)).collect(),
            notes: r.notes,
            interrupted: None,
            experiment_hash: None,
            shard: None,
            resumed_from: Vec::new(),
            merged: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator")
            .join(rel)
    }

    #[test]
    fn the_schema_v1_fixture_loads_as_version_2() {
        let r = Results::read(&fixture("schema_v1/results.json")).unwrap();
        assert_eq!(r.schema_version, crate::SCHEMA_VERSION);
        assert_eq!(r.scenarios.len(), 2);
        let s = &r.scenarios[1];
        assert_eq!(s.arm, "fq_codel");
        assert_eq!(s.point.label, "default");
        assert!(s.probe().unwrap().phases.loaded.is_some());
        assert_eq!(s.probe().unwrap().kind, "stop-and-wait");
        assert_eq!(s.flows.len(), 1);
        let f = &s.flows[0];
        assert_eq!(
            (f.direction.as_str(), f.cc.as_str(), f.port),
            ("up", "reno", 46020)
        );
        assert!(!f.tcp_info.is_empty() && f.tcp_info.iter().any(|t| t.info.is_some()));
        assert!(s.ecn.as_ref().unwrap().evidence.negotiated);
        assert_eq!(s.ecn_flow, Some(0));
        assert!(s.echo.is_some());
        let q = s.qdisc_of("up").unwrap();
        assert_eq!(q.at_window_end.len(), 2);
        assert_eq!(s.directions.len(), 1);
        assert_eq!(
            s.directions[0].goodput_mbps,
            f.tcp.as_ref().unwrap().goodput_mbps
        );
        assert_eq!(s.directions[0].fairness, Some(1.0));
        let exp = r.experiment().unwrap();
        assert_eq!(exp.rounds, 1);
        assert_eq!(exp.arms.len(), 2);
        assert_eq!(exp.flows[0].cc, "reno");
    }

    /// A converted file written as version 2 reads back to the same values.
    #[test]
    fn version_2_reads_back_what_it_writes() {
        let typed = Results::read(&fixture("schema_v1/results.json")).unwrap();
        let dir = netlab_os::testing::Scratch::new("v2-back");
        let path = dir.0.join("results.json");
        crate::write_json_atomic(&path, &typed).unwrap();
        assert_eq!(Results::read(&path).unwrap(), typed);
    }

    #[test]
    fn an_unknown_version_is_refused_by_name() {
        let dir = netlab_os::testing::Scratch::new("v9");
        let path = dir.0.join("results.json");
        std::fs::write(&path, r#"{"schema_version": 9, "scenarios": []}"#).unwrap();
        let e = Results::read(&path).unwrap_err().to_string();
        assert!(e.contains("schema_version 9"), "{e}");
    }
}
