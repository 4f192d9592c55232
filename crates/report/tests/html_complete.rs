//! index.html says everything summary.md says (docs/report.md, "One truth
//! per figure"): every heading and every lead-in line of summary.md, every
//! table row and every note, for each committed run.

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

#[test]
fn every_section_table_row_and_note_of_summary_md_is_in_index_html() {
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
        // Cells and inline marks become tags: compare text with text,
        // collapsing the cell borders a table row has in both.
        let text = page_text(&html);
        let squash = |s: &str| -> String {
            s.chars()
                .filter(|c| *c != '|' && !c.is_whitespace())
                .collect()
        };
        let text = squash(&text);
        let mut checked = 0;
        // Below the per-scenario table: the sections index.html must carry.
        // The per-scenario table itself index.html has in its own columns
        // (the scenarios table, each row linking the scenario's page).
        let below = md.split("\n## Per scenario\n").nth(1).unwrap_or(&md);
        let mut in_first_table = true;
        for line in below.lines() {
            let l = line.trim();
            if in_first_table {
                if l.is_empty() || l.starts_with('|') {
                    continue;
                }
                in_first_table = false;
            }
            let wanted = l.starts_with('#')
                || l.ends_with(':')
                || l.starts_with("- ")
                || (l.starts_with('|') && !l.starts_with("|---"));
            if !wanted || l.starts_with("| Round |") {
                continue;
            }
            // A lead-in line ("Notes:") may be a heading on the page.
            let l = l
                .trim_start_matches('#')
                .trim_start_matches("- ")
                .trim_end_matches(':');
            let want = squash(&as_html_text(l));
            let want = page_text(&want);
            assert!(
                text.contains(&want),
                "{run}: index.html lacks summary.md's {l:?}"
            );
            checked += 1;
        }
        assert!(checked > 10, "{run}: only {checked} lines checked");
    }
}
