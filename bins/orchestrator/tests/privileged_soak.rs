//! Soak: file descriptors and peak memory across the
//! scenarios of one run. Needs root; skips without it unless
//! NETLAB_REQUIRE_PRIVILEGED=1.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use netlab_topology::testing::require_privileged;
use serde_json::Value;

mod faults;
mod support;

use support::*;

/// A multi-round run leaks no file descriptor: every scenario
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

/// Rounds of the peak-memory run: the growth is read between the end of
/// scenario 2 and the end of scenario 7 (the last one also holds the end
/// of the run: summary and report, a fixed cost of about 1.3 MB).
const FLAT_ROUNDS: u32 = 8;

/// Highest growth of VmHWM allowed over those 5 scenarios, kB. Measured
/// by this test (10 ms sampling, about 1 MB of raw data per scenario):
/// flat, +184 to +416 kB in three runs; holding every scenario's raw data
/// as runs did before (`NETLAB_SOAK_BIN` = a build of 8418661) +10.7 MB,
/// +5.5 MB even with glibc's thresholds fixed (MALLOC_MMAP_THRESHOLD_ /
/// MALLOC_TRIM_THRESHOLD_ = 131072), and holding nothing but with glibc's
/// default thresholds +5.8 MB.
const FLAT_GROWTH_KB: u64 = 2560;

/// A long run's peak memory is flat. VmHWM (the process's
/// peak RSS) is sampled every 50 ms; from the end of scenario 2 to the end
/// of scenario 7 it grows by less than [`FLAT_GROWTH_KB`].
#[test]
fn privileged_a_multi_round_run_keeps_its_peak_memory_flat() {
    if !require_privileged("privileged_a_multi_round_run_keeps_its_peak_memory_flat") {
        return;
    }
    let out = OutDir::new("rss-flat");
    let rounds = FLAT_ROUNDS.to_string();
    // Another build can be checked the same way (how the limit was chosen).
    let bin = std::env::var("NETLAB_SOAK_BIN").unwrap_or_else(|_| BIN.to_string());
    let mut child = Command::new(&bin)
        .args([
            "compare",
            "--kernel",
            "host",
            "--arm",
            "pfifo limit 256",
            "--rounds",
            &rounds,
            "--baseline",
            "1s",
            "--warmup",
            "1s",
            "--measure",
            "1s",
            // Dense tcp_info and qdisc sampling: each scenario's raw data
            // is then about 1 MB, so holding it would show.
            "--sample-interval",
            "10ms",
            "--out",
            out.0.to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning orchestrator");
    let pid = child.id();
    let cap = faults::Captured::of(&mut child);
    let mut watch = faults::memory::MemoryWatch::default();
    let started = Instant::now();
    let status = loop {
        if let Ok(Some(s)) = child.try_wait() {
            break Some(s);
        }
        if started.elapsed() > Duration::from_secs(180) {
            // Its own teardown removes what it built; then it is killed.
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGINT,
            );
            let deadline = Instant::now() + Duration::from_secs(45);
            while Instant::now() < deadline && !matches!(child.try_wait(), Ok(Some(_))) {
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        let scenario = faults::memory::current_scenario(&cap.stderr.lock().unwrap()).unwrap_or(0);
        watch.sample(pid, scenario);
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = cap.finish(Duration::from_secs(5));
    let code = status.and_then(|s| s.code());
    assert_eq!(code, Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    for (s, m) in &watch.per {
        println!(
            "scenario {s}: max VmRSS {} kB, VmHWM {} kB, {} samples",
            m.max_rss_kb, m.hwm_kb, m.samples
        );
    }
    let after_2 = watch.per.get(&2).expect("samples during scenario 2").hwm_kb;
    let to = FLAT_ROUNDS - 1;
    let later = watch
        .per
        .get(&to)
        .expect("samples during the scenario before the last")
        .hwm_kb;
    let grown = later.saturating_sub(after_2);
    println!(
        "VmHWM {after_2} kB at the end of scenario 2, {later} kB at the end of scenario {to}: +{grown} kB over {} scenarios; {} kB at the end of the run",
        to - 2,
        watch.hwm_kb
    );
    assert!(
        grown < FLAT_GROWTH_KB,
        "peak memory grew by {grown} kB over {} scenarios (limit {FLAT_GROWTH_KB} kB): the run keeps memory per scenario again",
        to - 2
    );
    let r: Value =
        serde_json::from_slice(&std::fs::read(out.0.join("results.json")).unwrap()).unwrap();
    assert_eq!(
        r["scenarios"].as_array().unwrap().len(),
        FLAT_ROUNDS as usize
    );
    let left = netlab_results::store::scenario_files(&out.0);
    assert!(
        left.is_empty(),
        "a complete run removes its scenario files (results.json holds them): {left:?}"
    );
}
