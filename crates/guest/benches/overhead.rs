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

/// Medians of (total, boot-to-init, init-to-exit).
fn measure(modules: &[&str], fast_boot: bool) -> (Duration, Duration, Duration) {
    let mut total = Vec::new();
    let mut boot = Vec::new();
    let mut rest = Vec::new();
    for _ in 0..RUNS {
        let o = Guest::new("/bin/true")
            .init(env!("CARGO_BIN_EXE_netlab-guest-init"), &[])
            .modules(modules.iter().copied())
            .fast_boot(fast_boot)
            .run()
            .expect("guest run");
        assert!(o.status.success(), "{}", o.status);
        total.push(o.elapsed);
        let b = o.boot_to_init.unwrap_or_default();
        boot.push(b);
        rest.push(o.elapsed.saturating_sub(b));
    }
    (median(total), median(boot), median(rest))
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
    let (plain, plain_boot, plain_rest) = measure(&[], true);
    let (with_mods, mods_boot, mods_rest) = measure(&MODULES, true);
    let (slow, slow_boot, slow_rest) = measure(&MODULES, false);
    println!(
        "guest overhead, median of {RUNS} runs (kernel {}):",
        a.release.unwrap_or_default()
    );
    println!("  {:<40}: {:7.1} ms", "host baseline /bin/true", ms(host));
    let row = |label: &str, total: Duration, boot: Duration, rest: Duration| {
        println!(
            "  {label:<40}: {:7.1} ms total, boot-to-init {:7.1} ms, init-to-exit {:6.1} ms",
            ms(total),
            ms(boot),
            ms(rest)
        )
    };
    row("guest /bin/true, no modules", plain, plain_boot, plain_rest);
    row(
        &format!("guest /bin/true, {}", MODULES.join("+")),
        with_mods,
        mods_boot,
        mods_rest,
    );
    row("same, fast_boot(false)", slow, slow_boot, slow_rest);
    println!(
        "  module loading adds {:.1} ms (init-to-exit difference); with modules / 2 s target = {:.2}; guest / host = {:.0}x",
        ms(mods_rest.saturating_sub(plain_rest)),
        with_mods.as_secs_f64() / 2.0,
        with_mods.as_secs_f64() / host.as_secs_f64()
    );
}
