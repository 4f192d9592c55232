//! One way to finish a results folder (docs/architecture.md): the library alone, with
//! no orchestrator, takes a committed real run from its results.json to
//! summary.md, the plots, index.html and the Flent files, and the caveats
//! stand beside the figures in both.

mod common;

use std::path::Path;

use common::{fixture_folder, fixture_json};
use netlab_analysis::ReportBuilder;
use netlab_report::folder::{
    finish_folder, finish_from, FinishOptions, FinishStep, WhenReportFails,
};
use netlab_report::ReportError;
use netlab_results::Results;

/// The aggregation caveat of the guest run (tests/path_seen.rs derives its
/// numbers): fq_codel's queue held 15,140-byte skbs.
const CAVEAT: &str = "the queue held aggregates of up to 15,140 bytes";

fn names_in(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            names.extend(
                names_in(&e.path())
                    .into_iter()
                    .map(|n| format!("{name}/{n}")),
            );
        } else {
            names.push(name);
        }
    }
    names.sort();
    names
}

#[test]
fn a_fixture_folder_finished_by_the_library_alone_has_its_caveats_beside_the_figures() {
    let dir = fixture_folder("finish-caveats");
    let mut steps = Vec::new();
    let done = finish_folder(dir.path(), &FinishOptions::rerender(), &mut |s| {
        steps.push(s)
    })
    .expect("the fixture finishes");
    assert_eq!(
        steps,
        [FinishStep::SummaryWritten, FinishStep::ReportWritten]
    );
    done.summary.expect("summary.md written");
    let files = done.report.expect("the report written");
    assert_eq!(done.summary_md, dir.path().join("summary.md"));
    // Every file it says it wrote is there: 3 rounds × 2 arms, one Flent
    // file each.
    assert_eq!(files.flent.len(), 6);
    assert!(files.svgs.len() > 6, "{:?}", files.svgs);
    for f in files.svgs.iter().chain(&files.flent).chain([&files.html]) {
        assert!(f.exists(), "{}", f.display());
    }
    // summary.md: the caveat right below the table it qualifies.
    let md = std::fs::read_to_string(&done.summary_md).unwrap();
    let caveat_at = md
        .find(&format!("**Caveat:** {CAVEAT}"))
        .unwrap_or_else(|| panic!("no caveat in summary.md:\n{md}"));
    assert!(caveat_at > md.find("| Round |").unwrap(), "{md}");
    assert!(caveat_at < md.find("Baseline p95").unwrap(), "{md}");
    // index.html: beside the comparison between arms.
    let html = std::fs::read_to_string(&files.html).unwrap();
    let at = html
        .find(&format!("<strong>Caveat:</strong> {CAVEAT}"))
        .expect("the caveat in the report");
    assert!(at > html.find("<h2 id=figures>").unwrap());
    // What a run prints at its end: the table first.
    assert!(done.table[0].contains("| Round |"), "{:?}", done.table);
    // The one reading every entry point shares: summary.md is the pure
    // rendering of the whole file, and the page is the one read_results
    // renders.
    let results = Results::read(&dir.path().join("results.json")).unwrap();
    assert_eq!(md, netlab_report::summary::render(&results, 0));
    let page = netlab_report::render_all(&netlab_report::read_results(dir.path()).unwrap())
        .unwrap()
        .into_iter()
        .find(|f| f.name == "index.html")
        .unwrap();
    assert_eq!(page.bytes, html.as_bytes());
}

/// A run and a merge feed the builder from their scenario files and finish
/// with `finish_from`: the same folder, byte for byte, as reading
/// results.json gives, and the same table.
#[test]
fn a_folder_finished_from_its_scenarios_is_the_one_finished_from_results_json() {
    let read = fixture_folder("finish-read");
    let fed = fixture_folder("finish-fed");
    let options = FinishOptions::run_end(0);
    let from_json = finish_folder(read.path(), &options, &mut |_| {}).unwrap();
    let results = Results::parse(&fixture_json()).unwrap();
    let mut b = ReportBuilder::new(&results.experiment);
    for s in &results.scenarios {
        b.push(s);
    }
    let header = Results {
        scenarios: Vec::new(),
        ..results
    };
    let mut steps = Vec::new();
    let from_scenarios =
        finish_from(b, &header, fed.path(), &options, &mut |s| steps.push(s)).unwrap();
    assert_eq!(
        steps,
        [FinishStep::SummaryWritten, FinishStep::ReportWritten]
    );
    assert_eq!(from_json.table, from_scenarios.table);
    let names = names_in(read.path());
    assert_eq!(names, names_in(fed.path()));
    assert!(names.len() > 10, "{names:?}");
    assert!(
        names.iter().any(|n| n == "scenarios/s06/index.html"),
        "{names:?}"
    );
    for n in &names {
        assert!(
            std::fs::read(read.path().join(n)).unwrap()
                == std::fs::read(fed.path().join(n)).unwrap(),
            "{n} differs"
        );
    }
}

/// The builder a program feeds one scenario at a time gives the caveats
/// too (it once left them empty), the same as the whole file's reading.
#[test]
fn the_builder_fed_one_scenario_at_a_time_has_the_caveats() {
    let results = Results::parse(&fixture_json()).unwrap();
    let mut b = ReportBuilder::new(&results.experiment);
    for s in &results.scenarios {
        b.push(s);
    }
    assert_eq!(b.figures().len(), 6);
    let input = b.finish(&results).unwrap();
    assert_eq!(input.caveats.len(), 1, "{:?}", input.caveats);
    assert!(input.caveats[0].starts_with(CAVEAT), "{:?}", input.caveats);
    assert_eq!(input, netlab_analysis::input_from(&results).unwrap());
}

/// A run's folder keeps summary.md when the report cannot be drawn, and
/// says why the report failed; a folder rendered again is left as it was.
#[test]
fn a_report_that_cannot_be_drawn_keeps_a_runs_summary_and_leaves_a_rerendered_folder_alone() {
    let mut results = Results::parse(&fixture_json()).unwrap();
    results.scenarios[1].flows[0]
        .tcp
        .as_mut()
        .unwrap()
        .series_bin_s = 0.0;
    let write = |tag: &str| {
        let d = common::TempDir::new(tag);
        netlab_results::write_json_atomic(&d.path().join("results.json"), &results).unwrap();
        d
    };
    let field = "scenarios[1].flows[0].tcp.series_bin_s";

    let again = write("finish-refused");
    let e = finish_folder(again.path(), &FinishOptions::rerender(), &mut |_| {
        panic!("nothing may be written")
    })
    .unwrap_err();
    assert!(matches!(e, ReportError::Field { .. }) && e.to_string().contains(field));
    assert_eq!(names_in(again.path()), ["results.json"]);

    let run = write("finish-run-end");
    let options = FinishOptions::run_end(2);
    assert_eq!(options.when_report_fails, WhenReportFails::KeepSummary);
    let done = finish_folder(run.path(), &options, &mut |_| {}).unwrap();
    done.summary.expect("summary.md written");
    let e = done.report.unwrap_err();
    assert!(e.to_string().contains(field), "{e}");
    // The report, probes.csv and flows.csv among it, is all or nothing.
    assert_eq!(names_in(run.path()), ["results.json", "summary.md"]);
    let md = std::fs::read_to_string(&done.summary_md).unwrap();
    // The run's own count of failed teardown steps, in both.
    let note = "2 cleanup step(s) failed";
    assert!(md.contains(note), "{md}");
    assert!(md.contains(&format!("**Caveat:** {CAVEAT}")), "{md}");
    assert!(done
        .table
        .iter()
        .any(|l| l.starts_with(&format!("note: {note}"))));
}

/// A results.json that cannot be read writes nothing, whatever the options.
#[test]
fn an_unreadable_results_json_writes_nothing() {
    let text = fixture_json();
    let d = common::TempDir::new("finish-truncated");
    std::fs::write(d.path().join("results.json"), &text[..text.len() / 2]).unwrap();
    let e = finish_folder(d.path(), &FinishOptions::run_end(0), &mut |_| {
        panic!("nothing may be written")
    })
    .unwrap_err();
    assert!(e.to_string().contains("EOF"), "{e}");
    assert_eq!(names_in(d.path()), ["results.json"]);
}
