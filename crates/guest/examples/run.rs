//! Run one program inside the guest kernel, streaming its output — the same
//! wiring `orchestrator guest` uses.
//!
//! `cargo run -p netlab-guest --example run -- [--module M]... [--mem 1G]
//! [--deadline 60] -- PROGRAM ARGS...` (deadline in seconds). Exits with the
//! program's status (128+signal if killed), 1 on a guest error, 2 on bad usage.

use std::time::Duration;

use netlab_guest::Guest;

fn usage(msg: &str) -> ! {
    eprintln!(
        "run: {msg}\nusage: run [--module M]... [--mem 1G] [--deadline SECS] -- PROGRAM ARGS..."
    );
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut modules, mut mem, mut deadline) = (Vec::new(), "1G".to_string(), 60u64);
    let program = loop {
        match args.next().as_deref() {
            Some("--module") => modules.push(
                args.next()
                    .unwrap_or_else(|| usage("--module needs a name")),
            ),
            Some("--mem") => mem = args.next().unwrap_or_else(|| usage("--mem needs a size")),
            Some("--deadline") => {
                deadline = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|d| *d > 0)
                    .unwrap_or_else(|| usage("--deadline needs positive seconds"))
            }
            Some("--") => break args.next().unwrap_or_else(|| usage("no program after --")),
            Some(other) => usage(&format!("unknown argument {other:?}")),
            None => usage("no program"),
        }
    };
    let guest = Guest::new(program)
        .args(args)
        .modules(modules)
        .mem(mem)
        .deadline(Duration::from_secs(deadline))
        .inherit_all_env()
        .stream_output(true);
    match guest.run() {
        Ok(o) => {
            eprintln!(
                "[guest {}: {}, boot to init {:?}, total {:?}]",
                o.release, o.status, o.boot_to_init, o.elapsed
            );
            std::process::exit(o.status.code())
        }
        Err(e) => {
            eprintln!("run: {e}");
            std::process::exit(1)
        }
    }
}
