//! The shape of results.json (schema_version 1), as typed values. Everything
//! a figure in the summary comes from is here, raw: every probe request,
//! every recv-time series bin, every tcp_info sample, every qdisc readback
//! with its bytes. The crates' own types are held as they are; the few
//! records shaped here (the flat tcp_info sample, the sampled qdisc
//! counters, the ECN report with its `kernel_drops` alias) keep the keys
//! schema 1 has always had. Every type reads back what it writes.

use netlab_ecn::EcnReport;
use netlab_probe::{PhaseStats, ProbeConfig, ProbeRequest};
use netlab_qdisc::{Psched, QdiscRecord, QdiscStats, QdiscXstats};
use netlab_receipts::CleanupReceipt;
use netlab_tcpload::sampler::{FlowId, SamplerEnd};
use netlab_tcpload::{ReceiverLog, Termination};
use netlab_topology::{SysctlReadback, TopologyReadback, TopologySpec};
use serde::{Deserialize, Serialize};

use crate::config::CompareConfig;

mod file;
mod tcp_info;

pub use file::{read_json, write_json_atomic, ResultsFileError};
pub use tcp_info::TcpInfoSample;

/// Version of the results.json shape; a change of shape bumps it.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole results file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// Shape version.
    pub schema_version: u32,
    /// The tool that wrote it.
    pub tool: Tool,
    /// The kernel that ran the experiment.
    pub kernel: KernelInfo,
    /// The full configuration.
    pub config: CompareConfig,
    /// Run id (namespace names carry it).
    pub run_id: String,
    /// Start, UTC (RFC 3339).
    pub started_utc: String,
    /// End, UTC (RFC 3339).
    pub finished_utc: String,
    /// Scenarios in execution order.
    pub scenarios: Vec<ScenarioResult>,
    /// Notes that qualify the figures.
    pub notes: Vec<String>,
}

impl Results {
    /// Reads a results.json (the summary tests and later readers use it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn read(path: &std::path::Path) -> Result<Results, ResultsFileError> {
        read_json(path)
    }
}

/// Tool name and version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// `netlab`.
    pub name: String,
    /// Crate version.
    pub version: String,
}

impl Tool {
    /// This build of netlab.
    pub fn this() -> Tool {
        Tool {
            name: "netlab".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// Which kernel ran, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelInfo {
    /// `host` or `uml`.
    pub mode: String,
    /// `uname -r` of the kernel that ran the experiment.
    pub release: String,
    /// Why this kernel was chosen (auto mode explains itself).
    pub chosen_because: String,
}

/// The topology as built and read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopologyResult {
    /// What was asked for.
    pub spec: TopologySpec,
    /// Wall time of the build, s.
    pub build_time_s: f64,
    /// Every sysctl written, with its readback.
    pub sysctls: Vec<SysctlReadback>,
    /// Links, addresses and routes of the three namespaces.
    pub readback: TopologyReadback,
}

/// A netlink request as sent, with the equivalent tc command line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestRecord {
    /// A command line a person can paste (inside R's namespace).
    pub tc_argv: Vec<String>,
    /// The same, prefixed to run from the host (`ip netns exec <R> tc …`).
    pub tc_argv_from_host: Vec<String>,
    /// The raw netlink request, hex.
    pub netlink_hex: String,
}

/// The whole dump behind a readback, to decode again later
/// (`netlab_qdisc::Readback::from_dump`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadbackDump {
    /// Interface the records were filtered by.
    pub ifindex: u32,
    /// When it was taken (s from t0), if the caller gave a time.
    pub taken_at_s: Option<f64>,
    /// The tick factors used to decode TBF's buffer.
    pub psched: Psched,
    /// Every message of the dump, hex.
    pub raw_hex: String,
}

impl ReadbackDump {
    /// The dump part of a readback (its records are kept apart).
    pub fn of(rb: &netlab_qdisc::Readback) -> ReadbackDump {
        ReadbackDump {
            ifindex: rb.ifindex,
            taken_at_s: rb.taken_at_s,
            psched: rb.psched,
            raw_hex: rb.raw_hex.clone(),
        }
    }
}

/// One qdisc's counters in a periodic sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampledQdisc {
    /// Kind, e.g. `tbf`.
    pub kind: String,
    /// Handle as tc prints it.
    pub handle: netlab_qdisc::Handle,
    /// Parent as tc prints it.
    pub parent: netlab_qdisc::Handle,
    /// Counters.
    pub stats: Option<QdiscStats>,
    /// Kind-specific statistics.
    pub xstats: Option<QdiscXstats>,
}

/// One periodic qdisc readback: backlog over time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QdiscSample {
    /// When it was taken (s from t0).
    pub t_s: Option<f64>,
    /// The interface's qdiscs.
    pub records: Vec<SampledQdisc>,
}

impl QdiscSample {
    /// The counters of a readback (options and bytes are in the full readbacks).
    pub fn of(rb: &netlab_qdisc::Readback) -> QdiscSample {
        QdiscSample {
            t_s: rb.taken_at_s,
            records: rb
                .records
                .iter()
                .map(|r| SampledQdisc {
                    kind: r.kind.clone(),
                    handle: r.handle,
                    parent: r.parent,
                    stats: r.stats,
                    xstats: r.xstats.clone(),
                })
                .collect(),
        }
    }
}

/// Qdisc configuration and readbacks of one scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QdiscResult {
    /// Interface (in R) that carries the bottleneck.
    pub dev: String,
    /// Requests, in order.
    pub requests: Vec<RequestRecord>,
    /// Readback right after configuration.
    pub after_config: Vec<QdiscRecord>,
    /// The whole dump behind `after_config` (raw hex, tick factors), to re-decode later.
    pub after_config_dump: Option<ReadbackDump>,
    /// Readback at the end of the measured window, before any socket closed.
    #[serde(rename = "final")]
    pub at_window_end: Vec<QdiscRecord>,
    /// The whole dump behind `final`.
    pub final_dump: Option<ReadbackDump>,
    /// When the final readback was taken (s from t0).
    pub final_taken_s: Option<f64>,
    /// Periodic readbacks: backlog over time.
    pub samples: Vec<QdiscSample>,
}

/// TCP load results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TcpResult {
    /// Requested congestion control.
    pub cc_requested: String,
    /// Read back after connect.
    pub cc_readback: String,
    /// When the sender was started (s from t0).
    pub start_s: f64,
    /// When connect returned (s from t0).
    pub connect_s: f64,
    /// Goodput over the measured window, Mbit/s (None for an empty window).
    pub goodput_mbps: Option<f64>,
    /// The measured window (s from t0).
    pub window_s: [f64; 2],
    /// Receiver side.
    pub receiver: ReceiverSummary,
    /// Sender side.
    pub sender: SenderSummary,
    /// Delivered bytes per bin (bin_s wide) from t0.
    pub series: Vec<u64>,
    /// Bin width of `series`, s.
    pub series_bin_s: f64,
    /// The receiver's full log (every recv: time and length).
    pub receiver_log: ReceiverLog,
}

/// Receiver figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReceiverSummary {
    /// Bytes of blocks whose post-recv time is in the window.
    pub bytes_in_window: u64,
    /// All bytes received.
    pub bytes_total: u64,
    /// Bytes that did not match the pattern at their stream offset (expected 0).
    pub validation_failures: u64,
    /// First bad stream offset, if any.
    pub first_bad_offset: Option<u64>,
    /// When the receiver closed (s from t0).
    pub closed_s: f64,
}

/// Sender figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SenderSummary {
    /// Bytes the local socket accepted: local socket input, NOT delivered bytes.
    pub accepted_bytes: u64,
    /// How the sender ended (a close at the common end is not an outage).
    pub termination: Termination,
    /// When it ended (s from t0).
    pub end_s: f64,
}

/// Bookkeeping of the tcp_info sampler (its samples are `tcp_info`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TcpInfoSamplerResult {
    /// The sampled flow.
    pub flow: FlowId,
    /// Nominal spacing, s.
    pub interval_s: f64,
    /// Queries whose dump did not hold the flow (s from t0).
    pub not_found_s: Vec<f64>,
    /// Failed queries: time and error.
    pub errors: Vec<(f64, String)>,
    /// Why sampling ended.
    pub end: SamplerEnd,
}

/// Probe results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeResult {
    /// Every request.
    pub requests: Vec<ProbeRequest>,
    /// Replies discarded as stale (for an earlier, timed-out request).
    pub stale_replies: u64,
    /// Malformed replies discarded.
    pub malformed_replies: u64,
    /// Receive errors.
    pub recv_errors: u64,
    /// Per-phase statistics.
    pub phases: ProbePhases,
    /// Probe configuration.
    pub config: ProbeConfig,
}

/// Baseline and loaded statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbePhases {
    /// 0 to the sender start.
    pub baseline: Option<PhaseStats>,
    /// The measured window (sends stop 1 s before its end).
    pub loaded: Option<PhaseStats>,
    /// Warm-up and anything else, for completeness.
    pub other: Vec<PhaseStats>,
}

/// ECN evidence on the wire: the capture's report, with a flat alias of the
/// kernel's drop count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EcnResult {
    /// The capture's report.
    #[serde(flatten)]
    pub report: EcnReport,
    /// `kernel.drops` (PACKET_STATISTICS), flat.
    pub kernel_drops: Option<u64>,
}

impl From<EcnReport> for EcnResult {
    fn from(report: EcnReport) -> EcnResult {
        EcnResult {
            kernel_drops: report.kernel.map(|k| k.drops),
            report,
        }
    }
}

/// Cleanup of one scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CleanupResult {
    /// One receipt per teardown step.
    pub receipts: Vec<CleanupReceipt>,
    /// Namespaces confirmed deleted.
    pub namespaces_deleted: Vec<String>,
}

/// One scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// 1-based position in execution order.
    pub index: u32,
    /// Round.
    pub round: u32,
    /// Arm kind.
    pub arm: String,
    /// The arm in tc words.
    pub arm_words: String,
    /// Namespaces of this scenario.
    pub namespaces: Vec<String>,
    /// t0 (B's receiver start), UTC.
    pub t0_utc: Option<String>,
    /// Topology as built and read back.
    pub topology: Option<TopologyResult>,
    /// Qdisc requests and readbacks.
    pub qdisc: QdiscResult,
    /// TCP load.
    pub tcp: Option<TcpResult>,
    /// Sender tcp_info samples (kernel data, flat).
    pub tcp_info: Vec<TcpInfoSample>,
    /// tcp_info sampler bookkeeping (misses, errors, end).
    pub tcp_info_sampler: Option<TcpInfoSamplerResult>,
    /// UDP echo probe.
    pub probe: Option<ProbeResult>,
    /// ECN evidence on the wire.
    pub ecn: Option<EcnResult>,
    /// Cleanup receipts.
    pub cleanup: CleanupResult,
    /// Scenario wall time, s.
    pub elapsed_s: f64,
    /// Null, or the cause of the failure.
    pub error: Option<String>,
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
    fn the_schema_v1_fixture_loads() {
        let r = Results::read(&fixture("schema_v1/results.json")).unwrap();
        assert_eq!(r.schema_version, 1);
        assert_eq!(r.scenarios.len(), 2);
        let s = &r.scenarios[1];
        assert_eq!(s.arm, "fq_codel");
        assert!(s.probe.as_ref().unwrap().phases.loaded.is_some());
        assert!(!s.tcp_info.is_empty() && s.tcp_info.iter().any(|t| t.info.is_some()));
        assert!(s.ecn.as_ref().unwrap().report.negotiated);
        assert_eq!(s.qdisc.at_window_end.len(), 2);
    }

    /// Reading the fixture into types and writing it again gives the same
    /// JSON: same keys, same values, nothing dropped or renamed.
    #[test]
    fn typed_results_write_exactly_what_they_read() {
        let path = fixture("schema_v1/results.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let raw: serde_json::Value = serde_json::from_str(&text).unwrap();
        let typed = Results::read(&path).unwrap();
        let again = serde_json::to_value(&typed).unwrap();
        assert!(raw == again, "the typed round trip changed results.json");
        // And the typed values survive their own round trip.
        let back: Results = serde_json::from_value(again).unwrap();
        assert_eq!(back, typed);
    }
}
