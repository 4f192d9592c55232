//! results.json records the models an experiment names (`[report]
//! models`, docs/models.md) in `experiment.report`: a file written before
//! models existed (the committed shard run, schema 3) reads with none, and
//! one that names them writes and reads them back.

use std::path::Path;

use netlab_experiment::{Experiment, ModelKind};
use netlab_results::Results;

fn shard_run() -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/orchestrator/shard/results.json");
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn results_json_reads_without_models_and_round_trips_with_them() {
    let bytes = shard_run();
    assert!(!String::from_utf8_lossy(&bytes).contains("\"report\""));
    let mut r = Results::parse(&bytes).unwrap();
    assert!(r.experiment.report.is_none());
    let exp = Experiment::from_file(&r.experiment).unwrap();
    assert!(exp.models.is_empty());

    // Without a model nothing is written: the file's shape is unchanged.
    let plain = serde_json::to_string(&r).unwrap();
    assert!(!plain.contains("\"report\""));

    let named = Experiment {
        models: vec![ModelKind::SparseFlow, ModelKind::FifoBound],
        ..exp.clone()
    };
    r.experiment = named.to_file();
    let json = serde_json::to_string(&r).unwrap();
    assert!(
        json.contains(r#""report":{"models":["sparse_flow","fifo_bound"]}"#),
        "{json:.300}"
    );
    let back = Results::parse(json.as_bytes()).unwrap();
    assert_eq!(Experiment::from_file(&back.experiment).unwrap(), named);
    // The models change what the report draws, not what ran.
    assert_eq!(named.content_hash(), exp.content_hash());
}
