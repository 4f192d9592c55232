//! The small subcommands: standalone traffic roles, `guest` and `cleanup`.
//! Each validates its flags (exit 2 with a message naming the flag), then
//! calls one crate.

use std::fmt::Display;
use std::io::Write;

use netlab_probe::role::{run_probe_role, ProbeRole};
use netlab_run::b_loop::run_sink_role;
use netlab_tcpload::role::{run_load_role, LoadRole, SinkRole};

use crate::cli::{CleanupArgs, GuestArgs, KernelAction, KernelArgs, LoadArgs, ProbeArgs, SinkArgs};

fn usage_exit(e: &dyn Display) -> u8 {
    eprintln!("orchestrator: {e}");
    2
}

/// A role built from its flags (refused: exit 2), run writing its JSON
/// lines to stdout (failed: exit 1, said as `orchestrator NAME: …`).
fn role<R, E: Display, F: Display>(
    name: &str,
    built: Result<R, E>,
    run: impl FnOnce(&R, &mut dyn Write) -> Result<(), F>,
) -> u8 {
    let role = match built {
        Ok(r) => r,
        Err(e) => return usage_exit(&e),
    };
    match run(&role, &mut std::io::stdout().lock()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("orchestrator {name}: {e}");
            1
        }
    }
}

/// `orchestrator sink`.
pub fn sink(a: &SinkArgs) -> u8 {
    let built = SinkRole::new(a.listen, Some(a.udp_echo), a.for_secs);
    role("sink", built, |r, out| run_sink_role(r, out))
}

/// `orchestrator load`.
pub fn load(a: &LoadArgs) -> u8 {
    let built = LoadRole::new(a.to, &a.cc, a.for_secs);
    role("load", built, |r, out| run_load_role(r, out))
}

/// `orchestrator probe`: [`netlab_probe::role`].
pub fn probe(a: &ProbeArgs) -> u8 {
    role("probe", ProbeRole::new(a.to, a.end), |r, out| {
        run_probe_role(r, out)
    })
}

/// `orchestrator guest [--kernel uml|uml-6.12] [--module M]… [--mem 1G] [--deadline 60s] -- PROGRAM ARGS…`.
pub fn guest(a: &GuestArgs) -> u8 {
    let Some((program, args)) = a.program.split_first() else {
        return usage_exit(&"a PROGRAM is required after --");
    };
    let init = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("orchestrator guest: cannot find my own binary: {e}");
            return 1;
        }
    };
    let kernel = match netlab_guest::kernels::locate(&a.kernel) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("orchestrator guest: {e}");
            return 2;
        }
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    let guest = netlab_guest::Guest::new(program)
        .guest_kernel(&kernel)
        .args(args.iter().cloned())
        .modules(a.modules.iter().cloned())
        .mem(a.mem.clone())
        .deadline(a.deadline)
        .init(init, &["guest-init"])
        .inherit_all_env()
        .current_dir(cwd)
        .stream_output(true);
    match guest.run() {
        Ok(out) => {
            eprintln!(
                "orchestrator guest: kernel {} finished in {:.2}s: {:?}",
                out.release,
                out.elapsed.as_secs_f64(),
                out.status
            );
            out.status.exit_code()
        }
        Err(e) => {
            eprintln!("orchestrator guest: {e}");
            1
        }
    }
}

/// `orchestrator kernel build NAME | list` ([`netlab_guest::kernels::command`]).
pub fn kernel(a: KernelArgs) -> u8 {
    use netlab_guest::kernels::command;
    match (a.action, a.name) {
        (KernelAction::Build, Some(name)) => command::build_command(&command::BuildRequest::new(
            name, a.jobs, a.timeout, a.cache,
        )),
        (KernelAction::Build, None) => usage_exit(&"kernel build needs a NAME (uml-6.12)"),
        (KernelAction::List, _) => command::list_command(),
    }
}

/// `orchestrator cleanup`: removes what dead runs still own
/// ([`netlab_run::cleanup`]); prints receipts.
pub fn cleanup(a: &CleanupArgs) -> u8 {
    let done = netlab_run::cleanup::Cleanup::dead_runs(&a.state_dir);
    for line in done.lines() {
        println!("{line}");
    }
    u8::from(!done.complete())
}
