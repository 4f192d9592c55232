//! What the path did under one arm (docs/method.md §14): the queue's
//! largest packet and aggregation, and whether the shaper was the
//! bottleneck, kept small for every scenario ([`PathSeen`]), with the
//! number formats its words use. summary.md's section and the caveats
//! printed beside the figures they qualify are said from these by the
//! summary's queue module.

use netlab_results::judge::judge;
use netlab_results::queue_seen::{queue_seen, DEFAULT_MTU};
use netlab_results::{Bottleneck, QueueSeen, ScenarioResult};

/// What one scenario's path did, small enough to keep for every scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct PathSeen {
    /// Per shaped direction: what the arm's queue held over the window.
    pub queue: Vec<QueueSeen>,
    /// The verdict: as recorded, or (older results) judged here from the
    /// counters, with no CPU figure.
    pub bottleneck: Option<Bottleneck>,
    /// Whether `bottleneck` was recorded by the run (false: judged here).
    pub recorded: bool,
    /// The path's MTU as the topology was asked for it (`[path] mtu`; the
    /// kernel's default in results written before it was recorded).
    pub mtu: u32,
    /// The CoDel target of the arm, when it has one, ms.
    pub codel_target_ms: Option<f64>,
}

impl PathSeen {
    /// From a scenario's results.
    pub fn of(s: &ScenarioResult) -> PathSeen {
        let recorded = s.bottleneck.is_some();
        let bottleneck = match &s.bottleneck {
            Some(b) => Some(b.clone()),
            None if s.error.is_none() && !s.directions.is_empty() => Some(judge(s, None)),
            None => None,
        };
        PathSeen {
            queue: queue_seen(s),
            bottleneck,
            recorded,
            mtu: s.topology.as_ref().map_or(DEFAULT_MTU, |t| t.spec.mtu),
            codel_target_ms: codel_target_ms(&s.arm_words),
        }
    }
}

/// CoDel's target of an arm that runs CoDel (fq_codel, codel: as given,
/// else the kernel's 5 ms; CAKE: 5 ms at its default `diffserv3` besteffort
/// tin is not read here).
fn codel_target_ms(words: &str) -> Option<f64> {
    use netlab_qdisc_model::Arm;
    let default = 5.0;
    match Arm::parse(words).ok()? {
        Arm::FqCodel(o) => Some(o.target.map_or(default, |t| t.as_secs_f64() * 1e3)),
        Arm::Codel(o) => Some(o.target.map_or(default, |t| t.as_secs_f64() * 1e3)),
        _ => None,
    }
}

/// `6056` as `6,056`.
pub fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub(crate) fn rate_text(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{} Gbit/s", num(bps / 1e9))
    } else {
        format!("{} Mbit/s", num(bps / 1e6))
    }
}

/// A number as the caveats write it: `5`, `24.2`, `0.125`.
pub(crate) fn num(v: f64) -> String {
    let s = crate::stats::fmt_num(v);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_results::merge::index_ranges;

    #[test]
    fn numbers_and_ranges_read_plainly() {
        assert_eq!(num(5.0), "5");
        assert_eq!(num(24.224), "24.2");
        assert_eq!(num(9.6896), "9.69");
        assert_eq!(num(250.0), "250");
        assert_eq!(rate_text(5e6), "5 Mbit/s");
        assert_eq!(rate_text(1e10), "10 Gbit/s");
        assert_eq!(index_ranges(&[1, 2, 3, 5, 7, 8]), "1–3, 5, 7–8");
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(6056), "6,056");
        assert_eq!(thousands(15_140), "15,140");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn codel_targets_come_from_the_arm_words() {
        assert_eq!(
            codel_target_ms("fq_codel limit 256 target 5ms interval 100ms ecn"),
            Some(5.0)
        );
        assert_eq!(codel_target_ms("fq_codel"), Some(5.0));
        assert_eq!(codel_target_ms("codel target 2ms"), Some(2.0));
        assert_eq!(codel_target_ms("pfifo limit 256"), None);
    }
}
