//! `orchestrator`: the thin binary of netlab: flags → a `netlab_run::Session`
//! (or another library call) → an exit code. It parses flags into typed
//! arguments ([`cli`], [`args`]) and maps them to the libraries'
//! configurations ([`config`]), which check themselves; every
//! measurement, the run and its end (`netlab_run::finish`), the merge, the
//! plan listing and the roles live in the crates.
//!
//! Exit codes: 0 success; 1 run failure or refused environment (refused
//! before any network change); 2 bad usage (`--help` is 0).

mod args;
mod cli;
mod compare;
mod config;
mod diff;
mod merge;
mod plan;
mod report;
mod rerun;
mod roles;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    // Before any thread: a long run's heap stays flat.
    netlab_os::heap::keep_heap_flat();
    // The hidden init subcommand must not go through clap's error paths: the
    // kernel passes it whatever it likes.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "guest-init") {
        let rest = std::iter::once(args[0].clone()).chain(args.into_iter().skip(2));
        netlab_guest::init::main_from_args(rest);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap: 0 for --help/--version, 2 for usage errors.
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let code = match cli.command {
        Command::Compare(a) => compare::main(&a),
        Command::Run(a) => compare::run_main(&a),
        Command::Plan(a) => plan::main(&a),
        Command::Merge(a) => merge::main(&a),
        Command::Report(a) => report::main(&a.path, &a.models),
        Command::Diff(a) => diff::main(&a),
        Command::Rerun(a) => rerun::main(&a),
        Command::Cleanup(a) => roles::cleanup(&a),
        Command::Guest(a) => roles::guest(&a),
        Command::Kernel(a) => roles::kernel(a),
        Command::Sink(a) => roles::sink(&a),
        Command::Load(a) => roles::load(&a),
        Command::Probe(a) => roles::probe(&a),
        Command::GuestInit(_) => unreachable!("handled before clap"),
    };
    ExitCode::from(code)
}
