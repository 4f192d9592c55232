//! End-to-end tests of the probe sweep axes: refusals of
//! bad probe intervals and sizes before anything is built, and a two-point
//! sweep of the isochronous probe's interval run on the host kernel, each
//! scenario recording the interval and size it ran with and sending the
//! number of requests its interval gives; and a two-point sweep of the
//! stop-and-wait probe's size, each size sent, echoed and logged by B.

use std::time::Duration;

use netlab_topology::testing::require_privileged;
use serde_json::Value;

mod support;

use support::*;

/// A tiny experiment: one pfifo arm behind 20 Mbit/s, one Reno upload,
/// both probes (the isochronous one padded to 200 bytes), 1 s phases.
const SWEEP: &str = r#"
name = "iso-interval-sweep"
rounds = 1
arms = ["pfifo limit 256"]

[timeline]
baseline = "1s"
warmup = "1s"
measure = "1s"

[path.up]
rate = "20mbit"

[[flows]]
cc = "reno"

[[probes]]
kind = "stop-and-wait"

[[probes]]
kind = "isochronous"
size = 200

[sweep]
isochronous_interval = ["10ms", "50ms"]
"#;

#[test]
fn bad_probe_axes_exit_2_naming_the_key_before_anything_is_built() {
    let out = OutDir::new("probe-axes-bad");
    std::fs::create_dir_all(&out.0).unwrap();
    let iso = "[[probes]]\nkind = \"isochronous\"\n";
    let cases = [
        (format!("{iso}size = 39"), "probes[0].size"),
        (format!("{iso}size = 1473"), "probes[0].size"),
        (
            "[sweep]\nisochronous_interval = [\"20ms\"]".to_string(),
            "sweep.isochronous_interval",
        ),
        (
            format!("{iso}[sweep]\nisochronous_interval = [\"20ms\", \"100us\"]"),
            "sweep.isochronous_interval[1]",
        ),
        (
            "[sweep]\nstop_and_wait_size = [4, 3]".to_string(),
            "sweep.stop_and_wait_size[1]",
        ),
        (
            format!("{iso}[sweep]\nisochronous_size = [40, 9000]"),
            "sweep.isochronous_size[1]",
        ),
    ];
    for (i, (text, key)) in cases.iter().enumerate() {
        let file = out.0.join(format!("bad{i}.toml"));
        std::fs::write(&file, text).unwrap();
        let res = out.0.join(format!("res{i}"));
        let (code, _o, err) = run_bounded(
            &[
                "run",
                file.to_str().unwrap(),
                "--out",
                res.to_str().unwrap(),
            ],
            Duration::from_secs(30),
        );
        assert_eq!(code, 2, "{text:?}: {err}");
        assert!(err.contains(key), "{text:?} should name {key}: {err}");
        assert!(!res.exists(), "{text:?}: a results folder was made");
    }
}

/// One scenario's isochronous probe ran at `interval_s` with 200-byte
/// requests: its configuration says so, its slots are those of the
/// interval over the 3 s scenario (none due in the last second), each slot
/// was sent or missed, and B's echo stamped every one it answered.
fn check_iso_at(sc: &Value, interval_s: f64) {
    assert!(sc["error"].is_null(), "scenario failed: {}", sc["error"]);
    let label = format!("isochronous_interval={}ms", (interval_s * 1e3).round());
    assert_eq!(sc["point"]["label"], label.as_str());
    assert_eq!(sc["point"]["values"][0], label.as_str());
    let iso = &sc["iso_probe"];
    let config = &iso["log"]["config"];
    assert!((config["interval_s"].as_f64().unwrap() - interval_s).abs() < 1e-9);
    assert_eq!(config["size"], 200);
    let reqs = iso["log"]["requests"].as_array().unwrap();
    let slots = (2.0 / interval_s).round() as usize + 1;
    assert_eq!(reqs.len(), slots, "slots at {interval_s} s over [0, 2 s]");
    for (k, r) in reqs.iter().enumerate() {
        let due = r["due_s"].as_f64().unwrap();
        assert!(
            (due - k as f64 * interval_s).abs() < 1e-6,
            "slot {k} due {due}"
        );
    }
    let sent = reqs.iter().filter(|r| r["send_s"].is_f64()).count();
    let ok = reqs.iter().filter(|r| r["rtt_ms"].is_f64()).count();
    println!(
        "{label}: {} slots, {sent} sent, {ok} answered; echo {}",
        reqs.len(),
        iso["echo"]
    );
    // A loaded 2-core machine may miss a few slots; never most of them.
    assert!(sent * 10 >= slots * 8, "{sent} of {slots} sent");
    // Only a 200-byte reply is a success (the client refuses any other
    // length), so successes prove the padded size went both ways.
    assert!(ok * 2 >= sent, "{ok} of {sent} answered");
    let stamped = iso["echo"]["stamped"].as_u64().unwrap() as usize;
    assert!(stamped >= ok && stamped <= sent, "stamped {stamped}");
    // The stop-and-wait probe keeps its own defaults.
    let saw = &sc["probes"][0];
    assert_eq!(saw["kind"], "stop-and-wait");
    assert!((saw["config"]["spacing_s"].as_f64().unwrap() - 0.2).abs() < 1e-9);
    assert_eq!(saw["config"]["size"], 4);
}

#[test]
fn privileged_an_iso_interval_sweep_records_each_point_s_interval_and_requests() {
    if !require_privileged(
        "privileged_an_iso_interval_sweep_records_each_point_s_interval_and_requests",
    ) {
        return;
    }
    let out = OutDir::new("probe-axes-host");
    let file = out.0.with_extension("toml");
    std::fs::write(&file, SWEEP).unwrap();
    let before = host_state();
    let (code, stdout, err) = run_bounded(
        &[
            "run",
            file.to_str().unwrap(),
            "--kernel",
            "host",
            "--out",
            out.0.to_str().unwrap(),
            "--quiet",
        ],
        Duration::from_secs(120),
    );
    let _ = std::fs::remove_file(&file);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{err}");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.0.join("results.json")).unwrap())
            .unwrap();
    let scenarios = r["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 2, "two points × one round × one arm");
    check_iso_at(&scenarios[0], 0.010);
    check_iso_at(&scenarios[1], 0.050);
    assert!(namespaces_of(r["run_id"].as_str().unwrap()).is_empty());
    assert_eq!(before, host_state(), "the host network state changed");
}

/// The stop-and-wait probe's size as an axis: 4 bytes (its default) and
/// 1,000 bytes, 50 ms apart, no flow's data on the way back.
const SIZE_SWEEP: &str = r#"
name = "saw-size-sweep"
rounds = 1
arms = ["pfifo limit 256"]

[timeline]
baseline = "1s"
warmup = "1s"
measure = "1s"

[path.up]
rate = "20mbit"

[[flows]]
cc = "reno"

[[probes]]
kind = "stop-and-wait"
interval = "50ms"

[sweep]
stop_and_wait_size = [4, 1000]
"#;

#[test]
fn privileged_a_stop_and_wait_size_sweep_sends_and_echoes_each_size() {
    if !require_privileged("privileged_a_stop_and_wait_size_sweep_sends_and_echoes_each_size") {
        return;
    }
    let out = OutDir::new("probe-size-host");
    let file = out.0.with_extension("toml");
    std::fs::write(&file, SIZE_SWEEP).unwrap();
    let (code, stdout, err) = run_bounded(
        &[
            "run",
            file.to_str().unwrap(),
            "--kernel",
            "host",
            "--out",
            out.0.to_str().unwrap(),
            "--quiet",
        ],
        Duration::from_secs(120),
    );
    let _ = std::fs::remove_file(&file);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{err}");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.0.join("results.json")).unwrap())
            .unwrap();
    let scenarios = r["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 2);
    for (sc, size) in scenarios.iter().zip([4, 1000]) {
        assert!(sc["error"].is_null(), "scenario failed: {}", sc["error"]);
        assert_eq!(sc["point"]["label"], format!("stop_and_wait_size={size}"));
        let p = &sc["probes"][0];
        assert_eq!(p["config"]["size"], size);
        assert!((p["config"]["spacing_s"].as_f64().unwrap() - 0.05).abs() < 1e-9);
        let reqs = p["requests"].as_array().unwrap();
        let baseline: Vec<&Value> = reqs.iter().filter(|q| q["phase"] == "baseline").collect();
        // 1 s of idle path at 50 ms spacing: about 20 requests, every one
        // answered by an echo of its own size (any other length is
        // malformed), and B's echo logged every request it received.
        assert!(baseline.len() >= 15, "{} baseline requests", baseline.len());
        assert!(
            baseline.iter().all(|q| q["rtt_ms"].is_f64()),
            "{baseline:?}"
        );
        assert_eq!(p["malformed_replies"], 0);
        let answered = reqs.iter().filter(|q| q["rtt_ms"].is_f64()).count();
        let arrivals = p["echo_arrivals"]["arrivals"].as_array().unwrap().len();
        println!(
            "size {size}: {} requests, {answered} answered, {arrivals} logged by B",
            reqs.len()
        );
        assert!(arrivals >= answered && arrivals <= reqs.len());
    }
}
