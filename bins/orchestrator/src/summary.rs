//! The human summary: the SPEC §9 table, the baseline p95 list and the notes
//! that qualify the figures. Pure: a function of the typed [`Results`], so a
//! test recomputes summary.md from results.json byte for byte.

use std::fmt::Write as _;

use netlab_probe::{PhaseStats, RequestOutcome};
use netlab_qdisc::{QdiscRecord, ARM_HANDLE, TBF_HANDLE};

use crate::results::{Results, ScenarioResult};

/// One row of the summary table: one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// Round number (1-based).
    pub round: u32,
    /// Arm kind, e.g. `fq_codel`.
    pub arm: String,
    /// Goodput over the measured window, Mbit/s.
    pub goodput_mbps: Option<f64>,
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
    /// Drops counted by the root TBF at the final readback.
    pub tbf_drops: Option<u64>,
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

/// The notes every summary carries (SPEC §2, §5, §6, §7).
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
        let goodput = r
            .goodput_mbps
            .map_or_else(|| "None".into(), |g| format!("{g:.3}"));
        let quant = format!(
            "{}/{} (n={})",
            opt_ms(r.p50_ms),
            opt_ms(r.p95_ms),
            r.loaded_ok
        );
        let drops = match (r.child_drops, r.tbf_drops) {
            (Some(c), Some(t)) => format!("{c} (tbf {t})"),
            (Some(c), None) => c.to_string(),
            _ => "None".into(),
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
pub fn markdown(header: &str, rows: &[SummaryRow], extra_notes: &[String]) -> String {
    let mut s = String::new();
    s.push_str(header);
    s.push_str("\n\n");
    s.push_str(&table(rows));
    s.push('\n');
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
        &extra_notes(results, failed_teardown_steps),
    )
}

/// The summary's title block: run, kernel, rounds, arms, bottleneck.
pub fn header(results: &Results) -> String {
    let cfg = &results.config;
    format!(
        "# netlab comparison {}\n\nKernel: {} {} ({}). Rounds: {}. Arms: {}. TBF {}.\nResults: results.json (every raw sample).",
        results.run_id,
        results.kernel.mode,
        results.kernel.release,
        results.kernel.chosen_because,
        cfg.rounds,
        cfg.arm_words.join(" | "),
        cfg.tbf.tc_words().join(" "),
    )
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

fn censored_text(q: Option<netlab_probe::CensoredQuantile>) -> String {
    q.map_or_else(|| "None".into(), |q| format!("{q:.2}"))
}

/// The summary row of one scenario.
pub fn row(s: &ScenarioResult) -> SummaryRow {
    let phases = s.probe.as_ref().map(|p| &p.phases);
    let loaded: Option<&PhaseStats> = phases.and_then(|p| p.loaded.as_ref());
    let baseline: Option<&PhaseStats> = phases.and_then(|p| p.baseline.as_ref());
    let count =
        |p: Option<&PhaseStats>, f: fn(&PhaseStats) -> u32| p.map_or(0, |p| u64::from(f(p)));
    let ecn = s.ecn.as_ref().map(|e| &e.report);
    SummaryRow {
        round: s.round,
        arm: s.arm.clone(),
        goodput_mbps: s.tcp.as_ref().and_then(|t| t.goodput_mbps),
        loaded_sent: count(loaded, |p| p.sent),
        loaded_ok: count(loaded, |p| p.ok),
        loaded_timeouts: count(loaded, |p| p.timeouts),
        p50_ms: loaded.and_then(|l| l.p50_ms),
        p95_ms: loaded.and_then(|l| l.p95_ms),
        censored: loaded.map(|l| (censored_text(l.p50_censored), censored_text(l.p95_censored))),
        child_drops: drops_of(&s.qdisc.at_window_end, ARM_HANDLE),
        tbf_drops: drops_of(&s.qdisc.at_window_end, TBF_HANDLE),
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
    let rate = results.config.tbf.rate.bits_per_sec() as f64 / 1e6;
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
        let received = s
            .tcp
            .as_ref()
            .and_then(|t| t.receiver_log.echo)
            .map(|e| e.received);
        let sent = s.probe.as_ref().map(|p| {
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
        if let Some(g) = s.tcp.as_ref().and_then(|t| t.goodput_mbps) {
            if g > rate {
                notes.push(format!(
                    "scenario {} (round {}, {}): goodput {g:.3} Mbit/s is above the TBF rate {rate} Mbit/s: bytes held in B's out-of-order queue across a loss were delivered inside the window (see the note on goodput)",
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

    #[test]
    fn rows_come_from_the_typed_fields() {
        let (results, _) = golden();
        let r = rows(&results);
        assert_eq!(r.len(), 2);
        let fq = &r[1];
        let s = &results.scenarios[1];
        let loaded = s.probe.as_ref().unwrap().phases.loaded.clone().unwrap();
        assert_eq!(fq.arm, "fq_codel");
        assert_eq!(fq.loaded_sent, u64::from(loaded.sent));
        assert_eq!(fq.loaded_ok, u64::from(loaded.ok));
        assert_eq!(fq.p95_ms, loaded.p95_ms);
        let child = s
            .qdisc
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
        s.qdisc.at_window_end.clear();
        s.ecn = None;
        s.probe = None;
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
        s.tcp.as_mut().unwrap().goodput_mbps = Some(5.5);
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
        let sent = s.probe.as_ref().unwrap().requests.len() as u64;
        let echo = s.tcp.as_mut().unwrap().receiver_log.echo.as_mut().unwrap();
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
            let sent = s.probe.as_ref().unwrap().requests.len() as u64;
            s.tcp
                .as_mut()
                .unwrap()
                .receiver_log
                .echo
                .as_mut()
                .unwrap()
                .received = sent;
        }
    }

    fn row(round: u32, arm: &str) -> SummaryRow {
        SummaryRow {
            round,
            arm: arm.into(),
            goodput_mbps: Some(4.812),
            loaded_sent: 55,
            loaded_ok: 53,
            loaded_timeouts: 2,
            p50_ms: Some(12.345),
            p95_ms: None,
            censored: Some(("12.35".into(), "≥ 1000 ms (censored)".into())),
            child_drops: Some(7),
            tbf_drops: Some(0),
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
        let md = markdown("# x", &[row(1, "pfifo"), r], &["extra".into()]);
        assert!(md.contains("| 2 | fq_codel | failed: building topology: boom |"));
        assert!(md.contains("1. round 1 pfifo: 0.20 ms (ok 15/15 sent)"));
        for n in NOTES {
            assert!(md.contains(n));
        }
        assert!(md.contains("- extra"));
    }
}
