//! Soak: one long host-kernel run of short scenarios
//! (default 20 rounds of pfifo, 1 s / 1 s / 2 s phases), sampling the
//! orchestrator's /proc/<pid>/status (VmHWM, VmRSS) and its open file
//! descriptors every 100 ms. Prints, per scenario, the highest VmRSS and the
//! fewest open fds seen while it ran, the peak VmHWM, and the per-scenario
//! RSS slope (least squares over scenarios 3..N, MB/scenario) with the ratio
//! of the last scenario's highest VmRSS to the third's; exits 1 if the run
//! failed or left its namespaces or state file. Needs root.
//!
//! ```sh
//! cargo build -p orchestrator --bins --examples
//! target/debug/examples/soak [--rounds 20] [--bin PATH]
//! ```

#[path = "../tests/faults/mod.rs"]
mod faults;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use faults::memory::{current_scenario, MemoryWatch};

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
    let mut watch = MemoryWatch::default();
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
        watch.sample(pid, scenario);
        std::thread::sleep(Duration::from_millis(100));
    };
    let (stdout, stderr) = cap.finish(Duration::from_secs(5));
    println!("scenario  max VmRSS kB  VmHWM kB  min open fds  samples");
    for (s, m) in &watch.per {
        println!(
            "{s:>8}  {:>12}  {:>8}  {:>12}  {:>7}",
            m.max_rss_kb, m.hwm_kb, m.min_fds, m.samples
        );
    }
    let code = status.and_then(|s| s.code());
    println!(
        "soak: {rounds} rounds ({} scenarios), exit {code:?}, {:.0}s, peak VmHWM {} kB",
        rounds,
        started.elapsed().as_secs_f64(),
        watch.hwm_kb
    );
    // From the third scenario on (the first two also hold the start-up) to
    // the one before the last (the last also holds the end of the run: the
    // scenarios read back, summary.md and the report).
    let fmt =
        |v: Option<f64>, unit: &str| v.map_or_else(|| "n/a".into(), |v| format!("{v:.3}{unit}"));
    let to = rounds.saturating_sub(1);
    println!(
        "soak: VmRSS slope {} over scenarios 3..{to} (least squares of each scenario's highest VmRSS); scenario {to}/scenario 3 {}; with the end of the run (scenario {rounds}) {} kB",
        fmt(watch.rss_slope_mb(3, to), " MB/scenario"),
        fmt(watch.rss_ratio(3, to), ""),
        watch.per.get(&rounds).map_or(0, |m| m.max_rss_kb)
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
