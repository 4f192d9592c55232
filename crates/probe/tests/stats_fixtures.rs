//! Per-phase statistics against the hand-checked fixtures in `fixtures/probe/`.

use std::path::PathBuf;
use std::time::Duration;

use netlab_probe::{phase_stats, Phase, PhaseBounds, PhaseStats, ProbeRequest};
use serde::Deserialize;

#[derive(Deserialize)]
struct Fixture {
    name: String,
    hand_computation: Vec<String>,
    timeout_ms: f64,
    requests: Vec<ProbeRequest>,
    expected: Vec<PhaseStats>,
}

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/probe")
}

fn load(name: &str) -> Fixture {
    let path = fixture_dir().join(format!("{name}.json"));
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

fn check(name: &str) {
    let f = load(name);
    assert_eq!(f.name, name);
    assert!(!f.hand_computation.is_empty());
    let bounds = PhaseBounds::default();
    for r in &f.requests {
        assert_eq!(
            r.phase,
            bounds.phase_of(Duration::from_secs_f64(r.send_s)),
            "{name}: seq {} phase label disagrees with its send time",
            r.seq
        );
    }
    let timeout = Duration::from_secs_f64(f.timeout_ms / 1e3);
    assert!(!f.expected.is_empty());
    for want in &f.expected {
        let got = phase_stats(&f.requests, want.phase, timeout);
        assert_eq!(&got, want, "{name}: phase {:?}", want.phase);
        assert_eq!(got.sent, got.ok + got.timeouts);
    }
}

#[test]
fn all_timeouts() {
    check("all_timeouts");
}

#[test]
fn one_success() {
    check("one_success");
}

#[test]
fn even_n() {
    check("even_n");
}

#[test]
fn ties() {
    check("ties");
}

#[test]
fn mixed_censoring() {
    check("mixed_censoring");
}

#[test]
fn empty_phase() {
    check("empty_phase");
}

#[test]
fn every_fixture_file_is_checked() {
    let mut names: Vec<String> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "json")
                .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "all_timeouts",
            "empty_phase",
            "even_n",
            "mixed_censoring",
            "one_success",
            "ties"
        ]
    );
}

#[test]
fn censored_display_in_fixture() {
    let f = load("mixed_censoring");
    let loaded = phase_stats(&f.requests, Phase::Loaded, Duration::from_secs(1));
    assert_eq!(loaded.p50_censored.unwrap().to_string(), "19.0");
    assert_eq!(
        loaded.p95_censored.unwrap().to_string(),
        "≥ 1000 ms (censored)"
    );
}
