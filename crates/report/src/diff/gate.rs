//! `--fail-on-change`: which claimed changes pass a gate, and why a gate
//! cannot be checked (a metric not computed, rounds that cannot move it),
//! so that it never passes by accident.

use super::{BoundKind, MetricDiff, PairDiff, RunDiff};

/// `--fail-on-change METRIC[:THRESHOLD]`: a metric the diff compares and
/// the size of change (in its unit) past which the diff fails.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeGate {
    /// `p50`, `p95`, `loss`, `goodput` or `drops`.
    pub metric: String,
    /// The largest change that passes, in the metric's unit (0: any).
    pub threshold: f64,
}

impl ChangeGate {
    /// The metrics a gate can name.
    pub const METRICS: [&'static str; 5] = ["p50", "p95", "loss", "goodput", "drops"];

    /// Parses `METRIC[:THRESHOLD]`; the reason when it is not one.
    pub fn parse(text: &str) -> Result<ChangeGate, String> {
        let (m, t) = match text.split_once(':') {
            Some((m, t)) => (
                m,
                t.trim()
                    .parse::<f64>()
                    .map_err(|e| format!("threshold {t:?}: {e}"))?,
            ),
            None => (text, 0.0),
        };
        let m = m.trim();
        if !Self::METRICS.contains(&m) {
            return Err(format!(
                "unknown metric {m:?}: one of {}",
                Self::METRICS.join(", ")
            ));
        }
        if !(t.is_finite() && t >= 0.0) {
            return Err("the threshold must be a finite number ≥ 0".into());
        }
        Ok(ChangeGate {
            metric: m.to_string(),
            threshold: t,
        })
    }
}

impl RunDiff {
    /// Why a gate cannot be checked, one line per gate and pair: its
    /// metric was not computed for a pair (the loss without both runs'
    /// fates), or no change could be claimed whatever the runs did (fewer
    /// than 3 rounds a run, or both sides on the censored mass). A gate
    /// that cannot be checked fails (`orchestrator diff` exits 2): it
    /// never passes by accident.
    pub fn unchecked(&self, gates: &[ChangeGate]) -> Vec<String> {
        let mut out = Vec::new();
        let min = netlab_compare::compare::Comparison::MIN_ROUNDS;
        for g in gates {
            for p in &self.pairs {
                let why = match p.metrics.iter().find(|m| m.key == g.metric) {
                    None => self.missing_why(&g.metric),
                    Some(_) if p.rounds.0 < min || p.rounds.1 < min => format!(
                        "{} vs {} rounds: with fewer than {min} a run no change can be claimed",
                        p.rounds.0, p.rounds.1
                    ),
                    Some(m)
                        if m.change.is_none()
                            && (m.interval.0.bound == BoundKind::Unknown
                                || m.interval.1.bound == BoundKind::Unknown) =>
                    {
                        "the interval reaches the censored mass (an endpoint is unknown), so no change can be claimed".to_string()
                    }
                    Some(_) => continue,
                };
                out.push(format!(
                    "--fail-on-change {} cannot be checked for {}: {why}",
                    g.metric,
                    super::pair_title(p)
                ));
            }
        }
        out
    }

    /// Why a metric a gate names was not computed.
    fn missing_why(&self, metric: &str) -> String {
        let lacking: Vec<&str> = ["A", "B"]
            .into_iter()
            .zip(self.fates)
            .filter(|(_, f)| !f)
            .map(|(r, _)| r)
            .collect();
        match metric {
            "loss" if !lacking.is_empty() => format!(
                "the loss needs every round's probe fates (B's receive log, method §5.8) in both runs, and run {} has none",
                lacking.join(" and run ")
            ),
            "drops" => "the arm's drops in the measured window were not read in a run".into(),
            _ => "the runs do not give it".into(),
        }
    }

    /// One line per claimed change past its gate's threshold
    /// (`p95 changed beyond 2.5 in fq_codel (…)`); empty when none is.
    pub fn beyond(&self, gates: &[ChangeGate]) -> Vec<String> {
        let mut out = Vec::new();
        for g in gates {
            for (p, m) in self.changes(&g.metric) {
                if let Some((_, by)) = m.change {
                    if by > g.threshold {
                        out.push(format!(
                            "{} changed beyond {} in {} ({})",
                            g.metric, g.threshold, p.arm_a, m.sentence
                        ));
                    }
                }
            }
        }
        out
    }

    /// The claimed changes of `key`, each with its size.
    pub fn changes(&self, key: &str) -> Vec<(&PairDiff, &MetricDiff)> {
        self.pairs
            .iter()
            .flat_map(|p| p.metrics.iter().map(move |m| (p, m)))
            .filter(|(_, m)| m.key == key && m.change.is_some())
            .collect()
    }
}
