//! results.json schema_version 1 (one Reno-style upload, one bottleneck,
//! the compare flags as configuration), read and migrated to the version
//! netlab writes ([`crate::SCHEMA_VERSION`]): the flags become the
//! experiment they describe, the single flow becomes `flows[0]`, the
//! bottleneck becomes the upload's qdiscs, and B's echo counters move out
//! of the flow's receiver log.
//!
//! The configuration block is [`ConfigV1`] (in `v1_config.rs`): version
//! 1 recorded the validated flags of `orchestrator compare` whole, and
//! the migration turns them into the experiment they described then.

use serde::{Deserialize, Serialize};

pub use crate::v1_config::ConfigV1;
use crate::{
    directions_of, CleanupResult, EcnResult, FlowResult, KernelInfo, PointResult, ProbeResult,
    QdiscResult, Results, ScenarioResult, TcpInfoSamplerResult, TcpResult, Tool, TopologyResult,
};
use netlab_tcpload::record::TcpSample;

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
    pub config: ConfigV1,
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
    #[serde(with = "crate::tcp_info")]
    pub tcp_info: Vec<TcpSample>,
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

fn convert(s: ScenarioResultV1, cfg: &ConfigV1) -> ScenarioResult {
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
            start_s: tl.load_start().as_secs_f64(),
            stop_s: None,
            receiver_t0_offset_s: 0.0,
            tcp: s.tcp,
            tcp_info: s.tcp_info,
            tcp_info_sampler: s.tcp_info_sampler,
            error: None,
            host: None,
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
        hosts: Vec::new(),
        links: Vec::new(),
        steps: None,
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
            steps: None,
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
        assert!(!f.tcp_info.is_empty() && f.tcp_info.iter().any(|t| t.record.info.is_some()));
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

    /// A converted file written in the current version reads back to the
    /// same values.
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
        let e = Results::read(&path).unwrap_err();
        assert!(
            matches!(e, crate::ReadError::UnsupportedSchema { found: 9, .. }),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .starts_with("results.json has schema_version 9,"),
            "{e}"
        );
    }
}
