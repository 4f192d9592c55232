//! Guest-kernel tests: they boot user-mode-linux (skipped, printed, when it
//! is not installed, unless NETLAB_REQUIRE_PRIVILEGED=1).
//!
//! The `helper_*` tests do nothing unless `NETLAB_GUEST_HELPER` selects
//! them; the `guest_*` tests run this test binary inside the guest in that
//! mode.

use std::time::{Duration, Instant};

use netlab_guest::{
    guest_or_skip, in_guest, live_process_group, test_in_guest, Error, Guest, GuestStatus,
};

const HELPER: &str = "NETLAB_GUEST_HELPER";
const MODULES: [&str; 3] = ["sch_tbf", "sch_fq_codel", "veth"];

fn helper_mode() -> Option<String> {
    std::env::var(HELPER).ok().filter(|_| in_guest())
}

fn this_test_binary(helper: &str, mode: &str) -> Guest {
    Guest::new(std::env::current_exe().unwrap())
        .args([helper, "--exact", "--nocapture", "--test-threads=1"])
        .env(HELPER, mode)
}

#[test]
fn helper_release_exit3() {
    if helper_mode().as_deref() == Some("exit3") {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
        println!("release={}", release.trim());
        eprintln!("to-stderr");
        std::process::exit(3);
    }
}

#[test]
fn helper_hang() {
    if helper_mode().as_deref() == Some("hang") {
        println!("hanging now");
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
}

#[test]
fn guest_reports_release_and_exit_status() {
    if !guest_or_skip("guest_reports_release_and_exit_status", &[]) {
        return;
    }
    let o = this_test_binary("helper_release_exit3", "exit3")
        .run()
        .unwrap();
    assert_eq!(o.status, GuestStatus::Exited(3), "{o:#?}");
    assert!(o.release.starts_with("6.1."), "release {}", o.release);
    assert!(
        o.stdout.contains(&format!("release={}", o.release)),
        "{}",
        o.stdout
    );
    assert!(o.stderr.contains("to-stderr"), "{}", o.stderr);
    assert!(o.boot_to_init.is_some_and(|b| b < o.elapsed));
    assert!(o.console_log.contains("Linux version") || !o.console_log.is_empty());
}

#[test]
fn guest_loads_modules() {
    test_in_guest("guest_loads_modules", &MODULES, || {
        let loaded = std::fs::read_to_string("/proc/modules").unwrap();
        for m in MODULES {
            assert!(
                loaded.lines().any(|l| l.split(' ').next() == Some(m)),
                "{m} not in /proc/modules:\n{loaded}"
            );
        }
        // The guest has its own /run (tmpfs), not the host's.
        assert!(
            !std::path::Path::new("/run/netns").exists()
                || std::fs::read_dir("/run/netns").unwrap().next().is_none()
        );
    });
}

#[test]
fn guest_deadline_kills_hanging_guest_and_leaves_nothing() {
    if !guest_or_skip("guest_deadline_kills_hanging_guest_and_leaves_nothing", &[]) {
        return;
    }
    let guest = this_test_binary("helper_hang", "hang")
        .deadline(Duration::from_secs(6))
        .spawn()
        .unwrap();
    let pid = guest.pid();
    let dir = guest.run_dir().to_path_buf();
    assert!(dir.exists());
    let t = Instant::now();
    let err = guest.wait().unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    match &err {
        Error::DeadlineExceeded { output_tail, .. } => {
            assert!(output_tail.contains("hanging now"), "{err}")
        }
        other => panic!("expected a deadline error, got {other}"),
    }
    assert!(
        live_process_group(pid).is_empty(),
        "left: {:?}",
        live_process_group(pid)
    );
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists() || {
            // The pid may have been reused by an unrelated process; it must not be ours.
            live_process_group(pid).is_empty()
        }
    );
    assert!(!dir.exists(), "run folder {} left behind", dir.display());
}

#[test]
fn guest_kill_handle_cancels() {
    if !guest_or_skip("guest_kill_handle_cancels", &[]) {
        return;
    }
    let guest = this_test_binary("helper_hang", "hang").spawn().unwrap();
    let (pid, dir, handle) = (
        guest.pid(),
        guest.run_dir().to_path_buf(),
        guest.kill_handle(),
    );
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(3));
        handle.kill();
    });
    let err = guest.wait().unwrap_err();
    assert!(matches!(err, Error::Cancelled), "{err}");
    assert!(live_process_group(pid).is_empty());
    assert!(!dir.exists());
}

#[test]
fn guest_setup_failure_is_reported() {
    if !guest_or_skip("guest_setup_failure_is_reported", &[]) {
        return;
    }
    let err = Guest::new("/bin/true")
        .current_dir("/nonexistent-netlab-dir")
        .run()
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::GuestSetup { .. }), "{msg}");
    assert!(
        msg.contains("cannot start") && msg.contains("/nonexistent-netlab-dir"),
        "{msg}"
    );
}

#[test]
fn guest_missing_module_is_named_before_boot() {
    if !guest_or_skip("guest_missing_module_is_named_before_boot", &[]) {
        return;
    }
    let err = Guest::new("/bin/true")
        .module("sch_nonexistent")
        .run()
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("sch_nonexistent") && msg.contains("/usr/lib/uml/modules/"),
        "{msg}"
    );
}

#[test]
fn missing_kernel_says_how_to_install() {
    let err = Guest::new("/bin/true")
        .kernel("/nonexistent/linux.uml")
        .run()
        .unwrap_err();
    assert!(
        err.to_string().contains("apt-get install user-mode-linux"),
        "{err}"
    );
}

#[test]
fn guest_init_refuses_outside_pid1() {
    let init = env!("CARGO_BIN_EXE_netlab-guest-init");
    let out = std::process::Command::new(init)
        .args(["--spec", "/nonexistent/spec.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("PID 1"));
}

#[test]
fn helper_host_spawner() {
    if std::env::var(HELPER).as_deref() == Ok("host-spawner") && !in_guest() {
        let g = this_test_binary("helper_hang", "hang").spawn().unwrap();
        println!("kernel_pid={} dir={}", g.pid(), g.run_dir().display());
        std::thread::sleep(Duration::from_secs(60)); // the parent test SIGKILLs us
        drop(g);
    }
}

fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].trim_start().chars().next()
}

/// The host process is SIGKILLed while its guest runs: the kernel's ptraced
/// helpers (which would otherwise run guest code natively) are gone at
/// once, and `cleanup_stale_runs` removes the rest and the run folder.
#[test]
fn guest_host_sigkill_then_cleanup_leaves_nothing() {
    use std::io::BufRead;
    if !guest_or_skip("guest_host_sigkill_then_cleanup_leaves_nothing", &[]) {
        return;
    }
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "helper_host_spawner",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HELPER, "host-spawner")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            // libtest may print "test helper_host_spawner ... " first on the line.
            if let Some(at) = line.find("kernel_pid=") {
                let _ = tx.send(line[at..].to_owned());
            }
        }
    });
    let line = rx.recv_timeout(Duration::from_secs(30));
    let Ok(line) = line else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("spawner did not report its guest");
    };
    let mut parts = line.split(' ');
    let kpid: u32 = parts.next().unwrap()["kernel_pid=".len()..]
        .parse()
        .unwrap();
    let dir = std::path::PathBuf::from(&parts.next().unwrap()["dir=".len()..]);
    // Wait until the hanging program runs in the guest.
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(30)
        && !std::fs::read_to_string(dir.join("stdout")).is_ok_and(|s| s.contains("hanging now"))
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // UML got SIGTERM (parent death) and kills its ptraced helpers.
    let t = Instant::now();
    let traced = || {
        live_process_group(kpid)
            .into_iter()
            .filter(|p| matches!(process_state(*p), Some('t' | 'T' | 'R')))
            .collect::<Vec<_>>()
    };
    while t.elapsed() < Duration::from_secs(5) && !traced().is_empty() {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        traced().is_empty(),
        "guest helpers survived: {:?}",
        traced()
    );
    let done = netlab_guest::cleanup_stale_runs();
    let ours = done
        .iter()
        .find(|s| s.dir == dir)
        .expect("our stale run found");
    assert!(ours.removed && !dir.exists(), "{ours:?}");
    assert_eq!(ours.kernel_pid, Some(kpid));
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(5) && !live_process_group(kpid).is_empty() {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        live_process_group(kpid).is_empty(),
        "left: {:?}",
        live_process_group(kpid)
    );
}

#[test]
fn helper_host_streamer() {
    if std::env::var(HELPER).as_deref() == Ok("host-streamer") && !in_guest() {
        let o = Guest::new("/bin/sh")
            .args(["-c", "echo first-line; sleep 2; echo second-line"])
            .stream_output(true)
            .run()
            .unwrap();
        assert!(o.stdout.contains("first-line") && o.stdout.contains("second-line"));
        println!("STREAMER_DONE {}", o.status);
    }
}

/// With `stream_output(true)` the program's output reaches the host's
/// stdout while the guest still runs (not only at the end).
#[test]
fn guest_streams_output_live() {
    use std::io::BufRead;
    if !guest_or_skip("guest_streams_output_live", &[]) {
        return;
    }
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "helper_host_streamer",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HELPER, "host-streamer")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send((Instant::now(), line));
        }
    });
    let (mut first, mut done) = (None, None);
    let t = Instant::now();
    while done.is_none() && t.elapsed() < Duration::from_secs(60) {
        if let Ok((at, line)) = rx.recv_timeout(Duration::from_millis(200)) {
            if line.contains("first-line") {
                first.get_or_insert(at);
            }
            if line.contains("STREAMER_DONE") {
                assert!(line.contains("exit status 0"), "{line}");
                done = Some(at);
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let (first, done) = (
        first.expect("first line streamed"),
        done.expect("streamer finished"),
    );
    assert!(
        done.duration_since(first) >= Duration::from_millis(1500),
        "first line came only {:?} before the end",
        done.duration_since(first)
    );
}

#[test]
fn guest_shared_tmp_folder_reaches_the_host() {
    if !guest_or_skip("guest_shared_tmp_folder_reaches_the_host", &[]) {
        return;
    }
    // A host folder under /tmp, which the guest's own tmpfs would hide.
    let dir = std::env::temp_dir().join(format!("netlab-guest-share-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("written-inside.txt");
    let o = Guest::new("/bin/sh")
        .args(["-c", &format!("echo from-the-guest > {}", file.display())])
        .share_dir(&dir)
        .run()
        .unwrap();
    let seen = std::fs::read_to_string(&file);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status, GuestStatus::Exited(0), "{o:#?}");
    assert_eq!(seen.unwrap().trim(), "from-the-guest");
}
