//! The report's own input: the samples the report draws and tests, reduced
//! from netlab-results' typed results by [`crate::ReportBuilder`] (not a copy of
//! the schema: one probe outcome per request, one series per flow, the
//! arm's counters, the page's configuration lines).

/// The resolution of a goodput difference: 1 % of the shaped rate (the
/// window's edges and the bins' rounding move a round's goodput by about
/// that much; method §12.9).
pub const GOODPUT_RESOLUTION: f64 = 0.01;

/// Which kernel ran, in words.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KernelText {
    /// `host` or `uml`.
    pub mode: String,
    /// `uname -r`.
    pub release: String,
    /// Why it was chosen.
    pub chosen_because: String,
    /// The kernel in one line: name, release and, where recorded, its
    /// source, configuration hash and compiler
    /// (`netlab_results::KernelInfo::describe`).
    pub described: String,
}

/// Phase boundaries of one scenario, s from t0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phases {
    /// Baseline (probe only): `[start, end)`.
    pub baseline: [f64; 2],
    /// Loaded (the measured window): `[start, end)`.
    pub loaded: [f64; 2],
    /// End of the scenario's timeline.
    pub end_s: f64,
}

impl Phases {
    /// Warm-up: from the end of baseline to the start of the loaded window.
    pub fn warmup(&self) -> [f64; 2] {
        [self.baseline[1], self.loaded[0]]
    }
}

/// Phase of a probe request, by its send time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProbePhase {
    /// Probe only.
    Baseline,
    /// Load start-up.
    Warmup,
    /// The measured window.
    Loaded,
    /// Anything else.
    Other,
}

/// What became of a probe request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProbeOutcome {
    /// A reply within the timeout: the RTT, ms.
    Reply {
        /// Round-trip time, ms.
        rtt_ms: f64,
    },
    /// No reply within the timeout: the RTT is at least the timeout (censored).
    Timeout,
    /// Never sent (send error), stopped while outstanding, or still pending:
    /// no RTT information at all.
    NoInformation,
}

/// What the probe logged of a request, in results.json's words (the
/// `kind` of netlab-probe's `RequestOutcome` and `IsoOutcome`): probes.csv's
/// `outcome` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logged {
    /// Sent, no reply yet, timeout not reached.
    Pending,
    /// A reply within the timeout.
    Reply,
    /// No reply within the timeout.
    Timeout,
    /// The isochronous probe's slot passed without a send.
    Missed,
    /// The send syscall failed.
    SendError,
    /// The run was stopped while the request was pending.
    Abandoned,
}

impl Logged {
    /// Its word in results.json (`reply`, `send_error`).
    pub fn as_str(self) -> &'static str {
        match self {
            Logged::Pending => "pending",
            Logged::Reply => "reply",
            Logged::Timeout => "timeout",
            Logged::Missed => "missed",
            Logged::SendError => "send_error",
            Logged::Abandoned => "abandoned",
        }
    }
}

/// One probe request (UDP echo).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeSample {
    /// Sequence number.
    pub seq: u32,
    /// Send time, s from t0.
    pub send_s: f64,
    /// Phase by send time.
    pub phase: ProbePhase,
    /// Outcome.
    pub outcome: ProbeOutcome,
    /// What the probe logged, in results.json's words.
    pub logged: Logged,
    /// A reply that came after the timeout: its RTT, ms (the request stays
    /// censored).
    pub late_rtt_ms: Option<f64>,
}

/// Delivered bytes per bin of one flow, from t0.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowSeries {
    /// Flow label (`flow 1`).
    pub label: String,
    /// `up` (A→B) or `down`.
    pub direction: String,
    /// Congestion control as read back (as requested when not read back).
    pub cc: String,
    /// Bin width, s.
    pub bin_s: f64,
    /// Bytes delivered to B's application in each bin.
    pub bytes: Vec<u64>,
}

/// One flow of a scenario as flows.csv gives it (docs/usage.md, "Flat
/// tables"), whether or not it delivered anything.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRecord {
    /// Its number from 1, as the figures count ("flow 1").
    pub number: usize,
    /// `up` (A→B) or `down`.
    pub direction: String,
    /// Congestion control as read back (as requested when not read back).
    pub cc: String,
    /// ECN asked for at its sender.
    pub ecn: bool,
    /// Goodput over the measured window, Mbit/s (method §4.3): the
    /// per-flow figure results.json and summary.md give.
    pub goodput_mbps: Option<f64>,
    /// The sender's `tcpi_total_retrans` at its last tcp_info sample.
    pub retransmits: Option<u32>,
    /// Planned start, s from t0.
    pub planned_start_s: f64,
    /// When it connected, s from t0, when recorded.
    pub connect_s: Option<f64>,
    /// Why it failed, if it did.
    pub error: Option<String>,
    /// Its sender host's `[[hosts]]` name (docs/method.md §1.7); `None`
    /// without `[[hosts]]`.
    pub host: Option<String>,
    /// Its measured RTT over the window, ms: the median of its sender's
    /// smoothed RTT (`netlab_results::shares::window_rtt_ms`), which
    /// Mathis's host share is computed with (docs/models.md, model 5).
    pub rtt_ms: Option<f64>,
}

impl FlowRecord {
    /// When it started, s from t0: its connect time when recorded, else
    /// its planned start.
    pub fn start_s(&self) -> f64 {
        self.connect_s.unwrap_or(self.planned_start_s)
    }
}

/// The first flow's sender state at one tcp_info sample (sock_diag), as
/// the report draws it: the few fields of `netlab_tcpload::record::TcpSample`
/// the state classification and the plots read, in ms and bit/s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SenderSample {
    /// Sample time, s from t0.
    pub t_s: f64,
    /// Smoothed TCP RTT, ms.
    pub rtt_ms: f64,
    /// RTT variance, ms.
    pub rttvar_ms: f64,
    /// Congestion window, segments.
    pub cwnd: u32,
    /// Slow-start threshold, segments ([`netlab_tcpload::tcp_info::INFINITE_SSTHRESH`]
    /// before the first loss), when recorded.
    pub ssthresh: Option<u32>,
    /// Delivery rate, bit/s, when the kernel reports it.
    pub delivery_rate_bps: Option<f64>,
    /// Pacing rate, bit/s, when the kernel reports a finite one.
    pub pacing_rate_bps: Option<f64>,
}

/// The arm qdisc's backlog and counters at one periodic readback (reduced
/// from netlab-results' `QdiscSample`, which holds every qdisc's record).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BacklogSample {
    /// Readback time, s from t0.
    pub t_s: f64,
    /// Arm backlog, bytes.
    pub backlog_bytes: u64,
    /// Arm backlog, packets.
    pub backlog_packets: u64,
    /// Arm drops since configuration (cumulative).
    pub drops: u64,
    /// ECN marks since configuration (cumulative), when the arm reports them.
    pub ecn_marks: Option<u64>,
    /// Packets the arm sent since configuration (cumulative).
    pub packets: u64,
}

/// Counters at the end of the measured window.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FinalCounters {
    /// When the readback was taken, s from t0.
    pub taken_s: Option<f64>,
    /// Drops counted by the arm.
    pub arm_drops: Option<u64>,
    /// Drops counted by the TBF parent (same packets possibly: never summed).
    pub tbf_drops: Option<u64>,
    /// ECN marks counted by the arm.
    pub ecn_marks: Option<u64>,
    /// Packets the arm sent.
    pub arm_packets: Option<u64>,
    /// CE, ECE and CWR frames seen on the wire.
    pub wire_ce_ece_cwr: Option<(u64, u64, u64)>,
}

/// The arm's counters over the measured window
/// ([`Scenario::window_counts`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowCounts {
    /// The sample the counts start from, s from t0.
    pub from_s: f64,
    /// The final readback they end at, s from t0, when recorded.
    pub to_s: Option<f64>,
    /// Drops counted by the arm in between.
    pub drops: u64,
    /// ECN marks in between, where the arm counts them.
    pub marks: Option<u64>,
    /// Packets the arm sent in between.
    pub packets: Option<u64>,
}

impl WindowCounts {
    /// The share of the packets that reached the arm in the window which
    /// it marked or dropped: (marks + drops) ÷ (sent + drops), the
    /// congestion-signal probability p of docs/models.md's model 3
    /// (counted per packet; a Reno flow cuts its window at most once per
    /// RTT however many of its packets are signalled). `None` without the
    /// packets sent, or when none reached the arm.
    pub fn signal_probability(&self) -> Option<f64> {
        let arrived = self.packets? + self.drops;
        let signals = self.drops + self.marks.unwrap_or(0);
        (arrived > 0).then(|| signals as f64 / arrived as f64)
    }
}

/// A packet file of a scenario (method §7.7), linked from the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketFile {
    /// Path relative to the results folder (`pcap/s01-round1-fq_codel.evidence.pcapng`).
    pub file: String,
    /// `evidence` (the kept frames) or `headers` (every frame read).
    pub content: String,
    /// Frames in it.
    pub frames: u64,
    /// Why it does not hold everything it should; `None` when complete.
    pub partial: Option<String>,
    /// The file is in the results folder the report is written to (a
    /// folder re-rendered from its results.json alone may lack it): only
    /// then is it linked.
    pub present: bool,
}

/// One scenario: one arm in one round.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// 1-based position in execution order.
    pub index: u32,
    /// Round (1-based).
    pub round: u32,
    /// The arm's label, its identity in every output: the kind when no
    /// other arm of the run has it (`fq_codel`), else the kind and the
    /// options that tell it apart (`pfifo limit 64`; [`crate::ArmLabels`]).
    pub arm: String,
    /// The arm's qdisc kind (`fq_codel`), for what depends on the kind.
    pub kind: String,
    /// The arm in tc words.
    pub arm_words: String,
    /// The first flow's congestion control (read back), when known.
    pub cc: Option<String>,
    /// t0, UTC (RFC 3339), when recorded.
    pub t0_utc: Option<String>,
    /// Phase boundaries.
    pub phases: Phases,
    /// Probe reply timeout, s.
    pub probe_timeout_s: f64,
    /// Every probe request.
    pub probes: Vec<ProbeSample>,
    /// Delivered bytes per flow.
    pub flows: Vec<FlowSeries>,
    /// Every flow of the scenario, in its order, failed ones included.
    pub flow_records: Vec<FlowRecord>,
    /// Goodput's measured window, s from t0.
    pub measured_window: Option<[f64; 2]>,
    /// Sender tcp_info samples.
    pub tcp_info: Vec<SenderSample>,
    /// Qdisc readbacks over time.
    pub qdisc: Vec<BacklogSample>,
    /// Counters at the end of the measured window.
    pub final_counters: FinalCounters,
    /// Null, or why the scenario failed.
    pub error: Option<String>,
    /// Its packet files that exist (none in results written before them).
    pub packet_files: Vec<PacketFile>,
    /// The isochronous probe's requests, when one ran beside the
    /// stop-and-wait probe.
    pub iso: Option<IsoProbe>,
    /// Every stop-and-wait request's fate (method §5.8), when B's receive
    /// log is in the results (absent in results written before B's receive log was kept, method §5.8).
    pub fates: Option<netlab_results::fate::ProbeFates>,
    /// When B's echo of the stop-and-wait probe stopped receiving, s since
    /// t0 (absent in results written before it was kept): an unresolved
    /// request's delay is at least this less its send time (method §5.8).
    pub echo_closed_s: Option<f64>,
    /// ECN was negotiated on the flow the capture followed (an ECN flow
    /// shares the bottleneck with the probe, which is always Not-ECT).
    pub ecn_flow: bool,
    /// The sweep point it ran at (`default` without a sweep).
    pub point: PointText,
    /// Per direction that has flows (up first): aggregate goodput and
    /// Jain's index over its flows, as results.json has them.
    pub directions: Vec<DirectionFigures>,
    /// What the models of docs/models.md take from this scenario, as read
    /// back.
    pub readbacks: ModelReadbacks,
    /// The upload bottleneck's moving rate, when it followed a schedule
    /// (method §15).
    pub link: Option<crate::link_series::LinkSeries>,
}

/// A probe's requests of one phase by whether they reached B
/// ([`Scenario::delivered_one_way`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Delivered {
    /// One-way A→B delay of every request that reached B, ms.
    pub one_way_ms: Vec<f64>,
    /// Requests that left A and never reached B.
    pub lost: usize,
}

impl Delivered {
    /// The share of the requests that left A and never reached B.
    pub fn lost_share(&self) -> Option<f64> {
        let sent = self.lost + self.one_way_ms.len();
        (sent > 0).then(|| self.lost as f64 / sent as f64)
    }
}

/// What a model takes from one scenario, each as the scenario read it
/// back (docs/models.md): the upload bottleneck's rate, its arm's quantum
/// and limit, the packet size its queue held, the isochronous probe's
/// interval and frame, and fq_codel's `new_flow_count` over the measured
/// window.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ModelReadbacks {
    /// The upload shaper's rate read back from its TBF, bit/s.
    pub rate_bps: Option<u64>,
    /// The arm's quantum read back, bytes: fq_codel's and fq's option,
    /// CAKE's per-tin `flow_quantum` (the largest over its tins).
    pub quantum_bytes: Option<u64>,
    /// pfifo's limit read back, packets.
    pub fifo_limit_packets: Option<u64>,
    /// The largest packet the queue held, and where that number comes from.
    pub packet: Option<PacketSize>,
    /// The path's MTU as the topology recorded it.
    pub mtu: Option<u32>,
    /// The base RTT netem added at this scenario's point, s (0 without).
    pub base_rtt_s: f64,
    /// The isochronous probe's interval T, s.
    pub iso_interval_s: Option<f64>,
    /// The isochronous probe's request on the wire (UDP payload + UDP, IPv4
    /// and Ethernet headers), bytes.
    pub iso_frame_bytes: Option<u64>,
    /// Bulk flows in the upload direction (N).
    pub bulk_flows: Option<u32>,
    /// fq_codel's (or fq_pie's) `new_flow_count` over the measured window
    /// and the isochronous probe's packets sent in the same span.
    pub new_flows: Option<NewFlows>,
    /// The arm's delay target read back (codel's, fq_codel's and pie's
    /// `target`), ms.
    pub target_ms: Option<f64>,
    /// A full segment of the upload flows on the link, bytes, from their
    /// own tcp_info over the measured window: the median `tcpi_snd_mss`
    /// plus the TCP timestamp option when `tcpi_options` says it is on
    /// (12), TCP and IPv4 headers (40) and the Ethernet header (14).
    pub segment_bytes: Option<u64>,
}

/// A packet size a model uses, with its source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketSize {
    /// Bytes, as the qdisc counts them (the link header included).
    pub bytes: u64,
    /// Where it comes from.
    pub source: PacketSource,
}

/// Where a model's packet size comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketSource {
    /// The arm's own largest packet at the window's end (fq_codel's and
    /// codel's `maxpacket`, CAKE's `max_skblen`).
    MaxPacket,
    /// The largest backlog bytes ÷ queue length in a sample of the window
    /// (kinds without a largest-packet counter, offloads on), at least one
    /// frame.
    LargestSkb,
    /// One frame, MTU + the link header: offloads off, so every skb is one
    /// frame, and the arm reports no largest packet.
    OneFrame,
}

impl PacketSource {
    /// Its word in sweep.csv and the report.
    pub fn as_str(self) -> &'static str {
        match self {
            PacketSource::MaxPacket => "maxpacket",
            PacketSource::LargestSkb => "largest_skb",
            PacketSource::OneFrame => "one_frame",
        }
    }
}

/// fq_codel's `new_flow_count` across the measured window beside the
/// probe's packets sent in it (docs/models.md, model 2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewFlows {
    /// The counter's rise from the last sample at or before the window's
    /// start to the readback at its end.
    pub new_flows: u64,
    /// Isochronous requests sent (due) in the same span.
    pub probe_packets: u64,
}

impl NewFlows {
    /// New flows per probe packet (None without a probe packet). The bulk
    /// flows' own re-entries count too, so it reads the probe's share from
    /// above.
    pub fn per_probe_packet(&self) -> Option<f64> {
        (self.probe_packets > 0).then(|| self.new_flows as f64 / self.probe_packets as f64)
    }
}

/// A scenario's sweep point, as results.json records it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PointText {
    /// 1-based position in the grid.
    pub index: u32,
    /// `rate=5mbit base_rtt=20ms`, or `default` without a sweep.
    pub label: String,
    /// Each axis value as `axis=value`, in the experiment's axis order.
    pub values: Vec<String>,
}

/// One direction's flows together (results.json's `directions[]`).
#[derive(Debug, Clone, PartialEq)]
pub struct DirectionFigures {
    /// `up` or `down`.
    pub direction: String,
    /// Flows in this direction.
    pub flows: usize,
    /// Sum of the flows' goodputs over the measured window, Mbit/s (None
    /// when a flow has none).
    pub goodput_mbps: Option<f64>,
    /// Jain's index over the flows' goodputs (None without them).
    pub fairness: Option<f64>,
}

/// The isochronous probe of one scenario: fixed send slots, so its samples
/// do not thin out as the queue grows (method §10).
#[derive(Debug, Clone, PartialEq)]
pub struct IsoProbe {
    /// Slot interval, ms.
    pub interval_ms: f64,
    /// Reply timeout, s.
    pub timeout_s: f64,
    /// Every slot, in order.
    pub requests: Vec<IsoSample>,
    /// Every slot's fate (method §5.8), when B's receive log is in the
    /// results.
    pub fates: Option<netlab_results::fate::ProbeFates>,
    /// When B's stamping echo stopped receiving, s since t0, when
    /// recorded: an unresolved slot's delay is at least this less its send
    /// time.
    pub closed_s: Option<f64>,
}

/// One slot of the isochronous probe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IsoSample {
    /// When the slot was due, s from t0.
    pub due_s: f64,
    /// Phase by due time.
    pub phase: ProbePhase,
    /// Reply in time, timeout (censored), or no information (missed slot,
    /// send error, stopped while pending).
    pub outcome: ProbeOutcome,
    /// A reply that came after the timeout: its RTT, ms. The request stays
    /// censored; this is what the late reply says about it.
    pub late_rtt_ms: Option<f64>,
    /// Its one-way A→B delay, ms, when any reply (in time or late) came
    /// and A and B share a clock.
    pub up_ms: Option<f64>,
    /// Its reply's B→A delay, ms, likewise.
    pub down_ms: Option<f64>,
    /// Its sequence number (the slot's index).
    pub seq: u32,
    /// When A sent it, s from t0 (None: the slot was missed).
    pub send_s: Option<f64>,
    /// What the probe logged, in results.json's words.
    pub logged: Logged,
}

impl Scenario {
    /// The probe whose RTT the headline and the comparison read: the
    /// stop-and-wait probe when it ran, else the isochronous probe (so an
    /// isochronous-only run's headline has its data).
    pub fn rtt_probe(&self) -> Option<&'static str> {
        if !self.probes.is_empty() {
            Some("stop-and-wait")
        } else if self.iso.is_some() {
            Some("isochronous")
        } else {
            None
        }
    }

    /// The RTT observations of `phase` from [`Scenario::rtt_probe`]: a
    /// reply exact, a timeout censored at that probe's timeout; requests
    /// without RTT information left out.
    pub fn rtt_observations(&self, phase: ProbePhase) -> Vec<crate::stats::Observation> {
        use crate::stats::Observation;
        let of = |o: ProbeOutcome, timeout_s: f64| match o {
            ProbeOutcome::Reply { rtt_ms } => Some(Observation::Exact(rtt_ms)),
            ProbeOutcome::Timeout => Some(Observation::AtLeast(timeout_s * 1e3)),
            ProbeOutcome::NoInformation => None,
        };
        match (&self.iso, self.probes.is_empty()) {
            (Some(iso), true) => iso
                .requests
                .iter()
                .filter(|r| r.phase == phase)
                .filter_map(|r| of(r.outcome, iso.timeout_s))
                .collect(),
            _ => self
                .probes
                .iter()
                .filter(|p| p.phase == phase)
                .filter_map(|p| of(p.outcome, self.probe_timeout_s))
                .collect(),
        }
    }

    /// The stop-and-wait probe's requests of `phase` by fate (method
    /// §5.8), when B's receive log gives every one: the one-way A→B delay
    /// of each that reached B (late ones at their exact delay), and how
    /// many left A without ever reaching B. `None` without fates, or when a
    /// request that reached B has no one-way delay (no shared clock).
    pub fn delivered_one_way(&self, phase: ProbePhase) -> Option<Delivered> {
        use netlab_results::fate::Fate;
        let fates = self.fates.as_ref()?;
        let want = match phase {
            ProbePhase::Baseline => netlab_probe::Phase::Baseline,
            ProbePhase::Warmup => netlab_probe::Phase::Warmup,
            ProbePhase::Loaded => netlab_probe::Phase::Loaded,
            _ => return None,
        };
        let mut d = Delivered::default();
        for r in fates.requests.iter().filter(|r| r.phase == want) {
            match &r.fate {
                Fate::Replied { one_way_ms, .. } | Fate::ReachedB { one_way_ms, .. } => {
                    d.one_way_ms.push((*one_way_ms)?);
                }
                Fate::NeverReachedB { .. } => d.lost += 1,
                Fate::NotSent { .. } | Fate::Unresolved => {}
            }
        }
        Some(d)
    }

    /// The arm's drops and ECN marks inside the measured window (method
    /// §12.8): the readback at the window's end less the last qdisc sample
    /// taken at or before its start (at most one sampling interval early).
    /// `None` without a window, a sample before it or a final readback.
    pub fn window_counts(&self) -> Option<WindowCounts> {
        window_counts(self.measured_window, &self.qdisc, &self.final_counters)
    }

    /// The BBR upload flows' share of the upload flows' delivered bytes in
    /// each half of the measured window, from the flows' series (bins
    /// whose start falls in the half): whether the share had settled
    /// (docs/models.md, model 4). `None` without both a BBR flow and
    /// another one, a window, or bytes in either half.
    pub fn bbr_share_halves(&self) -> Option<[f64; 2]> {
        let [w0, w1] = self.measured_window?;
        let mid = (w0 + w1) / 2.0;
        let up: Vec<&FlowSeries> = self.flows.iter().filter(|f| f.direction == "up").collect();
        let bbr = up.iter().filter(|f| f.cc == "bbr").count();
        if bbr == 0 || bbr == up.len() {
            return None;
        }
        let mut halves = [[0u64; 2]; 2]; // [half][bbr?]
        for f in &up {
            for (i, b) in f.bytes.iter().enumerate() {
                let t = i as f64 * f.bin_s;
                let half = if (w0..mid).contains(&t) {
                    0
                } else if (mid..w1).contains(&t) {
                    1
                } else {
                    continue;
                };
                halves[half][usize::from(f.cc == "bbr")] += b;
            }
        }
        let share = |h: [u64; 2]| {
            let total = h[0] + h[1];
            (total > 0).then(|| h[1] as f64 / total as f64)
        };
        Some([share(halves[0])?, share(halves[1])?])
    }

    /// The BBR upload flows' share of every upload flow's goodput over the
    /// measured window (docs/models.md, model 4): `None` without both a
    /// BBR flow and another one, or without goodput.
    pub fn bbr_share(&self) -> Option<f64> {
        let up: Vec<&FlowRecord> = self
            .flow_records
            .iter()
            .filter(|f| f.direction == "up")
            .collect();
        let bbr = up.iter().filter(|f| f.cc == "bbr").count();
        if bbr == 0 || bbr == up.len() {
            return None;
        }
        let mut total = 0.0;
        let mut of_bbr = 0.0;
        for f in &up {
            let g = f.goodput_mbps?;
            total += g;
            if f.cc == "bbr" {
                of_bbr += g;
            }
        }
        (total > 0.0).then(|| of_bbr / total)
    }

    /// The first flow's mean smoothed RTT (tcp_info) over the measured
    /// window less the point's base RTT, ms: the queueing delay the bulk
    /// flows saw (docs/models.md, model 3). `None` without a window or a
    /// sample in it.
    pub fn flows_queue_delay_ms(&self) -> Option<f64> {
        let [w0, w1] = self.measured_window?;
        let rtts: Vec<f64> = self
            .tcp_info
            .iter()
            .filter(|t| t.t_s >= w0 && t.t_s <= w1)
            .map(|t| t.rtt_ms)
            .collect();
        if rtts.is_empty() {
            return None;
        }
        let mean = rtts.iter().sum::<f64>() / rtts.len() as f64;
        // To the microsecond, tcp_info's own resolution.
        Some(((mean - self.readbacks.base_rtt_s * 1e3) * 1e3).round() / 1e3)
    }

    /// The most TCP payload the upload shaper can carry, Mbit/s: its rate
    /// × payload ÷ frame, a full-sized segment with timestamps (MTU − 52
    /// bytes) in a frame of MTU + 14 (method §4.3: 4.78 Mbit/s at 5 Mbit/s
    /// and MTU 1500). `None` without a rate read back.
    pub fn payload_ceiling_mbps(&self) -> Option<f64> {
        let rate = self.readbacks.rate_bps? as f64;
        let mtu = f64::from(
            self.readbacks
                .mtu
                .unwrap_or(netlab_results::queue_seen::DEFAULT_MTU),
        );
        Some(rate * (mtu - 52.0) / (mtu + 14.0) / 1e6)
    }

    /// Loaded-phase probe requests that carry RTT information.
    pub fn loaded_probes(&self) -> impl Iterator<Item = &ProbeSample> {
        self.probes.iter().filter(|p| {
            p.phase == ProbePhase::Loaded && !matches!(p.outcome, ProbeOutcome::NoInformation)
        })
    }

    /// A short label: `round 2 fq_codel`.
    pub fn label(&self) -> String {
        format!("round {} {}", self.round, self.arm)
    }

    /// Aggregate delivered bytes per bin over every flow.
    pub fn aggregate_bytes(&self) -> Vec<u64> {
        let n = self.flows.iter().map(|f| f.bytes.len()).max().unwrap_or(0);
        let mut out = vec![0u64; n];
        for f in &self.flows {
            for (o, b) in out.iter_mut().zip(&f.bytes) {
                *o += *b;
            }
        }
        out
    }

    /// Bin width of the delivered-bytes series (the first flow's).
    pub fn bin_s(&self) -> Option<f64> {
        self.flows.first().map(|f| f.bin_s)
    }
}

/// [`Scenario::window_counts`] of a window, the arm's samples and its
/// readback at the window's end.
pub(crate) fn window_counts(
    window: Option<[f64; 2]>,
    qdisc: &[BacklogSample],
    final_counters: &FinalCounters,
) -> Option<WindowCounts> {
    let [w0, _] = window?;
    let start = qdisc.iter().rev().find(|q| q.t_s <= w0 + 1e-9)?;
    let drops = final_counters.arm_drops?.checked_sub(start.drops)?;
    let marks = match (final_counters.ecn_marks, start.ecn_marks) {
        (Some(end), Some(from)) => end.checked_sub(from),
        _ => None,
    };
    let packets = final_counters
        .arm_packets
        .and_then(|end| end.checked_sub(start.packets));
    Some(WindowCounts {
        from_s: start.t_s,
        to_s: final_counters.taken_s,
        drops,
        marks,
        packets,
    })
}
