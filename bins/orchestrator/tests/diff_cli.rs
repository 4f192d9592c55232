//! `orchestrator diff A B` as a user runs it (docs/usage.md, "Two runs"):
//! no root, nothing touched but `--out`; exit 2 for input it cannot
//! compare, 1 when `--fail-on-change` finds a claimed change beyond its
//! threshold.

use std::io::Read as _;
use std::path::Path;
use std::time::Duration;

mod support;

use support::{run_bounded, OutDir};

/// A scratch folder holding the committed run `run` as its results.json.
fn run_folder(run: &str) -> OutDir {
    let gz = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/report")
        .join(run)
        .join("results.json.gz");
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap())
        .read_to_end(&mut json)
        .unwrap();
    let out = OutDir::new(run);
    std::fs::create_dir_all(&out.0).unwrap();
    std::fs::write(out.0.join("results.json"), json).unwrap();
    out
}

const PFIFO: &str = "pfifo limit 256";
const FQ: &str = "fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn";

#[test]
fn diff_writes_its_files_and_fails_on_a_change_only_past_the_threshold() {
    let a = run_folder("run-uml-3rounds-fates");
    let out = OutDir::new("diff-out");
    let pair = format!("{PFIFO}={FQ}");
    let (code, stdout, err) = run_bounded(
        &[
            "diff",
            a.0.to_str().unwrap(),
            a.0.to_str().unwrap(),
            "--pair",
            &pair,
            "--out",
            out.0.to_str().unwrap(),
            "--fail-on-change",
            "p50",
        ],
        Duration::from_secs(60),
    );
    // fq_codel (B) is lower than pfifo (A) by at least 350 ms: a change.
    assert_eq!(code, 1, "stdout:\n{stdout}\nstderr:\n{err}");
    assert!(stdout.contains("B lower than A by at least"), "{stdout}");
    for f in [
        "diff.md",
        "diff.html",
        "diff.json",
        "diff-01-cdf.svg",
        "diff-01-goodput.svg",
    ] {
        assert!(out.0.join(f).exists(), "{f} not written");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.0.join("diff.json")).unwrap()).unwrap();
    assert_eq!(json["pairs"][0]["arm_a"], PFIFO);
    // Past a threshold larger than the change: exit 0.
    let (code, _, err) = run_bounded(
        &[
            "diff",
            a.0.to_str().unwrap(),
            a.0.to_str().unwrap(),
            "--pair",
            &pair,
            "--fail-on-change",
            "p50:5000",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn input_diff_cannot_compare_exits_2_and_writes_nothing() {
    let a = run_folder("run-host-pfifo-6rounds");
    let b = run_folder("run-uml-sparse-flows");
    let empty = OutDir::new("diff-empty");
    std::fs::create_dir_all(&empty.0).unwrap();
    let truncated = OutDir::new("diff-truncated");
    std::fs::create_dir_all(&truncated.0).unwrap();
    let text = std::fs::read(a.0.join("results.json")).unwrap();
    std::fs::write(truncated.0.join("results.json"), &text[..text.len() / 2]).unwrap();
    for (other, why) in [
        (&b, "nothing to compare"),
        (&empty, "results.json"),
        (&truncated, "results.json"),
    ] {
        let out = OutDir::new("diff-refused");
        let (code, _, err) = run_bounded(
            &[
                "diff",
                a.0.to_str().unwrap(),
                other.0.to_str().unwrap(),
                "--out",
                out.0.to_str().unwrap(),
            ],
            Duration::from_secs(60),
        );
        assert_eq!(code, 2, "{why}: {err}");
        assert!(err.contains(why), "{why}: {err}");
        assert!(!out.0.exists(), "{why}: --out was written");
    }
    let (code, _, err) = run_bounded(
        &["diff", "a", "b", "--fail-on-change", "latency"],
        Duration::from_secs(20),
    );
    assert_eq!(code, 2, "{err}");
}

/// `rerun --shard K/N` of a recorded sweep (8 units: 2 rates × 2 flow
/// counts × 2 rounds) is refused before anything runs when
/// N exceeds the units, and a bad K/N is a usage error: exit 2, nothing
/// written.
#[test]
fn rerun_of_a_shard_past_the_plans_units_is_refused_before_anything() {
    let a = run_folder("run-host-pfifo-sweep");
    for (shard, says) in [("1/99", "would run nothing"), ("3/2", "between 1 and N")] {
        let out = OutDir::new("rerun-shard");
        let (code, _, err) = run_bounded(
            &[
                "rerun",
                a.0.to_str().unwrap(),
                "--kernel",
                "host",
                "--shard",
                shard,
                "--out",
                out.0.to_str().unwrap(),
            ],
            Duration::from_secs(60),
        );
        assert_eq!(code, 2, "--shard {shard}: {err}");
        assert!(err.contains(says), "--shard {shard}: {err}");
        assert!(!out.0.exists(), "--shard {shard}: --out was made");
    }
}

/// `--fail-on-change loss` on a run without fates cannot be checked: exit
/// 2, naming why, never a silent 0.
#[test]
fn a_gate_on_a_metric_that_cannot_be_computed_exits_2_and_names_why() {
    let a = run_folder("run-uml-3rounds");
    let b = run_folder("run-uml-3rounds-fates");
    let (code, _, err) = run_bounded(
        &[
            "diff",
            a.0.to_str().unwrap(),
            b.0.to_str().unwrap(),
            "--fail-on-change",
            "loss",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--fail-on-change loss cannot be checked for pfifo limit 256: the loss needs every round's probe fates"), "{err}");
    assert!(err.contains("run A has none"), "{err}");
}
