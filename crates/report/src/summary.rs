//! The human summary: the method §9 table, the baseline p95 list and the notes
//! that qualify the figures. Pure: a function of the typed [`Results`], so a
//! test recomputes summary.md from results.json byte for byte.
//!
//! Each scenario is first reduced to its [`ScenarioFigures`] (its table row
//! and the few figures the sections and notes use, a few hundred bytes), and
//! summary.md is rendered from those ([`render_figures`]): a run reads its
//! scenarios back one at a time and never holds their raw samples together.
//! The orchestrator writes the text (after a run, `merge`, `report PATH`);
//! nothing here touches a file.

use std::fmt::Write as _;

use netlab_probe::{IsoPhaseStats, PhaseStats, RequestOutcome};
use netlab_qdisc_model::{QdiscRecord, ARM_HANDLE};
use netlab_results::{DirectionResult, QdiscResult, Results, ScenarioResult};

mod header;
mod hosts;
mod notes;
mod path;
mod sections;

pub use header::{caveats, complete_text, header, interrupted_banner, MachineFigures};

pub use notes::{note_belongs, note_fits_arms, note_for_probe, notes_for, NOTES};
pub use path::{path_note, PathSeen};
pub use sections::sections;

/// One row of the summary table: one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// Round number (1-based).
    pub round: u32,
    /// The arm's label ([`crate::arms`]): `fq_codel`, or `pfifo limit 64`
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

fn opt_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_string(), |v| format!("{v:.2}"))
}

/// A censoring-aware quantile in a table cell: `12.35`, `≥ 1000`, `–`.
fn cell(q: Option<netlab_probe::RankQuantile>) -> String {
    match q {
        Some(netlab_probe::RankQuantile::Value(v)) => format!("{v:.2}"),
        Some(netlab_probe::RankQuantile::AtLeast(v)) => format!("≥ {v:.0}"),
        None => "–".into(),
    }
}

/// Renders the table as Markdown.
pub fn table(rows: &[SummaryRow]) -> String {
    let mut s = String::new();
    // A sweep's rows say their point (docs/report.md, "Pooling in a sweep").
    let sweep = rows
        .iter()
        .any(|r| r.point_label != "default" && !r.point_label.is_empty());
    let point = |r: &SummaryRow| {
        if sweep {
            format!("{} ", r.point_label)
        } else {
            String::new()
        }
    };
    if sweep {
        s.push_str("| point ");
    }
    s.push_str("| Round | arm | goodput Mbit/s | baseline p50 ms | loaded probes/timeouts | loaded p50/p95 ms | replies-only p50/p95 ms | drops (whole run) | CE/ECE/CWR seen |\n");
    if sweep {
        s.push_str("|---");
    }
    s.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let lead = if sweep { "| " } else { "" };
        if let Some(e) = &r.error {
            let _ = writeln!(
                s,
                "{lead}{}| {} | {} | failed: {} | | | | | | |",
                point(r),
                r.round,
                r.arm,
                e.replace('|', "/")
            );
            continue;
        }
        let goodput = goodput_cell(r);
        let km = match r.censored {
            Some((p50, p95)) => format!("{}/{}", cell(p50), cell(p95)),
            None => "–".into(),
        };
        let replies = if r.loaded_ok == 0 {
            "– (n=0)".to_string()
        } else {
            format!(
                "{}/{} (n={})",
                opt_ms(r.p50_ms),
                opt_ms(r.p95_ms),
                r.loaded_ok
            )
        };
        let (drops, ecn) = drops_and_ecn_cells(r);
        let _ = writeln!(
            s,
            "{lead}{}| {} | {} | {} | {} | {}/{} | {km} | {replies} | {} | {} |",
            point(r),
            r.round,
            r.arm,
            goodput,
            cell(r.baseline_p50),
            r.loaded_sent,
            r.loaded_timeouts,
            drops,
            ecn
        );
    }
    s.push_str("\nloaded p50/p95 and baseline p50 count a probe without a reply within the timeout as \"≥ the timeout\" (censoring-aware, method §5.6: the figures used everywhere); the replies-only columns leave timeouts out (method §5.5) and carry their count.\n");
    s
}

/// The goodput cell: each direction's aggregate when there are several.
fn goodput_cell(r: &SummaryRow) -> String {
    if r.goodput_by_direction.len() > 1 {
        r.goodput_by_direction
            .iter()
            .map(|(d, g)| {
                format!(
                    "{d} {}",
                    g.map_or_else(|| "–".into(), |g| format!("{g:.3}"))
                )
            })
            .collect::<Vec<_>>()
            .join(" / ")
    } else {
        r.goodput_mbps
            .map_or_else(|| "–".into(), |g| format!("{g:.3}"))
    }
}

/// The drops cell (the arm's, TBF's beside it, per direction when there
/// are several) and the CE/ECE/CWR cell.
fn drops_and_ecn_cells(r: &SummaryRow) -> (String, String) {
    let drops_text = |c: Option<u64>, t: Option<u64>| match (c, t) {
        (Some(c), Some(t)) => format!("{c} (tbf {t})"),
        (Some(c), None) => c.to_string(),
        _ => "–".into(),
    };
    let drops = if r.drops_by_direction.len() > 1 {
        r.drops_by_direction
            .iter()
            .map(|(d, c, t)| format!("{d} {}", drops_text(*c, *t)))
            .collect::<Vec<_>>()
            .join(" / ")
    } else {
        drops_text(r.child_drops, r.tbf_drops)
    };
    let ecn = match r.ce_ece_cwr {
        Some((ce, ece, cwr)) => {
            let neg = match r.ecn_negotiated {
                Some(true) => "",
                Some(false) => " (not negotiated)",
                None => "",
            };
            format!("{ce}/{ece}/{cwr}{neg}")
        }
        None => "–".into(),
    };
    (drops, ecn)
}

/// The baseline p95 of each scenario, in execution order.
pub fn baseline_list(rows: &[SummaryRow]) -> String {
    let mut s = String::from("Baseline p95 (probe only, replies only), in execution order:\n\n");
    for (i, r) in rows.iter().enumerate() {
        let (sent, ok, p95) = r.baseline;
        let _ = writeln!(
            s,
            "{}. round {} {}: {} ms (ok {}/{} sent)",
            i + 1,
            r.round,
            r.arm,
            opt_ms(p95),
            ok,
            sent
        );
    }
    s
}

/// The whole summary.md.
pub fn markdown(
    header: &str,
    headline: Option<&str>,
    rows: &[SummaryRow],
    sections: &[String],
    extra_notes: &[String],
) -> String {
    let mut s = String::new();
    s.push_str(header);
    s.push_str("\n\n");
    if let Some(h) = headline {
        s.push_str(h);
        s.push_str("\n## Per scenario\n\n");
    }
    s.push_str(&table(rows));
    s.push('\n');
    for section in sections {
        s.push_str(section);
        s.push('\n');
    }
    s.push_str(&baseline_list(rows));
    s.push_str("\nNotes:\n\n");
    let timeout_ms = rows.iter().find_map(|r| r.probe_timeout_ms);
    // The notes follow the arms' kinds (a row's arm is its label).
    for n in notes_for(
        rows.iter()
            .map(|r| r.arm_words.split_whitespace().next().unwrap_or(&r.arm)),
    )
    .into_iter()
    .filter(|n| note_fits_arms(n, rows.iter().map(|r| r.arm_words.as_str())))
    .filter_map(|n| note_for_probe(n, timeout_ms))
    {
        let _ = writeln!(s, "- {n}");
    }
    for n in extra_notes {
        let _ = writeln!(s, "- {n}");
    }
    s
}

/// What summary.md says below its table that index.html says too
/// ([`crate::model::SummaryParts`]): the sections, the queue and the
/// bottleneck, the baseline list and the scenarios' own notes (the run's
/// final teardown is not in results.json, so its notes are not here).
pub fn parts(scenarios: &[ScenarioFigures]) -> crate::model::SummaryParts {
    let rows: Vec<SummaryRow> = scenarios.iter().map(|f| f.row.clone()).collect();
    let mut sections = sections(scenarios);
    sections.push(crate::path_seen::section(scenarios));
    sections.push(baseline_list(&rows));
    crate::model::SummaryParts {
        sections,
        scenario_notes: extra_notes(scenarios, 0),
    }
}

/// summary.md of a run. `failed_teardown_steps` counts the run's final
/// teardown steps that failed (they happen after the last scenario and are
/// printed, not kept in results.json).
pub fn render(results: &Results, failed_teardown_steps: usize) -> String {
    let headline = headline_of(crate::input_from(results).as_ref());
    render_figures(
        results,
        &figures(results),
        headline.as_deref(),
        failed_teardown_steps,
    )
}

/// The headline section ([`crate::headline`]) of a run's report input; a
/// run whose input cannot be built (a value the report cannot draw) has
/// none, and its report says why.
pub fn headline_of(input: Result<&crate::ReportInput, &crate::ReportError>) -> Option<String> {
    input.ok().map(|i| crate::headline::of_input(i).markdown())
}

/// summary.md of a run from its header (`results`, whose own `scenarios`
/// are not read), its headline ([`headline_of`]) and its scenarios'
/// figures, in execution order.
pub fn render_figures(
    results: &Results,
    scenarios: &[ScenarioFigures],
    headline: Option<&str>,
    failed_teardown_steps: usize,
) -> String {
    let rows: Vec<SummaryRow> = scenarios.iter().map(|f| f.row.clone()).collect();
    // Caveats stand right below the table whose figures they qualify.
    let mut sections_with_caveats: Vec<String> = caveats(results, scenarios)
        .into_iter()
        .map(|c| format!("**Caveat:** {c}\n"))
        .collect();
    sections_with_caveats.extend(sections(scenarios));
    sections_with_caveats.push(crate::path_seen::section(scenarios));
    markdown(
        &header(
            results,
            &scenarios.iter().map(|f| f.index).collect::<Vec<_>>(),
        ),
        headline,
        &rows,
        &sections_with_caveats,
        &extra_notes(scenarios, failed_teardown_steps),
    )
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
    /// The arm's label ([`crate::arms`]; the kind until
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
    pub path: Option<PathSeen>,
    /// The kernel and CPU that ran it, when recorded.
    pub machine: Option<MachineFigures>,
    /// What the queue held and whether the shaper was the bottleneck.
    pub path_seen: crate::path_seen::PathSeen,
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
            row: row(s),
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
                })
                .collect(),
            directions: s.directions.clone(),
            host_shares: hosts::host_shares(s),
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
            }),
            loaded_fates: s
                .probe()
                .and_then(|p| p.fates.as_ref())
                .and_then(|f| f.phase(netlab_probe::Phase::Loaded).cloned()),
            notes: notes_of(s),
            receive_buffer: ReceiveBufferSeen::of(s),
            path: PathSeen::of(s),
            machine: s.ran_on.as_ref().map(|r| MachineFigures {
                kernel: r.kernel_release.clone(),
                cpu: r.cpu_model.clone(),
            }),
            path_seen: crate::path_seen::PathSeen::of(s),
        }
    }
}

/// Every scenario's figures, in execution order, each arm labelled as
/// the run's arms tell it apart ([`crate::arms`]).
pub fn figures(results: &Results) -> Vec<ScenarioFigures> {
    let labels = crate::arms::ArmLabels::of_experiment(&results.experiment);
    results
        .scenarios
        .iter()
        .map(|s| ScenarioFigures::of(s).labelled(labels.label(&s.arm, &s.arm_words)))
        .collect()
}

/// One row per scenario, in execution order, each arm labelled as the
/// run's arms tell it apart ([`crate::arms`]).
pub fn rows(results: &Results) -> Vec<SummaryRow> {
    figures(results).into_iter().map(|f| f.row).collect()
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

fn censored_text(q: Option<netlab_probe::RankQuantile>) -> String {
    q.map_or_else(|| "–".into(), |q| format!("{q:.2}"))
}

/// The summary row of one scenario.
pub fn row(s: &ScenarioResult) -> SummaryRow {
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

/// The notes particular to this run: failures, capture drops, probe
/// requests that never reached B, goodput above the shaped rate, ECN not
/// negotiated, failed teardown steps.
pub fn extra_notes(scenarios: &[ScenarioFigures], failed_teardown_steps: usize) -> Vec<String> {
    let mut notes: Vec<String> = receive_buffer_note(scenarios).into_iter().collect();
    let paths: Vec<Option<&PathSeen>> = scenarios.iter().map(|f| f.path.as_ref()).collect();
    notes.extend(path_note(&paths));
    notes.extend(scenarios.iter().flat_map(|f| f.notes.clone()));
    if failed_teardown_steps > 0 {
        notes.push(format!("{failed_teardown_steps} cleanup step(s) failed: see results.json and run `orchestrator cleanup`"));
    }
    notes
}

/// How A and B started their receive buffers (method §1.3); nothing for
/// runs recorded before netlab read `tcp_rmem`.
pub fn receive_buffer_note(scenarios: &[ScenarioFigures]) -> Option<String> {
    let mut at_max: Vec<&str> = Vec::new();
    let mut kernel: Vec<&str> = Vec::new();
    for f in scenarios {
        match &f.receive_buffer {
            Some(ReceiveBufferSeen::AtMax(v)) => at_max.push(v),
            Some(ReceiveBufferSeen::Kernel(v)) => kernel.push(v),
            None => {}
        }
    }
    for v in [&mut at_max, &mut kernel] {
        v.sort_unstable();
        v.dedup();
    }
    match (at_max.is_empty(), kernel.is_empty()) {
        (true, true) => None,
        (false, true) => Some(format!(
            "A and B started every TCP receive buffer at tcp_rmem's max (net.ipv4.tcp_rmem read back as `{}`, `[path] receive_buffer = \"max\"`): an opt-in change to the path, which shortens pfifo's standing queue for any load (docs/method.md §1.3).",
            at_max.join("`, `")
        )),
        (true, false) => Some(format!(
            "A and B kept the kernel's tcp_rmem (`{}`): the method's path, the kernel's defaults plus the method's sysctls (docs/method.md §1.3).",
            kernel.join("`, `")
        )),
        (false, false) => Some(
            "Some scenarios started A's and B's receive buffers at tcp_rmem's max and some kept the kernel's (results.json has each scenario's sysctls; docs/method.md §1.3).".to_string(),
        ),
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

/// A flow whose sender connected this much later than its planned start
/// is named (method §3.3: the senders are made ready before t0, and
/// connect 3-18 ms after their mark, 24 of them together in the guest).
pub const LATE_START_S: f64 = 0.5;

/// The flows that connected more than [`LATE_START_S`] after their planned
/// start: a late flow had a shorter warm-up than planned, and one that
/// connected after the window opened loaded only part of it.
fn late_start_note(s: &ScenarioResult) -> Option<String> {
    let late: Vec<(usize, f64, f64, f64)> = s
        .flows
        .iter()
        .filter_map(|f| {
            let t = f.tcp.as_ref()?;
            let lag = t.start_s - f.start_s;
            (lag > LATE_START_S).then_some((f.index, t.start_s, lag, t.window_s[0]))
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
        "scenario {} (round {}, {}): {} flow(s) connected more than {LATE_START_S} s after their planned start ({}{}): their warm-up was shorter than planned{}",
        s.index,
        s.round,
        s.arm,
        late.len(),
        list.join("; "),
        if more > 0 { format!("; {more} more") } else { String::new() },
        if inside > 0 {
            format!(", and {inside} connected after the measured window opened at {window:.2} s, so they loaded only part of it")
        } else {
            String::new()
        }
    ))
}

#[cfg(test)]
mod tests;
