//! The cross-check's window watcher ([`Watcher`]): it learns when the
//! load connected, ends the scenario where the window from that connect
//! ends, takes the bracketed `tc`/`ss` readback check 2/3 into the window
//! ([`readback_check`]) and ends the ordinary receiver at the end.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use netlab_qdisc::QdiscSocket;
use netlab_qdisc_model::Psched;
use netlab_run::ScenarioEnd;
use netlab_tcpload::sampler::DiagSocket;
use netlab_tcpload::FlowId;
use netlab_topology::addresses::R_B_IF;

use crate::external::{parse_tc_json, SsLine};
use crate::record::{QueueSample, ReadbackCheck};
use crate::setup::Window;
use crate::setup::CONNECT_SLACK;
use crate::tools::{argv, run_in, ToolOutput, ToolProcess};
use crate::CrosscheckError;

/// Sleeps until `t` in steps of at most 20 ms; `false` if `stop` was set.
pub(crate) fn sleep_until(t: Instant, stop: &AtomicBool) -> bool {
    loop {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        let left = t.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(Duration::from_millis(20)));
    }
}

/// How the watcher learns the load's connect.
pub(crate) enum Connect {
    /// netlab's sender hands its flow over just before its connect, which
    /// takes well under a millisecond on this path (the sender's own
    /// connect time is in its report): the connect is taken as the moment
    /// the watcher is started, the last thing before the hook returns.
    Now,
    /// The instant [`Connect::Now`] became.
    At(Instant),
    /// An outside client: sock_diag in A is polled every 10 ms for the
    /// flow, up to `CONNECT_SLACK` after the load's start.
    Poll(DiagSocket),
}

/// What the watcher found.
#[derive(Default)]
pub(crate) struct Watched {
    pub(crate) connect: Option<Duration>,
    pub(crate) window: Option<Window>,
    pub(crate) readback: Option<ReadbackCheck>,
    pub(crate) ordinary_receiver: Option<Result<ToolOutput, CrosscheckError>>,
    pub(crate) error: Option<String>,
}

/// How long iperf3's client runs past the window's end, s.
pub(crate) const IPERF_PAST_WINDOW_S: f64 = 3.0;

/// The watcher's inputs.
pub(crate) struct Watcher {
    pub(crate) t0: Instant,
    pub(crate) tl: crate::CrosscheckTimeline,
    pub(crate) flow: FlowId,
    pub(crate) connect: Connect,
    pub(crate) end: ScenarioEnd,
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) check: Option<CheckTools>,
    pub(crate) ordinary_receiver: Option<ToolProcess>,
}

/// What the mid-window check reads with.
pub(crate) struct CheckTools {
    pub(crate) qsock: QdiscSocket,
    pub(crate) ifindex: u32,
    pub(crate) psched: Psched,
    pub(crate) r_ns: String,
    pub(crate) a_ns: String,
    pub(crate) diag_a: DiagSocket,
}

impl Watcher {
    /// Watches the scenario: the connect, the window's end, the check.
    pub(crate) fn run(mut self) -> Watched {
        let mut out = Watched::default();
        let at = |d: Duration| self.t0 + d;
        let connected = match &self.connect {
            Connect::At(t) => Some(*t),
            Connect::Now => Some(Instant::now()),
            Connect::Poll(diag) => wait_connected(
                diag,
                &self.flow,
                at(self.tl.load_start()) + CONNECT_SLACK,
                &self.stop,
            ),
        };
        let Some(connected) = connected else {
            // No load: the scenario ends now.
            self.end
                .set(Instant::now().saturating_duration_since(self.t0));
            if !self.stop.load(Ordering::SeqCst) {
                out.error = Some(
                    CrosscheckError::step(
                        "the load",
                        format!("no data connection within {CONNECT_SLACK:?} of its start"),
                    )
                    .to_string(),
                );
            }
            out.ordinary_receiver = self.ordinary_receiver.take().map(ToolProcess::stop);
            return out;
        };
        let c = connected.saturating_duration_since(self.t0);
        let win = Window::from_connect(&self.tl, c);
        out.connect = Some(c);
        out.window = Some(win);
        // Pairing 3: netlab vs tc and ss, bracketed, mid-window. The
        // scenario ends at the window's end, or once the check is done when
        // it ran past it: its two process spawns took over 1.2 s in a busy
        // guest once, and the receivers closing at the end under it reset
        // the flow it was reading ("flow not found").
        match &self.check {
            Some(tools) => {
                if sleep_until(at(win.readback), &self.stop) {
                    out.readback = Some(readback_check(tools, self.t0, self.flow, win.end));
                }
                let now = Instant::now().saturating_duration_since(self.t0);
                self.end.set(win.end.max(now));
            }
            None => self.end.set(win.end),
        }
        // The common end: the ordinary receiver closes by being ended
        // (SIGTERM), as netlab's receive loop closes at its stop.
        if self.ordinary_receiver.is_some() {
            sleep_until(at(win.end), &self.stop);
            out.ordinary_receiver = self.ordinary_receiver.take().map(ToolProcess::stop);
        }
        out
    }
}

/// Polls sock_diag (every 10 ms, until `until`) for `flow`; returns when
/// it was first seen established.
pub(crate) fn wait_connected(
    diag: &DiagSocket,
    flow: &FlowId,
    until: Instant,
    stop: &AtomicBool,
) -> Option<Instant> {
    while Instant::now() < until && !stop.load(Ordering::SeqCst) {
        if let Ok(Some(r)) = diag.query(flow) {
            // 1 = TCP_ESTABLISHED
            if r.state == 1 {
                return Some(Instant::now());
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// tcp_info, `ss -tinm`, tcp_info; netlab readback, `tc -s -d -j`, netlab
/// readback — as close together as two process spawns allow. The flow's
/// bracket comes first: the flow ends with its tool's duration while the
/// qdisc stays until the teardown, so a spawn slowed by a busy guest can
/// only make the qdisc's bracket late. A flow not found says when, against
/// the window's end (`window_end`, from t0), so a late check is told
/// apart from a flow that ended early.
pub(crate) fn readback_check(
    tools: &CheckTools,
    t0: Instant,
    flow: FlowId,
    window_end: Duration,
) -> ReadbackCheck {
    let now_s = || Instant::now().saturating_duration_since(t0).as_secs_f64();
    let mut chk = ReadbackCheck {
        t_s: now_s(),
        qdisc_before: None,
        tc: None,
        qdisc_after: None,
        tcp_before: None,
        ss: None,
        ss_text: String::new(),
        tcp_after: None,
        errors: Vec::new(),
    };
    let read = |errors: &mut Vec<String>| {
        let t = now_s();
        match tools.qsock.readback(tools.ifindex, Some(t), &tools.psched) {
            Ok(rb) => QueueSample::from_records(t, &rb.records),
            Err(e) => {
                errors.push(format!("qdisc readback: {e}"));
                None
            }
        }
    };
    let sample = |errors: &mut Vec<String>| {
        let start = now_s();
        match tools.diag_a.query(&flow) {
            Ok(Some(record)) => Some(netlab_tcpload::TcpSample {
                start_s: start,
                end_s: now_s(),
                record,
            }),
            Ok(None) => {
                errors.push(format!(
                    "tcp_info: flow not found at {start:.2} s (the window ends at {:.2} s)",
                    window_end.as_secs_f64()
                ));
                None
            }
            Err(e) => {
                errors.push(format!("tcp_info: {e}"));
                None
            }
        }
    };
    chk.tcp_before = sample(&mut chk.errors);
    let filter = format!(
        "( sport = :{} and dport = :{} )",
        flow.local.port(),
        flow.remote.port()
    );
    match run_in(
        "ss in A",
        &tools.a_ns,
        &argv(&["ss", "-tinmH", "state", "established", &filter]),
        Duration::from_secs(5),
    ) {
        Ok(text) => {
            chk.ss = Some(SsLine::parse(&text));
            chk.ss_text = text;
        }
        Err(e) => chk.errors.push(e.to_string()),
    }
    chk.tcp_after = sample(&mut chk.errors);
    chk.qdisc_before = read(&mut chk.errors);
    match run_in(
        "tc in R",
        &tools.r_ns,
        &argv(&["tc", "-s", "-d", "-j", "qdisc", "show", "dev", R_B_IF]),
        Duration::from_secs(5),
    )
    .and_then(|s| parse_tc_json(&s))
    {
        Ok(q) => chk.tc = q.into_iter().find(|q| q.handle == "10:"),
        Err(e) => chk.errors.push(e.to_string()),
    }
    chk.qdisc_after = read(&mut chk.errors);

    chk
}
