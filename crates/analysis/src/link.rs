//! What the queue did when the rate moved (docs/method.md §15.6,
//! docs/models.md model 6): for a scenario whose upload bottleneck
//! followed a schedule, the one-way delay in 100 ms bins after each drop,
//! a FIFO's delay against its bound at the new rate, an AQM's recovery
//! time, and over a trace the link's use against the probe's p95 delay.
//! Pure functions of the report's input.

use netlab_qdisc_model::Arm;

use crate::link_series::{LinkSeries, RateDrop};
use crate::records::{ProbeOutcome, ProbePhase, Scenario};

/// The bins the delay after a change is read in, s.
pub const DELAY_BIN_S: f64 = 0.1;
/// One interval an AQM's delay must stay under its threshold to count as
/// recovered: CoDel's default interval, 100 ms (PIE has none; the same is
/// used for it).
pub const RECOVERY_INTERVAL_S: f64 = 0.1;
/// The bytes of one full-size frame (MTU 1500 + the 14-byte header).
pub const FRAME_BYTES: u64 = 1514;

/// The one-way delay of the probe in one bin: the median of the requests
/// sent in it that reached B and were answered in time, and how many got
/// no reply in time (below a timeout longer than any delay the queue can
/// hold, drops: counted apart, never as delays).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DelayBin {
    /// Bin start, s from t0.
    pub start_s: f64,
    /// Median one-way delay, ms; `None`: no request of the bin was
    /// answered in time.
    pub median_ms: Option<f64>,
    /// Requests sent in it.
    pub sent: usize,
    /// Requests of it with no reply in time.
    pub no_reply: usize,
}

/// The isochronous probe's one-way delays (A→B, ms) with their send times,
/// every request that reached B in time.
pub fn one_way(s: &Scenario) -> Vec<(f64, f64)> {
    let Some(iso) = &s.iso else {
        return Vec::new();
    };
    iso.requests
        .iter()
        .filter(|r| matches!(r.outcome, ProbeOutcome::Reply { .. }))
        .filter_map(|r| Some((r.send_s?, r.up_ms?)))
        .collect()
}

/// The probe's one-way delay at the path's base: the median over the
/// baseline phase, ms.
pub fn base_one_way_ms(s: &Scenario) -> Option<f64> {
    let iso = s.iso.as_ref()?;
    let mut v: Vec<f64> = iso
        .requests
        .iter()
        .filter(|r| {
            r.phase == ProbePhase::Baseline && matches!(r.outcome, ProbeOutcome::Reply { .. })
        })
        .filter_map(|r| r.up_ms)
        .collect();
    netlab_stats::describe::median(&mut v)
}

/// The probe's delay in [`DELAY_BIN_S`] bins over `[from_s, to_s)`.
pub fn delay_bins(s: &Scenario, from_s: f64, to_s: f64) -> Vec<DelayBin> {
    let Some(iso) = &s.iso else {
        return Vec::new();
    };
    let n = ((to_s - from_s) / DELAY_BIN_S).floor().max(0.0) as usize;
    (0..n)
        .map(|k| {
            let start_s = from_s + k as f64 * DELAY_BIN_S;
            let end_s = start_s + DELAY_BIN_S;
            let inside: Vec<_> = iso
                .requests
                .iter()
                .filter(|r| r.send_s.is_some_and(|t| t >= start_s && t < end_s))
                .collect();
            let mut v: Vec<f64> = inside
                .iter()
                .filter(|r| matches!(r.outcome, ProbeOutcome::Reply { .. }))
                .filter_map(|r| r.up_ms)
                .collect();
            let answered = v.len();
            DelayBin {
                start_s,
                median_ms: netlab_stats::describe::median(&mut v),
                sent: inside.len(),
                no_reply: inside.len() - answered,
            }
        })
        .collect()
}

/// An AQM's target delay: its own `target` when given, else the kernel's
/// default (5 ms for CoDel, FQ-CoDel and CAKE, 15 ms for PIE and
/// FQ-PIE). `None` for arms without one (the FIFOs, fq).
pub fn aqm_target_ms(arm: &Arm) -> Option<f64> {
    let ms =
        |d: Option<std::time::Duration>, default: f64| d.map_or(default, |d| d.as_secs_f64() * 1e3);
    match arm {
        Arm::FqCodel(a) => Some(ms(a.target, 5.0)),
        Arm::Codel(a) => Some(ms(a.target, 5.0)),
        Arm::Pie(a) => Some(ms(a.target, 15.0)),
        Arm::FqPie(a) => Some(ms(a.target, 15.0)),
        Arm::Cake(_) => Some(5.0),
        _ => None,
    }
}

/// [`aqm_target_ms`] of an arm given in tc words (`None` when the words do
/// not parse or the arm has no target).
pub fn target_ms_of_words(arm_words: &str) -> Option<f64> {
    Arm::parse(arm_words).ok().as_ref().and_then(aqm_target_ms)
}

/// How long an AQM took to bring the delay back after a drop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recovery {
    /// The drop.
    pub drop: RateDrop,
    /// The threshold: base one-way delay + target + one full frame's time
    /// at the new rate (the frame ahead of the probe holds the link that
    /// long whatever the AQM does), ms.
    pub threshold_ms: f64,
    /// The highest bin median after the drop, ms, and when (s after the
    /// drop).
    pub peak_ms: f64,
    /// When the peak bin started, s after the drop.
    pub peak_after_s: f64,
    /// Requests of the step with no reply in time (the AQM's drops of the
    /// probe, most likely; never counted as delays).
    pub no_reply: usize,
    /// Seconds from the drop to the start of the first bin after the
    /// peak from which the delay stayed under the threshold for one
    /// interval (0 when the peak itself was under it); `None`: not
    /// before the step ended (censored at [`Recovery::observed_s`]).
    pub recovered_after_s: Option<f64>,
    /// How long after the drop the delay was watched.
    pub observed_s: f64,
}

/// The recovery after each drop of `link` in `s` (method §15.6), for an
/// arm with a target; `end_s` ends the last step (the probe's last slot).
pub fn recoveries(s: &Scenario, link: &LinkSeries, target_ms: f64, end_s: f64) -> Vec<Recovery> {
    let Some(base) = base_one_way_ms(s) else {
        return Vec::new();
    };
    link.drops()
        .into_iter()
        .filter_map(|d| {
            let rate = d.to_bps?;
            let until = d.until_s.unwrap_or(end_s).min(end_s);
            let frame_ms = FRAME_BYTES as f64 * 8.0 / rate as f64 * 1e3;
            let threshold_ms = base + target_ms + frame_ms;
            let bins = delay_bins(s, d.at_s, until);
            let need = (RECOVERY_INTERVAL_S / DELAY_BIN_S).round().max(1.0) as usize;
            let under = |b: &DelayBin| b.median_ms.is_some_and(|m| m < threshold_ms);
            let (peak_ms, peak_after_s) = bins
                .iter()
                .filter_map(|b| b.median_ms.map(|m| (m, b.start_s - d.at_s)))
                .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
            // Recovered: under the threshold for one interval after the
            // highest bin (at once when even that bin was under it).
            let from = if peak_ms < threshold_ms {
                0
            } else {
                ((peak_after_s / DELAY_BIN_S).round() as usize).min(bins.len())
            };
            let recovered = bins[from..]
                .windows(need)
                .find(|w| w.iter().all(under))
                .map(|w| w[0].start_s - d.at_s);
            Some(Recovery {
                drop: d,
                threshold_ms,
                peak_ms,
                peak_after_s,
                no_reply: bins.iter().map(|b| b.no_reply).sum(),
                recovered_after_s: recovered,
                observed_s: until - d.at_s,
            })
        })
        .collect()
}

/// A FIFO's delay after a drop beside its bound at the new rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FifoAfterDrop {
    /// The drop.
    pub drop: RateDrop,
    /// limit × 1,514 B ÷ the new rate, ms: the queue's delay when full.
    pub bound_ms: f64,
    /// The median one-way delay of the requests that reached B in time
    /// over the step's second half, less the base, ms; `None` when none
    /// did.
    pub measured_ms: Option<f64>,
    /// The 95th percentile of the same delays, ms: how near the top of
    /// each window cycle comes to the bound.
    pub p95_ms: Option<f64>,
    /// Requests of the second half with no reply in time: below a bound
    /// shorter than the timeout, tail drops, not delays.
    pub no_reply: usize,
    /// The queue's delay when full with the isochronous probe's requests
    /// in it, ms (method §15.6): a packet-counted FIFO gives a request a
    /// place as it gives a frame one, and a full queue holds the requests
    /// of its own delay, one an interval, so it delays `bound ÷ (1 +
    /// (frame − request) time ÷ interval)`. `None` without the probe.
    pub full_with_probe_ms: Option<f64>,
    /// The requests a full queue then holds (its delay ÷ the interval).
    pub probe_places: Option<f64>,
}

impl FifoAfterDrop {
    /// measured ÷ bound.
    pub fn ratio(&self) -> Option<f64> {
        self.measured_ms.map(|m| m / self.bound_ms)
    }
}

/// An isochronous request on the wire: its 40-byte header and the UDP,
/// IPv4 and Ethernet headers (an experiment that pads its requests makes
/// them larger; the figure keeps the default).
pub const PROBE_FRAME_BYTES: u64 = 40 + 8 + 20 + 14;

/// Each drop of a FIFO arm with `limit` packets (method §15.6).
pub fn fifo_after_drops(
    s: &Scenario,
    link: &LinkSeries,
    limit: u32,
    end_s: f64,
) -> Vec<FifoAfterDrop> {
    let base = base_one_way_ms(s).unwrap_or(0.0);
    link.drops()
        .into_iter()
        .filter_map(|d| {
            let rate = d.to_bps?;
            let bound = crate::predict::fifo_delay_bound(u64::from(limit), FRAME_BYTES, rate)
                .as_secs_f64()
                * 1e3;
            let until = d.until_s.unwrap_or(end_s).min(end_s);
            let half = d.at_s + (until - d.at_s) / 2.0;
            let no_reply = delay_bins(s, half, until).iter().map(|b| b.no_reply).sum();
            let mut v: Vec<f64> = one_way(s)
                .into_iter()
                .filter(|(t, _)| *t >= half && *t < until)
                .map(|(_, ms)| ms - base)
                .collect();
            v.sort_by(f64::total_cmp);
            let p95_ms = (!v.is_empty())
                .then(|| v[((0.95 * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1]);
            let with_probe = s.iso.as_ref().filter(|i| i.interval_ms > 0.0).map(|i| {
                let frame_ms = bound / f64::from(limit.max(1));
                let request_ms =
                    crate::predict::link_time(PROBE_FRAME_BYTES, rate).as_secs_f64() * 1e3;
                let full = bound / (1.0 + (frame_ms - request_ms) / i.interval_ms);
                (full, full / i.interval_ms)
            });
            Some(FifoAfterDrop {
                drop: d,
                bound_ms: bound,
                measured_ms: netlab_stats::describe::median(&mut v),
                p95_ms,
                no_reply,
                full_with_probe_ms: with_probe.map(|w| w.0),
                probe_places: with_probe.map(|w| w.1),
            })
        })
        .collect()
}

/// One round over a trace on the throughput–delay plane: the link's use
/// (the rate delivered to the receivers over the measured window ÷ the
/// rate the schedule offered in it, at the TBF, each over the span its
/// bins cover) and the probe's one-way p95.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TracePoint {
    /// Delivered ÷ offered, as rates.
    pub utilisation: f64,
    /// The probe's one-way p95 over the window, ms (a request that timed
    /// out counts as its timeout, so the p95 may be a bound).
    pub p95_ms: f64,
    /// The p95 falls on a timed-out request: a lower bound.
    pub p95_censored: bool,
}

/// The scenario's point on the plane, over its measured window.
pub fn trace_point(s: &Scenario, link: &LinkSeries) -> Option<TracePoint> {
    let [from, to] = s.measured_window?;
    let offered: f64 = link
        .bins
        .iter()
        .filter(|b| b.start_s >= from && b.end_s <= to)
        .map(|b| b.offered_bytes)
        .sum();
    let covered: f64 = link
        .bins
        .iter()
        .filter(|b| b.start_s >= from && b.end_s <= to)
        .map(|b| b.end_s - b.start_s)
        .sum();
    // The flows' bins and the link's bins inside the window need not
    // cover the same span (the link's last bin may end past the window's
    // end, the rate driver having read past it): each side is a rate over
    // its own span, so the ratio is of rates, not of byte totals.
    let mut delivered: u64 = 0;
    let mut delivered_s: f64 = 0.0;
    for f in s.flows.iter().filter(|f| f.direction == link.direction) {
        let inside: Vec<u64> = f
            .bytes
            .iter()
            .enumerate()
            .filter(|(k, _)| {
                let t = *k as f64 * f.bin_s;
                t >= from && t + f.bin_s <= to
            })
            .map(|(_, b)| *b)
            .collect();
        delivered += inside.iter().sum::<u64>();
        delivered_s = delivered_s.max(inside.len() as f64 * f.bin_s);
    }
    if offered <= 0.0 || covered <= 0.0 || delivered_s <= 0.0 {
        return None;
    }
    // Payload bytes against frame bytes: the TCP/IP and Ethernet headers
    // of a full frame (1514 − 1448 with timestamps) are the gap at 100 %.
    let iso = s.iso.as_ref()?;
    let mut v: Vec<(f64, bool)> = iso
        .requests
        .iter()
        .filter(|r| r.send_s.is_some_and(|t| t >= from && t < to))
        .map(|r| match (r.outcome, r.up_ms) {
            (ProbeOutcome::Reply { .. }, Some(up)) => (up, false),
            _ => (iso.timeout_s * 1e3, true),
        })
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let k = ((0.95 * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    Some(TracePoint {
        utilisation: (delivered as f64 / delivered_s) / (offered / covered),
        p95_ms: v[k].0,
        p95_censored: v[k].1,
    })
}

/// What summary.md and the report say of one scenario's moving rate.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkFigures {
    /// Each drop, with a FIFO's delay beside its bound or an AQM's
    /// recovery.
    pub drops: Vec<DropFigures>,
    /// Backlogged 1 s bins, and of them those whose sent bytes tracked the
    /// schedule (method §15.5).
    pub bins_backlogged: usize,
    /// Of the backlogged bins, those that tracked.
    pub bins_tracking: usize,
    /// The largest |sent − offered| ÷ offered over the backlogged bins.
    pub worst_deviation: Option<f64>,
    /// Backlogged bins that did not track, and of them those with a gap
    /// of over 150 ms between the driver's readings (the machine late).
    pub untracked_late: (usize, usize),
    /// Change lateness, ms: p50, p99, max, and how many were applied.
    pub lateness_ms: Option<(f64, f64, f64, usize)>,
    /// Changes that failed or were never sent.
    pub changes_not_applied: usize,
    /// Over a trace: the round's point on the throughput–delay plane.
    pub trace: Option<TracePoint>,
}

/// One drop's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DropFigures {
    /// The drop.
    pub drop: RateDrop,
    /// A FIFO arm's delay beside its bound at the new rate.
    pub fifo: Option<FifoAfterDrop>,
    /// An AQM's recovery.
    pub aqm: Option<Recovery>,
}

impl LinkFigures {
    /// The figures of `s` (its arm in tc words: `arm_words`); `None`
    /// without a moving rate. `is_trace`: the rate came from a trace, so
    /// the round is a point on the throughput–delay plane.
    pub fn of(s: &Scenario, is_trace: bool) -> Option<LinkFigures> {
        let link = s.link.as_ref()?;
        let arm = Arm::parse(&s.arm_words).ok();
        let end_s = s
            .iso
            .as_ref()
            .and_then(|i| i.requests.iter().filter_map(|r| r.send_s).reduce(f64::max))
            .unwrap_or(s.phases.end_s);
        let fifo = link.fifo_limit.map(|l| fifo_after_drops(s, link, l, end_s));
        let aqm = arm
            .as_ref()
            .and_then(aqm_target_ms)
            .map(|t| recoveries(s, link, t, end_s));
        let drops = link
            .drops()
            .into_iter()
            .map(|d| DropFigures {
                drop: d,
                fifo: fifo
                    .as_ref()
                    .and_then(|v| v.iter().find(|f| f.drop == d).copied()),
                aqm: aqm
                    .as_ref()
                    .and_then(|v| v.iter().find(|r| r.drop == d).copied()),
            })
            .collect();
        let backlogged: Vec<&netlab_results::LinkBin> =
            link.bins.iter().filter(|b| b.backlogged).collect();
        Some(LinkFigures {
            drops,
            bins_backlogged: backlogged.len(),
            bins_tracking: backlogged.iter().filter(|b| b.tracks == Some(true)).count(),
            untracked_late: (
                backlogged
                    .iter()
                    .filter(|b| b.tracks == Some(false))
                    .count(),
                backlogged
                    .iter()
                    .filter(|b| b.tracks == Some(false) && b.max_reading_gap_s > 0.15)
                    .count(),
            ),
            worst_deviation: backlogged
                .iter()
                .filter_map(|b| b.deviation())
                .map(f64::abs)
                .reduce(f64::max),
            lateness_ms: link.lateness_ms,
            changes_not_applied: link.changes.iter().filter(|c| c.1.is_none()).count(),
            trace: is_trace.then(|| trace_point(s, link)).flatten(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{FlowSeries, IsoProbe, IsoSample, Logged};

    /// A probe every 20 ms for 12 s whose one-way delay is `delay(t)`.
    fn scenario(delay: impl Fn(f64) -> Option<f64>) -> Scenario {
        let requests = (0..600)
            .map(|k| {
                let t = k as f64 * 0.02;
                let d = delay(t);
                IsoSample {
                    due_s: t,
                    phase: if t < 1.0 {
                        ProbePhase::Baseline
                    } else {
                        ProbePhase::Loaded
                    },
                    outcome: match d {
                        Some(ms) => ProbeOutcome::Reply { rtt_ms: 2.0 * ms },
                        None => ProbeOutcome::Timeout,
                    },
                    late_rtt_ms: None,
                    up_ms: d,
                    down_ms: d,
                    seq: k,
                    send_s: Some(t),
                    logged: if d.is_some() {
                        Logged::Reply
                    } else {
                        Logged::Timeout
                    },
                }
            })
            .collect();
        Scenario {
            iso: Some(IsoProbe {
                interval_ms: 20.0,
                timeout_s: 2.0,
                requests,
                fates: None,
                closed_s: None,
            }),
            ..crate::testing::scenario(1, 1, "codel", &[], 0)
        }
    }

    /// The link's use is a ratio of rates: 11 link bins inside a 12 s
    /// window (the 12th ends past it) beside 60 flow bins of 200 ms read
    /// as the rate they are, not 12/11 of it.
    #[test]
    fn a_trace_round_s_use_is_delivered_rate_over_offered_rate() {
        let mut s = scenario(|_| Some(10.0));
        s.measured_window = Some([0.0, 12.0]);
        s.flows = vec![FlowSeries {
            label: "flow 1".into(),
            direction: "up".into(),
            cc: "cubic".into(),
            bin_s: 0.2,
            // 95 kB per 200 ms: 475 kB/s.
            bytes: vec![95_000; 60],
        }];
        let bin = |k: usize| netlab_results::LinkBin {
            start_s: k as f64,
            end_s: k as f64 + 1.0,
            from_s: k as f64,
            to_s: k as f64 + 1.0,
            // 500 kB/s offered.
            offered_bytes: 500_000.0,
            sent_bytes: 500_000,
            changes: 0,
            refill_bound_bytes: 0,
            backlogged: true,
            tracks: Some(true),
            max_reading_gap_s: 0.1,
        };
        let mut link = step();
        link.bins = (0..11).map(bin).collect();
        let t = trace_point(&s, &link).unwrap();
        assert!((t.utilisation - 0.95).abs() < 1e-9, "{t:?}");
    }

    /// 10 → 2 Mbit/s at 5 s, back at 9 s.
    fn step() -> LinkSeries {
        LinkSeries {
            direction: "up".into(),
            rate_at_t0: Some(10_000_000),
            changes: vec![
                (5.0, Some(5.001), Some(2_000_000)),
                (9.0, Some(9.001), Some(10_000_000)),
            ],
            readings: vec![(0.0, 0), (1.0, 1_250_000), (2.0, 2_500_000)],
            bins: Vec::new(),
            fifo_limit: None,
            lateness_ms: None,
        }
    }

    #[test]
    fn a_drop_is_found_and_an_aqm_recovery_is_timed() {
        let link = step();
        let drops = link.drops();
        assert_eq!(drops.len(), 1);
        assert_eq!((drops[0].at_s, drops[0].until_s), (5.001, Some(9.001)));
        assert_eq!(link.sent_rate()[0], (0.5, 10_000_000.0));
        // Base 10 ms; after the drop 80 ms for 1.3 s, then 14 ms.
        let s = scenario(|t| {
            Some(if (5.0..6.3).contains(&t) {
                80.0
            } else if t >= 6.3 {
                14.0
            } else {
                10.0
            })
        });
        assert_eq!(base_one_way_ms(&s), Some(10.0));
        let r = recoveries(&s, &link, 5.0, 12.0);
        assert_eq!(r.len(), 1);
        // Threshold: 10 + 5 + one frame at 2 Mbit/s (6.056 ms).
        assert!(
            (r[0].threshold_ms - 21.056).abs() < 1e-9,
            "{}",
            r[0].threshold_ms
        );
        assert_eq!(r[0].peak_ms, 80.0);
        let after = r[0].recovered_after_s.unwrap();
        assert!((after - 1.3).abs() < 0.11, "{after}");
        // Under at first, then a spike: recovered only after the spike.
        let late = scenario(|t| Some(if (7.0..7.5).contains(&t) { 60.0 } else { 10.0 }));
        let r = recoveries(&late, &link, 5.0, 12.0);
        let after = r[0].recovered_after_s.unwrap();
        assert!((after - 2.5).abs() < 0.11, "{after}");
        // Never under the threshold: censored at the step's length.
        let stuck = scenario(|t| Some(if t >= 5.0 { 50.0 } else { 10.0 }));
        let r = recoveries(&stuck, &link, 5.0, 12.0);
        assert_eq!(r[0].recovered_after_s, None);
        assert!((r[0].observed_s - 4.0).abs() < 1e-9);
        // A request without a reply is counted apart, not as a delay.
        let lossy = scenario(|t| {
            if (6.3..6.4).contains(&t) {
                None
            } else {
                Some(10.0)
            }
        });
        let r = recoveries(&lossy, &link, 5.0, 12.0);
        assert_eq!(r[0].recovered_after_s, Some(0.0));
        assert_eq!((r[0].peak_ms, r[0].no_reply), (10.0, 5));
    }

    #[test]
    fn a_fifo_is_set_beside_its_bound_at_the_new_rate() {
        let link = step();
        // 128 × 1514 B at 2 Mbit/s = 775 ms; the probe sees 10 + 760 ms.
        let s = scenario(|t| Some(if (6.0..9.0).contains(&t) { 770.0 } else { 10.0 }));
        let f = fifo_after_drops(&s, &link, 128, 12.0);
        assert_eq!(f.len(), 1);
        assert!((f[0].bound_ms - 775.168).abs() < 1e-3, "{}", f[0].bound_ms);
        assert_eq!(f[0].measured_ms, Some(760.0));
        assert!((f[0].ratio().unwrap() - 0.98).abs() < 0.01);
        // One request every 20 ms, a frame 6.056 ms and a request 0.328 ms
        // at 2 Mbit/s: full, the queue delays 775 / (1 + 5.728 / 20) ms
        // and holds about 30 requests.
        let full = f[0].full_with_probe_ms.unwrap();
        assert!(
            (full - 775.168 / (1.0 + (6.056 - 0.328) / 20.0)).abs() < 0.5,
            "{full}"
        );
        assert!((f[0].probe_places.unwrap() - full / 20.0).abs() < 1e-9);
        // A request without a reply is counted apart, not as a delay.
        let dropped = scenario(|t| {
            if (8.0..8.1).contains(&t) {
                None
            } else {
                Some(10.0)
            }
        });
        let f = fifo_after_drops(&dropped, &link, 128, 12.0);
        assert_eq!((f[0].measured_ms, f[0].no_reply), (Some(0.0), 5));
    }
}
