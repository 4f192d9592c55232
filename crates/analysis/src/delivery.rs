//! Delay and loss said apart (method §5.8, §9): per arm, pooled over its
//! rounds, how many loaded probe requests never reached B and why, and the
//! one-way A→B delay of every request that did — including those whose
//! reply missed the timeout, which the method's RTT view can only censor.
//!
//! Built only when every round of the arm carries its fates (B's receive
//! log); otherwise the headline falls back to the RTT with censoring and
//! says why.

use netlab_results::fate::{one_way_quantiles, DropReason, Fate, OneWayQuantiles, ProbeFates};

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

/// Which of a scenario's probes a delivery counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhichProbe {
    /// The method's stop-and-wait probe (one request outstanding).
    StopAndWait,
    /// The isochronous probe (a request every interval on a fixed grid).
    Isochronous,
}

impl WhichProbe {
    /// What a sentence calls its requests: `probes`, `isochronous slots`.
    pub fn noun(self) -> &'static str {
        match self {
            WhichProbe::StopAndWait => "probes",
            WhichProbe::Isochronous => "isochronous slots",
        }
    }

    /// Its fates, when B's receive log is in the results, with when B's
    /// echo closed (an unresolved request's bound) and its timeout, ms.
    fn fates(self, s: &Scenario) -> Option<(&ProbeFates, Option<f64>, f64)> {
        match self {
            WhichProbe::StopAndWait => s
                .fates
                .as_ref()
                .map(|f| (f, s.echo_closed_s, s.probe_timeout_s * 1e3)),
            WhichProbe::Isochronous => {
                let iso = s.iso.as_ref()?;
                iso.fates
                    .as_ref()
                    .map(|f| (f, iso.closed_s, iso.timeout_s * 1e3))
            }
        }
    }
}

/// One arm's loaded probe requests, by fate, over its rounds.
///
/// One rule for every output (method §5.8): a request that reached B is a
/// delay (its exact one-way time, late or not); one that never reached B
/// is a loss; one B had not received when it stopped listening is
/// censored at its own bound, B's close less its send time — never at
/// another request's delay.
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
    /// Each unresolved request's own bound, ms ascending: B's close less
    /// its send time (only those whose bound is known; results written
    /// before B's close was kept have none).
    pub censored_ms: Vec<f64>,
    /// The one-way A→B delay of every loaded request that reached B, ms
    /// ascending (empty when none did or the clock was not shared).
    pub delivered_ms: Vec<f64>,
    /// Never sent (a send error, or an isochronous slot A was too late
    /// for): not among `sent`, and no sample of its time.
    pub not_sent: u32,
    /// Their quantiles (absent when none did or the clock was not shared).
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
    /// The stop-and-wait probe's delivery over `rounds` (the arm's
    /// scenarios without error); None unless every one carries fates.
    pub fn of(rounds: &[&Scenario]) -> Option<ArmDelivery> {
        ArmDelivery::of_probe(rounds, WhichProbe::StopAndWait)
    }

    /// The isochronous probe's delivery over `rounds`, by the same rule;
    /// None unless every one ran it with fates.
    pub fn of_iso(rounds: &[&Scenario]) -> Option<ArmDelivery> {
        ArmDelivery::of_probe(rounds, WhichProbe::Isochronous)
    }

    /// `probe`'s delivery over `rounds`; None unless every one carries
    /// that probe's fates.
    pub fn of_probe(rounds: &[&Scenario], probe: WhichProbe) -> Option<ArmDelivery> {
        let fates: Vec<_> = rounds
            .iter()
            .map(|s| probe.fates(s))
            .collect::<Option<_>>()?;
        let timeout_ms = fates.first()?.2;
        let marks = rounds
            .iter()
            .any(|s| s.final_counters.ecn_marks.is_some_and(|m| m > 0));
        let logs: Vec<_> = fates.iter().map(|(f, c, _)| (*f, *c)).collect();
        Some(ArmDelivery::of_fates(
            probe,
            &logs,
            timeout_ms,
            marks && rounds.iter().any(|s| s.ecn_flow),
        ))
    }

    /// The delivery of `probe`'s loaded requests over `rounds`' fates,
    /// each with when B's echo closed (None: not recorded); `timeout_ms`
    /// is the probe's; `not_ect_beside_ecn` as the field says.
    pub fn of_fates(
        probe: WhichProbe,
        rounds: &[(&ProbeFates, Option<f64>)],
        timeout_ms: f64,
        not_ect_beside_ecn: bool,
    ) -> ArmDelivery {
        let mut d = ArmDelivery::blank(timeout_ms, not_ect_beside_ecn, probe.noun());
        let mut one_way = Vec::new();
        for (f, closed_s) in rounds {
            let loaded = f
                .requests
                .iter()
                .filter(|r| r.phase == netlab_probe::Phase::Loaded);
            for r in loaded {
                d.count(&r.fate, &mut one_way);
                if let (Fate::Unresolved, Some(c), Some(t)) = (&r.fate, closed_s, r.send_s) {
                    d.censored_ms.push(own_bound_ms(*c, t));
                }
            }
        }
        d.censored_ms.sort_by(f64::total_cmp);
        d.past_timeout = one_way.iter().filter(|v| **v >= d.timeout_ms).count() as u32;
        one_way.sort_by(f64::total_cmp);
        d.delivered_ms = one_way.clone();
        d.one_way = one_way_quantiles(one_way);
        d
    }

    /// No request yet, of a probe with this timeout in round `s` (whose
    /// arm marked beside an ECN flow, or not), its samples called `noun`.
    pub fn empty(s: &Scenario, timeout_ms: f64, noun: &'static str) -> ArmDelivery {
        let marked = s.final_counters.ecn_marks.is_some_and(|m| m > 0) && s.ecn_flow;
        ArmDelivery::blank(timeout_ms, marked, noun)
    }

    /// No request yet, of a probe with this timeout, its samples called
    /// `noun`.
    fn blank(timeout_ms: f64, not_ect_beside_ecn: bool, noun: &'static str) -> ArmDelivery {
        ArmDelivery {
            sent: 0,
            replied: 0,
            reached_late: 0,
            late_replies: 0,
            dropped: Vec::new(),
            lost_unknown: 0,
            unresolved: 0,
            not_sent: 0,
            censored_ms: Vec::new(),
            delivered_ms: Vec::new(),
            one_way: None,
            past_timeout: 0,
            timeout_ms,
            not_ect_beside_ecn,
            noun,
        }
    }

    /// Adds another round's counts and censored bounds (the one-way
    /// quantiles and delivered delays are not pooled: they are left as
    /// they were).
    pub fn add(&mut self, o: &ArmDelivery) {
        self.censored_ms.extend(&o.censored_ms);
        self.censored_ms.sort_by(f64::total_cmp);
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
    pub fn count(&mut self, fate: &Fate, one_way: &mut Vec<f64>) {
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
    /// probes dropped by CoDel (Not-ECT beside an ECN flow)`, then the
    /// unresolved requests, censored at their own bounds.
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
            t.push_str(&format!(" ({})", self.censored_text()));
        }
        t
    }

    /// The unresolved requests: `94 unresolved, censored at their own
    /// bounds (B's close less each send): ≥ 1018 to ≥ 2398 ms`; where a
    /// bound was not recorded, only why they are unresolved.
    pub fn censored_text(&self) -> String {
        let n = self.unresolved;
        match (self.censored_ms.first(), self.censored_ms.last()) {
            (Some(lo), Some(hi)) if self.censored_ms.len() == n as usize => {
                let (its, range) = if n == 1 {
                    (
                        "its own bound (B's close less its send)",
                        format!("≥ {} ms", fmt_num(*lo)),
                    )
                } else {
                    (
                        "their own bounds (B's close less each send)",
                        format!("≥ {} to ≥ {} ms", fmt_num(*lo), fmt_num(*hi)),
                    )
                };
                format!("{n} unresolved, censored at {its}: {range}")
            }
            _ => format!("{n} unresolved: B stopped listening before they could arrive"),
        }
    }

    /// The whole fate in one line, as every table, figure and file says it:
    /// `of 302 loaded isochronous slots: 141 delivered (one-way p50
    /// 1836 ms, p99 2416 ms), 67 dropped, 94 censored at their own bounds
    /// (≥ 1018 to ≥ 2398 ms)`.
    pub fn slots_text(&self) -> String {
        let delivered = match self.one_way {
            Some(q) => format!(
                "{} delivered (one-way p50 {} ms, p99 {} ms)",
                q.n,
                fmt_num(q.p50_ms),
                fmt_num(q.p99_ms)
            ),
            None => format!("{} delivered", self.delivered()),
        };
        let mut t = format!(
            "of {} loaded {}: {delivered}, {} dropped",
            self.sent,
            self.noun,
            self.dropped.iter().map(|l| l.count).sum::<u32>()
        );
        if self.lost_unknown > 0 {
            t.push_str(&format!(", {} lost (cause unknown)", self.lost_unknown));
        }
        if self.unresolved > 0 {
            let bounds = match (self.censored_ms.first(), self.censored_ms.last()) {
                (Some(lo), Some(hi)) if self.censored_ms.len() == self.unresolved as usize => {
                    if lo == hi {
                        format!(" (≥ {} ms)", fmt_num(*lo))
                    } else {
                        format!(" (≥ {} to ≥ {} ms)", fmt_num(*lo), fmt_num(*hi))
                    }
                }
                _ => " (bounds not recorded)".into(),
            };
            t.push_str(&format!(
                ", {} censored at their own bounds{bounds}",
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

    /// Requests that reached B (replied in time or not).
    pub fn delivered(&self) -> u32 {
        self.replied + self.reached_late
    }

    /// Requests dropped at the bottleneck (matched to the arm's counter).
    pub fn dropped_count(&self) -> u32 {
        self.dropped.iter().map(|l| l.count).sum()
    }

    /// The empirical CDF of the one-way delay over every loaded request
    /// that left A: at each delivered delay (ms, ascending), the share of
    /// the sent requests delivered within it. It stops at the delivered
    /// share; lost and censored requests are the rest, never a delay.
    pub fn cdf(&self) -> Vec<(f64, f64)> {
        let sent = f64::from(self.sent.max(1));
        self.delivered_ms
            .iter()
            .enumerate()
            .map(|(i, v)| (*v, (i + 1) as f64 / sent))
            .collect()
    }

    /// The delay of the delivered requests: `delivered probes one-way A→B
    /// p50 4.8 ms, p95 10.2 ms (n = 98)`, with how many were past the
    /// timeout.
    pub fn delay_text(&self) -> String {
        let Some(q) = self.one_way else {
            return format!("no delivered {} with a one-way delay", self.noun);
        };
        let mut t = format!(
            "delivered {} one-way A→B p50 {} ms, p95 {} ms (n = {}",
            self.noun,
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

/// An unresolved request's own bound, ms: B's close less its send, to
/// the nanosecond the clock gives (so it reads back from a file exactly).
pub fn own_bound_ms(closed_s: f64, send_s: f64) -> f64 {
    ((closed_s - send_s) * 1e9).round().max(0.0) / 1e6
}

/// A probe's loaded requests by fate, counted, as sweep.csv, sweep.json
/// and diff.json carry them: the numbers behind [`ArmDelivery::slots_text`].
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SlotCounts {
    /// Requests that left A.
    pub sent: u32,
    /// Reached B: a delay, exact (replied in time or not).
    pub delivered: u32,
    /// Never reached B, matched to the arm's drops: a loss.
    pub dropped: u32,
    /// Never reached B, no cause: a loss.
    pub lost_unknown: u32,
    /// B had not received it when it stopped listening: censored at its
    /// own bound.
    pub censored: u32,
    /// The smallest and largest of those bounds, ms (B's close less the
    /// send; absent when none is censored or the bounds were not kept).
    pub censored_bounds_ms: Option<[f64; 2]>,
    /// No reply and no record of what became of it (results without B's
    /// receive log): neither a delay nor a loss is claimed.
    pub no_record: u32,
}

impl ArmDelivery {
    /// Its counts.
    pub fn counts(&self) -> SlotCounts {
        let bounds = match (self.censored_ms.first(), self.censored_ms.last()) {
            (Some(lo), Some(hi)) if self.censored_ms.len() == self.unresolved as usize => {
                Some([*lo, *hi])
            }
            _ => None,
        };
        SlotCounts {
            sent: self.sent,
            delivered: self.delivered(),
            dropped: self.dropped_count(),
            lost_unknown: self.lost_unknown,
            censored: self.unresolved,
            censored_bounds_ms: bounds,
            no_record: 0,
        }
    }
}

/// One scenario's loaded isochronous slots as delays and counts: with
/// fates, [`ArmDelivery::of_iso`]; without B's receive log, the slots some
/// reply answered are delays and the rest are counted as having no
/// record, never ranked as delays. None when the probe did not run, or
/// replies came without a one-way delay (no shared clock).
pub fn iso_slot_delays(s: &Scenario) -> Option<(Vec<f64>, SlotCounts)> {
    if let Some(d) = ArmDelivery::of_iso(&[s]) {
        if d.delivered() as usize != d.delivered_ms.len() {
            return None;
        }
        let c = d.counts();
        return Some((d.delivered_ms, c));
    }
    let iso = s.iso.as_ref()?;
    let sent: Vec<_> = iso
        .requests
        .iter()
        .filter(|r| r.phase == crate::records::ProbePhase::Loaded)
        .filter(|r| !matches!(r.outcome, crate::records::ProbeOutcome::NoInformation))
        .collect();
    let answered = |r: &&&crate::records::IsoSample| {
        matches!(r.outcome, crate::records::ProbeOutcome::Reply { .. }) || r.late_rtt_ms.is_some()
    };
    if sent.iter().any(|r| answered(&r) && r.up_ms.is_none()) {
        return None;
    }
    let mut delays: Vec<f64> = sent.iter().filter_map(|r| r.up_ms).collect();
    delays.sort_by(f64::total_cmp);
    let c = SlotCounts {
        sent: sent.len() as u32,
        delivered: delays.len() as u32,
        no_record: (sent.len() - delays.len()) as u32,
        ..SlotCounts::default()
    };
    Some((delays, c))
}

impl SlotCounts {
    /// Adds another round's counts (bounds widened to hold both).
    pub fn add(&mut self, o: &SlotCounts) {
        self.sent += o.sent;
        self.delivered += o.delivered;
        self.dropped += o.dropped;
        self.lost_unknown += o.lost_unknown;
        self.censored += o.censored;
        self.no_record += o.no_record;
        self.censored_bounds_ms = match (self.censored_bounds_ms, o.censored_bounds_ms) {
            (Some([a, b]), Some([c, d])) => Some([a.min(c), b.max(d)]),
            (x, None) if o.censored == 0 => x,
            (None, y) if self.censored == o.censored => y,
            _ => None,
        };
    }

    /// `141 delivered, 67 dropped, 94 censored at their own bounds (≥ 1018
    /// to ≥ 2398 ms) of 302`: what became of the slots, without the delays.
    pub fn text(&self) -> String {
        let mut t = format!("{} delivered, {} dropped", self.delivered, self.dropped);
        if self.lost_unknown > 0 {
            t.push_str(&format!(", {} lost (cause unknown)", self.lost_unknown));
        }
        if self.censored > 0 {
            let bounds = match self.censored_bounds_ms {
                Some([lo, hi]) if lo == hi => format!(" (≥ {} ms)", fmt_num(lo)),
                Some([lo, hi]) => format!(" (≥ {} to ≥ {} ms)", fmt_num(lo), fmt_num(hi)),
                None => " (bounds not recorded)".into(),
            };
            t.push_str(&format!(
                ", {} censored at their own bounds{bounds}",
                self.censored
            ));
        }
        if self.no_record > 0 {
            t.push_str(&format!(
                ", {} without a reply and no record of their fate (no B receive log)",
                self.no_record
            ));
        }
        t.push_str(&format!(" of {}", self.sent));
        t
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
            censored_ms: Vec::new(),
            delivered_ms: Vec::new(),
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
