//! index.html says what summary.md says: one table builder
//! (`netlab_analysis::Table`) serves both outputs, on the committed
//! default comparison with fates (fixtures/report/run-uml-3rounds-fates,
//! pfifo's three rounds in three standing states). The method's RTT table
//! is per state in both, the figures table labels one-way delays as
//! one-way, gives no pooled value for pfifo (its rounds disagree), a
//! pooled loss as a ratio of counts (fq_codel 14/107 = 13.1 %) and every
//! delay's timeouts (pfifo's 20).

mod common;

use common::{fixture_json_of, TempDir};
use netlab_analysis::Table;
use netlab_compare::headline::Headline;
use netlab_results::Results;

const RUN: &str = "run-uml-3rounds-fates";

/// summary.md (as `orchestrator report` writes it), index.html, and the
/// two tables as the builder makes them.
fn outputs() -> (String, String, Table, Table) {
    let d = TempDir::new("same-tables");
    let json = fixture_json_of(RUN);
    std::fs::write(d.path().join("results.json"), &json).unwrap();
    let input = netlab_report::read_results(d.path()).unwrap();
    netlab_report::render(&input, d.path()).unwrap();
    let md = netlab_report::summary::render(&Results::parse(&json).unwrap(), 0);
    let html = std::fs::read_to_string(d.path().join("index.html")).unwrap();
    let st = netlab_compare::compare::analyse(&input);
    let rtt = Headline::of(&input, &st).method_rtt_table().unwrap();
    (md, html, rtt, st.figures_table())
}

/// A row as Markdown writes it and as HTML does.
fn row_md(r: &[String]) -> String {
    format!("| {} |", r.join(" | "))
}

fn row_html(r: &[String]) -> String {
    r.iter()
        .map(|c| format!("<td class=l>{}</td>", netlab_report::html_text(c)))
        .collect()
}

#[test]
fn both_outputs_carry_both_tables_cell_for_cell() {
    let (md, html, rtt, figures) = outputs();
    for t in [&rtt, &figures] {
        assert!(md.contains(&t.intro), "summary.md lacks «{}»", t.intro);
        assert!(
            html.contains(&netlab_report::html_text(&t.intro)),
            "index.html lacks «{}»",
            t.intro
        );
        for r in &t.rows {
            assert!(md.contains(&row_md(r)), "summary.md lacks {r:?}");
            assert!(html.contains(&row_html(r)), "index.html lacks {r:?}");
        }
    }
}

#[test]
fn the_rtt_table_is_per_state_with_each_state_s_counts() {
    let (md, html, rtt, _) = outputs();
    let arms: Vec<&str> = rtt.rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        arms,
        [
            "pfifo (1 cut: r2)",
            "pfifo (2 cuts, changed inside the window: r3)",
            "pfifo (3 cuts, changed inside the window: r1)",
            "fq_codel"
        ]
    );
    // Each state's own requests and timeouts: 11 + 14 + 19 = 44 requests,
    // 11 + 4 + 5 = 20 timeouts, 5 of them losses.
    let counts: Vec<(&str, &str)> = rtt.rows[..3]
        .iter()
        .map(|r| (r[4].as_str(), r[5].as_str()))
        .collect();
    assert_eq!(
        counts,
        [
            ("11", "11"),
            ("14", "4 (2 of them never reached B: losses, not delays)"),
            ("19", "5 (3 of them never reached B: losses, not delays)"),
        ]
    );
    // No pooled pfifo row in either output (the page once said 614 ms).
    for (name, text) in [("summary.md", &md), ("index.html", &html)] {
        assert!(!text.contains("614 ms"), "{name} pools pfifo's rounds");
    }
}

#[test]
fn the_figures_table_labels_one_way_pools_only_where_rounds_agree_and_counts() {
    let (md, html, _, figures) = outputs();
    let row = |figure: &str, arm: &str| -> Vec<String> {
        figures
            .rows
            .iter()
            .find(|r| r[0] == figure && r[1] == arm)
            .unwrap_or_else(|| panic!("no {figure} row for {arm}: {:?}", figures.rows))
            .clone()
    };
    // One-way delays say so; the round-trip name is not used for them.
    assert!(
        figures.rows.iter().all(|r| !r[0].contains("RTT")),
        "{figures:?}"
    );
    for (name, text) in [("summary.md", &md), ("index.html", &html)] {
        assert!(
            !text.contains("loaded probe RTT p50 |") && !text.contains(">loaded probe RTT p50<"),
            "{name}"
        );
    }
    let delay = |p: &str| {
        format!("loaded one-way delay {p} (delivered probes; stop-and-wait probe, time-weighted)")
    };
    let p50 = row(&delay("p50"), "pfifo");
    assert!(
        p50[2].starts_with("not pooled: not one state (1 cut: r2; 2 cuts, changed inside the window: r3; 3 cuts, changed inside the window: r1)"),
        "{p50:?}"
    );
    assert_eq!(
        p50[3], "39 (20)",
        "39 delivered, 20 loaded requests timed out"
    );
    for r in &figures.rows {
        if r[1] == "pfifo" {
            assert!(
                r[2].starts_with("not pooled"),
                "a pooled pfifo value: {r:?}"
            );
        }
    }
    // A pooled loss is a ratio of counts, not a mean of the rounds'
    // shares (which read 14.7 %).
    let fq = row("loaded probe loss", "fq_codel");
    assert_eq!(fq[2], "14/107 = 13.1 %");
    assert_eq!(fq[3], "107 sent, 14 lost");
    let pf = row("loaded probe loss", "pfifo");
    assert_eq!(pf[3], "44 sent, 5 lost");
    let fq50 = row(&delay("p50"), "fq_codel");
    assert_eq!(fq50[2], "4.14 ms");
    assert_eq!(fq50[3], "93 (14)");
}
