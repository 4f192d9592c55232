//! `plan`, `run --shard`/`--resume` refusals and `merge` refusals through
//! the binary: no root needed, nothing touches the network.
//! Bad usage exits 2, bad data 1; each message names what is wrong, and
//! nothing is written over an existing result.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use support::{run_bounded, OutDir};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture() -> PathBuf {
    repo().join("fixtures/orchestrator/shard")
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_bounded(args, Duration::from_secs(60))
}

/// Copies the fixture shard into `dir/name`.
fn copy_fixture(dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::create_dir_all(&to).unwrap();
    std::fs::copy(fixture().join("results.json"), to.join("results.json")).unwrap();
    to
}

#[test]
fn plan_lists_every_scenario_with_hash_version_and_shard() {
    let zoo = repo().join("experiments/aqm_zoo.toml");
    // 3 rounds of one point: 3 units, so at most 3 shards.
    let (code, table, err) = run(&["plan", zoo.to_str().unwrap(), "--shards", "3"]);
    assert_eq!(code, 0, "{err}");
    let (code, json, err) = run(&["plan", "--json", zoo.to_str().unwrap(), "--shards", "3"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    let hash = v["experiment_hash"].as_str().unwrap();
    assert_eq!(hash.len(), 64);
    assert!(table.contains(hash) && table.contains(v["netlab_version"].as_str().unwrap()));
    let lines = v["scenarios"].as_array().unwrap();
    assert!(!lines.is_empty());
    for (i, s) in lines.iter().enumerate() {
        assert_eq!(s["index"], i as u64 + 1);
        assert_eq!(s["shard"], s["unit"].as_u64().unwrap() % 3 + 1);
        let row = format!("| {} | {} |", s["index"], s["unit"]);
        assert!(table.contains(&row), "{row}");
    }
    // A bad file names its key, exit 2.
    let dir = OutDir::new("plan-bad");
    std::fs::create_dir_all(&dir.0).unwrap();
    let bad = dir.0.join("bad.toml");
    std::fs::write(&bad, "rounds = 0\n").unwrap();
    let (code, _, err) = run(&["plan", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("rounds"), "{err}");
    let (code, _, err) = run(&["plan", zoo.to_str().unwrap(), "--shards", "0"]);
    assert_eq!(code, 2, "{err}");
    // More shards than units: the ones past 3 would run nothing.
    let (code, out, err) = run(&["plan", zoo.to_str().unwrap(), "--shards", "4"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("--shards 4: 4 shards for 3 unit(s)") && err.contains("use at most 3"),
        "{err}"
    );
}

#[test]
fn bad_shards_are_usage_errors_and_create_nothing() {
    let dir = OutDir::new("shard-bad");
    let out = dir.0.join("never");
    let exp = fixture().join("experiment.toml");
    for (shard, says) in [
        ("3/2", "between 1 and N = 2"),
        ("0/0", "at least 1"),
        ("x/2", "\"x\" is not a whole number"),
        ("1/two", "\"two\" is not a whole number"),
        ("2", "not K/N"),
        ("1/99", "would run nothing"),
    ] {
        let (code, _, err) = run(&[
            "run",
            exp.to_str().unwrap(),
            "--shard",
            shard,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "--shard {shard}: {err}");
        assert!(
            err.contains("--shard") && err.contains(says),
            "--shard {shard}: {err}"
        );
        assert!(!out.exists(), "--shard {shard} created {}", out.display());
    }
    let (code, _, err) = run(&["run", exp.to_str().unwrap(), "--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--resume needs --out"), "{err}");
}

#[test]
fn merge_refuses_foreign_corrupt_and_existing_results() {
    let dir = OutDir::new("merge-cli");
    std::fs::create_dir_all(&dir.0).unwrap();
    let out = dir.0.join("merged");
    let a = copy_fixture(&dir.0, "a");
    // Another experiment: the same scenario under a 3-round experiment.
    let b = copy_fixture(&dir.0, "b");
    let mut v: Value =
        serde_json::from_slice(&std::fs::read(b.join("results.json")).unwrap()).unwrap();
    v["experiment"]["rounds"] = Value::from(3);
    v.as_object_mut().unwrap().remove("experiment_hash");
    std::fs::write(
        b.join("results.json"),
        serde_json::to_vec_pretty(&v).unwrap(),
    )
    .unwrap();
    let (code, _, err) = run(&[
        "merge",
        out.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let ha = serde_json::from_slice::<Value>(&std::fs::read(a.join("results.json")).unwrap())
        .unwrap()["experiment_hash"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        err.contains(&ha) && err.contains("only folders of one experiment"),
        "{err}"
    );
    assert!(!out.exists());
    // A corrupt scenario file (a killed run's, cut short).
    let c = copy_fixture(&dir.0, "c");
    std::fs::create_dir_all(c.join("scenarios")).unwrap();
    std::fs::write(
        c.join("scenarios/0002.json"),
        "    {\n      \"index\": 2,\n",
    )
    .unwrap();
    let (code, _, err) = run(&["merge", out.to_str().unwrap(), c.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("scenarios/0002.json"), "{err}");
    assert!(!out.exists());
    // A corrupt results.json.
    let d = copy_fixture(&dir.0, "d");
    let text = std::fs::read(d.join("results.json")).unwrap();
    std::fs::write(d.join("results.json"), &text[..text.len() / 2]).unwrap();
    let (code, _, err) = run(&[
        "merge",
        out.to_str().unwrap(),
        d.to_str().unwrap(),
        "--allow-partial",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("truncated") && err.contains("/d/results.json"),
        "{err}"
    );
    // Missing plan index 2: listed; --allow-partial merges and says so.
    let (code, _, err) = run(&["merge", out.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("plan indices 2; missing shards: 2 of 2 "),
        "{err}"
    );
    let (code, stdout, err) = run(&[
        "merge",
        out.to_str().unwrap(),
        a.to_str().unwrap(),
        "--allow-partial",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("partial: plan indices 2 missing"),
        "{stdout}"
    );
    // Never over an existing result.
    let before = std::fs::read(out.join("results.json")).unwrap();
    let (code, _, err) = run(&[
        "merge",
        out.to_str().unwrap(),
        a.to_str().unwrap(),
        "--allow-partial",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("already holds a results.json"), "{err}");
    assert_eq!(std::fs::read(out.join("results.json")).unwrap(), before);
    // Usage: a folder given twice; no folder at all.
    let (code, _, err) = run(&[
        "merge",
        dir.0.join("m2").to_str().unwrap(),
        a.to_str().unwrap(),
        a.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["merge", dir.0.join("m3").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn plan_prints_the_seeds_warnings_with_their_fixes_on_stderr() {
    let seed = repo().join("experiments/seed.toml");
    let (code, json, err) = run(&["plan", "--json", seed.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // stdout stays machine-readable.
    serde_json::from_str::<Value>(&json).expect("plan --json is JSON");
    // The seed with the kernel's offloads: the FIFO may outlast the probe's
    // timeout and an aggregate CoDel's target (possibilities), TBF's limit
    // is replaced, and the Not-ECT probe sits beside an ECN flow.
    for want in [
        "orchestrator plan: warning: pfifo limit 256 (up): with full-sized 1514 B packets a full queue holds 620 ms",
        "TBF's limit 64kb does not bound the queue",
        "a GSO aggregate of up to 16384 B may reach it",
        "UDP packets are Not-ECT while 1 flow(s) negotiate ECN",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert_eq!(
        err.matches("warning:").count(),
        err.matches("\n  fix: ").count(),
        "every warning has its fix:\n{err}"
    );
}
