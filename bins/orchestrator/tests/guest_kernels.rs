//! The guest kernels netlab builds (`orchestrator kernel build`,
//! `--kernel uml-6.12`): an unbuilt one is refused before anything is
//! made, with exit 2 and its build command; a build interrupted with
//! SIGINT leaves no entry, no temporary folder and no process; a second
//! build call does nothing; and an fq_pie arm runs end to end in the 6.12
//! guest, its counters read back. The last two need the kernel built
//! (`.ci/run` builds it before the tests) and skip without it unless
//! NETLAB_REQUIRE_PRIVILEGED=1.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use netlab_guest::kernels::{self, build::TEMP_PREFIX, UML_6_12};
use netlab_topology::testing::require_privileged;

mod support;

use support::*;

/// Runs the orchestrator with `NETLAB_KERNEL_CACHE=cache`, bounded.
fn run_with_cache(args: &[&str], cache: &Path, limit: Duration) -> (i32, String, String) {
    run_bounded_env(args, &[(kernels::CACHE_ENV, cache)], limit)
}

#[test]
fn an_unbuilt_kernel_is_refused_with_exit_2_and_its_build_command() {
    let cache = tempfile::tempdir().unwrap();
    let out = OutDir::new("unbuilt-kernel");
    let o = out.0.to_str().unwrap();
    let file = out.parent().join("unbuilt-kernel.toml");
    std::fs::write(&file, "kernel = \"uml-6.12\"\narms = [\"fq_pie\"]\n").unwrap();
    let f = file.to_str().unwrap();
    for args in [
        vec!["compare", "--kernel", "uml-6.12", "--out", o],
        vec!["run", f, "--out", o],
        vec!["guest", "--kernel", "uml-6.12", "--", "/bin/true"],
    ] {
        let (code, _stdout, err) = run_with_cache(&args, cache.path(), Duration::from_secs(30));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("the guest kernel uml-6.12 is not built")
                && err.contains("orchestrator kernel build uml-6.12"),
            "{args:?}: {err}"
        );
        assert!(!out.0.exists(), "{args:?} created the results folder");
    }
    let (code, stdout, _) =
        run_with_cache(&["kernel", "list"], cache.path(), Duration::from_secs(30));
    assert_eq!(code, 0);
    assert!(stdout.contains("uml-6.12\tnot built"), "{stdout}");
    let (code, _, err) = run_with_cache(
        &["kernel", "build", "uml-7.0"],
        cache.path(),
        Duration::from_secs(30),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown guest kernel \"uml-7.0\""), "{err}");
}

/// Processes whose command line or working directory is under `dir`.
fn processes_under(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let p = e.path();
        if !e
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let cmdline = std::fs::read(p.join("cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        let cwd = std::fs::read_link(p.join("cwd"))
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        if cmdline.contains(&needle) || cwd.starts_with(&needle) {
            found.push(format!(
                "{}: {cmdline} (in {cwd})",
                e.file_name().to_string_lossy()
            ));
        }
    }
    found
}

#[test]
fn privileged_an_interrupted_build_leaves_no_entry_and_no_process() {
    if !require_privileged("privileged_an_interrupted_build_leaves_no_entry_and_no_process") {
        return;
    }
    assert!(
        Path::new(UML_6_12.tarball).is_file(),
        "{} is not installed (apt-get install -y {})",
        UML_6_12.source_package,
        UML_6_12.source_package
    );
    let cache = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["kernel", "build", "uml-6.12", "--cache"])
        .arg(cache.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    // Interrupted once make compiles (extraction and configuration first,
    // minutes on a busy machine).
    let logs = cache.path().join("logs");
    let until = Instant::now() + Duration::from_secs(600);
    let compiling = loop {
        let log = std::fs::read_dir(&logs)
            .into_iter()
            .flatten()
            .flatten()
            .find_map(|e| std::fs::read_to_string(e.path()).ok())
            .unwrap_or_default();
        if log.contains("=== make linux modules") && log.contains("  CC ") {
            break true;
        }
        if Instant::now() > until || child.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    if !compiling {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the build never reached make: {}", err.join().unwrap());
    }
    assert!(
        !processes_under(cache.path()).is_empty(),
        "make runs in the cache's temporary folder"
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    // Removing the extracted tree (about 1.5 GB) took up to 3 minutes on a
    // busy shared disk.
    let until = Instant::now() + Duration::from_secs(300);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the build did not stop within 300 s of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let err = err.join().unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        err.contains("the build was interrupted during make linux modules"),
        "{err}"
    );
    let left = processes_under(cache.path());
    assert!(left.is_empty(), "processes left: {left:?}");
    let entries: Vec<String> = std::fs::read_dir(cache.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "logs" && !n.ends_with(".lock"))
        .collect();
    assert!(entries.is_empty(), "left in the cache: {entries:?}");
    assert!(!entries.iter().any(|n| n.starts_with(TEMP_PREFIX)));
    // The log is kept.
    assert_eq!(std::fs::read_dir(&logs).unwrap().count(), 1);
}

#[test]
fn guest_612_a_second_build_does_nothing() {
    if !netlab_guest::guest_or_skip("guest_612_a_second_build_does_nothing", &[]) {
        return;
    }
    let Some(k) = built_or_skip("guest_612_a_second_build_does_nothing") else {
        return;
    };
    let manifest = k.kernel.with_file_name(kernels::MANIFEST);
    let before = std::fs::metadata(&manifest).unwrap().modified().unwrap();
    let (code, stdout, err) = run_bounded(&["kernel", "build", "6.12"], Duration::from_secs(60));
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("is built") && stdout.contains("nothing to do"),
        "{stdout}"
    );
    assert!(!err.contains("extracting"), "{err}");
    let after = std::fs::metadata(&manifest).unwrap().modified().unwrap();
    assert_eq!(before, after, "the entry was written again");
}

/// The built 6.12 kernel, or `None` (a skip, or a failure under
/// NETLAB_REQUIRE_PRIVILEGED=1) when it is not built.
fn built_or_skip(name: &str) -> Option<kernels::GuestKernel> {
    match kernels::locate(UML_6_12.name) {
        Ok(k) => Some(k),
        Err(e) if std::env::var("NETLAB_REQUIRE_PRIVILEGED").is_ok_and(|v| v == "1") => {
            panic!("{name}: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED {name}: {e}");
            None
        }
    }
}

#[test]
fn guest_612_an_fq_pie_arm_runs_end_to_end_with_its_counters_read_back() {
    let name = "guest_612_an_fq_pie_arm_runs_end_to_end_with_its_counters_read_back";
    if !netlab_guest::guest_or_skip(name, &[]) {
        return;
    }
    let Some(k) = built_or_skip(name) else {
        return;
    };
    guest_with_retry(name, &[], |n| {
        let out = OutDir::new(&format!("fq-pie-612-{n}"));
        let args = short_compare(
            &out,
            &[
                "--kernel",
                "uml-6.12",
                "--arm",
                "pfifo limit 256",
                "--arm",
                "fq_pie limit 256 target 15ms tupdate 15ms ecn",
            ],
        );
        let (code, stdout, err) = run_bounded(&args, Duration::from_secs(300));
        if code != 0 {
            return Err(format!("exit {code}: stdout:\n{stdout}\nstderr:\n{err}"));
        }
        let r = check_results(&out.0, &["pfifo", "fq_pie"]);
        let kernel = &r["kernel"];
        assert_eq!(kernel["mode"], "uml");
        assert_eq!(kernel["name"], "uml-6.12");
        assert_eq!(kernel["release"].as_str(), k.release.as_deref());
        assert_eq!(kernel["config_sha256"].as_str(), k.config_sha256.as_deref());
        assert!(
            kernel["compiler"]
                .as_str()
                .is_some_and(|c| c.contains("gcc")),
            "{kernel}"
        );
        assert!(
            kernel["source"]
                .as_str()
                .is_some_and(|s| s.starts_with("linux-source-6.12 ")),
            "{kernel}"
        );
        let fq = &r["scenarios"][1];
        let child = fq["qdiscs"][0]["final"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["kind"] == "fq_pie")
            .expect("fq_pie in the final readback");
        // fq_pie's own counters (tc_fq_pie_xstats), read back at the end.
        let packets_in =
            find_u64(&child["xstats"], "packets_in").expect("fq_pie's xstats read back");
        if packets_in == 0 {
            return Err(format!("fq_pie took no packet: {child}"));
        }
        let new_flows = find_u64(&child["xstats"], "new_flow_count").expect("new_flow_count");
        assert!(new_flows > 0, "{}", child["xstats"]);
        let summary = std::fs::read_to_string(out.0.join("summary.md")).unwrap();
        assert!(summary.contains("Kernel: uml-6.12 6.12."), "{summary}");
        Ok(())
    });
}
