//! netlab-crosscheck: does netlab measure what iperf3, irtt, tc and ss
//! measure on the same path?
//!
//! [`run`] builds, for every round × arm × load, a fresh A–R–B with the
//! default comparison's TBF and the arm on R's egress toward B, and runs in
//! the *current* kernel (call it inside the UML guest for fq_codel; the
//! host has pfifo only) the three pairings at once:
//!
//! 1. **Load**: netlab's sender + receiver, or `iperf3 -C reno` (server in
//!    B, client in A), from the same start for the same duration, with the
//!    same netlab probe; both flows sampled by the same sock_diag sampler
//!    in A (and in B), the arm sampled every 200 ms.
//! 2. **Probe**: netlab's probe and `irtt client` (server in B) at the same
//!    200 ms spacing in the same scenario, ranked by the same rules.
//! 3. **Readbacks**: netlab's qdisc readback bracketing `tc -s -d -j`, and
//!    its tcp_info bracketing `ss -tinm`, mid-window.
//!
//! Every scenario is run by netlab-run's runner, as the comparison's are
//! ([`setup`] makes its setup from the load); the tools, the outside
//! client's samplers and the window's watcher are its hooks ([`beside`]).
//!
//! Loads alternate order every round; every window starts at the load's
//! own connect (iperf3 connects up to 2.5 s late in the guest). The rules
//! are docs/method.md §13; the runs and what they found are in
//! `docs/investigations/`.
//! [`CrosscheckRun::write`] (or [`run_to_dir`], after every scenario) writes
//! `crosscheck.md` (a table per pairing, per-round values side by side,
//! plus medians) and `crosscheck.json` (every raw sample).
//!
//! ```no_run
//! use netlab_crosscheck::{cross_check, CrosscheckConfig};
//! let cfg = CrosscheckConfig::new(10); // both arms, netlab vs iperf3, method's timeline
//! let result = cross_check(&cfg, |line| eprintln!("{line}"))?;
//! let (md, json) = result.write(std::path::Path::new("/tmp/crosscheck"))?;
//! println!("{} {}", md.display(), json.display());
//! # Ok::<(), netlab_crosscheck::CrosscheckError>(())
//! ```
//!
//! Needs root, `iperf3`, `irtt`, `tc` and `ss` on the PATH.
#![forbid(unsafe_code)]

pub mod beside;
pub mod config;
pub mod consistency;
mod error;
pub mod external;
pub mod markdown;
pub mod record;
pub mod scenario;
pub mod setup;
pub mod states;
pub mod tools;
mod watch;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

pub use config::{
    CrosscheckConfig, CrosscheckTimeline, End, Iperf3Load, Load, NetlabLoad, OrdinaryLoad,
};
pub use error::CrosscheckError;
pub use record::{Metrics, ScenarioRecord};

/// Schema version of `crosscheck.json`.
pub const SCHEMA: u32 = 1;

/// The external tools a cross-check runs.
pub const TOOLS: [&str; 4] = ["iperf3", "irtt", "tc", "ss"];

/// A finished cross-check: configuration, every scenario's raw record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrosscheckRun {
    /// [`SCHEMA`].
    pub schema: u32,
    /// Kernel release it ran on.
    pub kernel: String,
    /// Start, RFC 3339 UTC.
    pub started_utc: String,
    /// Wall time, seconds.
    pub elapsed_s: f64,
    /// The configuration.
    pub config: CrosscheckConfig,
    /// Every scenario in run order.
    pub scenarios: Vec<ScenarioRecord>,
}

impl CrosscheckRun {
    /// The cross-check's markdown page ([`markdown::page`]).
    pub fn markdown(&self) -> String {
        markdown::page(self)
    }

    /// Reads a `crosscheck.json` written by [`CrosscheckRun::write`] (the
    /// markdown page can be rendered again from the raw data alone).
    pub fn read(path: &Path) -> Result<CrosscheckRun, CrosscheckError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CrosscheckError::step(format!("reading {}", path.display()), e))?;
        let run: CrosscheckRun = serde_json::from_str(&text)
            .map_err(|e| CrosscheckError::step(format!("parsing {}", path.display()), e))?;
        if run.schema != SCHEMA {
            return Err(CrosscheckError::step(
                format!("reading {}", path.display()),
                format!("schema {} (this build reads {SCHEMA})", run.schema),
            ));
        }
        Ok(run)
    }

    /// Writes `crosscheck.md` and `crosscheck.json` into `dir` (created if
    /// needed); returns both paths.
    pub fn write(&self, dir: &Path) -> Result<(PathBuf, PathBuf), CrosscheckError> {
        let werr = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CrosscheckError::Write { path, source }
        };
        std::fs::create_dir_all(dir).map_err(werr(dir))?;
        let md = dir.join("crosscheck.md");
        let json = dir.join("crosscheck.json");
        std::fs::write(&md, self.markdown()).map_err(werr(&md))?;
        let text = serde_json::to_string(self).map_err(|e| CrosscheckError::Write {
            path: json.clone(),
            source: std::io::Error::other(e),
        })?;
        std::fs::write(&json, text).map_err(werr(&json))?;
        Ok((md, json))
    }
}

/// Fails, naming them, if tools the configuration needs are not on PATH.
pub fn check_tools(cfg: &CrosscheckConfig) -> Result<(), CrosscheckError> {
    let mut need = vec!["tc", "ss", "ip"];
    if cfg.irtt {
        need.push("irtt");
    }
    if cfg.loads.iter().any(|l| matches!(l, Load::Iperf3(_))) {
        need.push("iperf3");
    }
    if cfg.loads.iter().any(|l| matches!(l, Load::Ordinary(_))) {
        need.push("python3");
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let missing: Vec<&str> = need
        .into_iter()
        .filter(|t| !std::env::split_paths(&path).any(|d| d.join(t).is_file()))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(CrosscheckError::Config(format!(
            "not on PATH: {} (Debian: apt-get install iperf3 irtt iproute2)",
            missing.join(", ")
        )))
    }
}

/// Runs the whole cross-check in the current kernel; `progress` gets one
/// line per scenario. A failing scenario is recorded (its `error`) and the
/// run goes on; only an unusable configuration or missing tools fail it.
pub fn cross_check(
    cfg: &CrosscheckConfig,
    progress: impl FnMut(&str),
) -> Result<CrosscheckRun, CrosscheckError> {
    run_with(cfg, progress, |_| Ok(()))
}

/// [`cross_check`], rewriting `crosscheck.md` and `crosscheck.json` in `dir` after
/// every scenario, so a run cut short (deadline, signal) keeps what it
/// measured.
pub fn run_to_dir(
    cfg: &CrosscheckConfig,
    dir: &Path,
    progress: impl FnMut(&str),
) -> Result<CrosscheckRun, CrosscheckError> {
    run_with(cfg, progress, |partial| partial.write(dir).map(|_| ()))
}

fn run_with(
    cfg: &CrosscheckConfig,
    mut progress: impl FnMut(&str),
    mut after_each: impl FnMut(&CrosscheckRun) -> Result<(), CrosscheckError>,
) -> Result<CrosscheckRun, CrosscheckError> {
    cfg.validate()?;
    check_tools(cfg)?;
    let started = Instant::now();
    let kernel = netlab_os::kernel_release().unwrap_or_else(|| "unknown release".into());
    // netlab-run's owned run: a registry with its state file (a crash
    // leaves the namespaces to `orchestrator cleanup`) and SIGINT/SIGTERM
    // in graceful mode (the scenario stops, what it measured is kept).
    let (run_id, registry) = netlab_run::session::owned_run(netlab_run::session::GRACE)
        .map_err(CrosscheckError::Config)?;
    let plan = cfg.schedule();
    let scratch = std::env::temp_dir().join(format!("netlab-crosscheck-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|source| CrosscheckError::Write {
        path: scratch.clone(),
        source,
    })?;
    let ctx = scenario::ScenarioCtx {
        cfg,
        run_id: &run_id,
        registry: &registry,
        scratch: &scratch,
        kernel: &kernel,
        total: plan.len(),
    };
    let mut out = CrosscheckRun {
        schema: SCHEMA,
        kernel: kernel.clone(),
        started_utc: netlab_utc::format_rfc3339(std::time::SystemTime::now()),
        elapsed_s: 0.0,
        config: cfg.clone(),
        scenarios: Vec::new(),
    };
    for (i, (round, arm, load)) in plan.iter().copied().enumerate() {
        if netlab_receipts::interrupted().is_some() {
            break;
        }
        let rec = scenario::run_scenario(&ctx, i as u32 + 1, round, arm, load);
        let m = &rec.metrics;
        progress(&format!(
            "[{}/{}] round {round} {} {}: goodput {} Mbit/s, probe p50 {} ms, drops {}, reductions {}, retrans {}{}",
            i + 1,
            plan.len(),
            rec.arm,
            rec.load_label,
            rec.goodput_mbps.map_or("–".into(), |g| format!("{g:.2}")),
            rec.probe_loaded.as_ref().and_then(|p| p.p50_ms).map_or("–".into(), |g| format!("{g:.0}")),
            m.drops_window.map_or("–".into(), |g| g.to_string()),
            m.reductions.map_or("–".into(), |g| g.to_string()),
            m.total_retrans.map_or("–".into(), |g| g.to_string()),
            rec.error.as_ref().map_or(String::new(), |e| format!(" ERROR {e}")),
        ));
        out.scenarios.push(rec);
        out.elapsed_s = started.elapsed().as_secs_f64();
        if let Err(e) = after_each(&out) {
            let _ = registry.teardown(&netlab_receipts::SystemClock);
            return Err(e);
        }
    }
    for r in registry.teardown(&netlab_receipts::SystemClock) {
        if !r.outcome.is_ok() {
            progress(&format!("cleanup: {r:?}"));
        }
    }
    let _ = std::fs::remove_dir(&scratch);
    out.elapsed_s = started.elapsed().as_secs_f64();
    Ok(out)
}
