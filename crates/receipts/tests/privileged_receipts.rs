//! Privileged: registries tear down what they own (normal end, panic,
//! SIGTERM), and `cleanup_dead_runs` removes what a SIGKILLed owner left,
//! and nothing else.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use netlab_receipts::{
    cleanup_dead_runs, install_signal_teardown, read_state, Action, Registry, Resource, RunStatus,
    SystemClock, TeardownOutcome,
};
use netlab_topology::netns::{self, Netns};
use netlab_topology::testing::require_privileged;
use netlab_topology::{RunId, Topology, TopologySpec};

/// Env var that makes this test binary act as a run owner (child mode).
const CHILD_MODE: &str = "NETLAB_RECEIPTS_TEST_CHILD";

/// A fresh folder for one test, removed on drop even when the test fails
/// (the tests also remove it themselves, checking that they can).
fn test_dir(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("netlab-receipts-{tag}-"))
        .tempdir()
        .unwrap()
}

fn proc_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(s) => netlab_os::proc::parse_proc_stat(&s).map_or(true, |st| st.is_dead()),
    }
}

/// Removes what a (dead) owner left in `dir`, even when the test fails.
struct DirCleanup(PathBuf);

impl Drop for DirCleanup {
    fn drop(&mut self) {
        for run in cleanup_dead_runs(&self.0) {
            for r in &run.receipts {
                eprintln!("test cleanup: {r}");
            }
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn spawn_sleeper() -> Child {
    Command::new("sleep")
        .arg("60")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn sleep")
}

/// Re-runs this test binary as a run owner in `mode`; returns it once it
/// printed `READY`, with the lines it printed.
fn spawn_owner(mode: &str, state_dir: &Path, run: &RunId) -> (Child, Vec<String>) {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args([
            "child_mode_entry",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_MODE, mode)
        .env("NETLAB_TEST_STATE_DIR", state_dir)
        .env("NETLAB_TEST_RUN_ID", run.as_str())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut lines = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                // libtest may print "test child_mode_entry ... " before it
                let ready = line.find("READY").map(|i| line[i..].to_owned());
                lines.push(line);
                if let Some(ready) = ready {
                    lines.push(ready);
                    return (child, lines);
                }
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("owner child not ready in time; printed {lines:?}");
            }
        }
    }
}

fn wait_bounded(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("child {} did not exit within {within:?}", child.id());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Child mode: not a test of its own. The privileged tests run it in a
/// child process (with `--ignored` and CHILD_MODE set) as a run owner they
/// can kill.
#[test]
#[ignore = "helper: run by the privileged tests in a child process"]
fn child_mode_entry() {
    let mode = std::env::var(CHILD_MODE).expect(
        "child_mode_entry is run by the privileged tests, which set NETLAB_RECEIPTS_TEST_CHILD",
    );
    let dir = PathBuf::from(std::env::var("NETLAB_TEST_STATE_DIR").unwrap());
    let run = RunId::parse(&std::env::var("NETLAB_TEST_RUN_ID").unwrap()).unwrap();
    let reg = Registry::with_state_dir(run.clone(), &dir).unwrap();
    if mode == "sigterm" {
        install_signal_teardown(&reg).unwrap();
    }
    let spec = TopologySpec::new(run, mode.clone());
    for n in spec.netns_names() {
        reg.register_namespace(&n).unwrap();
    }
    let topo = Topology::build(&spec).unwrap();
    let sleeper = spawn_sleeper();
    reg.register_child(sleeper.id() as i32, "sleeper").unwrap();
    println!("READY {} {}", std::process::id(), sleeper.id());
    // bounded: the parent kills us long before this ends
    std::thread::sleep(Duration::from_secs(30));
    drop(topo);
    reg.teardown(&SystemClock);
    std::process::exit(3);
}

#[test]
fn privileged_sigkilled_owner_then_cleanup_leaves_nothing() {
    if !require_privileged("privileged_sigkilled_owner_then_cleanup_leaves_nothing") {
        return;
    }
    let scratch = test_dir("kill9");
    let dir = scratch.path().to_path_buf();
    let _cleanup = DirCleanup(dir.clone());
    let run = RunId::random();
    let spec = TopologySpec::new(run.clone(), "sigkill");
    let (mut child, lines) = spawn_owner("sigkill", &dir, &run);
    let ready: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    let sleeper_pid: i32 = ready[2].parse().unwrap();
    for n in spec.netns_names() {
        assert!(netns::exists(&n), "{n} not built");
    }
    let state_file = dir.join(format!("{run}.json"));
    let state = read_state(&state_file).unwrap();
    assert_eq!(state.owner.pid, child.id() as i32);
    assert_eq!(state.resources.len(), 5, "{:?}", state.resources);

    // kill -9 the owner by pid
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let st = wait_bounded(&mut child, Duration::from_secs(10));
    assert!(!st.success());
    // leftovers exist now
    assert!(state_file.exists());
    assert!(netns::exists(&spec.netns_names()[0]));
    assert!(!proc_gone(sleeper_pid), "sleeper should outlive its owner");

    let cleaned = cleanup_dead_runs(&dir);
    assert_eq!(cleaned.len(), 1, "{cleaned:?}");
    let c = &cleaned[0];
    assert_eq!(c.status, RunStatus::Cleaned, "{c:?}");
    assert_eq!(c.receipts.len(), 5);
    assert!(matches!(c.receipts[0].resource, Resource::Child { .. }));
    assert_eq!(c.receipts[0].outcome, TeardownOutcome::Done);
    for r in &c.receipts[1..4] {
        assert_eq!(r.action, Action::DeleteNamespace, "{r}");
        assert_eq!(r.outcome, TeardownOutcome::Done, "{r}");
    }
    assert_eq!(c.receipts[4].action, Action::RemoveStateFile);
    // zero leftovers
    for n in spec.netns_names() {
        assert!(!netns::exists(&n), "{n} left");
    }
    assert!(proc_gone(sleeper_pid), "sleeper left");
    assert!(!state_file.exists());
    assert!(cleanup_dead_runs(&dir).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn privileged_sigterm_tears_down_and_exits_143() {
    if !require_privileged("privileged_sigterm_tears_down_and_exits_143") {
        return;
    }
    let scratch = test_dir("term");
    let dir = scratch.path().to_path_buf();
    let _cleanup = DirCleanup(dir.clone());
    let run = RunId::random();
    let spec = TopologySpec::new(run.clone(), "sigterm");
    let (mut child, lines) = spawn_owner("sigterm", &dir, &run);
    let sleeper_pid: i32 = lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let st = wait_bounded(&mut child, Duration::from_secs(15));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(st.code(), Some(143), "stderr: {stderr}");
    assert_eq!(stderr.matches("cleanup receipt:").count(), 5, "{stderr}");
    for n in spec.netns_names() {
        assert!(!netns::exists(&n), "{n} left");
    }
    assert!(proc_gone(sleeper_pid));
    assert!(!dir.join(format!("{run}.json")).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn privileged_registry_teardown_normal_end_gives_receipts() {
    if !require_privileged("privileged_registry_teardown_normal_end_gives_receipts") {
        return;
    }
    let scratch = test_dir("normal");
    let dir = scratch.path().to_path_buf();
    let run = RunId::random();
    let reg = Registry::with_state_dir(run.clone(), &dir).unwrap();
    let spec = TopologySpec::new(run, "normal");
    for n in spec.netns_names() {
        reg.register_namespace(&n).unwrap();
    }
    let topo = Topology::build(&spec).unwrap();
    let mut sleeper = spawn_sleeper();
    let sleeper_pid = sleeper.id() as i32;
    reg.register_child(sleeper_pid, "sleeper").unwrap();
    drop(topo);
    let receipts = reg.teardown(&SystemClock);
    let json = serde_json::to_string(&receipts).unwrap();
    assert!(json.contains("\"utc\""));
    assert_eq!(receipts.len(), 5, "{receipts:#?}");
    assert_eq!(receipts[0].action, Action::Sigterm);
    assert_eq!(receipts[0].outcome, TeardownOutcome::Done);
    // namespaces in reverse order: B, R, A
    let order: Vec<String> = receipts[1..4]
        .iter()
        .map(|r| match &r.resource {
            Resource::Namespace { name } => name.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    let mut want = spec.netns_names().to_vec();
    want.reverse();
    assert_eq!(order, want);
    assert!(receipts.iter().all(|r| r.outcome == TeardownOutcome::Done));
    assert!(receipts
        .windows(2)
        .all(|w| w[0].monotonic_s <= w[1].monotonic_s));
    assert!(proc_gone(sleeper_pid), "sleeper left");
    let _ = sleeper.try_wait(); // already reaped by the registry
    for n in spec.netns_names() {
        assert!(!netns::exists(&n));
    }
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "state file left"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn privileged_registry_tears_down_on_panic() {
    if !require_privileged("privileged_registry_tears_down_on_panic") {
        return;
    }
    let run = RunId::random();
    let name = format!("nl-{run}-panic");
    let n2 = name.clone();
    let result = std::panic::catch_unwind(move || {
        let reg = Registry::new(run).unwrap();
        reg.register_namespace(&n2).unwrap();
        let _ns = Netns::create(&n2).unwrap();
        panic!("scenario failed");
    });
    assert!(result.is_err());
    assert!(!netns::exists(&name), "{name} left after panic");
}

#[test]
fn privileged_cleanup_spares_live_runs_and_foreign_namespaces() {
    if !require_privileged("privileged_cleanup_spares_live_runs_and_foreign_namespaces") {
        return;
    }
    let scratch = test_dir("spare");
    let dir = scratch.path().to_path_buf();
    // a live run (this process) owning a real namespace
    let live_run = RunId::random();
    let live = Registry::with_state_dir(live_run.clone(), &dir).unwrap();
    let live_ns = format!("nl-{live_run}-live");
    live.register_namespace(&live_ns).unwrap();
    let _a = Netns::create(&live_ns).unwrap();
    // a dead run whose state lists a namespace of another run
    let dead_run = RunId::random();
    let other_ns = format!("nl-{live_run}-other");
    let _b = Netns::create(&other_ns).unwrap();
    netlab_receipts::write_state(
        &dir.join(format!("{dead_run}.json")),
        &netlab_receipts::RunState {
            schema: netlab_receipts::STATE_SCHEMA,
            run_id: dead_run.clone(),
            owner: netlab_os::ProcessIdentity {
                pid: i32::MAX - 3,
                start_time: 1,
            },
            resources: vec![Resource::Namespace {
                name: other_ns.clone(),
            }],
        },
    )
    .unwrap();
    let got = cleanup_dead_runs(&dir);
    assert_eq!(got.len(), 2);
    for c in &got {
        if c.run_id.as_ref() == Some(&live_run) {
            assert_eq!(c.status, RunStatus::OwnerAlive);
        } else {
            assert_eq!(c.status, RunStatus::Cleaned);
            assert!(matches!(
                c.receipts[0].outcome,
                TeardownOutcome::NotOurs { .. }
            ));
        }
    }
    assert!(netns::exists(&live_ns), "live run's namespace touched");
    assert!(netns::exists(&other_ns), "another run's namespace touched");
    netns::delete(&other_ns).unwrap();
    drop(_a);
    drop(_b);
    let receipts = live.teardown(&SystemClock);
    assert!(
        receipts.iter().all(|r| r.outcome == TeardownOutcome::Done),
        "{receipts:?}"
    );
    assert!(!netns::exists(&live_ns));
    std::fs::remove_dir_all(&dir).unwrap();
}
