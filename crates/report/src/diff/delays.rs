//! A pair's loaded probe delays in each run, as the diff's CDF draws them:
//! one quantity for both runs (method §5.8), never one run's RTT against
//! the other's one-way delay.

use netlab_analysis::records::Scenario;

/// One run's loaded probe delays at one pair, as its figure draws them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Delays {
    /// The delays that were measured, ascending, ms.
    pub values: Vec<f64>,
    /// Requests with no delay to draw.
    pub missing: usize,
    /// What the values are (`one-way delay of delivered probes`).
    pub what: &'static str,
    /// What the missing ones are (`never reached B`).
    pub missing_words: &'static str,
    /// The axis' words (`one-way A→B delay`).
    pub axis: &'static str,
}

impl Delays {
    /// The loaded delays of a run's scenarios: with `one_way` (every
    /// round of both runs has fates), every delivered probe's one-way
    /// delay and how many never reached B; else the replies' RTT and the
    /// requests without a reply, so the two runs are drawn alike.
    pub(crate) fn of(scenarios: &[Scenario], one_way: bool) -> Delays {
        use netlab_analysis::records::ProbePhase;
        let ok: Vec<&Scenario> = scenarios.iter().filter(|s| s.error.is_none()).collect();
        let fates: Option<Vec<netlab_analysis::records::Delivered>> = ok
            .iter()
            .map(|s| s.delivered_one_way(ProbePhase::Loaded))
            .collect();
        let mut d = match fates {
            Some(f) if one_way && !f.is_empty() => Delays {
                values: f
                    .iter()
                    .flat_map(|x| x.one_way_ms.iter().copied())
                    .collect(),
                missing: f.iter().map(|x| x.lost).sum(),
                what: "one-way delay of the delivered probes",
                missing_words: "never reached B",
                axis: "one-way A→B delay",
            },
            _ => {
                let obs: Vec<netlab_stats::Observation> = ok
                    .iter()
                    .flat_map(|s| s.rtt_observations(ProbePhase::Loaded))
                    .collect();
                Delays {
                    values: obs
                        .iter()
                        .filter_map(|o| match o {
                            netlab_stats::Observation::Exact(v) => Some(*v),
                            netlab_stats::Observation::AtLeast(_) => None,
                        })
                        .collect(),
                    missing: obs
                        .iter()
                        .filter(|o| matches!(o, netlab_stats::Observation::AtLeast(_)))
                        .count(),
                    what: "RTT of the replies",
                    missing_words:
                        "without a reply within the timeout (lost or late: a round trip cannot tell them apart)",
                    axis: "probe RTT",
                }
            }
        };
        d.values.sort_by(f64::total_cmp);
        d
    }
}
