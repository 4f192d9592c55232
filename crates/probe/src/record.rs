//! What a probe run and B's echo leave, as results.json holds them: the
//! stop-and-wait probe's [`ProbeLog`], the isochronous probe's [`IsoLog`]
//! and what its one-way delays mean, the echo's [`EchoStats`] and
//! [`EchoReceipt`]s. Plain serde types; the sockets that fill them are
//! [`crate::socket`]'s (cargo feature `net`), which re-exports them under
//! their old paths.

use serde::{Deserialize, Serialize};

use crate::iso::{IsoConfig, IsoRequest, ReplyCounters};
use crate::iso_stats::{iso_phase_stats, iso_window_stats, IsoPhaseStats, IsoWindowStats};
use crate::schedule::{ProbeConfig, ProbeRequest};
use crate::stats::{all_phase_stats, PhaseStats};

/// Everything one probe run measured (serializable).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeLog {
    /// The configuration used.
    pub config: ProbeConfig,
    /// Every request, in send order.
    pub requests: Vec<ProbeRequest>,
    /// Replies with a seq that was not outstanding, or too late; discarded.
    pub stale_replies: u64,
    /// Datagrams that were not a plain request's echo of the configured
    /// size (its sequence number and zero padding); discarded.
    pub malformed_replies: u64,
    /// Receive errors (e.g. ECONNREFUSED from an ICMP port unreachable).
    pub recv_errors: u64,
    /// True if the run was ended by `stop`, the hard bound or a fatal socket
    /// error rather than by its schedule.
    pub stopped_early: bool,
    /// The socket error that ended the run early, if one did (the requests
    /// measured until then are kept).
    pub fatal_error: Option<String>,
}

impl ProbeLog {
    /// Per-phase statistics of [`ProbeLog::requests`].
    pub fn phase_stats(&self) -> Vec<PhaseStats> {
        all_phase_stats(&self.requests, self.config.timeout)
    }
}

/// What the one-way delays of a log mean, for results and summaries.
pub const ONE_WAY_SHARED_NOTE: &str = "up/down one-way delays are exact: A's send/receive and B's receive/send stamps are read from one shared kernel CLOCK_MONOTONIC (network namespaces, or A and B in one guest), so no clock synchronisation is involved; up + B turnaround + down = RTT";
/// The same, when A and B are on different machines.
pub const ONE_WAY_NOT_SHARED_NOTE: &str = "up/down one-way delays are absent: A and B read different clocks (separate machines), so their stamps are not comparable; RTT and B's turnaround are unaffected";

/// Whether a log's one-way delays are there, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OneWayDelays {
    /// A and B read one kernel CLOCK_MONOTONIC: up/down are exact.
    ExactSharedClock,
    /// A and B read different clocks: up/down are absent.
    AbsentSeparateClocks,
}

impl OneWayDelays {
    /// For a run with `shared_clock`.
    pub fn for_clock(shared_clock: bool) -> Self {
        if shared_clock {
            OneWayDelays::ExactSharedClock
        } else {
            OneWayDelays::AbsentSeparateClocks
        }
    }

    /// One sentence for results and summaries.
    pub fn note(self) -> &'static str {
        match self {
            OneWayDelays::ExactSharedClock => ONE_WAY_SHARED_NOTE,
            OneWayDelays::AbsentSeparateClocks => ONE_WAY_NOT_SHARED_NOTE,
        }
    }
}

/// Everything one isochronous run measured (serializable).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsoLog {
    /// The configuration used (its `shared_clock` says whether up/down are
    /// present and exact).
    pub config: IsoConfig,
    /// Whether up/down are present and exact (from `config.shared_clock`).
    pub one_way_delays: OneWayDelays,
    /// [`OneWayDelays::note`], written out so results carry the reason.
    pub one_way_note: String,
    /// t0 on CLOCK_MONOTONIC, ns (A's clock).
    pub t0_monotonic_ns: u64,
    /// Every slot, in order (index == seq).
    pub requests: Vec<IsoRequest>,
    /// Late, duplicate, malformed and unmatched replies.
    pub replies: ReplyCounters,
    /// Receive errors (e.g. ECONNREFUSED from an ICMP port unreachable).
    pub recv_errors: u64,
    /// True if the run ended by `stop`, the hard bound or a fatal socket
    /// error rather than by its schedule.
    pub stopped_early: bool,
    /// The socket error that ended the run early, if one did.
    pub fatal_error: Option<String>,
}

impl IsoLog {
    /// Per-phase statistics (see [`crate::iso_stats`]).
    pub fn phase_stats(&self) -> Vec<IsoPhaseStats> {
        iso_phase_stats(&self.requests, &self.config)
    }

    /// Per-window statistics (default 1 s windows of due time).
    pub fn window_stats(&self) -> Vec<IsoWindowStats> {
        iso_window_stats(&self.requests, &self.config)
    }

    /// Send lateness (`send - due`) of every sent request, µs, in seq order.
    pub fn send_lateness_us(&self) -> Vec<f64> {
        self.requests
            .iter()
            .filter_map(|r| r.send_s.map(|s| (s - r.due_s) * 1e6))
            .collect()
    }
}

/// One probe request the echo received: its sequence number and B's
/// CLOCK_MONOTONIC receive time, read right after `recvfrom` (the clock A
/// stamps its sends with, when A and B share one kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EchoReceipt {
    /// The stop-and-wait probe's 4-byte big-endian seq, or a stamped
    /// request's seq.
    pub seq: u32,
    /// CLOCK_MONOTONIC at receipt, ns.
    pub recv_ns: u64,
}

/// Counters of one echo responder (`EchoResponder`, serializable).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EchoStats {
    /// Datagrams received.
    pub received: u64,
    /// Datagrams sent back in full to their source.
    pub echoed: u64,
    /// Of `received`: stamped requests of the isochronous probe, answered
    /// with B's receive and send times ([`crate::wire`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stamped: u64,
    /// Datagrams received but not echoed (send error, would-block or short
    /// send), plus transient receive errors (ICMP-derived refusals/resets).
    pub errors: u64,
}

/// serde: a stop-and-wait-only echo (no stamped request) writes no `stamped`,
/// so results written before the isochronous probe existed read back the same.
fn is_zero(n: &u64) -> bool {
    *n == 0
}
