//! index.html says everything summary.md says (docs/report.md, "One truth
//! per figure"), where the page renders it itself: each scenario's row of
//! summary.md's table against the page's own scenarios table (goodput,
//! loaded probes and timeouts, baseline and loaded quantiles, drops, the
//! wire's ECN counts), and every caveat and note, for each committed run.
//! summary.md's sections between its table and its notes are not checked
//! here: the page inserts them from the same `summary::parts` (a copy,
//! which cannot disagree).

mod common;

use common::{fixture_json_of, TempDir};
use netlab_report::folder::{finish_folder, FinishOptions};

/// summary.md's text as index.html escapes it, Markdown's inline marks
/// removed.
fn as_html_text(line: &str) -> String {
    netlab_report::html_text(&line.replace("**", "").replace('`', ""))
}

/// index.html's text with its tags removed and `<code>`/`<strong>` gone.
fn page_text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                // A tag separates words like a cell border does.
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// The header and the cells of each body row of the first Markdown table
/// after `heading`.
fn md_table(md: &str, heading: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let below = md
        .split(heading)
        .nth(1)
        .unwrap_or_else(|| panic!("no {heading:?}"));
    let cells = |l: &str| -> Vec<String> {
        l.trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let mut rows = below
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'));
    let head = cells(rows.next().expect("a header row"));
    (head, rows.skip(1).map(cells).collect())
}

/// The header and the cells (text, tags removed) of each body row of the
/// page's scenarios table.
fn html_table(html: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let start = html.find("<h2 id=scenarios>").expect("the scenarios table");
    let table = &html[start..];
    let table = &table[..table.find("</table>").expect("its end")];
    let cells = |row: &str, tag: &str| -> Vec<String> {
        row.split(tag)
            .skip(1)
            .map(|cell| page_text(&format!("{tag}{cell}")).trim().to_string())
            .collect()
    };
    let mut rows = table.split("<tr>").skip(1);
    let head = cells(rows.next().expect("a header row"), "<th");
    (head, rows.map(|r| cells(r, "<td")).collect())
}

/// The column whose header starts with `start` and holds `has`.
fn column(head: &[String], start: &str, has: &str) -> usize {
    head.iter()
        .position(|h| h.to_lowercase().starts_with(start) && h.contains(has))
        .unwrap_or_else(|| panic!("no column {start:?}…{has:?} in {head:?}"))
}

/// Whether two printed numbers are one value at their precisions
/// (`370` and `370.06`, `0.561 ms` and `0.56`, `≥ 1000 ms` and `≥ 1000`).
fn same_number(page: &str, md: &str) -> bool {
    let clean = |s: &str| -> (bool, String) {
        let s = s.trim().trim_end_matches("ms").trim();
        match s.strip_prefix('≥') {
            Some(rest) => (true, rest.trim().to_string()),
            None => (false, s.to_string()),
        }
    };
    if md.trim() == "–" {
        return matches!(page.trim(), "–" | "no data");
    }
    let ((pa, a), (pb, b)) = (clean(page), clean(md));
    if pa != pb {
        return false;
    }
    let half_step = |t: &str| 0.5 * 10f64.powi(-(t.split('.').nth(1).map_or(0, str::len) as i32));
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => (x - y).abs() <= half_step(&a) + half_step(&b) + 1e-9,
        _ => a == b,
    }
}

#[test]
fn each_scenario_row_caveat_and_note_of_summary_md_is_in_index_html() {
    for run in [
        "run-uml-3rounds-fates",
        "run-uml-sparse-flows",
        "run-host-pfifo-sweep",
    ] {
        let dir = TempDir::new(run);
        std::fs::write(dir.path().join("results.json"), fixture_json_of(run)).unwrap();
        let done = finish_folder(dir.path(), &FinishOptions::rerender(), &mut |_| {})
            .unwrap_or_else(|e| panic!("{run}: {e}"));
        done.summary.expect("summary.md");
        done.report.expect("report");
        let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
        let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();

        // The scenarios: summary.md's table (round, arm, goodput, baseline
        // p50, probes/timeouts, loaded p50/p95, …, drops, CE/ECE/CWR) and
        // the page's (#, round, arm, goodput, baseline p50, probes/timeouts,
        // p50, p95, drops, ECN marks, CE/ECE/CWR), a point column in a sweep.
        let (m_head, m_rows) = md_table(&md, "\n## Per scenario\n");
        let (p_head, p_rows) = html_table(&html);
        assert_eq!(m_rows.len(), p_rows.len(), "{run}: scenario rows");
        let m_col = |start, has| column(&m_head, start, has);
        let p_col = |start, has| column(&p_head, start, has);
        // The same text in both.
        let same_text = [
            (m_col("round", ""), p_col("round", "")),
            (m_col("arm", ""), p_col("arm", "")),
            (m_col("loaded probes", ""), p_col("loaded probes", "")),
            (m_col("ce/ece/cwr", ""), p_col("ce/ece/cwr", "")),
        ];
        let quantiles = (
            m_col("loaded p50/p95", ""),
            p_col("loaded rtt p50", ""),
            p_col("loaded rtt p95", ""),
        );
        // The same number, each at its own precision.
        let same_value = [
            (m_col("goodput", ""), p_col("goodput", "")),
            (m_col("baseline p50", ""), p_col("baseline rtt p50", "")),
        ];
        let drops = (m_col("drops", ""), p_col("drops", ""));
        for (i, (m, p)) in m_rows.iter().zip(&p_rows).enumerate() {
            let what = format!("{run}: scenario {}", i + 1);
            let failed = p.iter().any(|c| c.starts_with("failed"));
            for (mi, pi) in same_text {
                if failed && pi > p_col("arm", "") {
                    break;
                }
                let page = p[pi].replace(" / ", "/");
                assert_eq!(&page, &m[mi], "{what}: {}", m_head[mi]);
            }
            if failed {
                continue;
            }
            // "–" alone: no stop-and-wait probe, so neither quantile.
            let (m_p50, m_p95) = m[quantiles.0]
                .split_once('/')
                .unwrap_or((&m[quantiles.0], &m[quantiles.0]));
            let mut values: Vec<(&str, &str, &str)> = same_value
                .iter()
                .map(|&(mi, pi)| (m_head[mi].as_str(), p[pi].as_str(), m[mi].as_str()))
                .collect();
            values.push(("loaded p50", &p[quantiles.1], m_p50));
            values.push(("loaded p95", &p[quantiles.2], m_p95));
            for (name, page, summary) in values {
                assert!(
                    same_number(page, summary),
                    "{what}: {name} is {page:?} on the page, {summary:?} in summary.md"
                );
            }
            let d = |s: &str| s.replace("tbf ", "");
            assert_eq!(d(&p[drops.1]), d(&m[drops.0]), "{what}: drops");
        }

        // Caveats and notes: rendered by the page from the figures, not
        // copied from summary.md.
        let text = page_text(&html);
        let squash = |s: &str| -> String {
            s.chars()
                .filter(|c| *c != '|' && !c.is_whitespace())
                .collect()
        };
        let text = squash(&text);
        let notes = md
            .split("\nNotes:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{run}: no notes"));
        let caveats = md.lines().filter(|l| l.starts_with("**Caveat:**"));
        let mut checked = 0;
        for l in notes.lines().filter(|l| l.starts_with("- ")).chain(caveats) {
            let l = l.trim_start_matches("- ");
            let want = squash(&page_text(&as_html_text(l)));
            assert!(
                text.contains(&want),
                "{run}: index.html lacks summary.md's {l:?}"
            );
            checked += 1;
        }
        assert!(checked > 5, "{run}: only {checked} notes checked");
    }
}

#[test]
fn numbers_match_only_at_their_precision() {
    assert!(same_number("370 ms", "370.06"));
    assert!(same_number("0.561 ms", "0.56"));
    assert!(same_number("≥ 1000 ms", "≥ 1000"));
    assert!(!same_number("≥ 1000 ms", "1000"));
    assert!(!same_number("371 ms", "370.06"));
    assert!(!same_number("0.571 ms", "0.56"));
    assert!(same_number("no data", "–"));
    assert!(!same_number("1.00 ms", "–"));
}
