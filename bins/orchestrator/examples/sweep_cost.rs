//! What a run costs beside its timelines (docs/method.md §3.5): runs the
//! real `orchestrator` once, then prints from its results.json each
//! scenario's steps (setup, start, timeline, end, collect, teardown), their
//! sums, the run's time between scenarios, and its wall time against the
//! sum of its planned timelines, which the same run recorded: that sum is
//! the baseline, so the ratio holds whatever the machine's speed.
//!
//! ```sh
//! cargo build --release -p orchestrator --bins --examples
//! # 1, 4 and 16 pfifo flows (one round each unless --rounds), on each kernel
//! target/release/examples/sweep_cost flows --kernel host
//! target/release/examples/sweep_cost flows --kernel uml
//! # a preset, and the default comparison
//! target/release/examples/sweep_cost run experiments/sparse_flows_quick.toml --kernel uml --target 1.02
//! target/release/examples/sweep_cost compare --target 1.01
//! ```
//!
//! Every word after the mode goes to `orchestrator` as it is, except
//! `--rounds N` (flows only), `--target X` (the ratio the run must not
//! exceed; the bench says whether it held and exits 1 when not) and
//! `--keep` (the results folder is kept; otherwise removed). The results
//! go to a fresh folder in the temp dir. The machine's load (the first
//! figure of `/proc/loadavg`) is printed before and after: a loaded
//! machine slows the steps, not the timelines.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use netlab_results::{Results, ScenarioSteps, StepSums};

/// The flows experiment: one pfifo arm on the default path, 1, 4 and 16
/// Reno uploads, a short timeline.
fn flows_experiment(rounds: u32) -> String {
    format!(
        r#"name = "sweep_cost_flows"
description = "what a scenario costs beside its timeline: 1, 4 and 16 Reno uploads through pfifo"
rounds = {rounds}
arms = ["pfifo limit 256"]

[timeline]
baseline = "1s"
warmup = "1s"
measure = "3s"

[[flows]]
cc = "reno"

[sweep]
flows = [1, 4, 16]
"#
    )
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// The value after `name` in `args`, removed from them with it.
fn take(args: &mut Vec<String>, name: &str) -> Option<String> {
    let i = args.iter().position(|a| a == name)?;
    args.remove(i);
    (i < args.len()).then(|| args.remove(i))
}

fn ms(s: f64) -> String {
    format!("{:7.0}", s * 1e3)
}

/// One scenario's row: its steps in ms and what it cost beyond its
/// planned timeline.
fn row(index: u32, flows: usize, planned_s: f64, elapsed_s: f64, steps: &ScenarioSteps) {
    let cells: Vec<String> = steps.named().iter().map(|(_, v)| ms(*v)).collect();
    println!(
        "{index:>5} {flows:>5} {planned_s:>8.1} {} {:>9.3}",
        cells.join(" "),
        elapsed_s - planned_s
    );
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let Some(mode) = (!args.is_empty()).then(|| args.remove(0)) else {
        eprintln!("usage: sweep_cost flows|run FILE|compare [orchestrator flags] [--rounds N] [--target X] [--keep]");
        std::process::exit(2);
    };
    let target: Option<f64> =
        take(&mut args, "--target").map(|v| v.parse().expect("--target X (a ratio)"));
    let rounds: u32 = take(&mut args, "--rounds").map_or(1, |v| v.parse().expect("--rounds N"));
    let keep = args
        .iter()
        .position(|a| a == "--keep")
        .map(|i| args.remove(i));
    let bin = std::env::current_exe()
        .ok()
        .and_then(|p| Some(p.parent()?.parent()?.join("orchestrator")))
        .unwrap_or_else(|| PathBuf::from("orchestrator"));
    let dir = std::env::temp_dir().join(format!("netlab-sweep-cost-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the bench's folder");
    let out = dir.join("out");
    let mut cmd = Command::new(&bin);
    match mode.as_str() {
        "flows" => {
            let file = dir.join("flows.toml");
            std::fs::write(&file, flows_experiment(rounds)).expect("the flows experiment");
            cmd.arg("run").arg(&file);
        }
        "run" | "compare" => {
            cmd.arg(&mode);
        }
        other => panic!("mode {other:?}: flows, run or compare"),
    }
    cmd.args(&args).arg("--out").arg(&out);
    println!(
        "sweep_cost: {} {} (load {})",
        bin.display(),
        cmd.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" "),
        load()
    );
    let t = Instant::now();
    let status = cmd.status().expect("running orchestrator");
    let process_s = t.elapsed().as_secs_f64();
    let load_after = load();
    let code = report(&out.join("results.json"), process_s, &load_after, target);
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        println!("kept: {}", out.display());
    }
    if !status.success() {
        eprintln!("sweep_cost: orchestrator exited {status}");
        std::process::exit(status.code().unwrap_or(1).max(1));
    }
    std::process::exit(code);
}

/// The least any scenario of `n` flows cost beyond its planned timeline, s.
fn least_beyond(run: &Results, planned: &netlab_experiment::Plan, n: usize) -> f64 {
    run.scenarios
        .iter()
        .filter(|s| s.flows.len() == n)
        .map(|s| {
            let timeline = planned
                .scenarios
                .iter()
                .find(|p| p.index == s.index)
                .map_or(0.0, |p| p.timeline.end().as_secs_f64());
            s.elapsed_s - timeline
        })
        .fold(f64::INFINITY, f64::min)
}

/// Prints the run's steps and its ratio; 1 when `target` was missed.
fn report(results: &Path, process_s: f64, load_after: &str, target: Option<f64>) -> i32 {
    let run = match Results::read(results) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("sweep_cost: {e}");
            return 1;
        }
    };
    let exp = netlab_experiment::Experiment::from_file(&run.experiment).expect("the experiment");
    let planned = exp.plan();
    println!(
        "\n{:>5} {:>5} {:>8} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9}",
        "scen",
        "flows",
        "planned",
        "setup",
        "start",
        "timelin",
        "end",
        "collect",
        "teardn",
        "beyond"
    );
    println!("{:>5} {:>5} {:>8} {:>47} {:>9}", "", "", "s", "ms", "s");
    let mut sums = StepSums::of_header(&run);
    let mut worst: Vec<(usize, f64)> = Vec::new();
    for s in &run.scenarios {
        let planned_s = planned
            .scenarios
            .iter()
            .find(|p| p.index == s.index)
            .map_or(0.0, |p| p.timeline.end().as_secs_f64());
        let steps = s.steps.unwrap_or_default();
        row(s.index, s.flows.len(), planned_s, s.elapsed_s, &steps);
        sums.add(s);
        let beyond = s.elapsed_s - planned_s;
        match worst.iter_mut().find(|(n, _)| *n == s.flows.len()) {
            Some((_, w)) => *w = w.max(beyond),
            None => worst.push((s.flows.len(), beyond)),
        }
    }
    let total = sums.scenarios;
    let cells: Vec<String> = total.named().iter().map(|(_, v)| ms(*v)).collect();
    println!(
        "  sum {:>5} {:>8.1} {}",
        "",
        sums.timelines_s,
        cells.join(" ")
    );
    let elapsed: f64 = run.scenarios.iter().map(|s| s.elapsed_s).sum();
    let between = run.steps.unwrap_or_default();
    println!(
        "\nscenarios {:.3} s = timelines walked {:.3} s + steps beside them {:.3} s",
        elapsed,
        total.timeline_s,
        total.beyond_timeline_s()
    );
    println!(
        "between scenarios {:.3} s (writing files {:.3} s)",
        between.between_s, between.write_s
    );
    worst.sort_by_key(|(n, _)| *n);
    for (n, w) in &worst {
        let least = least_beyond(&run, &planned, *n);
        println!("beyond its timeline at {n} flow(s): most {w:.3} s, least {least:.3} s");
    }
    let ratio = sums.ratio();
    println!(
        "wall {:.3} s for {:.3} s of timelines: {ratio:.4}× (the whole process, guest boot and report included: {process_s:.3} s, {:.4}×); load after {load_after}",
        sums.wall_s,
        sums.timelines_s,
        process_s / sums.timelines_s.max(1e-9),
    );
    // The same work cost the least in some scenario: what the run would
    // have cost had every scenario cost that (a loaded machine stretches
    // the steps, never the timelines).
    let floor: f64 = run
        .scenarios
        .iter()
        .map(|s| least_beyond(&run, &planned, s.flows.len()))
        .sum::<f64>()
        + between.between_s;
    println!(
        "had each scenario cost the least seen at its flow count: {:.4}× (an estimate, not a measurement)",
        (sums.timelines_s + floor) / sums.timelines_s.max(1e-9)
    );
    match target {
        Some(t) if ratio <= t => {
            println!("target ≤ {t}×: holds");
            0
        }
        Some(t) => {
            println!(
                "target ≤ {t}×: missed by {:.3} s",
                sums.wall_s - t * sums.timelines_s
            );
            1
        }
        None => 0,
    }
}
