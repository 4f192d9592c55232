//! The small subcommands: the standalone traffic roles and `guest`.
//! Each validates its flags (exit 2 with a message naming the flag), then
//! calls one crate.

use std::fmt::Display;
use std::io::Write;

use netlab_probe::role::{run_probe_role, ProbeRole};
use netlab_run::b_loop::run_sink_role;
use netlab_tcpload::role::{run_load_role, LoadRole, SinkRole};

use std::net::SocketAddr;
use std::time::Duration;

use clap::{value_parser, Args};

use crate::flags;

/// `orchestrator guest`.
#[derive(Debug, Args)]
pub struct GuestArgs {
    /// A kernel module to load in the guest (dependencies are resolved), repeatable.
    #[arg(long = "module")]
    pub modules: Vec<String>,
    /// Guest memory.
    #[arg(long, default_value = "1G", value_parser = flags::guest_mem)]
    pub mem: String,
    /// Hard deadline for the whole guest.
    #[arg(long, default_value = "60s", value_parser = flags::duration)]
    pub deadline: Duration,
    /// The guest kernel: uml (Debian's user-mode-linux) or uml-6.12 (`orchestrator kernel build uml-6.12`).
    #[arg(long, default_value = "uml")]
    pub kernel: String,
    /// The program and its arguments.
    #[arg(last = true, required = true)]
    pub program: Vec<String>,
}

/// `orchestrator sink`.
#[derive(Debug, Args)]
pub struct SinkArgs {
    /// TCP address to listen on.
    #[arg(long, value_parser = flags::addr)]
    pub listen: SocketAddr,
    /// UDP echo port (same address as --listen).
    #[arg(long, value_parser = value_parser!(u16).range(1..))]
    pub udp_echo: u16,
    /// Lifetime in seconds.
    #[arg(long = "for", value_parser = flags::seconds)]
    pub for_secs: Duration,
}

/// `orchestrator load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Receiver address.
    #[arg(long, value_parser = flags::addr)]
    pub to: SocketAddr,
    /// Congestion control.
    #[arg(long, default_value = "reno", value_parser = flags::cc)]
    pub cc: String,
    /// Lifetime in seconds.
    #[arg(long = "for", value_parser = flags::seconds)]
    pub for_secs: Duration,
}

/// `orchestrator probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Echo responder address.
    #[arg(long, value_parser = flags::addr)]
    pub to: SocketAddr,
    /// End of the probe in seconds from its start (no new request in the last second).
    #[arg(long, value_parser = flags::seconds)]
    pub end: Duration,
}

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
pub fn load_role(a: &LoadArgs) -> u8 {
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
