//! End-to-end tests of `orchestrator report PATH` on a copy of the
//! committed golden results folder. No root needed: `report` only reads
//! results.json and writes files beside it.

use std::path::{Path, PathBuf};
use std::time::Duration;

mod support;

use support::{run_bounded, OutDir};

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/orchestrator/golden")
        .join(name)
}

/// A scratch folder holding `results_json` as its results.json.
fn folder_with(tag: &str, results_json: &[u8]) -> OutDir {
    let out = OutDir::new(tag);
    std::fs::create_dir_all(&out.0).unwrap();
    std::fs::write(out.0.join("results.json"), results_json).unwrap();
    out
}

/// Every file under `dir`, as a path relative to it (`scenarios/s01.html`).
fn names_in(dir: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            v.extend(
                names_in(&e.path())
                    .into_iter()
                    .map(|n| format!("{name}/{n}")),
            );
        } else {
            v.push(name);
        }
    }
    v.sort();
    v
}

fn report(path: &Path) -> (i32, String, String) {
    run_bounded(
        &["report", path.to_str().expect("utf-8 path")],
        Duration::from_secs(120),
    )
}

#[test]
fn report_writes_every_plot_the_page_the_flent_files_and_the_same_summary() {
    let out = folder_with(
        "report-golden",
        &std::fs::read(golden("results.json")).unwrap(),
    );
    let (code, stdout, err) = report(&out.0);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{err}");

    // summary.md re-rendered from the typed results, byte for byte.
    assert_eq!(
        std::fs::read(out.0.join("summary.md")).unwrap(),
        std::fs::read(golden("summary.md")).unwrap(),
        "summary.md differs from the one compare wrote"
    );
    // Every file the report crate renders from its own reading of the same
    // results.json (one reader, netlab-results), with the same bytes.
    let input = netlab_report::read_results(&out.0).unwrap();
    let expected = netlab_report::render_all(&input).unwrap();
    let svgs = expected.iter().filter(|f| f.name.ends_with(".svg")).count();
    let flent = expected
        .iter()
        .filter(|f| f.name.ends_with(".flent.gz"))
        .count();
    assert!(svgs >= 6, "only {svgs} plots");
    assert_eq!(flent, input.scenarios.len(), "one Flent file per scenario");
    assert!(expected.iter().any(|f| f.name == "index.html"));
    let pages = expected
        .iter()
        .filter(|f| f.name.starts_with("scenarios/s") && f.name.ends_with(".html"))
        .count();
    assert_eq!(pages, input.scenarios.len(), "one page per scenario");
    assert!(
        stdout.contains(&format!("{pages} scenario page(s)")),
        "{stdout}"
    );
    for f in &expected {
        let got = std::fs::read(out.0.join(&f.name))
            .unwrap_or_else(|e| panic!("report did not write {}: {e}", f.name));
        assert!(!got.is_empty(), "{} is empty", f.name);
        // The page's configuration block and the Flent metadata are told
        // from the experiment the v1 file converts to (schema 2).
        if f.name == "index.html" {
            let page = String::from_utf8(got.clone()).unwrap();
            assert!(page.contains("experiment"), "no experiment line");
        } else if f.name.ends_with(".flent.gz") {
            assert_eq!(&got[..2], &[0x1f, 0x8b], "{} is not gzip", f.name);
        }
        assert!(
            got == f.bytes,
            "{} differs from the report crate's rendering",
            f.name
        );
    }
    // Nothing else: no temporary file left behind.
    let mut want: Vec<String> = expected.iter().map(|f| f.name.clone()).collect();
    want.extend(["results.json", "summary.md"].map(String::from));
    want.sort();
    assert_eq!(names_in(&out.0), want);
    assert!(stdout.contains("index.html"), "{stdout}");

    // The results.json path works too, and re-rendering changes no byte.
    let before: Vec<Vec<u8>> = want
        .iter()
        .map(|n| std::fs::read(out.0.join(n)).unwrap())
        .collect();
    let (code, _, err) = report(&out.0.join("results.json"));
    assert_eq!(code, 0, "{err}");
    let after: Vec<Vec<u8>> = want
        .iter()
        .map(|n| std::fs::read(out.0.join(n)).unwrap())
        .collect();
    assert!(before == after, "re-rendering changed a file");
}

/// A refused input leaves the folder as it was: only results.json.
fn assert_refused(out: &OutDir, code: i32, err: &str, needles: &[&str]) {
    assert_eq!(code, 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}:\n{err}");
    }
    assert_eq!(names_in(&out.0), vec!["results.json".to_string()]);
}

#[test]
fn a_truncated_results_json_exits_1_naming_where_it_stops_and_writes_nothing() {
    let text = std::fs::read(golden("results.json")).unwrap();
    let out = folder_with("report-truncated", &text[..text.len() * 2 / 3]);
    let (code, _, err) = report(&out.0);
    assert_refused(&out, code, &err, &["results.json: field scenarios[", "EOF"]);
}

#[test]
fn a_hand_broken_field_is_named_by_its_path() {
    let text = std::fs::read_to_string(golden("results.json")).unwrap();
    let broken = text.replacen("\"series_bin_s\": 0.2", "\"series_bin_s\": \"0.2\"", 1);
    assert_ne!(broken, text, "the fixture changed: pick another field");
    let out = folder_with("report-broken", broken.as_bytes());
    let (code, _, err) = report(&out.0);
    assert_refused(
        &out,
        code,
        &err,
        &["field scenarios[0].tcp.series_bin_s", "invalid type"],
    );
    // A value of the right type that the report cannot draw is refused too.
    let zero = text.replacen("\"series_bin_s\": 0.2", "\"series_bin_s\": 0.0", 1);
    let out = folder_with("report-zero-bin", zero.as_bytes());
    let (code, _, err) = report(&out.0);
    assert_refused(
        &out,
        code,
        &err,
        &[
            "field scenarios[0].flows[0].tcp.series_bin_s",
            "must be positive",
        ],
    );
}

#[test]
fn an_unknown_schema_version_is_refused_with_a_clear_message() {
    let text = std::fs::read_to_string(golden("results.json")).unwrap();
    let future = text.replacen("\"schema_version\": 1,", "\"schema_version\": 99,", 1);
    assert_ne!(future, text, "the fixture changed");
    let out = folder_with("report-future", future.as_bytes());
    let (code, _, err) = report(&out.0);
    assert_refused(
        &out,
        code,
        &err,
        &["schema_version 99", "cannot read", "[1, 2, 3, 4]"],
    );
}

#[test]
fn a_missing_results_json_exits_1_naming_the_file() {
    let out = OutDir::new("report-missing");
    std::fs::create_dir_all(&out.0).unwrap();
    let (code, _, err) = report(&out.0);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("reading") && err.contains("results.json"),
        "{err}"
    );
    assert!(names_in(&out.0).is_empty());
}

/// A run written before `[report] models` existed
/// (fixtures/report/run-uml-sparse-flows) records no models, so its report
/// drew no N* = 8.26. `report --models sparse_flow` records the model in
/// its results.json (every other byte kept) and draws it; a plain
/// `report` afterwards draws it again; a run that records models keeps
/// its own (exit 2).
#[test]
fn report_models_records_them_so_every_later_report_redraws_them() {
    use std::io::Read as _;
    let gz = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/report/run-uml-sparse-flows/results.json.gz");
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap())
        .read_to_end(&mut json)
        .unwrap();
    let out = folder_with("report-models", &json);
    let n_star = "model N* = 8.26";
    let (code, _, err) = report(&out.0);
    assert_eq!(code, 0, "{err}");
    let md = std::fs::read_to_string(out.0.join("summary.md")).unwrap();
    assert!(!md.contains(n_star), "no model recorded, none drawn");
    let (code, stdout, err) = run_bounded(
        &["report", out.0.to_str().unwrap(), "--models", "sparse_flow"],
        Duration::from_secs(120),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("recorded the models sparse_flow"),
        "{stdout}"
    );
    let after = std::fs::read(out.0.join("results.json")).unwrap();
    let inserted = br#""report":{"models":["sparse_flow"]},"#;
    assert_eq!(after.len(), json.len() + inserted.len());
    let at = after
        .windows(inserted.len())
        .position(|w| w == inserted)
        .expect("the models' record");
    assert_eq!(
        [&after[..at], &after[at + inserted.len()..]].concat(),
        json,
        "every other byte kept"
    );
    // Every later report draws the model, without the flag.
    for _ in 0..2 {
        let md = std::fs::read_to_string(out.0.join("summary.md")).unwrap();
        assert!(md.contains(n_star), "{md}");
        let (code, _, err) = report(&out.0);
        assert_eq!(code, 0, "{err}");
    }
    let (code, _, err) = run_bounded(
        &["report", out.0.to_str().unwrap(), "--models", "aqm_law"],
        Duration::from_secs(60),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a run keeps its own"), "{err}");
    let (code, _, err) = run_bounded(
        &["report", out.0.to_str().unwrap(), "--models", "nonsense"],
        Duration::from_secs(60),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown model"), "{err}");
}
