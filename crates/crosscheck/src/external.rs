//! Typed views of what the independent tools print (pure): iperf3's and
//! irtt's JSON, `tc -s -d -j qdisc show`, and `ss -tinm` lines.

use std::time::Duration;

use netlab_probe::{PhaseBounds, ProbeRequest, RequestOutcome};
use serde::{Deserialize, Serialize};

use crate::CrosscheckError;

/// One interval of an iperf3 JSON report (`intervals[].sum`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Iperf3Interval {
    /// Seconds since iperf3's own test start.
    pub start: f64,
    /// End, same origin.
    pub end: f64,
    /// Bytes in the interval.
    pub bytes: u64,
}

#[derive(Deserialize)]
struct IperfJson {
    #[serde(default)]
    intervals: Vec<IperfIntervalJson>,
    end: IperfEndJson,
    #[serde(default)]
    error: Option<String>,
}
#[derive(Deserialize)]
struct IperfIntervalJson {
    sum: Iperf3Interval,
}
#[derive(Deserialize)]
struct IperfEndJson {
    #[serde(default)]
    sum_received: Option<IperfSumJson>,
    #[serde(default)]
    sum_sent: Option<IperfSumJson>,
}
#[derive(Deserialize)]
struct IperfSumJson {
    bytes: u64,
    seconds: f64,
    #[serde(default)]
    retransmits: Option<u64>,
}

/// What one iperf3 JSON report says.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Iperf3Report {
    /// Per-interval bytes (receiver side for the server's report).
    pub intervals: Vec<Iperf3Interval>,
    /// `end.sum_received.bytes` and its seconds.
    pub received_bytes: Option<u64>,
    /// `end.sum_received.seconds`.
    pub received_s: Option<f64>,
    /// `end.sum_sent.bytes`.
    pub sent_bytes: Option<u64>,
    /// `end.sum_sent.retransmits` (client side).
    pub retransmits: Option<u64>,
}

impl Iperf3Report {
    /// Parses iperf3's `-J` output; an `"error"` member is an error.
    pub fn parse(json: &str) -> Result<Iperf3Report, CrosscheckError> {
        let v: IperfJson =
            serde_json::from_str(json).map_err(|e| CrosscheckError::tool("iperf3 JSON", e))?;
        if let Some(err) = v.error {
            return Err(CrosscheckError::tool("iperf3", err));
        }
        let recv = v.end.sum_received;
        let sent = v.end.sum_sent;
        Ok(Iperf3Report {
            intervals: v.intervals.into_iter().map(|i| i.sum).collect(),
            received_bytes: recv.as_ref().map(|s| s.bytes),
            received_s: recv.as_ref().map(|s| s.seconds),
            sent_bytes: sent.as_ref().map(|s| s.bytes),
            retransmits: sent.and_then(|s| s.retransmits),
        })
    }

    /// Goodput (Mbit/s) of the intervals lying inside `[from, to)` seconds
    /// of iperf3's own clock (an interval counts when its midpoint does).
    pub fn window_mbps(&self, from: f64, to: f64) -> Option<f64> {
        let inside: Vec<&Iperf3Interval> = self
            .intervals
            .iter()
            .filter(|i| {
                let mid = (i.start + i.end) / 2.0;
                mid >= from && mid < to
            })
            .collect();
        let secs: f64 = inside.iter().map(|i| i.end - i.start).sum();
        let bytes: u64 = inside.iter().map(|i| i.bytes).sum();
        (secs > 0.0).then(|| bytes as f64 * 8.0 / secs / 1e6)
    }
}

#[derive(Deserialize)]
struct IrttJson {
    round_trips: Vec<IrttRoundTrip>,
}
#[derive(Deserialize)]
struct IrttRoundTrip {
    seqno: u32,
    lost: String,
    timestamps: IrttTimestamps,
    #[serde(default)]
    delay: IrttDelay,
}
#[derive(Deserialize)]
struct IrttTimestamps {
    client: IrttClientTs,
}
#[derive(Deserialize)]
struct IrttClientTs {
    send: IrttWall,
    #[serde(default)]
    receive: Option<IrttWall>,
}
#[derive(Deserialize)]
struct IrttWall {
    #[serde(default)]
    wall: Option<i64>,
}
#[derive(Deserialize, Default)]
struct IrttDelay {
    #[serde(default)]
    rtt: Option<i64>,
}

/// irtt's round trips as netlab probe requests, so the same statistics
/// rules apply to both: send time since t0 from irtt's wall clock, a reply
/// counts only if its RTT is below `timeout` (netlab's censoring bound);
/// later replies and lost packets become timeouts. `t0_wall_ns` is the
/// wall clock (ns since the epoch) at t0.
pub fn irtt_requests(
    json: &str,
    t0_wall_ns: i64,
    timeout: Duration,
    phases: &PhaseBounds,
) -> Result<Vec<ProbeRequest>, CrosscheckError> {
    let v: IrttJson =
        serde_json::from_str(json).map_err(|e| CrosscheckError::tool("irtt JSON", e))?;
    let bound_ms = timeout.as_secs_f64() * 1e3;
    Ok(v.round_trips
        .into_iter()
        .map(|rt| {
            let send_s =
                (rt.timestamps.client.send.wall.unwrap_or(t0_wall_ns) - t0_wall_ns) as f64 / 1e9;
            let rtt_ms = match (&*rt.lost, rt.delay.rtt) {
                ("false", Some(ns)) => Some(ns as f64 / 1e6),
                _ => None,
            }
            .filter(|ms| *ms < bound_ms);
            let reply_s = rtt_ms.and(
                rt.timestamps
                    .client
                    .receive
                    .and_then(|r| r.wall)
                    .map(|w| (w - t0_wall_ns) as f64 / 1e9),
            );
            ProbeRequest {
                seq: rt.seqno,
                due_s: send_s,
                send_s,
                reply_s,
                rtt_ms,
                late_rtt_ms: None,
                phase: phases.phase_of(Duration::from_secs_f64(send_s.max(0.0))),
                outcome: if rtt_ms.is_some() {
                    RequestOutcome::Reply
                } else {
                    RequestOutcome::Timeout
                },
            }
        })
        .collect())
}

/// One qdisc of `tc -s -d -j qdisc show`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcQdisc {
    /// Kind, e.g. "tbf".
    pub kind: String,
    /// Handle, e.g. "1:".
    pub handle: String,
    /// Bytes sent.
    #[serde(default)]
    pub bytes: u64,
    /// Packets sent.
    #[serde(default)]
    pub packets: u64,
    /// Drops.
    #[serde(default)]
    pub drops: u64,
    /// Overlimits.
    #[serde(default)]
    pub overlimits: u64,
    /// Requeues.
    #[serde(default)]
    pub requeues: u64,
    /// Backlog bytes.
    #[serde(default)]
    pub backlog: u64,
    /// Backlog packets.
    #[serde(default)]
    pub qlen: u64,
}

/// Parses `tc -s -d -j qdisc show dev …`.
pub fn parse_tc_json(json: &str) -> Result<Vec<TcQdisc>, CrosscheckError> {
    serde_json::from_str(json).map_err(|e| CrosscheckError::tool("tc -j output", e))
}

/// The `ss -tinm` fields the readback check compares.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SsLine {
    /// `cwnd:`.
    pub cwnd: Option<u64>,
    /// `ssthresh:`.
    pub ssthresh: Option<u64>,
    /// `mss:`.
    pub mss: Option<u64>,
    /// `rtt:` (ms, the smoothed value before the slash).
    pub rtt_ms: Option<f64>,
    /// Total retransmissions: the number after the slash of `retrans:a/b`.
    pub total_retrans: Option<u64>,
    /// `bytes_acked:`.
    pub bytes_acked: Option<u64>,
}

fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(&format!(" {key}"))? + 1 + key.len();
    let rest = &text[at..];
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    Some(&rest[..end])
}

impl SsLine {
    /// Parses the info part of one `ss -tinm` entry (all its lines joined).
    pub fn parse(text: &str) -> SsLine {
        let text = format!(" {}", text.replace(['\n', '\t'], " "));
        let num = |k: &str| field(&text, k).and_then(|v| v.parse().ok());
        SsLine {
            cwnd: num("cwnd:"),
            ssthresh: num("ssthresh:"),
            mss: num("mss:"),
            rtt_ms: field(&text, "rtt:").and_then(|v| v.split('/').next()?.parse().ok()),
            total_retrans: field(&text, "retrans:").and_then(|v| v.split('/').nth(1)?.parse().ok()),
            bytes_acked: num("bytes_acked:"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iperf3_server_report_window() {
        let j = r#"{"start":{},"intervals":[
            {"streams":[],"sum":{"start":0,"end":1,"seconds":1,"bytes":625000,"bits_per_second":5e6}},
            {"streams":[],"sum":{"start":1,"end":2,"seconds":1,"bytes":500000,"bits_per_second":4e6}},
            {"streams":[],"sum":{"start":2,"end":2.5,"seconds":0.5,"bytes":250000,"bits_per_second":4e6}}],
            "end":{"sum_received":{"start":0,"end":2.5,"seconds":2.5,"bytes":1375000,"bits_per_second":4.4e6},
                   "sum_sent":{"start":0,"end":2.5,"seconds":2.5,"bytes":1400000,"retransmits":7}}}"#;
        let r = Iperf3Report::parse(j).unwrap();
        assert_eq!(r.intervals.len(), 3);
        assert_eq!(r.received_bytes, Some(1_375_000));
        assert_eq!(r.retransmits, Some(7));
        let g = r.window_mbps(1.0, 3.0).unwrap();
        assert!((g - 750_000.0 * 8.0 / 1.5 / 1e6).abs() < 1e-9, "{g}");
        assert_eq!(r.window_mbps(5.0, 6.0), None);
        assert!(
            Iperf3Report::parse(r#"{"end":{},"error":"unable to connect"}"#)
                .unwrap_err()
                .to_string()
                .contains("unable to connect")
        );
    }

    #[test]
    fn irtt_round_trips_become_censored_requests() {
        let t0 = 1_000_000_000_000i64;
        let j = format!(
            r#"{{"round_trips":[
            {{"seqno":0,"lost":"false","timestamps":{{"client":{{"send":{{"wall":{a}}},"receive":{{"wall":{ar}}}}}}},"delay":{{"rtt":2500000}}}},
            {{"seqno":1,"lost":"true","timestamps":{{"client":{{"send":{{"wall":{b}}},"receive":{{}}}}}},"delay":{{}}}},
            {{"seqno":2,"lost":"false","timestamps":{{"client":{{"send":{{"wall":{c}}},"receive":{{"wall":{cr}}}}}}},"delay":{{"rtt":1200000000}}}}]}}"#,
            a = t0 + 500_000_000,
            ar = t0 + 502_500_000,
            b = t0 + 7_000_000_000i64,
            c = t0 + 8_000_000_000i64,
            cr = t0 + 9_200_000_000i64,
        );
        let req = irtt_requests(&j, t0, Duration::from_secs(1), &PhaseBounds::default()).unwrap();
        assert_eq!(req.len(), 3);
        assert_eq!(req[0].rtt_ms, Some(2.5));
        assert!((req[0].send_s - 0.5).abs() < 1e-9);
        assert_eq!(req[0].phase, netlab_probe::Phase::Baseline);
        assert_eq!(req[1].outcome, RequestOutcome::Timeout);
        assert_eq!(req[1].phase, netlab_probe::Phase::Loaded);
        // 1.2 s is beyond the 1 s bound: censored like a netlab timeout.
        assert_eq!(req[2].rtt_ms, None);
        assert_eq!(req[2].outcome, RequestOutcome::Timeout);
    }

    #[test]
    fn tc_json_and_ss_lines() {
        let tc = r#"[{"kind":"tbf","handle":"1:","root":true,"refcnt":2,"options":{"rate":625000},
            "bytes":1000,"packets":10,"drops":2,"overlimits":5,"requeues":0,"backlog":3000,"qlen":2},
            {"kind":"pfifo","handle":"10:","parent":"1:1","options":{"limit":256},
            "bytes":1000,"packets":10,"drops":2,"overlimits":0,"requeues":0,"backlog":3000,"qlen":2}]"#;
        let q = parse_tc_json(tc).unwrap();
        assert_eq!(q[1].kind, "pfifo");
        assert_eq!((q[1].drops, q[1].backlog, q[1].qlen), (2, 3000, 2));
        let ss = "\t cubic wscale:7,7 rto:1200 rtt:812.5/40.2 ato:40 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:120 ssthresh:60 bytes_sent:1 bytes_retrans:2 bytes_acked:345 segs_out:9 retrans:0/17 lost:3";
        let s = SsLine::parse(ss);
        assert_eq!(s.cwnd, Some(120));
        assert_eq!(s.ssthresh, Some(60));
        assert_eq!(s.mss, Some(1448));
        assert_eq!(s.rtt_ms, Some(812.5));
        assert_eq!(s.total_retrans, Some(17));
        assert_eq!(s.bytes_acked, Some(345));
    }
}
