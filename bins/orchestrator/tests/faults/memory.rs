//! Memory and file descriptors of a running orchestrator, sampled from
//! /proc/<pid> (read by `netlab_os::proc`), shared by the soak example and
//! `privileged_soak.rs`. Samples are attributed to the scenario named by
//! the run's last progress line (`scenario 3/20 …`); 0 is before the first.

use std::collections::BTreeMap;

use netlab_os::proc::{open_fds, MemoryUse};

/// The scenario number in the last progress line (`scenario 3/20 …`).
pub fn current_scenario(stderr: &str) -> Option<u32> {
    stderr.lines().rev().find_map(|l| {
        let rest = l.split("scenario ").nth(1)?;
        rest.split('/').next()?.parse().ok()
    })
}

/// What was seen while one scenario ran.
#[derive(Debug, Clone, Copy)]
pub struct ScenarioMemory {
    /// Highest VmRSS, kB.
    pub max_rss_kb: u64,
    /// Highest VmHWM (the process's peak so far), kB.
    pub hwm_kb: u64,
    /// Fewest open file descriptors.
    pub min_fds: usize,
    /// Samples taken.
    pub samples: u32,
}

/// Samples of one process, per scenario.
#[derive(Debug, Default)]
pub struct MemoryWatch {
    /// Scenario number → what was seen while it ran.
    pub per: BTreeMap<u32, ScenarioMemory>,
    /// Peak VmHWM over the whole run, kB.
    pub hwm_kb: u64,
}

impl MemoryWatch {
    /// Takes one sample of `pid`, attributed to `scenario`; false once the
    /// process is gone.
    pub fn sample(&mut self, pid: u32, scenario: u32) -> bool {
        let (Some(memory), Some(fds)) = (MemoryUse::of(pid), open_fds(pid)) else {
            return false;
        };
        let (hwm, rss) = (memory.peak_kb, memory.resident_kb);
        self.hwm_kb = self.hwm_kb.max(hwm);
        let e = self.per.entry(scenario).or_insert(ScenarioMemory {
            max_rss_kb: 0,
            hwm_kb: 0,
            min_fds: usize::MAX,
            samples: 0,
        });
        e.max_rss_kb = e.max_rss_kb.max(rss);
        e.hwm_kb = e.hwm_kb.max(hwm);
        e.min_fds = e.min_fds.min(fds);
        e.samples += 1;
        true
    }

    /// Least-squares slope of each scenario's highest VmRSS against its
    /// number, MB per scenario, over scenarios `from..=to` (at least 3).
    pub fn rss_slope_mb(&self, from: u32, to: u32) -> Option<f64> {
        let pts: Vec<(f64, f64)> = self
            .per
            .range(from..=to)
            .map(|(s, m)| (f64::from(*s), m.max_rss_kb as f64 / 1024.0))
            .collect();
        least_squares_slope(&pts)
    }

    /// Scenario `to`'s highest VmRSS over scenario `from`'s.
    pub fn rss_ratio(&self, from: u32, to: u32) -> Option<f64> {
        let first = self.per.get(&from)?.max_rss_kb as f64;
        let last = self.per.get(&to)?.max_rss_kb as f64;
        (first > 0.0).then(|| last / first)
    }
}

/// Slope of the least-squares line through `pts` (None for fewer than 3
/// points or no spread in x).
pub fn least_squares_slope(pts: &[(f64, f64)]) -> Option<f64> {
    if pts.len() < 3 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}
