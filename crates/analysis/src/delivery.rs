//! Delay and loss said apart (method §5.8, §9): per arm, pooled over its
//! rounds, how many loaded probe requests never reached B and why, and the
//! one-way A→B delay of every request that did — including those whose
//! reply missed the timeout, which the method's RTT view can only censor.
//!
//! Built only when every round of the arm carries its fates (B's receive
//! log); otherwise the headline falls back to the RTT with censoring and
//! says why.

use netlab_results::fate::{one_way_quantiles, DropReason, Fate, OneWayQuantiles};

use crate::records::Scenario;
use crate::stats::fmt_num;

/// Why a request of one reason never reached B, with how many.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LossCount {
    /// The arm's kind (`fq_codel`).
    pub qdisc: String,
    /// Matched to this reason.
    pub reason: DropReason,
    /// Requests.
    pub count: u32,
}

/// One arm's loaded probe requests, by fate, over its rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmDelivery {
    /// Loaded requests that left A.
    pub sent: u32,
    /// Replied within the timeout.
    pub replied: u32,
    /// Reached B without a timely reply.
    pub reached_late: u32,
    /// Of those, whose late reply came back.
    pub late_replies: u32,
    /// Never reached B, matched to the arm's drops, per reason.
    pub dropped: Vec<LossCount>,
    /// Never reached B, no cause.
    pub lost_unknown: u32,
    /// Not seen by B when the run stopped.
    pub unresolved: u32,
    /// Never sent (a send error, or an isochronous slot A was too late
    /// for): not among `sent`, and no sample of its time.
    pub not_sent: u32,
    /// One-way A→B delay of every loaded request that reached B (absent
    /// when none did or the clock was not shared).
    pub one_way: Option<OneWayQuantiles>,
    /// Of those, past the probe's timeout.
    pub past_timeout: u32,
    /// The probe timeout, ms.
    pub timeout_ms: f64,
    /// The probe (always Not-ECT) shared the bottleneck with an ECN flow
    /// and the arm marked: its drops are where the flow's packets are marked.
    pub not_ect_beside_ecn: bool,
    /// What one sample is called in sentences: `probes` (the stop-and-wait
    /// probe's requests) or `slots` (the isochronous probe's).
    pub noun: &'static str,
}

impl ArmDelivery {
    /// The arm's delivery over `rounds` (its scenarios without error);
    /// None unless every one carries fates.
    pub fn of(rounds: &[&Scenario]) -> Option<ArmDelivery> {
        if rounds.is_empty() || rounds.iter().any(|s| s.fates.is_none()) {
            return None;
        }
        let marks = rounds
            .iter()
            .any(|s| s.final_counters.ecn_marks.is_some_and(|m| m > 0));
        let mut d = ArmDelivery {
            not_ect_beside_ecn: marks && rounds.iter().any(|s| s.ecn_flow),
            ..ArmDelivery::empty(rounds[0], rounds[0].probe_timeout_s * 1000.0, "probes")
        };
        let mut one_way = Vec::new();
        let loaded = rounds
            .iter()
            .filter_map(|s| s.fates.as_ref())
            .flat_map(|f| &f.requests)
            .filter(|r| r.phase == netlab_probe::Phase::Loaded);
        for r in loaded {
            d.count(&r.fate, &mut one_way);
        }
        d.past_timeout = one_way.iter().filter(|v| **v >= d.timeout_ms).count() as u32;
        d.one_way = one_way_quantiles(one_way);
        Some(d)
    }

    /// No request yet, of a probe with this timeout in round `s` (whose
    /// arm marked beside an ECN flow, or not), its samples called `noun`.
    pub(crate) fn empty(s: &Scenario, timeout_ms: f64, noun: &'static str) -> ArmDelivery {
        ArmDelivery {
            sent: 0,
            replied: 0,
            reached_late: 0,
            late_replies: 0,
            dropped: Vec::new(),
            lost_unknown: 0,
            unresolved: 0,
            not_sent: 0,
            one_way: None,
            past_timeout: 0,
            timeout_ms,
            not_ect_beside_ecn: s.final_counters.ecn_marks.is_some_and(|m| m > 0) && s.ecn_flow,
            noun,
        }
    }

    /// Adds another round's counts (the one-way quantiles are not pooled:
    /// they are left as they were).
    pub(crate) fn add(&mut self, o: &ArmDelivery) {
        self.sent += o.sent;
        self.replied += o.replied;
        self.reached_late += o.reached_late;
        self.late_replies += o.late_replies;
        for l in &o.dropped {
            match self
                .dropped
                .iter_mut()
                .find(|m| m.qdisc == l.qdisc && m.reason == l.reason)
            {
                Some(m) => m.count += l.count,
                None => self.dropped.push(l.clone()),
            }
        }
        self.lost_unknown += o.lost_unknown;
        self.unresolved += o.unresolved;
        self.not_sent += o.not_sent;
        self.past_timeout += o.past_timeout;
        self.not_ect_beside_ecn |= o.not_ect_beside_ecn;
    }

    /// Counts one request's fate, pushing its one-way delay (when it
    /// reached B and has one) to `one_way`.
    pub(crate) fn count(&mut self, fate: &Fate, one_way: &mut Vec<f64>) {
        use netlab_results::fate::LossCause;
        match fate {
            Fate::Replied { one_way_ms, .. } => {
                self.replied += 1;
                one_way.extend(*one_way_ms);
            }
            Fate::ReachedB {
                one_way_ms,
                late_rtt_ms,
            } => {
                self.reached_late += 1;
                self.late_replies += u32::from(late_rtt_ms.is_some());
                one_way.extend(*one_way_ms);
            }
            Fate::NeverReachedB {
                cause: LossCause::DroppedAtBottleneck { qdisc, reason, .. },
            } => match self
                .dropped
                .iter_mut()
                .find(|l| l.qdisc == *qdisc && l.reason == *reason)
            {
                Some(l) => l.count += 1,
                None => self.dropped.push(LossCount {
                    qdisc: qdisc.clone(),
                    reason: *reason,
                    count: 1,
                }),
            },
            Fate::NeverReachedB { .. } => self.lost_unknown += 1,
            Fate::Unresolved => self.unresolved += 1,
            Fate::NotSent { .. } => {
                self.not_sent += 1;
                return;
            }
        }
        self.sent += 1;
    }

    /// Requests that never reached B.
    pub fn lost(&self) -> u32 {
        self.dropped.iter().map(|l| l.count).sum::<u32>() + self.lost_unknown
    }

    /// The loss as a rate with its count and cause: `13 of 111 loaded
    /// probes dropped by CoDel (Not-ECT beside an ECN flow)`.
    pub fn loss_text(&self) -> String {
        let mut parts: Vec<String> = self
            .dropped
            .iter()
            .map(|l| {
                let why = if self.not_ect_beside_ecn && aqm(l.reason) {
                    " (Not-ECT beside an ECN flow)"
                } else {
                    ""
                };
                format!("{} {}{why}", l.count, l.reason.as_words())
            })
            .collect();
        if self.lost_unknown > 0 {
            parts.push(format!("{} lost, cause unknown", self.lost_unknown));
        }
        let mut t = match parts.len() {
            0 => format!("0 of {} loaded {} lost", self.sent, self.noun),
            1 if self.lost_unknown == 0 => {
                let l = &self.dropped[0];
                format!(
                    "{} of {} loaded {} {}",
                    l.count,
                    self.sent,
                    self.noun,
                    &parts[0][l.count.to_string().len() + 1..]
                )
            }
            _ => format!(
                "{} of {} loaded {} never reached B: {}",
                self.lost(),
                self.sent,
                self.noun,
                parts.join(", ")
            ),
        };
        if self.unresolved > 0 {
            t.push_str(&format!(
                " ({} unresolved: B stopped listening before they could arrive)",
                self.unresolved
            ));
        }
        if self.not_sent > 0 {
            t.push_str(&format!(
                "; {} more never sent (A missed them: no sample of their time)",
                self.not_sent
            ));
        }
        t
    }

    /// The delay of the delivered requests: `delivered probes one-way A→B
    /// p50 4.8 ms, p95 10.2 ms (n = 98)`, with how many were past the
    /// timeout.
    pub fn delay_text(&self) -> String {
        let Some(q) = self.one_way else {
            return "no delivered probe with a one-way delay".into();
        };
        let mut t = format!(
            "delivered probes one-way A→B p50 {} ms, p95 {} ms (n = {}",
            fmt_num(q.p50_ms),
            fmt_num(q.p95_ms),
            q.n
        );
        if self.past_timeout > 0 {
            t.push_str(&format!(
                "; {} past the {} ms timeout, exact from B's log",
                self.past_timeout,
                fmt_num(self.timeout_ms)
            ));
        }
        t.push(')');
        t
    }

    /// Both: `13 of 111 loaded probes dropped by CoDel (…); delivered
    /// probes one-way A→B p50 4.8 ms, p95 10.2 ms (n = 98)`.
    pub fn text(&self) -> String {
        format!("{}; {}", self.loss_text(), self.delay_text())
    }
}

/// A drop an AQM chose (not a full queue): where an ECN flow's packet would
/// be marked instead.
fn aqm(r: DropReason) -> bool {
    matches!(
        r,
        DropReason::CodelDrop
            | DropReason::CodelDropOrOverlimit
            | DropReason::CakeDrop
            | DropReason::PieDrop
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_probe::RequestOutcome;
    use netlab_results::Results;

    fn fixture() -> Results {
        crate::testing::fixture_results("run-uml-3rounds")
    }

    fn loaded_timeouts(r: &Results, arm: &str) -> (usize, usize) {
        let reqs = r
            .scenarios
            .iter()
            .filter(|s| s.arm == arm)
            .flat_map(|s| &s.probe().unwrap().requests)
            .filter(|q| q.phase == netlab_probe::Phase::Loaded);
        let all: Vec<_> = reqs.collect();
        let t = all
            .iter()
            .filter(|q| q.outcome == RequestOutcome::Timeout)
            .count();
        (t, all.len())
    }

    #[test]
    fn the_headline_says_fq_codels_losses_as_losses_and_pfifos_delay_as_a_number() {
        let r = crate::testing::with_fates(fixture());
        let (fq_lost, fq_sent) = loaded_timeouts(&r, "fq_codel");
        let (pf_late, pf_sent) = loaded_timeouts(&r, "pfifo");
        assert!(fq_lost > 0 && pf_late > 0);
        let input = crate::input_from(&r).unwrap();
        let st = crate::compare::analyse(&input);
        let h = crate::headline::Headline::of(&input, &st);
        let fq = h.arms.iter().find(|a| a.arm == "fq_codel").unwrap();
        let d = fq.delivery.as_ref().unwrap();
        assert!(
            d.not_ect_beside_ecn,
            "the seed's fq_codel marks its ECN flow"
        );
        let text = fq.probe_text();
        assert!(
            text.starts_with(&format!(
                "{fq_lost} of {fq_sent} loaded requests dropped by CoDel (Not-ECT beside an ECN flow); one-way A→B over the window p50 "
            )),
            "{text}"
        );
        assert!(!text.contains("≥"), "{text}");
        let pf = h.arms.iter().find(|a| a.arm == "pfifo").unwrap();
        let text = pf.probe_text();
        // pfifo's rounds fall into three groups: round 2 one state, rounds
        // 1 and 3 each cut inside the window (method §12.6): each said
        // apart, none pooled.
        assert!(
            text.starts_with("by state, not pooled: 1 cut (r2): 0 of "),
            "{text}"
        );
        assert!(
            text.contains("; 1 cut, changed inside the window (r1): 0 of "),
            "{text}"
        );
        assert!(
            text.contains("; 2 cuts, changed inside the window (r3): 0 of "),
            "{text}"
        );
        let by_state = |f: fn(&ArmDelivery) -> u32| -> u32 {
            pf.by_state
                .iter()
                .map(|s| f(s.delivery.as_ref().unwrap()))
                .sum()
        };
        assert_eq!(by_state(|d| d.sent), pf_sent as u32, "{text}");
        assert_eq!(by_state(|d| d.past_timeout), pf_late as u32, "{text}");
        let p95 = pf.delivery.as_ref().unwrap().one_way.unwrap().p95_ms;
        assert!((p95 - 1100.0).abs() < 1e-6, "{p95}");
        // The method's RTT view keeps its own table, censored as before.
        let md = h.markdown();
        assert!(
            md.contains(crate::headline::Headline::METHOD_RTT_HEADING),
            "{md}"
        );
        assert!(md.contains("| fq_codel |"), "{md}");
        assert!(md.contains("≥ 1000 ms"), "{md}");
        assert!(!md.contains("loaded probes censored"), "{md}");
    }

    #[test]
    fn results_without_bs_log_fall_back_to_the_censored_rtt_and_say_so() {
        let input = crate::input_from(&fixture()).unwrap();
        let h = crate::headline::Headline::of_input(&input);
        for a in &h.arms {
            assert!(a.delivery.is_none());
            // Each request counted once, as the method's view: without B's
            // log a timeout's second cannot be weighted (method §12.11).
            let w = a.window.as_ref().unwrap();
            assert_eq!(w.sampling, crate::window::Sampling::StopAndWaitPerRequest);
            let t = a.probe_text();
            assert!(t.contains("RTT over the window p50 "), "{t}");
            assert!(t.contains("no B receive log in these results"), "{t}");
        }
        assert!(h
            .delay_note()
            .unwrap()
            .contains("these quantiles over-weight low delay"));
        assert!(h.method_rtt_table().is_none());
    }

    fn delivery() -> ArmDelivery {
        ArmDelivery {
            sent: 111,
            replied: 95,
            reached_late: 3,
            late_replies: 2,
            dropped: vec![LossCount {
                qdisc: "fq_codel".into(),
                reason: DropReason::CodelDrop,
                count: 13,
            }],
            lost_unknown: 0,
            unresolved: 0,
            not_sent: 0,
            one_way: Some(OneWayQuantiles {
                n: 98,
                p50_ms: 4.8,
                p95_ms: 10.2,
                p99_ms: 11.0,
                max_ms: 12.0,
            }),
            past_timeout: 0,
            timeout_ms: 1000.0,
            not_ect_beside_ecn: true,
            noun: "probes",
        }
    }

    #[test]
    fn loss_sentences_name_count_rate_and_cause() {
        let d = delivery();
        assert_eq!(
            d.text(),
            "13 of 111 loaded probes dropped by CoDel (Not-ECT beside an ECN flow); delivered probes one-way A→B p50 4.80 ms, p95 10.2 ms (n = 98)"
        );
        // no ECN flow (or no marks): the cause without the parenthesis
        let plain = ArmDelivery {
            not_ect_beside_ecn: false,
            ..delivery()
        };
        assert!(plain.loss_text().ends_with("dropped by CoDel"));
        // a tail drop is never "beside an ECN flow"
        let mut tail = delivery();
        tail.dropped[0].reason = DropReason::TailDrop;
        tail.dropped[0].qdisc = "pfifo".into();
        assert_eq!(
            tail.loss_text(),
            "13 of 111 loaded probes tail-dropped (queue full)"
        );
        // mixed causes and unresolved requests
        let mixed = ArmDelivery {
            lost_unknown: 2,
            unresolved: 1,
            ..delivery()
        };
        assert_eq!(
            mixed.loss_text(),
            "15 of 111 loaded probes never reached B: 13 dropped by CoDel (Not-ECT beside an ECN flow), 2 lost, cause unknown (1 unresolved: B stopped listening before they could arrive)"
        );
        let none = ArmDelivery {
            dropped: Vec::new(),
            past_timeout: 40,
            ..delivery()
        };
        assert_eq!(none.loss_text(), "0 of 111 loaded probes lost");
        assert!(none
            .delay_text()
            .ends_with("(n = 98; 40 past the 1000 ms timeout, exact from B's log)"));
    }
}
