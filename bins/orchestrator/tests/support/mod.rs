//! Helpers shared by the end-to-end tests: bounded runs of the binary,
//! scratch results folders, and the checks every results.json must pass.
//! (Shared by several test crates; each uses a part.)
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_orchestrator");

/// A results folder, `.0`, not yet created (the orchestrator creates it),
/// inside a fresh `tempfile::TempDir` that removes both on drop.
pub struct OutDir(pub PathBuf, tempfile::TempDir);

impl OutDir {
    /// A fresh folder for `tag`.
    pub fn new(tag: &str) -> OutDir {
        // Under /tmp on purpose: the guest mounts a tmpfs there, and results
        // must still reach this folder (netlab-guest shares it back).
        let parent = tempfile::Builder::new()
            .prefix(&format!("netlab-e2e-{tag}-"))
            .tempdir()
            .expect("a folder under the temporary directory");
        OutDir(parent.path().join("out"), parent)
    }

    /// The temporary folder that holds `.0`.
    pub fn parent(&self) -> &Path {
        self.1.path()
    }
}

/// `compare` into `out` with the given rounds, baseline and measured window
/// (warm-up 1 s), plus `extra`.
pub fn compare_args<'a>(
    out: &'a OutDir,
    rounds: &'a str,
    baseline: &'a str,
    measure: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut v = vec![
        "compare",
        "--rounds",
        rounds,
        "--baseline",
        baseline,
        "--warmup",
        "1s",
    ];
    v.extend_from_slice(&[
        "--measure",
        measure,
        "--out",
        out.0.to_str().expect("utf-8 path"),
    ]);
    v.extend_from_slice(extra);
    v
}

/// `compare` with 1 round of short phases (1 s / 1 s / 4 s) into `out`, plus `extra`.
pub fn short_compare<'a>(out: &'a OutDir, extra: &[&'a str]) -> Vec<&'a str> {
    compare_args(out, "1", "1s", "4s", extra)
}

/// The first `key` with an unsigned value anywhere in `v`, depth first.
pub fn find_u64(v: &Value, key: &str) -> Option<u64> {
    match v {
        Value::Object(m) => m
            .get(key)
            .and_then(Value::as_u64)
            .or_else(|| m.values().find_map(|x| find_u64(x, key))),
        Value::Array(a) => a.iter().find_map(|x| find_u64(x, key)),
        _ => None,
    }
}

pub fn run_bounded(args: &[&str], limit: Duration) -> (i32, String, String) {
    run_bounded_env(args, &[], limit)
}

/// [`run_bounded`] with `env` added to the binary's environment.
pub fn run_bounded_env(
    args: &[&str],
    env: &[(&str, &Path)],
    limit: Duration,
) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning orchestrator");
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let e = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting") {
            break s;
        }
        if Instant::now() > deadline {
            // Our own child, by pid.
            let _ = child.kill();
            let _ = child.wait();
            panic!("orchestrator {args:?} ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (
        status.code().unwrap_or(-1),
        o.join().unwrap(),
        e.join().unwrap(),
    )
}

/// Independent quantiles over raw RTTs: lower median and nearest-rank p95.
pub fn quantiles(mut rtts: Vec<f64>) -> (Option<f64>, Option<f64>) {
    if rtts.is_empty() {
        return (None, None);
    }
    rtts.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = rtts.len();
    let p50 = rtts[n.div_ceil(2) - 1];
    let p95 = rtts[(95 * n).div_ceil(100) - 1];
    (Some(p50), Some(p95))
}

pub fn fmt(v: Option<f64>) -> String {
    v.map_or_else(|| "None".into(), |v| format!("{v:.2}"))
}

pub fn namespaces_of(run_id: &str) -> Vec<String> {
    std::fs::read_dir("/run/netns")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&format!("nl-{run_id}-")))
                .collect()
        })
        .unwrap_or_default()
}

/// Checks a finished run's folder: every scenario complete, quantiles in the
/// summary recomputed from the raw requests, nothing left behind.
pub fn check_results(out: &Path, expect_arms: &[&str]) -> Value {
    let text = std::fs::read_to_string(out.join("results.json")).expect("results.json");
    let r: Value = serde_json::from_str(&text).expect("results.json parses");
    assert_eq!(r["schema_version"], netlab_results::SCHEMA_VERSION);
    for p in [
        "/tool/name",
        "/tool/version",
        "/kernel/mode",
        "/kernel/release",
        "/experiment/flows/0/cc",
        "/timeline_total_s",
        "/wall_s",
        "/started_utc",
        "/finished_utc",
        "/run_id",
    ] {
        assert!(r.pointer(p).is_some_and(|v| !v.is_null()), "missing {p}");
    }
    let scenarios = r["scenarios"].as_array().expect("scenarios");
    let arms: Vec<&str> = scenarios
        .iter()
        .map(|s| s["arm"].as_str().unwrap())
        .collect();
    assert_eq!(arms, expect_arms);
    let summary = std::fs::read_to_string(out.join("summary.md")).expect("summary.md");
    let run_id = r["run_id"].as_str().unwrap();
    for s in scenarios {
        assert!(s["error"].is_null(), "scenario failed: {}", s["error"]);
        for p in [
            "/round",
            "/point/label",
            "/seed",
            "/directions/0/goodput_mbps",
            "/directions/0/fairness",
            "/echo/received",
            "/arm",
            "/namespaces",
            "/topology/readback",
            "/topology/sysctls",
            "/qdiscs/0/requests/0/tc_argv",
            "/qdiscs/0/requests/0/netlink_hex",
            "/qdiscs/0/requests/1/tc_argv",
            "/qdiscs/0/after_config/0/kind",
            "/qdiscs/0/final/0/stats/drops",
            "/qdiscs/0/final/1/stats/backlog_bytes",
            "/qdiscs/0/samples/0",
            "/flows/0/tcp/cc_requested",
            "/flows/0/tcp/cc_readback",
            "/flows/0/tcp/connect_s",
            "/flows/0/tcp/goodput_mbps",
            "/flows/0/tcp/window_s/1",
            "/flows/0/tcp/receiver/bytes_in_window",
            "/flows/0/tcp/receiver/bytes_total",
            "/flows/0/tcp/receiver/validation_failures",
            "/flows/0/tcp/sender/accepted_bytes",
            "/flows/0/tcp/sender/termination",
            "/flows/0/tcp/series/0",
            "/flows/0/tcp_info/0/start_s",
            "/flows/0/tcp_info/0/end_s",
            "/flows/0/tcp_info/0/rtt_us",
            "/flows/0/tcp_info/0/cwnd",
            "/probes/0/requests/0/seq",
            "/probes/0/requests/0/send_s",
            "/probes/0/stale_replies",
            "/probes/0/phases/baseline/sent",
            "/probes/0/phases/loaded/timeouts",
            "/ecn/negotiated",
            "/ecn/counts/ce",
            "/ecn/counts/other",
            "/ecn/frames_seen",
            "/ecn/kernel/drops",
            "/ecn/kernel_drops",
            "/ecn/first",
            "/qdiscs/0/final_dump/raw_hex",
            "/cleanup/receipts/0",
            "/cleanup/namespaces_deleted",
        ] {
            assert!(s.pointer(p).is_some(), "scenario {} lacks {p}", s["index"]);
        }
        assert_eq!(s["flows"][0]["tcp"]["cc_readback"], "reno");
        assert_eq!(s["flows"][0]["tcp"]["receiver"]["validation_failures"], 0);
        assert!(
            s["flows"][0]["tcp"]["goodput_mbps"].as_f64().unwrap() > 1.0,
            "goodput {}",
            s["flows"][0]["tcp"]["goodput_mbps"]
        );
        assert_eq!(
            s["ecn"]["negotiated"], true,
            "classic ECN negotiated on the wire"
        );
        let deleted = s["cleanup"]["namespaces_deleted"].as_array().unwrap();
        assert_eq!(deleted.len(), 3, "all three namespaces deleted");
        // Every request is kept, and the table's quantiles are those of the raw requests.
        let loaded: Vec<f64> = s["probes"][0]["requests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|q| q["phase"] == "loaded")
            .filter_map(|q| q["rtt_ms"].as_f64())
            .collect();
        let sent = s["probes"][0]["phases"]["loaded"]["sent"].as_u64().unwrap();
        let timeouts = s["probes"][0]["phases"]["loaded"]["timeouts"]
            .as_u64()
            .unwrap();
        assert_eq!(loaded.len() as u64 + timeouts, sent);
        let ok = loaded.len();
        let (p50, p95) = quantiles(loaded);
        // The counts, then (after the censoring-aware quantiles) the
        // replies-only quantiles with their count.
        let counts = format!("| {sent}/{timeouts} |");
        let replies = if ok == 0 {
            "| – (n=0) |".to_string()
        } else {
            format!("| {}/{} (n={ok}) |", fmt(p50), fmt(p95))
        };
        // The row names the arm by its label (the kind, or the kind and
        // the options that tell two arms of it apart).
        let labels = netlab_analysis::ArmLabels::new(
            scenarios
                .iter()
                .map(|s| (s["arm"].as_str().unwrap(), s["arm_words"].as_str().unwrap())),
        );
        let label = labels.label(s["arm"].as_str().unwrap(), s["arm_words"].as_str().unwrap());
        let row_start = format!("| {} | {label} |", s["round"]);
        let row = summary
            .lines()
            .find(|l| l.starts_with(&row_start))
            .unwrap_or_else(|| panic!("no row {row_start} in summary.md:\n{summary}"));
        assert!(
            row.contains(&counts) && row.contains(&replies),
            "row {row:?} lacks recomputed {counts:?} and {replies:?}"
        );
    }
    assert!(
        namespaces_of(run_id).is_empty(),
        "namespaces left: {:?}",
        namespaces_of(run_id)
    );
    assert!(
        !Path::new(&format!("/run/netlab/{run_id}.json")).exists(),
        "state file left"
    );
    // The note comparing pfifo with fq_codel stands only in runs that have
    // fq_codel (the summary leaves out notes about kinds a run lacks).
    let comparison_note = "not a single-variable AQM comparison";
    assert_eq!(
        summary.contains(comparison_note),
        expect_arms.contains(&"fq_codel"),
        "the note {comparison_note:?} with arms {expect_arms:?}"
    );
    for note in [
        "never sum them",
        "not loss",
        "not proof of CE feedback",
        "not an atomic snapshot",
    ] {
        assert!(summary.contains(note), "summary.md lacks the note {note:?}");
    }
    r
}

/// The host network state the tests compare before and after.
pub fn host_state() -> String {
    let mut s = String::new();
    for args in [
        &["-j", "link", "show"][..],
        &["-j", "addr", "show"],
        &["-j", "route", "show", "table", "all"],
        &["-j", "rule", "show"],
    ] {
        let o = Command::new("ip").args(args).output().expect("ip");
        s.push_str(&String::from_utf8_lossy(&o.stdout));
    }
    let o = Command::new("tc")
        .args(["-j", "qdisc", "show"])
        .output()
        .expect("tc");
    s.push_str(&String::from_utf8_lossy(&o.stdout));
    for f in [
        "/proc/sys/net/ipv4/ip_forward",
        "/proc/sys/net/ipv4/tcp_ecn",
    ] {
        s.push_str(&std::fs::read_to_string(f).unwrap_or_default());
    }
    s
}

/// Runs an outside tool to completion within `limit` (our own child, killed
/// by pid past it): exit code, stdout, stderr. Panics when it cannot start.
pub fn tool(program: &str, args: &[&str], limit: Duration) -> (i32, String, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("{program} could not be started ({e}): apt-get install -y {program}")
        });
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let e = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{program} {args:?} ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (
        status.code().unwrap_or(-1),
        o.join().unwrap(),
        e.join().unwrap(),
    )
}

/// How many packets `tcpdump -r` reads from `path`; panics unless it reads
/// the whole file without complaint.
pub fn tcpdump_count(path: &Path) -> u64 {
    let p = path.to_str().expect("utf-8 path");
    let (code, out, err) = tool("tcpdump", &["-n", "-r", p], Duration::from_secs(30));
    assert_eq!(code, 0, "tcpdump -r {p}: {err}");
    assert!(
        !err.contains("truncated") && !err.contains("rror"),
        "tcpdump -r {p}: {err}"
    );
    out.lines().count() as u64
}

/// How many frames of `path` match the tshark display filter `filter`.
pub fn tshark_count(path: &Path, filter: &str) -> u64 {
    let p = path.to_str().expect("utf-8 path");
    let (code, out, err) = tool(
        "tshark",
        &[
            "-n",
            "-r",
            p,
            "-Y",
            filter,
            "-T",
            "fields",
            "-e",
            "frame.number",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "tshark -r {p} -Y '{filter}': {err}");
    out.lines().filter(|l| !l.trim().is_empty()).count() as u64
}

/// Every packet file a scenario of results.json names exists and `tcpdump -r`
/// reads exactly the frames its record says; returns how many files.
pub fn check_pcap_files(out: &Path, r: &Value) -> usize {
    let mut n = 0;
    for s in r["scenarios"].as_array().expect("scenarios") {
        for key in ["evidence_pcap", "headers_pcap"] {
            let rec = &s["ecn"][key];
            if rec.is_null() {
                continue;
            }
            let path = out.join(rec["file"].as_str().expect("file"));
            assert_eq!(
                tcpdump_count(&path),
                rec["frames"].as_u64().unwrap(),
                "{}",
                path.display()
            );
            assert_eq!(
                std::fs::metadata(&path).unwrap().len(),
                rec["bytes"].as_u64().unwrap()
            );
            n += 1;
        }
    }
    n
}

/// A committed experiment file of experiments/, parsed, for a test to cut
/// short before it runs.
pub fn experiment_file(name: &str) -> netlab_experiment::file::ExperimentFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments")
        .join(format!("{name}.toml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    netlab_experiment::parse_file(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Resolves `f` (a test's shortened experiment), writes it beside `out`
/// and runs it with `orchestrator run FILE --out OUT --quiet` within
/// `limit`. `Err` carries the exit code and both outputs.
pub fn run_experiment(
    out: &OutDir,
    f: &netlab_experiment::file::ExperimentFile,
    limit: Duration,
) -> Result<(), String> {
    let exp = netlab_experiment::Experiment::from_file(f).expect("the shortened preset resolves");
    let file = out.0.with_extension("toml");
    std::fs::write(&file, exp.to_toml()).unwrap();
    let (code, stdout, err) = run_bounded(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.0.to_str().unwrap(),
            "--quiet",
        ],
        limit,
    );
    let _ = std::fs::remove_file(&file);
    if code != 0 {
        return Err(format!("exit {code}: stdout:\n{stdout}\nstderr:\n{err}"));
    }
    Ok(())
}

/// A guest test that may take one attempt more: skipped (or failed under
/// NETLAB_REQUIRE_PRIVILEGED=1) without the guest and `modules`; then
/// `attempt(1)`, and `attempt(2)` if the first falls off. A guest starved
/// of CPU by a busy host does not fill its link or starts its senders
/// late (each test says what it saw); a model or a count that is wrong
/// fails both attempts.
pub fn guest_with_retry(name: &str, modules: &[&str], attempt: impl Fn(u32) -> Result<(), String>) {
    if !netlab_guest::guest_or_skip(name, modules) {
        return;
    }
    let mut misses = Vec::new();
    for n in 1..=2 {
        match attempt(n) {
            Ok(()) => return,
            Err(e) => {
                eprintln!("attempt {n}: {e}");
                misses.push(e);
            }
        }
    }
    panic!("{name}: both attempts off: {misses:?}");
}
