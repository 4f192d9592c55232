//! A moving bottleneck as results.json keeps it (docs/method.md §15.4,
//! §15.5): per direction whose rate followed a schedule, every change
//! (planned, sent, acknowledged, rate), the TBF's counters as the driver
//! read them, and per 1 s bin from t0 the bytes the schedule offered
//! beside the bytes the TBF sent. An optional field of version 3:
//! absent from files written before it, and from runs without a
//! schedule, which read as before.
//!
//! [`link_bins`] is the one definition of the bins; the run calls it when
//! it records a scenario, and every reader reads what it wrote.

use std::time::Duration;

use netlab_experiment::RateSchedule;
use netlab_qdisc_model::{RateLog, TbfReading};
use serde::{Deserialize, Serialize};

/// The length of the bins sent bytes are set beside the schedule over.
pub const LINK_BIN: Duration = Duration::from_secs(1);

/// A backlogged bin tracks the schedule when its sent bytes are within
/// this share of what the schedule offered (plus the bursts its changes
/// refilled).
pub const TRACKING_TOLERANCE: f64 = 0.05;

/// One direction whose rate followed a schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkResult {
    /// `up` or `down`.
    pub direction: String,
    /// R's interface.
    pub dev: String,
    /// TBF's burst, bytes: what each change may let through at once.
    pub burst_bytes: u64,
    /// The rate the TBF was made with (the schedule's at t0).
    pub rate_at_t0: netlab_qdisc_model::Rate,
    /// The schedule starts with an outage (held at the hold rate).
    #[serde(default)]
    pub outage_at_t0: bool,
    /// The FIFO child's limit every change carried (absent: the arm is
    /// no FIFO, and TBF's own limit was sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fifo_limit_carried: Option<u32>,
    /// What the driver did.
    pub log: RateLog,
    /// Sent against offered, per [`LINK_BIN`] from t0.
    pub bins: Vec<LinkBin>,
}

/// One bin of sent bytes beside the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LinkBin {
    /// The bin, seconds from t0.
    pub start_s: f64,
    /// Its end.
    pub end_s: f64,
    /// The readings that bound it: the first at or after its start…
    pub from_s: f64,
    /// …and the first at or after its end.
    pub to_s: f64,
    /// What the schedule offered between the two readings, bytes.
    pub offered_bytes: f64,
    /// What the TBF sent between them, bytes.
    pub sent_bytes: u64,
    /// Changes whose refilled burst may have left between them (applied
    /// before the end, and its burst's time at the new rate, at most a
    /// bin, reaching past the start).
    pub changes: u32,
    /// The most a change's bucket refill let through: `changes × burst`.
    pub refill_bound_bytes: u64,
    /// The arm held a queue at every reading between them.
    pub backlogged: bool,
    /// For a backlogged bin: sent within [`TRACKING_TOLERANCE`] of the
    /// offer (below), of the offer plus the refills (above).
    pub tracks: Option<bool>,
    /// The longest gap between two readings in the bin, s: the driver
    /// reads every 100 ms, so a longer gap means the machine was late
    /// (a CPU-starved guest delays the TBF's own timer too).
    #[serde(default)]
    pub max_reading_gap_s: f64,
}

impl LinkBin {
    /// (sent − offered) ÷ offered; `None` when nothing was offered.
    pub fn deviation(&self) -> Option<f64> {
        (self.offered_bytes > 0.0)
            .then(|| (self.sent_bytes as f64 - self.offered_bytes) / self.offered_bytes)
    }
}

/// The bins of a scenario that ran until `end` (from t0): each [`LINK_BIN`]
/// bounded by the first readings at or after its edges, the schedule's
/// offer over exactly that interval, the TBF's sent bytes over it, and
/// whether the arm held a queue at every reading in it. A bin without a
/// reading at both edges is left out (the driver ended first).
pub fn link_bins(
    schedule: &RateSchedule,
    log: &RateLog,
    burst_bytes: u64,
    end: Duration,
) -> Vec<LinkBin> {
    let at_or_after = |s: f64| -> Option<&TbfReading> { log.readings.iter().find(|r| r.at_s >= s) };
    let mut out = Vec::new();
    let n = (end.as_secs_f64() / LINK_BIN.as_secs_f64()).floor() as usize;
    for k in 0..n {
        let start_s = k as f64 * LINK_BIN.as_secs_f64();
        let end_s = start_s + LINK_BIN.as_secs_f64();
        let (Some(a), Some(b)) = (at_or_after(start_s), at_or_after(end_s)) else {
            break;
        };
        if b.at_s <= a.at_s {
            continue;
        }
        let offered_bytes = schedule.offered_bytes(
            Duration::from_secs_f64(a.at_s),
            Duration::from_secs_f64(b.at_s),
        );
        // A change's refilled burst leaves in the time the new rate takes
        // to send it: the change counts in every bin that time overlaps.
        let changes = log
            .changes
            .iter()
            .filter(|c| {
                c.applied_s.is_some_and(|t| {
                    let drain = burst_bytes as f64 * 8.0 / c.rate.bits_per_sec().max(1) as f64;
                    t <= b.at_s && t + drain.min(LINK_BIN.as_secs_f64()) > a.at_s
                })
            })
            .count() as u32;
        let backlogged = log
            .readings
            .iter()
            .filter(|r| r.at_s >= a.at_s && r.at_s <= b.at_s)
            .all(|r| r.arm_qlen > 0);
        let inside: Vec<f64> = log
            .readings
            .iter()
            .filter(|r| r.at_s >= a.at_s && r.at_s <= b.at_s)
            .map(|r| r.at_s)
            .collect();
        let max_reading_gap_s = inside.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
        let sent_bytes = b.bytes.saturating_sub(a.bytes);
        let refill_bound_bytes = u64::from(changes) * burst_bytes;
        let tracks = backlogged.then(|| {
            let sent = sent_bytes as f64;
            sent >= (1.0 - TRACKING_TOLERANCE) * offered_bytes
                && sent <= (1.0 + TRACKING_TOLERANCE) * offered_bytes + refill_bound_bytes as f64
        });
        out.push(LinkBin {
            start_s,
            end_s,
            from_s: a.at_s,
            to_s: b.at_s,
            offered_bytes,
            sent_bytes,
            changes,
            refill_bound_bytes,
            backlogged,
            tracks,
            max_reading_gap_s,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_qdisc_model::{Rate, RateChange};

    fn reading(at_s: f64, bytes: u64, arm_qlen: u32) -> TbfReading {
        TbfReading {
            at_s,
            bytes,
            packets: 0,
            drops: 0,
            overlimits: 0,
            arm_backlog_bytes: 0,
            arm_qlen,
        }
    }

    #[test]
    fn bins_set_sent_bytes_beside_the_offer_between_their_readings() {
        let schedule = netlab_experiment::parse(
            "[path.up]\nrate_schedule = [[\"0s\", \"8mbit\"], [\"1s\", \"0\"], [\"2s\", \"8mbit\"]]\n",
        )
        .unwrap()
        .path
        .up_schedule
        .unwrap();
        // 1 MB/s, readings every 0.5 s (a little late), queue held
        // throughout but empty at 2.5 s.
        let log = RateLog {
            changes: vec![RateChange {
                planned_s: 1.0,
                sent_s: Some(1.0),
                applied_s: Some(1.0005),
                rate: Rate(8),
                outage: true,
                error: None,
            }],
            readings: vec![
                reading(0.01, 0, 5),
                reading(0.51, 500_000, 5),
                reading(1.01, 1_000_000 + 16_000, 5),
                reading(1.51, 1_016_000, 5),
                reading(2.01, 1_026_000, 5),
                reading(2.51, 1_526_000, 0),
                reading(3.01, 2_026_000, 5),
            ],
            ..RateLog::default()
        };
        let bins = link_bins(&schedule, &log, 16_384, Duration::from_secs(3));
        assert_eq!(bins.len(), 3);
        // 0.01–1.01 s: 0.99 s at 1 MB/s + 0.01 s of outage.
        assert!(
            (bins[0].offered_bytes - 990_000.0).abs() < 1.0,
            "{:?}",
            bins[0]
        );
        assert_eq!(bins[0].sent_bytes, 1_016_000);
        assert_eq!((bins[0].changes, bins[0].refill_bound_bytes), (1, 16_384));
        // 2.6 % over the offer, within the refill: tracks.
        assert_eq!(bins[0].tracks, Some(true));
        // 1.01–2.01 s: the outage, then 0.01 s at 1 MB/s: 10 kB offered,
        // 10 kB sent.
        assert_eq!(bins[1].tracks, Some(true));
        // The queue read empty at 2.51 s: not backlogged, no verdict.
        assert_eq!((bins[2].backlogged, bins[2].tracks), (false, None));
        assert!((bins[2].max_reading_gap_s - 0.5).abs() < 1e-9);
        // A driver that ended early leaves its last bins out.
        let short = RateLog {
            readings: log.readings[..3].to_vec(),
            ..log.clone()
        };
        assert_eq!(
            link_bins(&schedule, &short, 16_384, Duration::from_secs(3)).len(),
            1
        );
    }
}
