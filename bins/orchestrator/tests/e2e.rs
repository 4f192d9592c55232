//! End-to-end tests of `orchestrator compare` (issue 7). Privileged ones need
//! root/CAP_NET_ADMIN, guest ones the user-mode-linux kernel; both skip with a
//! printed reason on a plain machine unless NETLAB_REQUIRE_PRIVILEGED=1 (CI).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use netlab_topology::privilege::require_privileged;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_orchestrator");

/// A results folder removed on drop.
struct OutDir(PathBuf);

impl OutDir {
    fn new(tag: &str) -> OutDir {
        // Under /tmp on purpose: the guest mounts a tmpfs there, and results
        // must still reach this folder (netlab-guest shares it back).
        let p = std::env::temp_dir().join(format!("netlab-e2e-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        OutDir(p)
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `compare` into `out` with the given rounds, baseline and measured window
/// (warm-up 1 s), plus `extra`.
fn compare_args<'a>(
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
fn short_compare<'a>(out: &'a OutDir, extra: &[&'a str]) -> Vec<&'a str> {
    compare_args(out, "1", "1s", "4s", extra)
}

fn run_bounded(args: &[&str], limit: Duration) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
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
fn quantiles(mut rtts: Vec<f64>) -> (Option<f64>, Option<f64>) {
    if rtts.is_empty() {
        return (None, None);
    }
    rtts.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = rtts.len();
    let p50 = rtts[n.div_ceil(2) - 1];
    let p95 = rtts[(95 * n).div_ceil(100) - 1];
    (Some(p50), Some(p95))
}

fn fmt(v: Option<f64>) -> String {
    v.map_or_else(|| "None".into(), |v| format!("{v:.2}"))
}

fn namespaces_of(run_id: &str) -> Vec<String> {
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
fn check_results(out: &Path, expect_arms: &[&str]) -> Value {
    let text = std::fs::read_to_string(out.join("results.json")).expect("results.json");
    let r: Value = serde_json::from_str(&text).expect("results.json parses");
    assert_eq!(r["schema_version"], 1);
    for p in [
        "/tool/name",
        "/tool/version",
        "/kernel/mode",
        "/kernel/release",
        "/config",
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
            "/arm",
            "/namespaces",
            "/topology/readback",
            "/topology/sysctls",
            "/qdisc/requests/0/tc_argv",
            "/qdisc/requests/0/netlink_hex",
            "/qdisc/requests/1/tc_argv",
            "/qdisc/after_config/0/kind",
            "/qdisc/final/0/stats/drops",
            "/qdisc/final/1/stats/backlog_bytes",
            "/qdisc/samples/0",
            "/tcp/cc_requested",
            "/tcp/cc_readback",
            "/tcp/connect_s",
            "/tcp/goodput_mbps",
            "/tcp/window_s/1",
            "/tcp/receiver/bytes_in_window",
            "/tcp/receiver/bytes_total",
            "/tcp/receiver/validation_failures",
            "/tcp/sender/accepted_bytes",
            "/tcp/sender/termination",
            "/tcp/series/0",
            "/tcp_info/0/start_s",
            "/tcp_info/0/end_s",
            "/tcp_info/0/rtt_us",
            "/tcp_info/0/cwnd",
            "/probe/requests/0/seq",
            "/probe/requests/0/send_s",
            "/probe/stale_replies",
            "/probe/phases/baseline/sent",
            "/probe/phases/loaded/timeouts",
            "/ecn/negotiated",
            "/ecn/counts/ce",
            "/ecn/counts/other",
            "/ecn/frames_seen",
            "/ecn/kernel/drops",
            "/ecn/kernel_drops",
            "/ecn/first",
            "/qdisc/final_dump/raw_hex",
            "/cleanup/receipts/0",
            "/cleanup/namespaces_deleted",
        ] {
            assert!(s.pointer(p).is_some(), "scenario {} lacks {p}", s["index"]);
        }
        assert_eq!(s["tcp"]["cc_readback"], "reno");
        assert_eq!(s["tcp"]["receiver"]["validation_failures"], 0);
        assert!(
            s["tcp"]["goodput_mbps"].as_f64().unwrap() > 1.0,
            "goodput {}",
            s["tcp"]["goodput_mbps"]
        );
        assert_eq!(
            s["ecn"]["negotiated"], true,
            "classic ECN negotiated on the wire"
        );
        let deleted = s["cleanup"]["namespaces_deleted"].as_array().unwrap();
        assert_eq!(deleted.len(), 3, "all three namespaces deleted");
        // Every request is kept, and the table's quantiles are those of the raw requests.
        let loaded: Vec<f64> = s["probe"]["requests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|q| q["phase"] == "loaded")
            .filter_map(|q| q["rtt_ms"].as_f64())
            .collect();
        let sent = s["probe"]["phases"]["loaded"]["sent"].as_u64().unwrap();
        let timeouts = s["probe"]["phases"]["loaded"]["timeouts"].as_u64().unwrap();
        assert_eq!(loaded.len() as u64 + timeouts, sent);
        let ok = loaded.len();
        let (p50, p95) = quantiles(loaded);
        let cell = format!("| {sent}/{timeouts} | {}/{} (n={ok}) |", fmt(p50), fmt(p95));
        let row_start = format!("| {} | {} |", s["round"], s["arm"].as_str().unwrap());
        let row = summary
            .lines()
            .find(|l| l.starts_with(&row_start))
            .unwrap_or_else(|| panic!("no row {row_start} in summary.md:\n{summary}"));
        assert!(row.contains(&cell), "row {row:?} lacks recomputed {cell:?}");
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
    for note in [
        "not a single-variable AQM comparison",
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
fn host_state() -> String {
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

#[test]
fn bad_flags_exit_2_with_a_message() {
    for args in [
        &["compare", "--baseline", "0s"][..],
        &["compare", "--measure", "-3s"],
        &["compare", "--warmup", "3"],
        &["compare", "--arm", "sfq perturb 10"],
        &["compare", "--arm", "fq_codel target"],
        &["compare", "--rounds", "0"],
        &["compare", "--rate", "fast"],
        &["compare", "--kernel", "vm"],
        &["probe", "--to", "127.0.0.1:46021", "--end", "0"],
        &["probe", "--to", "127.0.0.1", "--end", "2"],
        &["load", "--to", "127.0.0.1:1", "--for", "-1"],
        &[
            "sink",
            "--listen",
            "nowhere",
            "--udp-echo",
            "46021",
            "--for",
            "1",
        ],
        &["--bogus"],
    ] {
        let (code, _out, err) = run_bounded(args, Duration::from_secs(20));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.trim().is_empty(), "{args:?} printed no message");
    }
    let (code, out, _) = run_bounded(&["--help"], Duration::from_secs(20));
    assert_eq!(code, 0);
    assert!(out.contains("compare"));
}

#[test]
fn privileged_kernel_host_refuses_fq_codel_before_any_change() {
    if !require_privileged("privileged_kernel_host_refuses_fq_codel_before_any_change") {
        return;
    }
    let scratch = netlab_topology::netns::ScratchNetns::new("qsupport").expect("scratch netns");
    if netlab_qdisc::support::missing_kinds(&scratch, &["fq_codel"])
        .map(|m| m.is_empty())
        .unwrap_or(false)
    {
        println!("SKIP: this host kernel has fq_codel; the refusal cannot be observed here");
        return;
    }
    let out = OutDir::new("refuse");
    let before = host_state();
    let (code, _o, err) = run_bounded(
        &[
            "compare",
            "--kernel",
            "host",
            "--out",
            out.0.to_str().unwrap(),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("qdisc fq_codel is not available in this kernel"),
        "{err}"
    );
    assert!(err.contains("--kernel uml"), "{err}");
    assert!(!out.0.join("results.json").exists());
    assert_eq!(before, host_state());
}

#[test]
fn privileged_compare_pfifo_on_the_host_kernel() {
    if !require_privileged("privileged_compare_pfifo_on_the_host_kernel") {
        return;
    }
    let out = OutDir::new("host");
    let before = host_state();
    let args = short_compare(&out, &["--kernel", "host", "--arm", "pfifo limit 256"]);
    let (code, stdout, err) = run_bounded(&args, Duration::from_secs(120));
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{err}");
    assert!(
        stdout.contains("| Round | arm | goodput Mbit/s"),
        "{stdout}"
    );
    let r = check_results(&out.0, &["pfifo"]);
    assert_eq!(r["kernel"]["mode"], "host");
    assert_eq!(before, host_state(), "the host network state changed");
}

#[test]
fn guest_compare_both_arms_in_the_uml_kernel() {
    if !netlab_guest::guest_or_skip(
        "guest_compare_both_arms_in_the_uml_kernel",
        &["veth", "sch_tbf", "sch_fq_codel"],
    ) {
        return;
    }
    let out = OutDir::new("uml");
    let args = short_compare(&out, &["--kernel", "uml"]);
    let (code, stdout, err) = run_bounded(&args, Duration::from_secs(240));
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{err}");
    let r = check_results(&out.0, &["pfifo", "fq_codel"]);
    assert_eq!(r["kernel"]["mode"], "uml");
    assert!(r["kernel"]["release"].as_str().unwrap().starts_with("6.1."));
    let fq = &r["scenarios"][1];
    let child = fq["qdisc"]["final"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["kind"] == "fq_codel")
        .expect("fq_codel in the final readback");
    let ecn_mark = find_u64(&child["xstats"], "ecn_mark").expect("ecn_mark in xstats");
    assert!(ecn_mark > 0, "fq_codel marked nothing: {}", child["xstats"]);
    assert!(fq["ecn"]["counts"]["ce"].as_u64().unwrap() > 0);
    assert!(out.0.join("guest-console.log").exists());
}

fn find_u64(v: &Value, key: &str) -> Option<u64> {
    match v {
        Value::Object(m) => m
            .get(key)
            .and_then(Value::as_u64)
            .or_else(|| m.values().find_map(|x| find_u64(x, key))),
        Value::Array(a) => a.iter().find_map(|x| find_u64(x, key)),
        _ => None,
    }
}

/// A host run of one long pfifo scenario, read until it is under load.
struct UnderLoad {
    child: std::process::Child,
    pid: nix::unistd::Pid,
    run_id: String,
    lines: std::io::Lines<BufReader<std::process::ChildStderr>>,
    _out: OutDir,
}

fn start_under_load(tag: &str) -> UnderLoad {
    let out = OutDir::new(tag);
    let args = compare_args(
        &out,
        "1",
        "2s",
        "20s",
        &["--kernel", "host", "--arm", "pfifo limit 256"],
    );
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut run_id = None;
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    for line in lines.by_ref() {
        let line = line.unwrap_or_default();
        seen.push(line.clone());
        if let Some(rest) = line.split("run ").nth(1) {
            if run_id.is_none() && line.contains("kernel") {
                run_id = rest.split_whitespace().next().map(str::to_string);
            }
        }
        if line.contains("warm-up") || line.contains("loaded") || Instant::now() > deadline {
            break;
        }
    }
    let run_id = run_id.unwrap_or_else(|| panic!("no run id in {seen:?}"));
    assert_eq!(
        namespaces_of(&run_id).len(),
        3,
        "the scenario's namespaces exist mid-run"
    );
    UnderLoad {
        child,
        pid,
        run_id,
        lines,
        _out: out,
    }
}

#[test]
fn privileged_sigint_mid_scenario_cleans_up_with_receipts() {
    if !require_privileged("privileged_sigint_mid_scenario_cleans_up_with_receipts") {
        return;
    }
    let UnderLoad {
        mut child,
        pid,
        run_id,
        lines,
        _out,
    } = start_under_load("sigint");
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    let stderr = rest.join("\n");
    assert_eq!(
        status.code(),
        Some(130),
        "exit after SIGINT; stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("cleanup receipt:"),
        "no receipts printed:\n{stderr}"
    );
    for role in ["a", "r", "b"] {
        let name = format!("nl-{run_id}-1-{role}");
        assert!(stderr.contains(&name), "no receipt for {name}:\n{stderr}");
    }
    assert!(
        namespaces_of(&run_id).is_empty(),
        "leftovers: {:?}",
        namespaces_of(&run_id)
    );
    assert!(
        !Path::new(&format!("/run/netlab/{run_id}.json")).exists(),
        "state file left"
    );
}

#[test]
fn privileged_failed_scenario_is_recorded_cleaned_and_the_run_goes_on() {
    if !require_privileged("privileged_failed_scenario_is_recorded_cleaned_and_the_run_goes_on") {
        return;
    }
    // A congestion control the kernel does not have: the sender cannot be
    // made, in every scenario; each failure is recorded, cleaned up, and
    // the run goes on to the next one and exits 1 at the end.
    let out = OutDir::new("failing");
    let args = compare_args(
        &out,
        "2",
        "1s",
        "2s",
        &[
            "--kernel",
            "host",
            "--arm",
            "pfifo limit 256",
            "--cc",
            "no_such_cc",
        ],
    );
    let (code, stdout, err) = run_bounded(&args, Duration::from_secs(120));
    assert_eq!(code, 1, "stdout:\n{stdout}\nstderr:\n{err}");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.0.join("results.json")).unwrap())
            .unwrap();
    let scenarios = r["scenarios"].as_array().unwrap();
    assert_eq!(
        scenarios.len(),
        2,
        "the run went on after the first failure"
    );
    for s in scenarios {
        let e = s["error"].as_str().expect("error recorded");
        assert!(e.contains("no_such_cc"), "cause named: {e}");
        assert_eq!(
            s["cleanup"]["namespaces_deleted"].as_array().unwrap().len(),
            3
        );
        assert!(
            s["probe"]["requests"]
                .as_array()
                .is_some_and(|r| !r.is_empty()),
            "baseline probes kept"
        );
    }
    let summary = std::fs::read_to_string(out.0.join("summary.md")).unwrap();
    assert!(summary.contains("| 1 | pfifo | failed:"), "{summary}");
    assert!(namespaces_of(r["run_id"].as_str().unwrap()).is_empty());
}

#[test]
fn guest_subcommand_runs_one_program_and_returns_its_status() {
    if !netlab_guest::guest_or_skip(
        "guest_subcommand_runs_one_program_and_returns_its_status",
        &["sch_fq_codel"],
    ) {
        return;
    }
    let (code, out, err) = run_bounded(
        &[
            "guest",
            "--module",
            "sch_fq_codel",
            "--deadline",
            "60s",
            "--",
            "/bin/cat",
            "/proc/modules",
        ],
        Duration::from_secs(90),
    );
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        out.contains("sch_fq_codel"),
        "the module is loaded inside: {out}"
    );
    assert!(err.contains("kernel 6.1."), "{err}");
    let (code, _out, err) = run_bounded(
        &["guest", "--", "/bin/sh", "-c", "exit 3"],
        Duration::from_secs(90),
    );
    assert_eq!(code, 3, "the program's exit status comes back: {err}");
}

#[test]
fn privileged_sigkill_then_cleanup_leaves_nothing() {
    if !require_privileged("privileged_sigkill_then_cleanup_leaves_nothing") {
        return;
    }
    let UnderLoad {
        mut child,
        pid,
        run_id,
        _out,
        ..
    } = start_under_load("sigkill");
    // Our own child, by pid: no teardown can run in it.
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).unwrap();
    child.wait().unwrap();
    assert_eq!(
        namespaces_of(&run_id).len(),
        3,
        "a SIGKILLed run leaves its namespaces"
    );
    let state = format!("/run/netlab/{run_id}.json");
    assert!(
        Path::new(&state).exists(),
        "a SIGKILLed run leaves its state file"
    );
    let (code, out, err) = run_bounded(&["cleanup"], Duration::from_secs(60));
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains(&format!("run {run_id}")), "{out}");
    for role in ["a", "r", "b"] {
        let name = format!("nl-{run_id}-1-{role}");
        assert!(out.contains(&name), "no receipt for {name}:\n{out}");
    }
    assert!(
        namespaces_of(&run_id).is_empty(),
        "leftovers: {:?}",
        namespaces_of(&run_id)
    );
    assert!(!Path::new(&state).exists(), "state file left");
}
