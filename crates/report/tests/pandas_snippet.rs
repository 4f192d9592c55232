//! The pandas snippet of docs/usage.md ("Flat tables") reproduces the
//! headline's delay quantiles (nearest rank over the window's delivered
//! slots): run with python3 and pandas on probes.csv of a committed run,
//! its numbers equal the headline table's, pooled and per round.

mod common;

use std::path::Path;
use std::process::Command;

use netlab_compare::headline::Headline;
use netlab_compare::headline_table::HeadlineTable;
use netlab_results::Results;

/// The snippet: the first Python block after its paragraph.
fn snippet() -> String {
    let usage =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/usage.md"))
            .unwrap();
    let at = usage
        .find("The headline's delay in pandas")
        .expect("the snippet's paragraph");
    let rest = &usage[at..];
    let start = rest.find("```python\n").unwrap() + "```python\n".len();
    let end = rest[start..].find("```").unwrap();
    rest[start..start + end].to_string()
}

/// A python3 that has pandas: the first on PATH, else Debian's.
fn python_with_pandas() -> Option<&'static str> {
    ["python3", "/usr/bin/python3"].into_iter().find(|py| {
        Command::new(py)
            .args(["-c", "import pandas"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

#[test]
fn the_pandas_snippet_gives_the_headline_s_quantiles() {
    let Some(py) = python_with_pandas() else {
        common::skip_for_missing(
            "the_pandas_snippet_gives_the_headline_s_quantiles",
            "python3 with pandas",
            "python3-pandas",
        );
        return;
    };
    let run = "run-uml-window";
    let r = Results::parse(&common::fixture_json_of(run)).unwrap();
    let input = netlab_analysis::input_from(&r).unwrap();
    let files = netlab_report::render_all(&input).unwrap();
    let dir = common::TempDir::new("pandas");
    std::fs::write(
        dir.path().join("probes.csv"),
        common::rendered_text(&files, "probes.csv", run),
    )
    .unwrap();
    std::fs::write(dir.path().join("snippet.py"), snippet()).unwrap();
    let out = Command::new(py)
        .arg("snippet.py")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hl = Headline::of_input(&input);
    let table = HeadlineTable::of(&input, &hl);
    assert_eq!(
        table.delay, "one-way delay",
        "the fixture's headline is one-way"
    );
    let mut checked = 0;
    for row in &table.rows {
        // `4.14 (7.59 / 5.07 / 3.35)`: pooled, then each round's.
        let numbers = |cell: &str| -> Vec<f64> {
            cell.split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .filter_map(|t| t.parse().ok())
                .collect()
        };
        let (p50, p95) = (numbers(&row.cells[0]), numbers(&row.cells[1]));
        let mut lines = text
            .lines()
            .filter(|l| l.split('\t').next() == Some(row.arm.as_str()))
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                let v = |s: &str| -> f64 { s.parse().unwrap() };
                (v(f[f.len() - 2]), v(f[f.len() - 1]))
            });
        // Rounds in different states are not pooled: the table gives the
        // rounds alone, so the snippet's pooled line is not compared.
        if row.cells[0].starts_with("rounds") {
            lines.next();
        }
        for (k, (a, b)) in lines.by_ref().enumerate() {
            // Both print 3 significant figures or more; the table's
            // rounding (`fmt_num`) is the check's tolerance.
            let close = |x: f64, shown: f64| (x - shown).abs() <= 0.005 * shown.max(1.0) + 0.0005;
            assert!(
                close(a, p50[k]),
                "{}: p50 {a} vs the table's {}",
                row.arm,
                row.cells[0]
            );
            assert!(
                close(b, p95[k]),
                "{}: p95 {b} vs the table's {}",
                row.arm,
                row.cells[1]
            );
            checked += 1;
        }
    }
    // Two arms' 3 rounds, and the pooled figure of those that have one.
    assert!(checked >= 6, "{text}");
}
