//! Issue 14 §6 (soak): file descriptors across the scenarios of one run.
//! Needs root; skips without it unless NETLAB_REQUIRE_PRIVILEGED=1.

use std::time::Duration;

use netlab_topology::testing::require_privileged;
use serde_json::Value;

mod support;

use support::*;

/// Issue 14 §6: a multi-round run leaks no file descriptor: every scenario
/// ends with as many open as the one before it started with.
#[test]
fn privileged_a_multi_round_run_leaks_no_file_descriptor() {
    if !require_privileged("privileged_a_multi_round_run_leaks_no_file_descriptor") {
        return;
    }
    let out = OutDir::new("fd-leak");
    let out_s = out.0.to_str().unwrap().to_string();
    let (code, stdout, err) = run_bounded(
        &[
            "compare",
            "--kernel",
            "host",
            "--arm",
            "pfifo limit 256",
            "--rounds",
            "4",
            "--baseline",
            "1s",
            "--warmup",
            "1s",
            "--measure",
            "1s",
            "--quiet",
            "--out",
            &out_s,
        ],
        Duration::from_secs(120),
    );
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{err}");
    let r: Value =
        serde_json::from_slice(&std::fs::read(out.0.join("results.json")).unwrap()).unwrap();
    let fds: Vec<(u64, u64)> = r["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let f = &s["open_fds"];
            (f[0].as_u64().unwrap(), f[1].as_u64().unwrap())
        })
        .collect();
    println!("open fds before/after each scenario: {fds:?}");
    assert_eq!(fds.len(), 4);
    for (i, (before, after)) in fds.iter().enumerate() {
        assert_eq!(
            before,
            after,
            "scenario {} left {} fd(s) open",
            i + 1,
            after - before
        );
    }
}
