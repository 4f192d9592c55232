//! Sentences that were true before B's receive log and are false with it
//! (method §5.8): a run whose every round records its probe's fates
//! (fixtures/report/run-uml-3rounds-fates) no longer says that a timeout
//! cannot tell a lost packet from queueing, nor that the overview's
//! timeout band has "no record of why"; a run without fates
//! (run-uml-3rounds) still says both, as they hold there.

mod common;

use common::{fixture_json_of, TempDir};
use netlab_results::Results;

/// summary.md, index.html and the overview figure of `run`.
fn outputs(run: &str) -> (String, String, String) {
    let d = TempDir::new(run);
    let json = fixture_json_of(run);
    std::fs::write(d.path().join("results.json"), &json).unwrap();
    let input = netlab_report::read_results(d.path()).unwrap();
    let files = netlab_report::render_all(&input).unwrap();
    let file = |name: &str| common::rendered_text(&files, name, run);
    (
        netlab_report::summary::render(&Results::parse(&json).unwrap(), 0),
        file("index.html"),
        common::svg_words(&file("overview-pfifo-vs-fq_codel.svg")),
    )
}

const STALE_NOTE: &str = "a timeout cannot tell a lost packet from";
const STALE_BAND: &str = "no record of why";

#[test]
fn a_run_with_fates_drops_the_sentences_its_fates_make_false() {
    let (md, html, overview) = outputs("run-uml-3rounds-fates");
    for (name, text) in [("summary.md", &md), ("index.html", &html)] {
        assert!(!text.contains(STALE_NOTE), "{name} keeps the stale note");
        assert!(
            text.contains("Probe timeouts are told apart by B's receive log (method §5.8)"),
            "{name}"
        );
    }
    assert!(!overview.contains(STALE_BAND), "the overview's band");
    assert!(overview.contains("reply never came back, or unresolved"));
}

#[test]
fn a_run_without_fates_keeps_them() {
    let (md, html, overview) = outputs("run-uml-3rounds");
    assert!(md.contains(STALE_NOTE));
    assert!(html.contains(STALE_NOTE));
    assert!(overview.contains(STALE_BAND));
}
