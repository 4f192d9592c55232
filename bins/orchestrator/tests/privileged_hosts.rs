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

/// A default `compare` builds the seed's path (method §1) in every
/// scenario: the namespaces `nl-<run>-<n>-a`, `-r` and `-b` and no other,
/// A at 10.20.1.2 behind R's `r0` at 10.20.1.1, B at 10.20.2.2 behind R's
/// 10.20.2.1, the load to TCP 46020 and the probe to UDP 46021, every
/// flow and the probe from host 1, the seed's A.
#[test]
fn a_default_compare_keeps_the_seeds_names_addresses_and_ports() {
    use netlab_topology::addresses::{B_ADDR, R_B_ADDR};
    use netlab_topology::{RunId, SenderHost};
    let (code, text, err) =
        run_bounded(&["compare", "--print-experiment"], Duration::from_secs(30));
    assert_eq!(code, 0, "{err}");
    let exp = netlab_experiment::parse(&text).unwrap();
    let a = SenderHost::FIRST;
    assert_eq!(
        (
            a.addr().to_string(),
            a.router_addr().to_string(),
            a.router_if()
        ),
        ("10.20.1.2".into(), "10.20.1.1".into(), "r0".into())
    );
    assert_eq!(
        (B_ADDR.to_string(), R_B_ADDR.to_string()),
        ("10.20.2.2".into(), "10.20.2.1".into())
    );
    let id = RunId::parse("7f3a").unwrap();
    let plan = exp.plan();
    assert!(!plan.scenarios.is_empty());
    for sc in &plan.scenarios {
        let p = netlab_run::ScenarioSetup::new(sc, &id).unwrap();
        let n = p.index;
        assert_eq!(
            p.namespaces(),
            ["a", "r", "b"].map(|r| format!("nl-7f3a-{n}-{r}")),
            "scenario {n}"
        );
        assert_eq!((p.topology.tcp_port, p.topology.udp_port), (46020, 46021));
        assert_eq!(p.topology.sender_hosts, 1);
        assert!(p.hosts.is_empty(), "scenario {n}: no host beyond A");
        assert!(!p.flows.is_empty());
        for f in &p.flows {
            assert_eq!(f.host, a);
            assert_eq!(f.sender.to.to_string(), "10.20.2.2:46020");
        }
        let probe = p.probe.as_ref().expect("the seed's probe");
        assert_eq!(probe.host, a);
        assert_eq!(probe.target.to_string(), "10.20.2.2:46021");
    }
}

/// A preset of experiments/ with one round and a short timeline.
fn quick_preset(name: &str, arms: Option<&[&str]>) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments")
        .join(format!("{name}.toml"));
    let mut f = netlab_experiment::parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
    f.rounds = Some(1);
    f.timeline = Some(netlab_experiment::file::TimelineFile {
        baseline: Some("1s".into()),
        warmup: Some("3s".into()),
        measure: Some("5s".into()),
    });
    if let Some(arms) = arms {
        f.arms = Some(arms.iter().map(|a| a.to_string()).collect());
    }
    netlab_experiment::Experiment::from_file(&f)
        .unwrap()
        .to_toml()
}

/// Runs `toml` (in the guest: its arms need it) and gives each scenario's
/// arm words with its per-host shares of the upload.
fn run_shares(tag: &str, toml: &str) -> Vec<(String, Vec<(String, f64)>)> {
    let out = OutDir::new(tag);
    let file = out.0.with_extension("toml");
    std::fs::write(&file, toml).unwrap();
    let (code, stdout, stderr) = run_bounded(
        &[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.0.to_str().unwrap(),
            "--quiet",
        ],
        Duration::from_secs(400),
    );
    let _ = std::fs::remove_file(&file);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let r = netlab_results::Results::read(&out.0.join("results.json")).unwrap();
    r.scenarios
        .iter()
        .map(|s| {
            assert_eq!(s.error, None);
            let d = netlab_results::shares::of_scenario(s).directions;
            let hosts = d[0]
                .hosts
                .iter()
                .map(|h| (h.host.clone(), h.share.expect("every flow has a goodput")))
                .collect();
            (s.arm_words.clone(), hosts)
        })
        .collect()
}

#[test]
fn guest_hosts_shares_land_where_the_quick_files_measured_them() {
    if !netlab_guest::guest_or_skip(
        "guest_hosts_shares_land_where_the_quick_files_measured_them",
        &["veth", "sch_tbf", "sch_netem", "sch_fq_codel", "sch_cake"],
    ) {
        return;
    }
    // Host isolation (docs/models.md, model 5): a1 (1 flow) against a2 (8).
    let iso = run_shares("hosts-iso", &quick_preset("host_isolation_quick", None));
    let a1 = |arm: &str| {
        let (_, hosts) = iso.iter().find(|(w, _)| w == arm).unwrap();
        hosts.iter().find(|(h, _)| h == "a1").unwrap().1
    };
    assert!(a1("fq_codel") < 0.2, "{iso:?}");
    assert!((0.3..=0.6).contains(&a1("cake dual-srchost")), "{iso:?}");
    assert!(a1("cake triple-isolate") < 0.2, "{iso:?}");
    // RTT fairness: near (10 ms) beats far (40 ms) under the deep pfifo,
    // and fq_codel's ratio is nearer 1.
    let rtt = run_shares(
        "hosts-rtt",
        &quick_preset("rtt_fairness_quick", Some(&["pfifo limit 256", "fq_codel"])),
    );
    let ratio = |arm: &str| {
        let (_, hosts) = rtt.iter().find(|(w, _)| w == arm).unwrap();
        hosts[0].1 / hosts[1].1
    };
    assert!(ratio("pfifo limit 256") > 1.0, "{rtt:?}");
    assert!(
        (ratio("fq_codel") - 1.0).abs() < (ratio("pfifo limit 256") - 1.0).abs(),
        "{rtt:?}"
    );
}
