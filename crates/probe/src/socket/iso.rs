//! The isochronous probe's I/O edge: drives an [`IsoClient`] on a connected
//! UDP socket with stamped requests ([`crate::wire`]), CLOCK_MONOTONIC
//! timestamps, `ppoll` waits (ns resolution, 1 ns timer slack) and
//! non-blocking receives.

use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::socket::{recv, send, MsgFlags};

use crate::clock::{instant_as_monotonic_ns, monotonic_ns};
use crate::iso::{IsoAction, IsoClient, IsoConfig, IsoRequest};
pub use crate::record::{IsoLog, OneWayDelays, ONE_WAY_NOT_SHARED_NOTE, ONE_WAY_SHARED_NOTE};
use crate::socket::client::{wait_readable, TimerSlackGuard, STOP_POLL_INTERVAL};
use crate::wire;
use crate::ProbeError;

/// Longest busy-wait before a slot's due time (see [`spin_margin`]).
pub const MAX_SPIN_MARGIN: Duration = Duration::from_micros(150);

/// How long before a slot's due time the sender stops sleeping and spins:
/// `min(interval / 20, 150 µs)`, i.e. at most 5 % of one core (20 ms →
/// 150 µs, 0.75 %; 1 ms → 50 µs, 5 %).
pub fn spin_margin(interval: Duration) -> Duration {
    (interval / 20).min(MAX_SPIN_MARGIN)
}

/// The receiving side of one run: a buffer sized once for the probe's
/// replies, and the receive errors counted so far.
struct Inbox {
    /// One byte more than a reply holds, so a longer datagram shows as
    /// longer instead of being cut to the expected size.
    buf: Vec<u8>,
    /// ECONNREFUSED and the like.
    errors: u64,
}

impl Inbox {
    fn for_size(size: usize) -> Inbox {
        Inbox {
            buf: vec![0u8; size + 1],
            errors: 0,
        }
    }
}

/// Receives every pending datagram (non-blocking) into `client`.
fn receive_all(
    sock: &UdpSocket,
    client: &mut IsoClient,
    inbox: &mut Inbox,
    since: &impl Fn() -> Duration,
) -> Result<(), String> {
    let size = client.config().size;
    loop {
        match recv(sock.as_raw_fd(), &mut inbox.buf, MsgFlags::MSG_DONTWAIT) {
            Ok(n) => {
                let at = since();
                // A reply is as long as its request.
                match wire::parse_reply(&inbox.buf[..n]).filter(|_| n == size) {
                    Some(r) => {
                        client.on_reply(at, &r);
                    }
                    None => client.on_malformed(),
                }
            }
            Err(Errno::EAGAIN) => return Ok(()),
            Err(Errno::EINTR) => continue,
            Err(Errno::ECONNREFUSED) => inbox.errors += 1,
            Err(e) => {
                return Err(format!(
                    "recv on iso probe socket: {}",
                    std::io::Error::from(e)
                ))
            }
        }
    }
}

/// Busy-waits until `due` (at most [`MAX_SPIN_MARGIN`] plus one receive
/// pass), receiving replies meanwhile.
fn spin_until(
    sock: &UdpSocket,
    client: &mut IsoClient,
    inbox: &mut Inbox,
    since: &impl Fn() -> Duration,
    due: Duration,
) -> Result<(), String> {
    loop {
        receive_all(sock, client, inbox, since)?;
        if since() >= due {
            return Ok(());
        }
        std::hint::spin_loop();
    }
}

/// Slack past the last possible completion after which the run gives up.
const HARD_END_SLACK: Duration = Duration::from_secs(1);

/// Runs the isochronous probe on `sock` (connected to an echo that stamps,
/// i.e. [`crate::EchoResponder`]; see [`crate::connect_socket`]) until the
/// schedule of `cfg` is done (every slot due before `end − quiet`, every
/// request answered or censored), `stop` is set, or a hard bound of the
/// last deadline + 1 s after `t0`.
///
/// Every time is read from CLOCK_MONOTONIC: the send time right before
/// `send` (and written into the request), the receive time right after the
/// `recv` that returned the reply. `t0` (an `Instant`, the scenario's
/// origin) is mapped onto CLOCK_MONOTONIC once. `on_complete` is called for
/// every slot when it completes (reply, censored, missed, send error,
/// abandoned).
///
/// Errors: only an invalid `cfg` is an `Err`. Send failures are kept on
/// their slot, ECONNREFUSED on receive is counted, any other socket error
/// ends the run early with [`IsoLog::fatal_error`] set, keeping what was
/// measured.
pub fn run_iso_probe(
    sock: &UdpSocket,
    t0: Instant,
    cfg: &IsoConfig,
    stop: Option<&AtomicBool>,
    mut on_complete: impl FnMut(&IsoRequest),
) -> Result<IsoLog, ProbeError> {
    let t0_ns = instant_as_monotonic_ns(t0);
    let mut client = IsoClient::new(cfg.clone(), t0_ns)?;
    let _slack = TimerSlackGuard::tighten();
    let last_due = cfg.due(cfg.slots().saturating_sub(1));
    let hard_end = cfg.end.max(last_due + cfg.interval + cfg.timeout) + HARD_END_SLACK;
    let since = || Duration::from_nanos(monotonic_ns().saturating_sub(t0_ns));
    let mut inbox = Inbox::for_size(cfg.size);
    let (mut stopped_early, mut fatal_error) = (false, None);
    let mut pkt = vec![0u8; cfg.size];
    loop {
        let now = since();
        if fatal_error.is_some()
            || stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || now >= hard_end
        {
            client.abandon();
            stopped_early = true;
        }
        match client.poll(now) {
            IsoAction::Done => {
                while let Some(r) = client.poll_completed() {
                    on_complete(r);
                }
                break;
            }
            IsoAction::Send { seq } => {
                wire::write_request(&mut pkt, seq, client.a_stamp(now));
                match send(sock.as_raw_fd(), &pkt, MsgFlags::MSG_DONTWAIT) {
                    Ok(n) if n == pkt.len() => {}
                    Ok(n) => {
                        client.on_send_error(seq, format!("short send: {n} of {} bytes", pkt.len()))
                    }
                    Err(e) => client.on_send_error(seq, std::io::Error::from(e).to_string()),
                }
            }
            IsoAction::WaitUntil(t) => {
                // Sleep until `SPIN_MARGIN` before a slot's due time, then
                // spin (receiving) until it: the wake-up latency of a loaded
                // machine is absorbed by the margin instead of delaying the
                // send. Deadlines alone are never spun for.
                let margin = spin_margin(cfg.interval);
                let spin_to = client.next_due().filter(|&d| d == t);
                let sleep = match spin_to {
                    Some(d) => d.saturating_sub(now).saturating_sub(margin),
                    None => t.saturating_sub(now),
                };
                if sleep.is_zero() {
                    if let Some(d) = spin_to {
                        if let Err(e) = spin_until(sock, &mut client, &mut inbox, &since, d) {
                            fatal_error = Some(e);
                        }
                    }
                } else {
                    match wait_readable(sock, sleep.min(STOP_POLL_INTERVAL)) {
                        Ok(false) => {}
                        Ok(true) => {
                            if let Err(e) = receive_all(sock, &mut client, &mut inbox, &since) {
                                fatal_error = Some(e);
                            }
                        }
                        Err(e) => fatal_error = Some(e.to_string()),
                    }
                }
            }
        }
        while let Some(r) = client.poll_completed() {
            on_complete(r);
        }
    }
    let (requests, replies) = client.into_parts();
    let one_way = OneWayDelays::for_clock(cfg.shared_clock);
    Ok(IsoLog {
        config: cfg.clone(),
        one_way_delays: one_way,
        one_way_note: one_way.note().to_string(),
        t0_monotonic_ns: t0_ns,
        requests,
        replies,
        recv_errors: inbox.errors,
        stopped_early,
        fatal_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iso::IsoOutcome;
    use crate::{connect_socket, EchoResponder};
    use std::sync::Arc;

    fn spawn_echo(
        echo: EchoResponder,
        done: Arc<AtomicBool>,
    ) -> std::thread::JoinHandle<EchoResponder> {
        crate::socket::serve_echo_until(echo, done)
    }

    fn short_cfg() -> IsoConfig {
        IsoConfig {
            timeout: Duration::from_millis(200),
            quiet_before_end: Duration::from_millis(200),
            ..IsoConfig::with_interval(Duration::from_millis(5), Duration::from_millis(700))
        }
    }

    #[test]
    fn loopback_run_against_the_echo_all_successes_with_consistent_one_way_delays() {
        let echo = EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = echo.local_addr().unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let th = spawn_echo(echo, done.clone());
        let sock = connect_socket(None, addr).unwrap();
        let cfg = short_cfg();
        let mut seen = 0;
        let log = run_iso_probe(&sock, Instant::now(), &cfg, None, |_| seen += 1).unwrap();
        done.store(true, Ordering::Relaxed);
        let stats = th.join().unwrap().stats();
        // 0, 5, …, 500 ms
        assert_eq!(log.requests.len(), 101, "{:?}", log.replies);
        let late: Vec<f64> = log.send_lateness_us();
        println!("send lateness (us): {late:?}");
        assert_eq!(seen, 101);
        assert!(!log.stopped_early);
        let sent = log.requests.iter().filter(|r| r.send_s.is_some()).count() as u64;
        assert_eq!(stats.stamped, sent);
        assert_eq!(log.replies.malformed + log.replies.unmatched, 0);
        for r in log
            .requests
            .iter()
            .filter(|r| r.outcome == IsoOutcome::Reply)
        {
            let (up, down, turn) = (
                r.up_ms.unwrap(),
                r.down_ms.unwrap(),
                r.turnaround_ms.unwrap(),
            );
            assert!(up > 0.0 && down > 0.0 && turn >= 0.0, "{r:?}");
            // all four stamps come from one clock: exact to f64 rounding
            assert!((up + turn + down - r.rtt_ms.unwrap()).abs() < 1e-6, "{r:?}");
            // reply time - send time agree with the stamps
            let rtt_s = r.reply_s.unwrap() - r.send_s.unwrap();
            assert!((rtt_s * 1e3 - r.rtt_ms.unwrap()).abs() < 1e-3, "{r:?}");
        }
        // a busy 2-core machine (many test threads, other builds) can stall
        // the sender for several 5 ms slots; never for most of them
        let missed = log.requests.len() as u64 - sent;
        assert!(missed <= 30, "{missed} missed");
        let ph = &log.phase_stats()[0].stats;
        assert_eq!(ph.sent + ph.missed + ph.send_errors + ph.abandoned, 101);
        assert!(ph.ok + 5 >= ph.sent, "{ph:?}");
        let w = log.window_stats();
        assert_eq!(w.len(), 1);
        let json = serde_json::to_string(&log).unwrap();
        let back: IsoLog = serde_json::from_str(&json).unwrap();
        assert_eq!(back.config, log.config);
        assert_eq!(back.requests.len(), log.requests.len());
        assert_eq!(back.requests[0].outcome, log.requests[0].outcome);
        assert_eq!(log.one_way_delays, OneWayDelays::ExactSharedClock);
        assert!(log.one_way_note.contains("exact"));
        assert!(json.contains(r#""one_way_delays":"exact_shared_clock""#));
    }

    #[test]
    fn a_padded_probe_is_stamped_and_answered_at_its_size() {
        let echo = EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = echo.local_addr().unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let th = spawn_echo(echo, done.clone());
        let sock = connect_socket(None, addr).unwrap();
        let cfg = IsoConfig {
            size: 1200,
            ..short_cfg()
        };
        let log = run_iso_probe(&sock, Instant::now(), &cfg, None, |_| {}).unwrap();
        done.store(true, Ordering::Relaxed);
        let stats = th.join().unwrap().stats();
        let sent = log.requests.iter().filter(|r| r.send_s.is_some()).count() as u64;
        assert!(sent > 50, "{sent} sent");
        assert_eq!(stats.stamped, sent, "every padded request was stamped");
        assert_eq!(log.replies.malformed + log.replies.unmatched, 0);
        assert!(u64::from(log.phase_stats()[0].stats.ok) + 5 >= sent);
        assert_eq!(log.config.size, 1200, "the log records its size");
        let mut small = cfg.clone();
        small.size = 39;
        assert!(small.validate().is_err(), "shorter than the header");
    }

    #[test]
    fn an_old_byte_for_byte_echo_yields_malformed_replies_never_successes() {
        let plain = UdpSocket::bind("127.0.0.1:0").unwrap();
        plain
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        let addr = plain.local_addr().unwrap();
        let th = std::thread::spawn(move || {
            let t = Instant::now();
            let mut buf = [0u8; 128];
            while t.elapsed() < Duration::from_millis(1500) {
                if let Ok((n, from)) = plain.recv_from(&mut buf) {
                    plain.send_to(&buf[..n], from).unwrap();
                }
            }
        });
        let sock = connect_socket(None, addr).unwrap();
        let log = run_iso_probe(&sock, Instant::now(), &short_cfg(), None, |_| {}).unwrap();
        th.join().unwrap();
        assert!(log.replies.malformed > 50, "{:?}", log.replies);
        assert!(log.requests.iter().all(|r| r.rtt_ms.is_none()));
        let s = &log.phase_stats()[0].stats;
        assert_eq!(s.ok, 0);
        assert_eq!(s.sent, s.censored);
    }

    #[test]
    fn not_shared_clock_leaves_one_way_delays_out() {
        let echo = EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = echo.local_addr().unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let th = spawn_echo(echo, done.clone());
        let sock = connect_socket(None, addr).unwrap();
        let cfg = IsoConfig {
            shared_clock: false,
            ..short_cfg()
        };
        let log = run_iso_probe(&sock, Instant::now(), &cfg, None, |_| {}).unwrap();
        done.store(true, Ordering::Relaxed);
        th.join().unwrap();
        assert!(log.requests.iter().any(|r| r.rtt_ms.is_some()));
        assert!(log
            .requests
            .iter()
            .all(|r| r.up_ms.is_none() && r.down_ms.is_none()));
        let s = &log.phase_stats()[0].stats;
        assert_eq!((s.up, s.down), (None, None));
        assert!(s.turnaround.p50_ms.is_some());
        assert_eq!(log.one_way_delays, OneWayDelays::AbsentSeparateClocks);
        assert!(log.one_way_note.contains("absent"));
    }

    #[test]
    fn stop_flag_ends_the_run_and_abandons_pending_requests() {
        let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
        let sock = connect_socket(None, silent.local_addr().unwrap()).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let th = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            s2.store(true, Ordering::Relaxed);
        });
        let t = Instant::now();
        let log = run_iso_probe(&sock, t, &IsoConfig::default(), Some(&stop), |_| {}).unwrap();
        th.join().unwrap();
        assert!(t.elapsed() < Duration::from_millis(400));
        assert!(log.stopped_early);
        assert!(log
            .requests
            .iter()
            .any(|r| r.outcome == IsoOutcome::Abandoned));
        assert!(log
            .requests
            .iter()
            .all(|r| r.outcome != IsoOutcome::Pending));
    }
}
