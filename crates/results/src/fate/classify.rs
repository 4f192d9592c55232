//! A's outcomes + B's arrivals → one fate per request, and the per-phase
//! counts (method §5.6).

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
/// * outstanding at the stop: reached B if B received it, else unresolved.
pub fn classify(requests: &[FateInput], arrivals: &EchoArrivals) -> Vec<RequestFate> {
    let mut at: HashMap<u32, f64> = HashMap::with_capacity(arrivals.arrivals.len());
    for a in &arrivals.arrivals {
        at.entry(a.seq).or_insert(a.recv_s);
    }
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
pub(crate) fn one_way_quantiles(mut v: Vec<f64>) -> Option<OneWayQuantiles> {
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
