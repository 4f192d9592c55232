//! `orchestrator`: netlab's commands. Each command is one module of
//! [`commands`], holding its flags (a clap `Args`, their values parsed by
//! [`flags`]), its configuration and its steps; [`cli`] lists the
//! subcommands. Every measurement, the run and its end
//! (`netlab_run::Session`, `netlab_run::finish`), the results format and
//! the report live in the crates the commands call.
//!
//! Exit codes: 0 success; 1 run failure or refused environment (refused
//! before any network change); 2 bad usage (`--help` is 0).

mod cli;
mod commands;
mod flags;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::commands::{cleanup, compare, diff, kernel, merge, plan, report, rerun, roles, run};

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
        Command::Run(a) => run::main(&a),
        Command::Plan(a) => plan::main(&a),
        Command::Merge(a) => merge::main(&a),
        Command::Report(a) => report::main(&a.path, &a.models),
        Command::Diff(a) => diff::main(&a),
        Command::Rerun(a) => rerun::main(&a),
        Command::Cleanup(a) => cleanup::main(&a),
        Command::Guest(a) => roles::guest(&a),
        Command::Kernel(a) => kernel::main(a),
        Command::Sink(a) => roles::sink(&a),
        Command::Load(a) => roles::load_role(&a),
        Command::Probe(a) => roles::probe(&a),
        Command::GuestInit(_) => unreachable!("handled before clap"),
    };
    ExitCode::from(code)
}
