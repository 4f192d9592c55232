//! The isochronous probe as a pure state machine (time passed in).
//!
//! Unlike the stop-and-wait probe (method §5) ([`crate::schedule`]), requests go
//! out on a fixed grid whatever is outstanding, so a deep queue is sampled
//! densely (irtt, Flent's UDP RTT and crusader do the same). All times are
//! [`Duration`]s since the scenario origin `t0`; `t0_ns` is the same instant
//! on CLOCK_MONOTONIC, used to check echoed stamps and to compute one-way
//! delays from B's stamps (see [`crate::wire`]).
//!
//! # Rules, exactly as implemented
//! * **Slots.** Slot `k` (= sequence number `k`) is due at
//!   `start + k·interval`. The last slot is the last one with
//!   `due + quiet_before_end <= end` (by default no request in the last
//!   second, so every request can complete before `end`).
//! * **Fixed schedule, no catch-up.** [`IsoClient::poll`] at `now` sends the
//!   slot whose period `[due, due + interval)` contains `now`, if it has not
//!   been sent. Earlier unsent slots are recorded as [`IsoOutcome::Missed`]
//!   (a stalled sender never bursts to catch up: at most one request per
//!   slot, and only the current slot is sent). A send may be late by less
//!   than one interval; `due_s` and `send_s` are both kept.
//! * **Matching.** A reply is matched by sequence number, and its echoed A
//!   send stamp must equal the one sent (else it counts as malformed).
//! * **Success** iff the first reply arrives strictly before
//!   `send + timeout`. A request without one by then is **censored** at the
//!   timeout ([`IsoOutcome::Timeout`]); a reply arriving at or after the
//!   deadline is **late**: kept on the request (`late_rtt_ms`, one-way
//!   delays) and counted, never a success. Further replies to a seq that
//!   already had one are **duplicates** (counted, dropped). Replies to a seq
//!   that was never sent are **unmatched**.
//! * **Phase and window** by *due* time (the schedule's own clock, so a
//!   missed slot has a phase too): phases as [`PhaseBounds`], windows
//!   `[k·window, (k+1)·window)` since t0.
//! * **One-way delays** (only if `shared_clock`): up = B's receive stamp −
//!   A's send stamp, down = A's receive time − B's send stamp, both from
//!   CLOCK_MONOTONIC ns. They are exact only because A and B read the *same*
//!   kernel clock (network namespaces share CLOCK_MONOTONIC; so do A and B
//!   in the guest). Across machines the clocks differ and the caller must set
//!   `shared_clock = false`: up/down are then absent; B's turnaround
//!   (send − receive, one clock) is kept either way. By construction
//!   `up + turnaround + down == rtt` to the nanosecond when A's times are
//!   read from CLOCK_MONOTONIC (as [`crate::run_iso_probe`] does).

use std::collections::VecDeque;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::schedule::{Phase, PhaseBounds};
use crate::wire::Reply;
use crate::ProbeError;

/// Shortest interval accepted.
pub const MIN_INTERVAL: Duration = Duration::from_millis(1);
/// Most slots one run may schedule (1 ms for ~16 min).
pub const MAX_SLOTS: u64 = 1_000_000;

/// Isochronous probe configuration; [`IsoConfig::default`] is 20 ms over
/// the method's 18 s scenario with a 1 s timeout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsoConfig {
    /// First slot's due time (default 0 s).
    #[serde(with = "netlab_os::secs", rename = "start_s")]
    pub start: Duration,
    /// Slot spacing (default 20 ms, at least 1 ms).
    #[serde(with = "netlab_os::secs", rename = "interval_s")]
    pub interval: Duration,
    /// A reply later than this after its send is late, the request censored
    /// (default 1 s).
    #[serde(with = "netlab_os::secs", rename = "timeout_s")]
    pub timeout: Duration,
    /// End of the scenario (default 18 s).
    #[serde(with = "netlab_os::secs", rename = "end_s")]
    pub end: Duration,
    /// No slot due within this long before `end` (default 1 s).
    #[serde(with = "netlab_os::secs", rename = "quiet_before_end_s")]
    pub quiet_before_end: Duration,
    /// Width of the statistics windows (default 1 s).
    #[serde(with = "netlab_os::secs", rename = "window_s")]
    pub window: Duration,
    /// Phase boundaries by due time.
    pub phases: PhaseBounds,
    /// Whether A and B read the same CLOCK_MONOTONIC (same kernel: network
    /// namespaces, or A and B inside one guest). Set by the caller; false
    /// for the real-host roles on different machines, where one-way delays
    /// are not comparable and are left out. Default true.
    pub shared_clock: bool,
    /// UDP payload of every request (and its reply), bytes: the 40-byte
    /// stamped header ([`crate::wire`]), zero-padded to this size (default
    /// 40, at most [`crate::wire::MAX_DATAGRAM_LEN`]). Absent in results
    /// written before probe sizes existed, which all sent 40 bytes.
    #[serde(default = "stamped_len")]
    pub size: usize,
}

fn stamped_len() -> usize {
    crate::wire::STAMPED_LEN
}

impl Default for IsoConfig {
    fn default() -> Self {
        Self {
            start: Duration::ZERO,
            interval: Duration::from_millis(20),
            timeout: Duration::from_secs(1),
            end: Duration::from_secs(18),
            quiet_before_end: Duration::from_secs(1),
            window: Duration::from_secs(1),
            phases: PhaseBounds::default(),
            shared_clock: true,
            size: crate::wire::STAMPED_LEN,
        }
    }
}

impl IsoConfig {
    /// Defaults with a different scenario end.
    pub fn with_end(end: Duration) -> Self {
        Self {
            end,
            ..Self::default()
        }
    }

    /// Defaults with a different interval and end.
    pub fn with_interval(interval: Duration, end: Duration) -> Self {
        Self {
            interval,
            end,
            ..Self::default()
        }
    }

    /// Number of slots the schedule holds (0 if none fits).
    pub fn slots(&self) -> u64 {
        match self
            .end
            .checked_sub(self.quiet_before_end)
            .and_then(|last| last.checked_sub(self.start))
        {
            Some(span) if !self.interval.is_zero() => {
                (span.as_nanos() / self.interval.as_nanos()) as u64 + 1
            }
            _ => 0,
        }
    }

    /// Due time of slot `k`.
    pub fn due(&self, k: u64) -> Duration {
        self.start + Duration::from_nanos((self.interval.as_nanos() as u64).saturating_mul(k))
    }

    /// Checks that the values are usable; the error names the bad field.
    pub fn validate(&self) -> Result<(), ProbeError> {
        let bad = |m: String| Err(ProbeError::Config(m));
        if self.interval < MIN_INTERVAL {
            return bad(format!(
                "iso interval must be >= 1 ms, got {:?}",
                self.interval
            ));
        }
        if self.timeout.is_zero() {
            return bad("iso timeout must be > 0".into());
        }
        if self.window.is_zero() {
            return bad("iso window must be > 0".into());
        }
        if self.end.is_zero() {
            return bad("iso end must be > 0".into());
        }
        if !(crate::wire::STAMPED_LEN..=crate::wire::MAX_DATAGRAM_LEN).contains(&self.size) {
            return bad(format!(
                "iso size must be between {} (the stamped header) and {} bytes, got {}",
                crate::wire::STAMPED_LEN,
                crate::wire::MAX_DATAGRAM_LEN,
                self.size
            ));
        }
        if self.slots() > MAX_SLOTS {
            return bad(format!(
                "iso schedule has {} slots, more than {MAX_SLOTS} (interval too small for end)",
                self.slots()
            ));
        }
        let p = &self.phases;
        if !(p.baseline_start <= p.baseline_end
            && p.baseline_end <= p.loaded_start
            && p.loaded_start <= p.loaded_end)
        {
            return bad("iso phase bounds must satisfy baseline_start <= baseline_end <= loaded_start <= loaded_end".into());
        }
        Ok(())
    }
}

/// What became of one slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IsoOutcome {
    /// Sent, no reply yet, timeout not reached.
    Pending,
    /// First reply strictly before `send + timeout`.
    Reply,
    /// No reply inside the timeout: censored at the timeout (a late reply
    /// may still have come: see `late_rtt_ms`).
    Timeout,
    /// The slot passed without a send (the sender was stalled).
    Missed,
    /// The send syscall failed.
    SendError {
        /// OS error text.
        error: String,
    },
    /// The run was stopped while the request was pending.
    Abandoned,
}

/// One slot of the schedule, kept whatever happened to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsoRequest {
    /// Sequence number == slot index.
    pub seq: u32,
    /// When the slot was due (s since t0).
    pub due_s: f64,
    /// When it was sent (s since t0); None if missed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_s: Option<f64>,
    /// Phase by due time.
    pub phase: Phase,
    /// What became of it.
    pub outcome: IsoOutcome,
    /// Arrival of the first reply (in time or late), s since t0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_s: Option<f64>,
    /// RTT in ms of a successful request (outcome `Reply`) only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_ms: Option<f64>,
    /// RTT in ms of a reply that came at or after the timeout (never a
    /// success; the request stays censored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_rtt_ms: Option<f64>,
    /// A→B delay, ms (shared clock only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up_ms: Option<f64>,
    /// B→A delay, ms (shared clock only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub down_ms: Option<f64>,
    /// B's turnaround (its send stamp − its receive stamp), ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turnaround_ms: Option<f64>,
}

/// Counters of replies that did not make a success.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyCounters {
    /// First replies at or after the timeout (kept on their request).
    pub late: u64,
    /// Second and later replies for one seq.
    pub duplicate: u64,
    /// Datagrams that are not a stamped reply of this version, or whose
    /// echoed A stamp differs from the one sent.
    pub malformed: u64,
    /// Stamped replies for a seq that was never sent (missed, failed send,
    /// abandoned, or beyond the schedule).
    pub unmatched: u64,
}

/// What the I/O edge should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsoAction {
    /// Send the request of this seq now; its send time is the `now` passed
    /// to [`IsoClient::poll`], its A stamp `t0_ns + now`.
    Send {
        /// Sequence number.
        seq: u32,
    },
    /// Nothing to do before this time (next slot or next deadline).
    WaitUntil(Duration),
    /// All slots are done and nothing is pending.
    Done,
}

/// Result of [`IsoClient::on_reply`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IsoVerdict {
    /// A success; RTT in ms.
    Accepted {
        /// RTT, ms.
        rtt_ms: f64,
    },
    /// At or after the timeout; RTT in ms (kept, not a success).
    Late {
        /// RTT, ms.
        rtt_ms: f64,
    },
    /// The seq already had a reply.
    Duplicate,
    /// The echoed A stamp does not match, or the reply precedes the send.
    Malformed,
    /// No request with this seq was sent.
    Unmatched,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn ns_diff_ms(a: u64, b: u64) -> f64 {
    (a as i128 - b as i128) as f64 / 1e6
}

/// The isochronous client's state machine (pure, no I/O, no clock).
#[derive(Debug, Clone)]
pub struct IsoClient {
    cfg: IsoConfig,
    t0_ns: u64,
    slots: u64,
    requests: Vec<IsoRequest>,
    /// Exact send time of each slot (the f64 in `requests` is for reports).
    sent_at: Vec<Option<Duration>>,
    /// Indices of sent requests possibly still pending, in send order.
    pending: VecDeque<usize>,
    counters: ReplyCounters,
    completed: VecDeque<usize>,
    done: bool,
}

impl IsoClient {
    /// A client for `cfg` (validated). `t0_ns` is t0 on CLOCK_MONOTONIC.
    pub fn new(cfg: IsoConfig, t0_ns: u64) -> Result<Self, ProbeError> {
        cfg.validate()?;
        let slots = cfg.slots();
        Ok(Self {
            requests: Vec::with_capacity(slots.min(100_000) as usize),
            sent_at: Vec::with_capacity(slots.min(100_000) as usize),
            slots,
            cfg,
            t0_ns,
            pending: VecDeque::new(),
            counters: ReplyCounters::default(),
            completed: VecDeque::new(),
            done: false,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &IsoConfig {
        &self.cfg
    }

    /// Every slot so far (index == seq).
    pub fn requests(&self) -> &[IsoRequest] {
        &self.requests
    }

    /// Reply counters so far.
    pub fn counters(&self) -> ReplyCounters {
        self.counters
    }

    /// Due time of the next slot not yet sent or missed, if any is left.
    pub fn next_due(&self) -> Option<Duration> {
        let k = self.requests.len() as u64;
        (!self.done && k < self.slots).then(|| self.cfg.due(k))
    }

    /// Whether all slots are done and nothing is pending.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// A's CLOCK_MONOTONIC stamp for a send at `send` since t0.
    pub fn a_stamp(&self, send: Duration) -> u64 {
        self.t0_ns.saturating_add(send.as_nanos() as u64)
    }

    /// Consumes the client.
    pub fn into_parts(self) -> (Vec<IsoRequest>, ReplyCounters) {
        (self.requests, self.counters)
    }

    fn push_slot(&mut self, outcome: IsoOutcome, send: Option<Duration>) -> usize {
        let k = self.requests.len() as u64;
        let due = self.cfg.due(k);
        self.requests.push(IsoRequest {
            seq: k as u32,
            due_s: due.as_secs_f64(),
            send_s: send.map(|s| s.as_secs_f64()),
            phase: self.cfg.phases.phase_of(due),
            outcome,
            reply_s: None,
            rtt_ms: None,
            late_rtt_ms: None,
            up_ms: None,
            down_ms: None,
            turnaround_ms: None,
        });
        self.sent_at.push(send);
        k as usize
    }

    fn send_time(&self, i: usize) -> Option<Duration> {
        self.sent_at[i]
    }

    fn deadline(&self, i: usize) -> Option<Duration> {
        self.send_time(i).map(|s| s + self.cfg.timeout)
    }

    /// Decides what to do at `now`: censors requests whose deadline has
    /// passed, records missed slots, then sends, waits or reports done.
    pub fn poll(&mut self, now: Duration) -> IsoAction {
        if self.done {
            return IsoAction::Done;
        }
        self.expire(now);
        let next = self.requests.len() as u64;
        if next < self.slots && now >= self.cfg.due(next) {
            let since_start = now - self.cfg.start;
            let current = (since_start.as_nanos() / self.cfg.interval.as_nanos()) as u64;
            while (self.requests.len() as u64) < current.min(self.slots) {
                let i = self.push_slot(IsoOutcome::Missed, None);
                self.completed.push_back(i);
            }
            if current < self.slots {
                let i = self.push_slot(IsoOutcome::Pending, Some(now));
                self.pending.push_back(i);
                return IsoAction::Send { seq: i as u32 };
            }
        }
        let unsent = self.requests.len() as u64;
        let next_due = (unsent < self.slots).then(|| self.cfg.due(unsent));
        let next_deadline = self.pending.front().and_then(|&i| self.deadline(i));
        match (next_due, next_deadline) {
            (None, None) => {
                self.done = true;
                IsoAction::Done
            }
            (a, b) => IsoAction::WaitUntil(a.into_iter().chain(b).min().unwrap_or(now)),
        }
    }

    fn expire(&mut self, now: Duration) {
        while let Some(&i) = self.pending.front() {
            if self.requests[i].outcome != IsoOutcome::Pending {
                self.pending.pop_front();
                continue;
            }
            match self.deadline(i) {
                Some(d) if d <= now => {
                    self.requests[i].outcome = IsoOutcome::Timeout;
                    self.completed.push_back(i);
                    self.pending.pop_front();
                }
                _ => break,
            }
        }
    }

    /// A stamped reply arrived at `now` (A's receive time since t0).
    pub fn on_reply(&mut self, now: Duration, reply: &Reply) -> IsoVerdict {
        let i = reply.seq as usize;
        let sendable = self.requests.get(i).is_some_and(|r| {
            matches!(
                r.outcome,
                IsoOutcome::Pending | IsoOutcome::Reply | IsoOutcome::Timeout
            )
        });
        let Some(send) = self.sent_at.get(i).copied().flatten().filter(|_| sendable) else {
            self.counters.unmatched += 1;
            return IsoVerdict::Unmatched;
        };
        if reply.a_send_ns != self.a_stamp(send) || now < send {
            self.counters.malformed += 1;
            return IsoVerdict::Malformed;
        }
        let timeout = self.cfg.timeout;
        let shared = self.cfg.shared_clock;
        let a_recv_ns = self.a_stamp(now);
        let r = &mut self.requests[i];
        if r.reply_s.is_some() {
            self.counters.duplicate += 1;
            return IsoVerdict::Duplicate;
        }
        let rtt = ms(now - send);
        r.reply_s = Some(now.as_secs_f64());
        r.turnaround_ms = Some(ns_diff_ms(reply.b_send_ns, reply.b_recv_ns));
        if shared {
            r.up_ms = Some(ns_diff_ms(reply.b_recv_ns, reply.a_send_ns));
            r.down_ms = Some(ns_diff_ms(a_recv_ns, reply.b_send_ns));
        }
        if r.outcome == IsoOutcome::Pending && now < send + timeout {
            r.outcome = IsoOutcome::Reply;
            r.rtt_ms = Some(rtt);
            self.completed.push_back(i);
            IsoVerdict::Accepted { rtt_ms: rtt }
        } else {
            if r.outcome == IsoOutcome::Pending {
                r.outcome = IsoOutcome::Timeout;
                self.completed.push_back(i);
            }
            r.late_rtt_ms = Some(rtt);
            self.counters.late += 1;
            IsoVerdict::Late { rtt_ms: rtt }
        }
    }

    /// A datagram that is not a stamped reply arrived.
    pub fn on_malformed(&mut self) {
        self.counters.malformed += 1;
    }

    /// The send of `seq` failed; the slot keeps the error.
    pub fn on_send_error(&mut self, seq: u32, error: String) {
        if let Some(r) = self.requests.get_mut(seq as usize) {
            if r.outcome == IsoOutcome::Pending {
                r.outcome = IsoOutcome::SendError { error };
                self.completed.push_back(seq as usize);
            }
        }
    }

    /// Stop now: pending requests become abandoned, no further slot is
    /// recorded, `poll` returns `Done` from now on.
    pub fn abandon(&mut self) {
        while let Some(i) = self.pending.pop_front() {
            if self.requests[i].outcome == IsoOutcome::Pending {
                self.requests[i].outcome = IsoOutcome::Abandoned;
                self.completed.push_back(i);
            }
        }
        self.done = true;
    }

    /// The next slot completed (reply, timeout, missed, send error,
    /// abandoned) since the last call, oldest first — for a live display.
    pub fn poll_completed(&mut self) -> Option<&IsoRequest> {
        let i = self.completed.pop_front()?;
        self.requests.get(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results written before probe sizes existed have no `size`: they
    /// read as what those probes sent, 40 and 4 bytes.
    #[test]
    fn configs_without_a_size_read_as_the_sizes_old_probes_sent() {
        let mut iso = serde_json::to_value(IsoConfig::default()).unwrap();
        iso.as_object_mut().unwrap().remove("size").unwrap();
        let iso: IsoConfig = serde_json::from_value(iso).unwrap();
        assert_eq!(iso.size, crate::wire::STAMPED_LEN);
        let mut saw = serde_json::to_value(crate::ProbeConfig::default()).unwrap();
        saw.as_object_mut().unwrap().remove("size").unwrap();
        let saw: crate::ProbeConfig = serde_json::from_value(saw).unwrap();
        assert_eq!(saw.size, crate::wire::PLAIN_LEN);
    }

    const MS: Duration = Duration::from_millis(1);
    const T0_NS: u64 = 7_000_000_000;

    fn cfg(end_ms: u64) -> IsoConfig {
        IsoConfig {
            quiet_before_end: Duration::ZERO,
            ..IsoConfig::with_end(Duration::from_millis(end_ms))
        }
    }

    /// The echo's reply for a request sent at `send`, B receiving `up`
    /// later and answering `turn` after that.
    fn reply(c: &IsoClient, seq: u32, send: Duration, up: Duration, turn: Duration) -> Reply {
        let a = c.a_stamp(send);
        let b_recv = a + up.as_nanos() as u64;
        Reply {
            seq,
            a_send_ns: a,
            b_recv_ns: b_recv,
            b_send_ns: b_recv + turn.as_nanos() as u64,
        }
    }

    /// Drives the client with a simulated clock: wakes exactly when told
    /// plus `late(now)`, network: up/down delay per seq (None = lost).
    fn simulate(
        cfg: IsoConfig,
        delay: impl Fn(u32) -> Option<(Duration, Duration)>,
        late: impl Fn(Duration) -> Duration,
    ) -> IsoClient {
        let mut c = IsoClient::new(cfg, T0_NS).unwrap();
        let mut now = Duration::ZERO;
        let mut in_flight: Vec<(Duration, Reply)> = Vec::new();
        for _ in 0..1_000_000 {
            match c.poll(now) {
                IsoAction::Send { seq } => {
                    if let Some((up, down)) = delay(seq) {
                        let r = reply(&c, seq, now, up, Duration::ZERO);
                        in_flight.push((now + up + down, r));
                    }
                }
                IsoAction::WaitUntil(t) => {
                    let wake = t + late(t);
                    in_flight.sort_by_key(|(at, _)| *at);
                    if in_flight.first().is_some_and(|(at, _)| *at <= wake) {
                        let (at, r) = in_flight.remove(0);
                        now = now.max(at);
                        c.on_reply(now, &r);
                    } else {
                        now = wake;
                    }
                }
                IsoAction::Done => return c,
            }
        }
        panic!("simulation did not finish");
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn fixed_cadence_regardless_of_outstanding_requests() {
        // 300 ms RTT, 20 ms interval: ~15 requests outstanding at once
        let c = simulate(
            cfg(1000),
            |_| Some((150 * MS, 150 * MS)),
            |_| Duration::ZERO,
        );
        let r = c.requests();
        assert_eq!(r.len(), 51, "0, 20, …, 1000 ms");
        for (k, q) in r.iter().enumerate() {
            assert!(close(q.due_s, k as f64 * 0.02));
            assert!(close(q.send_s.unwrap(), q.due_s), "{q:?}");
            assert_eq!(q.outcome, IsoOutcome::Reply);
            assert!(close(q.rtt_ms.unwrap(), 300.0));
            assert!(close(q.up_ms.unwrap(), 150.0));
            assert!(close(q.down_ms.unwrap(), 150.0));
        }
        assert_eq!(c.counters(), ReplyCounters::default());
    }

    #[test]
    fn default_schedule_has_851_slots_and_stops_a_second_before_end() {
        let c = IsoConfig::default();
        assert_eq!(c.slots(), 851, "0 … 17.0 s every 20 ms");
        assert_eq!(c.due(850), Duration::from_secs(17));
        let one = IsoConfig::with_interval(MS, Duration::from_secs(18));
        assert_eq!(one.slots(), 17_001);
        assert!(IsoConfig::with_interval(MS / 2, Duration::from_secs(1))
            .validate()
            .unwrap_err()
            .to_string()
            .contains("interval"));
    }

    #[test]
    fn a_stall_records_missed_slots_and_never_bursts() {
        // the edge wakes 75 ms late for slot 5 (due 100 ms): 175 ms lies in
        // slot 8's period [160, 180), so slots 5, 6, 7 are missed, slot 8
        // goes out at 175 and slot 9 at 180 as scheduled — no burst.
        let c = simulate(
            cfg(300),
            |_| Some((MS, MS)),
            |t| {
                if t == 100 * MS {
                    75 * MS
                } else {
                    Duration::ZERO
                }
            },
        );
        let r = c.requests();
        let outcomes: Vec<_> = r[4..10].iter().map(|q| q.outcome.clone()).collect();
        use IsoOutcome::*;
        assert_eq!(outcomes, [Reply, Missed, Missed, Missed, Reply, Reply]);
        assert!(r[5].send_s.is_none());
        assert!(close(r[8].send_s.unwrap(), 0.175));
        assert!(close(r[9].send_s.unwrap(), 0.180));
        let sends: Vec<f64> = r.iter().filter_map(|q| q.send_s).collect();
        // at most one send per slot period: never two sends for one slot,
        // never a send of a slot whose period has passed
        for q in r.iter().filter(|q| q.send_s.is_some()) {
            let s = q.send_s.unwrap();
            assert!(s >= q.due_s - 1e-12 && s < q.due_s + 0.02, "{q:?}");
        }
        assert_eq!(sends.len(), r.len() - 3);
        assert_eq!(r.len(), 16);
    }

    #[test]
    fn a_stall_past_the_last_slot_misses_the_rest() {
        let mut c = IsoClient::new(cfg(100), T0_NS).unwrap();
        assert_eq!(c.poll(Duration::ZERO), IsoAction::Send { seq: 0 });
        // wake long after everything: slots 1..=5 missed, 0 censored, done
        assert_eq!(c.poll(Duration::from_secs(5)), IsoAction::Done);
        let r = c.requests();
        assert_eq!(r.len(), 6);
        assert_eq!(r[0].outcome, IsoOutcome::Timeout);
        assert!(r[1..].iter().all(|q| q.outcome == IsoOutcome::Missed));
    }

    #[test]
    fn censored_at_the_timeout_late_duplicate_malformed_unmatched() {
        let mut c = IsoClient::new(cfg(100), T0_NS).unwrap();
        let s = |c: &mut IsoClient, now: Duration| c.poll(now);
        assert_eq!(s(&mut c, Duration::ZERO), IsoAction::Send { seq: 0 });
        assert_eq!(s(&mut c, 20 * MS), IsoAction::Send { seq: 1 });
        assert_eq!(s(&mut c, 40 * MS), IsoAction::Send { seq: 2 });
        // seq 1 in time, then again: duplicate
        let r1 = reply(&c, 1, 20 * MS, 2 * MS, Duration::ZERO);
        assert!(
            matches!(c.on_reply(25 * MS, &r1), IsoVerdict::Accepted { rtt_ms } if close(rtt_ms, 5.0))
        );
        assert_eq!(c.on_reply(26 * MS, &r1), IsoVerdict::Duplicate);
        // a reply with a wrong A stamp: malformed, seq 2 stays pending
        let mut bad = reply(&c, 2, 40 * MS, MS, Duration::ZERO);
        bad.a_send_ns += 1;
        assert_eq!(c.on_reply(45 * MS, &bad), IsoVerdict::Malformed);
        c.on_malformed();
        // a seq never sent
        let r9 = reply(&c, 9, 180 * MS, MS, Duration::ZERO);
        assert_eq!(c.on_reply(50 * MS, &r9), IsoVerdict::Unmatched);
        // seq 0: censored exactly at its deadline (1 s) ...
        // (slots 3, 4, 5 missed; next event: seq 2's deadline)
        assert_eq!(
            c.poll(Duration::from_secs(1)),
            IsoAction::WaitUntil(1040 * MS)
        );
        assert_eq!(c.requests()[0].outcome, IsoOutcome::Timeout);
        // ... and its reply at 1.2 s is late: kept, never a success
        let r0 = reply(&c, 0, Duration::ZERO, 600 * MS, MS);
        assert!(
            matches!(c.on_reply(1200 * MS, &r0), IsoVerdict::Late { rtt_ms } if close(rtt_ms, 1200.0))
        );
        assert_eq!(c.on_reply(1201 * MS, &r0), IsoVerdict::Duplicate);
        let q0 = &c.requests()[0];
        assert_eq!(q0.outcome, IsoOutcome::Timeout);
        assert_eq!(q0.rtt_ms, None);
        assert!(close(q0.late_rtt_ms.unwrap(), 1200.0));
        assert!(close(q0.up_ms.unwrap(), 600.0));
        assert!(close(q0.turnaround_ms.unwrap(), 1.0));
        assert!(close(q0.down_ms.unwrap(), 599.0));
        // seq 2's reply arrives at exactly send + timeout, before any poll
        // expired it: late, not a success
        let r2 = reply(&c, 2, 40 * MS, MS, Duration::ZERO);
        assert!(matches!(
            c.on_reply(1040 * MS, &r2),
            IsoVerdict::Late { .. }
        ));
        assert_eq!(c.requests()[2].outcome, IsoOutcome::Timeout);
        assert_eq!(
            c.counters(),
            ReplyCounters {
                late: 2,
                duplicate: 2,
                malformed: 2,
                unmatched: 1
            }
        );
    }

    #[test]
    fn just_under_the_timeout_is_a_success() {
        let mut c = IsoClient::new(cfg(1), T0_NS).unwrap();
        assert_eq!(c.poll(Duration::ZERO), IsoAction::Send { seq: 0 });
        let r = reply(&c, 0, Duration::ZERO, MS, MS);
        let at = Duration::from_secs(1) - Duration::from_nanos(1);
        assert!(matches!(c.on_reply(at, &r), IsoVerdict::Accepted { .. }));
        assert_eq!(c.poll(at), IsoAction::Done);
    }

    #[test]
    fn one_way_delays_sum_to_rtt_minus_turnaround_and_are_absent_without_shared_clock() {
        let mut c = IsoClient::new(cfg(1), T0_NS).unwrap();
        c.poll(Duration::ZERO);
        let r = reply(&c, 0, Duration::ZERO, 40 * MS, 3 * MS);
        c.on_reply(45 * MS, &r);
        let q = &c.requests()[0];
        let (up, down, turn) = (
            q.up_ms.unwrap(),
            q.down_ms.unwrap(),
            q.turnaround_ms.unwrap(),
        );
        assert!(close(up, 40.0) && close(turn, 3.0) && close(down, 2.0));
        assert!(close(up + turn + down, q.rtt_ms.unwrap()));

        let mut c = IsoClient::new(
            IsoConfig {
                shared_clock: false,
                ..cfg(1)
            },
            T0_NS,
        )
        .unwrap();
        c.poll(Duration::ZERO);
        // B's clock is unrelated: its stamps are far from A's
        let r = Reply {
            seq: 0,
            a_send_ns: T0_NS,
            b_recv_ns: 5,
            b_send_ns: 3_000_005,
        };
        c.on_reply(45 * MS, &r);
        let q = &c.requests()[0];
        assert_eq!((q.up_ms, q.down_ms), (None, None));
        assert!(close(q.turnaround_ms.unwrap(), 3.0));
        assert!(close(q.rtt_ms.unwrap(), 45.0));
    }

    #[test]
    fn send_error_abandon_and_completion_order() {
        let mut c = IsoClient::new(cfg(100), T0_NS).unwrap();
        assert_eq!(c.poll(Duration::ZERO), IsoAction::Send { seq: 0 });
        c.on_send_error(0, "Network is unreachable".into());
        assert_eq!(c.poll(20 * MS), IsoAction::Send { seq: 1 });
        assert_eq!(c.poll(21 * MS), IsoAction::WaitUntil(40 * MS));
        c.abandon();
        assert_eq!(c.poll(40 * MS), IsoAction::Done);
        let done: Vec<u32> = std::iter::from_fn(|| c.poll_completed().map(|r| r.seq)).collect();
        assert_eq!(done, [0, 1]);
        let (reqs, _) = c.into_parts();
        assert_eq!(reqs.len(), 2);
        assert!(matches!(reqs[0].outcome, IsoOutcome::SendError { .. }));
        assert_eq!(reqs[1].outcome, IsoOutcome::Abandoned);
    }

    #[test]
    fn phase_by_due_time_and_serde_round_trip() {
        let c = simulate(
            IsoConfig::with_end(Duration::from_secs(8)),
            |_| Some((MS, MS)),
            |_| Duration::ZERO,
        );
        let count = |p| c.requests().iter().filter(|q| q.phase == p).count();
        assert_eq!(
            (
                count(Phase::Baseline),
                count(Phase::Warmup),
                count(Phase::Loaded)
            ),
            (150, 150, 51)
        );
        let json = serde_json::to_string(&c.requests()[0]).unwrap();
        assert!(
            !json.contains("late_rtt_ms"),
            "absent options are left out: {json}"
        );
        let back: IsoRequest = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, &c.requests()[0]);
        let cfg_json = serde_json::to_value(IsoConfig::default()).unwrap();
        assert_eq!(cfg_json["interval_s"], 0.02);
        assert_eq!(cfg_json["shared_clock"], true);
    }
}
