//! Three `compare` runs at once on the host kernel: all
//! succeed with verified results, each under its own run id, with the same
//! default ports (the namespaces isolate them), and nothing is left after.
//! Needs root; skips with a printed reason otherwise, fails instead under
//! NETLAB_REQUIRE_PRIVILEGED=1.

mod faults;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use faults::{diff_lines, host_snapshot, namespaces_of, wait_bounded, Captured};
use netlab_topology::testing::require_privileged;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_orchestrator");

fn run_id_in(stderr: &str) -> Option<String> {
    stderr.lines().find_map(|l| {
        let rest = l.split("] run ").nth(1)?;
        rest.contains(" kernel ")
            .then(|| rest.split_whitespace().next().map(str::to_string))?
    })
}

fn check_results(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("results.json")).expect("results.json");
    let r: Value = serde_json::from_str(&text).expect("results.json parses");
    assert_eq!(r["schema_version"], netlab_results::SCHEMA_VERSION);
    let run_id = r["run_id"].as_str().expect("run_id");
    let scenarios = r["scenarios"].as_array().expect("scenarios");
    assert_eq!(scenarios.len(), 2, "two rounds of one arm");
    for s in scenarios {
        assert!(
            s["error"].is_null(),
            "{}: scenario failed: {}",
            out.display(),
            s["error"]
        );
        assert!(
            s["flows"][0]["tcp"]["goodput_mbps"]
                .as_f64()
                .is_some_and(|g| g > 1.0),
            "goodput {}",
            s["flows"][0]["tcp"]["goodput_mbps"]
        );
        assert_eq!(s["flows"][0]["tcp"]["receiver"]["validation_failures"], 0);
        let ns = s["namespaces"].to_string();
        assert!(
            ns.contains(&format!("nl-{run_id}-")),
            "namespaces {ns} carry the run id {run_id}"
        );
        assert_eq!(
            s["cleanup"]["namespaces_deleted"].as_array().map(Vec::len),
            Some(3),
            "all three namespaces deleted"
        );
    }
    r
}

#[test]
fn privileged_three_compare_runs_at_once_all_succeed_and_leave_nothing() {
    if !require_privileged("privileged_three_compare_runs_at_once_all_succeed_and_leave_nothing") {
        return;
    }
    // Results folders removed on drop, also when the test fails.
    let work = tempfile::Builder::new()
        .prefix("netlab-concurrent-")
        .tempdir()
        .expect("a folder under the temporary directory");
    let before = host_snapshot();
    let mut runs = Vec::new();
    for i in 0..3 {
        let out = work.path().join(format!("run-{i}"));
        // Default --tcp-port/--udp-port in all three: the namespaces isolate them.
        let mut child = Command::new(BIN)
            .args([
                "compare",
                "--kernel",
                "host",
                "--arm",
                "pfifo limit 256",
                "--rounds",
                "2",
                "--baseline",
                "1s",
                "--warmup",
                "1s",
                "--measure",
                "3s",
                "--out",
                out.to_str().unwrap(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawning orchestrator");
        let cap = Captured::of(&mut child);
        runs.push((out, child, cap));
    }
    // While they run: how many of the three had namespaces at the same time.
    let mut max_overlap = 0;
    let end = Instant::now() + Duration::from_secs(120);
    while Instant::now() < end
        && runs
            .iter_mut()
            .any(|(_, c, _)| c.try_wait().ok().flatten().is_none())
    {
        let live = runs
            .iter()
            .filter_map(|(_, _, cap)| run_id_in(&cap.stderr.lock().unwrap()))
            .filter(|id| !namespaces_of(id).is_empty())
            .count();
        max_overlap = max_overlap.max(live);
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut ids = BTreeSet::new();
    let mut ports = BTreeSet::new();
    for (out, mut child, cap) in runs {
        let status = wait_bounded(&mut child, Duration::from_secs(30));
        let (stdout, stderr) = cap.finish(Duration::from_secs(5));
        assert_eq!(
            status.and_then(|s| s.code()),
            Some(0),
            "{}: stdout:\n{stdout}\nstderr:\n{stderr}",
            out.display()
        );
        let r = check_results(&out);
        let id = r["run_id"].as_str().unwrap().to_string();
        assert!(
            namespaces_of(&id).is_empty(),
            "namespaces left: {:?}",
            namespaces_of(&id)
        );
        assert!(
            !Path::new(&format!("/run/netlab/{id}.json")).exists(),
            "state file of {id} left"
        );
        let port = |v: &Value, k: &str| v.as_u64().unwrap_or_else(|| panic!("experiment {k}: {v}"));
        ports.insert((
            port(&r["experiment"]["flows"][0]["port"], "flows[0].port"),
            port(&r["experiment"]["probes"][0]["port"], "probes[0].port"),
        ));
        ids.insert(id);
    }
    println!("run ids {ids:?}, ports {ports:?}, at most {max_overlap} runs had namespaces at once");
    assert_eq!(ids.len(), 3, "three distinct run ids: {ids:?}");
    assert_eq!(ports.len(), 1, "all three used the same ports: {ports:?}");
    assert!(
        max_overlap >= 2,
        "the runs did not overlap (max {max_overlap} at once)"
    );
    let after = host_snapshot();
    assert!(
        after == before,
        "host network state changed:\n{}",
        diff_lines(&before, &after)
    );
}
