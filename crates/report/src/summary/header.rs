//! summary.md's title block (run, kernel, rounds, arms, bottleneck, the
//! sweep) and the banners of an interrupted, sharded or merged run.

use std::fmt::Write as _;

use netlab_results::merge::index_ranges;
use netlab_results::Results;

/// The summary's title block: run, kernel, rounds, arms, bottleneck(s),
/// and what the method's experiment does not have (base RTT, flows).
/// `listed`: the plan indices of the scenarios the run kept.
pub fn header(results: &Results, listed: &[u32]) -> String {
    let exp = &results.experiment;
    let path = exp.path.clone().unwrap_or_default();
    let shaper = |sh: &Option<netlab_experiment::file::ShaperFile>| {
        sh.as_ref().filter(|s| s.shaped != Some(false)).map(|s| {
            format!(
                "rate {} burst {} limit {}",
                s.rate.clone().unwrap_or_default(),
                s.burst.clone().unwrap_or_default(),
                s.limit.clone().unwrap_or_default()
            )
        })
    };
    let tbf = match (shaper(&path.up), shaper(&path.down)) {
        (Some(up), None) => up,
        (None, Some(down)) => format!("down {down}"),
        (Some(up), Some(down)) => format!("up {up}; down {down}"),
        (None, None) => "none (unshaped)".into(),
    };
    let mut extra = String::new();
    if let Some(rtt) = path
        .base_rtt
        .as_ref()
        .filter(|r| netlab_experiment::units::parse_duration(r, true).is_ok_and(|d| !d.is_zero()))
    {
        let _ = write!(extra, " Base RTT {rtt} (netem at R's roots).");
    }
    let flows = exp.flows.clone().unwrap_or_default();
    if flows.len() > 1 {
        let count = |d: &str| {
            flows
                .iter()
                .filter(|f| f.direction.as_deref().unwrap_or("up") == d)
                .count()
        };
        let _ = write!(extra, " Flows: {} up, {} down.", count("up"), count("down"));
    }
    extra.push_str(&sweep_text(results));
    let arms = exp.arms.clone().unwrap_or_default();
    let mut banner = results
        .interrupted
        .as_ref()
        .map(|i| format!("{}\n\n", interrupted_banner(i, listed)))
        .unwrap_or_default();
    if let Some(sh) = &results.shard {
        let _ = write!(
            banner,
            "Shard {}/{} of the plan (`run --shard`): plan indices {} of {} unit(s); \
             `orchestrator merge` puts the shards together.{}\n\n",
            sh.k,
            sh.n,
            index_ranges(&sh.plan_indices),
            sh.units_total,
            if results.resumed_from.is_empty() {
                String::new()
            } else {
                format!(
                    " Resumed (`--resume`) from run(s) {}.",
                    results.resumed_from.join(", ")
                )
            }
        );
    }
    if let Some(m) = &results.merged {
        let _ = write!(
            banner,
            "Merged by `orchestrator merge` from {} folder(s): {} of {} planned scenarios{}. \
             Experiment {}.\n\n",
            m.sources.len(),
            listed.len(),
            m.planned,
            if m.missing.is_empty() {
                String::new()
            } else {
                format!(
                    " — **partial: plan indices {} missing**",
                    index_ranges(&m.missing)
                )
            },
            results.experiment_hash.as_deref().unwrap_or("?")
        );
    }
    format!(
        "# netlab comparison {}\n\n{banner}Kernel: {}. Rounds: {}. Arms: {}. TBF {}.{extra}\nResults: results.json (every raw sample).",
        results.run_id,
        kernel_line(&results.kernel.describe(), &results.kernel.chosen_because),
        exp.rounds.unwrap_or(1),
        arms.join(" | "),
        tbf,
    )
}

/// The kernel a run ran on (`kernel`: its record's one line, as
/// `KernelRecord::describe` gives it) and why, in one line: `uml 6.1.176: the host
/// kernel (6.18.44) lacks codel, fq_codel, netem, pie`, from the reason
/// the run recorded (results.json's `kernel.chosen_because`, which keeps
/// every line of it: which module to load, which flag to pass).
pub fn kernel_line(kernel: &str, because: &str) -> String {
    let why = because.strip_prefix("auto: ").unwrap_or(because);
    let mut lacks: Vec<String> = Vec::new();
    let mut host = None;
    for line in why.lines() {
        for (prefix, what) in [("qdisc ", ""), ("congestion control ", "cc ")] {
            let Some(rest) = line.strip_prefix(prefix) else {
                continue;
            };
            let Some((name, tail)) = rest.split_once(" is not available in this kernel (") else {
                continue;
            };
            lacks.push(format!("{what}{name}"));
            host = tail.split([')', ';']).next().map(str::to_string);
        }
    }
    if !lacks.is_empty() {
        let host = host.map(|h| format!(" ({h})")).unwrap_or_default();
        return format!("{kernel}: the host kernel{host} lacks {}", lacks.join(", "));
    }
    if let Some(has) = why.strip_prefix("the host kernel has ") {
        return format!("{kernel}: the host kernel has {has}");
    }
    // A flag (`--kernel uml`) or anything else: its first line.
    match why.lines().next().unwrap_or("") {
        "" => kernel.to_string(),
        first => format!("{kernel} ({first})"),
    }
}

/// The first thing an interrupted run's summary says: which signal, where,
/// and what that means for the scenarios listed. `kept`: the plan indices
/// of the scenarios the folder holds (a shard's own, those a resumed run
/// took over included; the one the signal stopped may be among them), so
/// a shard never names a scenario another shard ran.
pub fn interrupted_banner(i: &netlab_results::Interrupted, kept: &[u32]) -> String {
    let at = i
        .at_s
        .map(|t| format!(", {t:.1} s after t0"))
        .unwrap_or_default();
    match i.scenario {
        Some(n) => {
            let complete: Vec<u32> = kept.iter().copied().filter(|&k| k != n).collect();
            format!(
                "**Interrupted by {} during scenario {n} ({} phase{at}).** {}; \
                 scenario {n} keeps its samples up to the stop, its error and its cleanup receipts; \
                 the run's later scenarios did not run.",
                i.signal,
                i.phase,
                complete_text(&complete)
            )
        }
        None => format!(
            "**Interrupted by {} {}.** {}; none was cut short.",
            i.signal,
            i.phase,
            complete_text(kept)
        ),
    }
}

/// "Scenarios 1–2, 5 are complete", of exactly these plan indices.
pub fn complete_text(complete: &[u32]) -> String {
    let mut complete = complete.to_vec();
    complete.sort_unstable();
    complete.dedup();
    match complete.as_slice() {
        [] => "No scenario had completed before it".to_string(),
        [one] => format!("Scenario {one} is complete"),
        _ => format!("Scenarios {} are complete", index_ranges(&complete)),
    }
}

/// ` Sweep: rate 2mbit, 20mbit × flows 1, 2 (4 points; …).`, or nothing
/// without a sweep.
fn sweep_text(results: &Results) -> String {
    let mut extra = String::new();
    if let Ok(e) = results.experiment() {
        if !e.sweep.axes.is_empty() {
            let axes: Vec<String> = e
                .sweep
                .axes
                .iter()
                .map(|axis| {
                    let labels: Vec<String> = axis.iter().map(|v| v.label()).collect();
                    let name = labels[0].split('=').next().unwrap_or("").to_string();
                    let values: Vec<&str> = labels
                        .iter()
                        .map(|l| l.split_once('=').map_or(l.as_str(), |(_, v)| v))
                        .collect();
                    format!("{name} {}", values.join(", "))
                })
                .collect();
            let _ = write!(
                extra,
                " Sweep: {} ({} points; a swept axis replaces the value given above).",
                axes.join(" × "),
                netlab_experiment::plan::point_count(&e.sweep)
            );
        }
    }
    extra
}
