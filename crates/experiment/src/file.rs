//! The experiment file as written: TOML tables and strings with units
//! (`"3s"`, `"5mbit"`, `"16kb"`), every key optional where a default exists.
//! Unknown keys are refused (`deny_unknown_fields`) so a typo never silently
//! falls back to a default.
//!
//! [`crate::Experiment::to_file`] writes the fully resolved form back, with
//! every default spelled out, so `--print-experiment` shows what runs.

use serde::{Deserialize, Serialize};

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentFile {
    /// A short name (results folders and titles carry it).
    pub name: Option<String>,
    /// What the experiment shows, in a sentence or two.
    pub description: Option<String>,
    /// Rounds: every sweep point runs every arm this many times.
    pub rounds: Option<u32>,
    /// `auto`, `host`, `uml` or `uml-6.12`.
    pub kernel: Option<String>,
    /// Seed of everything random in the run (netem jitter/loss, bootstrap).
    pub seed: Option<u64>,
    /// Arms in tc words, in the order they run within a round.
    pub arms: Option<Vec<String>>,
    /// Phases of each scenario.
    pub timeline: Option<TimelineFile>,
    /// The bottleneck(s) and the base RTT.
    pub path: Option<PathFile>,
    /// Sender hosts behind R (docs/method.md §1.7); absent means the
    /// seed's one sender A. Left out of results.json and the printed file
    /// when absent, so the content hash of a file without it is unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<Vec<crate::hosts::HostFile>>,
    /// TCP flows; absent means the method's single Reno upload.
    pub flows: Option<Vec<FlowFile>>,
    /// Latency probes; absent means the stop-and-wait probe.
    pub probes: Option<Vec<ProbeFile>>,
    /// tcp_info and qdisc sampling.
    pub sampling: Option<SamplingFile>,
    /// The ECN capture on B.
    pub capture: Option<CaptureFile>,
    /// Lists of values that multiply into a grid of points.
    pub sweep: Option<SweepFile>,
    /// What the report draws beside the measurement. Absent from
    /// results.json written before models existed, and left out of it
    /// (and of the printed file) when no model is named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportFile>,
}

/// `[report]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportFile {
    /// Models drawn beside the measurement: `"fifo_bound"`,
    /// `"sparse_flow"` (docs/models.md).
    pub models: Option<Vec<String>>,
}

/// `[timeline]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelineFile {
    /// Probe-only phase.
    pub baseline: Option<String>,
    /// Load before the measured window.
    pub warmup: Option<String>,
    /// The measured window.
    pub measure: Option<String>,
}

/// `[path]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathFile {
    /// Round-trip delay added by netem on R's non-bottleneck side.
    pub base_rtt: Option<String>,
    /// netem jitter (split like the delay); off by default.
    pub jitter: Option<String>,
    /// netem random loss in percent, per direction; off by default.
    pub loss_percent: Option<f64>,
    /// How A and B start their TCP receive buffers: "kernel" (default:
    /// tcp_rmem untouched) or "max" (opt-in: its default raised to its max).
    pub receive_buffer: Option<String>,
    /// The veths' segmentation and receive offloads: "kernel" (default: as
    /// the kernel leaves them) or "off" (GSO, TSO, GRO, LRO and the UDP
    /// ones off on every veth end). Printed back only when not "kernel",
    /// so the content hash of a file without it does not change.
    pub offloads: Option<String>,
    /// MTU of every link (default 1500, the kernel's for a veth). Printed
    /// back only when not 1500, for the same reason.
    pub mtu: Option<u32>,
    /// Upload bottleneck: R's egress toward B.
    pub up: Option<ShaperFile>,
    /// Download bottleneck: R's egress toward A.
    pub down: Option<ShaperFile>,
}

/// `[path.up]` / `[path.down]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShaperFile {
    /// `false` leaves this direction unshaped (no TBF, no arm).
    pub shaped: Option<bool>,
    /// TBF rate, e.g. `"5mbit"`.
    pub rate: Option<String>,
    /// TBF burst, e.g. `"16kb"`.
    pub burst: Option<String>,
    /// TBF limit, e.g. `"64kb"`.
    pub limit: Option<String>,
    /// The rate over time: `[["0s", "10mbit"], ["8s", "2mbit"]]`, times
    /// from t0, `"0"` an outage (docs/method.md §15). Left out when absent,
    /// as are the four keys below, so the content hash of a file without
    /// them does not change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<Vec<[String; 2]>>,
    /// The schedule repeats with this period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_every: Option<String>,
    /// A recorded trace (one millisecond timestamp per delivery
    /// opportunity), read relative to the experiment file's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// The bin a trace is turned into rates over (default 100ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_bin: Option<String>,
    /// SHA-256 of the trace file; netlab prints it with the trace's rates
    /// so the printed form reads back without the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_sha256: Option<String>,
}

/// `[[flows]]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowFile {
    /// `up` (A sends to B) or `down` (B sends to A).
    pub direction: Option<String>,
    /// Congestion control of the sender.
    pub cc: Option<String>,
    /// ECN on this flow (the `tcp_ecn` sysctl of its sender's end).
    pub ecn: Option<bool>,
    /// Start offset inside the load phase.
    pub start: Option<String>,
    /// Stop offset inside the load phase (absent: until the end).
    pub stop: Option<String>,
    /// TCP port (absent: the next free one from 46020).
    pub port: Option<u16>,
    /// Sender write size in bytes.
    pub block_size: Option<u32>,
    /// The `[[hosts]]` name of the host at A's end of this flow (absent:
    /// the first host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// `[[probes]]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeFile {
    /// `stop-and-wait` or `isochronous`.
    pub kind: Option<String>,
    /// UDP port of its echo.
    pub port: Option<u16>,
    /// Spacing between requests.
    pub interval: Option<String>,
    /// No reply within this is a timeout (censored).
    pub timeout: Option<String>,
    /// Request cap (stop-and-wait only).
    pub max_requests: Option<u32>,
    /// UDP payload of each request, bytes (stop-and-wait: at least 4, the
    /// default; isochronous: at least 40, the default). Printed back only
    /// when not the default, so the content hash of a file without it does
    /// not change.
    pub size: Option<u32>,
    /// The `[[hosts]]` name of the host the probe runs from (absent: the
    /// first host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// `[sampling]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SamplingFile {
    /// tcp_info and qdisc sampling interval.
    pub interval: Option<String>,
}

/// `[capture]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureFile {
    /// Frame cap.
    pub frames: Option<u64>,
    /// Deadline from the capture's start.
    pub deadline: Option<String>,
    /// `off` or `headers`: every frame's headers to a pcapng file too.
    pub pcap: Option<String>,
    /// Bytes of each frame kept in the headers file (≥ 94, default 128).
    pub snap_len: Option<u32>,
    /// Byte cap of the headers file per scenario.
    pub pcap_max_bytes: Option<u64>,
}

/// `[sweep]`: each present list is one axis of the grid.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepFile {
    /// Upload bottleneck rates.
    pub rate: Option<Vec<String>>,
    /// Download bottleneck rates.
    pub down_rate: Option<Vec<String>>,
    /// Base RTTs.
    pub base_rtt: Option<Vec<String>>,
    /// Offload choices (`"kernel"`, `"off"`).
    pub offloads: Option<Vec<String>>,
    /// MTUs of every link.
    pub mtu: Option<Vec<u32>>,
    /// Copies of every declared flow (1 = as declared).
    pub flows: Option<Vec<u32>>,
    /// Congestion control of every flow.
    pub cc: Option<Vec<String>>,
    /// Spacings of the stop-and-wait probe (`"200ms"`).
    pub stop_and_wait_interval: Option<Vec<String>>,
    /// Request sizes of the stop-and-wait probe, UDP payload bytes.
    pub stop_and_wait_size: Option<Vec<u32>>,
    /// Intervals of the isochronous probe (`"20ms"`).
    pub isochronous_interval: Option<Vec<String>>,
    /// Request sizes of the isochronous probe, UDP payload bytes.
    pub isochronous_size: Option<Vec<u32>>,
    /// Values of one arm word, for the arms of one kind.
    pub arm: Option<Vec<ArmWordSweepFile>>,
    /// Buffer depths in BDPs of the point's upload rate and base RTT: the
    /// packet limit of every arm that has one (pfifo, codel, fq_codel,
    /// pie; bfifo's in bytes), resolved per point.
    pub buffer_bdp: Option<Vec<f64>>,
    /// Copies of the declared flows of one congestion control, per cc:
    /// `cubic = [1, 4]` runs 1, then 4, of each declared CUBIC flow.
    pub flows_by_cc: Option<std::collections::BTreeMap<String, Vec<u32>>>,
}

/// `[[sweep.arm]]`: e.g. `kind = "fq_codel"`, `word = "target"`, `values = ["5ms", "10ms"]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmWordSweepFile {
    /// Qdisc kind whose arms take the word.
    pub kind: String,
    /// The tc word (an option that takes a value).
    pub word: String,
    /// Its values, in tc's spelling.
    pub values: Vec<String>,
}
