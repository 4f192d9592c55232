//! The resolved experiment: every default filled in, every value typed and
//! checked. Built by [`crate::parse`] (or [`Experiment::default`], the
//! method's experiment) and written back by [`Experiment::to_file`].

use std::time::Duration;

use netlab_qdisc_model::{Arm, Rate, Size, Tbf};

/// How A and B start their TCP receive buffers (`[path] receive_buffer`:
/// `"kernel"` or `"max"`): the one type the topology builds from too.
pub use netlab_path_settings::ReceiveBuffer;
/// The veths' offloads (`[path] offloads`: `"kernel"` or `"off"`) and the
/// links' MTU bounds: the types the topology builds from too.
pub use netlab_path_settings::{check_mtu, Offloads, DEFAULT_MTU, LINK_HEADER};

use crate::units::format_duration;
use netlab_path_settings::{DEFAULT_ISO_PROBE_PORT, DEFAULT_PROBE_PORT, DEFAULT_TCP_PORT};

/// The arms of the method's experiment (docs/method.md §2).
pub const DEFAULT_ARMS: [&str; 2] = [
    "pfifo limit 256",
    "fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn",
];
/// Ports given to flows without one (after the first) start here.
pub const AUTO_PORT_BASE: u16 = 46100;
/// Default sender write size.
pub const DEFAULT_BLOCK_SIZE: u32 = 131072;

/// Which kernel runs the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KernelChoice {
    /// The host kernel if it has everything needed, else the guest.
    #[default]
    Auto,
    /// The running kernel; refused when it lacks something.
    Host,
    /// Always the pinned user-mode-linux guest (Debian's package).
    Uml,
    /// The user-mode-linux 6.12 guest netlab builds from Debian's
    /// `linux-source-6.12` (`orchestrator kernel build uml-6.12`).
    Uml612,
}

impl KernelChoice {
    /// The words [`KernelChoice::parse`] reads, as a refusal lists them.
    pub const WORDS: &'static str = "auto, host, uml or uml-6.12";

    /// The word used in files and flags.
    pub fn as_str(self) -> &'static str {
        match self {
            KernelChoice::Auto => "auto",
            KernelChoice::Host => "host",
            KernelChoice::Uml => "uml",
            KernelChoice::Uml612 => "uml-6.12",
        }
    }

    /// The guest kernel it names (`uml`, `uml-6.12`); `None` for `auto`
    /// and `host`.
    pub fn guest_name(self) -> Option<&'static str> {
        match self {
            KernelChoice::Auto | KernelChoice::Host => None,
            KernelChoice::Uml | KernelChoice::Uml612 => Some(self.as_str()),
        }
    }

    /// Reads `auto`, `host`, `uml` or `uml-6.12`.
    pub fn parse(text: &str) -> Option<KernelChoice> {
        match text {
            "auto" => Some(KernelChoice::Auto),
            "host" => Some(KernelChoice::Host),
            "uml" => Some(KernelChoice::Uml),
            "uml-6.12" => Some(KernelChoice::Uml612),
            _ => None,
        }
    }
}

/// The phases of one scenario, measured from t0 (docs/method.md §3).
/// Written as seconds: `{"baseline": 3.0, "warmup": 3.0, "measure": 12.0}`
/// (the shape a version 1 results.json recorded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "TimelineSecs", into = "TimelineSecs")]
pub struct Timeline {
    /// Probe-only phase `[0, baseline)`; the senders start at its end.
    pub baseline: Duration,
    /// Load before the measured window, excluded from goodput.
    pub warmup: Duration,
    /// The measured load window.
    pub measure: Duration,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline {
            baseline: Duration::from_secs(3),
            warmup: Duration::from_secs(3),
            measure: Duration::from_secs(12),
        }
    }
}

impl Timeline {
    /// Start of the load phase (senders start here).
    pub fn load_start(&self) -> Duration {
        self.baseline
    }
    /// Start of the measured window.
    pub fn window_start(&self) -> Duration {
        self.baseline + self.warmup
    }
    /// End of the measured window; the receivers close here.
    pub fn end(&self) -> Duration {
        self.baseline + self.warmup + self.measure
    }
    /// Length of the load phase (warm-up + measured window).
    pub fn load_len(&self) -> Duration {
        self.warmup + self.measure
    }
}

/// [`Timeline`]'s serde form: each phase as seconds.
#[derive(serde::Serialize, serde::Deserialize)]
struct TimelineSecs {
    baseline: f64,
    warmup: f64,
    measure: f64,
}

impl From<Timeline> for TimelineSecs {
    fn from(t: Timeline) -> Self {
        TimelineSecs {
            baseline: t.baseline.as_secs_f64(),
            warmup: t.warmup.as_secs_f64(),
            measure: t.measure.as_secs_f64(),
        }
    }
}

impl TryFrom<TimelineSecs> for Timeline {
    type Error = std::time::TryFromFloatSecsError;
    fn try_from(t: TimelineSecs) -> Result<Self, Self::Error> {
        Ok(Timeline {
            baseline: Duration::try_from_secs_f64(t.baseline)?,
            warmup: Duration::try_from_secs_f64(t.warmup)?,
            measure: Duration::try_from_secs_f64(t.measure)?,
        })
    }
}

/// Direction of a flow or a bottleneck.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// A sends to B through R's egress toward B.
    Up,
    /// B sends to A through R's egress toward A.
    Down,
}

impl Direction {
    /// `up` or `down`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
        }
    }
}

/// The path between A and B.
#[derive(Debug, Clone, PartialEq)]
pub struct PathSpec {
    /// Round-trip delay added by netem: half at the root of each of R's two
    /// egresses, with the direction's TBF and arm below it (docs/method.md
    /// §11.2), so packets wait their delay before they reach the measured
    /// queue.
    pub base_rtt: Duration,
    /// netem jitter, split like the delay.
    pub jitter: Duration,
    /// netem random loss, percent per direction.
    pub loss_percent: f64,
    /// How the receiving ends start their TCP receive buffers
    /// (docs/method.md §1.3).
    pub receive_buffer: ReceiveBuffer,
    /// The veths' segmentation and receive offloads (docs/method.md §1.6).
    pub offloads: Offloads,
    /// MTU of every link of A–R–B (docs/method.md §1.6).
    pub mtu: u32,
    /// Upload bottleneck (R's egress toward B); `None` = unshaped.
    pub up: Option<Tbf>,
    /// Download bottleneck (R's egress toward A); `None` = unshaped.
    pub down: Option<Tbf>,
    /// The upload bottleneck's rate over time, when it moves
    /// (docs/method.md §15); `up`'s rate is its rate at t0.
    pub up_schedule: Option<crate::link::RateSchedule>,
    /// The download bottleneck's rate over time, when it moves.
    pub down_schedule: Option<crate::link::RateSchedule>,
}

impl Default for PathSpec {
    fn default() -> Self {
        PathSpec {
            base_rtt: Duration::ZERO,
            jitter: Duration::ZERO,
            loss_percent: 0.0,
            receive_buffer: ReceiveBuffer::Kernel,
            offloads: Offloads::Kernel,
            mtu: DEFAULT_MTU,
            up: Some(default_tbf()),
            down: None,
            up_schedule: None,
            down_schedule: None,
        }
    }
}

impl PathSpec {
    /// Whether netem is needed (any delay, jitter or loss).
    pub fn needs_netem(&self) -> bool {
        !self.base_rtt.is_zero() || !self.jitter.is_zero() || self.loss_percent > 0.0
    }

    /// The bottleneck of one direction.
    pub fn shaper(&self, dir: Direction) -> Option<&Tbf> {
        match dir {
            Direction::Up => self.up.as_ref(),
            Direction::Down => self.down.as_ref(),
        }
    }

    /// The rate schedule of one direction, when its rate moves.
    pub fn schedule(&self, dir: Direction) -> Option<&crate::link::RateSchedule> {
        match dir {
            Direction::Up => self.up_schedule.as_ref(),
            Direction::Down => self.down_schedule.as_ref(),
        }
    }
}

/// The method's bottleneck: `tbf rate 5mbit burst 16kb limit 64kb`.
pub fn default_tbf() -> Tbf {
    Tbf {
        rate: Rate(5_000_000),
        burst: Size(16 * 1024),
        limit: Size(64 * 1024),
    }
}

/// One arm: the words as given and what they parse to.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmSpec {
    /// tc words, e.g. `fq_codel limit 256 target 5ms interval 100ms ecn`.
    pub words: String,
    /// The parsed arm.
    pub arm: Arm,
}

impl ArmSpec {
    /// Parses tc words.
    pub fn parse(words: &str) -> Result<ArmSpec, netlab_qdisc_model::ModelError> {
        let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
        Ok(ArmSpec {
            arm: Arm::parse(&words)?,
            words,
        })
    }
}

/// One TCP flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowSpec {
    /// Who sends.
    pub direction: Direction,
    /// Congestion control of the sender.
    pub cc: String,
    /// ECN (`tcp_ecn=1`) at the sender's end.
    pub ecn: bool,
    /// Start offset from the load phase's start.
    pub start: Duration,
    /// Stop offset from the load phase's start; `None` = until the end.
    pub stop: Option<Duration>,
    /// TCP port (the receiver listens on it).
    pub port: u16,
    /// Sender write size.
    pub block_size: u32,
    /// Index into the experiment's `hosts` of the host at A's end (0: the
    /// first host, the seed's A).
    pub host: usize,
}

impl Default for FlowSpec {
    fn default() -> Self {
        FlowSpec {
            direction: Direction::Up,
            cc: "reno".to_string(),
            ecn: true,
            start: Duration::ZERO,
            stop: None,
            port: DEFAULT_TCP_PORT,
            block_size: DEFAULT_BLOCK_SIZE,
            host: 0,
        }
    }
}

/// Which probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProbeKind {
    /// One request outstanding (docs/method.md §5).
    StopAndWait,
    /// A request every interval on a fixed schedule.
    Isochronous,
}

impl ProbeKind {
    /// `stop-and-wait` or `isochronous`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeKind::StopAndWait => "stop-and-wait",
            ProbeKind::Isochronous => "isochronous",
        }
    }

    /// The prefix of this probe's sweep keys and axis labels
    /// (`stop_and_wait_interval`, `isochronous_size`).
    pub fn axis_prefix(self) -> &'static str {
        match self {
            ProbeKind::StopAndWait => "stop_and_wait",
            ProbeKind::Isochronous => "isochronous",
        }
    }
}

/// Smallest probe spacing either probe takes (netlab-probe's
/// `iso::MIN_INTERVAL`; the same, tested in netlab-run).
pub const MIN_PROBE_INTERVAL: Duration = Duration::from_millis(1);
/// Most slots one isochronous probe may schedule (netlab-probe's
/// `iso::MAX_SLOTS`; the same, tested in netlab-run).
pub const MAX_ISO_SLOTS: u64 = 1_000_000;
/// Smallest (and default) stop-and-wait request: its 4-byte sequence
/// number (netlab-probe's `wire::PLAIN_LEN`; the same, tested in netlab-run).
pub const MIN_STOP_AND_WAIT_SIZE: u32 = 4;
/// Smallest (and default) isochronous request: its 40-byte stamped header
/// (netlab-probe's `wire::STAMPED_LEN`; the same, tested in netlab-run).
pub const MIN_ISOCHRONOUS_SIZE: u32 = 40;
/// IPv4 (20, no options, as netlab sends) and UDP (8) headers around a
/// probe's payload: a payload of `MTU − 28` bytes is the largest that
/// leaves A unfragmented.
pub const IPV4_UDP_HEADERS: u32 = 28;

/// One latency probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeSpec {
    /// Which probe.
    pub kind: ProbeKind,
    /// UDP port of its echo in B.
    pub port: u16,
    /// Spacing between requests.
    pub interval: Duration,
    /// No reply within this: a timeout, censored at this bound.
    pub timeout: Duration,
    /// Request cap (stop-and-wait).
    pub max_requests: Option<u32>,
    /// UDP payload of each request and its echo, bytes: the probe's own
    /// fields, zero-padded to this size (at least
    /// [`ProbeSpec::min_size`], at most the MTU less
    /// [`IPV4_UDP_HEADERS`]).
    pub size: u32,
    /// Index into the experiment's `hosts` of the host it runs from (0:
    /// the first host, the seed's A).
    pub host: usize,
}

impl ProbeSpec {
    /// The method's stop-and-wait probe.
    pub fn stop_and_wait() -> ProbeSpec {
        ProbeSpec {
            kind: ProbeKind::StopAndWait,
            port: DEFAULT_PROBE_PORT,
            interval: Duration::from_millis(200),
            timeout: Duration::from_secs(1),
            max_requests: Some(100),
            size: MIN_STOP_AND_WAIT_SIZE,
            host: 0,
        }
    }

    /// The isochronous probe with its defaults (20 ms).
    pub fn isochronous() -> ProbeSpec {
        ProbeSpec {
            kind: ProbeKind::Isochronous,
            port: DEFAULT_ISO_PROBE_PORT,
            interval: Duration::from_millis(20),
            timeout: Duration::from_secs(1),
            max_requests: None,
            size: MIN_ISOCHRONOUS_SIZE,
            host: 0,
        }
    }

    /// One request as the bottleneck counts it, bytes: its UDP payload,
    /// the UDP and IPv4 headers ([`IPV4_UDP_HEADERS`]) and the Ethernet
    /// header ([`LINK_HEADER`]); 82 for the isochronous probe's default.
    pub fn frame_bytes(&self) -> u32 {
        self.size + IPV4_UDP_HEADERS + LINK_HEADER
    }

    /// The most its requests take of the A→B link, bit/s: one frame every
    /// interval (the stop-and-wait probe never sends more often; the
    /// isochronous probe sends exactly that).
    pub fn max_rate_bps(&self) -> f64 {
        f64::from(self.frame_bytes()) * 8.0 / self.interval.as_secs_f64().max(1e-9)
    }

    /// The smallest request of this kind: its own fields (the default).
    pub fn min_size(kind: ProbeKind) -> u32 {
        match kind {
            ProbeKind::StopAndWait => MIN_STOP_AND_WAIT_SIZE,
            ProbeKind::Isochronous => MIN_ISOCHRONOUS_SIZE,
        }
    }
}

/// The ECN capture on B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureSpec {
    /// Frame cap.
    pub frames: u64,
    /// Deadline from the capture's start.
    pub deadline: Duration,
    /// Whether every frame's headers also go to a pcapng file (method §7.7).
    pub pcap: PcapMode,
    /// Bytes of each frame kept in that file.
    pub snap_len: u32,
    /// Byte cap of that file, per scenario.
    pub pcap_max_bytes: u64,
}

impl CaptureSpec {
    /// The method's capture: 50 000 frames, 25 s, no headers file (128-byte
    /// snap and a 32 MiB cap when one is asked for).
    pub const fn method() -> CaptureSpec {
        CaptureSpec {
            frames: 50_000,
            deadline: Duration::from_secs(25),
            pcap: PcapMode::Off,
            snap_len: DEFAULT_PCAP_SNAP_LEN,
            pcap_max_bytes: DEFAULT_PCAP_MAX_BYTES,
        }
    }
}

/// `[capture] pcap`: what of the capture goes to a pcapng file beside the
/// evidence file every scenario gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PcapMode {
    /// Only the evidence file.
    Off,
    /// Also every frame the capture reads, cut to the snap length.
    Headers,
}

impl PcapMode {
    /// The file's word.
    pub fn as_str(self) -> &'static str {
        match self {
            PcapMode::Off => "off",
            PcapMode::Headers => "headers",
        }
    }
}

/// Smallest snap length of the headers file: Ethernet (14) + IPv4 without
/// options (20, as netlab's paths send) + TCP with the most options (60).
pub const MIN_PCAP_SNAP_LEN: u32 = 14 + 20 + 60;
/// Largest snap length.
pub const MAX_PCAP_SNAP_LEN: u32 = 65_535;
/// Default snap length of the headers file.
pub const DEFAULT_PCAP_SNAP_LEN: u32 = 128;
/// Default byte cap of the headers file (32 MiB).
pub const DEFAULT_PCAP_MAX_BYTES: u64 = 32 << 20;
/// Smallest byte cap: the file's own blocks and a frame.
pub const MIN_PCAP_MAX_BYTES: u64 = 4096;

/// One value of one sweep axis.
#[derive(Debug, Clone, PartialEq)]
pub enum AxisValue {
    /// Upload bottleneck rate.
    Rate(netlab_qdisc_model::Rate),
    /// Download bottleneck rate.
    DownRate(netlab_qdisc_model::Rate),
    /// Base RTT.
    BaseRtt(Duration),
    /// The veths' offloads.
    Offloads(Offloads),
    /// MTU of every link.
    Mtu(u32),
    /// Copies of every declared flow.
    Flows(u32),
    /// Congestion control of every flow.
    Cc(String),
    /// Spacing of one probe's requests.
    ProbeInterval {
        /// Which probe.
        kind: ProbeKind,
        /// Its spacing.
        interval: Duration,
    },
    /// UDP payload of one probe's requests, bytes.
    ProbeSize {
        /// Which probe.
        kind: ProbeKind,
        /// Its size.
        size: u32,
    },
    /// The arms' buffer in BDPs of the point's upload rate and base RTT
    /// (docs/models.md, model 4).
    BufferBdp(f64),
    /// Copies of the declared flows of one congestion control.
    FlowsOfCc {
        /// The congestion control.
        cc: String,
        /// Copies of each of its declared flows.
        n: u32,
    },
    /// One arm word's value for the arms of one kind.
    ArmWord {
        /// Qdisc kind.
        kind: String,
        /// The word.
        word: String,
        /// Its value.
        value: String,
    },
}

impl AxisValue {
    /// `rate=5mbit`, `base_rtt=20ms`, `isochronous_interval=20ms`,
    /// `stop_and_wait_size=200` (bytes), `fq_codel.target=5ms`: the sweep
    /// key, then the value as the file writes it.
    pub fn label(&self) -> String {
        match self {
            AxisValue::Rate(r) => format!("rate={r}"),
            AxisValue::DownRate(r) => format!("down_rate={r}"),
            AxisValue::BaseRtt(d) => format!("base_rtt={}", format_duration(*d)),
            AxisValue::Offloads(o) => format!("offloads={}", o.file_word()),
            AxisValue::Mtu(m) => format!("mtu={m}"),
            AxisValue::Flows(n) => format!("flows={n}"),
            AxisValue::Cc(c) => format!("cc={c}"),
            AxisValue::ProbeInterval { kind, interval } => format!(
                "{}_interval={}",
                kind.axis_prefix(),
                format_duration(*interval)
            ),
            AxisValue::ProbeSize { kind, size } => format!("{}_size={size}", kind.axis_prefix()),
            AxisValue::ArmWord { kind, word, value } => format!("{kind}.{word}={value}"),
            AxisValue::BufferBdp(x) => format!("buffer_bdp={x}"),
            AxisValue::FlowsOfCc { cc, n } => format!("{cc}_flows={n}"),
        }
    }
}

/// The sweep: axes in a fixed order (rate, down_rate, base_rtt, offloads,
/// mtu, flows, cc, flows_by_cc's in cc order, stop_and_wait_interval,
/// stop_and_wait_size, isochronous_interval, isochronous_size, the arm
/// words in file order, then buffer_bdp); the last axis varies fastest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sweep {
    /// Each axis: its values in file order.
    pub axes: Vec<Vec<AxisValue>>,
}

/// A whole experiment, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    /// Short name.
    pub name: String,
    /// What it shows.
    pub description: String,
    /// Rounds per sweep point.
    pub rounds: u32,
    /// Kernel choice.
    pub kernel: KernelChoice,
    /// Seed of everything random (recorded in results).
    pub seed: u64,
    /// Arms, in order within a round.
    pub arms: Vec<ArmSpec>,
    /// Phases.
    pub timeline: Timeline,
    /// Path.
    pub path: PathSpec,
    /// Sender hosts (`[[hosts]]`, docs/method.md §1.7); empty: the seed's
    /// one sender A.
    pub hosts: Vec<crate::hosts::HostSpec>,
    /// Flows as declared (a sweep may copy them).
    pub flows: Vec<FlowSpec>,
    /// Probes.
    pub probes: Vec<ProbeSpec>,
    /// tcp_info and qdisc sampling interval.
    pub sample_interval: Duration,
    /// ECN capture.
    pub capture: CaptureSpec,
    /// Sweep axes.
    pub sweep: Sweep,
    /// Models the report draws beside the measurement (`[report] models`).
    pub models: Vec<crate::ModelKind>,
}

impl Default for Experiment {
    /// The method's experiment: what `orchestrator compare` runs with no flags.
    fn default() -> Self {
        Experiment {
            name: "seed".to_string(),
            description: Experiment::seed_description(true),
            rounds: 3,
            kernel: KernelChoice::Auto,
            seed: 1,
            arms: DEFAULT_ARMS
                .iter()
                .map(|w| ArmSpec::parse(w).expect("default arms parse"))
                .collect(),
            timeline: Timeline::default(),
            path: PathSpec::default(),
            hosts: Vec::new(),
            flows: vec![FlowSpec::default()],
            probes: vec![ProbeSpec::stop_and_wait(), ProbeSpec::isochronous()],
            sample_interval: Duration::from_millis(200),
            capture: CaptureSpec::method(),
            sweep: Sweep::default(),
            models: Vec::new(),
        }
    }
}

impl Experiment {
    /// The method's experiment's description, with or without the
    /// isochronous probe (`compare --iso-probe off`).
    pub fn seed_description(isochronous: bool) -> String {
        format!(
            "pfifo vs fq_codel behind a 5 Mbit/s TBF, one Reno upload, {} (docs/method.md)",
            if isochronous {
                "stop-and-wait and isochronous UDP probes"
            } else {
                "stop-and-wait UDP probe"
            }
        )
    }

    /// The default capture deadline for a timeline: 25 s, or the end of the
    /// scenario plus 7 s when that is later.
    pub fn default_capture_deadline(timeline: &Timeline) -> Duration {
        Duration::from_secs(25).max(timeline.end() + Duration::from_secs(7))
    }
}

/// The kinds whose `limit` word `buffer_bdp` sets, in packets (bfifo's
/// in bytes).
pub const BUFFER_KINDS: [&str; 5] = ["pfifo", "bfifo", "codel", "fq_codel", "pie"];

/// Sets `word value` in an arm's tc words: replaces the value after an
/// existing `word`, or appends `word value`.
pub fn set_arm_word(words: &str, word: &str, value: &str) -> String {
    let mut w: Vec<&str> = words.split_whitespace().collect();
    match w.iter().position(|x| *x == word) {
        Some(i) if i + 1 < w.len() => w[i + 1] = value,
        Some(_) => w.push(value),
        None => {
            w.push(word);
            w.push(value);
        }
    }
    w.join(" ")
}

/// The length of a full-size frame (MTU + the 14-byte Ethernet header)
/// when it exceeds a TBF's `burst`: TBF drops a packet longer than its
/// burst (`tbf_enqueue`: longer than `max_size` and not a GSO aggregate it
/// can split), so every such frame would be dropped. `None`: it fits.
pub fn frame_over_burst(mtu: u32, burst: Size) -> Option<u64> {
    let frame = u64::from(mtu) + u64::from(netlab_path_settings::LINK_HEADER);
    (frame > burst.0).then_some(frame)
}

/// An MTU every veth takes and every shaper of the path can pass
/// ([`frame_over_burst`]).
pub(crate) fn check_path_mtu(
    key: &str,
    mtu: u32,
    path: &PathSpec,
) -> Result<(), crate::ExperimentError> {
    netlab_path_settings::check_mtu(mtu).map_err(|reason| crate::check::err(key, reason))?;
    for (dir, tbf) in [("up", &path.up), ("down", &path.down)] {
        if let Some(t) = tbf {
            if let Some(frame) = frame_over_burst(mtu, t.burst) {
                return Err(crate::check::err(
                    key,
                    format!(
                        "a full-size frame of {frame} bytes (MTU {mtu} + 14) exceeds \
                         path.{dir}.burst ({}): TBF would drop every such packet",
                        t.burst
                    ),
                ));
            }
        }
    }
    Ok(())
}
