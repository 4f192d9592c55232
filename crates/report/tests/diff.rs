//! `netlab_report::diff` on committed runs (docs/report.md, "Two runs"):
//! the setup item by item, each arm's metrics over one run's rounds
//! against the other's with the verdict's statistics, and what only one
//! run has.

mod common;

use std::path::Path;

use common::{fixture_json_of, TempDir};
use netlab_report::diff::{diff, DiffError, RunDigest};

fn digest(run: &str) -> (TempDir, RunDigest) {
    let dir = TempDir::new(run);
    std::fs::write(dir.path().join("results.json"), fixture_json_of(run)).unwrap();
    let d = RunDigest::read(dir.path()).unwrap_or_else(|e| panic!("{run}: {e}"));
    (dir, d)
}

#[test]
fn a_run_against_itself_changes_nothing() {
    let (_a, a) = digest("run-uml-3rounds-fates");
    let (_b, b) = digest("run-uml-3rounds-fates");
    let d = diff(&a, &b, &[]).unwrap();
    assert!(d.setup_differs.is_empty(), "{:?}", d.setup_differs);
    assert_eq!(d.pairs.len(), 2, "pfifo and fq_codel");
    assert!(d.only_a.is_empty() && d.only_b.is_empty());
    for p in &d.pairs {
        for m in &p.metrics {
            assert_eq!(m.change, None, "{}", m.sentence);
            assert_eq!(m.a_rounds, m.b_rounds);
        }
    }
    assert!(d
        .headline()
        .iter()
        .any(|l| l == "no detectable change in any metric of any arm both runs have"));
}

/// Paired across arms, the diff of a run with itself is the run's own
/// verdict: fq_codel (B) against pfifo (A), worked out in the run's
/// summary.md (fq_codel lower by at least 350 ms, 90 % over 3 vs 3).
#[test]
fn a_pair_across_arms_gives_the_runs_own_verdict() {
    let (_a, a) = digest("run-uml-3rounds-fates");
    let (_b, b) = digest("run-uml-3rounds-fates");
    let pfifo = "pfifo limit 256";
    let fq = "fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn";
    let d = diff(&a, &b, &[(pfifo.into(), fq.into())]).unwrap();
    let p = d.pairs.iter().find(|p| p.arm_a == pfifo).unwrap();
    assert_eq!(p.arm_b, fq);
    let p50 = p.metrics.iter().find(|m| m.key == "p50").unwrap();
    let (higher, by) = p50.change.expect("the interval excludes 0");
    assert!(!higher, "{}", p50.sentence);
    // The run's verdict: "by at least 350 ms"; the diff's bound is the
    // interval's endpoint nearest zero, inside the interval.
    assert!((349.0..351.0).contains(&by), "{}", p50.sentence);
    assert!((p50.level - 0.9).abs() < 1e-9);
    assert!(
        p50.sentence.contains("B lower than A by at least"),
        "{}",
        p50.sentence
    );
    // fq_codel is also paired with itself (same words in both runs).
    assert!(d.pairs.iter().any(|p| p.arm_a == fq && p.arm_b == fq));
}

#[test]
fn two_runs_that_differ_in_known_keys_name_them_and_list_the_unshared_arm() {
    // A host pfifo run (6 rounds, receive buffer at max, kernel 6.18)
    // against the guest's pfifo and fq_codel run (3 rounds, uml 6.1).
    let (_a, a) = digest("run-host-pfifo-6rounds");
    let (_b, b) = digest("run-uml-3rounds-fates");
    let d = diff(&a, &b, &[]).unwrap();
    let key = |k: &str| d.setup_differs.iter().find(|s| s.key == k);
    let mode = key("kernel.mode").expect("kernel.mode differs");
    assert_eq!((mode.a.as_str(), mode.b.as_str()), ("host", "uml"));
    assert!(key("experiment.rounds").is_some());
    assert!(key("kernel.release").unwrap().explains.is_some());
    assert_eq!(d.pairs.len(), 1, "pfifo limit 256 in both");
    assert_eq!(
        d.only_b,
        ["fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn"]
    );
    // Every claimed change lies inside its own interval.
    for m in &d.pairs[0].metrics {
        if let Some((_, by)) = m.change {
            assert!(by > 0.0, "{}", m.sentence);
        }
    }
    let md = d.markdown();
    assert!(
        md.contains("## Setup") && md.contains("## What moved"),
        "{md}"
    );
    assert!(md.contains("- only in B: fq_codel"), "{md}");
    let json = serde_json::to_string(&d).unwrap();
    assert!(json.contains("\"setup_differs\""));
    let html = d.html().unwrap();
    assert!(html.contains("What moved"), "{html}");
    // The pair's figure: both runs on one axis, A solid, B dashed.
    let figs = d.figures().unwrap();
    assert_eq!(figs.len(), 1);
    assert_eq!(figs[0].0, "diff-01-cdf.svg");
    // B's dashes are short polylines of their own.
    assert!(figs[0].1.matches("<polyline").count() > 10, "B is dashed");
    assert!(html.contains("<figure><svg"), "the figure is inline");
}

#[test]
fn runs_of_every_schema_netlab_reads_are_compared() {
    // The v1 golden file against today's golden file.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/orchestrator");
    let a = RunDigest::read(&root.join("schema_v1/results.json")).expect("schema 1");
    let b = RunDigest::read(&root.join("golden/results.json")).expect("golden");
    let d = diff(&a, &b, &[]).expect("both have pfifo and fq_codel");
    assert!(!d.pairs.is_empty());
}

#[test]
fn runs_with_nothing_in_common_or_a_bad_pair_are_refused() {
    let (_a, a) = digest("run-host-pfifo-6rounds");
    let (_b, b) = digest("run-uml-sparse-flows");
    match diff(&a, &b, &[]) {
        Err(DiffError::NothingInCommon { .. }) => {}
        other => panic!("{other:?}"),
    }
    match diff(&a, &a, &[("pie".into(), "pfifo limit 256".into())]) {
        Err(DiffError::BadPair(..)) => {}
        other => panic!("{other:?}"),
    }
}
