//! Every probe request's fate (method §5.8): what became of each
//! request of the stop-and-wait probe and of the isochronous probe, told
//! from A's log, B's receive log ([`EchoArrivals`]) and R's drop counters.
//!
//! Each request ends in exactly one [`Fate`]:
//! * [`Fate::Replied`]: its reply came back within the timeout;
//! * [`Fate::ReachedB`]: B received it `one_way_ms` after A sent it (exact:
//!   A and B read one CLOCK_MONOTONIC), but no reply came back within the
//!   timeout — the reply came late (`late_rtt_ms`) or never;
//! * [`Fate::NeverReachedB`]: B never received it; its [`LossCause`] is the
//!   arm's drop counter rising in the sampling interval of its send
//!   ([`LossCause::DroppedAtBottleneck`], with the qdisc's [`DropReason`])
//!   or [`LossCause::Unknown`];
//! * [`Fate::NotSent`]: it never left A (send error, a missed slot);
//! * [`Fate::Unresolved`]: B had not received it when the run stopped (A
//!   stopped while it was outstanding, or B stopped listening before it
//!   could have arrived).
//!
//! The pure steps: [`classify`] (A's outcomes + B's arrivals →
//! fates, causes unknown), [`drop_intervals`] (R's samples → per-interval
//! drop deltas of the arm, with their reason), [`attribute_losses`]
//! (never-reached requests matched one-to-one to drops, from a
//! [`DropBudget`] the scenario's probes share), [`summarize`]
//! (per-phase counts and the one-way delays of every request that reached
//! B). [`ProbeFates::build`] runs all four.

mod classify;
mod drops;

pub use classify::{classify, one_way_quantiles, summarize, FateInput, InputOutcome};
pub use drops::{attribute_losses, drop_intervals, DropBudget, DropInterval, MATCH_SLACK};

use netlab_probe::Phase;
use serde::{Deserialize, Serialize};

/// One probe datagram B's echo received: its sequence number and when
/// (s since t0, on the timeline of A's `send_s`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EchoArrival {
    /// The request's sequence number (the stop-and-wait probe's 4 bytes,
    /// or the stamped request's `seq`).
    pub seq: u32,
    /// B's receive time (CLOCK_MONOTONIC read right after `recvfrom`), s
    /// since t0.
    pub recv_s: f64,
}

/// B's receive log of one probe's echo.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EchoArrivals {
    /// True when B's receive times and A's send times come from one
    /// CLOCK_MONOTONIC (A, R and B are namespaces of one kernel, on the
    /// host or in the guest), so `recv_s - send_s` is the exact one-way
    /// delay. False: B's log says only whether a request arrived.
    pub shared_clock: bool,
    /// The first receipt of every sequence number B received, in receive
    /// order (duplicates are not repeated).
    pub arrivals: Vec<EchoArrival>,
    /// Datagrams B received past the log's cap, not logged (0 normally).
    #[serde(default)]
    pub not_logged: u64,
    /// When B's echo stopped receiving (its loop closed), s since t0. A
    /// request B did not receive that was sent less than the longest
    /// one-way delay of the run (at least the timeout) before this is
    /// [`Fate::Unresolved`], not lost: it may still have been on its way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_s: Option<f64>,
}

/// Why the arm dropped packets, from which of its counters rose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// CoDel's control law dropped it at dequeue (fq_codel's or codel's
    /// drops that are not `drop_overlimit`).
    CodelDrop,
    /// The qdisc was over its packet limit (fq_codel's or codel's
    /// `drop_overlimit`; fq_codel drops from the fattest flow then).
    Overlimit,
    /// Both kinds rose in the interval: one or the other.
    CodelDropOrOverlimit,
    /// A FIFO's (pfifo, bfifo, pfifo_fast) tail drop: the queue was full.
    TailDrop,
    /// CAKE's drops (COBALT's AQM or its memory limit; the per-tin counter
    /// does not say which).
    CakeDrop,
    /// PIE's or fq_pie's probabilistic drop (or its overlimit).
    PieDrop,
    /// The arm's drop counter rose; its kind has no known reason.
    Other,
}

impl DropReason {
    /// How a sentence says it ("dropped by CoDel", …).
    pub fn as_words(self) -> &'static str {
        match self {
            DropReason::CodelDrop => "dropped by CoDel",
            DropReason::Overlimit => "dropped over the qdisc's limit",
            DropReason::CodelDropOrOverlimit => "dropped by CoDel or over the limit",
            DropReason::TailDrop => "tail-dropped (queue full)",
            DropReason::CakeDrop => "dropped by CAKE",
            DropReason::PieDrop => "dropped by PIE",
            DropReason::Other => "dropped at the bottleneck",
        }
    }
}

/// Why a request never reached B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LossCause {
    /// The arm's drop counter rose in the sampling interval the request
    /// was sent in (or within [`MATCH_SLACK`] after), and that rise was not
    /// already matched to an earlier request: consistent with a drop at
    /// the bottleneck, by the qdisc's own count (not proof that this very
    /// packet was the one dropped, when other traffic is dropped too).
    DroppedAtBottleneck {
        /// The arm's kind, e.g. `fq_codel`.
        qdisc: String,
        /// Which counter rose.
        reason: DropReason,
        /// The sampling interval, s since t0 (start exclusive, end inclusive).
        interval_s: [f64; 2],
        /// The arm's drops in that interval (all traffic).
        drops_in_interval: u64,
    },
    /// No unmatched rise of the arm's drop counter near its send, or no
    /// qdisc samples to match against; `note` says which.
    Unknown {
        /// Why no cause is given.
        note: String,
    },
}

/// What became of one request (method §5.8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fate", rename_all = "snake_case")]
pub enum Fate {
    /// The reply came back within the timeout.
    Replied {
        /// Round-trip time, ms.
        rtt_ms: f64,
        /// B's receive − A's send, ms (shared clock and B's log only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        one_way_ms: Option<f64>,
    },
    /// B received it, but no reply came back within the timeout.
    ReachedB {
        /// B's receive − A's send, ms (absent when the clock is not shared).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        one_way_ms: Option<f64>,
        /// The late reply's round-trip time, ms, when it came before A
        /// stopped listening; absent: the reply never came back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        late_rtt_ms: Option<f64>,
    },
    /// B never received it.
    NeverReachedB {
        /// Matched to the arm's drops, or unknown.
        cause: LossCause,
    },
    /// It never left A.
    NotSent {
        /// The send error, or "slot missed".
        why: String,
    },
    /// B had not received it when the run stopped: it was outstanding
    /// when A stopped, or B stopped listening before it could have arrived
    /// (see [`EchoArrivals::closed_s`]).
    Unresolved,
}

/// One request and its fate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestFate {
    /// Its sequence number.
    pub seq: u32,
    /// When A sent it, s since t0 (absent when it was never sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_s: Option<f64>,
    /// Its phase, as A's log has it.
    pub phase: Phase,
    /// What became of it (flattened: `fate` names the variant).
    #[serde(flatten)]
    pub fate: Fate,
}

/// Requests dropped with one reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DropCount {
    /// The arm's kind.
    pub qdisc: String,
    /// The reason.
    pub reason: DropReason,
    /// How many requests.
    pub count: u32,
}

/// Quantiles of the one-way A→B delay of every request that reached B
/// (replied or not): no censoring, every value is measured. The same rank
/// rules as method §9: p50 the lower median, p95 and p99 the nearest rank.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OneWayQuantiles {
    /// Requests with a one-way delay.
    pub n: u32,
    /// Lower median, ms.
    pub p50_ms: f64,
    /// Nearest-rank 95th percentile, ms.
    pub p95_ms: f64,
    /// Nearest-rank 99th percentile, ms.
    pub p99_ms: f64,
    /// Largest, ms.
    pub max_ms: f64,
}

/// The fates of one phase, counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FateSummary {
    /// The phase.
    pub phase: Phase,
    /// Requests that left A (`replied + reached_b + never_reached_b + unresolved`).
    pub sent: u32,
    /// Replied within the timeout.
    pub replied: u32,
    /// Reached B without a timely reply.
    pub reached_b: u32,
    /// Of those, whose reply came late (the rest never came back).
    pub late_replies: u32,
    /// Never reached B (`dropped_at_bottleneck` counts + `lost_cause_unknown`).
    pub never_reached_b: u32,
    /// Of those, matched to the arm's drops, per reason.
    pub dropped_at_bottleneck: Vec<DropCount>,
    /// Of those, with no cause.
    pub lost_cause_unknown: u32,
    /// Never left A.
    pub not_sent: u32,
    /// Outstanding when the run stopped, not seen by B.
    pub unresolved: u32,
    /// One-way delays of every request that reached B (absent when none
    /// did or the clock is not shared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_way: Option<OneWayQuantiles>,
}

/// Every request's fate and the per-phase counts: one probe's
/// `fates` in results.json (absent in results written before B's receive log was kept,
/// and when B's receive log did not reach the results).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeFates {
    /// As [`EchoArrivals::shared_clock`]: one-way delays are exact.
    pub shared_clock: bool,
    /// Whether R's samples of the arm were there to match losses against.
    pub drops_matched: bool,
    /// Every request, in sequence order.
    pub requests: Vec<RequestFate>,
    /// Per phase, in [`Phase::ALL`] order (phases without a request left out).
    pub phases: Vec<FateSummary>,
}

impl ProbeFates {
    /// Classifies `requests` (of a probe with this `timeout`) against B's
    /// `arrivals` and matches the
    /// never-reached ones to the unmatched drops of `drops` (None: no
    /// samples of the arm), using up the ones it matches.
    pub fn build(
        requests: &[FateInput],
        arrivals: &EchoArrivals,
        timeout: std::time::Duration,
        drops: Option<&mut DropBudget>,
    ) -> ProbeFates {
        let mut fates = classify(requests, arrivals, timeout);
        let drops_matched = drops.is_some();
        match drops {
            Some(d) => attribute_losses(&mut fates, d),
            None => {
                for f in &mut fates {
                    if let Fate::NeverReachedB { cause } = &mut f.fate {
                        *cause = LossCause::Unknown {
                            note: "no samples of the arm's drop counter".into(),
                        };
                    }
                }
            }
        }
        ProbeFates {
            shared_clock: arrivals.shared_clock,
            drops_matched,
            phases: summarize(&fates),
            requests: fates,
        }
    }

    /// The summary of one phase.
    pub fn phase(&self, phase: Phase) -> Option<&FateSummary> {
        self.phases.iter().find(|p| p.phase == phase)
    }
}
