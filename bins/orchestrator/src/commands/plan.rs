//! `orchestrator plan FILE.toml`: the experiment's scenarios, without root
//! and without touching anything, as [`PlanListing`] lists them (a table,
//! or JSON with `--json`); `--shards N` adds the shard that runs each unit.

use std::path::PathBuf;

use clap::Args;
use netlab_experiment::{Experiment, PlanListing};

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

/// Prints the configuration's warnings (method §2.5) to stderr, each with
/// its fix. The links are taken as the kernel leaves them (MTU 1500,
/// offloads on) until the experiment records its offload state.
pub fn print_warnings(cmd: &str, exp: &Experiment) {
    for w in netlab_experiment::warnings(exp) {
        eprintln!("orchestrator {cmd}: {w}");
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
    let l = PlanListing::of(&exp, shards);
    if a.json {
        match serde_json::to_string_pretty(&l) {
            Ok(t) => println!("{t}"),
            Err(e) => {
                eprintln!("orchestrator plan: {e}");
                return 1;
            }
        }
    } else {
        print!("{}", l.table());
    }
    0
}
