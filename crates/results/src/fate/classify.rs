//! A's outcomes + B's arrivals → one fate per request, and the per-phase
//! counts (method §5.8).

use std::collections::HashMap;

use netlab_probe::{IsoOutcome, IsoRequest, Phase, ProbeRequest, RequestOutcome};

use super::{DropCount, EchoArrivals, Fate, FateSummary, LossCause, OneWayQuantiles, RequestFate};

/// What A's log says of one request, for either probe.
#[derive(Debug, Clone, PartialEq)]
pub struct FateInput {
    /// Sequence number.
    pub seq: u32,
    /// Send time, s since t0 (None: never sent).
    pub send_s: Option<f64>,
    /// Phase as A's log has it.
    pub phase: Phase,
    /// A's outcome.
    pub outcome: InputOutcome,
}

/// A's outcome of one request, as far as A can tell.
#[derive(Debug, Clone, PartialEq)]
pub enum InputOutcome {
    /// A reply within the timeout.
    Replied {
        /// Its RTT, ms.
        rtt_ms: f64,
    },
    /// No reply within the timeout; the late reply's RTT if one came.
    NoTimelyReply {
        /// RTT of the late reply, ms.
        late_rtt_ms: Option<f64>,
    },
    /// Never left A.
    NotSent {
        /// The send error or "slot missed".
        why: String,
    },
    /// Outstanding when the run stopped.
    Unresolved,
}

impl FateInput {
    /// A stop-and-wait request.
    pub fn of_probe(r: &ProbeRequest) -> FateInput {
        let outcome = match &r.outcome {
            RequestOutcome::Reply => match r.rtt_ms {
                Some(rtt_ms) => InputOutcome::Replied { rtt_ms },
                None => InputOutcome::NoTimelyReply { late_rtt_ms: None },
            },
            RequestOutcome::Timeout => InputOutcome::NoTimelyReply {
                late_rtt_ms: r.late_rtt_ms,
            },
            RequestOutcome::SendError { error } => InputOutcome::NotSent { why: error.clone() },
            RequestOutcome::Pending | RequestOutcome::Abandoned => InputOutcome::Unresolved,
        };
        let sent = !matches!(outcome, InputOutcome::NotSent { .. });
        FateInput {
            seq: r.seq,
            send_s: sent.then_some(r.send_s),
            phase: r.phase,
            outcome,
        }
    }

    /// An isochronous slot.
    pub fn of_iso(r: &IsoRequest) -> FateInput {
        let outcome = match &r.outcome {
            IsoOutcome::Reply => match r.rtt_ms {
                Some(rtt_ms) => InputOutcome::Replied { rtt_ms },
                None => InputOutcome::NoTimelyReply { late_rtt_ms: None },
            },
            IsoOutcome::Timeout => InputOutcome::NoTimelyReply {
                late_rtt_ms: r.late_rtt_ms,
            },
            IsoOutcome::Missed => InputOutcome::NotSent {
                why: "slot missed".into(),
            },
            IsoOutcome::SendError { error } => InputOutcome::NotSent { why: error.clone() },
            IsoOutcome::Pending | IsoOutcome::Abandoned => InputOutcome::Unresolved,
        };
        FateInput {
            seq: r.seq,
            send_s: r.send_s,
            phase: r.phase,
            outcome,
        }
    }
}

/// Cause placeholder until [`super::attribute_losses`] looks at the drops.
pub(crate) fn unmatched() -> LossCause {
    LossCause::Unknown {
        note: "not matched against the arm's drops".into(),
    }
}

/// One fate per request, in the order of `requests`. Never-reached
/// requests get [`LossCause::Unknown`] here; [`super::attribute_losses`]
/// matches them to drops.
///
/// * replied: one-way delay from B's arrival, when the clock is shared;
/// * no timely reply, and B received it (or a late reply proves it did):
///   [`Fate::ReachedB`] with the one-way delay and the late RTT;
/// * no timely reply, B never received it: [`Fate::NeverReachedB`];
/// * outstanding at the stop: reached B if B received it, else unresolved;
/// * not received, but B stopped listening (`closed_s`) less than the
///   run's longest one-way delay (at least `timeout`) after its send:
///   unresolved, as it may still have been on its way.
pub fn classify(
    requests: &[FateInput],
    arrivals: &EchoArrivals,
    timeout: std::time::Duration,
) -> Vec<RequestFate> {
    let mut at: HashMap<u32, f64> = HashMap::with_capacity(arrivals.arrivals.len());
    for a in &arrivals.arrivals {
        at.entry(a.seq).or_insert(a.recv_s);
    }
    let longest_s = requests
        .iter()
        .filter_map(|r| Some(at.get(&r.seq)? - r.send_s?))
        .fold(timeout.as_secs_f64(), f64::max);
    let b_stopped_first = |send: Option<f64>| matches!((arrivals.closed_s, send), (Some(c), Some(s)) if c < s + longest_s);
    requests
        .iter()
        .map(|r| {
            let recv = at.get(&r.seq).copied();
            let one_way_ms = match (arrivals.shared_clock, recv, r.send_s) {
                (true, Some(recv), Some(send)) => Some((recv - send) * 1e3),
                _ => None,
            };
            let fate = match &r.outcome {
                InputOutcome::Replied { rtt_ms } => Fate::Replied {
                    rtt_ms: *rtt_ms,
                    one_way_ms,
                },
                InputOutcome::NoTimelyReply { late_rtt_ms } => {
                    if recv.is_some() || late_rtt_ms.is_some() {
                        Fate::ReachedB {
                            one_way_ms,
                            late_rtt_ms: *late_rtt_ms,
                        }
                    } else if b_stopped_first(r.send_s) {
                        Fate::Unresolved
                    } else {
                        Fate::NeverReachedB { cause: unmatched() }
                    }
                }
                InputOutcome::NotSent { why } => Fate::NotSent { why: why.clone() },
                InputOutcome::Unresolved if recv.is_some() => Fate::ReachedB {
                    one_way_ms,
                    late_rtt_ms: None,
                },
                InputOutcome::Unresolved => Fate::Unresolved,
            };
            RequestFate {
                seq: r.seq,
                send_s: r.send_s,
                phase: r.phase,
                fate,
            }
        })
        .collect()
}

/// Per-phase counts of `fates`, in [`Phase::ALL`] order (phases without a
/// request left out).
pub fn summarize(fates: &[RequestFate]) -> Vec<FateSummary> {
    Phase::ALL
        .iter()
        .filter_map(|&phase| {
            let of: Vec<&RequestFate> = fates.iter().filter(|f| f.phase == phase).collect();
            (!of.is_empty()).then(|| summarize_phase(phase, &of))
        })
        .collect()
}

fn summarize_phase(phase: Phase, fates: &[&RequestFate]) -> FateSummary {
    let mut s = FateSummary {
        phase,
        sent: 0,
        replied: 0,
        reached_b: 0,
        late_replies: 0,
        never_reached_b: 0,
        dropped_at_bottleneck: Vec::new(),
        lost_cause_unknown: 0,
        not_sent: 0,
        unresolved: 0,
        one_way: None,
    };
    let mut one_way = Vec::new();
    for f in fates {
        match &f.fate {
            Fate::Replied { one_way_ms, .. } => {
                s.replied += 1;
                one_way.extend(*one_way_ms);
            }
            Fate::ReachedB {
                one_way_ms,
                late_rtt_ms,
            } => {
                s.reached_b += 1;
                s.late_replies += u32::from(late_rtt_ms.is_some());
                one_way.extend(*one_way_ms);
            }
            Fate::NeverReachedB { cause } => {
                s.never_reached_b += 1;
                match cause {
                    LossCause::DroppedAtBottleneck { qdisc, reason, .. } => {
                        match s
                            .dropped_at_bottleneck
                            .iter_mut()
                            .find(|d| d.qdisc == *qdisc && d.reason == *reason)
                        {
                            Some(d) => d.count += 1,
                            None => s.dropped_at_bottleneck.push(DropCount {
                                qdisc: qdisc.clone(),
                                reason: *reason,
                                count: 1,
                            }),
                        }
                    }
                    LossCause::Unknown { .. } => s.lost_cause_unknown += 1,
                }
            }
            Fate::NotSent { .. } => s.not_sent += 1,
            Fate::Unresolved => s.unresolved += 1,
        }
    }
    s.sent = s.replied + s.reached_b + s.never_reached_b + s.unresolved;
    s.one_way = one_way_quantiles(one_way);
    s
}

/// Lower median, nearest-rank p95/p99 and max of `v` (method §9's ranks).
pub fn one_way_quantiles(mut v: Vec<f64>) -> Option<OneWayQuantiles> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let at = |rank: usize| v[rank.clamp(1, n) - 1];
    Some(OneWayQuantiles {
        n: n as u32,
        p50_ms: at(netlab_probe::stats::lower_median_rank(n)),
        p95_ms: at(netlab_probe::stats::p95_rank(n)),
        p99_ms: at(netlab_probe::stats::p99_rank(n)),
        max_ms: v[n - 1],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fate::EchoArrival;
    use std::time::Duration;

    const TIMEOUT: Duration = Duration::from_secs(1);

    fn input(seq: u32, send_s: f64, outcome: InputOutcome) -> FateInput {
        FateInput {
            seq,
            send_s: Some(send_s),
            phase: Phase::Loaded,
            outcome,
        }
    }

    fn arrivals(v: &[(u32, f64)], closed_s: Option<f64>) -> EchoArrivals {
        EchoArrivals {
            shared_clock: true,
            arrivals: v
                .iter()
                .map(|&(seq, recv_s)| EchoArrival { seq, recv_s })
                .collect(),
            not_logged: 0,
            closed_s,
        }
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn each_request_gets_exactly_one_fate() {
        let no_reply = |late| InputOutcome::NoTimelyReply { late_rtt_ms: late };
        let reqs = [
            input(0, 6.0, InputOutcome::Replied { rtt_ms: 9.0 }),
            // pfifo's: reached B 1.1 s after its send, reply came at 2.2 s
            input(1, 6.2, no_reply(Some(2200.0))),
            // reached B, its reply never came back
            input(2, 7.4, no_reply(None)),
            // B never saw it
            input(3, 8.6, no_reply(None)),
            input(
                4,
                8.8,
                InputOutcome::NotSent {
                    why: "Network is unreachable".into(),
                },
            ),
            input(5, 9.0, InputOutcome::Unresolved),
        ];
        let arr = arrivals(&[(0, 6.004), (1, 7.3), (2, 8.5), (0, 6.01)], Some(18.0));
        let f = classify(&reqs, &arr, TIMEOUT);
        assert!(
            matches!(f[0].fate, Fate::Replied { rtt_ms, one_way_ms } if rtt_ms == 9.0 && close(one_way_ms, 4.0)),
            "{:?}",
            f[0]
        );
        assert!(
            matches!(f[1].fate, Fate::ReachedB { one_way_ms, late_rtt_ms: Some(l) } if close(one_way_ms, 1100.0) && l == 2200.0),
            "{:?}",
            f[1]
        );
        assert!(matches!(
            f[2].fate,
            Fate::ReachedB {
                late_rtt_ms: None,
                ..
            }
        ));
        assert!(matches!(
            f[3].fate,
            Fate::NeverReachedB {
                cause: LossCause::Unknown { .. }
            }
        ));
        assert!(matches!(f[4].fate, Fate::NotSent { .. }));
        assert_eq!(f[4].send_s, Some(8.8));
        assert_eq!(f[5].fate, Fate::Unresolved);

        let s = summarize(&f);
        assert_eq!(s.len(), 1);
        let s = &s[0];
        assert_eq!(
            (s.sent, s.replied, s.reached_b, s.late_replies),
            (5, 1, 2, 1)
        );
        assert_eq!(
            (
                s.never_reached_b,
                s.lost_cause_unknown,
                s.not_sent,
                s.unresolved
            ),
            (1, 1, 1, 1)
        );
        // one-way over every request that reached B: 4, 1100, 1100 ms
        let ow = s.one_way.unwrap();
        assert_eq!(ow.n, 3);
        assert!((ow.p50_ms - 1100.0).abs() < 1e-6, "lower median of 3");
        assert!((ow.max_ms - 1100.0).abs() < 1e-6);
    }

    #[test]
    fn outstanding_at_the_stop_but_seen_by_b_reached_it() {
        let reqs = [input(0, 17.0, InputOutcome::Unresolved)];
        let f = classify(&reqs, &arrivals(&[(0, 17.5)], None), TIMEOUT);
        assert!(matches!(f[0].fate, Fate::ReachedB { one_way_ms, .. } if close(one_way_ms, 500.0)));
    }

    #[test]
    fn not_received_because_b_stopped_first_is_unresolved_not_lost() {
        let no_reply = InputOutcome::NoTimelyReply { late_rtt_ms: None };
        // one-way delays of 1.1 s seen; B closed at 18.0
        let reqs = [
            input(0, 10.0, no_reply.clone()),
            input(1, 16.95, no_reply.clone()),
            input(2, 12.0, no_reply),
        ];
        let f = classify(&reqs, &arrivals(&[(0, 11.1)], Some(18.0)), TIMEOUT);
        assert_eq!(f[1].fate, Fate::Unresolved, "18.0 < 16.95 + 1.1");
        assert!(matches!(f[2].fate, Fate::NeverReachedB { .. }));
        // without B's close time, it counts as never reached
        let f = classify(&reqs, &arrivals(&[(0, 11.1)], None), TIMEOUT);
        assert!(matches!(f[1].fate, Fate::NeverReachedB { .. }));
    }

    #[test]
    fn separate_clocks_give_no_one_way_delay() {
        let mut arr = arrivals(&[(0, 6.5)], None);
        arr.shared_clock = false;
        let reqs = [input(
            0,
            6.0,
            InputOutcome::NoTimelyReply { late_rtt_ms: None },
        )];
        let f = classify(&reqs, &arr, TIMEOUT);
        assert_eq!(
            f[0].fate,
            Fate::ReachedB {
                one_way_ms: None,
                late_rtt_ms: None
            }
        );
        assert_eq!(summarize(&f)[0].one_way, None);
    }

    #[test]
    fn fates_serialize_flat_with_their_tag() {
        let f = RequestFate {
            seq: 3,
            send_s: Some(6.2),
            phase: Phase::Loaded,
            fate: Fate::ReachedB {
                one_way_ms: Some(1100.5),
                late_rtt_ms: None,
            },
        };
        let j = serde_json::to_string(&f).unwrap();
        assert_eq!(
            j,
            r#"{"seq":3,"send_s":6.2,"phase":"loaded","fate":"reached_b","one_way_ms":1100.5}"#
        );
        let back: RequestFate = serde_json::from_str(&j).unwrap();
        assert_eq!(back, f);
        let lost = RequestFate {
            fate: Fate::NeverReachedB {
                cause: LossCause::DroppedAtBottleneck {
                    qdisc: "fq_codel".into(),
                    reason: crate::fate::DropReason::CodelDrop,
                    interval_s: [6.0, 6.2],
                    drops_in_interval: 1,
                },
            },
            ..f
        };
        let j = serde_json::to_string(&lost).unwrap();
        assert!(j.contains(r#""fate":"never_reached_b","cause":{"kind":"dropped_at_bottleneck","qdisc":"fq_codel","reason":"codel_drop""#), "{j}");
        assert_eq!(serde_json::from_str::<RequestFate>(&j).unwrap(), lost);
    }

    #[test]
    fn from_the_probes_logs() {
        let r = ProbeRequest {
            seq: 2,
            due_s: 0.4,
            send_s: 0.4,
            reply_s: None,
            rtt_ms: None,
            late_rtt_ms: Some(1100.0),
            phase: Phase::Baseline,
            outcome: RequestOutcome::Timeout,
        };
        let i = FateInput::of_probe(&r);
        assert_eq!(
            i.outcome,
            InputOutcome::NoTimelyReply {
                late_rtt_ms: Some(1100.0)
            }
        );
        let e = FateInput::of_probe(&ProbeRequest {
            outcome: RequestOutcome::SendError { error: "x".into() },
            ..r
        });
        assert_eq!(e.send_s, None);
    }
}
