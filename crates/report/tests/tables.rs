//! probes.csv and flows.csv (docs/usage.md, "Flat tables") of the three
//! committed runs: one row per request and per flow of results.json,
//! scenario by scenario; every phase's fates adding up to results.json's
//! counts, the loaded ones to summary.md's fate table and the headline's;
//! the isochronous probe's outcomes to its own phase counts.

mod common;

use common::{fixture_json_of, parse_csv, TempDir};
use netlab_probe::Phase;
use netlab_report::folder::{finish_folder, FinishOptions};
use netlab_results::fate::{FateSummary, ProbeFates};
use netlab_results::Results;

const RUNS: [&str; 3] = [
    "run-uml-3rounds-fates",
    "run-uml-sparse-flows",
    "run-host-pfifo-sweep",
];

/// A CSV read back: its header and rows, cells by column name.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn read(path: &std::path::Path) -> Table {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(!text.contains("None"), "{}", path.display());
        let mut rows = parse_csv(&text);
        let header = rows.remove(0);
        assert!(
            rows.iter().all(|r| r.len() == header.len()),
            "{}: a row of another width",
            path.display()
        );
        Table { header, rows }
    }

    fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }

    /// Rows whose columns hold the values asked for.
    fn count(&self, want: &[(&str, &str)]) -> u32 {
        let cols: Vec<(usize, &str)> = want.iter().map(|(c, v)| (self.col(c), *v)).collect();
        self.rows
            .iter()
            .filter(|r| cols.iter().all(|(c, v)| r[*c] == *v))
            .count() as u32
    }
}

/// The folder of `run` finished from its committed results.json.
fn finished(run: &str) -> (Results, TempDir) {
    let json = fixture_json_of(run);
    let dir = TempDir::new(run);
    std::fs::write(dir.path().join("results.json"), &json).unwrap();
    finish_folder(dir.path(), &FinishOptions::rerender(), &mut |_| {})
        .unwrap_or_else(|e| panic!("{run}: {e}"));
    (Results::parse(&json).unwrap(), dir)
}

fn phase_word(p: Phase) -> &'static str {
    match p {
        Phase::Baseline => "baseline",
        Phase::Warmup => "warmup",
        Phase::Loaded => "loaded",
        Phase::Other => "other",
    }
}

/// The rows of one scenario's probe in one phase, counted by fate, equal
/// `want` (results.json's or summary.md's counts).
fn fates_add_up(p: &Table, at: &str, scenario: &str, probe: &str, want: &FateSummary) {
    let phase = phase_word(want.phase);
    let n = |fate: &str| {
        p.count(&[
            ("scenario", scenario),
            ("probe", probe),
            ("phase", phase),
            ("fate", fate),
        ])
    };
    let at = format!("{at} scenario {scenario} {probe} {phase}");
    assert_eq!(n("replied"), want.replied, "{at}: replied");
    assert_eq!(n("reached_b"), want.reached_b, "{at}: reached_b");
    assert_eq!(n("never_reached_b"), want.never_reached_b, "{at}: lost");
    assert_eq!(n("not_sent"), want.not_sent, "{at}: not_sent");
    assert_eq!(n("unresolved"), want.unresolved, "{at}: unresolved");
    let sent = n("replied") + n("reached_b") + n("never_reached_b") + n("unresolved");
    assert_eq!(sent, want.sent, "{at}: sent");
    let (s, pr, ph, f, late, cause) = (
        p.col("scenario"),
        p.col("probe"),
        p.col("phase"),
        p.col("fate"),
        p.col("late_rtt_ms"),
        p.col("cause"),
    );
    let mine = || {
        p.rows
            .iter()
            .filter(|r| r[s] == scenario && r[pr] == probe && r[ph] == phase)
    };
    let late_replies = mine()
        .filter(|r| r[f] == "reached_b" && !r[late].is_empty())
        .count() as u32;
    assert_eq!(late_replies, want.late_replies, "{at}: late replies");
    for d in &want.dropped_at_bottleneck {
        let word = serde_json::to_value(d.reason).unwrap();
        let got = mine()
            .filter(|r| r[f] == "never_reached_b" && r[cause] == word.as_str().unwrap())
            .count() as u32;
        assert_eq!(got, d.count, "{at}: {word}");
    }
    let unknown = mine()
        .filter(|r| r[f] == "never_reached_b" && r[cause].starts_with("unknown"))
        .count() as u32;
    assert_eq!(unknown, want.lost_cause_unknown, "{at}: cause unknown");
}

/// Every phase's fates of one probe, against results.json's own counts.
fn every_phase(p: &Table, run: &str, scenario: &str, probe: &str, fates: &ProbeFates) {
    for want in &fates.phases {
        fates_add_up(p, run, scenario, probe, want);
    }
    let with_fate = p.count(&[("scenario", scenario), ("probe", probe)])
        - p.count(&[("scenario", scenario), ("probe", probe), ("fate", "")]);
    assert_eq!(with_fate as usize, fates.requests.len(), "{run} {scenario}");
}

#[test]
fn every_request_and_every_flow_of_results_json_has_its_row() {
    for run in RUNS {
        let (r, dir) = finished(run);
        let p = Table::read(&dir.path().join("probes.csv"));
        let f = Table::read(&dir.path().join("flows.csv"));
        for s in &r.scenarios {
            let at = s.index.to_string();
            let sw = s.probe().map_or(0, |p| p.requests.len());
            let iso = s.iso_probe.as_ref().map_or(0, |i| i.log.requests.len());
            let rows = |probe| p.count(&[("scenario", &at), ("probe", probe)]) as usize;
            assert_eq!(rows("stop_and_wait"), sw, "{run} scenario {at}");
            assert_eq!(rows("isochronous"), iso, "{run} scenario {at}");
            assert_eq!(
                f.count(&[("scenario", &at)]) as usize,
                s.flows.len(),
                "{run} scenario {at}: flows"
            );
            // Flows numbered from 1, as the figures' "flow 1".
            for k in 1..=s.flows.len() {
                let k = k.to_string();
                assert_eq!(f.count(&[("scenario", &at), ("flow", &k)]), 1, "{run}");
            }
            // Each direction's goodput shares add up to 1: a flow's share
            // is its window goodput over its direction's flows' together.
            let (sc, dir, share) = (
                f.col("scenario"),
                f.col("direction"),
                f.col("goodput_share"),
            );
            for d in ["up", "down"] {
                let shares: Vec<f64> = f
                    .rows
                    .iter()
                    .filter(|row| row[sc] == at && row[dir] == d)
                    .filter_map(|row| row[share].parse().ok())
                    .collect();
                if !shares.is_empty() {
                    let sum: f64 = shares.iter().sum();
                    assert!((sum - 1.0).abs() < 1e-9, "{run} scenario {at} {d}: {sum}");
                }
            }
        }
        let requests: usize = r
            .scenarios
            .iter()
            .map(|s| {
                s.probe().map_or(0, |p| p.requests.len())
                    + s.iso_probe.as_ref().map_or(0, |i| i.log.requests.len())
            })
            .sum();
        assert_eq!(p.rows.len(), requests, "{run}: probes.csv rows");
        let flows: usize = r.scenarios.iter().map(|s| s.flows.len()).sum();
        assert_eq!(f.rows.len(), flows, "{run}: flows.csv rows");
    }
}

#[test]
fn fates_and_outcomes_add_up_to_results_json_and_the_summary() {
    for run in RUNS {
        let (r, dir) = finished(run);
        let p = Table::read(&dir.path().join("probes.csv"));
        let figures = netlab_analysis::summary::ScenarioFigures::of_run(&r);
        for (s, fig) in r.scenarios.iter().zip(&figures) {
            let at = s.index.to_string();
            if let Some(fates) = s.probe().and_then(|p| p.fates.as_ref()) {
                every_phase(&p, run, &at, "stop_and_wait", fates);
            }
            // summary.md's fate table: the loaded stop-and-wait requests.
            if let Some(loaded) = &fig.loaded_fates {
                fates_add_up(&p, run, &at, "stop_and_wait", loaded);
            }
            let Some(iso) = &s.iso_probe else { continue };
            if let Some(fates) = &iso.fates {
                every_phase(&p, run, &at, "isochronous", fates);
            }
            // The isochronous probe's own counts per phase (IsoOutcome).
            for ph in &iso.phases {
                let n = |outcome: &str| {
                    p.count(&[
                        ("scenario", &at),
                        ("probe", "isochronous"),
                        ("phase", phase_word(ph.phase)),
                        ("outcome", outcome),
                    ])
                };
                let st = &ph.stats;
                let at = format!("{run} scenario {at} {:?}", ph.phase);
                assert_eq!(n("reply"), st.ok, "{at}");
                assert_eq!(n("timeout"), st.censored, "{at}");
                assert_eq!(n("missed"), st.missed, "{at}");
                assert_eq!(n("send_error"), st.send_errors, "{at}");
            }
        }
    }
}

/// The loaded stop-and-wait fates per arm and point add up to the
/// headline's counts.
#[test]
fn loaded_fates_add_up_to_the_headline_s() {
    let mut checked = 0;
    for run in RUNS {
        let (r, dir) = finished(run);
        let p = Table::read(&dir.path().join("probes.csv"));
        let input = netlab_report::read_results(dir.path()).unwrap();
        let h = netlab_compare::headline::Headline::of_input(&input);
        // A sweep's headline is one per point, over that point's rounds.
        let arms: Vec<(&str, &netlab_compare::headline::ArmHeadline)> = if h.points.is_empty() {
            h.arms.iter().map(|a| ("default", a)).collect()
        } else {
            h.points
                .iter()
                .flat_map(|pt| pt.headline.arms.iter().map(move |a| (pt.label.as_str(), a)))
                .collect()
        };
        for (point, a) in arms {
            let Some(d) = &a.delivery else { continue };
            checked += 1;
            let n = |fate: &str| {
                p.count(&[
                    ("arm", &a.arm),
                    ("point_label", point),
                    ("probe", "stop_and_wait"),
                    ("phase", "loaded"),
                    ("fate", fate),
                ])
            };
            assert_eq!(n("replied"), d.replied, "{run} {}", a.arm);
            assert_eq!(n("reached_b"), d.reached_late, "{run} {}", a.arm);
            assert_eq!(n("never_reached_b"), d.lost(), "{run} {}", a.arm);
            assert_eq!(n("unresolved"), d.unresolved, "{run} {}", a.arm);
        }
        let with_fates = r
            .scenarios
            .iter()
            .any(|s| s.probe().is_some_and(|p| p.fates.is_some()));
        assert!(!with_fates || checked > 0, "{run}: no arm checked");
    }
    assert!(checked > 0);
}

/// The scenario's columns are sweep.csv's, with the same values, and a
/// flow's goodput is the one results.json (and summary.md) gives.
#[test]
fn scenario_columns_match_sweep_csv_and_goodput_results_json() {
    let (r, dir) = finished("run-host-pfifo-sweep");
    let sweep = Table::read(&dir.path().join("sweep.csv"));
    let f = Table::read(&dir.path().join("flows.csv"));
    let p = Table::read(&dir.path().join("probes.csv"));
    let lead = f.col("flow");
    assert_eq!(f.header[..lead], sweep.header[..lead]);
    assert_eq!(p.header[..lead], f.header[..lead]);
    for row in &f.rows {
        let s = sweep.rows.iter().find(|x| x[0] == row[0]).unwrap();
        assert_eq!(row[..lead], s[..lead]);
    }
    for s in &r.scenarios {
        for (k, fl) in s.flows.iter().enumerate() {
            let row = f
                .rows
                .iter()
                .find(|x| x[0] == s.index.to_string() && x[lead] == (k + 1).to_string())
                .unwrap();
            let got = &row[f.col("goodput_mbps")];
            match fl.tcp.as_ref().and_then(|t| t.goodput_mbps) {
                Some(g) => assert_eq!(got.parse::<f64>().unwrap(), g),
                None => assert!(got.is_empty()),
            }
            if let Some(t) = &fl.tcp {
                assert_eq!(row[f.col("cc")], t.cc_readback);
                assert_eq!(row[f.col("start_s")].parse::<f64>().unwrap(), t.connect_s);
            }
        }
    }
}
