//! The human summary: the method §9 table, the baseline p95 list and the notes
//! that qualify the figures. Pure: a function of the typed [`Results`], so a
//! test recomputes summary.md from results.json byte for byte.
//!
//! Each scenario is first reduced to its [`ScenarioFigures`]
//! (netlab-analysis), and summary.md is rendered from those
//! ([`render_figures`]): a run reads its scenarios back one at a time and
//! never holds their raw samples together. The orchestrator writes the
//! text (after a run, `merge`, `report PATH`); nothing here touches a file.

use std::fmt::Write as _;

use netlab_analysis::summary::{ReceiveBufferSeen, ScenarioFigures, SummaryRow, VethsSeen};
use netlab_results::Results;

mod cc;
mod header;
mod hosts;
pub mod link;
mod notes;
mod sections;

use header::header;
pub use header::{interrupted_banner, kernel_line};
pub use notes::{note_fits_arms, note_for_fates, note_for_probe, notes_for, NOTES};
pub(crate) use sections::sections;

/// What summary.md says below its table that index.html says too: the
/// fate, isochronous-probe, flow and queue-and-bottleneck tables, the
/// baseline list (each a Markdown block), and every scenario's own
/// warnings.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SummaryParts {
    /// The sections, each a Markdown block.
    pub sections: Vec<String>,
    /// The notes scenarios add (`scenario 3 (round 2, pfifo): …`).
    pub scenario_notes: Vec<String>,
}

fn censored_text(q: Option<netlab_probe::RankQuantile>) -> String {
    q.map_or_else(|| "–".into(), |q| format!("{q:.2}"))
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
pub(crate) fn markdown(
    header: &str,
    headline: Option<&str>,
    rows: &[SummaryRow],
    sections: &[String],
    extra_notes: &[String],
    fates: bool,
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
    .filter_map(|n| note_for_probe(&note_for_fates(n, fates), timeout_ms))
    {
        let _ = writeln!(s, "- {n}");
    }
    for n in extra_notes {
        let _ = writeln!(s, "- {n}");
    }
    s
}

/// What summary.md says below its table that index.html says too
/// ([`SummaryParts`]): the sections, the queue and the
/// bottleneck, the baseline list and the scenarios' own notes (the run's
/// final teardown is not in results.json, so its notes are not here).
pub(crate) fn parts(scenarios: &[ScenarioFigures]) -> SummaryParts {
    let rows: Vec<SummaryRow> = scenarios.iter().map(|f| f.row.clone()).collect();
    let mut sections = sections(scenarios);
    sections.push(ScenarioFigures::queue_section(scenarios));
    sections.push(baseline_list(&rows));
    SummaryParts {
        sections,
        scenario_notes: extra_notes(scenarios, 0),
    }
}

/// summary.md of a run. `failed_teardown_steps` counts the run's final
/// teardown steps that failed (they happen after the last scenario and are
/// printed, not kept in results.json).
pub fn render(results: &Results, failed_teardown_steps: usize) -> String {
    let headline = headline_of(netlab_analysis::input_from(results).as_ref());
    render_figures(
        results,
        &ScenarioFigures::of_run(results),
        headline.as_deref(),
        failed_teardown_steps,
    )
}

/// The headline section (netlab-analysis' `headline`) of a run's report input; a
/// run whose input cannot be built (a value the report cannot draw) has
/// none, and its report says why.
pub fn headline_of(
    input: Result<&netlab_analysis::ReportInput, &netlab_analysis::InputError>,
) -> Option<String> {
    input.ok().map(|i| {
        let hl = netlab_compare::headline::Headline::of_input(i);
        headline_markdown(i, &hl)
    })
}

/// The headline as summary.md says it (docs/report.md, "The headline"): a
/// table first (a sweep's, one per metric), at most one short sentence
/// per arm and the verdicts; then every arm's full sentences, unchanged,
/// under "Each arm in full" (a sweep's: what changes along each axis, the
/// models, and each point's own headline).
pub fn headline_markdown(
    input: &netlab_analysis::ReportInput,
    hl: &netlab_compare::headline::Headline,
) -> String {
    use netlab_compare::headline_table::{HeadlineTable, SweepTables};
    let full = hl.markdown();
    let full = full.strip_prefix("## Headline\n\n").unwrap_or(&full);
    let mut s = String::from("## Headline\n\n");
    if hl.points.is_empty() {
        let t = HeadlineTable::of(input, hl);
        s.push_str(&t.markdown());
        s.push('\n');
        s.push_str(HEADLINE_TABLE_NOTE);
        s.push_str("\n\n");
        for line in t.sentences(hl) {
            s.push_str(&format!("- {line}\n"));
        }
        for v in &hl.verdicts {
            s.push_str(&format!("\n**Verdict:** {v}.\n"));
        }
        s.push_str("\n### Each arm in full\n\n");
    } else {
        s.push_str(&SweepTables::of(input, hl).markdown());
        s.push_str(HEADLINE_TABLE_NOTE);
        s.push_str(" One table per metric: arms as rows, sweep points as columns.\n");
        s.push_str("\n### Along each axis, and each point in full\n\n");
    }
    s.push_str(full);
    s
}

/// What the headline's tables hold, said once above them.
pub const HEADLINE_TABLE_NOTE: &str = "Each cell: the arm's figure, then each round's in brackets (a delay pooled over the rounds' measured windows; goodput the mean of fewer than 3 rounds, else the median with the range; drops and marks per round). ⚠ marks an arm with a round to look at, said below the table.";

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
    let mut sections_with_caveats: Vec<String> = ScenarioFigures::caveats(results, scenarios)
        .into_iter()
        .map(|c| format!("**Caveat:** {c}\n"))
        .collect();
    sections_with_caveats.extend(sections(scenarios));
    sections_with_caveats.push(ScenarioFigures::queue_section(scenarios));
    markdown(
        &header(
            results,
            &scenarios.iter().map(|f| f.index).collect::<Vec<_>>(),
        ),
        headline,
        &rows,
        &sections_with_caveats,
        &extra_notes(scenarios, failed_teardown_steps),
        every_round_has_fates(scenarios),
    )
}

/// Whether every scenario that ran the stop-and-wait probe records its
/// loaded requests' fates (B's receive log, method §5.8), and one did.
pub fn every_round_has_fates(scenarios: &[ScenarioFigures]) -> bool {
    let probed: Vec<&ScenarioFigures> = scenarios.iter().filter(|f| f.loaded.is_some()).collect();
    !probed.is_empty() && probed.iter().all(|f| f.loaded_fates.is_some())
}

/// The notes particular to this run: failures, capture drops, probe
/// requests that never reached B, goodput above the shaped rate, ECN not
/// negotiated, failed teardown steps.
pub fn extra_notes(scenarios: &[ScenarioFigures], failed_teardown_steps: usize) -> Vec<String> {
    let mut notes: Vec<String> = receive_buffer_note(scenarios).into_iter().collect();
    let paths: Vec<Option<&VethsSeen>> = scenarios.iter().map(|f| f.path.as_ref()).collect();
    notes.extend(VethsSeen::note(&paths));
    notes.extend(scenarios.iter().flat_map(|f| f.notes.clone()));
    if failed_teardown_steps > 0 {
        notes.push(format!("{failed_teardown_steps} cleanup step(s) failed: see results.json and run `orchestrator cleanup`"));
    }
    notes
}

/// How A and B started their receive buffers (method §1.3); nothing for
/// runs recorded before netlab read `tcp_rmem`.
pub(crate) fn receive_buffer_note(scenarios: &[ScenarioFigures]) -> Option<String> {
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

/// One row per scenario, in execution order ([`figures`]' rows).
#[cfg(test)]
fn rows(results: &Results) -> Vec<SummaryRow> {
    ScenarioFigures::of_run(results)
        .into_iter()
        .map(|f| f.row)
        .collect()
}

#[cfg(test)]
mod tests;
