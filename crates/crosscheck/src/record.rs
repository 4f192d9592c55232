//! What one scenario recorded (raw, serializable) and the figures derived
//! from it (pure).

use netlab_probe::{PhaseStats, ProbeRequest};
use netlab_qdisc_model::{Handle, QdiscRecord, QdiscStats};
use netlab_results::SampledQdisc;
use netlab_stats::median;
use netlab_tcpload::tcp_info::INFINITE_SSTHRESH;
use netlab_tcpload::{ReceiverLog, SenderLog, TcpSample};
use serde::{Deserialize, Serialize};

use crate::config::Load;
use crate::external::{Iperf3Report, SsLine, TcQdisc};

/// The arm qdisc's counters at one moment (from netlab's readback).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct QueueSample {
    /// Seconds since t0.
    pub t_s: f64,
    /// Bytes dequeued so far.
    pub bytes: u64,
    /// Packets (skbs) dequeued so far.
    pub packets: u64,
    /// Drops so far.
    pub drops: u64,
    /// Backlog bytes now.
    pub backlog_bytes: u64,
    /// Backlog packets (skbs) now.
    pub backlog_packets: u64,
}

impl QueueSample {
    /// The arm's counters (the qdisc whose parent is `1:1`) in a readback.
    pub fn from_records(t_s: f64, records: &[QdiscRecord]) -> Option<QueueSample> {
        Self::of_arm(t_s, records.iter().map(|r| (r.handle, r.stats.as_ref())))
    }

    /// The arm's counters in one of the periodic samples netlab's runner
    /// keeps (results.json's `qdiscs[].samples`).
    pub fn from_sampled(t_s: f64, records: &[SampledQdisc]) -> Option<QueueSample> {
        Self::of_arm(t_s, records.iter().map(|r| (r.handle, r.stats.as_ref())))
    }

    fn of_arm<'a>(
        t_s: f64,
        mut qdiscs: impl Iterator<Item = (Handle, Option<&'a QdiscStats>)>,
    ) -> Option<QueueSample> {
        let (_, stats) = qdiscs.find(|(h, _)| *h == netlab_qdisc_model::ARM_HANDLE)?;
        let s = stats?;
        Some(QueueSample {
            t_s,
            bytes: s.bytes,
            packets: s.packets,
            drops: u64::from(s.drops),
            backlog_bytes: u64::from(s.backlog_bytes),
            backlog_packets: u64::from(s.backlog_packets),
        })
    }
}

/// One bracketed comparison of a netlab readback with a tool's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadbackCheck {
    /// Seconds since t0 when it started.
    pub t_s: f64,
    /// The arm qdisc per netlab just before `tc`.
    pub qdisc_before: Option<QueueSample>,
    /// The arm qdisc per `tc -s -d -j` (handle 10:).
    pub tc: Option<TcQdisc>,
    /// The arm qdisc per netlab just after `tc`.
    pub qdisc_after: Option<QueueSample>,
    /// The sender's tcp_info per netlab just before `ss`.
    pub tcp_before: Option<TcpSample>,
    /// `ss -tinm` for the same socket.
    pub ss: Option<SsLine>,
    /// The raw `ss` text.
    pub ss_text: String,
    /// The sender's tcp_info per netlab just after `ss`.
    pub tcp_after: Option<TcpSample>,
    /// Errors of this check (a tool that failed), if any.
    pub errors: Vec<String>,
}

impl ReadbackCheck {
    /// Whether every counter `tc` printed lies between netlab's two
    /// readbacks (cumulative counters) and `tc`'s backlog is within the
    /// range the two readbacks saw, widened by one skb of 64 KiB.
    pub fn qdisc_agrees(&self) -> Option<bool> {
        let (b, t, a) = (self.qdisc_before?, self.tc.as_ref()?, self.qdisc_after?);
        let between = |lo: u64, x: u64, hi: u64| lo <= x && x <= hi;
        let lo = b.backlog_bytes.min(a.backlog_bytes).saturating_sub(65_536);
        let hi = b.backlog_bytes.max(a.backlog_bytes) + 65_536;
        Some(
            between(b.bytes, t.bytes, a.bytes)
                && between(b.packets, t.packets, a.packets)
                && between(b.drops, t.drops, a.drops)
                && between(lo, t.backlog, hi),
        )
    }

    /// Whether `ss` agrees with the two bracketing tcp_info samples: mss
    /// equal, and its cumulative counters (total retransmissions, bytes
    /// acked) between the two samples' values. cwnd, ssthresh and RTT are
    /// gauges that may move either way inside the bracket; they are kept
    /// for the markdown page, not judged.
    pub fn tcp_agrees(&self) -> Option<bool> {
        let b = self.tcp_before.as_ref()?.record.info.as_ref()?;
        let a = self.tcp_after.as_ref()?.record.info.as_ref()?;
        let s = self.ss.as_ref()?;
        let within =
            |x: Option<u64>, p: u64, q: u64| x.is_some_and(|x| p.min(q) <= x && x <= p.max(q));
        Some(
            s.mss == Some(u64::from(a.mss))
                // ss omits `retrans:` while there has been none
                && within(s.total_retrans.or(Some(0)), u64::from(b.total_retrans), u64::from(a.total_retrans))
                && within(s.bytes_acked, b.bytes_acked, a.bytes_acked),
        )
    }
}

/// The receiver's side, compact (the per-recv log stays out of the JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReceiverDigest {
    /// Bytes received and validated.
    pub bytes_total: u64,
    /// Validation failures (expected 0).
    pub validation_failures: u64,
    /// recv calls.
    pub recvs: usize,
    /// Mean bytes per recv.
    pub mean_recv_bytes: f64,
    /// poll wakeups of B's loop.
    pub wakeups: u64,
    /// How the connection ended.
    pub tcp_end: String,
    /// When B's loop accepted the connection (s since t0).
    #[serde(default)]
    pub accepted_s: Option<f64>,
    /// When the first recv returned data (s since t0).
    #[serde(default)]
    pub first_recv_s: Option<f64>,
}

impl ReceiverDigest {
    /// From B's log.
    pub fn from_log<Echo>(log: &ReceiverLog<Echo>) -> ReceiverDigest {
        let n = log.recvs.t_us.len();
        ReceiverDigest {
            bytes_total: log.bytes_total,
            validation_failures: log.validation.failures,
            recvs: n,
            mean_recv_bytes: if n == 0 {
                0.0
            } else {
                log.bytes_total as f64 / n as f64
            },
            wakeups: log.wakeups,
            tcp_end: format!("{:?}", log.tcp_end),
            accepted_s: log.accepted_s,
            first_recv_s: log.recvs.t_us.first().map(|t| *t as f64 / 1e6),
        }
    }
}

/// Everything one scenario recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRecord {
    /// 1-based position in the run.
    pub index: u32,
    /// Round.
    pub round: u32,
    /// Arm kind ("pfifo").
    pub arm: String,
    /// Arm words.
    pub arm_words: String,
    /// The load's label ("netlab", "iperf3").
    pub load_label: String,
    /// The load.
    pub load: Option<Load>,
    /// Kernel release the scenario ran on.
    pub kernel: String,
    /// Wall clock at t0, ns since the epoch.
    pub t0_wall_ns: i64,
    /// What failed, if anything (the rest is what was measured until then).
    pub error: Option<String>,
    /// When the load was started (s since t0).
    pub load_start_s: f64,
    /// When the load's data connection was established (s since t0).
    pub connect_s: Option<f64>,
    /// The measured window `[start, end)` (s since t0), from the connect.
    pub window_s: (f64, f64),
    /// Goodput over the window by the load's own receiver: netlab by
    /// post-recv timestamps; iperf3 by its server's 200 ms intervals.
    pub goodput_mbps: Option<f64>,
    /// Goodput over the window by B's tcp_info `bytes_received` (the same
    /// method for both loads).
    pub goodput_b_tcpinfo_mbps: Option<f64>,
    /// netlab's probe: every request.
    pub probe: Vec<ProbeRequest>,
    /// Its loaded-phase statistics.
    pub probe_loaded: Option<PhaseStats>,
    /// irtt's round trips as requests (censored at the probe timeout).
    pub irtt: Vec<ProbeRequest>,
    /// Their loaded-phase statistics.
    pub irtt_loaded: Option<PhaseStats>,
    /// netlab's isochronous probe at the same spacing, when the
    /// configuration asks for it: every slot that was sent, as a request
    /// (a reply at or past the timeout is a timeout, as for irtt).
    #[serde(default)]
    pub iso: Vec<ProbeRequest>,
    /// Their loaded-phase statistics.
    #[serde(default)]
    pub iso_loaded: Option<PhaseStats>,
    /// Whether every aggregation feature of every veth end of A, R and B
    /// read back off after the build (`None`: not read back, or a record
    /// from before the offloads were read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offloads_off: Option<bool>,
    /// The arm's counters every 200 ms.
    pub queue: Vec<QueueSample>,
    /// The arm's counters at the end of the window.
    pub queue_final: Option<QueueSample>,
    /// The sender's tcp_info (sock_diag in A), every 200 ms.
    pub tcp_a: Vec<TcpSample>,
    /// The receiver's tcp_info (sock_diag in B), every 200 ms.
    pub tcp_b: Vec<TcpSample>,
    /// Pairing 3 at the readback moment.
    pub readback: Option<ReadbackCheck>,
    /// netlab's sender log.
    pub sender: Option<SenderLog>,
    /// netlab's receiver summary.
    pub receiver: Option<ReceiverDigest>,
    /// iperf3's client report.
    pub iperf_client: Option<Iperf3Report>,
    /// iperf3's server report.
    pub iperf_server: Option<Iperf3Report>,
    /// Derived figures.
    pub metrics: Metrics,
}

/// Figures derived from one [`ScenarioRecord`] (pure).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Arm drops over the whole scenario (final readback).
    pub drops: Option<u64>,
    /// Arm drops inside the window.
    pub drops_window: Option<u64>,
    /// Mean backlog over the window's samples, packets (skbs).
    pub backlog_packets_mean: Option<f64>,
    /// Mean backlog over the window's samples, bytes.
    pub backlog_bytes_mean: Option<f64>,
    /// The same as a standing queue delay at the TBF rate, ms.
    pub backlog_delay_ms: Option<f64>,
    /// Mean size of an skb in the queue: Σ backlog bytes / Σ backlog packets.
    pub skb_in_queue_bytes: Option<f64>,
    /// Mean size of a dequeued skb over the window: Δbytes / Δpackets.
    pub skb_sent_bytes: Option<f64>,
    /// Window reductions: changes of ssthresh in the sender's samples.
    pub reductions: Option<u32>,
    /// Of those, how many before the window (the slow-start overshoot).
    pub reductions_before_window: Option<u32>,
    /// Total retransmitted segments (last sample).
    pub total_retrans: Option<u32>,
    /// Largest cwnd seen (segments).
    pub cwnd_max: Option<u32>,
    /// Mean cwnd over the window.
    pub cwnd_mean_window: Option<f64>,
    /// Mean smoothed TCP RTT over the window, ms.
    pub tcp_rtt_mean_ms: Option<f64>,
    /// Median of the sender's smoothed TCP RTT samples over the window, ms
    /// (the standing state's figure, method §13.5; absent in runs recorded
    /// before it existed).
    #[serde(default)]
    pub tcp_rtt_median_ms: Option<f64>,
    /// B's first receive-RTT estimate (tcp_info `rcv_rtt`, the first
    /// non-zero sample), ms: the seed of receive-buffer autotuning, set by
    /// the idle time before the first full data segment (method §1.3).
    /// Seen only with a fine `tcp_sample_ms`; absent before it existed.
    #[serde(default)]
    pub rcv_rtt_first_ms: Option<f64>,
    /// Time the sender was limited by the receive window (last sample), ms.
    pub rwnd_limited_ms: Option<f64>,
    /// Time the sender was limited by its send buffer (last sample), ms.
    pub sndbuf_limited_ms: Option<f64>,
    /// Largest advertised receive window seen by the sender (`snd_wnd`).
    pub snd_wnd_max: Option<u32>,
}

fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| s / n as f64)
}

impl Metrics {
    /// Derives the figures; `window` is `[start, end)` in s since t0,
    /// `load_start_s` when the load started, `rate_bytes_per_s` the TBF rate.
    pub fn derive(rec: &ScenarioRecord, window: (f64, f64), rate_bytes_per_s: f64) -> Metrics {
        let (ws, we) = window;
        let inside: Vec<&QueueSample> = rec
            .queue
            .iter()
            .filter(|q| q.t_s >= ws && q.t_s < we)
            .collect();
        let mut m = Metrics {
            drops: rec.queue_final.map(|q| q.drops),
            ..Metrics::default()
        };
        if let (Some(first), Some(last)) = (
            inside.first(),
            rec.queue_final.or(inside.last().copied().copied()),
        ) {
            m.drops_window = Some(last.drops.saturating_sub(first.drops));
            let dp = last.packets.saturating_sub(first.packets);
            m.skb_sent_bytes =
                (dp > 0).then(|| last.bytes.saturating_sub(first.bytes) as f64 / dp as f64);
        }
        m.backlog_packets_mean = mean(inside.iter().map(|q| q.backlog_packets as f64));
        m.backlog_bytes_mean = mean(inside.iter().map(|q| q.backlog_bytes as f64));
        m.backlog_delay_ms = m.backlog_bytes_mean.map(|b| b / rate_bytes_per_s * 1e3);
        let (bb, bp) = inside.iter().fold((0u64, 0u64), |(b, p), q| {
            (b + q.backlog_bytes, p + q.backlog_packets)
        });
        m.skb_in_queue_bytes = (bp > 0).then(|| bb as f64 / bp as f64);

        m.rcv_rtt_first_ms = rec
            .tcp_b
            .iter()
            .filter_map(|s| s.record.info.as_ref())
            .find(|i| i.rcv_rtt_us > 0)
            .map(|i| f64::from(i.rcv_rtt_us) / 1e3);
        let infos: Vec<(f64, &netlab_tcpload::TcpInfo)> = rec
            .tcp_a
            .iter()
            .filter_map(|s| s.record.info.as_ref().map(|i| (s.start_s, i)))
            .collect();
        if !infos.is_empty() {
            let mut changes = 0u32;
            let mut before = 0u32;
            for w in infos.windows(2) {
                if w[1].1.ssthresh != w[0].1.ssthresh {
                    changes += 1;
                    if w[1].0 < ws {
                        before += 1;
                    }
                }
            }
            // A first sample already below "infinite" means a reduction
            // happened before sampling began.
            if infos[0].1.ssthresh < INFINITE_SSTHRESH {
                changes += 1;
                before += 1;
            }
            m.reductions = Some(changes);
            m.reductions_before_window = Some(before);
            let last = infos[infos.len() - 1].1;
            m.total_retrans = Some(last.total_retrans);
            m.rwnd_limited_ms = Some(last.rwnd_limited_us as f64 / 1e3);
            m.sndbuf_limited_ms = Some(last.sndbuf_limited_us as f64 / 1e3);
            m.cwnd_max = infos.iter().map(|(_, i)| i.cwnd).max();
            m.snd_wnd_max = infos.iter().filter_map(|(_, i)| i.snd_wnd).max();
            let win = || infos.iter().filter(|(t, _)| *t >= ws && *t < we);
            m.cwnd_mean_window = mean(win().map(|(_, i)| f64::from(i.cwnd)));
            m.tcp_rtt_mean_ms = mean(win().map(|(_, i)| f64::from(i.rtt_us) / 1e3));
            m.tcp_rtt_median_ms = median(
                &mut win()
                    .map(|(_, i)| f64::from(i.rtt_us) / 1e3)
                    .collect::<Vec<_>>(),
            );
        }
        m
    }
}

/// Goodput over `[ws, we)` from B's tcp_info `bytes_received`, using the
/// samples nearest inside each edge (Mbit/s).
pub fn tcpinfo_goodput(samples: &[TcpSample], ws: f64, we: f64) -> Option<f64> {
    let pts: Vec<(f64, u64)> = samples
        .iter()
        .filter_map(|s| {
            s.record
                .info
                .as_ref()
                .map(|i| ((s.start_s + s.end_s) / 2.0, i.bytes_received))
        })
        .filter(|(t, _)| *t >= ws && *t < we)
        .collect();
    let (first, last) = (pts.first()?, pts.last()?);
    let dt = last.0 - first.0;
    (dt > 0.5).then(|| (last.1.saturating_sub(first.1)) as f64 * 8.0 / dt / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(t_s: f64, bytes: u64, packets: u64, drops: u64, bb: u64, bp: u64) -> QueueSample {
        QueueSample {
            t_s,
            bytes,
            packets,
            drops,
            backlog_bytes: bb,
            backlog_packets: bp,
        }
    }

    #[test]
    fn queue_metrics_over_the_window() {
        let rec = ScenarioRecord {
            queue: vec![
                q(1.0, 0, 0, 0, 0, 0),
                q(6.0, 1000, 10, 1, 3000, 2),
                q(6.2, 2000, 20, 3, 9000, 4),
                q(18.5, 9000, 90, 9, 0, 0),
            ],
            queue_final: Some(q(18.0, 5000, 40, 5, 6000, 3)),
            ..ScenarioRecord::default()
        };
        let m = Metrics::derive(&rec, (6.0, 18.0), 625_000.0);
        assert_eq!(m.drops, Some(5));
        assert_eq!(m.drops_window, Some(4));
        assert_eq!(m.backlog_packets_mean, Some(3.0));
        assert_eq!(m.backlog_bytes_mean, Some(6000.0));
        assert_eq!(m.skb_in_queue_bytes, Some(2000.0));
        assert_eq!(m.skb_sent_bytes, Some(4000.0 / 30.0));
        assert!((m.backlog_delay_ms.unwrap() - 9.6).abs() < 1e-9);
        assert_eq!(m.reductions, None);
    }

    fn sample(t: f64, cwnd: u32, ssthresh: u32, retrans: u32, rwnd_us: u64) -> TcpSample {
        let mut info = netlab_tcpload::TcpInfoView::new(&[0u8; 232])
            .unwrap()
            .decode();
        (
            info.cwnd,
            info.ssthresh,
            info.total_retrans,
            info.rwnd_limited_us,
            info.rtt_us,
        ) = (cwnd, ssthresh, retrans, rwnd_us, 500_000);
        TcpSample {
            start_s: t,
            end_s: t,
            record: netlab_tcpload::sampler::DiagRecord {
                state: 1,
                inode: 1,
                recv_queue: 0,
                send_queue: 0,
                info: Some(info),
                congestion: None,
                skmeminfo: None,
            },
        }
    }

    #[test]
    fn reductions_are_ssthresh_changes_split_at_the_window() {
        let inf = INFINITE_SSTHRESH;
        let rec = ScenarioRecord {
            tcp_a: vec![
                sample(3.0, 10, inf, 0, 0),
                sample(4.0, 800, inf, 0, 0),
                sample(5.0, 700, 450, 30, 0),
                sample(5.2, 450, 450, 90, 0),
                sample(8.0, 300, 230, 120, 0),
                sample(9.0, 232, 230, 130, 40_000),
            ],
            ..ScenarioRecord::default()
        };
        let m = Metrics::derive(&rec, (6.0, 18.0), 625_000.0);
        assert_eq!(m.reductions, Some(2));
        assert_eq!(m.reductions_before_window, Some(1));
        assert_eq!(m.total_retrans, Some(130));
        assert_eq!(m.cwnd_max, Some(800));
        assert_eq!(m.cwnd_mean_window, Some(266.0));
        assert_eq!(m.tcp_rtt_mean_ms, Some(500.0));
        assert_eq!(m.rwnd_limited_ms, Some(40.0));
    }
}
