//! `orchestrator plan FILE.toml`: the experiment's scenarios, without root
//! and without touching anything, as [`PlanListing`] lists them (a table,
//! or JSON with `--json`); `--shards N` adds the shard that runs each unit.
//! Before them: each warning's cause once with its fix (or that none is
//! needed), the kernel the plan needs and the wall time to expect.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use netlab_experiment::{Experiment, KernelChoice, PlanListing, Requirements};

use crate::flags;

/// `orchestrator plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The experiment file (TOML).
    pub experiment: PathBuf,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also say which shard of N runs each unit.
    #[arg(long, value_name = "N", value_parser = flags::shards)]
    pub shards: Option<u32>,
}

/// Prints the configuration's warnings (method §2.5) to stderr, each
/// cause once with the arms and points it concerns and its fix. The links
/// are taken as the kernel leaves them (MTU 1500, offloads on) until the
/// experiment records its offload state.
pub fn print_warnings(cmd: &str, exp: &Experiment) {
    for w in netlab_experiment::grouped(&netlab_experiment::warnings(exp)) {
        eprintln!("orchestrator {cmd}: {w}");
    }
}

/// What the run will find of the kernels, read without root: the host's
/// release and congestion controls (`/proc`), the guest's release and
/// whether it has the modules the plan loads. The host's qdiscs can only
/// be probed as root, in a namespace of the run's own: `compare` and
/// `run` do that first.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelsSeen {
    /// The running kernel's release.
    pub host_release: String,
    /// The running kernel's congestion controls, when readable.
    pub host_ccs: Option<Vec<String>>,
    /// The guest's release, or why it cannot be used.
    pub guest: Result<String, String>,
}

impl KernelsSeen {
    /// This machine's, for the plan's requirements.
    fn here(req: &Requirements) -> KernelsSeen {
        let g = netlab_guest::available();
        let modules = netlab_run::kernel::needed_modules(req);
        let names: Vec<&str> = modules.iter().map(String::as_str).collect();
        let guest = match (&g.release, g.problem.clone()) {
            (_, Some(p)) => Err(p),
            (Some(r), None) => match g.check_modules(&names).missing.as_slice() {
                [] => Ok(r.clone()),
                m => Err(format!("user-mode-linux {r} lacks {}", m.join(", "))),
            },
            (None, None) => Err("its release is unknown".into()),
        };
        let ccs = netlab_os::proc::read_sysctl(netlab_run::kernel::AVAILABLE_CCS)
            .ok()
            .map(|t| netlab_run::kernel::parse_cc_list(&t));
        KernelsSeen {
            host_release: netlab_os::kernel_release().unwrap_or_else(|| "unknown".into()),
            host_ccs: ccs,
            guest,
        }
    }
}

/// The kernel the plan needs and the one its run will use, one line.
pub fn kernel_words(req: &Requirements, choice: KernelChoice, seen: &KernelsSeen) -> String {
    let kinds: Vec<&str> = req.qdiscs.iter().map(String::as_str).collect();
    let ccs: Vec<&str> = req.ccs.iter().map(String::as_str).collect();
    let needs = format!(
        "kernel: the plan needs qdiscs {} and congestion control {}",
        kinds.join(", "),
        if ccs.is_empty() {
            "none".into()
        } else {
            ccs.join(", ")
        }
    );
    let guest = match &seen.guest {
        Ok(r) => format!("the user-mode-linux guest {r} (installed, with every module)"),
        Err(why) => format!("the user-mode-linux guest, which cannot run here: {why}"),
    };
    let host = &seen.host_release;
    let lacks: Vec<&str> = match &seen.host_ccs {
        Some(have) => ccs
            .iter()
            .copied()
            .filter(|c| !have.iter().any(|h| h == c))
            .collect(),
        None => Vec::new(),
    };
    let runs = match choice {
        KernelChoice::Uml => format!("it runs in {guest}"),
        KernelChoice::Uml612 => "it runs in the user-mode-linux 6.12 guest, which `orchestrator kernel build uml-6.12` builds and caches (docs/usage.md, \"Guest kernels\")".into(),
        KernelChoice::Host if !lacks.is_empty() => format!(
            "--kernel host is refused: the host kernel {host} lacks congestion control {}",
            lacks.join(", ")
        ),
        KernelChoice::Host => format!(
            "it runs on the host kernel {host}, whose qdiscs are checked as root when the run starts"
        ),
        KernelChoice::Auto if !lacks.is_empty() => format!(
            "the host kernel {host} lacks congestion control {}, so it runs in {guest}",
            lacks.join(", ")
        ),
        KernelChoice::Auto => format!(
            "it runs on the host kernel {host} if that has them all (checked as root when the run starts), else in {guest}"
        ),
    };
    format!("{needs}; {runs}")
}

/// Per-scenario cost beyond its timeline, measured (docs/scale.md §1:
/// about 0.5 s for the default scenario in the guest).
const OVERHEAD_PER_SCENARIO: Duration = Duration::from_millis(500);

/// The wall time to expect: the scenarios' timelines and netlab's
/// measured overhead per scenario, one line.
pub fn wall_words(exp: &Experiment) -> String {
    let plan = exp.plan();
    let timelines = plan.timeline_total();
    let n = plan.scenarios.len() as u32;
    let expected = timelines + OVERHEAD_PER_SCENARIO * n;
    format!(
        "wall time: about {} ({} of scenario timelines, {n} scenario(s) × about 0.5 s of set-up and teardown, docs/scale.md §1; plus the guest's boot once when it runs there)",
        hms(expected),
        hms(timelines)
    )
}

/// `1 h 02 min`, `7 min 12 s`, `42 s`.
fn hms(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    match (s / 3600, s % 3600 / 60, s % 60) {
        (0, 0, s) => format!("{s} s"),
        (0, m, s) => format!("{m} min {s:02} s"),
        (h, m, _) => format!("{h} h {m:02} min"),
    }
}

/// Entry point; returns the exit code (2 for a bad file or flag).
pub fn main(a: &PlanArgs) -> u8 {
    let exp = match netlab_experiment::load(&a.experiment) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("orchestrator plan: {}: {e}", a.experiment.display());
            return 2;
        }
    };
    let shards = a.shards;
    if let Some(n) = shards {
        if let Err(e) = exp.check_shards(n) {
            eprintln!("orchestrator plan: --shards {n}: {e}");
            return 2;
        }
    }
    print_warnings("plan", &exp);
    let about = [
        kernel_words(
            &exp.requirements(),
            exp.kernel,
            &KernelsSeen::here(&exp.requirements()),
        ),
        wall_words(&exp),
    ];
    let l = PlanListing::of(&exp, shards);
    if a.json {
        // stdout stays JSON.
        for line in &about {
            eprintln!("orchestrator plan: {line}");
        }
        match serde_json::to_string_pretty(&l) {
            Ok(t) => println!("{t}"),
            Err(e) => {
                eprintln!("orchestrator plan: {e}");
                return 1;
            }
        }
    } else {
        for line in &about {
            println!("{line}");
        }
        print!("{}", l.table());
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(kinds: &[&str], ccs: &[&str]) -> Requirements {
        Requirements {
            qdiscs: kinds.iter().map(|k| k.to_string()).collect(),
            ccs: ccs.iter().map(|c| c.to_string()).collect(),
        }
    }

    fn seen(guest: Result<&str, &str>) -> KernelsSeen {
        KernelsSeen {
            host_release: "6.18.44".into(),
            host_ccs: Some(vec!["reno".into(), "cubic".into()]),
            guest: guest.map(str::to_string).map_err(str::to_string),
        }
    }

    #[test]
    fn the_plan_says_the_kernel_it_needs_and_which_will_run_it() {
        let r = req(&["cake", "fq_codel", "pfifo", "tbf"], &["reno"]);
        let w = kernel_words(&r, KernelChoice::Auto, &seen(Ok("6.1.176")));
        assert!(
            w.starts_with("kernel: the plan needs qdiscs cake, fq_codel, pfifo, tbf and congestion control reno; it runs on the host kernel 6.18.44 if that has them all"),
            "{w}"
        );
        assert!(
            w.ends_with("else in the user-mode-linux guest 6.1.176 (installed, with every module)"),
            "{w}"
        );
        // A congestion control the host lacks decides it without root.
        let bbr = req(&["pfifo", "tbf"], &["bbr", "cubic"]);
        let w = kernel_words(&bbr, KernelChoice::Auto, &seen(Ok("6.1.176")));
        assert!(w.contains("the host kernel 6.18.44 lacks congestion control bbr, so it runs in the user-mode-linux guest 6.1.176"), "{w}");
        let w = kernel_words(&bbr, KernelChoice::Host, &seen(Ok("6.1.176")));
        assert!(w.contains("--kernel host is refused"), "{w}");
        let w = kernel_words(
            &r,
            KernelChoice::Uml,
            &seen(Err("/usr/bin/linux.uml is missing")),
        );
        assert!(w.ends_with("it runs in the user-mode-linux guest, which cannot run here: /usr/bin/linux.uml is missing"), "{w}");
    }

    #[test]
    fn the_wall_time_is_the_timelines_and_the_overhead() {
        let exp = Experiment::default();
        // The seed: 6 scenarios of 3 + 3 + 12 s.
        assert_eq!(exp.plan().timeline_total(), Duration::from_secs(108));
        let w = wall_words(&exp);
        assert!(
            w.starts_with(
                "wall time: about 1 min 51 s (1 min 48 s of scenario timelines, 6 scenario(s)"
            ),
            "{w}"
        );
        assert_eq!(hms(Duration::from_secs(3725)), "1 h 02 min");
        assert_eq!(hms(Duration::from_secs(42)), "42 s");
    }
}
