//! Soak (issue 14 §6): one long host-kernel run of short scenarios
//! (default 20 rounds of pfifo, 1 s / 1 s / 2 s phases), sampling the
//! orchestrator's /proc/<pid>/status (VmHWM, VmRSS) and its open file
//! descriptors every 100 ms. Prints, per scenario, the highest VmRSS and the
//! fewest open fds seen while it ran, and the peak VmHWM; exits 1 if the
//! run failed or left its namespaces or state file. Needs root.
//!
//! ```sh
//! cargo build -p orchestrator --bins --examples
//! target/debug/examples/soak [--rounds 20] [--bin PATH]
//! ```

#[path = "../tests/faults/mod.rs"]
mod faults;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn status_kb(pid: u32, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines()
        .find(|l| l.starts_with(key))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn open_fds(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

/// The scenario number in the last progress line (`scenario 3/20 …`).
fn current_scenario(stderr: &str) -> Option<u32> {
    stderr.lines().rev().find_map(|l| {
        let rest = l.split("scenario ").nth(1)?;
        rest.split('/').next()?.parse().ok()
    })
}

fn main() {
    let mut rounds = 20u32;
    let mut bin = std::env::current_exe()
        .ok()
        .and_then(|p| Some(p.parent()?.parent()?.join("orchestrator")))
        .unwrap_or_else(|| PathBuf::from("orchestrator"));
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--rounds N")
            }
            "--bin" => bin = PathBuf::from(args.next().expect("--bin PATH")),
            _ => {
                eprintln!("usage: soak [--rounds N] [--bin PATH]");
                std::process::exit(2);
            }
        }
    }
    let out = std::env::temp_dir().join(format!("netlab-soak-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let before = faults::host_snapshot();
    let rounds_s = rounds.to_string();
    let started = Instant::now();
    let mut child = Command::new(&bin)
        .args([
            "compare",
            "--kernel",
            "host",
            "--arm",
            "pfifo limit 256",
            "--rounds",
            &rounds_s,
            "--baseline",
            "1s",
            "--warmup",
            "1s",
            "--measure",
            "2s",
            "--out",
            out.to_str().expect("utf-8 path"),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning orchestrator");
    let pid = child.id();
    let cap = faults::Captured::of(&mut child);
    // scenario -> (max VmRSS kB, min open fds, samples)
    let mut per: BTreeMap<u32, (u64, usize, u32)> = BTreeMap::new();
    let mut hwm = 0u64;
    let limit = Duration::from_secs(30 + 10 * u64::from(rounds));
    let status = loop {
        if let Ok(Some(s)) = child.try_wait() {
            break Some(s);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        let scenario = current_scenario(&cap.stderr.lock().unwrap()).unwrap_or(0);
        if let (Some(h), Some(rss), Some(fds)) = (
            status_kb(pid, "VmHWM:"),
            status_kb(pid, "VmRSS:"),
            open_fds(pid),
        ) {
            hwm = hwm.max(h);
            let e = per.entry(scenario).or_insert((0, usize::MAX, 0));
            e.0 = e.0.max(rss);
            e.1 = e.1.min(fds);
            e.2 += 1;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let (stdout, stderr) = cap.finish(Duration::from_secs(5));
    println!("scenario  max VmRSS kB  min open fds  samples");
    for (s, (rss, fds, n)) in &per {
        println!("{s:>8}  {rss:>12}  {fds:>12}  {n:>7}");
    }
    let code = status.and_then(|s| s.code());
    println!(
        "soak: {rounds} rounds ({} scenarios), exit {code:?}, {:.0}s, peak VmHWM {hwm} kB",
        rounds,
        started.elapsed().as_secs_f64()
    );
    let mut bad = code != Some(0);
    if bad {
        println!("stdout:\n{stdout}\nstderr tail:\n{}", faults_tail(&stderr));
    }
    if let Some(id) = run_id(&out) {
        let ns = faults::namespaces_of(&id);
        let state = Path::new("/run/netlab").join(format!("{id}.json"));
        if !ns.is_empty() || state.exists() {
            println!(
                "left behind: namespaces {ns:?}, state file exists: {}",
                state.exists()
            );
            bad = true;
        }
    }
    let after = faults::host_snapshot();
    if after != before {
        println!(
            "host network state changed:\n{}",
            faults::diff_lines(&before, &after)
        );
        bad = true;
    }
    let _ = std::fs::remove_dir_all(&out);
    std::process::exit(i32::from(bad));
}

fn run_id(out: &Path) -> Option<String> {
    let text = std::fs::read_to_string(out.join("results.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("run_id")?.as_str().map(str::to_string)
}

fn faults_tail(text: &str) -> String {
    let v: Vec<&str> = text.lines().collect();
    v[v.len().saturating_sub(20)..].join("\n")
}
