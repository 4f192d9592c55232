//! A moving bottleneck as results.json recorded it (docs/method.md §15):
//! the rate over time, the TBF's bytes as its driver read them, and the
//! changes to a lower rate. A scenario's record holds it;
//! [`crate::link`] computes what the queue did from it.

/// A moving bottleneck as the report reads it: the rate over time (the
/// rate at t0, then every change with its applied time), the TBF's bytes
/// as the driver read them, and the bins of sent against offered.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkSeries {
    /// `up` or `down`.
    pub direction: String,
    /// The rate at t0, bit/s (`None`: an outage).
    pub rate_at_t0: Option<u64>,
    /// Every change: planned time, applied time (if it was), the new
    /// rate in bit/s (`None`: an outage).
    pub changes: Vec<(f64, Option<f64>, Option<u64>)>,
    /// `(t_s, TBF bytes sent)` as read.
    pub readings: Vec<(f64, u64)>,
    /// Sent against offered per 1 s bin.
    pub bins: Vec<netlab_results::LinkBin>,
    /// The arm is a FIFO with this limit (the one its changes carried).
    pub fifo_limit: Option<u32>,
    /// Change lateness (ACK − plan), ms: p50, p99, max, applied.
    pub lateness_ms: Option<(f64, f64, f64, usize)>,
}

impl LinkSeries {
    /// The report's view of results.json's record.
    pub fn of(l: &netlab_results::LinkResult) -> LinkSeries {
        LinkSeries {
            direction: l.direction.clone(),
            rate_at_t0: (!l.outage_at_t0).then_some(l.rate_at_t0.bits_per_sec()),
            changes: l
                .log
                .changes
                .iter()
                .map(|c| {
                    (
                        c.planned_s,
                        c.applied_s,
                        (!c.outage).then_some(c.rate.bits_per_sec()),
                    )
                })
                .collect(),
            readings: l.log.readings.iter().map(|r| (r.at_s, r.bytes)).collect(),
            bins: l.bins.clone(),
            fifo_limit: l.fifo_limit_carried,
            lateness_ms: netlab_qdisc_model::lateness_ms(&l.log.changes),
        }
    }

    /// The schedule as steps `(from_s, rate)` from t0, at their applied
    /// times (planned when never applied).
    pub fn steps(&self) -> Vec<(f64, Option<u64>)> {
        std::iter::once((0.0, self.rate_at_t0))
            .chain(self.changes.iter().map(|(p, a, r)| (a.unwrap_or(*p), *r)))
            .collect()
    }

    /// The drops: changes to a lower rate (or an outage), with the rate
    /// before and after and the time the next change ends the step.
    pub fn drops(&self) -> Vec<RateDrop> {
        let steps = self.steps();
        steps
            .windows(2)
            .enumerate()
            .filter_map(|(i, w)| {
                let (before, (at_s, after)) = (w[0].1, w[1]);
                let lower = match (before, after) {
                    (Some(b), Some(a)) => a < b,
                    (Some(_), None) => true,
                    _ => false,
                };
                lower.then(|| RateDrop {
                    at_s,
                    from_bps: before,
                    to_bps: after,
                    until_s: steps.get(i + 2).map(|s| s.0),
                })
            })
            .collect()
    }

    /// The TBF's sending rate between consecutive readings: `(t_mid_s,
    /// bit/s)`.
    pub fn sent_rate(&self) -> Vec<(f64, f64)> {
        self.readings
            .windows(2)
            .filter(|w| w[1].0 > w[0].0)
            .map(|w| {
                let bits = w[1].1.saturating_sub(w[0].1) as f64 * 8.0;
                ((w[0].0 + w[1].0) / 2.0, bits / (w[1].0 - w[0].0))
            })
            .collect()
    }
}

/// A change to a lower rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateDrop {
    /// When it was applied, s from t0.
    pub at_s: f64,
    /// The rate before, bit/s.
    pub from_bps: Option<u64>,
    /// The rate after (`None`: an outage).
    pub to_bps: Option<u64>,
    /// When the next change ends it (`None`: the scenario's end).
    pub until_s: Option<f64>,
}
