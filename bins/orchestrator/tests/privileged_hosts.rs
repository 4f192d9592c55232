//! Sender hosts end to end (docs/method.md §1.7): a SIGKILL in the middle
//! of a 3-host run leaves the five namespaces and the state file, and
//! `orchestrator cleanup` removes all of them; a default `compare` still
//! prints the seed's experiment, with no host in it. Privileged tests run
//! as root and skip with a printed reason unless
//! NETLAB_REQUIRE_PRIVILEGED=1.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use netlab_topology::testing::require_privileged;

mod support;

use support::*;

const THREE_HOSTS: &str = r#"
name = "three_hosts"
rounds = 1
kernel = "host"
arms = ["pfifo limit 64"]
[timeline]
baseline = "5s"
warmup = "5s"
measure = "20s"
[[hosts]]
name = "one"
[[hosts]]
name = "two"
[[hosts]]
name = "three"
[[flows]]
host = "one"
[[flows]]
host = "two"
[[flows]]
host = "three"
"#;

/// The run id of the first namespace `nl-<id>-1-a3` that appears within
/// `limit`.
fn third_host_appears(limit: Duration) -> Option<String> {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        let found = std::fs::read_dir("/run/netns").ok().and_then(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .find_map(|n| {
                    let owned = netlab_topology::OwnedName::parse(&n)?;
                    (owned.host == Some(3)).then(|| owned.run_id.as_str().to_owned())
                })
        });
        if found.is_some() {
            return found;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[test]
fn privileged_hosts_sigkill_mid_run_then_cleanup_leaves_nothing() {
    if !require_privileged("privileged_hosts_sigkill_mid_run_then_cleanup_leaves_nothing") {
        return;
    }
    let out = OutDir::new("hosts-sigkill");
    std::fs::create_dir_all(&out.0).unwrap();
    let file = out.0.join("three_hosts.toml");
    std::fs::write(&file, THREE_HOSTS).unwrap();
    let results = out.0.join("results");
    let mut child = Command::new(BIN)
        .args(["run", file.to_str().unwrap(), "--quiet", "--out"])
        .arg(&results)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let id = third_host_appears(Duration::from_secs(30));
    // In the middle of the scenario: the path stands, the flows run.
    std::thread::sleep(Duration::from_secs(6));
    child.kill().unwrap();
    child.wait().unwrap();
    let id = id.expect("the third host's namespace appeared");
    let mut left = namespaces_of(&id);
    left.sort();
    assert_eq!(
        left,
        ["a", "a2", "a3", "b", "r"].map(|s| format!("nl-{id}-1-{s}")),
        "SIGKILL leaves every namespace of the run"
    );
    let state = std::path::Path::new("/run/netlab").join(format!("{id}.json"));
    assert!(state.exists(), "the state file lists them");
    let (code, stdout, stderr) = run_bounded(&["cleanup"], Duration::from_secs(90));
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert_eq!(namespaces_of(&id), Vec::<String>::new(), "{stdout}");
    assert!(!state.exists(), "{stdout}");
}

#[test]
fn a_default_compare_prints_no_hosts() {
    let (code, text, err) =
        run_bounded(&["compare", "--print-experiment"], Duration::from_secs(30));
    assert_eq!(code, 0, "{err}");
    assert!(!text.contains("host"), "{text}");
    let exp = netlab_experiment::parse(&text).unwrap();
    assert!(exp.hosts.is_empty());
    assert!(exp.flows.iter().all(|f| f.host == 0));
}
