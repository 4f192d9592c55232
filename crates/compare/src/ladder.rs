//! The rate ladder's table (docs/scale.md): per scenario of one or more
//! runs, the kernel, arm, rate and offloads, goodput ÷ rate, the largest
//! packet the queue held, the bottleneck verdict and the CPU used; then,
//! per kernel, arm and offload state, up to which rate the machine shaped
//! truthfully (every rung up to it shaper-bound and delivering at least
//! [`GOODPUT_SHARE_MIN`] of its rate, as goodput or as the TBF's own
//! output). Pure: results in, markdown out.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use netlab_results::bottleneck::GOODPUT_SHARE_MIN;
use netlab_results::judge::judge;
use netlab_results::queue_seen::queue_seen;
use netlab_results::{Results, ScenarioResult, Verdict};

use netlab_analysis::path_seen::thousands;

/// One rung: a scenario's figures for the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Rung {
    /// `host` or `uml`, and the release.
    pub kernel: String,
    /// Arm kind.
    pub arm: String,
    /// The offload state asked for (`kernel`, `off`).
    pub offloads: String,
    /// The up direction's rate, Mbit/s.
    pub rate_mbps: Option<f64>,
    /// Its goodput, Mbit/s.
    pub goodput_mbps: Option<f64>,
    /// What the TBF sent over the window, Mbit/s.
    pub sent_mbps: Option<f64>,
    /// The largest packet or aggregate the arm's queue held, bytes.
    pub largest_bytes: Option<f64>,
    /// The verdict of the up direction.
    pub verdict: Option<Verdict>,
    /// The busiest CPU's share over the window.
    pub busiest_cpu: Option<f64>,
    /// netlab's own CPU time over the window, in CPUs.
    pub netlab_cpus: Option<f64>,
    /// Why the scenario failed, if it did.
    pub error: Option<String>,
}

impl Rung {
    /// The rung of one scenario of a run on `kernel`.
    pub fn of(kernel: &str, s: &ScenarioResult) -> Rung {
        let up = |d: &str| d == "up";
        let b = s
            .bottleneck
            .clone()
            .or_else(|| (s.error.is_none() && !s.directions.is_empty()).then(|| judge(s, None)));
        let d = b
            .as_ref()
            .and_then(|b| b.directions.iter().find(|d| up(&d.direction)));
        let cpu = b.as_ref().and_then(|b| b.cpu.as_ref());
        // A scenario that failed before its path stood has no topology or
        // directions: its sweep point still names them.
        let point = |axis: &str| {
            s.point
                .values
                .iter()
                .find_map(|v| v.strip_prefix(axis)?.strip_prefix('=').map(str::to_string))
        };
        let offloads = s
            .topology
            .as_ref()
            .map(|t| t.spec.offloads.file_word().to_string())
            .or_else(|| point("offloads"))
            .unwrap_or_else(|| "kernel".into());
        let rate_mbps = s
            .directions
            .iter()
            .find(|d| up(&d.direction))
            .and_then(|d| d.rate_mbps)
            .or_else(|| {
                let r = netlab_qdisc_model::Rate::parse(&point("rate")?).ok()?;
                Some(r.bits_per_sec() as f64 / 1e6)
            });
        Rung {
            kernel: kernel.to_string(),
            arm: s.arm.clone(),
            offloads,
            rate_mbps,
            goodput_mbps: s
                .directions
                .iter()
                .find(|d| up(&d.direction))
                .and_then(|d| d.goodput_mbps),
            sent_mbps: d.and_then(|d| d.tbf_sent_mbps),
            largest_bytes: queue_seen(s)
                .iter()
                .find(|q| up(&q.direction))
                .and_then(|q| q.largest_bytes()),
            verdict: d.map(|d| d.verdict),
            busiest_cpu: cpu.map(|c| c.busiest()),
            netlab_cpus: cpu.map(|c| c.netlab_cpus()),
            error: s.error.clone(),
        }
    }

    /// Goodput ÷ rate.
    pub fn share(&self) -> Option<f64> {
        match (self.goodput_mbps, self.rate_mbps) {
            (Some(g), Some(r)) if r > 0.0 => Some(g / r),
            _ => None,
        }
    }

    /// What the TBF sent ÷ rate.
    pub fn sent_share(&self) -> Option<f64> {
        match (self.sent_mbps, self.rate_mbps) {
            (Some(g), Some(r)) if r > 0.0 => Some(g / r),
            _ => None,
        }
    }

    /// Shaper-bound and delivering its rate (goodput or the wire).
    pub fn truthful(&self) -> bool {
        self.error.is_none()
            && self.verdict == Some(Verdict::ShaperBound)
            && [self.share(), self.sent_share()]
                .into_iter()
                .flatten()
                .any(|s| s >= GOODPUT_SHARE_MIN)
    }
}

impl Rung {
    /// Every scenario of `runs` as rungs, in run and execution order.
    pub fn of_runs(runs: &[Results]) -> Vec<Rung> {
        runs.iter()
            .flat_map(|r| {
                let kernel = format!("{} {}", r.kernel.mode, r.kernel.release);
                r.scenarios
                    .iter()
                    .map(move |s| Rung::of(&kernel, s))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

fn rate_words(mbps: f64) -> String {
    if mbps >= 1000.0 {
        format!("{} Gbit/s", mbps / 1000.0)
    } else {
        format!("{mbps} Mbit/s")
    }
}

/// Per kernel, arm and offload state: the highest rate up to which every
/// rung was truthful, and the first rung that was not.
pub(crate) fn truthful_up_to(rungs: &[Rung]) -> Vec<String> {
    let mut groups: BTreeMap<(&str, &str, &str), Vec<&Rung>> = BTreeMap::new();
    for r in rungs {
        groups
            .entry((r.kernel.as_str(), r.arm.as_str(), r.offloads.as_str()))
            .or_default()
            .push(r);
    }
    groups
        .into_iter()
        .map(|((kernel, arm, offloads), mut v)| {
            v.sort_by(|a, b| {
                a.rate_mbps
                    .unwrap_or(f64::MAX)
                    .total_cmp(&b.rate_mbps.unwrap_or(f64::MAX))
            });
            let first_bad = v.iter().position(|r| !r.truthful());
            let good = &v[..first_bad.unwrap_or(v.len())];
            let upto = good
                .last()
                .and_then(|r| r.rate_mbps)
                .map_or("no rung".to_string(), rate_words);
            let then = first_bad.map_or(String::new(), |i| {
                let r = v[i];
                format!(
                    "; at {}: {}{}",
                    r.rate_mbps.map_or("?".into(), rate_words),
                    r.error.as_ref().map_or_else(
                        || r.verdict.map_or("no verdict", Verdict::text).to_string(),
                        |e| format!("failed ({e})")
                    ),
                    r.share().map_or(String::new(), |s| format!(
                        ", goodput {:.0} % of the rate",
                        s * 100.0
                    ))
                )
            });
            format!("{kernel}, {arm}, offloads {offloads}: shapes truthfully up to {upto}{then}")
        })
        .collect()
}

impl Rung {
    /// The whole table with its verdict lines, markdown.
    pub fn table(rungs: &[Rung]) -> String {
        let mut s = String::new();
        s.push_str("| kernel | arm | offloads | rate | goodput Mbit/s | goodput ÷ rate | TBF sent ÷ rate | largest in queue B | verdict | busiest CPU | netlab CPUs |\n");
        s.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
        let pct = |v: Option<f64>| v.map_or("–".into(), |x| format!("{:.0} %", x * 100.0));
        for r in rungs {
            let verdict = match (&r.error, r.verdict) {
                (Some(e), _) => format!("failed: {e}"),
                (None, Some(v)) => v.text().to_string(),
                (None, None) => "–".into(),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.kernel,
                r.arm,
                r.offloads,
                r.rate_mbps.map_or("unshaped".into(), rate_words),
                r.goodput_mbps.map_or("–".into(), |g| format!("{g:.1}")),
                pct(r.share()),
                pct(r.sent_share()),
                r.largest_bytes
                    .map_or("–".into(), |b| thousands(b.round() as u64)),
                verdict,
                pct(r.busiest_cpu),
                r.netlab_cpus.map_or("–".into(), |c| format!("{c:.2}")),
            );
        }
        s.push('\n');
        for line in truthful_up_to(rungs) {
            let _ = writeln!(s, "- {line}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rung(rate: f64, goodput: f64, verdict: Verdict) -> Rung {
        Rung {
            kernel: "host 6.18".into(),
            arm: "pfifo".into(),
            offloads: "kernel".into(),
            rate_mbps: Some(rate),
            goodput_mbps: Some(goodput),
            sent_mbps: None,
            largest_bytes: Some(3028.0),
            verdict: Some(verdict),
            busiest_cpu: Some(0.5),
            netlab_cpus: Some(0.4),
            error: None,
        }
    }

    #[test]
    fn the_truthful_range_ends_at_the_first_rung_that_is_not() {
        let rungs = vec![
            rung(100.0, 95.0, Verdict::ShaperBound),
            rung(1.0, 0.95, Verdict::ShaperBound),
            rung(1000.0, 610.0, Verdict::Cpu),
            rung(10.0, 9.6, Verdict::ShaperBound),
        ];
        assert_eq!(
            truthful_up_to(&rungs),
            ["host 6.18, pfifo, offloads kernel: shapes truthfully up to 100 Mbit/s; at 1 Gbit/s: limited by something other than the shaper: CPU, goodput 61 % of the rate"]
        );
        // Shaper-bound but short of 90 % is not truthful either.
        let short = vec![
            rung(1.0, 0.95, Verdict::ShaperBound),
            rung(10.0, 8.0, Verdict::ShaperBound),
        ];
        assert!(truthful_up_to(&short)[0]
            .contains("up to 1 Mbit/s; at 10 Mbit/s: shaper-bound, goodput 80 %"));
        let t = Rung::table(&rungs);
        assert!(t.contains("| host 6.18 | pfifo | kernel | 1 Gbit/s | 610.0 | 61 % | – | 3,028 | limited by something other than the shaper: CPU | 50 % | 0.40 |"), "{t}");
    }
}
