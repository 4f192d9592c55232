//! R's samples of the arm → drops per sampling interval with their reason,
//! and never-reached requests matched one-to-one to those drops
//! (method §5.8).

use std::time::Duration;

use netlab_qdisc_model::{Handle, QdiscXstats};

use super::{DropReason, Fate, LossCause, RequestFate};
use crate::QdiscSample;

/// How far past a request's send time a drop of it may be counted: the
/// probe reaches R within a millisecond, a FIFO tail-drops it on enqueue,
/// an AQM drops it on dequeue after its sojourn (tens of ms at most
/// beside fq_codel's per-flow queues). 100 ms, CoDel's default interval.
pub const MATCH_SLACK: Duration = Duration::from_millis(100);

/// The arm's drops in one sampling interval `(start_s, end_s]`.
#[derive(Debug, Clone, PartialEq)]
pub struct DropInterval {
    /// Earlier sample's time, s since t0 (exclusive).
    pub start_s: f64,
    /// Later sample's time, s since t0 (inclusive).
    pub end_s: f64,
    /// The arm's kind.
    pub qdisc: String,
    /// Packets the arm dropped in the interval (its `drops` counter's rise).
    pub drops: u64,
    /// Which of its counters rose.
    pub reason: DropReason,
}

/// The rise of the drop counter of the qdisc with handle `arm` between
/// consecutive samples that both hold it with its counters; only intervals
/// where it rose. Samples without a time are skipped.
pub fn drop_intervals(samples: &[QdiscSample], arm: Handle) -> Vec<DropInterval> {
    let points: Vec<(f64, &crate::SampledQdisc)> = samples
        .iter()
        .filter_map(|s| {
            let t = s.t_s?;
            let r = s
                .records
                .iter()
                .find(|r| r.handle == arm && r.stats.is_some())?;
            Some((t, r))
        })
        .collect();
    points
        .windows(2)
        .filter_map(|w| {
            let ((t0, a), (t1, b)) = (w[0], w[1]);
            let drops = u64::from(b.stats?.drops.wrapping_sub(a.stats?.drops));
            (drops > 0 && t1 > t0).then(|| DropInterval {
                start_s: t0,
                end_s: t1,
                qdisc: b.kind.clone(),
                drops,
                reason: reason_of(&b.kind, a.xstats.as_ref(), b.xstats.as_ref(), drops),
            })
        })
        .collect()
}

/// Which counter explains `drops` packets dropped between two readbacks.
fn reason_of(
    kind: &str,
    before: Option<&QdiscXstats>,
    after: Option<&QdiscXstats>,
    drops: u64,
) -> DropReason {
    let overlimit = match (before, after) {
        (Some(QdiscXstats::FqCodel(a)), Some(QdiscXstats::FqCodel(b))) => Some(
            u64::from(b.drop_overlimit.wrapping_sub(a.drop_overlimit))
                + u64::from(b.drop_overmemory.wrapping_sub(a.drop_overmemory)),
        ),
        (Some(QdiscXstats::Codel(a)), Some(QdiscXstats::Codel(b))) => {
            Some(u64::from(b.drop_overlimit.wrapping_sub(a.drop_overlimit)))
        }
        _ => None,
    };
    match (kind, overlimit) {
        ("fq_codel" | "codel", Some(0)) => DropReason::CodelDrop,
        ("fq_codel" | "codel", Some(o)) if o >= drops => DropReason::Overlimit,
        ("fq_codel" | "codel", _) => DropReason::CodelDropOrOverlimit,
        ("pfifo" | "bfifo" | "pfifo_fast", _) => DropReason::TailDrop,
        ("cake", _) => DropReason::CakeDrop,
        ("pie" | "fq_pie", _) => DropReason::PieDrop,
        _ => DropReason::Other,
    }
}

/// The arm's drops not yet matched to a request: one budget shared by
/// every probe of a scenario, so one drop explains at most one request of
/// any probe (the stop-and-wait probe is matched first, then the
/// isochronous one).
#[derive(Debug, Clone, PartialEq)]
pub struct DropBudget {
    intervals: Vec<DropInterval>,
    left: Vec<u64>,
}

impl DropBudget {
    /// Every drop of `intervals` still unmatched.
    pub fn new(intervals: Vec<DropInterval>) -> DropBudget {
        let left = intervals.iter().map(|i| i.drops).collect();
        DropBudget { intervals, left }
    }

    /// Drops not matched yet.
    pub fn unmatched(&self) -> u64 {
        self.left.iter().sum()
    }
}

/// Matches every [`Fate::NeverReachedB`] in `fates` (in order) to a drop:
/// the first interval overlapping `[send, send + MATCH_SLACK]` that still
/// has an unmatched drop in `budget` gives it
/// [`LossCause::DroppedAtBottleneck`] and uses up one of its drops; with
/// none left, [`LossCause::Unknown`] says why.
pub fn attribute_losses(fates: &mut [RequestFate], budget: &mut DropBudget) {
    let slack = MATCH_SLACK.as_secs_f64();
    for f in fates.iter_mut() {
        let Fate::NeverReachedB { cause } = &mut f.fate else {
            continue;
        };
        let Some(send) = f.send_s else { continue };
        let near = |i: &DropInterval| i.end_s >= send && i.start_s < send + slack;
        let hit =
            (0..budget.intervals.len()).find(|&k| near(&budget.intervals[k]) && budget.left[k] > 0);
        *cause = match hit {
            Some(k) => {
                budget.left[k] -= 1;
                let i = &budget.intervals[k];
                LossCause::DroppedAtBottleneck {
                    qdisc: i.qdisc.clone(),
                    reason: i.reason,
                    interval_s: [i.start_s, i.end_s],
                    drops_in_interval: i.drops,
                }
            }
            None if budget.intervals.iter().any(near) => LossCause::Unknown {
                note: "the arm's drops near its send were all matched to earlier requests".into(),
            },
            None => LossCause::Unknown {
                note: "the arm's drop counter did not rise near its send".into(),
            },
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fate::{Fate, LossCause};
    use crate::SampledQdisc;
    use netlab_probe::Phase;
    use netlab_qdisc_model::{FqCodelXstats, QdiscStats, ARM_HANDLE, TBF_HANDLE};

    fn sample(t: f64, kind: &str, drops: u32, overlimit: u32) -> QdiscSample {
        let stats = |d| {
            Some(QdiscStats {
                drops: d,
                ..QdiscStats::default()
            })
        };
        let xstats = (kind == "fq_codel").then(|| {
            QdiscXstats::FqCodel(FqCodelXstats {
                drop_overlimit: overlimit,
                ..FqCodelXstats::default()
            })
        });
        QdiscSample {
            t_s: Some(t),
            records: vec![
                SampledQdisc {
                    kind: "tbf".into(),
                    handle: TBF_HANDLE,
                    parent: netlab_qdisc_model::Handle::ROOT,
                    stats: stats(drops + 100),
                    xstats: None,
                },
                SampledQdisc {
                    kind: kind.into(),
                    handle: ARM_HANDLE,
                    parent: TBF_HANDLE,
                    stats: stats(drops),
                    xstats,
                },
            ],
        }
    }

    fn lost(seq: u32, send_s: f64) -> RequestFate {
        RequestFate {
            seq,
            send_s: Some(send_s),
            phase: Phase::Loaded,
            fate: Fate::NeverReachedB {
                cause: crate::fate::classify::unmatched(),
            },
        }
    }

    #[test]
    fn intervals_with_drops_and_their_reason() {
        let s = [
            sample(6.0, "fq_codel", 0, 0),
            sample(6.2, "fq_codel", 1, 0),
            sample(6.4, "fq_codel", 1, 0),
            sample(6.6, "fq_codel", 3, 2),
            sample(6.8, "fq_codel", 6, 3),
        ];
        let d = drop_intervals(&s, ARM_HANDLE);
        let got: Vec<(f64, u64, DropReason)> =
            d.iter().map(|i| (i.start_s, i.drops, i.reason)).collect();
        assert_eq!(
            got,
            [
                (6.0, 1, DropReason::CodelDrop),
                (6.4, 2, DropReason::Overlimit),
                (6.6, 3, DropReason::CodelDropOrOverlimit),
            ]
        );
        assert_eq!(d[0].qdisc, "fq_codel");
        let p = [sample(1.0, "pfifo", 5, 0), sample(1.2, "pfifo", 9, 0)];
        let d = drop_intervals(&p, ARM_HANDLE);
        assert_eq!((d[0].drops, d[0].reason), (4, DropReason::TailDrop));
        assert!(drop_intervals(&p[..1], ARM_HANDLE).is_empty());
    }

    #[test]
    fn one_drop_explains_one_request() {
        // the seed's fq_codel: one CoDel drop in (6.0, 6.2], two in (8.0, 8.2]
        let s = [
            sample(6.0, "fq_codel", 0, 0),
            sample(6.2, "fq_codel", 1, 0),
            sample(8.0, "fq_codel", 1, 0),
            sample(8.2, "fq_codel", 3, 0),
        ];
        let d = drop_intervals(&s, ARM_HANDLE);
        let mut f = vec![
            lost(0, 6.05),
            lost(1, 6.1),
            lost(2, 8.1),
            lost(3, 8.15),
            lost(4, 12.0),
        ];
        attribute_losses(&mut f, &mut DropBudget::new(d));
        let cause = |i: usize| match &f[i].fate {
            Fate::NeverReachedB { cause } => cause.clone(),
            _ => unreachable!(),
        };
        assert!(matches!(
            cause(0),
            LossCause::DroppedAtBottleneck { reason: DropReason::CodelDrop, interval_s, drops_in_interval: 1, .. } if interval_s == [6.0, 6.2]
        ));
        assert!(matches!(cause(1), LossCause::Unknown { note } if note.contains("all matched")));
        assert!(matches!(cause(2), LossCause::DroppedAtBottleneck { .. }));
        assert!(matches!(cause(3), LossCause::DroppedAtBottleneck { .. }));
        assert!(matches!(cause(4), LossCause::Unknown { note } if note.contains("did not rise")));
    }

    #[test]
    fn one_budget_across_probes_explains_each_drop_once() {
        let s = [sample(6.0, "fq_codel", 0, 0), sample(6.2, "fq_codel", 1, 0)];
        let mut budget = DropBudget::new(drop_intervals(&s, ARM_HANDLE));
        let mut stop_and_wait = vec![lost(0, 6.1)];
        let mut iso = vec![lost(7, 6.1)];
        attribute_losses(&mut stop_and_wait, &mut budget);
        attribute_losses(&mut iso, &mut budget);
        assert_eq!(budget.unmatched(), 0);
        assert!(matches!(
            &stop_and_wait[0].fate,
            Fate::NeverReachedB {
                cause: LossCause::DroppedAtBottleneck { .. }
            }
        ));
        assert!(matches!(
            &iso[0].fate,
            Fate::NeverReachedB {
                cause: LossCause::Unknown { note }
            } if note.contains("all matched")
        ));
    }

    #[test]
    fn a_drop_just_after_an_interval_boundary_still_matches() {
        // sent at 6.15, dropped after 6.2: counted in (6.2, 6.4]
        let s = [
            sample(6.0, "fq_codel", 0, 0),
            sample(6.2, "fq_codel", 0, 0),
            sample(6.4, "fq_codel", 1, 0),
        ];
        let mut f = vec![lost(0, 6.15), lost(1, 5.0)];
        attribute_losses(&mut f, &mut DropBudget::new(drop_intervals(&s, ARM_HANDLE)));
        assert!(matches!(
            &f[0].fate,
            Fate::NeverReachedB {
                cause: LossCause::DroppedAtBottleneck { .. }
            }
        ));
        assert!(matches!(
            &f[1].fate,
            Fate::NeverReachedB {
                cause: LossCause::Unknown { .. }
            }
        ));
    }
}
