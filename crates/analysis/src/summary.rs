//! What summary.md says, reduced from the typed [`Results`]: one
//! [`ScenarioFigures`] per scenario (its table row and the few figures the
//! sections and notes use, a few hundred bytes), so a run reads its
//! scenarios back one at a time and never holds their raw samples
//! together, and the caveats the figures need ([`caveats`]). Pure;
//! netlab-report renders summary.md from these.

use netlab_probe::{IsoPhaseStats, PhaseStats, RequestOutcome};
use netlab_qdisc_model::{QdiscRecord, ARM_HANDLE};
use netlab_results::{DirectionResult, QdiscResult, Results, ScenarioResult};

mod caveats;
mod path;
mod queue;

pub use caveats::MachineFigures;
pub use path::VethsSeen;

/// One row of the summary table: one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// Round number (1-based).
    pub round: u32,
    /// The arm's label ([`crate::ArmLabels`]): `fq_codel`, or `pfifo limit 64`
    /// beside another pfifo arm.
    pub arm: String,
    /// The arm in tc words (`fq_codel limit 256 …`).
    pub arm_words: String,
    /// The sweep point's label (`rate=5mbit flows=2`; `default` without a
    /// sweep, and then the table has no point column).
    pub point_label: String,
    /// The stop-and-wait probe's timeout, ms (None when it did not run).
    pub probe_timeout_ms: Option<f64>,
    /// Goodput over the measured window, Mbit/s (the only direction's
    /// aggregate; with both directions see `goodput_by_direction`).
    pub goodput_mbps: Option<f64>,
    /// Each direction's aggregate goodput, when there are several.
    pub goodput_by_direction: Vec<(String, Option<f64>)>,
    /// Loaded-phase probe requests sent.
    pub loaded_sent: u64,
    /// Loaded-phase probe successes.
    pub loaded_ok: u64,
    /// Loaded-phase probe timeouts.
    pub loaded_timeouts: u64,
    /// Loaded-phase p50 of successes, ms.
    pub p50_ms: Option<f64>,
    /// Loaded-phase p95 of successes, ms.
    pub p95_ms: Option<f64>,
    /// Censoring-aware loaded p50 and p95 (a timeout counts as "≥ the
    /// timeout"): the figures the summary leads with (method §5.6).
    pub censored: Option<(
        Option<netlab_probe::RankQuantile>,
        Option<netlab_probe::RankQuantile>,
    )>,
    /// Censoring-aware baseline p50.
    pub baseline_p50: Option<netlab_probe::RankQuantile>,
    /// Drops counted by the arm (child qdisc 10:) at the final readback.
    pub child_drops: Option<u64>,
    /// Drops counted by TBF at the final readback.
    pub tbf_drops: Option<u64>,
    /// Each shaped direction's (arm, TBF) drops, when there are several.
    pub drops_by_direction: Vec<(String, Option<u64>, Option<u64>)>,
    /// CE / ECE / CWR frames seen on the wire.
    pub ce_ece_cwr: Option<(u64, u64, u64)>,
    /// Whether the handshake negotiated classic ECN.
    pub ecn_negotiated: Option<bool>,
    /// Baseline phase: sent, ok, p95 of successes.
    pub baseline: (u64, u64, Option<f64>),
    /// The scenario's error, if it failed.
    pub error: Option<String>,
}

/// What summary.md needs of one scenario: its table row and the figures
/// its sections and notes use. Small (no raw sample), so a run of any
/// length can keep every scenario's.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioFigures {
    /// 1-based position in execution order.
    pub index: u32,
    /// Round.
    pub round: u32,
    /// The arm's label ([`crate::ArmLabels`]; the kind until
    /// [`labelled`](Self::labelled)).
    pub arm: String,
    /// The arm's qdisc kind.
    pub kind: String,
    /// The arm in tc words.
    pub arm_words: String,
    /// The sweep point's index in the grid.
    pub point_index: u32,
    /// The sweep point's label.
    pub point_label: String,
    /// The method's table row.
    pub row: SummaryRow,
    /// Each flow's goodput (the per-flow section).
    pub flows: Vec<FlowFigures>,
    /// Per direction: aggregate goodput and fairness.
    pub directions: Vec<DirectionResult>,
    /// Per direction: each sender host's goodput and share, Jain over
    /// flows and hosts (method §1.7); empty without `[[hosts]]`.
    pub host_shares: Vec<netlab_results::shares::DirectionShares>,
    /// Whether the host-share models apply to the round (docs/models.md,
    /// model 5).
    pub host_conditions: crate::host_conditions::HostConditions,
    /// The stop-and-wait probe's loaded phase (the sweep grid).
    pub loaded: Option<PhaseStats>,
    /// The isochronous probe's figures, when one ran.
    pub iso: Option<IsoFigures>,
    /// The stop-and-wait probe's loaded requests by fate (method §5.8),
    /// when B's receive log is in the results.
    pub loaded_fates: Option<netlab_results::fate::FateSummary>,
    /// The notes this scenario adds to the run's (failure, capture drops, …).
    pub notes: Vec<String>,
    /// How A and B started their receive buffers, as read back.
    pub receive_buffer: Option<ReceiveBufferSeen>,
    /// The veths' offloads and MTU, as read back (method §1.6).
    pub path: Option<VethsSeen>,
    /// The kernel and CPU that ran it, when recorded.
    pub machine: Option<MachineFigures>,
    /// What the queue held and whether the shaper was the bottleneck.
    pub path_seen: crate::path_seen::PathSeen,
    /// What the queue did when the bottleneck's rate moved (method §15);
    /// set by [`crate::ReportBuilder`] from the scenario's probe samples.
    pub link: Option<crate::link::LinkFigures>,
}

/// A scenario's `net.ipv4.tcp_rmem` in A and B (method §1.3), as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceiveBufferSeen {
    /// Written (default raised to max); the value read back, spaces between.
    AtMax(String),
    /// Not written: the kernel's, as B's readback shows it.
    Kernel(String),
}

impl ReceiveBufferSeen {
    /// From the sysctls written and the readback; `None` for scenarios
    /// recorded before netlab read `tcp_rmem`.
    fn of(s: &ScenarioResult) -> Option<ReceiveBufferSeen> {
        let key = netlab_topology::spec::TCP_RMEM;
        let t = s.topology.as_ref()?;
        let spaced = |v: &str| v.split_whitespace().collect::<Vec<_>>().join(" ");
        if let Some(w) = t.sysctls.iter().find(|r| r.key == key) {
            return Some(ReceiveBufferSeen::AtMax(spaced(&w.read)));
        }
        let b = t.readback.role(netlab_topology::Role::B)?;
        b.sysctls
            .get(key)
            .map(|v| ReceiveBufferSeen::Kernel(spaced(v)))
    }
}

/// One flow in the per-flow section.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowFigures {
    /// 0-based index in the scenario's flow list.
    pub index: usize,
    /// `up` or `down`.
    pub direction: String,
    /// Congestion control read back (requested, when the flow never connected).
    pub cc: String,
    /// Goodput over the measured window, Mbit/s.
    pub goodput_mbps: Option<f64>,
    /// The congestion control as requested.
    pub cc_requested: String,
    /// The socket's `TCP_CONGESTION` after the connect (`None`: the flow
    /// never got that far, and its error says why).
    pub cc_socket: Option<String>,
    /// The congestion control the kernel reported for the socket in
    /// sock_diag's `INET_DIAG_CONG`, in every tcp_info sample that carried
    /// it (several names: it changed; empty: no sample carried it).
    pub cc_diag: Vec<String>,
}

/// What the isochronous probe's section shows of one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct IsoFigures {
    /// Slot interval, ms.
    pub interval_ms: f64,
    /// Baseline and loaded phases, when present.
    pub baseline: Option<IsoPhaseStats>,
    /// The loaded phase.
    pub loaded: Option<IsoPhaseStats>,
    /// Missed slots over every phase.
    pub missed: u32,
    /// Duplicate replies.
    pub duplicate: u64,
    /// Malformed replies.
    pub malformed: u64,
    /// The probe stopped before its schedule ended.
    pub stopped_early: bool,
    /// How its one-way delays were measured.
    pub one_way_note: String,
    /// The loaded slots by fate (method §5.8), when B's receive log is in
    /// the results: delivered slots are delays, dropped ones losses,
    /// unresolved ones censored at their own bounds.
    pub loaded_slots: Option<crate::ArmDelivery>,
}

impl ScenarioFigures {
    /// The same figures with the arm's label (table row included).
    pub fn labelled(mut self, label: String) -> ScenarioFigures {
        // The scenario's notes name it `(round R, KIND)`: by its label now.
        let was = format!("(round {}, {})", self.round, self.kind);
        let now = format!("(round {}, {label})", self.round);
        for n in &mut self.notes {
            *n = n.replace(&was, &now);
        }
        self.row.arm = label.clone();
        self.arm = label;
        self
    }

    /// The figures of one scenario.
    pub fn of(s: &ScenarioResult) -> ScenarioFigures {
        ScenarioFigures {
            index: s.index,
            round: s.round,
            arm: s.arm.clone(),
            kind: s.arm.clone(),
            arm_words: s.arm_words.clone(),
            point_index: s.point.index,
            point_label: s.point.label.clone(),
            row: SummaryRow::of(s),
            flows: s
                .flows
                .iter()
                .map(|f| FlowFigures {
                    index: f.index,
                    direction: f.direction.clone(),
                    cc: f
                        .tcp
                        .as_ref()
                        .map_or_else(|| f.cc.clone(), |t| t.cc_readback.clone()),
                    goodput_mbps: f.tcp.as_ref().and_then(|t| t.goodput_mbps),
                    cc_requested: f.cc.clone(),
                    cc_socket: f.tcp.as_ref().map(|t| t.cc_readback.clone()),
                    cc_diag: f
                        .tcp_info
                        .iter()
                        .filter_map(|t| t.record.congestion.clone())
                        .fold(Vec::new(), |mut v, c| {
                            if !v.contains(&c) {
                                v.push(c);
                            }
                            v
                        }),
                })
                .collect(),
            directions: s.directions.clone(),
            host_shares: if s.hosts.is_empty() {
                Vec::new()
            } else {
                netlab_results::shares::of_scenario(s).directions
            },
            host_conditions: crate::host_conditions::HostConditions::of(s),
            loaded: s.probe().and_then(|p| p.phases.loaded.clone()),
            iso: s.iso_probe.as_ref().map(|iso| IsoFigures {
                interval_ms: iso.log.config.interval.as_secs_f64() * 1e3,
                baseline: iso.phase(netlab_probe::Phase::Baseline).cloned(),
                loaded: iso.phase(netlab_probe::Phase::Loaded).cloned(),
                missed: iso.phases.iter().map(|p| p.stats.missed).sum(),
                duplicate: iso.log.replies.duplicate,
                malformed: iso.log.replies.malformed,
                stopped_early: iso.log.stopped_early,
                one_way_note: iso.log.one_way_note.clone(),
                loaded_slots: iso.fates.as_ref().map(|f| {
                    let closed = iso.echo_arrivals.as_ref().and_then(|a| a.closed_s);
                    crate::ArmDelivery::of_fates(
                        crate::WhichProbe::Isochronous,
                        &[(f, closed)],
                        iso.log.config.timeout.as_secs_f64() * 1e3,
                        false,
                    )
                }),
            }),
            loaded_fates: s
                .probe()
                .and_then(|p| p.fates.as_ref())
                .and_then(|f| f.phase(netlab_probe::Phase::Loaded).cloned()),
            notes: notes_of(s),
            receive_buffer: ReceiveBufferSeen::of(s),
            path: VethsSeen::of(s),
            machine: s.ran_on.as_ref().map(|r| MachineFigures {
                kernel: r.kernel_release.clone(),
                cpu: r.cpu_model.clone(),
            }),
            path_seen: crate::path_seen::PathSeen::of(s),
            link: None,
        }
    }
}

impl ScenarioFigures {
    /// Every scenario's figures, in execution order, each arm labelled as
    /// the run's arms tell it apart ([`crate::ArmLabels`]).
    pub fn of_run(results: &Results) -> Vec<ScenarioFigures> {
        let labels = crate::arms::ArmLabels::of_experiment(&results.experiment);
        results
            .scenarios
            .iter()
            .map(|s| ScenarioFigures::of(s).labelled(labels.label(&s.arm, &s.arm_words)))
            .collect()
    }
}

fn drops_of(records: &[QdiscRecord], handle: netlab_qdisc_model::Handle) -> Option<u64> {
    records
        .iter()
        .find(|r| r.handle_raw == handle.0)
        .and_then(|r| r.stats)
        .map(|st| u64::from(st.drops))
}

/// TBF's drops, found by kind (TBF is `1:` at the root or `2:` below netem).
fn tbf_drops_of(records: &[QdiscRecord]) -> Option<u64> {
    records
        .iter()
        .find(|r| r.kind == "tbf")
        .and_then(|r| r.stats)
        .map(|st| u64::from(st.drops))
}

/// The egresses that carry a bottleneck (TBF requested), up first.
fn shaped(s: &ScenarioResult) -> Vec<&QdiscResult> {
    s.qdiscs
        .iter()
        .filter(|q| {
            q.requests
                .iter()
                .any(|r| r.tc_argv.iter().any(|w| w == "tbf"))
        })
        .collect()
}

impl SummaryRow {
    /// The summary row of one scenario.
    pub fn of(s: &ScenarioResult) -> SummaryRow {
        let phases = s.probe().map(|p| &p.phases);
        let bottleneck = shaped(s).first().copied();
        let loaded: Option<&PhaseStats> = phases.and_then(|p| p.loaded.as_ref());
        let baseline: Option<&PhaseStats> = phases.and_then(|p| p.baseline.as_ref());
        let count =
            |p: Option<&PhaseStats>, f: fn(&PhaseStats) -> u32| p.map_or(0, |p| u64::from(f(p)));
        let ecn = s.ecn.as_ref().map(|e| &e.evidence);
        SummaryRow {
            round: s.round,
            arm: s.arm.clone(),
            arm_words: s.arm_words.clone(),
            point_label: s.point.label.clone(),
            probe_timeout_ms: s.probe().map(|p| p.config.timeout.as_secs_f64() * 1e3),
            goodput_mbps: s.directions.first().and_then(|d| d.goodput_mbps),
            goodput_by_direction: s
                .directions
                .iter()
                .map(|d| (d.direction.clone(), d.goodput_mbps))
                .collect(),
            loaded_sent: count(loaded, |p| p.sent),
            loaded_ok: count(loaded, |p| p.ok),
            loaded_timeouts: count(loaded, |p| p.timeouts),
            p50_ms: loaded.and_then(|l| l.p50_ms),
            p95_ms: loaded.and_then(|l| l.p95_ms),
            censored: loaded.map(|l| (l.p50_censored, l.p95_censored)),
            baseline_p50: baseline.and_then(|b| b.p50_censored),
            child_drops: bottleneck.and_then(|q| drops_of(&q.at_window_end, ARM_HANDLE)),
            tbf_drops: bottleneck.and_then(|q| tbf_drops_of(&q.at_window_end)),
            drops_by_direction: shaped(s)
                .iter()
                .map(|q| {
                    (
                        q.direction.clone(),
                        drops_of(&q.at_window_end, ARM_HANDLE),
                        tbf_drops_of(&q.at_window_end),
                    )
                })
                .collect(),
            ce_ece_cwr: ecn.map(|e| (e.counts.ce, e.counts.ece, e.counts.cwr)),
            ecn_negotiated: ecn.map(|e| e.negotiated),
            baseline: (
                count(baseline, |p| p.sent),
                count(baseline, |p| p.ok),
                baseline.and_then(|b| b.p95_ms),
            ),
            error: s.error.clone(),
        }
    }
}

/// The notes one scenario adds to its run's.
fn notes_of(s: &ScenarioResult) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(e) = &s.error {
        notes.push(format!(
            "scenario {} (round {}, {}) failed: {e}",
            s.index, s.round, s.arm
        ));
    }
    if let Some(drops) = s
        .ecn
        .as_ref()
        .and_then(|e| e.evidence.kernel)
        .map(|k| k.drops)
    {
        if drops > 0 {
            notes.push(format!(
                "scenario {}: the capture's socket dropped {drops} frame(s) (PACKET_STATISTICS): its ECN counts are a lower bound",
                s.index
            ));
        }
    }
    // A packet file that does not hold what it should says so (method §7.7).
    for f in s.ecn.iter().flat_map(|e| e.pcap_files()) {
        if !f.is_complete() {
            let why: Vec<String> = f.partial.iter().map(ToString::to_string).collect();
            notes.push(format!(
                "scenario {} (round {}, {}): {} is partial ({} frames in it, {} missing): {}",
                s.index,
                s.round,
                s.arm,
                f.file,
                f.frames,
                f.frames_missing,
                why.join("; ")
            ));
        }
    }
    // What B's echo saw tells a reader which timeouts never reached B.
    let received = s.echo.map(|e| e.received);
    let sent = s.probe().map(|p| {
        p.requests
            .iter()
            .filter(|q| !matches!(q.outcome, RequestOutcome::SendError { .. }))
            .count() as u64
    });
    if let (Some(rx), Some(tx)) = (received, sent) {
        if rx < tx {
            notes.push(format!(
                "scenario {} (round {}, {}): B's echo received {rx} of the {tx} probe requests A sent; {} never reached B before it closed (lost on the way to B, or queued past the close): at least that many timeouts are not delay on the return path",
                s.index, s.round, s.arm, tx - rx
            ));
        }
    }
    for d in &s.directions {
        let (Some(g), Some(rate)) = (d.goodput_mbps, d.rate_mbps) else {
            continue;
        };
        if g > rate {
            let what = if s.directions.len() > 1 || d.flows > 1 {
                format!("{} aggregate goodput", d.direction)
            } else {
                "goodput".to_string()
            };
            notes.push(format!(
                "scenario {} (round {}, {}): {what} {g:.3} Mbit/s is above the TBF rate {rate} Mbit/s: bytes held in the receiver's out-of-order queue across a loss were delivered inside the window (see the note on goodput)",
                s.index, s.round, s.arm
            ));
        }
    }
    if s.ecn.as_ref().is_some_and(|e| !e.evidence.negotiated) {
        notes.push(format!(
            "scenario {}: classic ECN was NOT negotiated on the wire",
            s.index
        ));
    }
    notes.extend(late_start_note(s));
    notes
}

impl ScenarioFigures {
    /// A flow whose sender connected this much later than its planned start
    /// is named (method §3.3: the senders are made ready before t0, and
    /// connect 3-18 ms after their mark, 24 of them together in the guest).
    pub const LATE_START_S: f64 = 0.5;
}

/// The flows that connected more than [`ScenarioFigures::LATE_START_S`] after their planned
/// start: a late flow had a shorter warm-up than planned, and one that
/// connected after the window opened loaded only part of it.
fn late_start_note(s: &ScenarioResult) -> Option<String> {
    let late: Vec<(usize, f64, f64, f64)> = s
        .flows
        .iter()
        .filter_map(|f| {
            let t = f.tcp.as_ref()?;
            let lag = t.start_s - f.start_s;
            (lag > ScenarioFigures::LATE_START_S).then_some((
                f.index,
                t.start_s,
                lag,
                t.window_s[0],
            ))
        })
        .collect();
    let window = late.first()?.3;
    let inside = late.iter().filter(|l| l.1 > window).count();
    let list: Vec<String> = late
        .iter()
        .take(5)
        .map(|(i, at, lag, _)| format!("flow {i} at {at:.2} s, {lag:.2} s late"))
        .collect();
    let more = late.len().saturating_sub(list.len());
    Some(format!(
        "scenario {} (round {}, {}): {} flow(s) connected more than {} s after their planned start ({}{}): their warm-up was shorter than planned{}",
        s.index,
        s.round,
        s.arm,
        late.len(),
        ScenarioFigures::LATE_START_S,
        list.join("; "),
        if more > 0 { format!("; {more} more") } else { String::new() },
        if inside > 0 {
            format!(", and {inside} connected after the measured window opened at {window:.2} s, so they loaded only part of it")
        } else {
            String::new()
        }
    ))
}
