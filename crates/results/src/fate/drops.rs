//! R's samples of the arm → drops per sampling interval with their reason,
//! and never-reached requests matched one-to-one to those drops
//! (method §5.6).

use std::time::Duration;

use netlab_qdisc::{Handle, QdiscXstats};

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

/// Matches every [`Fate::NeverReachedB`] in `fates` (in order) to a drop:
/// the first interval overlapping `[send, send + MATCH_SLACK]` that still
/// has an unmatched drop gives it [`LossCause::DroppedAtBottleneck`] and
/// uses up one of its drops; with none left, [`LossCause::Unknown`] says
/// why. One drop explains at most one request.
pub fn attribute_losses(fates: &mut [RequestFate], intervals: &[DropInterval]) {
    let mut left: Vec<u64> = intervals.iter().map(|i| i.drops).collect();
    let slack = MATCH_SLACK.as_secs_f64();
    for f in fates.iter_mut() {
        let Fate::NeverReachedB { cause } = &mut f.fate else {
            continue;
        };
        let Some(send) = f.send_s else { continue };
        let near = |i: &DropInterval| i.end_s >= send && i.start_s < send + slack;
        let hit = intervals
            .iter()
            .enumerate()
            .find(|(k, i)| near(i) && left[*k] > 0);
        *cause = match hit {
            Some((k, i)) => {
                left[k] -= 1;
                LossCause::DroppedAtBottleneck {
                    qdisc: i.qdisc.clone(),
                    reason: i.reason,
                    interval_s: [i.start_s, i.end_s],
                    drops_in_interval: i.drops,
                }
            }
            None if intervals.iter().any(near) => LossCause::Unknown {
                note: "the arm's drops near its send were all matched to earlier requests".into(),
            },
            None => LossCause::Unknown {
                note: "the arm's drop counter did not rise near its send".into(),
            },
        };
    }
}
