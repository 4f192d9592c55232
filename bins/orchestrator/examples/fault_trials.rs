//! Long fault-trial runs: host-kernel and guest-kernel
//! `compare` runs interrupted at seeded random points, each checked for
//! leftovers (see `tests/faults/mod.rs`). Needs root; the guest trials need
//! the user-mode-linux kernel.
//!
//! ```sh
//! cargo build -p orchestrator --bins --examples
//! target/debug/examples/fault_trials --host 50 --guest 20 [--seed 0x1234] [--bin PATH]
//! ```
//!
//! The orchestrator binary defaults to the one built beside this example
//! (`target/<profile>/orchestrator`). Exits 1 when any trial left something
//! or ended wrongly.

#[path = "../tests/faults/mod.rs"]
mod faults;

use std::path::PathBuf;

fn main() {
    let mut host = 50u32;
    let mut guest = 20u32;
    let mut seed = faults::clock_seed();
    let mut bin = std::env::current_exe()
        .ok()
        .and_then(|p| Some(p.parent()?.parent()?.join("orchestrator")))
        .unwrap_or_else(|| PathBuf::from("orchestrator"));
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--host" => host = val().parse().unwrap_or_else(|_| usage("--host N")),
            "--guest" => guest = val().parse().unwrap_or_else(|_| usage("--guest N")),
            "--seed" => {
                let v = val();
                seed = v
                    .strip_prefix("0x")
                    .map_or_else(|| v.parse(), |h| u64::from_str_radix(h, 16))
                    .unwrap_or_else(|_| usage("--seed N (decimal or 0x hex)"));
            }
            "--bin" => bin = PathBuf::from(val()),
            _ => usage(&format!("unknown argument {a}")),
        }
    }
    if !bin.exists() {
        usage(&format!(
            "no orchestrator binary at {} (cargo build -p orchestrator --bins, or --bin PATH)",
            bin.display()
        ));
    }
    let plan = faults::Plan {
        bin,
        seed,
        host,
        guest,
        work: std::env::temp_dir().join(format!("netlab-fault-trials-{}", std::process::id())),
    };
    let started = std::time::Instant::now();
    let trials = faults::run_plan(&plan);
    println!("seed {seed:#018x}");
    print!("{}", faults::summarize(&trials));
    println!("total {:.0}s", started.elapsed().as_secs_f64());
    let bad = trials.iter().filter(|t| !t.problems.is_empty()).count();
    if bad > 0 {
        println!("{bad} trial(s) with problems:");
        for t in trials.iter().filter(|t| !t.problems.is_empty()) {
            println!("  {t}");
        }
        std::process::exit(1);
    }
}

fn usage(msg: &str) -> ! {
    eprintln!(
        "fault_trials: {msg}\nusage: fault_trials [--host N] [--guest N] [--seed N] [--bin PATH]"
    );
    std::process::exit(2);
}
