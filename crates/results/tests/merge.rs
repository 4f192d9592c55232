//! The merge of a sharded run's folders, on its own (the orchestrator's
//! `merge` tests add the summary and report): scenarios byte for byte in
//! plan order, the merge record, and the refusals, each before anything is
//! written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use netlab_results::merge::{check_folders, read_source, MergeError};
use netlab_results::split::read_split;
use netlab_results::{Results, ScenarioFiles, ScenarioResult, ShardRecord};
use netlab_sys::testing::Scratch;

/// The golden run's two scenarios as a 2-round experiment: 4 scenarios.
fn study() -> (Results, Vec<ScenarioResult>) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/orchestrator/golden/results.json");
    let golden = Results::read(&p).unwrap();
    let mut exp = golden.experiment().unwrap();
    exp.rounds = 2;
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
            s
        })
        .collect();
    (header, scenarios)
}

/// A shard folder as a finished run leaves it.
fn shard(dir: &Path, k: u32, header: &Results, scenarios: &[ScenarioResult]) -> PathBuf {
    let out = dir.join(format!("shard{k}"));
    std::fs::create_dir_all(&out).unwrap();
    let mut files = ScenarioFiles::create(&out).unwrap();
    for s in scenarios {
        files.push(s.clone()).unwrap();
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
    files.write_results(&h, &out.join("results.json")).unwrap();
    files.remove_files().unwrap();
    out
}

fn elements(path: &Path) -> BTreeMap<u32, Vec<u8>> {
    let mut m = BTreeMap::new();
    read_split(path, |_, b, s| {
        m.insert(s.index, b.to_vec());
        Ok(())
    })
    .unwrap();
    m
}

#[test]
fn two_shards_become_one_results_folder_byte_for_byte() {
    let dir = Scratch::new("results-merge");
    let (header, sc) = study();
    let b = shard(&dir.0, 2, &header, &sc[2..]);
    let a = shard(&dir.0, 1, &header, &sc[..2]);
    let out = dir.0.join("merged");
    let mut said = Vec::new();
    let checked =
        check_folders(&out, &[b.clone(), a.clone()], false, &mut |m| said.push(m)).unwrap();
    assert!(!out.exists(), "the first pass writes nothing");
    assert!(checked.missing().is_empty());
    let merged = checked.write(&mut |m| said.push(m)).unwrap();
    assert!(said.is_empty(), "{said:?}");
    assert_eq!(merged.files.len(), 4);
    let mut from_shards = elements(&a.join("results.json"));
    from_shards.extend(elements(&b.join("results.json")));
    assert_eq!(elements(&out.join("results.json")), from_shards);
    let r = Results::read(&out.join("results.json")).unwrap();
    assert_eq!(r.scenarios, sc);
    let rec = r.merged.unwrap();
    assert_eq!((rec.planned, rec.missing.len()), (4, 0));
    assert_eq!(rec.sources[0].plan_indices, [3, 4]);
    assert_eq!(rec.sources[1].shard.as_deref(), Some("1/2"));
    assert_eq!(read_source(&a).unwrap().in_results, [1, 2].into());
    merged.files.remove_files().unwrap();
}

#[test]
fn a_missing_or_repeated_share_is_refused_before_anything_is_written() {
    let dir = Scratch::new("results-merge-bad");
    let (header, sc) = study();
    let a = shard(&dir.0, 1, &header, &sc[..2]);
    let out = dir.0.join("merged");
    let mut quiet = |_: String| {};
    let e = check_folders(&out, std::slice::from_ref(&a), false, &mut quiet).unwrap_err();
    assert!(
        matches!(&e, MergeError::Data(m) if m.contains("plan indices 3, 4")),
        "{e}"
    );
    let e = check_folders(&out, &[a.clone(), a.clone()], false, &mut quiet).unwrap_err();
    assert!(
        matches!(&e, MergeError::Usage(m) if m.contains("given twice")),
        "{e}"
    );
    // Partial: allowed, and what is missing is recorded.
    let checked = check_folders(&out, std::slice::from_ref(&a), true, &mut quiet).unwrap();
    assert_eq!(checked.missing(), [3, 4]);
    assert!(!out.exists());
    let merged = checked.write(&mut quiet).unwrap();
    assert_eq!(merged.header.merged.as_ref().unwrap().missing, [3, 4]);
    merged.files.remove_files().unwrap();
}
