//! The summary's sections beyond the method's table: the loaded probe
//! requests by fate, the isochronous probe's table, per-flow goodput and
//! fairness, and the sweep grid.

use std::fmt::Write as _;

use netlab_probe::PhaseStats;

use super::*;

/// Sections beyond the method's table: per-flow goodput and fairness when a
/// scenario has several flows, and the sweep grid when there are several
/// points. Empty for the method's experiment.
pub fn sections(scenarios: &[ScenarioFigures]) -> Vec<String> {
    let mut out = Vec::new();
    if scenarios.iter().any(|s| s.flows.len() > 1) {
        out.push(flows_section(scenarios));
    }
    out.extend(super::hosts::hosts_section(scenarios));
    out.extend(super::link::link_section(scenarios));
    out.extend(super::cc::cc_section(scenarios));
    if scenarios.iter().any(|s| s.loaded_fates.is_some()) {
        out.push(fates_section(scenarios));
    }
    if scenarios.iter().any(|s| s.iso.is_some()) {
        out.push(iso_section(scenarios));
    }
    let mut points: Vec<u32> = scenarios.iter().map(|s| s.point_index).collect();
    points.dedup();
    if points.len() > 1 {
        out.push(grid(scenarios));
    }
    out
}

/// Every loaded stop-and-wait request's fate per scenario (method §5.8):
/// replied, reached B without a timely reply (and how many late replies
/// came), never reached B by cause, unresolved, and the one-way A→B delay
/// of every request that reached B.
pub fn fates_section(scenarios: &[ScenarioFigures]) -> String {
    let mut s = String::from(
        "Loaded probe requests by fate (B's receive log on A's clock, method §5.8; the method's RTT columns are in the table above):\n\n",
    );
    s.push_str("| Scenario | round | arm | sent | replied | reached B, no timely reply (late replies) | never reached B | unresolved | one-way A→B p50/p95/max ms (n) |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for sc in scenarios {
        let Some(f) = &sc.loaded_fates else { continue };
        let mut lost: Vec<String> = f
            .dropped_at_bottleneck
            .iter()
            .map(|d| format!("{} {}", d.count, d.reason.as_words()))
            .collect();
        if f.lost_cause_unknown > 0 {
            lost.push(format!("{} cause unknown", f.lost_cause_unknown));
        }
        let lost = if lost.is_empty() {
            "0".to_string()
        } else {
            format!("{}: {}", f.never_reached_b, lost.join(", "))
        };
        let one_way = f.one_way.map_or("–".into(), |q| {
            format!(
                "{}/{}/{} ({})",
                netlab_stats::fmt_num(q.p50_ms),
                netlab_stats::fmt_num(q.p95_ms),
                netlab_stats::fmt_num(q.max_ms),
                q.n
            )
        });
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} ({}) | {} | {} | {} |",
            sc.index,
            sc.round,
            sc.arm,
            f.sent,
            f.replied,
            f.reached_b,
            f.late_replies,
            lost,
            f.unresolved,
            one_way
        );
    }
    s
}

/// The isochronous probe's own table (method §10.3): per scenario and phase
/// (baseline, loaded), the slots sent, the successes, the late replies,
/// what became of the slots without a timely reply, p50/p95/p99 of the
/// successes with their count, the one-way delay of the delivered slots
/// and the up/down one-way p50. With B's receive log the loaded slots go
/// by the rule of method §5.8 (delivered slots are delays, dropped ones
/// losses, unresolved ones censored at their own bounds); without it the
/// censoring-aware RTT over all sent slots stands, a bound where the rank
/// falls on the censored mass.
pub fn iso_section(scenarios: &[ScenarioFigures]) -> String {
    let mut s = String::from(
        "Isochronous probe (a request every interval on a fixed grid, beside the stop-and-wait probe above):\n\n",
    );
    s.push_str("| Scenario | round | arm | phase | interval ms | sent | ok | late | without a timely reply | successful RTT p50/p95/p99 ms | delivered one-way A→B p50/p95/p99 ms (n) | up/down p50 ms |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let mut notes = Vec::new();
    for sc in scenarios {
        let Some(iso) = &sc.iso else {
            continue;
        };
        let interval = iso.interval_ms;
        for (phase, label) in [(&iso.baseline, "baseline"), (&iso.loaded, "loaded")] {
            let Some(p) = phase else {
                continue;
            };
            let st = &p.stats;
            let oneway = match (st.up, st.down) {
                (Some(u), Some(d)) => format!("{}/{}", opt_ms(u.p50_ms), opt_ms(d.p50_ms)),
                _ => "absent".into(),
            };
            let slots = iso.loaded_slots.as_ref().filter(|_| label == "loaded");
            let (rest, one_way) = match slots {
                Some(d) => (
                    d.counts().text(),
                    d.one_way.map_or_else(
                        || "– (n=0)".into(),
                        |q| {
                            format!(
                                "{}/{}/{} (n={})",
                                netlab_stats::fmt_num(q.p50_ms),
                                netlab_stats::fmt_num(q.p95_ms),
                                netlab_stats::fmt_num(q.p99_ms),
                                q.n
                            )
                        },
                    ),
                ),
                None => (
                    format!(
                        "{}: lost or late, not told apart here (censoring-aware RTT p50/p95/p99 {}/{}/{} of {})",
                        st.censored,
                        censored_text(st.rtt_censored.p50),
                        censored_text(st.rtt_censored.p95),
                        censored_text(st.rtt_censored.p99),
                        st.sent
                    ),
                    "–".into(),
                ),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {interval} | {} | {} | {} | {rest} | {}/{}/{} (n={}) | {one_way} | {oneway} |",
                sc.index,
                sc.round,
                sc.arm,
                label,
                st.sent,
                st.ok,
                st.late,
                opt_ms(st.rtt.p50_ms),
                opt_ms(st.rtt.p95_ms),
                opt_ms(st.rtt.p99_ms),
                st.ok,
            );
        }
        let missed = iso.missed;
        if missed > 0 || iso.duplicate > 0 || iso.malformed > 0 || iso.stopped_early {
            notes.push(format!(
                "scenario {}: {missed} missed slot(s), {} duplicate and {} malformed replies{}",
                sc.index,
                iso.duplicate,
                iso.malformed,
                if iso.stopped_early {
                    ", stopped early"
                } else {
                    ""
                }
            ));
        }
    }
    s.push_str("\nlate ⊂ without a timely reply: a reply after the timeout is kept in results.json but never a success. Per-1 s windows of every scenario are in results.json (iso_probe.windows).\n");
    if let Some(note) = scenarios
        .iter()
        .find_map(|sc| sc.iso.as_ref().map(|i| i.one_way_note.clone()))
    {
        let _ = writeln!(s, "One-way delays: {note}.");
    }
    for n in notes {
        let _ = writeln!(s, "- {n}");
    }
    s
}

fn fmt3(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{v:.3}"))
}

/// Per scenario and direction: each flow's goodput and cc, the aggregate
/// and Jain's fairness index.
pub fn flows_section(scenarios: &[ScenarioFigures]) -> String {
    let mut s = String::from(
        "Per-flow goodput (Mbit/s, cc read back) and Jain's fairness index per direction:\n\n",
    );
    for sc in scenarios {
        for d in &sc.directions {
            let flows: Vec<String> = sc
                .flows
                .iter()
                .filter(|f| f.direction == d.direction)
                .map(|f| format!("flow {} {} {}", f.index + 1, f.cc, fmt3(f.goodput_mbps)))
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
                d.fairness.map_or_else(|| "–".into(), |f| format!("{f:.3}")),
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
pub fn grid(scenarios: &[ScenarioFigures]) -> String {
    let mut s = String::from("Sweep grid (point × arm; loaded p50/p95 ms are medians over rounds, n = successful loaded probes over all rounds; goodput = aggregate per direction, fairness = Jain's index):\n\n| point | arm | rounds | loaded p50/p95 ms (n) | goodput Mbit/s | fairness |\n|---|---|---|---|---|---|\n");
    let mut keys: Vec<(u32, String, String)> = Vec::new();
    for sc in scenarios {
        let k = (sc.point_index, sc.point_label.clone(), sc.arm_words.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let median = |mut v: Vec<f64>| netlab_stats::median(&mut v);
    for (index, label, words) in keys {
        let of: Vec<&ScenarioFigures> = scenarios
            .iter()
            .filter(|sc| sc.point_index == index && sc.arm_words == words)
            .collect();
        let loaded: Vec<&PhaseStats> = of.iter().filter_map(|sc| sc.loaded.as_ref()).collect();
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
                    .map_or_else(|| "–".into(), |f| format!("{f:.3}"))
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
