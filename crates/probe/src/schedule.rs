//! The probe client as a pure state machine (quinn-style: time is passed in).
//!
//! All times are [`Duration`]s since the scenario's common origin `t0`
//! (set by B's receiver). The I/O edge ([`crate::run_probe`]) asks
//! [`ProbeClient::poll`] what to do at `now`, sends what it is told, and
//! feeds replies back with [`ProbeClient::on_reply`].
//!
//! Rules (method §5), exactly as implemented:
//! * One request outstanding at a time. Sequence numbers are 0, 1, 2, …
//!   (the request's index), carried as 4 bytes big-endian.
//! * A reply succeeds iff its seq is the outstanding one and it arrives
//!   strictly before `send + timeout` (RTT < 1 s). Anything else — a seq that
//!   is not outstanding, or the outstanding seq at or after its deadline — is
//!   stale: counted in [`ProbeClient::stale_replies`] and discarded. The
//!   first stale reply of a timed-out request keeps its real RTT in
//!   [`ProbeRequest::late_rtt_ms`] (the request stays a timeout).
//! * A request with no reply by `send + timeout` is a timeout; it completes
//!   at `send + timeout`.
//! * The next request is due at `max(previous send + spacing, completion of
//!   the previous request)`: a reply within the spacing keeps the 200 ms
//!   cadence; a long wait sends immediately after the reply/timeout. Spacing
//!   is anchored on the previous *actual* send, so a late send never causes
//!   a catch-up burst. Consequence: every wake-up's latency (≈0.1 ms on an
//!   idle host) accumulates, so over 17 s the schedule drifts by roughly
//!   5–20 ms and the request nominally due at exactly 17.0 s usually falls
//!   after `end - quiet_before_end` and is not sent (85 rather than 86
//!   requests in a default 18 s scenario). `due_s` is kept per request, so
//!   the lateness of each send is visible.
//! * A request may be sent at `now` only if `now + quiet_before_end <= end`
//!   (no new request in the last second). At most `max_requests` requests.
//! * Phase by send time: baseline `[0 s, 3 s)`, warmup `[3 s, 6 s)`, loaded
//!   `[6 s, 18 s)`, anything else "other" (half-open intervals: a send at
//!   exactly 3 s is warmup, at exactly 6 s loaded).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::ProbeError;

/// Phase of a request, by its send time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Probe only, before the TCP load starts (default `[0 s, 3 s)`).
    Baseline,
    /// Between baseline and loaded: the load's start-up (default `[3 s, 6 s)`).
    Warmup,
    /// The measured load window (default `[6 s, 18 s)`).
    Loaded,
    /// Before baseline or from the end of the loaded window on.
    Other,
}

impl Phase {
    /// All phases, in report order.
    pub const ALL: [Phase; 4] = [Phase::Baseline, Phase::Warmup, Phase::Loaded, Phase::Other];
}

/// Phase boundaries (half-open intervals of send time since t0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PhaseBounds {
    /// Baseline starts here (default 0 s).
    #[serde(with = "netlab_os::secs", rename = "baseline_start_s")]
    pub baseline_start: Duration,
    /// Baseline ends (exclusive) and warmup starts here (default 3 s).
    #[serde(with = "netlab_os::secs", rename = "baseline_end_s")]
    pub baseline_end: Duration,
    /// Warmup ends and the loaded window starts here (default 6 s).
    #[serde(with = "netlab_os::secs", rename = "loaded_start_s")]
    pub loaded_start: Duration,
    /// The loaded window ends here, exclusive (default 18 s).
    #[serde(with = "netlab_os::secs", rename = "loaded_end_s")]
    pub loaded_end: Duration,
}

impl Default for PhaseBounds {
    fn default() -> Self {
        Self {
            baseline_start: Duration::ZERO,
            baseline_end: Duration::from_secs(3),
            loaded_start: Duration::from_secs(6),
            loaded_end: Duration::from_secs(18),
        }
    }
}

impl PhaseBounds {
    /// The phase of a request sent at `send` (since t0).
    pub fn phase_of(&self, send: Duration) -> Phase {
        if send < self.baseline_start || send >= self.loaded_end {
            Phase::Other
        } else if send < self.baseline_end {
            Phase::Baseline
        } else if send < self.loaded_start {
            Phase::Warmup
        } else {
            Phase::Loaded
        }
    }
}

/// Probe client configuration; [`ProbeConfig::default`] is method §5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeConfig {
    /// No request before this time (default 0 s).
    #[serde(with = "netlab_os::secs", rename = "start_s")]
    pub start: Duration,
    /// Target spacing from the previous send (default 200 ms).
    #[serde(with = "netlab_os::secs", rename = "spacing_s")]
    pub spacing: Duration,
    /// Longest wait for a reply (default 1 s).
    #[serde(with = "netlab_os::secs", rename = "timeout_s")]
    pub timeout: Duration,
    /// At most this many requests (default 100).
    pub max_requests: u32,
    /// End of the scenario (default 18 s).
    #[serde(with = "netlab_os::secs", rename = "end_s")]
    pub end: Duration,
    /// No new request within this long before `end` (default 1 s).
    #[serde(with = "netlab_os::secs", rename = "quiet_before_end_s")]
    pub quiet_before_end: Duration,
    /// Phase boundaries by send time.
    pub phases: PhaseBounds,
    /// UDP payload of every request (and its echo), bytes: the 4-byte
    /// sequence number, zero-padded to this size (default 4, at most
    /// [`crate::wire::MAX_DATAGRAM_LEN`]). Absent in results written
    /// before probe sizes existed, which all sent 4 bytes.
    #[serde(default = "plain_len")]
    pub size: usize,
}

fn plain_len() -> usize {
    crate::wire::PLAIN_LEN
}

impl Default for ProbeConfig {
    fn default() -> Self {
        Self {
            start: Duration::ZERO,
            spacing: Duration::from_millis(200),
            timeout: Duration::from_secs(1),
            max_requests: 100,
            end: Duration::from_secs(18),
            quiet_before_end: Duration::from_secs(1),
            phases: PhaseBounds::default(),
            size: crate::wire::PLAIN_LEN,
        }
    }
}

impl ProbeConfig {
    /// method defaults with a different scenario end.
    pub fn with_end(end: Duration) -> Self {
        Self {
            end,
            ..Self::default()
        }
    }

    /// Checks that the values are usable; the error names the bad field.
    pub fn validate(&self) -> Result<(), ProbeError> {
        let bad = |m: &str| Err(ProbeError::Config(m.to_string()));
        if self.spacing.is_zero() {
            return bad("spacing must be > 0");
        }
        if self.timeout.is_zero() {
            return bad("timeout must be > 0");
        }
        if self.max_requests == 0 {
            return bad("max_requests must be >= 1");
        }
        if self.end.is_zero() {
            return bad("end must be > 0");
        }
        if !(crate::wire::PLAIN_LEN..=crate::wire::MAX_DATAGRAM_LEN).contains(&self.size) {
            return bad("size must be between 4 (the sequence number) and 65507 bytes");
        }
        let p = &self.phases;
        if !(p.baseline_start <= p.baseline_end
            && p.baseline_end <= p.loaded_start
            && p.loaded_start <= p.loaded_end)
        {
            return bad("phase bounds must satisfy baseline_start <= baseline_end <= loaded_start <= loaded_end");
        }
        Ok(())
    }
}

/// What became of a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RequestOutcome {
    /// Sent, waiting for its reply.
    Pending,
    /// Matching reply before the timeout.
    Reply,
    /// No matching reply within the timeout ("≥ timeout", loss or delay:
    /// a timeout cannot tell which).
    Timeout,
    /// The send syscall failed; the request never left.
    SendError {
        /// The OS error text.
        error: String,
    },
    /// The run was stopped while this request was outstanding.
    Abandoned,
}

/// One request, kept whatever happened to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeRequest {
    /// Sequence number carried in the datagram.
    pub seq: u32,
    /// When the schedule wanted it sent (s since t0).
    pub due_s: f64,
    /// When it was sent (s since t0).
    pub send_s: f64,
    /// When the matching reply arrived (s since t0), if it did in time.
    pub reply_s: Option<f64>,
    /// `reply - send` in ms, if a reply arrived in time.
    pub rtt_ms: Option<f64>,
    /// RTT in ms of the first reply that came at or after the timeout
    /// (the request stays a timeout; this is what its reply really took).
    /// Absent when no late reply came before A stopped listening, and in
    /// results written before B's receive log was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_rtt_ms: Option<f64>,
    /// Phase by send time.
    pub phase: Phase,
    /// What became of it.
    pub outcome: RequestOutcome,
}

/// What the I/O edge should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeAction {
    /// Send the request with this seq now (its send time is the `now` that
    /// was passed to [`ProbeClient::poll`]).
    Send {
        /// Sequence number to put in the datagram.
        seq: u32,
    },
    /// Nothing to send before this time; wait for replies until then and
    /// call `poll` again.
    WaitUntil(Duration),
    /// No more requests will be sent and none is outstanding.
    Done,
}

/// Result of feeding a reply to [`ProbeClient::on_reply`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ReplyVerdict {
    /// It matched the outstanding request in time; RTT in ms.
    Accepted {
        /// Round-trip time in ms.
        rtt_ms: f64,
    },
    /// Not the outstanding seq, or too late: counted and discarded.
    Stale,
}

#[derive(Debug, Clone, Copy)]
struct Outstanding {
    index: usize,
    sent: Duration,
}

/// The probe client's state machine (pure, no I/O, no clock).
#[derive(Debug, Clone)]
pub struct ProbeClient {
    cfg: ProbeConfig,
    requests: Vec<ProbeRequest>,
    outstanding: Option<Outstanding>,
    next_due: Duration,
    stale_replies: u64,
    completed: Vec<usize>,
    done: bool,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

impl ProbeClient {
    /// A client for `cfg` (validated).
    pub fn new(cfg: ProbeConfig) -> Result<Self, ProbeError> {
        cfg.validate()?;
        Ok(Self {
            next_due: cfg.start,
            requests: Vec::with_capacity(cfg.max_requests.min(10_000) as usize),
            cfg,
            outstanding: None,
            stale_replies: 0,
            completed: Vec::new(),
            done: false,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ProbeConfig {
        &self.cfg
    }

    /// Every request so far, in send order (index == seq).
    pub fn requests(&self) -> &[ProbeRequest] {
        &self.requests
    }

    /// Replies discarded as stale.
    pub fn stale_replies(&self) -> u64 {
        self.stale_replies
    }

    /// Whether the client has finished (no more sends, nothing outstanding).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Consumes the client, returning all requests and the stale count.
    pub fn into_parts(self) -> (Vec<ProbeRequest>, u64) {
        (self.requests, self.stale_replies)
    }

    /// Decides what to do at `now`: times out the outstanding request if its
    /// deadline has passed, then sends, waits, or reports done.
    pub fn poll(&mut self, now: Duration) -> ProbeAction {
        if self.done {
            return ProbeAction::Done;
        }
        if let Some(o) = self.outstanding {
            let deadline = o.sent + self.cfg.timeout;
            if now < deadline {
                return ProbeAction::WaitUntil(deadline);
            }
            self.complete(o, RequestOutcome::Timeout, deadline, None);
        }
        if self.requests.len() >= self.cfg.max_requests as usize {
            self.done = true;
            return ProbeAction::Done;
        }
        let earliest = now.max(self.next_due);
        if earliest + self.cfg.quiet_before_end > self.cfg.end {
            self.done = true;
            return ProbeAction::Done;
        }
        if now < self.next_due {
            return ProbeAction::WaitUntil(self.next_due);
        }
        let index = self.requests.len();
        let seq = index as u32;
        self.requests.push(ProbeRequest {
            seq,
            due_s: self.next_due.as_secs_f64(),
            send_s: now.as_secs_f64(),
            reply_s: None,
            rtt_ms: None,
            late_rtt_ms: None,
            phase: self.cfg.phases.phase_of(now),
            outcome: RequestOutcome::Pending,
        });
        self.outstanding = Some(Outstanding { index, sent: now });
        ProbeAction::Send { seq }
    }

    /// A datagram carrying `seq` arrived at `now`.
    pub fn on_reply(&mut self, seq: u32, now: Duration) -> ReplyVerdict {
        match self.outstanding {
            Some(o)
                if self.requests[o.index].seq == seq
                    && now >= o.sent
                    && now < o.sent + self.cfg.timeout =>
            {
                let rtt = now - o.sent;
                self.complete(o, RequestOutcome::Reply, now, Some(now));
                ReplyVerdict::Accepted { rtt_ms: ms(rtt) }
            }
            _ => {
                self.stale_replies += 1;
                self.note_late_reply(seq, now);
                ReplyVerdict::Stale
            }
        }
    }

    /// A stale reply of a timed-out request (or of the outstanding one past
    /// its deadline, which `poll` is about to time out): the first one keeps
    /// its real RTT in `late_rtt_ms` (seq is the request's index).
    fn note_late_reply(&mut self, seq: u32, now: Duration) {
        let Some(r) = self.requests.get_mut(seq as usize) else {
            return;
        };
        let sent = Duration::from_secs_f64(r.send_s);
        let timed_out = matches!(r.outcome, RequestOutcome::Timeout | RequestOutcome::Pending)
            && now >= sent + self.cfg.timeout;
        if r.seq == seq && timed_out && r.late_rtt_ms.is_none() {
            r.late_rtt_ms = Some(ms(now - sent));
        }
    }

    /// The send of `seq` failed: the request is kept with the error and the
    /// next one is due one spacing after this attempt.
    pub fn on_send_error(&mut self, seq: u32, error: String) {
        if let Some(o) = self.outstanding {
            if self.requests[o.index].seq == seq {
                self.complete(o, RequestOutcome::SendError { error }, o.sent, None);
            }
        }
    }

    /// Stop now: an outstanding request is kept as abandoned; `poll` returns
    /// `Done` from now on.
    pub fn abandon(&mut self) {
        if let Some(o) = self.outstanding.take() {
            self.requests[o.index].outcome = RequestOutcome::Abandoned;
            self.completed.push(o.index);
        }
        self.done = true;
    }

    /// Requests completed (reply, timeout, send error, abandoned) since the
    /// last call, oldest first — for a live display.
    pub fn poll_completed(&mut self) -> Option<&ProbeRequest> {
        if self.completed.is_empty() {
            return None;
        }
        let i = self.completed.remove(0);
        self.requests.get(i)
    }

    fn complete(
        &mut self,
        o: Outstanding,
        outcome: RequestOutcome,
        at: Duration,
        reply: Option<Duration>,
    ) {
        let r = &mut self.requests[o.index];
        r.outcome = outcome;
        if let Some(reply) = reply {
            r.reply_s = Some(reply.as_secs_f64());
            r.rtt_ms = Some(ms(reply - o.sent));
        }
        self.outstanding = None;
        self.next_due = (o.sent + self.cfg.spacing).max(at);
        self.completed.push(o.index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    /// Drives the client with a simulated clock: the edge wakes exactly when
    /// told (plus `lateness(seq_about_to_be_sent)`), the network returns the
    /// reply of `seq` after `rtt(seq)` (None = lost).
    fn simulate(
        cfg: ProbeConfig,
        rtt: impl Fn(u32) -> Option<Duration>,
        lateness: impl Fn(usize) -> Duration,
    ) -> ProbeClient {
        let mut c = ProbeClient::new(cfg).unwrap();
        let mut now = Duration::ZERO;
        let mut in_flight: Option<(u32, Duration)> = None;
        for _ in 0..10_000 {
            match c.poll(now) {
                ProbeAction::Send { seq } => {
                    in_flight = rtt(seq).map(|d| (seq, now + d));
                }
                ProbeAction::WaitUntil(t) => {
                    let t = t + lateness(c.requests().len());
                    match in_flight {
                        Some((seq, at)) if at <= t => {
                            now = at;
                            in_flight = None;
                            c.on_reply(seq, now);
                        }
                        _ => now = t,
                    }
                }
                ProbeAction::Done => return c,
            }
        }
        panic!("simulation did not finish");
    }

    fn sends(c: &ProbeClient) -> Vec<f64> {
        c.requests().iter().map(|r| r.send_s).collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn fast_replies_keep_200ms_spacing_and_stop_1s_before_end() {
        let c = simulate(ProbeConfig::default(), |_| Some(MS), |_| Duration::ZERO);
        let s = sends(&c);
        // 0.0, 0.2, …, 17.0: 17.0 + 1 s quiet == 18 s end is allowed, 17.2 is not.
        assert_eq!(s.len(), 86);
        for (i, t) in s.iter().enumerate() {
            assert!(close(*t, i as f64 * 0.2), "send {i} at {t}");
            assert!(close(c.requests()[i].due_s, *t));
        }
        assert!(close(*s.last().unwrap(), 17.0));
        assert!(c
            .requests()
            .iter()
            .all(|r| r.outcome == RequestOutcome::Reply));
        assert!(c.requests().iter().all(|r| close(r.rtt_ms.unwrap(), 1.0)));
        assert_eq!(c.stale_replies(), 0);
    }

    #[test]
    fn last_second_rule_boundary() {
        let cfg = ProbeConfig {
            end: secs(2.0),
            ..ProbeConfig::default()
        };
        let mut c = ProbeClient::new(cfg.clone()).unwrap();
        // at exactly end - 1 s a send is allowed
        let mut c2 = c.clone();
        assert_eq!(c2.poll(secs(1.0)), ProbeAction::Send { seq: 0 });
        // 1 ns later it is not, and the client is done
        assert_eq!(
            c.poll(secs(1.0) + Duration::from_nanos(1)),
            ProbeAction::Done
        );
        assert!(c.requests().is_empty());
        assert_eq!(c.poll(Duration::ZERO), ProbeAction::Done, "done is final");
        // and a next-due time past the limit ends it too, even if polled early
        let mut c3 = ProbeClient::new(cfg).unwrap();
        assert_eq!(c3.poll(secs(0.9)), ProbeAction::Send { seq: 0 });
        c3.on_reply(0, secs(0.901));
        assert_eq!(
            c3.poll(secs(0.95)),
            ProbeAction::Done,
            "next due 1.1 s > 1.0 s"
        );
    }

    #[test]
    fn at_most_max_requests() {
        let cfg = ProbeConfig::with_end(secs(60.0));
        let c = simulate(cfg, |_| Some(MS), |_| Duration::ZERO);
        assert_eq!(c.requests().len(), 100);
        assert!(close(c.requests()[99].send_s, 19.8));
        let cfg = ProbeConfig {
            max_requests: 3,
            ..ProbeConfig::default()
        };
        assert_eq!(
            simulate(cfg, |_| Some(MS), |_| Duration::ZERO)
                .requests()
                .len(),
            3
        );
    }

    #[test]
    fn long_wait_sends_right_after_reply_without_catch_up() {
        // seq 3 (sent 0.6) takes 500 ms: seq 4 at 1.1 (the reply), then
        // 1.3, 1.5, … — not 0.8, 1.0 bursts.
        let cfg = ProbeConfig::with_end(secs(3.0));
        let c = simulate(
            cfg,
            |s| Some(if s == 3 { 500 * MS } else { MS }),
            |_| Duration::ZERO,
        );
        let s = sends(&c);
        assert!(close(s[3], 0.6));
        assert!(close(s[4], 1.1));
        assert!(close(c.requests()[4].due_s, 1.1));
        assert!(close(s[5], 1.3));
        assert!(close(c.requests()[3].rtt_ms.unwrap(), 500.0));
    }

    #[test]
    fn timeout_completes_at_deadline_and_next_send_follows_it() {
        let cfg = ProbeConfig::with_end(secs(4.0));
        let c = simulate(
            cfg,
            |s| if s == 2 { None } else { Some(MS) },
            |_| Duration::ZERO,
        );
        let r = &c.requests()[2];
        assert_eq!(r.outcome, RequestOutcome::Timeout);
        assert_eq!((r.reply_s, r.rtt_ms), (None, None));
        assert!(close(r.send_s, 0.4));
        assert!(close(c.requests()[3].send_s, 1.4));
        assert!(close(c.requests()[4].send_s, 1.6));
    }

    #[test]
    fn reply_at_exactly_the_timeout_is_stale() {
        let mut c = ProbeClient::new(ProbeConfig::default()).unwrap();
        assert_eq!(c.poll(Duration::ZERO), ProbeAction::Send { seq: 0 });
        assert_eq!(c.on_reply(0, secs(1.0)), ReplyVerdict::Stale);
        assert_eq!(c.poll(secs(1.0)), ProbeAction::Send { seq: 1 });
        assert_eq!(c.requests()[0].outcome, RequestOutcome::Timeout);
        // just under the timeout is a success
        assert_eq!(
            c.on_reply(1, secs(2.0) - Duration::from_nanos(1)),
            ReplyVerdict::Accepted { rtt_ms: 999.999999 }
        );
    }

    #[test]
    fn late_edge_no_catch_up_burst() {
        // the edge wakes 500 ms late before request 3: it goes out at 1.1 and
        // request 4 is due at 1.3 (spacing from the actual send), not earlier.
        let cfg = ProbeConfig::with_end(secs(3.0));
        let c = simulate(
            cfg,
            |_| Some(MS),
            |n| if n == 3 { 500 * MS } else { Duration::ZERO },
        );
        let s = sends(&c);
        assert!(close(s[2], 0.4));
        // request 3 was due at 0.6 and sent at 1.1
        assert!(close(c.requests()[3].due_s, 0.6));
        assert!(close(s[3], 1.1));
        assert!(close(s[4], 1.3));
        for w in s.windows(2) {
            assert!(
                w[1] - w[0] >= 0.2 - 1e-9,
                "no two sends closer than spacing: {w:?}"
            );
        }
    }

    #[test]
    fn stale_replies_are_counted_and_discarded() {
        let mut c = ProbeClient::new(ProbeConfig::default()).unwrap();
        assert_eq!(
            c.on_reply(0, Duration::ZERO),
            ReplyVerdict::Stale,
            "nothing outstanding"
        );
        assert_eq!(c.poll(Duration::ZERO), ProbeAction::Send { seq: 0 });
        assert_eq!(c.on_reply(7, 10 * MS), ReplyVerdict::Stale, "wrong seq");
        assert_eq!(c.poll(20 * MS), ProbeAction::WaitUntil(secs(1.0)));
        assert_eq!(c.poll(secs(1.0)), ProbeAction::Send { seq: 1 });
        // the timed-out request's reply arrives late: stale, and seq 1 stays outstanding
        assert_eq!(c.on_reply(0, secs(1.05)), ReplyVerdict::Stale);
        assert_eq!(c.requests()[0].outcome, RequestOutcome::Timeout);
        assert_eq!(c.requests()[1].outcome, RequestOutcome::Pending);
        assert!(
            matches!(c.on_reply(1, secs(1.1)), ReplyVerdict::Accepted { rtt_ms } if close(rtt_ms, 100.0))
        );
        assert_eq!(c.on_reply(1, secs(1.12)), ReplyVerdict::Stale, "duplicate");
        // outstanding seq, but the edge only saw it after the deadline
        assert_eq!(c.poll(secs(1.2)), ProbeAction::Send { seq: 2 });
        assert_eq!(c.on_reply(2, secs(2.5)), ReplyVerdict::Stale);
        assert_eq!(c.poll(secs(2.5)), ProbeAction::Send { seq: 3 });
        assert_eq!(c.requests()[2].outcome, RequestOutcome::Timeout);
        assert_eq!(c.stale_replies(), 5);
        // the late replies keep their real RTT; the in-time one and the
        // duplicate do not touch it
        assert!(close(c.requests()[0].late_rtt_ms.unwrap(), 1050.0));
        assert!(close(c.requests()[2].late_rtt_ms.unwrap(), 1300.0));
        assert_eq!(c.requests()[1].late_rtt_ms, None);
        assert_eq!(c.on_reply(0, secs(3.0)), ReplyVerdict::Stale);
        assert!(
            close(c.requests()[0].late_rtt_ms.unwrap(), 1050.0),
            "the first late reply counts"
        );
    }

    #[test]
    fn phase_boundaries_are_half_open() {
        let p = PhaseBounds::default();
        let ns = Duration::from_nanos(1);
        assert_eq!(p.phase_of(Duration::ZERO), Phase::Baseline);
        assert_eq!(p.phase_of(secs(3.0) - ns), Phase::Baseline);
        assert_eq!(p.phase_of(secs(3.0)), Phase::Warmup);
        assert_eq!(p.phase_of(secs(6.0) - ns), Phase::Warmup);
        assert_eq!(p.phase_of(secs(6.0)), Phase::Loaded);
        assert_eq!(p.phase_of(secs(18.0) - ns), Phase::Loaded);
        assert_eq!(p.phase_of(secs(18.0)), Phase::Other);
        let shifted = PhaseBounds {
            baseline_start: secs(1.0),
            ..p
        };
        assert_eq!(shifted.phase_of(secs(0.5)), Phase::Other);
    }

    #[test]
    fn phases_of_a_full_scenario() {
        let c = simulate(ProbeConfig::default(), |_| Some(MS), |_| Duration::ZERO);
        let count = |ph| c.requests().iter().filter(|r| r.phase == ph).count();
        assert_eq!(count(Phase::Baseline), 15); // 0.0 … 2.8
        assert_eq!(count(Phase::Warmup), 15); // 3.0 … 5.8
        assert_eq!(count(Phase::Loaded), 56); // 6.0 … 17.0
        assert_eq!(count(Phase::Other), 0);
        assert_eq!(
            c.requests()[15].phase,
            Phase::Warmup,
            "sent at exactly 3.0 s"
        );
        assert_eq!(
            c.requests()[30].phase,
            Phase::Loaded,
            "sent at exactly 6.0 s"
        );
    }

    #[test]
    fn send_error_is_kept_and_next_is_one_spacing_later() {
        let mut c = ProbeClient::new(ProbeConfig::default()).unwrap();
        assert_eq!(c.poll(Duration::ZERO), ProbeAction::Send { seq: 0 });
        c.on_send_error(0, "Network is unreachable".into());
        assert_eq!(
            c.requests()[0].outcome,
            RequestOutcome::SendError {
                error: "Network is unreachable".into()
            }
        );
        assert_eq!(c.poll(MS), ProbeAction::WaitUntil(200 * MS));
        assert_eq!(c.poll_completed().map(|r| r.seq), Some(0));
        assert_eq!(c.poll_completed(), None);
    }

    #[test]
    fn abandon_keeps_the_outstanding_request() {
        let mut c = ProbeClient::new(ProbeConfig::default()).unwrap();
        c.poll(Duration::ZERO);
        c.on_reply(0, MS);
        c.poll(200 * MS);
        c.abandon();
        assert!(c.is_done());
        assert_eq!(c.poll(secs(0.3)), ProbeAction::Done);
        let (reqs, stale) = c.into_parts();
        assert_eq!(reqs.len(), 2);
        assert_eq!(reqs[1].outcome, RequestOutcome::Abandoned);
        assert_eq!(stale, 0);
    }

    #[test]
    fn start_delays_the_first_send() {
        let cfg = ProbeConfig {
            start: secs(0.5),
            ..ProbeConfig::with_end(secs(2.0))
        };
        let c = simulate(cfg, |_| Some(MS), |_| Duration::ZERO);
        assert_eq!(sends(&c).len(), 3); // 0.5, 0.7, 0.9
        assert!(close(sends(&c)[0], 0.5));
    }

    #[test]
    fn config_validation_names_the_field() {
        let e = |cfg: ProbeConfig| cfg.validate().unwrap_err().to_string();
        assert!(e(ProbeConfig {
            spacing: Duration::ZERO,
            ..Default::default()
        })
        .contains("spacing"));
        assert!(e(ProbeConfig {
            timeout: Duration::ZERO,
            ..Default::default()
        })
        .contains("timeout"));
        assert!(e(ProbeConfig {
            max_requests: 0,
            ..Default::default()
        })
        .contains("max_requests"));
        assert!(e(ProbeConfig::with_end(Duration::ZERO)).contains("end"));
        let p = PhaseBounds {
            loaded_start: secs(1.0),
            ..Default::default()
        };
        assert!(e(ProbeConfig {
            phases: p,
            ..Default::default()
        })
        .contains("phase bounds"));
        let json = serde_json::to_value(ProbeConfig::default()).unwrap();
        assert_eq!(json["spacing_s"], 0.2);
        assert_eq!(json["phases"]["loaded_start_s"], 6.0);
        let back: ProbeConfig = serde_json::from_value(json).unwrap();
        assert_eq!(back, ProbeConfig::default());
    }
}
