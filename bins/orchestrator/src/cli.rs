//! The command line: the subcommands, each the `Args` of its module under
//! [`crate::commands`], and the flag types several commands share. Each
//! flag's value is parsed into its type by clap, through the value parsers
//! of [`crate::flags`] or clap's own ranged integers, so a bad value is
//! clap's error naming the flag (exit 2); what depends on several flags at
//! once is checked by the command's configuration.

use clap::{Args, Parser, Subcommand};

use crate::commands;

/// netlab: real, bounded, honest comparisons of Linux queue disciplines at a
/// shaped bottleneck.
#[derive(Debug, Parser)]
#[command(name = "orchestrator", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the whole comparison (method §1–§9) and write results.json and summary.md.
    Compare(Box<commands::compare::CompareArgs>),
    /// Run an experiment described in a TOML file (see experiments/).
    Run(commands::run::RunArgs),
    /// Print an experiment's plan: plan index, sweep point, round, arm, seed, unit; its content hash and the netlab version (touches nothing).
    Plan(commands::plan::PlanArgs),
    /// Merge shard folders of one experiment into one results folder (results.json, summary.md, the report).
    Merge(commands::merge::MergeArgs),
    /// Re-render a results folder's report (plots, index.html, .flent.gz) and summary.md from its results.json.
    Report(commands::report::ReportArgs),
    /// What changed between two runs: the setup item by item, and each arm's metrics over A's rounds against B's (touches nothing).
    Diff(commands::diff::DiffArgs),
    /// Run the experiment a results folder records again (its seeds, order and kernel), then diff the new run against it.
    Rerun(commands::rerun::RerunArgs),
    /// Remove what dead netlab runs still own (namespaces, children, guests), and nothing else.
    Cleanup(commands::cleanup::CleanupArgs),
    /// Run one program inside a pinned user-mode-linux kernel and return its exit status.
    Guest(commands::roles::GuestArgs),
    /// Build (`kernel build uml-6.12`) or list the guest kernels netlab builds from Debian's source packages.
    Kernel(commands::kernel::KernelArgs),
    /// Standalone receiver: TCP sink with pattern validation plus the UDP echo, one poll loop.
    Sink(commands::roles::SinkArgs),
    /// Standalone TCP load sender.
    Load(commands::roles::LoadArgs),
    /// Standalone UDP echo probe client.
    Probe(commands::roles::ProbeArgs),
    /// Internal: init process inside the user-mode-linux guest.
    #[command(hide = true)]
    GuestInit(GuestInitArgs),
}

/// `orchestrator guest-init` (hidden).
#[derive(Debug, Args)]
pub struct GuestInitArgs {
    /// Whatever the kernel passes to init.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}
