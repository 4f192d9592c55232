//! Per-recv log, goodput over a window and the delivered-bytes series
//! (pure; time is "since t0", passed in).
//!
//! A recv block is assigned to a window by the timestamp taken after its
//! `recv` returned; a block is never split across windows or bins.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Every recv of the controlled flow: post-recv time since t0 (whole
/// microseconds, truncated) and length, stored column-wise to stay compact
/// in JSON. Figures computed from it use the stored values, so they can be
/// recomputed exactly from the kept data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecvLog {
    /// Post-recv timestamp of each block, microseconds since t0.
    pub t_us: Vec<u64>,
    /// Length of each block in bytes.
    pub len: Vec<u32>,
}

impl RecvLog {
    /// Records one recv block that ended `since_t0` after t0.
    pub fn push(&mut self, since_t0: Duration, len: usize) {
        self.t_us.push(since_t0.as_micros() as u64);
        self.len.push(len.min(u32::MAX as usize) as u32);
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.t_us.len().min(self.len.len())
    }

    /// Whether no block was recorded.
    pub fn is_empty(&self) -> bool {
        self.blocks() == 0
    }

    /// `(post-recv time since t0, length)` of each block.
    pub fn iter(&self) -> impl Iterator<Item = (Duration, u32)> + '_ {
        self.t_us
            .iter()
            .zip(self.len.iter())
            .map(|(t, l)| (Duration::from_micros(*t), *l))
    }

    /// Sum of all block lengths.
    pub fn bytes_total(&self) -> u64 {
        self.len.iter().map(|l| u64::from(*l)).sum()
    }
}

/// A half-open measurement window `[start, end)` relative to t0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoodputWindow {
    /// Window start (inclusive), since t0.
    pub start: Duration,
    /// Window end (exclusive), since t0.
    pub end: Duration,
}

impl GoodputWindow {
    /// The method §3 measured load window, 6–18 s.
    pub const METHOD: GoodputWindow = GoodputWindow {
        start: Duration::from_secs(6),
        end: Duration::from_secs(18),
    };

    /// Whether `t` falls in `[start, end)`.
    pub fn contains(&self, t: Duration) -> bool {
        t >= self.start && t < self.end
    }

    /// Window length.
    pub fn len(&self) -> Duration {
        self.end.saturating_sub(self.start)
    }

    /// Whether the window is empty (`end <= start`).
    pub fn is_empty(&self) -> bool {
        self.len().is_zero()
    }
}

/// Goodput over one window (serializable).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Goodput {
    /// Window start, seconds since t0.
    pub window_start_s: f64,
    /// Window end, seconds since t0.
    pub window_end_s: f64,
    /// Bytes of the blocks whose post-recv timestamp is in the window.
    pub bytes: u64,
    /// Number of such blocks.
    pub blocks: u64,
    /// `bytes × 8 / window seconds / 1e6`; `None` for an empty window.
    pub mbit_per_s: Option<f64>,
}

/// Goodput of `log` over `window` (method §4): whole blocks by post-recv time.
pub fn goodput(log: &RecvLog, window: GoodputWindow) -> Goodput {
    let (mut bytes, mut blocks) = (0u64, 0u64);
    for (t, len) in log.iter() {
        if window.contains(t) {
            bytes += u64::from(len);
            blocks += 1;
        }
    }
    let secs = window.len().as_secs_f64();
    Goodput {
        window_start_s: window.start.as_secs_f64(),
        window_end_s: window.end.as_secs_f64(),
        bytes,
        blocks,
        mbit_per_s: (secs > 0.0).then(|| bytes as f64 * 8.0 / secs / 1e6),
    }
}

/// Delivered bytes per fixed bin (serializable): bin `i` covers
/// `[i·bin, (i+1)·bin)` since t0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveredSeries {
    /// Bin width in seconds (0.2 by default).
    pub bin_s: f64,
    /// Bytes per bin, from t0.
    pub bytes: Vec<u64>,
    /// Bytes of blocks at or after `until` (not in any bin).
    pub bytes_after: u64,
}

/// The delivered-bytes series of `log` with bins of `bin` up to `until`
/// (the last bin may be partial). A zero `bin` yields no bins.
pub fn delivered_series(log: &RecvLog, bin: Duration, until: Duration) -> DeliveredSeries {
    let bin_us = bin.as_micros() as u64;
    let until_us = until.as_micros() as u64;
    let nbins = if bin_us == 0 {
        0
    } else {
        until_us.div_ceil(bin_us) as usize
    };
    let mut bytes = vec![0u64; nbins];
    let mut bytes_after = 0;
    for (t, len) in log.t_us.iter().zip(log.len.iter()) {
        if *t < until_us && bin_us > 0 {
            bytes[(*t / bin_us) as usize] += u64::from(*len);
        } else {
            bytes_after += u64::from(*len);
        }
    }
    DeliveredSeries {
        bin_s: bin.as_secs_f64(),
        bytes,
        bytes_after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn log(blocks: &[(u64, usize)]) -> RecvLog {
        let mut l = RecvLog::default();
        for (t_us, len) in blocks {
            l.push(Duration::from_micros(*t_us), *len);
        }
        l
    }

    #[test]
    fn window_is_half_open_and_blocks_are_not_split() {
        // A block stamped exactly at the start counts; one exactly at the end
        // does not; a block 1 µs before the start does not, whatever its size.
        let l = log(&[
            (5_999_999, 1_000_000),
            (6_000_000, 1000),
            (12_000_000, 2000),
            (17_999_999, 3000),
            (18_000_000, 4000),
        ]);
        let g = goodput(&l, GoodputWindow::METHOD);
        assert_eq!(g.bytes, 6000);
        assert_eq!(g.blocks, 3);
        let want = 6000.0 * 8.0 / 12.0 / 1e6;
        assert!((g.mbit_per_s.unwrap() - want).abs() < 1e-12);
        assert_eq!((g.window_start_s, g.window_end_s), (6.0, 18.0));
    }

    #[test]
    fn steady_5_mbit_stream_gives_5_mbit() {
        // 625 000 B/s in 1250-byte blocks every 2 ms from 3 s to 18 s.
        let mut l = RecvLog::default();
        let mut t = 3_000_000u64;
        while t < 18_000_000 {
            l.push(Duration::from_micros(t), 1250);
            t += 2000;
        }
        let g = goodput(&l, GoodputWindow::METHOD);
        assert!((g.mbit_per_s.unwrap() - 5.0).abs() < 1e-9, "{g:?}");
    }

    #[test]
    fn empty_window_has_no_rate() {
        let l = log(&[(1, 10)]);
        let g = goodput(
            &l,
            GoodputWindow {
                start: ms(5),
                end: ms(5),
            },
        );
        assert_eq!(g.mbit_per_s, None);
        assert_eq!(g.bytes, 0);
    }

    #[test]
    fn timestamps_truncate_to_microseconds() {
        let mut l = RecvLog::default();
        l.push(Duration::from_nanos(5_999_999_999), 7); // stored as 5 999 999 µs
        assert_eq!(l.t_us, vec![5_999_999]);
        assert_eq!(goodput(&l, GoodputWindow::METHOD).bytes, 0);
    }

    #[test]
    fn series_bins_by_post_recv_time_with_edges() {
        let l = log(&[
            (0, 1),
            (199_999, 2),
            (200_000, 4),
            (399_999, 8),
            (950_000, 16),
            (1_000_000, 32), // == until: after
            (5_000_000, 64),
        ]);
        let s = delivered_series(&l, ms(200), ms(1000));
        assert_eq!(s.bytes, vec![3, 12, 0, 0, 16]);
        assert_eq!(s.bytes_after, 96);
        assert_eq!(s.bin_s, 0.2);
        assert_eq!(s.bytes.iter().sum::<u64>() + s.bytes_after, l.bytes_total());
    }

    #[test]
    fn series_partial_last_bin_and_zero_bin() {
        let l = log(&[(1_050_000, 5)]);
        let s = delivered_series(&l, ms(200), ms(1100));
        assert_eq!(s.bytes.len(), 6);
        assert_eq!(s.bytes[5], 5);
        let z = delivered_series(&l, Duration::ZERO, ms(1100));
        assert!(z.bytes.is_empty());
        assert_eq!(z.bytes_after, 5);
    }
}
