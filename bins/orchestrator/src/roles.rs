//! The small subcommands: standalone traffic roles, `guest` and `cleanup`.
//! Each validates its flags (exit 2 with a message naming the flag), then
//! calls one crate.

use netlab_probe::role::{run_probe_role, ProbeRole};
use netlab_run::b_loop::run_sink_role;
use netlab_tcpload::role::{run_load_role, LoadRole, SinkRole};

use crate::cli::{CleanupArgs, GuestArgs, LoadArgs, ProbeArgs, SinkArgs};
use crate::config::UsageError;

fn usage_exit(e: &UsageError) -> u8 {
    eprintln!("orchestrator: {e}");
    2
}

/// `orchestrator sink`.
pub fn sink(a: &SinkArgs) -> u8 {
    let role = match SinkRole::new(a.listen, Some(a.udp_echo), a.for_secs)
        .map_err(|e| UsageError(e.to_string()))
    {
        Ok(r) => r,
        Err(e) => return usage_exit(&e),
    };
    let mut out = std::io::stdout().lock();
    match run_sink_role(&role, &mut out) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("orchestrator sink: {e}");
            1
        }
    }
}

/// `orchestrator load`.
pub fn load(a: &LoadArgs) -> u8 {
    let role = match LoadRole::new(a.to, &a.cc, a.for_secs).map_err(|e| UsageError(e.to_string())) {
        Ok(r) => r,
        Err(e) => return usage_exit(&e),
    };
    let mut out = std::io::stdout().lock();
    match run_load_role(&role, &mut out) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("orchestrator load: {e}");
            1
        }
    }
}

/// `orchestrator probe`: [`netlab_probe::role`].
pub fn probe(a: &ProbeArgs) -> u8 {
    let role = match ProbeRole::new(a.to, a.end) {
        Ok(r) => r,
        Err(e) => return usage_exit(&UsageError(e.to_string())),
    };
    let mut out = std::io::stdout().lock();
    match run_probe_role(&role, &mut out) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("orchestrator probe: {e}");
            1
        }
    }
}

/// `orchestrator guest [--module M]… [--mem 1G] [--deadline 60s] -- PROGRAM ARGS…`.
pub fn guest(a: &GuestArgs) -> u8 {
    let deadline = a.deadline;
    let Some((program, args)) = a.program.split_first() else {
        return usage_exit(&UsageError("a PROGRAM is required after --".into()));
    };
    let init = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("orchestrator guest: cannot find my own binary: {e}");
            return 1;
        }
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    let guest = netlab_guest::Guest::new(program)
        .args(args.iter().cloned())
        .modules(a.modules.iter().cloned())
        .mem(a.mem.clone())
        .deadline(deadline)
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
            match out.status {
                netlab_guest::GuestStatus::Exited(c) => c.clamp(0, 255) as u8,
                netlab_guest::GuestStatus::Signaled(s) => (128 + s).clamp(0, 255) as u8,
            }
        }
        Err(e) => {
            eprintln!("orchestrator guest: {e}");
            1
        }
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
