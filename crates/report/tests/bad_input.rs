//! Broken results.json: a clear error naming the field, never a panic, never
//! a half-written report.

mod common;

use common::{fixture_json, TempDir};
use netlab_report::ReportError;

fn try_dir(bytes: &[u8], tag: &str) -> (TempDir, Result<netlab_report::ReportFiles, ReportError>) {
    let d = TempDir::new(tag);
    std::fs::write(d.path().join("results.json"), bytes).unwrap();
    let r = netlab_report::read_results(d.path()).and_then(|i| netlab_report::render(&i, d.path()));
    (d, r)
}

fn only_results_json(d: &TempDir) {
    let names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["results.json".to_string()],
        "nothing else was written"
    );
}

#[test]
fn truncated_file_names_where_it_stopped() {
    let full = fixture_json();
    for cut in [10, full.len() / 3, full.len() - 5] {
        let (d, r) = try_dir(&full[..cut], "trunc");
        let e = r.expect_err("a truncated file is refused");
        let msg = e.to_string();
        assert!(matches!(e, ReportError::Field { .. }), "{msg}");
        assert!(msg.contains("EOF"), "{msg}");
        only_results_json(&d);
    }
}

#[test]
fn a_wrong_type_names_the_field_path() {
    let text = String::from_utf8(fixture_json()).unwrap();
    let broken = text.replacen("\"send_s\": ", "\"send_s\": \"soon\", \"x\": ", 1);
    let field = |r: Result<netlab_report::ReportFiles, ReportError>| match r {
        Err(ReportError::Field { path, message }) => (path, message),
        other => panic!("not a field error: {other:?}"),
    };
    let (d, r) = try_dir(broken.as_bytes(), "type");
    assert_eq!(
        field(r),
        (
            "scenarios[0].probe.requests[0].send_s".to_string(),
            "invalid type: string \"soon\", expected f64 at line 11054 column 28".to_string()
        )
    );
    only_results_json(&d);

    let missing = text.replacen("\"run_id\"", "\"run_idx\"", 1);
    let (d, r) = try_dir(missing.as_bytes(), "missing");
    assert_eq!(
        field(r),
        (
            "(top level)".to_string(),
            "missing field `run_id` at line 68699 column 1".to_string()
        )
    );
    only_results_json(&d);

    let bad_kind = text.replacen("\"kind\": \"reply\"", "\"kind\": \"maybe\"", 1);
    let (_d, r) = try_dir(bad_kind.as_bytes(), "kind");
    assert_eq!(
        field(r),
        (
            "scenarios[0].probe.requests[0].outcome.kind".to_string(),
            "unknown variant `maybe`, expected one of `pending`, `reply`, `timeout`, \
             `send_error`, `abandoned` at line 11049 column 29"
                .to_string()
        )
    );
}

#[test]
fn a_future_schema_is_refused_clearly() {
    let text = String::from_utf8(fixture_json()).unwrap();
    let future = text.replacen("\"schema_version\": 1", "\"schema_version\": 7", 1);
    assert_ne!(future, text);
    let (d, r) = try_dir(future.as_bytes(), "future");
    let e = r.expect_err("refused");
    assert!(
        matches!(e, ReportError::UnsupportedSchema { found: 7, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("schema_version 7"));
    only_results_json(&d);
    let (_d, r) = try_dir(b"{\"tool\": 1}", "noversion");
    assert!(r.unwrap_err().to_string().contains("schema_version"));
    let (_d, r) = try_dir(b"", "empty");
    assert!(matches!(r.unwrap_err(), ReportError::Field { .. }));
}

#[test]
fn missing_file_and_unwritable_output_are_errors() {
    let d = TempDir::new("nofile");
    let e = netlab_report::read_results(d.path()).unwrap_err();
    assert!(e.to_string().contains("results.json"), "{e}");
    // The output folder is a file: nothing can be written, and it says so.
    let results = netlab_results::Results::parse(&fixture_json()).unwrap();
    let input = netlab_analysis::input_from(&results).unwrap();
    let file = d.path().join("not-a-folder");
    std::fs::write(&file, b"x").unwrap();
    let e = netlab_report::render(&input, &file).unwrap_err();
    assert!(matches!(e, ReportError::Io { .. }), "{e}");
}
