//! The guest kernels' costs, measured in one run so their ratios compare
//! like with like: a cached `kernel build` call (the entry found, nothing
//! done), each guest's boot (a trivial program, with and without the
//! modules a run loads), and the cold build.
//!
//! `cargo bench -p netlab-guest --bench kernels` — medians of 5. The cold
//! build took 80 minutes on a busy 2-core machine, so it is timed
//! only with `NETLAB_BENCH_COLD_BUILD=1` (into a temporary cache, removed
//! after); otherwise the wall and CPU time the cached build recorded in
//! its manifest are printed, with its date, and the ratio uses them.

use std::time::{Duration, Instant};

use netlab_guest::kernels::build::{self, BuildOptions, BuildOutcome};
use netlab_guest::kernels::{self, GuestKernel, UML_6_12};
use netlab_guest::Guest;

const RUNS: usize = 5;
const MODULES: [&str; 4] = ["veth", "sch_tbf", "sch_fq_codel", "tcp_bbr"];

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Median wall time of booting `k` to run /bin/true with `modules`, and
/// of its boot to init.
fn boot(k: &GuestKernel, modules: &[&str]) -> (Duration, Duration) {
    let mut total = Vec::new();
    let mut to_init = Vec::new();
    for _ in 0..RUNS {
        let o = Guest::new("/bin/true")
            .guest_kernel(k)
            .init(env!("CARGO_BIN_EXE_netlab-guest-init"), &[])
            .modules(modules.iter().copied())
            .run()
            .expect("guest run");
        assert!(o.status.success(), "{}", o.status);
        total.push(o.elapsed);
        to_init.push(o.boot_to_init.unwrap_or_default());
    }
    (median(total), median(to_init))
}

fn options<'a>(progress: &'a dyn Fn(&str)) -> BuildOptions<'a> {
    BuildOptions {
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        deadline: build::BUILD_DEADLINE,
        stop: netlab_os::StopFlag::new(),
        install_source: false,
        progress,
        check: None,
    }
}

fn main() {
    let old = kernels::debian_uml();
    let new = match kernels::locate(UML_6_12.name) {
        Ok(k) => k,
        Err(e) => {
            println!("SKIP kernels bench: {e}");
            return;
        }
    };
    if !old.kernel.is_file() {
        println!("SKIP kernels bench: no {}", old.kernel.display());
        return;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at the start: {}", load.trim());
    let quiet = |_: &str| {};
    let root = kernels::cache_root();
    let cached: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            let out = build::build(&UML_6_12, &root, &options(&quiet)).expect("cached build");
            assert!(matches!(out, BuildOutcome::AlreadyBuilt { .. }), "{out:?}");
            t.elapsed()
        })
        .collect();
    let cached = median(cached);
    println!(
        "kernel build uml-6.12, cached (nothing to do): {:.1} ms",
        ms(cached)
    );
    let mut rows = Vec::new();
    for (name, k) in [("uml (6.1)", &old), ("uml-6.12", &new)] {
        let (plain, plain_init) = boot(k, &[]);
        let (loaded, _) = boot(k, &MODULES);
        println!(
            "{name}: /bin/true {:.0} ms (boot to init {:.0} ms); with {} {:.0} ms",
            ms(plain),
            ms(plain_init),
            MODULES.join(", "),
            ms(loaded)
        );
        rows.push((plain, loaded));
    }
    println!(
        "boot ratio uml-6.12 / uml: {:.2} (no modules), {:.2} (with modules)",
        rows[1].0.as_secs_f64() / rows[0].0.as_secs_f64(),
        rows[1].1.as_secs_f64() / rows[0].1.as_secs_f64()
    );
    let cold = if std::env::var("NETLAB_BENCH_COLD_BUILD").is_ok_and(|v| v == "1") {
        let tmp = tempfile::tempdir().expect("temporary cache");
        let say = |l: &str| eprintln!("{l}");
        let t = Instant::now();
        let out = build::build(&UML_6_12, tmp.path(), &options(&say)).expect("cold build");
        assert!(matches!(out, BuildOutcome::Built { .. }), "{out:?}");
        let wall = t.elapsed().as_secs_f64();
        let dir = tmp
            .path()
            .join(UML_6_12.cache_key(&UML_6_12.source_version().unwrap()));
        let cpu = kernels::read_manifest(&dir).map_or(0.0, |m| m.cpu_seconds);
        println!("kernel build uml-6.12, cold, now: {wall:.0} s wall, {cpu:.0} s CPU");
        wall
    } else {
        let dir = new.kernel.parent().expect("an entry folder").to_path_buf();
        let m = kernels::read_manifest(&dir).expect("the entry's manifest");
        println!(
            "kernel build uml-6.12, cold, as recorded at {} ({} jobs): {:.0} s wall, {:.0} s CPU \
             (NETLAB_BENCH_COLD_BUILD=1 times one now)",
            m.built_utc, m.jobs, m.build_seconds, m.cpu_seconds
        );
        m.build_seconds
    };
    println!(
        "cached call / cold build: {:.2e}",
        cached.as_secs_f64() / cold
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at the end: {}", load.trim());
}
