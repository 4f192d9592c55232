//! The shape of results.json (schema_version 1). Everything a figure in the
//! summary comes from is here, raw: every probe request, every recv-time
//! series bin, every tcp_info sample, every qdisc readback with its bytes.

use serde::Serialize;
use serde_json::Value;

use crate::config::CompareConfig;

/// Version of the results.json shape; a change of shape bumps it.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole results file.
#[derive(Debug, Serialize)]
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

/// Tool name and version.
#[derive(Debug, Serialize)]
pub struct Tool {
    /// `netlab`.
    pub name: &'static str,
    /// Crate version.
    pub version: &'static str,
}

/// Which kernel ran, and how.
#[derive(Debug, Clone, Serialize)]
pub struct KernelInfo {
    /// `host` or `uml`.
    pub mode: String,
    /// `uname -r` of the kernel that ran the experiment.
    pub release: String,
    /// Why this kernel was chosen (auto mode explains itself).
    pub chosen_because: String,
}

/// A netlink request as sent, with the equivalent tc command line.
#[derive(Debug, Clone, Serialize)]
pub struct RequestRecord {
    /// A command line a person can paste (inside R's namespace).
    pub tc_argv: Vec<String>,
    /// The same, prefixed to run from the host (`ip netns exec <R> tc …`).
    pub tc_argv_from_host: Vec<String>,
    /// The raw netlink request, hex.
    pub netlink_hex: String,
}

/// Qdisc configuration and readbacks of one scenario.
#[derive(Debug, Default, Serialize)]
pub struct QdiscResult {
    /// Interface (in R) that carries the bottleneck.
    pub dev: String,
    /// Requests, in order.
    pub requests: Vec<RequestRecord>,
    /// Readback right after configuration.
    pub after_config: Vec<Value>,
    /// The whole dump behind `after_config` (raw hex, tick factors), to re-decode later.
    pub after_config_dump: Option<Value>,
    /// Readback at the end of the measured window, before any socket closed.
    #[serde(rename = "final")]
    pub final_: Vec<Value>,
    /// The whole dump behind `final`.
    pub final_dump: Option<Value>,
    /// When the final readback was taken (s from t0).
    pub final_taken_s: Option<f64>,
    /// Periodic readbacks: backlog over time.
    pub samples: Vec<Value>,
}

/// TCP load results.
#[derive(Debug, Serialize)]
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
    pub receiver_log: Value,
}

/// Receiver figures.
#[derive(Debug, Serialize)]
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
#[derive(Debug, Serialize)]
pub struct SenderSummary {
    /// Bytes the local socket accepted: local socket input, NOT delivered bytes.
    pub accepted_bytes: u64,
    /// How the sender ended (a close at the common end is not an outage).
    pub termination: Value,
    /// When it ended (s from t0).
    pub end_s: f64,
}

/// Probe results.
#[derive(Debug, Serialize)]
pub struct ProbeResult {
    /// Every request.
    pub requests: Vec<Value>,
    /// Replies discarded as stale (for an earlier, timed-out request).
    pub stale_replies: u64,
    /// Malformed replies discarded.
    pub malformed_replies: u64,
    /// Receive errors.
    pub recv_errors: u64,
    /// Per-phase statistics.
    pub phases: ProbePhases,
    /// Probe configuration.
    pub config: Value,
}

/// Baseline and loaded statistics.
#[derive(Debug, Serialize)]
pub struct ProbePhases {
    /// 0 to the sender start.
    pub baseline: Value,
    /// The measured window (sends stop 1 s before its end).
    pub loaded: Value,
    /// Warm-up and anything else, for completeness.
    pub other: Vec<Value>,
}

/// Cleanup of one scenario.
#[derive(Debug, Default, Serialize)]
pub struct CleanupResult {
    /// One receipt per teardown step.
    pub receipts: Vec<Value>,
    /// Namespaces confirmed deleted.
    pub namespaces_deleted: Vec<String>,
}

/// One scenario.
#[derive(Debug, Default, Serialize)]
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
    pub topology: Option<Value>,
    /// Qdisc requests and readbacks.
    pub qdisc: QdiscResult,
    /// TCP load.
    pub tcp: Option<TcpResult>,
    /// Sender tcp_info samples (kernel data, flat).
    pub tcp_info: Vec<Value>,
    /// tcp_info sampler bookkeeping (misses, errors, end).
    pub tcp_info_sampler: Option<Value>,
    /// UDP echo probe.
    pub probe: Option<ProbeResult>,
    /// ECN evidence on the wire.
    pub ecn: Option<Value>,
    /// Cleanup receipts.
    pub cleanup: CleanupResult,
    /// Scenario wall time, s.
    pub elapsed_s: f64,
    /// Null, or the cause of the failure.
    pub error: Option<String>,
}
