//! netlab-run: one experiment run from start to end, as a library. A
//! [`Session`] takes a resolved experiment with the run's options
//! ([`SessionConfig`]), checks the results folder, chooses the kernel
//! (this one, or the user-mode-linux guest: [`kernel`]), runs every
//! scenario in plan order (a fresh A–R–B, R's qdiscs, B's loop setting
//! t0, the flows, probes, capture and samplers, each worker joined and
//! every owned namespace deleted with a receipt), streams each finished
//! scenario into results.json through netlab-results, handles SIGINT and
//! SIGTERM (graceful: the scenario stops, what it measured is written),
//! resumes an interrupted folder, and returns a [`RunOutcome`]. The
//! `orchestrator` binary is a shell around it: flags in, exit code out,
//! the summary and report through [`finish::ReportHooks`], the
//! [`RunHooks`] that end a run with them.
//!
//! A caller adds its own workers to every scenario with
//! [`ScenarioHooks`] (see [`hooks`] for when each is called and an
//! example).
//!
//! ```no_run
//! use netlab_run::{RunOutcome, Session, SessionConfig};
//!
//! let exp = netlab_experiment::load(std::path::Path::new("experiment.toml")).unwrap();
//! let mut config = SessionConfig::new(exp, "results/mine".into());
//! config.quiet = true;
//! match Session::new(config).program("mytool").run() {
//!     Ok(RunOutcome::Complete) => println!("done"),
//!     Ok(other) => println!("ended: {other:?}"),
//!     Err(refused) => eprintln!("mytool: {refused}"),
//! }
//! ```
//!
//! # Names
//!
//! Each name says one thing:
//!
//! | name | what it is |
//! |---|---|
//! | `netlab_experiment::Plan` | the experiment's plan: every scenario of every point and round, in order (pure) |
//! | `netlab_experiment::ScenarioPlan` | one planned scenario of it: index, round, point, arm, path, flows, seed |
//! | [`setup::ScenarioSetup`] | that scenario resolved into the crates' values (topology spec, R's egresses, receivers, senders, probes, capture): what the runner executes; once `scenario::plan::ScenarioPlan` in the orchestrator |
//! | [`setup::EgressSetup`], [`setup::FlowSetup`], [`setup::ProbeSetup`], [`setup::IsoProbeSetup`], [`setup::PcapSetup`] | its parts (once `EgressPlan`, `FlowPlan`, …) |
//! | [`Session`] ([`session`]) | the run of the whole experiment: what `compare` and `run` do (once `compare::execute`, `run_here`, `run_in_guest`) |
//! | [`SessionConfig`] | the resolved experiment with the run's options (once the orchestrator's `RunConfig`) |
//! | `orchestrator compare`, `orchestrator plan` | subcommands only: `compare` runs the method's experiment from flags, `plan` lists a plan |
//!
//! # Modules
//!
//! - [`session`]: the run loop (checks, kernel, here or in the guest,
//!   watchdog, interrupts, resume, results streaming);
//! - [`setup`]: a scenario's setup (pure);
//! - [`scenario`]: the runner, its clock, workers and collection;
//! - [`b_loop`]: B's event loop (tcpload's receiver with the probes'
//!   echoes), also the `sink` role's;
//! - [`kernel`]: host or guest, decided from the experiment's requirements;
//! - `netlab_results::resume`: which scenarios of an interrupted folder
//!   are complete (`--resume`), read from its store;
//! - [`hooks`]: [`ScenarioHooks`] and [`RunHooks`];
//! - [`finish`]: the [`RunHooks`] that write summary.md and the report
//!   (`finish::ReportHooks`), and what a command says about its report;
//! - [`progress`], [`machine`]: the progress lines, the `ran_on` record.

#![forbid(unsafe_code)]

pub mod b_loop;
pub mod config;
pub mod finish;
pub mod hooks;
pub mod kernel;
pub mod machine;
pub mod progress;
pub mod scenario;
pub mod session;
pub mod setup;

pub use config::{SessionConfig, GUEST_EXPERIMENT_FILE};
pub use hooks::{
    HookError, NoHooks, RunHooks, ScenarioEnd, ScenarioHooks, ScenarioView, WorkerLogs,
};
pub use session::{RunError, RunOutcome, Session, INTERRUPT_FILE};
pub use setup::ScenarioSetup;
