//! Test helpers (feature `testing`): a study made from the committed golden
//! run and shard folders written as a run leaves them, for the merge and
//! resume tests here and in the orchestrator, and a results.json split into
//! its scenarios' bytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::split::read_split;
use crate::{RanOn, Results, ScenarioFiles, ScenarioResult, ShardRecord};

/// The golden run (`fixtures/orchestrator/golden`, two arms) as an
/// experiment of `rounds` rounds: its header (no scenarios) and one
/// scenario per planned index (the golden scenario of its arm, with its
/// plan index, round, seed, and `ran_on` naming host `node<round>`).
pub fn golden_study(rounds: u32) -> (Results, Vec<ScenarioResult>) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/orchestrator/golden/results.json");
    let golden = Results::read(&p).expect("the golden results.json reads");
    let mut exp = golden.experiment().expect("the golden experiment resolves");
    exp.rounds = rounds;
    let header = Results {
        experiment: exp.to_file(),
        experiment_hash: Some(exp.content_hash()),
        scenarios: Vec::new(),
        ..golden.clone()
    };
    let scenarios = exp
        .plan()
        .scenarios
        .iter()
        .map(|p| {
            let mut s = golden.scenarios[p.arm_index].clone();
            s.index = p.index;
            s.round = p.round;
            s.seed = p.seed;
            s.ran_on = Some(RanOn {
                hostname: format!("node{}", p.round),
                kernel_release: "6.18.0".into(),
                cpu_model: "Test CPU".into(),
                netlab_version: "0.1.0".into(),
                started_utc: "2026-12-01T00:00:00Z".into(),
            });
            s
        })
        .collect();
    (header, scenarios)
}

/// Writes `dir/name` holding `scenarios` as shard `k` of 2 leaves it
/// (results.json only, run id `run<k>`); returns the folder.
pub fn shard_folder(
    dir: &Path,
    name: &str,
    header: &Results,
    scenarios: &[ScenarioResult],
    k: u32,
) -> PathBuf {
    let out = dir.join(name);
    std::fs::create_dir_all(&out).expect("creating the shard folder");
    let mut files = ScenarioFiles::create(&out).expect("the scenario store");
    for s in scenarios {
        files.push(s.clone()).expect("a scenario file");
    }
    let h = Results {
        shard: Some(ShardRecord {
            k,
            n: 2,
            units_total: 2,
            plan_indices: scenarios.iter().map(|s| s.index).collect(),
        }),
        run_id: format!("run{k}"),
        ..header.clone()
    };
    files
        .write_results(&h, &out.join("results.json"))
        .expect("results.json");
    files.remove_files().expect("removing the scenario files");
    out
}

/// Every scenario element of a results.json, as its bytes, by plan index.
pub fn elements(path: &Path) -> BTreeMap<u32, Vec<u8>> {
    let mut m = BTreeMap::new();
    read_split(path, |_, b, s| {
        m.insert(s.index, b.to_vec());
        Ok(())
    })
    .expect("a results.json the splitter reads");
    m
}
