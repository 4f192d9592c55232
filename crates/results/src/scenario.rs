//! One scenario: its sweep point, topology, qdiscs, flows, probes, ECN
//! evidence and cleanup, each raw (every probe request, every recv, every
//! tcp_info sample, every readback with its bytes).

use crate::fate::{EchoArrivals, ProbeFates};
use netlab_ecn::pcap::PcapFileRecord;
use netlab_ecn::EcnEvidence;
use netlab_probe::{
    EchoStats, IsoLog, IsoPhaseStats, IsoWindowStats, PhaseStats, ProbeConfig, ProbeRequest,
};
use netlab_receipts::CleanupReceipt;
use netlab_tcpload::record::{FlowId, SamplerEnd};
use netlab_tcpload::{ReceiverLog, Termination};
use netlab_topology::{SysctlReadback, TopologyReadback, TopologySpec};
use serde::{Deserialize, Serialize};

use crate::qdiscs::QdiscResult;
use netlab_tcpload::record::TcpSample;

/// Where and when one scenario ran: a merged result keeps it for
/// every scenario, so figures never pool machines silently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RanOn {
    /// The machine's hostname.
    pub hostname: String,
    /// `uname -r` of the kernel that ran the scenario.
    pub kernel_release: String,
    /// The CPU's model name (`/proc/cpuinfo`), or `unknown`.
    pub cpu_model: String,
    /// The netlab version that ran it.
    pub netlab_version: String,
    /// When the scenario started, UTC (RFC 3339).
    pub started_utc: String,
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
    pub receiver_log: ReceiverLog<EchoStats>,
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
    /// `stop-and-wait` or `isochronous`.
    #[serde(default)]
    pub kind: String,
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
    /// What B's echo received of this probe: each request's seq and receive
    /// time (absent in results written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo_arrivals: Option<EchoArrivals>,
    /// Every request's fate (method §5.8; absent without B's log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fates: Option<ProbeFates>,
}

/// The isochronous probe, beside the stop-and-wait probe: its
/// whole log (every slot, with up/down one-way delays and B's turnaround),
/// its per-phase and per-window (1 s of due time) statistics, and what B's
/// stamping echo saw. Additive to schema 2: absent when no isochronous
/// probe ran, so older files read unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsoProbeResult {
    /// `isochronous`.
    pub kind: String,
    /// Why up/down are exact here: A and B are network namespaces of one
    /// kernel and read the same CLOCK_MONOTONIC, so no clock
    /// synchronisation is involved (the log's `one_way_note` says it too).
    pub one_way_delays_exact: bool,
    /// Per phase (baseline, warm-up, loaded, …), censoring-aware.
    pub phases: Vec<IsoPhaseStats>,
    /// Per window of due time (the log's `config.window`, 1 s).
    pub windows: Vec<IsoWindowStats>,
    /// Every slot, the configuration, reply counters, the one-way note.
    pub log: IsoLog,
    /// What B's stamping echo saw.
    #[serde(default)]
    pub echo: Option<EchoStats>,
    /// B's stamping echo stopped on this error, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo_error: Option<String>,
    /// What B's echo received of this probe: each slot's seq and receive
    /// time (absent in results written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo_arrivals: Option<EchoArrivals>,
    /// Every slot's fate (method §5.8; absent without B's log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fates: Option<ProbeFates>,
}

impl IsoProbeResult {
    /// The result of one run of the isochronous probe.
    pub fn of(log: IsoLog, echo: Option<EchoStats>, echo_error: Option<String>) -> Self {
        IsoProbeResult {
            kind: "isochronous".into(),
            one_way_delays_exact: log.one_way_delays
                == netlab_probe::OneWayDelays::ExactSharedClock,
            phases: log.phase_stats(),
            windows: log.window_stats(),
            log,
            echo,
            echo_error,
            echo_arrivals: None,
            fates: None,
        }
    }

    /// The statistics of one phase.
    pub fn phase(&self, phase: netlab_probe::Phase) -> Option<&IsoPhaseStats> {
        self.phases.iter().find(|p| p.phase == phase)
    }
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

/// ECN evidence on the wire: what the capture saw, with a flat alias of the
/// kernel's drop count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EcnResult {
    /// What the capture saw (flattened: this field's name is not in
    /// results.json).
    #[serde(flatten)]
    pub evidence: EcnEvidence,
    /// `kernel.drops` (PACKET_STATISTICS), flat.
    pub kernel_drops: Option<u64>,
    /// The evidence pcapng (the kept frames), as written (method §7.7);
    /// absent in results written before netlab wrote packet files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_pcap: Option<PcapFileRecord>,
    /// The headers pcapng (every frame read), when one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers_pcap: Option<PcapFileRecord>,
}

impl EcnResult {
    /// The packet files of the scenario, evidence first.
    pub fn pcap_files(&self) -> impl Iterator<Item = &PcapFileRecord> {
        self.evidence_pcap.iter().chain(self.headers_pcap.iter())
    }
}

impl From<EcnEvidence> for EcnResult {
    fn from(evidence: EcnEvidence) -> EcnResult {
        EcnResult {
            kernel_drops: evidence.kernel.map(|k| k.drops),
            evidence,
            evidence_pcap: None,
            headers_pcap: None,
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

/// The sweep point of a scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// 1-based position in the grid.
    pub index: u32,
    /// `rate=5mbit base_rtt=20ms`, or `default` without a sweep.
    pub label: String,
    /// Each axis value, as `axis=value`.
    pub values: Vec<String>,
}

/// One TCP flow of a scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FlowResult {
    /// 0-based index in the scenario's flow list.
    pub index: usize,
    /// `up` (A sends to B) or `down` (B sends to A).
    pub direction: String,
    /// Requested congestion control.
    pub cc: String,
    /// ECN at the sender's end.
    pub ecn: bool,
    /// TCP port (the receiver listens on it).
    pub port: u16,
    /// Planned start, s from t0.
    pub start_s: f64,
    /// Planned stop, s from t0 (None: until the end).
    pub stop_s: Option<f64>,
    /// Offset of this flow's receiver clock from the scenario's t0, s: 0
    /// now that every receiver is timed from t0; runs before December 2026
    /// counted from each receiver's bind, and their recv times are shifted
    /// by it before the window is applied.
    pub receiver_t0_offset_s: f64,
    /// Goodput, series, both sides' figures.
    pub tcp: Option<TcpResult>,
    /// Sender tcp_info samples (kernel data, flat).
    #[serde(with = "crate::tcp_info")]
    pub tcp_info: Vec<TcpSample>,
    /// tcp_info sampler bookkeeping.
    pub tcp_info_sampler: Option<TcpInfoSamplerResult>,
    /// Null, or why this flow failed.
    pub error: Option<String>,
    /// The `[[hosts]]` name of the host at A's end (docs/method.md §1.7);
    /// absent without `[[hosts]]` and in results written before hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// One direction's flows together.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DirectionResult {
    /// `up` or `down`.
    pub direction: String,
    /// Number of flows.
    pub flows: usize,
    /// Shaped rate of the direction, Mbit/s (None: unshaped).
    pub rate_mbps: Option<f64>,
    /// Sum of the flows' goodputs, Mbit/s (None if any flow has none).
    pub goodput_mbps: Option<f64>,
    /// Jain's fairness index over the flows' goodputs (None without them).
    pub fairness: Option<f64>,
}

/// Aggregate and fairness of each direction that has flows (up first).
pub fn directions_of(
    flows: &[FlowResult],
    rate_mbps: impl Fn(&str) -> Option<f64>,
) -> Vec<DirectionResult> {
    ["up", "down"]
        .iter()
        .filter_map(|dir| {
            let of: Vec<&FlowResult> = flows.iter().filter(|f| f.direction == *dir).collect();
            if of.is_empty() {
                return None;
            }
            let goodputs: Option<Vec<f64>> = of
                .iter()
                .map(|f| f.tcp.as_ref().and_then(|t| t.goodput_mbps))
                .collect();
            Some(DirectionResult {
                direction: dir.to_string(),
                flows: of.len(),
                rate_mbps: rate_mbps(dir),
                goodput_mbps: goodputs.as_ref().map(|g| g.iter().sum()),
                fairness: goodputs.as_deref().and_then(netlab_stats::jain_index),
            })
        })
        .collect()
}

/// One scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// 1-based position in execution order.
    pub index: u32,
    /// Round.
    pub round: u32,
    /// The sweep point.
    pub point: PointResult,
    /// Seed of this scenario's randomness.
    pub seed: u64,
    /// Arm kind.
    pub arm: String,
    /// The arm in tc words.
    pub arm_words: String,
    /// Namespaces of this scenario.
    pub namespaces: Vec<String>,
    /// t0 (B's first receiver), UTC.
    pub t0_utc: Option<String>,
    /// Topology as built and read back.
    pub topology: Option<TopologyResult>,
    /// Qdisc requests and readbacks, one per R egress that has any (up first).
    pub qdiscs: Vec<QdiscResult>,
    /// Every TCP flow.
    pub flows: Vec<FlowResult>,
    /// Per direction: aggregate goodput and fairness.
    pub directions: Vec<DirectionResult>,
    /// The latency probes.
    pub probes: Vec<ProbeResult>,
    /// The isochronous probe, when one ran (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iso_probe: Option<IsoProbeResult>,
    /// What B's UDP echo saw.
    pub echo: Option<EchoStats>,
    /// Index of the flow the ECN capture follows (the first upload).
    pub ecn_flow: Option<usize>,
    /// ECN evidence on the wire.
    pub ecn: Option<EcnResult>,
    /// Cleanup receipts.
    pub cleanup: CleanupResult,
    /// Scenario wall time, s.
    pub elapsed_s: f64,
    /// Null, or the cause of the failure.
    pub error: Option<String>,
    /// File descriptors open in the process that ran the scenario, just
    /// before it started and just after its cleanup (a leak shows as growth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_fds: Option<[usize; 2]>,
    /// Where and when it ran (absent in files written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran_on: Option<RanOn>,
    /// Was the shaper the bottleneck? Per direction, with its evidence and
    /// the CPU the window used (docs/method.md §14.2; absent in files
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<crate::Bottleneck>,
    /// The sender hosts (docs/method.md §1.7): each one's name, address,
    /// base RTT and the netem on its link as read back. Empty (and not
    /// written) without `[[hosts]]`; results written before it read empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<crate::HostResult>,
    /// Each direction whose rate followed a schedule (docs/method.md
    /// §15): its changes, the TBF's counters and sent bytes beside the
    /// schedule per bin. Empty (and not written) without a schedule;
    /// results written before it read empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<crate::LinkResult>,
    /// How long each step before t0 and after the timeline took
    /// (docs/method.md §3.5; absent in files written before schema 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<crate::ScenarioSteps>,
}

impl ScenarioResult {
    /// The qdiscs of one direction's egress.
    pub fn qdisc_of(&self, direction: &str) -> Option<&QdiscResult> {
        self.qdiscs.iter().find(|q| q.direction == direction)
    }

    /// The stop-and-wait probe, if it ran.
    pub fn probe(&self) -> Option<&ProbeResult> {
        self.probes.first()
    }
}
