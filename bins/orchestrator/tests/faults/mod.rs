//! Seeded fault trials, shared by the CI test
//! `privileged_faults.rs` and the long-run example `fault_trials`.
//!
//! One trial: start a short `orchestrator compare` (host kernel, or the
//! user-mode-linux guest), wait a delay drawn from a seeded generator, send
//! a fault (SIGINT, SIGTERM, SIGKILL + `orchestrator cleanup`, or SIGKILL to
//! the guest's process group), then check that nothing of that run is left:
//! no namespace named with its run id, no process, no state file, no guest
//! run folder, the host's root-namespace links/routes/qdiscs/sysctls as
//! before, and results.json (when written) valid JSON with schema_version.
//!
//! Everything is bounded; only what the trial started is signalled, by pid
//! (or by the guest's process group, read from this run's own state file
//! and checked against the process start time).

#![allow(dead_code)]

pub mod memory;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use netlab_receipts::{read_state, Resource, DEFAULT_STATE_DIR};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::Value;

/// The seeded generator the bootstrap uses too, so a trial is reproducible
/// from the printed seed.
pub use netlab_stats::SplitMix64;

/// Uniform in `lo..hi` (`hi > lo`), by modulo (the draws every printed seed
/// has always meant).
pub fn range(rng: &mut SplitMix64, lo: u64, hi: u64) -> u64 {
    lo + rng.next_u64() % (hi - lo)
}

/// A seed from the clock, for runs that do not pass one.
pub fn clock_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    t.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
}

/// Which kernel a trial runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// `--kernel host --arm 'pfifo limit 256'`.
    Host,
    /// `--kernel uml` with both default arms.
    Uml,
}

/// What a trial does to the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// SIGINT to the orchestrator: expect exit 130.
    Int,
    /// SIGTERM to the orchestrator: expect exit 143.
    Term,
    /// SIGKILL to the orchestrator (and, for the guest, SIGKILL to the
    /// guest's process group), then `orchestrator cleanup`.
    Kill,
    /// Guest only: SIGKILL to the guest's process group (a crashed guest);
    /// the orchestrator must notice, clean up and exit non-zero.
    GuestCrash,
    /// Control, never drawn: SIGKILL without `orchestrator cleanup`, so
    /// the checks must find what the run left (then it is swept).
    KillWithoutCleanup,
}

impl Fault {
    fn draw(rng: &mut SplitMix64, kernel: Kernel) -> Fault {
        let n = if kernel == Kernel::Uml { 4 } else { 3 };
        match range(rng, 0, n) {
            0 => Fault::Int,
            1 => Fault::Term,
            2 => Fault::Kill,
            _ => Fault::GuestCrash,
        }
    }
}

/// The outcome of one trial.
#[derive(Debug, Clone)]
pub struct Trial {
    /// 1-based.
    pub index: u32,
    /// Kernel.
    pub kernel: Kernel,
    /// The fault sent.
    pub fault: Fault,
    /// Milliseconds from spawn to the fault.
    pub delay_ms: u64,
    /// The orchestrator's pid.
    pub pid: i32,
    /// The (host-side) run id, when one was found.
    pub run_id: Option<String>,
    /// The run had already exited when the fault was due.
    pub finished_before_fault: bool,
    /// How the orchestrator ended (`exit N` or `signal S`).
    pub ended: String,
    /// Exit code, if it exited.
    pub code: Option<i32>,
    /// What is wrong (leftovers, wrong exit, bad results.json); empty = pass.
    pub problems: Vec<String>,
    /// The `interrupted` record of results.json, if present.
    pub interrupted: Option<String>,
    /// Number of scenarios in results.json, if it exists.
    pub scenarios: Option<usize>,
    /// Wall time of the trial (including checks).
    pub elapsed: Duration,
}

impl std::fmt::Display for Trial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "trial {} {:?} fault {:?} at {} ms: pid {} run {} ended {}{}; results.json scenarios {:?}; interrupted {}; {:.1}s; {}",
            self.index,
            self.kernel,
            self.fault,
            self.delay_ms,
            self.pid,
            self.run_id.as_deref().unwrap_or("-"),
            self.ended,
            if self.finished_before_fault {
                " (finished before the fault)"
            } else {
                ""
            },
            self.scenarios,
            self.interrupted.as_deref().unwrap_or("absent"),
            self.elapsed.as_secs_f64(),
            if self.problems.is_empty() {
                "OK".to_string()
            } else {
                format!("PROBLEMS: {}", self.problems.join("; "))
            }
        )
    }
}

/// What a series of trials needs.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The orchestrator binary.
    pub bin: PathBuf,
    /// The generator's seed.
    pub seed: u64,
    /// Host-kernel trials.
    pub host: u32,
    /// Guest-kernel trials.
    pub guest: u32,
    /// Each trial's --out goes under here (removed after each trial).
    pub work: PathBuf,
}

/// The host network state compared before and after a trial: root
/// namespace only (`ip`/`tc` run in this process's namespace).
pub fn host_snapshot() -> String {
    let mut s = String::new();
    for (prog, args) in [
        ("ip", &["-j", "link", "show"][..]),
        ("ip", &["-j", "addr", "show"]),
        ("ip", &["-j", "route", "show", "table", "all"]),
        ("ip", &["-j", "rule", "show"]),
        ("tc", &["-j", "qdisc", "show"]),
    ] {
        let o = Command::new(prog)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{prog} {args:?}: {e}"));
        s.push_str(&format!("== {prog} {}\n", args.join(" ")));
        s.push_str(&String::from_utf8_lossy(&o.stdout));
        s.push('\n');
    }
    for f in [
        "/proc/sys/net/ipv4/ip_forward",
        "/proc/sys/net/ipv4/tcp_ecn",
        "/proc/sys/net/ipv4/tcp_congestion_control",
        "/proc/sys/net/ipv4/conf/all/forwarding",
        "/proc/sys/net/ipv4/conf/all/rp_filter",
        "/proc/sys/net/ipv6/conf/all/forwarding",
        "/proc/sys/net/core/default_qdisc",
    ] {
        s.push_str(&format!(
            "{f} = {}",
            std::fs::read_to_string(f).unwrap_or_else(|e| format!("<{e}>\n"))
        ));
    }
    s
}

/// The lines of `a` and `b` that differ (for a readable failure).
pub fn diff_lines(a: &str, b: &str) -> String {
    let la: Vec<&str> = a.lines().collect();
    let lb: Vec<&str> = b.lines().collect();
    let mut out = Vec::new();
    for l in &la {
        if !lb.contains(l) {
            out.push(format!("- {}", truncate(l, 400)));
        }
    }
    for l in &lb {
        if !la.contains(l) {
            out.push(format!("+ {}", truncate(l, 400)));
        }
    }
    out.join("\n")
}

fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Namespaces under /run/netns whose names carry `run_id`.
pub fn namespaces_of(run_id: &str) -> Vec<String> {
    let prefix = format!("nl-{run_id}-");
    std::fs::read_dir("/run/netns")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&prefix))
                .collect()
        })
        .unwrap_or_default()
}

/// A run's state file found by its owner pid: (run id, guest pid + start time).
#[derive(Debug, Clone, Default)]
pub struct OwnedRun {
    /// The run id.
    pub run_id: Option<String>,
    /// The registered guest kernel, if any.
    pub guest: Option<(i32, u64)>,
}

/// Looks under /run/netlab for the state file whose owner is `pid` with
/// start time `start`.
pub fn run_owned_by(pid: i32, start: u64) -> Option<OwnedRun> {
    let dir = std::fs::read_dir(DEFAULT_STATE_DIR).ok()?;
    for e in dir.flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) != Some("json") {
            continue;
        }
        let Ok(state) = read_state(&p) else { continue };
        if state.owner.pid != pid || state.owner.start_time != start {
            continue;
        }
        let guest = state.resources.iter().find_map(|r| match r {
            Resource::Guest { pid, start_time } => Some((*pid, *start_time)),
            _ => None,
        });
        return Some(OwnedRun {
            run_id: Some(state.run_id.as_str().to_string()),
            guest,
        });
    }
    None
}

/// State files (any run) whose owner is `pid` with start time `start`.
fn state_files_owned_by(pid: i32, start: u64) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(DEFAULT_STATE_DIR) else {
        return Vec::new();
    };
    dir.flatten()
        .map(|e| e.path())
        .filter(|p| read_state(p).is_ok_and(|s| s.owner.pid == pid && s.owner.start_time == start))
        .collect()
}

/// Start time (clock ticks after boot) of a live process.
pub fn start_time_of(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    netlab_os::proc::parse_proc_stat(&text)
        .ok()
        .map(|s| s.start_time)
}

/// Live processes (not this one) whose command line contains `needle`.
pub fn processes_mentioning(needle: &str) -> Vec<(i32, String)> {
    let me = std::process::id() as i32;
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(raw) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&raw).replace('\0', " ");
        if cmd.contains(needle) {
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|t| netlab_os::proc::parse_proc_stat(&t).ok())
                .is_some_and(|s| s.state == 'Z' || s.state == 'X');
            if !zombie {
                out.push((pid, truncate(cmd.trim(), 200).to_string()));
            }
        }
    }
    out
}

/// Guest run folders of host process `pid` (`netlab-guest-<pid>-…`).
pub fn guest_run_dirs_of(pid: i32) -> Vec<PathBuf> {
    let prefix = format!("netlab-guest-{pid}-");
    std::fs::read_dir(std::env::temp_dir())
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

/// A child's stdout/stderr collected by threads.
pub struct Captured {
    pub stdout: Arc<Mutex<String>>,
    pub stderr: Arc<Mutex<String>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Captured {
    /// Collects the child's piped stdout and stderr.
    pub fn of(child: &mut Child) -> Captured {
        let stdout = Arc::new(Mutex::new(String::new()));
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut threads = Vec::new();
        if let Some(mut o) = child.stdout.take() {
            let buf = stdout.clone();
            threads.push(std::thread::spawn(move || pump(&mut o, &buf)));
        }
        if let Some(mut e) = child.stderr.take() {
            let buf = stderr.clone();
            threads.push(std::thread::spawn(move || pump(&mut e, &buf)));
        }
        Captured {
            stdout,
            stderr,
            threads,
        }
    }

    /// Waits (bounded) for the pipes to close and returns (stdout, stderr).
    pub fn finish(self, limit: Duration) -> (String, String) {
        let end = Instant::now() + limit;
        for t in self.threads {
            while !t.is_finished() && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(20));
            }
            if t.is_finished() {
                let _ = t.join();
            }
        }
        let o = self.stdout.lock().unwrap().clone();
        let e = self.stderr.lock().unwrap().clone();
        (o, e)
    }
}

fn pump(r: &mut impl Read, buf: &Mutex<String>) {
    let mut chunk = [0u8; 8192];
    loop {
        match r.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf
                .lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&chunk[..n])),
        }
    }
}

/// Waits for `child` up to `limit`; past it, SIGKILLs it (our own child,
/// by pid) and returns `None`.
pub fn wait_bounded(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let end = Instant::now() + limit;
    loop {
        if let Ok(Some(s)) = child.try_wait() {
            return Some(s);
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `bin args` to completion within `limit`: (exit code, stdout, stderr).
pub fn run_bounded(bin: &Path, args: &[&str], limit: Duration) -> (Option<i32>, String, String) {
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning orchestrator");
    let cap = Captured::of(&mut child);
    let status = wait_bounded(&mut child, limit);
    let (o, e) = cap.finish(Duration::from_secs(5));
    (status.and_then(|s| s.code()), o, e)
}

/// The run id printed by the host run (`run <id> on host kernel`).
fn run_id_from_stderr(stderr: &str) -> Option<String> {
    stderr.lines().find_map(|l| {
        let rest = l.split("] run ").nth(1)?;
        if !rest.contains(" kernel ") {
            return None;
        }
        rest.split_whitespace().next().map(str::to_string)
    })
}

fn compare_args(kernel: Kernel, out: &Path) -> Vec<String> {
    let mut v: Vec<String> = ["compare", "--kernel"].map(String::from).to_vec();
    match kernel {
        Kernel::Host => v.extend(["host", "--arm", "pfifo limit 256"].map(String::from)),
        Kernel::Uml => v.push("uml".into()),
    }
    v.extend(
        [
            "--rounds",
            "2",
            "--baseline",
            "1s",
            "--warmup",
            "1s",
            "--measure",
            "2s",
        ]
        .map(String::from),
    );
    v.push("--out".into());
    v.push(out.to_string_lossy().into_owned());
    v
}

/// Longest delay drawn: about the length of an undisturbed run, so some
/// trials hit the teardown or even finish first.
fn max_delay_ms(kernel: Kernel) -> u64 {
    match kernel {
        Kernel::Host => 10_000,
        Kernel::Uml => 21_000,
    }
}

/// Sends SIGKILL to the guest's process group, after checking that its
/// leader is still the process the run registered (pid + start time).
fn kill_guest_group(guest: Option<(i32, u64)>, notes: &mut Vec<String>) {
    let Some((pid, start)) = guest else {
        notes.push("no guest registered in the state file yet".into());
        return;
    };
    match start_time_of(pid) {
        Some(t) if t == start => {
            let _ = kill(Pid::from_raw(-pid), Signal::SIGKILL);
        }
        Some(_) => notes.push(format!(
            "guest pid {pid} now belongs to another process: not signalled"
        )),
        None => notes.push(format!("guest pid {pid} already gone")),
    }
}

/// Draws a fault and its delay, runs that trial.
pub fn run_drawn_trial(
    bin: &Path,
    work: &Path,
    kernel: Kernel,
    index: u32,
    rng: &mut SplitMix64,
) -> Trial {
    let fault = Fault::draw(rng, kernel);
    let delay_ms = range(rng, 50, max_delay_ms(kernel));
    run_trial(bin, work, kernel, index, fault, delay_ms)
}

/// Runs one trial: `fault` `delay_ms` after the spawn; checks what it left.
pub fn run_trial(
    bin: &Path,
    work: &Path,
    kernel: Kernel,
    index: u32,
    fault: Fault,
    delay_ms: u64,
) -> Trial {
    let started = Instant::now();
    let out = work.join(format!("trial-{index}"));
    let _ = std::fs::remove_dir_all(&out);
    let before = host_snapshot();
    let args = compare_args(kernel, &out);
    let mut child = Command::new(bin)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning orchestrator compare");
    let pid = child.id() as i32;
    let cap = Captured::of(&mut child);
    let child_start = start_time_of(pid).unwrap_or(0);
    let mut problems = Vec::new();
    let mut notes = Vec::new();

    // Wait for the fault's moment, remembering the run's state file
    // (its run id and guest) while the run is alive.
    let fault_at = started + Duration::from_millis(delay_ms);
    let mut owned = OwnedRun::default();
    let mut early_status = None;
    while Instant::now() < fault_at {
        if let Some(o) = run_owned_by(pid, child_start) {
            owned = o;
        }
        if let Ok(Some(s)) = child.try_wait() {
            early_status = Some(s);
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let finished_before_fault = early_status.is_some();
    if !finished_before_fault {
        if let Some(o) = run_owned_by(pid, child_start) {
            owned = o;
        }
        match fault {
            Fault::Int => {
                let _ = kill(Pid::from_raw(pid), Signal::SIGINT);
            }
            Fault::Term => {
                let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
            }
            Fault::Kill | Fault::KillWithoutCleanup => {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                if kernel == Kernel::Uml {
                    kill_guest_group(owned.guest, &mut notes);
                }
            }
            Fault::GuestCrash => kill_guest_group(owned.guest, &mut notes),
        }
    }
    let limit = match kernel {
        Kernel::Host => Duration::from_secs(60),
        Kernel::Uml => Duration::from_secs(150),
    };
    let status = early_status.or_else(|| wait_bounded(&mut child, limit));
    let (stdout, stderr) = cap.finish(Duration::from_secs(10));
    let (ended, code, signal) = match status {
        None => {
            problems.push(format!(
                "did not end within {limit:?} of the fault (killed)"
            ));
            ("hung".to_string(), None, None)
        }
        Some(s) => {
            use std::os::unix::process::ExitStatusExt;
            match (s.code(), s.signal()) {
                (Some(c), _) => (format!("exit {c}"), Some(c), None),
                (None, Some(sig)) => (format!("signal {sig}"), None, Some(sig)),
                _ => ("unknown".to_string(), None, None),
            }
        }
    };
    if owned.run_id.is_none() && kernel == Kernel::Host {
        owned.run_id = run_id_from_stderr(&stderr);
    }
    let completed = stdout.contains("results: ");

    // Exit status.
    if finished_before_fault || (code == Some(0) && completed) {
        if code != Some(0) {
            problems.push(format!("finished before the fault with {ended}"));
        }
    } else {
        match fault {
            Fault::Int | Fault::Term => {
                let want = if fault == Fault::Int { 130 } else { 143 };
                let sig = if fault == Fault::Int { 2 } else { 15 };
                if code == Some(want) {
                } else if signal == Some(sig) && owned.run_id.is_none() {
                    notes.push(format!(
                        "died by the signal's default action before any state file existed ({ended})"
                    ));
                } else {
                    problems.push(format!("expected exit {want}, got {ended}"));
                }
            }
            Fault::Kill | Fault::KillWithoutCleanup => {
                if signal != Some(9) && code.is_some_and(|c| c != 0) {
                    problems.push(format!("expected death by SIGKILL, got {ended}"));
                }
            }
            Fault::GuestCrash => {
                if code == Some(0) {
                    problems.push("exit 0 although the guest was killed".into());
                }
            }
        }
    }

    // After SIGKILL (or a hang) only `orchestrator cleanup` can remove what is left.
    let mut cleanup_out = String::new();
    if fault == Fault::Kill || status.is_none() {
        let (c, o, e) = run_bounded(bin, &["cleanup"], Duration::from_secs(90));
        cleanup_out = format!("cleanup exit {c:?}\n{o}\n{e}");
        if c.is_none() {
            problems.push("orchestrator cleanup did not end within 90 s".into());
        }
    }

    // Leftovers; processes get a short grace to be reaped by the kernel.
    let settle = Instant::now() + Duration::from_secs(5);
    let needle = out.to_string_lossy().into_owned();
    let umid = format!("umid=netlab-guest-{pid}-");
    let leftovers = loop {
        let mut left = Vec::new();
        if let Some(id) = &owned.run_id {
            let ns = namespaces_of(id);
            if !ns.is_empty() {
                left.push(format!("namespaces {ns:?}"));
            }
            let state = Path::new(DEFAULT_STATE_DIR).join(format!("{id}.json"));
            if state.exists() {
                left.push(format!("state file {}", state.display()));
            }
        }
        let states = state_files_owned_by(pid, child_start);
        if !states.is_empty() {
            left.push(format!("state files owned by pid {pid}: {states:?}"));
        }
        for needle in [needle.as_str(), umid.as_str()] {
            let procs = processes_mentioning(needle);
            if !procs.is_empty() {
                left.push(format!("processes {procs:?}"));
            }
        }
        if let Some((gpid, _)) = owned.guest {
            let g = netlab_guest::live_process_group(gpid as u32);
            if !g.is_empty() {
                left.push(format!("guest process group {gpid}: {g:?}"));
            }
        }
        let dirs = guest_run_dirs_of(pid);
        if !dirs.is_empty() {
            left.push(format!("guest run folders {dirs:?}"));
        }
        if left.is_empty() || Instant::now() > settle {
            break left;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    if !leftovers.is_empty() && fault != Fault::Kill {
        // Leave the machine clean even when the run did not: a sweep by
        // `orchestrator cleanup` (dead runs only), noted in the report.
        let (c, o, _) = run_bounded(bin, &["cleanup"], Duration::from_secs(90));
        notes.push(format!(
            "swept by `orchestrator cleanup` (exit {c:?}): {}",
            o.trim()
        ));
    }
    problems.extend(leftovers);

    // The host's root namespace: a few tries, in case another test's
    // transient link shows up in the middle (ours would persist).
    let mut after = host_snapshot();
    for _ in 0..4 {
        if after == before {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
        after = host_snapshot();
    }
    if after != before {
        problems.push(format!(
            "host network state changed:\n{}",
            diff_lines(&before, &after)
        ));
    }

    // results.json: never truncated; schema_version; scenarios in order.
    let mut interrupted = None;
    let mut scenarios = None;
    let results = out.join("results.json");
    if results.exists() {
        match std::fs::read_to_string(&results)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| e.to_string()))
        {
            Err(e) => problems.push(format!("results.json does not parse: {e}")),
            Ok(v) => {
                if v.get("schema_version").and_then(Value::as_u64).is_none() {
                    problems.push("results.json has no schema_version".into());
                }
                if let Some(i) = v.get("interrupted").filter(|i| !i.is_null()) {
                    interrupted = Some(i.to_string());
                }
                match v.get("scenarios").and_then(Value::as_array) {
                    None => problems.push("results.json has no scenarios array".into()),
                    Some(list) => {
                        scenarios = Some(list.len());
                        // Complete up to where it stopped: only the last
                        // scenario may carry an error, and only when the
                        // run records that it was interrupted.
                        for (i, s) in list.iter().enumerate() {
                            let last = i + 1 == list.len();
                            let error = s.get("error").filter(|e| !e.is_null());
                            if let Some(e) = error {
                                if !last || interrupted.is_none() {
                                    problems.push(format!(
                                        "results.json scenario {} has an error: {e}",
                                        i + 1
                                    ));
                                }
                            }
                            if s.get("index").and_then(Value::as_u64) != Some(i as u64 + 1) {
                                problems.push(format!(
                                    "results.json scenario {} has index {:?}",
                                    i + 1,
                                    s.get("index")
                                ));
                            }
                        }
                    }
                }
            }
        }
    } else if completed {
        problems.push("the run finished but results.json is missing".into());
    }

    let trial = Trial {
        index,
        kernel,
        fault,
        delay_ms,
        pid,
        run_id: owned.run_id.clone(),
        finished_before_fault,
        ended,
        code,
        problems,
        interrupted,
        scenarios,
        elapsed: started.elapsed(),
    };
    if !trial.problems.is_empty() || !notes.is_empty() {
        eprintln!(
            "{trial}\n  notes: {notes:?}\n  stderr tail:\n{}\n  {cleanup_out}",
            tail(&stderr, 15)
        );
    }
    let _ = std::fs::remove_dir_all(&out);
    trial
}

fn tail(text: &str, n: usize) -> String {
    let v: Vec<&str> = text.lines().collect();
    v[v.len().saturating_sub(n)..].join("\n")
}

/// Runs `plan.host` host trials, then `plan.guest` guest trials, printing
/// each; returns them all.
pub fn run_plan(plan: &Plan) -> Vec<Trial> {
    std::fs::create_dir_all(&plan.work).expect("creating the trials folder");
    println!(
        "fault trials: seed {:#018x}, {} host + {} guest, binary {}",
        plan.seed,
        plan.host,
        plan.guest,
        plan.bin.display()
    );
    let mut rng = SplitMix64::new(plan.seed);
    let mut trials = Vec::new();
    let kernels = std::iter::repeat_n(Kernel::Host, plan.host as usize)
        .chain(std::iter::repeat_n(Kernel::Uml, plan.guest as usize));
    for (i, k) in kernels.enumerate() {
        let t = run_drawn_trial(&plan.bin, &plan.work, k, i as u32 + 1, &mut rng);
        println!("{t}");
        trials.push(t);
    }
    let _ = std::fs::remove_dir_all(&plan.work);
    trials
}

/// One line per kernel: trials, failures, exit codes seen, time.
pub fn summarize(trials: &[Trial]) -> String {
    let mut s = String::new();
    for k in [Kernel::Host, Kernel::Uml] {
        let of: Vec<&Trial> = trials.iter().filter(|t| t.kernel == k).collect();
        if of.is_empty() {
            continue;
        }
        let mut ends: std::collections::BTreeMap<String, u32> = Default::default();
        for t in &of {
            *ends
                .entry(format!("{:?}->{}", t.fault, t.ended))
                .or_default() += 1;
        }
        let bad = of.iter().filter(|t| !t.problems.is_empty()).count();
        let with_interrupted = of.iter().filter(|t| t.interrupted.is_some()).count();
        let secs: f64 = of.iter().map(|t| t.elapsed.as_secs_f64()).sum();
        s.push_str(&format!(
            "{k:?}: {} trials, {bad} with leftovers or problems, {} finished before the fault, {with_interrupted} with an `interrupted` record, {secs:.0}s; outcomes {ends:?}\n",
            of.len(),
            of.iter().filter(|t| t.finished_before_fault).count(),
        ));
    }
    s
}
