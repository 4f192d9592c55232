//! The human summary: the method §9 table, the baseline p95 list and the notes
//! that qualify the figures. Pure: a function of the typed [`Results`], so a
//! test recomputes summary.md from results.json byte for byte.

use std::fmt::Write as _;

use netlab_probe::{PhaseStats, RequestOutcome};
use netlab_qdisc::{QdiscRecord, ARM_HANDLE};

use crate::results::{QdiscResult, Results, ScenarioResult};

/// One row of the summary table: one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// Round number (1-based).
    pub round: u32,
    /// Arm kind, e.g. `fq_codel`.
    pub arm: String,
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
    /// Censoring-aware loaded p50/p95, as text (`12.3` or `≥ 1000 ms (censored)`).
    pub censored: Option<(String, String)>,
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
    v.map_or_else(|| "None".to_string(), |v| format!("{v:.2}"))
}

/// The notes every summary carries (method §2, §5, §6, §7).
pub const NOTES: &[&str] = &[
    "TBF's own `limit` is NOT the effective queue bound here: the arm replaces TBF's default inner bfifo, so the child's limit bounds the queue (and the latency tc derives from TBF's limit does not apply).",
    "The arms differ in more than AQM: pfifo and fq_codel both have a 256-packet limit, which is not equal bytes or memory (skb/GSO sizes vary), and fq_codel adds flow queueing and a memory limit. This is not a single-variable AQM comparison.",
    "drops = the arm's (child 10:) drop counter; the TBF parent's drops are shown beside it. Parent and child counters can count the same packet: never sum them.",
    "overlimits (in results.json) counts shaping events, not loss.",
    "Probe timeouts are not loss: a timeout cannot tell a lost packet from more than 1 s of queueing. Quantiles are over successful probes only and always travel with their counts; the censoring-aware view treats a timeout as '≥ 1000 ms'.",
    "Loaded probe sends cover the load window minus its last second (no new request in the last 1 s), while goodput covers the whole window.",
    "The TCP RTT from the sender's tcp_info (results.json tcp_info[]) is not the UDP echo RTT: they are kept apart.",
    "ECN counts are evidence on the wire, not a one-to-one mark-to-window trace; CWR alone (RFC 3168 §6.1.2 allows it after any window reduction) is not proof of CE feedback.",
    "Final qdisc counters are read while traffic can still drain, parent then child, so they are not an atomic snapshot; counters cover warm-up and termination, goodput does not.",
    "Goodput counts bytes by the time B's application received them. After a loss, data that crossed the bottleneck earlier waits in B's out-of-order queue and is handed over in one burst once the hole is repaired, so a window's goodput can exceed the shaped rate (results.json keeps the per-200 ms series that shows it).",
    "Bytes the sender's socket accepted are local socket input, not delivered bytes; full stream delivery at close is not claimed.",
];

/// Renders the table as Markdown.
pub fn table(rows: &[SummaryRow]) -> String {
    let mut s = String::new();
    s.push_str("| Round | arm | goodput Mbit/s | loaded probes/timeouts | successful p50/p95 ms | drops | CE/ECE/CWR seen |\n");
    s.push_str("|---|---|---|---|---|---|---|\n");
    for r in rows {
        if let Some(e) = &r.error {
            let _ = writeln!(
                s,
                "| {} | {} | failed: {} | | | | |",
                r.round,
                r.arm,
                e.replace('|', "/")
            );
            continue;
        }
        let goodput = if r.goodput_by_direction.len() > 1 {
            r.goodput_by_direction
                .iter()
                .map(|(d, g)| {
                    format!(
                        "{d} {}",
                        g.map_or_else(|| "None".into(), |g| format!("{g:.3}"))
                    )
                })
                .collect::<Vec<_>>()
                .join(" / ")
        } else {
            r.goodput_mbps
                .map_or_else(|| "None".into(), |g| format!("{g:.3}"))
        };
        let quant = format!(
            "{}/{} (n={})",
            opt_ms(r.p50_ms),
            opt_ms(r.p95_ms),
            r.loaded_ok
        );
        let drops_text = |c: Option<u64>, t: Option<u64>| match (c, t) {
            (Some(c), Some(t)) => format!("{c} (tbf {t})"),
            (Some(c), None) => c.to_string(),
            _ => "None".into(),
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
            None => "None".into(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {}/{} | {} | {} | {} |",
            r.round, r.arm, goodput, r.loaded_sent, r.loaded_timeouts, quant, drops, ecn
        );
    }
    s
}

/// The baseline p95 of each scenario, in execution order.
pub fn baseline_list(rows: &[SummaryRow]) -> String {
    let mut s =
        String::from("Baseline p95 (probe only, successful requests), in execution order:\n\n");
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

/// The censoring-aware loaded quantiles, one line per scenario.
pub fn censored_list(rows: &[SummaryRow]) -> String {
    let mut s = String::from(
        "Censoring-aware loaded p50/p95 over all requests (a timeout counts as '≥ 1000 ms'):\n\n",
    );
    for r in rows {
        if let Some((p50, p95)) = &r.censored {
            let _ = writeln!(
                s,
                "- round {} {}: p50 {p50}, p95 {p95} (sent {})",
                r.round, r.arm, r.loaded_sent
            );
        }
    }
    s
}

/// The whole summary.md.
pub fn markdown(
    header: &str,
    rows: &[SummaryRow],
    sections: &[String],
    extra_notes: &[String],
) -> String {
    let mut s = String::new();
    s.push_str(header);
    s.push_str("\n\n");
    s.push_str(&table(rows));
    s.push('\n');
    for section in sections {
        s.push_str(section);
        s.push('\n');
    }
    s.push_str(&baseline_list(rows));
    s.push('\n');
    s.push_str(&censored_list(rows));
    s.push_str("\nNotes:\n\n");
    for n in NOTES {
        let _ = writeln!(s, "- {n}");
    }
    for n in extra_notes {
        let _ = writeln!(s, "- {n}");
    }
    s
}

/// summary.md of a run. `failed_teardown_steps` counts the run's final
/// teardown steps that failed (they happen after the last scenario and are
/// printed, not kept in results.json).
pub fn render(results: &Results, failed_teardown_steps: usize) -> String {
    markdown(
        &header(results),
        &rows(results),
        &sections(results),
        &extra_notes(results, failed_teardown_steps),
    )
}

/// The summary's title block: run, kernel, rounds, arms, bottleneck(s),
/// and what the method's experiment does not have (base RTT, flows).
pub fn header(results: &Results) -> String {
    let exp = &results.experiment;
    let path = exp.path.clone().unwrap_or_default();
    let shaper = |sh: &Option<netlab_experiment::file::ShaperFile>| {
        sh.as_ref().filter(|s| s.shaped != Some(false)).map(|s| {
            format!(
                "rate {} burst {} limit {}",
                s.rate.clone().unwrap_or_default(),
                s.burst.clone().unwrap_or_default(),
                s.limit.clone().unwrap_or_default()
            )
        })
    };
    let tbf = match (shaper(&path.up), shaper(&path.down)) {
        (Some(up), None) => up,
        (None, Some(down)) => format!("down {down}"),
        (Some(up), Some(down)) => format!("up {up}; down {down}"),
        (None, None) => "none (unshaped)".into(),
    };
    let mut extra = String::new();
    if let Some(rtt) = path
        .base_rtt
        .as_ref()
        .filter(|r| netlab_experiment::units::parse_duration(r, true).is_ok_and(|d| !d.is_zero()))
    {
        let _ = write!(extra, " Base RTT {rtt} (netem at R's roots).");
    }
    let flows = exp.flows.clone().unwrap_or_default();
    if flows.len() > 1 {
        let count = |d: &str| {
            flows
                .iter()
                .filter(|f| f.direction.as_deref().unwrap_or("up") == d)
                .count()
        };
        let _ = write!(extra, " Flows: {} up, {} down.", count("up"), count("down"));
    }
    let arms = exp.arms.clone().unwrap_or_default();
    let banner = results
        .interrupted
        .as_ref()
        .map(|i| format!("{}\n\n", interrupted_banner(i, results.scenarios.len())))
        .unwrap_or_default();
    format!(
        "# netlab comparison {}\n\n{banner}Kernel: {} {} ({}). Rounds: {}. Arms: {}. TBF {}.{extra}\nResults: results.json (every raw sample).",
        results.run_id,
        results.kernel.mode,
        results.kernel.release,
        results.kernel.chosen_because,
        exp.rounds.unwrap_or(1),
        arms.join(" | "),
        tbf,
    )
}

/// The first thing an interrupted run's summary says: which signal, where,
/// and what that means for the scenarios listed.
pub fn interrupted_banner(i: &crate::results::Interrupted, listed: usize) -> String {
    let at = i
        .at_s
        .map(|t| format!(", {t:.1} s after t0"))
        .unwrap_or_default();
    match i.scenario {
        Some(n) => format!(
            "**Interrupted by {} during scenario {n} ({} phase{at}).** {}; \
             scenario {n} keeps its samples up to the stop, its error and its cleanup receipts; \
             the run's later scenarios did not run.",
            i.signal,
            i.phase,
            match n {
                0 | 1 => "No scenario had completed before it".to_string(),
                2 => "Scenario 1 is complete".to_string(),
                _ => format!("Scenarios 1–{} are complete", n - 1),
            }
        ),
        None => format!(
            "**Interrupted by {} {}.** {listed} scenario(s) completed before it; none was cut short.",
            i.signal, i.phase
        ),
    }
}

/// Sections beyond the method's table: per-flow goodput and fairness when a
/// scenario has several flows, and the sweep grid when there are several
/// points. Empty for the method's experiment.
pub fn sections(results: &Results) -> Vec<String> {
    let mut out = Vec::new();
    if results.scenarios.iter().any(|s| s.flows.len() > 1) {
        out.push(flows_section(results));
    }
    if results.scenarios.iter().any(|s| s.iso_probe.is_some()) {
        out.push(iso_section(results));
    }
    let mut points: Vec<u32> = results.scenarios.iter().map(|s| s.point.index).collect();
    points.dedup();
    if points.len() > 1 {
        out.push(grid(results));
    }
    out
}

/// The isochronous probe's own table (issue 15): per scenario and phase
/// (baseline, loaded), the slots sent, the successes, the late replies,
/// the requests lost or censored at the timeout, p50/p95/p99 of the
/// successes with their count, the censoring-aware p50/p95/p99 over all
/// sent requests (a bound where the rank falls on the censored mass) and
/// the up/down one-way p50.
pub fn iso_section(results: &Results) -> String {
    use netlab_probe::Phase;
    let mut s = String::from(
        "Isochronous probe (a request every interval on a fixed grid, beside the stop-and-wait probe above):\n\n",
    );
    s.push_str("| Scenario | round | arm | phase | interval ms | sent | ok | late | lost or censored | successful p50/p95/p99 ms | censoring-aware p50/p95/p99 ms | up/down p50 ms |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let mut notes = Vec::new();
    for sc in &results.scenarios {
        let Some(iso) = &sc.iso_probe else {
            continue;
        };
        let interval = iso.log.config.interval.as_secs_f64() * 1e3;
        for (phase, label) in [(Phase::Baseline, "baseline"), (Phase::Loaded, "loaded")] {
            let Some(p) = iso.phase(phase) else {
                continue;
            };
            let st = &p.stats;
            let oneway = match (st.up, st.down) {
                (Some(u), Some(d)) => format!("{}/{}", opt_ms(u.p50_ms), opt_ms(d.p50_ms)),
                _ => "absent".into(),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {interval} | {} | {} | {} | {} | {}/{}/{} (n={}) | {}/{}/{} (of {}) | {oneway} |",
                sc.index,
                sc.round,
                sc.arm,
                label,
                st.sent,
                st.ok,
                st.late,
                st.censored,
                opt_ms(st.rtt.p50_ms),
                opt_ms(st.rtt.p95_ms),
                opt_ms(st.rtt.p99_ms),
                st.ok,
                censored_text(st.rtt_censored.p50),
                censored_text(st.rtt_censored.p95),
                censored_text(st.rtt_censored.p99),
                st.sent,
            );
        }
        let r = &iso.log.replies;
        let missed: u32 = iso.phases.iter().map(|p| p.stats.missed).sum();
        if missed > 0 || r.duplicate > 0 || r.malformed > 0 || iso.log.stopped_early {
            notes.push(format!(
                "scenario {}: {missed} missed slot(s), {} duplicate and {} malformed replies{}",
                sc.index,
                r.duplicate,
                r.malformed,
                if iso.log.stopped_early {
                    ", stopped early"
                } else {
                    ""
                }
            ));
        }
    }
    s.push_str("\nlate ⊂ lost or censored: a reply after the timeout is kept in results.json but never a success. Per-1 s windows of every scenario are in results.json (iso_probe.windows).\n");
    if let Some(note) = results
        .scenarios
        .iter()
        .find_map(|sc| sc.iso_probe.as_ref().map(|i| i.log.one_way_note.clone()))
    {
        let _ = writeln!(s, "One-way delays: {note}.");
    }
    for n in notes {
        let _ = writeln!(s, "- {n}");
    }
    s
}

fn fmt3(v: Option<f64>) -> String {
    v.map_or_else(|| "None".into(), |v| format!("{v:.3}"))
}

/// Per scenario and direction: each flow's goodput and cc, the aggregate
/// and Jain's fairness index.
pub fn flows_section(results: &Results) -> String {
    let mut s = String::from(
        "Per-flow goodput (Mbit/s, cc read back) and Jain's fairness index per direction:\n\n",
    );
    for sc in &results.scenarios {
        for d in &sc.directions {
            let flows: Vec<String> = sc
                .flows
                .iter()
                .filter(|f| f.direction == d.direction)
                .map(|f| {
                    let cc = f
                        .tcp
                        .as_ref()
                        .map_or_else(|| f.cc.clone(), |t| t.cc_readback.clone());
                    format!(
                        "#{} {cc} {}",
                        f.index,
                        fmt3(f.tcp.as_ref().and_then(|t| t.goodput_mbps))
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                "- scenario {} (round {}, {}) {}: aggregate {} of {} Mbit/s, fairness {} over {} flow(s): {}",
                sc.index,
                sc.round,
                sc.arm,
                d.direction,
                fmt3(d.goodput_mbps),
                d.rate_mbps.map_or_else(|| "unshaped".into(), |r| format!("{r}")),
                d.fairness.map_or_else(|| "None".into(), |f| format!("{f:.3}")),
                d.flows,
                flows.join(", ")
            );
        }
    }
    s
}

/// The sweep grid: one line per point × arm, over its rounds: loaded
/// p50/p95 (medians over the rounds) with the probe counts, aggregate
/// goodput and fairness per direction.
pub fn grid(results: &Results) -> String {
    let mut s = String::from("Sweep grid (point × arm; loaded p50/p95 ms are medians over rounds, n = successful loaded probes over all rounds; goodput = aggregate per direction, fairness = Jain's index):\n\n| point | arm | rounds | loaded p50/p95 ms (n) | goodput Mbit/s | fairness |\n|---|---|---|---|---|---|\n");
    let mut keys: Vec<(u32, String, String)> = Vec::new();
    for sc in &results.scenarios {
        let k = (sc.point.index, sc.point.label.clone(), sc.arm_words.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let median = |mut v: Vec<f64>| -> Option<f64> {
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        Some(if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        })
    };
    for (index, label, words) in keys {
        let of: Vec<&ScenarioResult> = results
            .scenarios
            .iter()
            .filter(|sc| sc.point.index == index && sc.arm_words == words)
            .collect();
        let loaded: Vec<&PhaseStats> = of
            .iter()
            .filter_map(|sc| sc.probe().and_then(|p| p.phases.loaded.as_ref()))
            .collect();
        let n: u32 = loaded.iter().map(|l| l.ok).sum();
        let p50 = median(loaded.iter().filter_map(|l| l.p50_ms).collect());
        let p95 = median(loaded.iter().filter_map(|l| l.p95_ms).collect());
        let mut goodput = Vec::new();
        let mut fairness = Vec::new();
        for dir in ["up", "down"] {
            let ds: Vec<_> = of
                .iter()
                .filter_map(|sc| sc.directions.iter().find(|d| d.direction == dir))
                .collect();
            if ds.is_empty() {
                continue;
            }
            goodput.push(format!(
                "{dir} {}",
                fmt3(median(ds.iter().filter_map(|d| d.goodput_mbps).collect()))
            ));
            fairness.push(format!(
                "{dir} {}",
                median(ds.iter().filter_map(|d| d.fairness).collect())
                    .map_or_else(|| "None".into(), |f| format!("{f:.3}"))
            ));
        }
        let arm = words.split_whitespace().next().unwrap_or("");
        let _ = writeln!(
            s,
            "| {index} {label} | {arm} | {} | {}/{} (n={n}) | {} | {} |",
            of.len(),
            opt_ms(p50),
            opt_ms(p95),
            goodput.join(" / "),
            fairness.join(" / ")
        );
    }
    s
}

/// One row per scenario, in execution order.
pub fn rows(results: &Results) -> Vec<SummaryRow> {
    results.scenarios.iter().map(row).collect()
}

fn drops_of(records: &[QdiscRecord], handle: netlab_qdisc::Handle) -> Option<u64> {
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

fn censored_text(q: Option<netlab_probe::CensoredQuantile>) -> String {
    q.map_or_else(|| "None".into(), |q| format!("{q:.2}"))
}

/// The summary row of one scenario.
pub fn row(s: &ScenarioResult) -> SummaryRow {
    let phases = s.probe().map(|p| &p.phases);
    let bottleneck = shaped(s).first().copied();
    let loaded: Option<&PhaseStats> = phases.and_then(|p| p.loaded.as_ref());
    let baseline: Option<&PhaseStats> = phases.and_then(|p| p.baseline.as_ref());
    let count =
        |p: Option<&PhaseStats>, f: fn(&PhaseStats) -> u32| p.map_or(0, |p| u64::from(f(p)));
    let ecn = s.ecn.as_ref().map(|e| &e.report);
    SummaryRow {
        round: s.round,
        arm: s.arm.clone(),
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
        censored: loaded.map(|l| (censored_text(l.p50_censored), censored_text(l.p95_censored))),
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
pub fn extra_notes(results: &Results, failed_teardown_steps: usize) -> Vec<String> {
    let mut notes = Vec::new();
    for s in &results.scenarios {
        if let Some(e) = &s.error {
            notes.push(format!(
                "scenario {} (round {}, {}) failed: {e}",
                s.index, s.round, s.arm
            ));
        }
        if let Some(drops) = s
            .ecn
            .as_ref()
            .and_then(|e| e.report.kernel)
            .map(|k| k.drops)
        {
            if drops > 0 {
                notes.push(format!(
                    "scenario {}: the capture's socket dropped {drops} frame(s) (PACKET_STATISTICS): its ECN counts are a lower bound",
                    s.index
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
        if s.ecn.as_ref().is_some_and(|e| !e.report.negotiated) {
            notes.push(format!(
                "scenario {}: classic ECN was NOT negotiated on the wire",
                s.index
            ));
        }
    }
    if failed_teardown_steps > 0 {
        notes.push(format!("{failed_teardown_steps} cleanup step(s) failed: see results.json and run `orchestrator cleanup`"));
    }
    notes
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn golden() -> (Results, String) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/orchestrator/golden");
        let results = Results::read(&dir.join("results.json")).unwrap();
        let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
        (results, md)
    }

    #[test]
    fn golden_results_regenerate_their_summary_byte_for_byte() {
        let (results, md) = golden();
        assert_eq!(render(&results, 0), md);
    }

    /// An isochronous log of 20 ms slots over 18 s: baseline all 2 ms,
    /// loaded 60 % ok at 300 ms, the rest censored (some late).
    fn iso_log() -> netlab_probe::IsoLog {
        use netlab_probe::{IsoConfig, IsoOutcome, IsoRequest, OneWayDelays};
        let cfg = IsoConfig::default();
        let requests = (0..cfg.slots() as u32)
            .map(|k| {
                let due = cfg.due(u64::from(k));
                let phase = cfg.phases.phase_of(due);
                let censored = phase == netlab_probe::Phase::Loaded && k % 5 >= 3;
                let rtt = if phase == netlab_probe::Phase::Baseline {
                    2.0
                } else {
                    300.0
                };
                IsoRequest {
                    seq: k,
                    due_s: due.as_secs_f64(),
                    send_s: Some(due.as_secs_f64()),
                    phase,
                    outcome: if censored {
                        IsoOutcome::Timeout
                    } else {
                        IsoOutcome::Reply
                    },
                    reply_s: None,
                    rtt_ms: (!censored).then_some(rtt),
                    late_rtt_ms: (censored && k % 5 == 3).then_some(1200.0),
                    up_ms: (!censored).then_some(rtt - 0.5),
                    down_ms: (!censored).then_some(0.49),
                    turnaround_ms: (!censored).then_some(0.01),
                }
            })
            .collect();
        netlab_probe::IsoLog {
            one_way_delays: OneWayDelays::ExactSharedClock,
            one_way_note: OneWayDelays::ExactSharedClock.note().into(),
            config: cfg,
            t0_monotonic_ns: 1,
            requests,
            replies: Default::default(),
            recv_errors: 0,
            stopped_early: false,
            fatal_error: None,
        }
    }

    #[test]
    fn the_iso_probe_adds_its_own_table_and_keeps_the_spec_one() {
        let (mut results, md) = golden();
        assert!(!md.contains("Isochronous"));
        results.scenarios[1].iso_probe =
            Some(crate::results::IsoProbeResult::of(iso_log(), None, None));
        let out = render(&results, 0);
        // the method's table is unchanged
        assert!(out.contains(&table(&rows(&results))));
        assert_eq!(table(&rows(&results)), {
            let (g, _) = golden();
            table(&rows(&g))
        });
        let sc = &results.scenarios[1];
        // loaded: slots due 6 s ..= 17 s = 551; 3 of every 5 ok → 331 ok,
        // 220 censored of which 110 late; p50 over all sent is rank 276 ≤
        // 331 → a value, p95 rank 524 > 331 → a bound
        let row = format!(
            "| {} | {} | {} | loaded | 20 | 551 | 331 | 110 | 220 | 300.00/300.00/300.00 (n=331) | 300.00/",
            sc.index, sc.round, sc.arm
        );
        assert!(out.contains(&row), "{out}");
        assert!(out.contains("≥ 1000"), "{out}");
        assert!(out.contains("| 299.50/0.49 |"), "{out}");
        let base = format!(
            "| {} | {} | {} | baseline | 20 | 150 | 150 | 0 | 0 | 2.00/2.00/2.00 (n=150) | 2.00/2.00/2.00 (of 150) | 1.50/0.49 |",
            sc.index, sc.round, sc.arm
        );
        assert!(out.contains(&base), "{out}");
        assert!(out.contains("One-way delays: up/down one-way delays are exact"));
        // the results round-trip with it
        let json = serde_json::to_string(&results).unwrap();
        let back: Results = serde_json::from_str(&json).unwrap();
        // (serde_json's default float parsing may move an f64 by one ulp,
        // so compare what the summary reads, not every due time)
        let (a, b) = (
            back.scenarios[1].iso_probe.as_ref().unwrap(),
            results.scenarios[1].iso_probe.as_ref().unwrap(),
        );
        assert_eq!(a.log.config, b.log.config);
        assert_eq!(a.phases, b.phases);
        assert_eq!(a.log.requests.len(), b.log.requests.len());
        assert_eq!(render(&back, 0), out);
    }

    #[test]
    fn rows_come_from_the_typed_fields() {
        let (results, _) = golden();
        let r = rows(&results);
        assert_eq!(r.len(), 2);
        let fq = &r[1];
        let s = &results.scenarios[1];
        let loaded = s.probe().unwrap().phases.loaded.clone().unwrap();
        assert_eq!(fq.arm, "fq_codel");
        assert_eq!(fq.loaded_sent, u64::from(loaded.sent));
        assert_eq!(fq.loaded_ok, u64::from(loaded.ok));
        assert_eq!(fq.p95_ms, loaded.p95_ms);
        let child = s
            .qdisc_of("up")
            .unwrap()
            .at_window_end
            .iter()
            .find(|q| q.kind == "fq_codel")
            .unwrap();
        assert_eq!(fq.child_drops, Some(u64::from(child.stats.unwrap().drops)));
        let e = &s.ecn.as_ref().unwrap().report.counts;
        assert_eq!(fq.ce_ece_cwr, Some((e.ce, e.ece, e.cwr)));
        assert_eq!(fq.ecn_negotiated, Some(true));
    }

    #[test]
    fn a_missing_part_shows_none_not_zero() {
        let (mut results, _) = golden();
        let s = &mut results.scenarios[0];
        s.qdiscs[0].at_window_end.clear();
        s.ecn = None;
        s.probes.clear();
        let r = super::row(s);
        assert_eq!((r.child_drops, r.tbf_drops), (None, None));
        assert_eq!(r.ce_ece_cwr, None);
        assert_eq!(r.censored, None);
        assert!(table(&[r]).contains("| None | None |"));
    }

    #[test]
    fn run_notes_follow_the_data() {
        let (mut results, _) = golden();
        assert!(extra_notes(&results, 0)
            .iter()
            .all(|n| !n.contains("failed") && !n.contains("NOT negotiated")));
        let s = &mut results.scenarios[1];
        s.error = Some("final qdisc readback: boom".into());
        let ecn = s.ecn.as_mut().unwrap();
        ecn.report.negotiated = false;
        ecn.report.kernel = Some(netlab_ecn::KernelStats {
            packets: 10,
            drops: 3,
        });
        s.directions[0].goodput_mbps = Some(5.5);
        let notes = extra_notes(&results, 2);
        let has = |needle: &str| notes.iter().any(|n| n.contains(needle));
        assert!(has(
            "scenario 2 (round 1, fq_codel) failed: final qdisc readback: boom"
        ));
        assert!(has("scenario 2: classic ECN was NOT negotiated"));
        assert!(has("dropped 3 frame(s)"));
        assert!(has("goodput 5.500 Mbit/s is above the TBF rate 5 Mbit/s"));
        assert!(has("2 cleanup step(s) failed"));
        assert!(
            render(&results, 2).contains("| 1 | fq_codel | failed: final qdisc readback: boom |")
        );
    }

    #[test]
    fn probe_requests_that_never_reached_b_are_counted() {
        let (mut results, _) = golden();
        let s = &mut results.scenarios[0];
        let sent = s.probe().unwrap().requests.len() as u64;
        let echo = s.echo.as_mut().unwrap();
        echo.received = sent - 3;
        let notes = extra_notes(&results, 0);
        assert!(
            notes.iter().any(
                |n| n.contains(&format!("received {} of the {sent}", sent - 3))
                    && n.contains("3 never reached B")
            ),
            "{notes:?}"
        );
        echo_all(&mut results);
        assert!(extra_notes(&results, 0)
            .iter()
            .all(|n| !n.contains("never reached B")));
    }

    fn echo_all(results: &mut Results) {
        for s in &mut results.scenarios {
            let sent = s.probe().unwrap().requests.len() as u64;
            s.echo.as_mut().unwrap().received = sent;
        }
    }

    fn row(round: u32, arm: &str) -> SummaryRow {
        SummaryRow {
            round,
            arm: arm.into(),
            goodput_mbps: Some(4.812),
            goodput_by_direction: vec![("up".into(), Some(4.812))],
            loaded_sent: 55,
            loaded_ok: 53,
            loaded_timeouts: 2,
            p50_ms: Some(12.345),
            p95_ms: None,
            censored: Some(("12.35".into(), "≥ 1000 ms (censored)".into())),
            child_drops: Some(7),
            tbf_drops: Some(0),
            drops_by_direction: vec![("up".into(), Some(7), Some(0))],
            ce_ece_cwr: Some((10, 9, 3)),
            ecn_negotiated: Some(true),
            baseline: (15, 15, Some(0.2)),
            error: None,
        }
    }

    #[test]
    fn table_shows_counts_and_none() {
        let t = table(&[row(1, "pfifo")]);
        assert!(
            t.contains("| 1 | pfifo | 4.812 | 55/2 | 12.35/None (n=53) | 7 (tbf 0) | 10/9/3 |"),
            "{t}"
        );
    }

    #[test]
    fn failed_rows_say_so_and_notes_are_all_there() {
        let mut r = row(2, "fq_codel");
        r.error = Some("building topology: boom".into());
        let md = markdown("# x", &[row(1, "pfifo"), r], &[], &["extra".into()]);
        assert!(md.contains("| 2 | fq_codel | failed: building topology: boom |"));
        assert!(md.contains("1. round 1 pfifo: 0.20 ms (ok 15/15 sent)"));
        for n in NOTES {
            assert!(md.contains(n));
        }
        assert!(md.contains("- extra"));
    }

    #[test]
    fn both_directions_show_their_aggregates_and_the_flow_section() {
        let (mut results, _) = golden();
        assert!(
            sections(&results).is_empty(),
            "the method's run has no extra section"
        );
        let s = &mut results.scenarios[1];
        let mut down = s.flows[0].clone();
        down.index = 1;
        down.direction = "down".into();
        s.flows.push(down);
        s.directions =
            crate::results::directions_of(&s.flows, |d| Some(if d == "up" { 5.0 } else { 20.0 }));
        let r = super::row(s);
        let t = table(&[r]);
        assert!(
            t.contains("| 1 | fq_codel | up 4.792 / down 4.792 |"),
            "{t}"
        );
        let sec = sections(&results);
        assert_eq!(sec.len(), 1);
        assert!(
            sec[0].contains("scenario 2 (round 1, fq_codel) down: aggregate 4.792 of 20 Mbit/s, fairness 1.000 over 1 flow(s): #1 reno 4.792"),
            "{}",
            sec[0]
        );
    }

    #[test]
    fn a_sweep_gets_a_grid_line_per_point_and_arm() {
        let (mut results, _) = golden();
        let mut more = results.scenarios.clone();
        for s in &mut more {
            s.point.index = 2;
            s.point.label = "base_rtt=20ms".into();
        }
        for s in &mut results.scenarios {
            s.point.label = "base_rtt=0ms".into();
        }
        results.scenarios.extend(more);
        let sec = sections(&results);
        assert_eq!(sec.len(), 1);
        let lines: Vec<&str> = sec[0]
            .lines()
            .filter(|l| l.starts_with("| 1 ") || l.starts_with("| 2 "))
            .collect();
        assert_eq!(lines.len(), 4, "{}", sec[0]);
        assert!(
            lines[1].starts_with(
                "| 1 base_rtt=0ms | fq_codel | 1 | 4.75/7.93 (n=5) | up 4.792 | up 1.000 |"
            ),
            "{}",
            lines[1]
        );
        assert!(lines[3].starts_with("| 2 base_rtt=20ms | fq_codel |"));
    }

    #[test]
    fn an_interrupted_run_says_where_first() {
        let i = crate::results::Interrupted {
            signal: "SIGTERM".into(),
            scenario: Some(3),
            phase: "loaded".into(),
            at_s: Some(7.25),
        };
        assert_eq!(
            interrupted_banner(&i, 3),
            "**Interrupted by SIGTERM during scenario 3 (loaded phase, 7.2 s after t0).** \
             Scenarios 1–2 are complete; scenario 3 keeps its samples up to the stop, its error \
             and its cleanup receipts; the run's later scenarios did not run."
        );
        let boot = crate::results::Interrupted {
            signal: "SIGINT".into(),
            scenario: None,
            phase: "while the guest kernel booted".into(),
            at_s: None,
        };
        assert_eq!(
            interrupted_banner(&boot, 0),
            "**Interrupted by SIGINT while the guest kernel booted.** 0 scenario(s) completed \
             before it; none was cut short."
        );
    }
}
