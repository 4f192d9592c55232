//! The rate driver (docs/method.md §15.4): a bounded thread that changes
//! one TBF's rate at planned times from an origin (the scenario's t0),
//! over its own rtnetlink socket made in the namespace, and reads the
//! TBF's counters and its child's backlog after each change and every
//! `reading_every` between. It touches nothing but the TBF: the change
//! request carries a FIFO child's own limit (netlab-qdisc-model's
//! `tbf_change_request` says why).
//!
//! It sleeps to each planned time on [`StopFlag::sleep_until`] (a futex
//! wait with a timeout: no spinning, so the one-CPU guest keeps its CPU
//! for the traffic), sends, and waits for the ACK; lateness is the ACK's
//! time minus the plan. A late change is sent at once, never skipped.

use netlab_os::threads::{spawn_pooled, Pooled};
use std::time::{Duration, Instant};

use netlab_os::StopFlag;
use netlab_qdisc_model::{
    tbf_change_request, Handle, Psched, Rate, RateChange, RateLog, SampleFailure, Tbf, TbfReading,
};
use netlab_topology::netns::Netns;

use crate::socket::QdiscSocket;
use crate::QdiscError;

/// The TBF the driver changes, and its child.
#[derive(Debug, Clone, PartialEq)]
pub struct TbfTarget {
    /// R's interface (as `tc_argv` names it).
    pub dev: String,
    /// Its index in the namespace.
    pub ifindex: u32,
    /// TBF's handle (`1:`, or `2:` below netem).
    pub handle: Handle,
    /// TBF's parent (root, or netem's class `1:1`).
    pub parent: Handle,
    /// TBF as configured (its burst and limit are kept at every change).
    pub tbf: Tbf,
    /// The child's handle (the arm's `10:`), whose backlog is read.
    pub child: Handle,
    /// The FIFO child's limit as read back, carried by every change
    /// (`None`: the child is not a FIFO).
    pub fifo_limit: Option<u32>,
    /// Tick factors.
    pub psched: Psched,
}

/// One planned change: at `at` from the origin, the TBF's new rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedChange {
    /// When, from the origin.
    pub at: Duration,
    /// The rate the TBF is given.
    pub rate: Rate,
    /// The schedule asked for an outage (held at `rate`).
    pub outage: bool,
}

/// How the driver runs.
#[derive(Debug, Clone, Copy)]
pub struct RateDriverConfig {
    /// Times are measured from here (t0).
    pub origin: Instant,
    /// The driver ends by itself here.
    pub deadline: Instant,
    /// Time between counter readings when no change comes first.
    pub reading_every: Duration,
}

/// A running driver.
#[derive(Debug)]
pub struct RateDriver {
    stop: StopFlag,
    thread: Pooled<RateLog>,
}

impl RateDriver {
    /// Opens the socket in `ns` (so a failure is known before t0) and
    /// starts the thread; the changes must be in time order.
    pub fn start(
        ns: &Netns,
        target: TbfTarget,
        plan: Vec<PlannedChange>,
        config: RateDriverConfig,
    ) -> Result<RateDriver, QdiscError> {
        let sock = QdiscSocket::open_in(ns)?;
        let stop = StopFlag::new();
        let flag = stop.clone();
        let thread = spawn_pooled("rate-driver", None, move || {
            drive(&sock, &target, &plan, config, &flag)
        })
        .map_err(|e| QdiscError::io("spawning the rate driver thread", e))?;
        Ok(RateDriver { stop, thread })
    }

    /// Whether the thread has ended (its deadline passed).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Stops the thread and returns what it did.
    pub fn stop(self) -> Result<RateLog, QdiscError> {
        self.stop.stop();
        self.thread.join().map_err(|_| QdiscError::DriverPanicked)
    }
}

/// The driver's loop: each planned change at its time, a reading after
/// it, readings every `reading_every` between, until the deadline or the
/// stop flag. Public so a bench can run it on its own thread.
pub fn drive(
    sock: &QdiscSocket,
    target: &TbfTarget,
    plan: &[PlannedChange],
    config: RateDriverConfig,
    stop: &StopFlag,
) -> RateLog {
    let since = |i: Instant| i.saturating_duration_since(config.origin).as_secs_f64();
    let mut log = RateLog {
        reading_every_ms: config.reading_every.as_secs_f64() * 1e3,
        ..RateLog::default()
    };
    let every = config.reading_every.max(Duration::from_millis(1));
    let mut next_reading = config.origin;
    let mut pending = plan.iter().peekable();
    loop {
        let next_change = pending.peek().map(|c| config.origin + c.at);
        let due = next_change.map_or(next_reading, |c| c.min(next_reading));
        if due >= config.deadline {
            break;
        }
        if stop.sleep_until(due) {
            break;
        }
        if next_change.is_some_and(|c| c <= next_reading) {
            let c = pending.next().expect("peeked");
            log.changes.push(apply_one(sock, target, c, &since));
        } else {
            next_reading += every;
        }
        read_one(sock, target, &since, &mut log);
        // A reading that ran late skips the slots it missed.
        while next_reading <= Instant::now() {
            next_reading += every;
        }
    }
    // Changes the scenario ended before: recorded as never sent.
    for c in pending {
        log.changes.push(RateChange {
            planned_s: c.at.as_secs_f64(),
            sent_s: None,
            applied_s: None,
            rate: c.rate,
            outage: c.outage,
            error: Some("not sent: the scenario ended first".into()),
        });
    }
    log
}

fn apply_one(
    sock: &QdiscSocket,
    target: &TbfTarget,
    c: &PlannedChange,
    since: &dyn Fn(Instant) -> f64,
) -> RateChange {
    let tbf = Tbf {
        rate: c.rate,
        ..target.tbf
    };
    let mut change = RateChange {
        planned_s: c.at.as_secs_f64(),
        sent_s: None,
        applied_s: None,
        rate: c.rate,
        outage: c.outage,
        error: None,
    };
    let req = match tbf_change_request(
        &target.dev,
        target.ifindex,
        target.handle,
        target.parent,
        &tbf,
        target.fifo_limit,
        &target.psched,
        0,
    ) {
        Ok(r) => r,
        Err(e) => {
            change.error = Some(e.to_string());
            return change;
        }
    };
    change.sent_s = Some(since(Instant::now()));
    match sock.apply(&req) {
        Ok(()) => change.applied_s = Some(since(Instant::now())),
        Err(e) => change.error = Some(e.to_string()),
    }
    change
}

fn read_one(
    sock: &QdiscSocket,
    target: &TbfTarget,
    since: &dyn Fn(Instant) -> f64,
    log: &mut RateLog,
) {
    let attempted = since(Instant::now());
    let rb = match sock.readback(target.ifindex, None, &target.psched) {
        Ok(rb) => rb,
        Err(e) => {
            log.failures.push(SampleFailure {
                at_s: attempted,
                error: e.to_string(),
            });
            return;
        }
    };
    let at_s = since(Instant::now());
    let (Some(tbf), child) = (rb.stats_of(target.handle), rb.stats_of(target.child)) else {
        log.failures.push(SampleFailure {
            at_s,
            error: format!("no TBF at {} in the dump", target.handle),
        });
        return;
    };
    let child = child.unwrap_or_default();
    log.readings.push(TbfReading {
        at_s,
        bytes: tbf.bytes,
        packets: tbf.packets,
        drops: tbf.drops,
        overlimits: tbf.overlimits,
        arm_backlog_bytes: child.backlog_bytes,
        arm_qlen: child.qlen,
    });
}
