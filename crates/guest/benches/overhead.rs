//! Guest overhead for a trivial program: boot, module loading, power-off.
//!
//! `cargo bench -p netlab-guest --bench overhead` — prints the median of 5
//! runs with and without modules, boot-to-init, and a host baseline.

use std::time::{Duration, Instant};

use netlab_guest::{available, Guest};

const RUNS: usize = 5;
const MODULES: [&str; 3] = ["sch_tbf", "sch_fq_codel", "veth"];

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn measure(modules: &[&str]) -> (Duration, Duration) {
    let mut total = Vec::new();
    let mut boot = Vec::new();
    for _ in 0..RUNS {
        let o = Guest::new("/bin/true")
            .init(env!("CARGO_BIN_EXE_netlab-guest-init"), &[])
            .modules(modules.iter().copied())
            .run()
            .expect("guest run");
        assert!(o.status.success(), "{}", o.status);
        total.push(o.elapsed);
        boot.push(o.boot_to_init.unwrap_or_default());
    }
    (median(total), median(boot))
}

fn main() {
    let a = available();
    if !a.usable() {
        println!("SKIP overhead bench: {}", a.problem.unwrap_or_default());
        return;
    }
    let host: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            std::process::Command::new("/bin/true")
                .status()
                .expect("true");
            t.elapsed()
        })
        .collect();
    let host = median(host);
    let (plain, plain_boot) = measure(&[]);
    let (with_mods, mods_boot) = measure(&MODULES);
    println!(
        "guest overhead, median of {RUNS} runs (kernel {}):",
        a.release.unwrap_or_default()
    );
    println!("  host baseline /bin/true          : {:8.1} ms", ms(host));
    println!(
        "  guest /bin/true, no modules      : {:8.1} ms total, boot-to-init {:7.1} ms",
        ms(plain),
        ms(plain_boot)
    );
    println!(
        "  guest /bin/true, {}: {:8.1} ms total, boot-to-init {:7.1} ms",
        MODULES.join("+"),
        ms(with_mods),
        ms(mods_boot)
    );
    println!(
        "  module loading adds {:.1} ms; total vs 2 s target: {:.2}x",
        ms(with_mods.saturating_sub(plain)),
        with_mods.as_secs_f64() / 2.0
    );
}
