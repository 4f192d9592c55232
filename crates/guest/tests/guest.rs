//! Guest-kernel tests: they boot user-mode-linux (skipped, printed, when it
//! is not installed, unless NETLAB_REQUIRE_PRIVILEGED=1).
//!
//! The `helper_*` functions are `#[ignore]`d: they are not tests by
//! themselves but programs the `guest_*` tests start (this test binary with
//! `--ignored --exact helper_…`), inside the guest or on the host, with
//! `NETLAB_GUEST_HELPER` naming the mode. Run any other way (e.g. with
//! `--include-ignored`) a helper fails rather than passing without doing
//! anything.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use netlab_guest::{
    guest_for_test, guest_or_skip, in_guest, live_group_pids, test_in_guest, Error, Guest,
    GuestStatus,
};

const HELPER: &str = "NETLAB_GUEST_HELPER";
const MODULES: [&str; 3] = ["sch_tbf", "sch_fq_codel", "veth"];

/// The libtest arguments that run exactly the ignored helper `name`.
fn helper_args(name: &str) -> [&str; 5] {
    [
        name,
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]
}

/// Fails unless a `guest_*` test started this helper in `mode`, inside the
/// guest (`inside`) or on the host.
fn require_helper_mode(mode: &str, inside: bool) {
    let selected = std::env::var(HELPER).as_deref() == Ok(mode);
    assert!(
        selected && in_guest() == inside,
        "this #[ignore]d helper is started by a guest_* test ({HELPER}={mode}, {} the guest); \
         it is not a test by itself",
        if inside { "inside" } else { "outside" }
    );
}

fn this_test_binary(helper: &str, mode: &str) -> Guest {
    Guest::new(std::env::current_exe().unwrap())
        .args(helper_args(helper))
        .env(HELPER, mode)
}

/// Bounded wait until `pgid` has no live process.
fn group_gone(pgid: u32) -> bool {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(5) && !live_group_pids(pgid).is_empty() {
        std::thread::sleep(Duration::from_millis(20));
    }
    live_group_pids(pgid).is_empty()
}

/// A folder under the host's /tmp that the test owns; removed on drop, also when the test fails.
fn owned_tmp(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("netlab-guest-test-{tag}-"))
        .tempdir()
        .expect("a folder under the temporary directory")
}

#[test]
#[ignore = "helper: started inside the guest by guest_reports_release_and_exit_status"]
fn helper_release_exit3() {
    require_helper_mode("exit3", true);
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    println!("release={}", release.trim());
    eprintln!("to-stderr");
    std::process::exit(3);
}

#[test]
#[ignore = "helper: started inside the guest by the deadline and kill tests"]
fn helper_hang() {
    require_helper_mode("hang", true);
    println!("hanging now");
    loop {
        std::thread::sleep(Duration::from_secs(3600));
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

/// A checkout cloned under /tmp (the guest mounts its own tmpfs there):
/// a test running from one package's folder still reads a fixture beside
/// another package, as `guest_tc_corpus` reads `../../fixtures`.
#[test]
fn guest_test_in_a_checkout_under_tmp_reads_the_checkout_s_fixtures() {
    if !guest_or_skip(
        "guest_test_in_a_checkout_under_tmp_reads_the_checkout_s_fixtures",
        &[],
    ) {
        return;
    }
    let clone = owned_tmp("checkout");
    std::fs::write(clone.path().join("Cargo.lock"), "# a checkout\n").unwrap();
    let package = clone.path().join("crates").join("p");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::create_dir_all(clone.path().join("fixtures")).unwrap();
    let fixture = clone.path().join("fixtures").join("f.txt");
    std::fs::write(&fixture, "fixture-bytes\n").unwrap();
    let o = guest_for_test("/bin/cat", &package)
        .args([fixture.to_str().unwrap()])
        .run()
        .unwrap();
    assert_eq!(o.status, GuestStatus::Exited(0), "{o:#?}");
    assert!(o.stdout.contains("fixture-bytes"), "{o:#?}");
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
        live_group_pids(pid).is_empty(),
        "left: {:?}",
        live_group_pids(pid)
    );
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists() || {
            // The pid may have been reused by an unrelated process; it must not be ours.
            live_group_pids(pid).is_empty()
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
    assert!(live_group_pids(pid).is_empty());
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
    assert!(matches!(err, Error::ModuleNotFound { .. }), "{msg}");
}

/// The refusal comes before any boot: a stand-in kernel that reports the
/// pinned release but records any attempt to boot it is never booted, and
/// no run folder is made.
#[test]
fn guest_missing_module_is_refused_without_booting() {
    use std::os::unix::fs::PermissionsExt;
    if !guest_or_skip("guest_missing_module_is_refused_without_booting", &[]) {
        return;
    }
    let release = netlab_guest::available().release.expect("pinned release");
    let tmp = owned_tmp("no-boot");
    let booted = tmp.path().join("booted");
    let kernel = tmp.path().join("linux.uml");
    std::fs::write(
        &kernel,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo {release}; exit 0; fi\ntouch {}\nexit 1\n",
            booted.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&kernel, std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = Guest::new("/bin/true")
        .kernel(&kernel)
        .modules(["sch_tbf", "sch_nonexistent"])
        .run()
        .unwrap_err();
    match &err {
        Error::ModuleNotFound { name, dir } => {
            assert_eq!(name, "sch_nonexistent");
            assert_eq!(
                dir,
                &Path::new(netlab_guest::DEFAULT_MODULES_ROOT).join(&release)
            );
        }
        other => panic!("expected a missing-module error, got {other}"),
    }
    assert!(
        !booted.exists(),
        "the kernel was started although a module is missing"
    );
    // The same stand-in does boot (and fails) when nothing is missing: the check above means something.
    let boot_err = Guest::new("/bin/true")
        .kernel(&kernel)
        .module("sch_tbf")
        .run()
        .unwrap_err();
    assert!(booted.exists(), "stand-in kernel not started: {boot_err}");
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
#[ignore = "helper: started on the host by guest_host_sigkill_then_cleanup_leaves_nothing"]
fn helper_host_spawner() {
    require_helper_mode("host-spawner", false);
    let g = this_test_binary("helper_hang", "hang").spawn().unwrap();
    println!("kernel_pid={} dir={}", g.pid(), g.run_dir().display());
    std::thread::sleep(Duration::from_secs(60)); // the parent test SIGKILLs us
    drop(g);
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
        .args(helper_args("helper_host_spawner"))
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
        live_group_pids(kpid)
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
    while t.elapsed() < Duration::from_secs(5) && !live_group_pids(kpid).is_empty() {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        live_group_pids(kpid).is_empty(),
        "left: {:?}",
        live_group_pids(kpid)
    );
}

#[test]
#[ignore = "helper: started on the host by guest_streams_output_live"]
fn helper_host_streamer() {
    require_helper_mode("host-streamer", false);
    let o = Guest::new("/bin/sh")
        .args(["-c", "echo first-line; sleep 2; echo second-line"])
        .stream_output(true)
        .run()
        .unwrap();
    assert!(o.stdout.contains("first-line") && o.stdout.contains("second-line"));
    println!("STREAMER_DONE {}", o.status);
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
        .args(helper_args("helper_host_streamer"))
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

#[test]
#[ignore = "helper: started inside the guest by guest_runs_a_checkout_under_tmp"]
fn helper_checkout() {
    require_helper_mode("checkout", true);
    let exe = std::env::current_exe().unwrap();
    let cwd = std::env::current_dir().unwrap();
    println!("exe={} cwd={}", exe.display(), cwd.display());
    // Relative to the working directory, like `--out results` in a checkout.
    std::fs::create_dir_all("results").unwrap();
    std::fs::write("results/from-guest.txt", "written in the checkout\n").unwrap();
    // The guest keeps its own /tmp: the rest of the host's /tmp is hidden.
    let host_only = std::env::var("HOST_ONLY_FILE").unwrap();
    assert!(
        !Path::new(&host_only).exists(),
        "{host_only} visible in the guest"
    );
}

/// A checkout under /tmp (program, its init binary and the
/// working directory all below /tmp) runs in the guest, and what the
/// program writes relative to its working directory reaches the host.
#[test]
fn guest_runs_a_checkout_under_tmp() {
    if !guest_or_skip("guest_runs_a_checkout_under_tmp", &[]) {
        return;
    }
    let checkout = owned_tmp("checkout");
    let bin = checkout.path().join("target/debug");
    std::fs::create_dir_all(&bin).unwrap();
    let program = bin.join("guest-tests");
    std::fs::copy(std::env::current_exe().unwrap(), &program).unwrap();
    let init = bin.join("netlab-guest-init");
    std::fs::copy(env!("CARGO_BIN_EXE_netlab-guest-init"), &init).unwrap();
    // A sibling of the checkout in the host's /tmp, which must stay hidden.
    let other = owned_tmp("checkout-sibling");
    let host_only = other.path().join("host-only");
    std::fs::write(&host_only, "x").unwrap();

    let o = Guest::new(&program)
        .args(helper_args("helper_checkout"))
        .env(HELPER, "checkout")
        .env("HOST_ONLY_FILE", host_only.display().to_string())
        .init(&init, &[])
        .current_dir(checkout.path())
        .run()
        .unwrap();
    assert_eq!(o.status, GuestStatus::Exited(0), "{o:#?}");
    let expect = format!(
        "exe={} cwd={}",
        program.display(),
        checkout.path().display()
    );
    assert!(o.stdout.contains(&expect), "{expect} not in:\n{}", o.stdout);
    let written = std::fs::read_to_string(checkout.path().join("results/from-guest.txt"));
    assert_eq!(written.unwrap(), "written in the checkout\n");
}

/// A program directly in /tmp (whose folder is the guest's own /tmp) is
/// given back alone.
#[test]
fn guest_runs_a_program_directly_in_tmp() {
    if !guest_or_skip("guest_runs_a_program_directly_in_tmp", &[]) {
        return;
    }
    let program =
        std::env::temp_dir().join(format!("netlab-guest-test-prog-{}", std::process::id()));
    let _remove = OwnedFile(program.clone());
    std::fs::copy("/bin/echo", &program).unwrap();
    let o = Guest::new(&program)
        .arg("ran-from-tmp")
        .current_dir("/")
        .run()
        .unwrap();
    assert_eq!(o.status, GuestStatus::Exited(0), "{o:#?}");
    assert_eq!(o.stdout.trim(), "ran-from-tmp");
}

struct OwnedFile(PathBuf);

impl Drop for OwnedFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The guest's mount points themselves cannot be shared: refused before
/// boot (the stand-in kernel `/bin/true` is never started).
#[test]
fn sharing_a_guest_mount_point_is_refused() {
    let refused = |g: Guest| match g.spawn() {
        Err(Error::InvalidSetting(m)) => m,
        Err(e) => panic!("expected a refusal, got {e}"),
        Ok(_) => panic!("expected a refusal, the guest started"),
    };
    let stand_in = || {
        Guest::new("/bin/true")
            .kernel("/bin/true")
            .modules_dir("/nonexistent")
    };
    let m = refused(stand_in().current_dir("/tmp"));
    assert!(m.contains("working directory /tmp"), "{m}");
    let m = refused(stand_in().current_dir("/").share_dir("/run"));
    assert!(m.contains("shared folder /run"), "{m}");
}

/// A guest memory too small to boot is named as such, quickly
/// (the kernel stops at once; the deadline is far away).
#[test]
fn guest_memory_too_small_is_named() {
    if !guest_or_skip("guest_memory_too_small_is_named", &[]) {
        return;
    }
    let deadline = Duration::from_secs(20);
    let t = Instant::now();
    let err = Guest::new("/bin/true")
        .mem("16M")
        .deadline(deadline)
        .run()
        .unwrap_err();
    let took = t.elapsed();
    println!("mem=16M refused after {took:?}: {err}");
    match &err {
        Error::MemoryTooSmall { mem, evidence, .. } => {
            assert_eq!(mem, "16M");
            assert!(!evidence.is_empty());
            assert!(
                err.to_string().contains("guest memory 16M is too small"),
                "{err}"
            );
        }
        other => panic!("expected a memory error, got {other}"),
    }
    assert!(took < deadline, "took {took:?}");
}

/// A guest that never powers off (its program sleeps for
/// ever) is stopped by its deadline within the stated time + 1 s, with
/// nothing left.
#[test]
fn guest_that_never_powers_off_is_bounded_by_its_deadline() {
    if !guest_or_skip(
        "guest_that_never_powers_off_is_bounded_by_its_deadline",
        &[],
    ) {
        return;
    }
    let deadline = Duration::from_secs(3);
    let t = Instant::now();
    let guest = Guest::new("/bin/sleep")
        .arg("1000000")
        .deadline(deadline)
        .spawn()
        .unwrap();
    let (pid, dir) = (guest.pid(), guest.run_dir().to_path_buf());
    let err = guest.wait().unwrap_err();
    let took = t.elapsed();
    println!("deadline {deadline:?}: spawn to return {took:?}");
    assert!(matches!(err, Error::DeadlineExceeded { .. }), "{err}");
    assert!(
        took <= deadline + Duration::from_secs(1),
        "deadline {deadline:?} but returned after {took:?}"
    );
    assert!(group_gone(pid), "left: {:?}", live_group_pids(pid));
    assert!(!dir.exists(), "run folder {} left behind", dir.display());
}

/// An interrupt during the guest's boot (kill handle used before init has
/// started) still takes the whole guest down.
#[test]
fn guest_killed_during_boot_leaves_nothing() {
    if !guest_or_skip("guest_killed_during_boot_leaves_nothing", &[]) {
        return;
    }
    let guest = Guest::new("/bin/sleep").arg("1000000").spawn().unwrap();
    let (pid, dir, handle) = (
        guest.pid(),
        guest.run_dir().to_path_buf(),
        guest.kill_handle(),
    );
    let marker = dir.join("init-started");
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        let booting = live_group_pids(pid).contains(&pid) && !marker.exists();
        handle.kill();
        (booting, Instant::now())
    });
    let err = guest.wait().unwrap_err();
    let (booting, killed_at) = killer.join().unwrap();
    println!(
        "killed during boot; torn down {:?} after the kill",
        killed_at.elapsed()
    );
    assert!(
        booting,
        "the kill came after init had started; the test proves nothing"
    );
    assert!(matches!(err, Error::Cancelled), "{err}");
    assert!(
        killed_at.elapsed() < netlab_guest::KILL_GRACE + Duration::from_secs(1),
        "teardown took {:?}",
        killed_at.elapsed()
    );
    assert!(group_gone(pid), "left: {:?}", live_group_pids(pid));
    assert!(!dir.exists(), "run folder {} left behind", dir.display());
}

/// A guest dropped right after starting (the host unwinding in boot) is
/// taken down too.
#[test]
fn guest_dropped_during_boot_leaves_nothing() {
    if !guest_or_skip("guest_dropped_during_boot_leaves_nothing", &[]) {
        return;
    }
    let guest = Guest::new("/bin/sleep").arg("1000000").spawn().unwrap();
    let (pid, dir) = (guest.pid(), guest.run_dir().to_path_buf());
    std::thread::sleep(Duration::from_millis(50));
    drop(guest);
    assert!(
        live_group_pids(pid).is_empty(),
        "left: {:?}",
        live_group_pids(pid)
    );
    assert!(!dir.exists(), "run folder {} left behind", dir.display());
}
