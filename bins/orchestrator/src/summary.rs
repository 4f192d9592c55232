//! The human summary: the SPEC §9 table, the baseline p95 list and the notes
//! that qualify the figures. Pure: rendered from values taken out of the
//! results, so a test can recompute it from results.json.

use std::fmt::Write as _;

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

#[cfg(test)]
mod tests {
    use super::*;

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
