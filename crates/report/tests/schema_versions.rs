//! `read_results` reads every results.json version netlab-results reads:
//! files of real runs of both versions, and one written the way a run
//! writes it now (netlab-results' scenario store).

mod common;

use std::io::Read as _;
use std::path::{Path, PathBuf};

use common::{fixture_folder, TempDir};
use netlab_results::{Results, ScenarioFiles, SCHEMA_VERSION};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// A folder holding the gunzipped results.json of `fixtures/report/<run>`.
fn gunzipped(run: &str) -> TempDir {
    let gz = std::fs::read(fixtures().join("report").join(run).join("results.json.gz")).unwrap();
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut json)
        .unwrap();
    let d = TempDir::new(run);
    std::fs::write(d.path().join("results.json"), json).unwrap();
    d
}

fn first_version(folder: &Path) -> u32 {
    let text = std::fs::read_to_string(folder.join("results.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["schema_version"].as_u64().unwrap() as u32
}

/// Real runs: a schema 2 host run (six rounds), the schema 2 shard with
/// its packet file, and the schema 1 guest run, migrated on read.
#[test]
fn real_runs_of_both_schema_versions_read() {
    let host = gunzipped("run-host-pfifo-6rounds");
    assert_eq!(first_version(host.path()), 2);
    let input = netlab_report::read_results(host.path()).unwrap();
    assert_eq!(input.schema_version, 2);
    assert_eq!(input.scenarios.len(), 6);
    assert!(input.scenarios.iter().all(|s| s.arm == "pfifo"
        && !s.probes.is_empty()
        && !s.tcp_info.is_empty()
        && !s.flows.is_empty()));
    assert!(input.config.iter().any(|(k, _)| k == "experiment"));

    let shard = fixtures().join("orchestrator/shard");
    assert_eq!(first_version(&shard), 2);
    let input = netlab_report::read_results(&shard).unwrap();
    assert_eq!(input.scenarios.len(), 1);
    assert!(
        !input.scenarios[0].packet_files.is_empty(),
        "the evidence pcapng is listed"
    );

    let guest = fixture_folder("v1");
    assert_eq!(first_version(guest.path()), 1);
    let input = netlab_report::read_results(guest.path()).unwrap();
    assert_eq!(input.schema_version, SCHEMA_VERSION, "migrated on read");
    assert_eq!(input.scenarios.len(), 6);
    // Every version renders.
    let out = TempDir::new("v1-out");
    let files = netlab_report::render(&input, out.path()).unwrap();
    assert_eq!(files.flent.len(), 6);
}

/// A results.json assembled by the scenario store, as every run writes it
/// now, reads to the very input of the run it holds; the schema 1 file it
/// was made from reads to the same.
#[test]
fn a_results_json_written_as_a_run_writes_it_reads_back_to_the_same_input() {
    let v1 = fixture_folder("store-v1");
    let run = Results::read(&v1.path().join("results.json")).unwrap();
    let out = TempDir::new("store-v2");
    let mut files = ScenarioFiles::create(out.path()).unwrap();
    for s in &run.scenarios {
        files.push(s.clone()).unwrap();
    }
    let header = Results {
        scenarios: Vec::new(),
        ..run.clone()
    };
    files
        .write_results(&header, &out.path().join("results.json"))
        .unwrap();
    files.remove_files().unwrap();
    assert_eq!(first_version(out.path()), SCHEMA_VERSION);
    let written = netlab_report::read_results(out.path()).unwrap();
    assert_eq!(written, netlab_analysis::input_from(&run).unwrap());
    assert_eq!(written, netlab_report::read_results(v1.path()).unwrap());
}
