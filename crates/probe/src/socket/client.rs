//! The probe client's I/O edge: a connected UDP socket driven by
//! [`ProbeClient`], with `ppoll` waits (ns resolution, unlike `SO_RCVTIMEO`
//! which is jiffy-granular) and non-blocking receives.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::os::fd::{AsFd, AsRawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub use crate::record::ProbeLog;
use crate::schedule::{ProbeAction, ProbeClient, ProbeConfig, ProbeRequest};
use crate::wire;
use crate::ProbeError;
use nix::errno::Errno;
use nix::poll::{ppoll, PollFd, PollFlags};
use nix::sys::socket::{recv, send, MsgFlags};
use nix::sys::time::TimeSpec;

/// Longest single wait, so a `stop` flag is noticed within this time.
pub const STOP_POLL_INTERVAL: Duration = Duration::from_millis(50);

/// Slack past the last possible completion after which the run gives up
/// regardless (a hard bound even if the clock or the socket misbehaves).
const HARD_END_SLACK: Duration = Duration::from_secs(1);

/// Creates the client socket: bound to `local` (or the unspecified address
/// of `remote`'s family, port 0) and connected to `remote`, so only datagrams
/// from `remote` are received. Create it inside A's namespace (`Netns::run`).
pub fn connect_socket(
    local: Option<SocketAddr>,
    remote: SocketAddr,
) -> Result<UdpSocket, ProbeError> {
    let local = local.unwrap_or(match remote {
        SocketAddr::V4(_) => SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
        SocketAddr::V6(_) => SocketAddr::from((Ipv6Addr::UNSPECIFIED, 0)),
    });
    let sock = UdpSocket::bind(local).map_err(|source| ProbeError::Bind {
        addr: local,
        source,
    })?;
    sock.connect(remote).map_err(|source| ProbeError::Connect {
        addr: remote,
        source,
    })?;
    Ok(sock)
}

fn since(t0: Instant) -> Duration {
    Instant::now().saturating_duration_since(t0)
}

/// Runs the probe on `sock` (a UDP socket connected to B's echo port, see
/// [`connect_socket`]) until the schedule of `cfg` is done, `stop` is set,
/// or a hard bound of `max(end, end - quiet + timeout) + 1 s` after `t0`.
///
/// Times are measured with `Instant` relative to `t0`, the scenario's common
/// origin: the send time right before `send`, the reply time right after the
/// `recv` that returned it. `on_complete` is called for every request when
/// it completes (reply, timeout, send error, abandoned), e.g. for a live
/// display of the last RTT.
///
/// The calling thread's timer slack is set to 1 ns for the duration of the
/// run (restored afterwards) so `ppoll` wakes on time. Sends and receives
/// use `MSG_DONTWAIT`, so a blocking socket works too and nothing blocks.
///
/// Errors: only an invalid `cfg` is an `Err`. A send failure is kept on its
/// request ([`crate::RequestOutcome::SendError`]); `ECONNREFUSED` on receive
/// is counted in `recv_errors`; any other socket error ends the run early
/// with [`ProbeLog::fatal_error`] set, keeping everything measured so far.
pub fn run_probe(
    sock: &UdpSocket,
    t0: Instant,
    cfg: &ProbeConfig,
    stop: Option<&AtomicBool>,
    mut on_complete: impl FnMut(&ProbeRequest),
) -> Result<ProbeLog, ProbeError> {
    let mut client = ProbeClient::new(cfg.clone())?;
    let _slack = TimerSlackGuard::tighten();
    let hard_end = cfg
        .end
        .max(cfg.end.saturating_sub(cfg.quiet_before_end) + cfg.timeout)
        + HARD_END_SLACK;
    let (mut malformed, mut recv_errors) = (0u64, 0u64);
    let (mut stopped_early, mut fatal_error) = (false, None);
    let mut pkt = vec![0u8; cfg.size];
    // One byte more than an echo holds, so a longer datagram shows as
    // longer instead of being cut to the expected size.
    let mut buf = vec![0u8; cfg.size + 1];
    loop {
        let now = since(t0);
        if fatal_error.is_some()
            || stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || now >= hard_end
        {
            client.abandon();
            stopped_early = true;
        }
        match client.poll(now) {
            ProbeAction::Done => {
                while let Some(r) = client.poll_completed() {
                    on_complete(r);
                }
                break;
            }
            ProbeAction::Send { seq } => {
                wire::write_plain(&mut pkt, seq);
                match send(sock.as_raw_fd(), &pkt, MsgFlags::MSG_DONTWAIT) {
                    Ok(n) if n == pkt.len() => {}
                    Ok(n) => {
                        client.on_send_error(seq, format!("short send: {n} of {} bytes", pkt.len()))
                    }
                    Err(e) => client.on_send_error(seq, std::io::Error::from(e).to_string()),
                }
            }
            ProbeAction::WaitUntil(t) => {
                let wait = t.saturating_sub(now).min(STOP_POLL_INTERVAL);
                match wait_readable(sock, wait) {
                    Ok(false) => {}
                    Ok(true) => loop {
                        match recv(sock.as_raw_fd(), &mut buf, MsgFlags::MSG_DONTWAIT) {
                            Ok(n) => {
                                let at = since(t0);
                                match wire::parse_plain(&buf[..n]).filter(|_| n == cfg.size) {
                                    Some(seq) => {
                                        client.on_reply(seq, at);
                                    }
                                    None => malformed += 1,
                                }
                            }
                            Err(Errno::EAGAIN) => break,
                            Err(Errno::EINTR) => continue,
                            Err(Errno::ECONNREFUSED) => recv_errors += 1,
                            Err(e) => {
                                fatal_error = Some(format!(
                                    "recv on probe socket: {}",
                                    std::io::Error::from(e)
                                ));
                                break;
                            }
                        }
                    },
                    Err(e) => fatal_error = Some(e.to_string()),
                }
            }
        }
        while let Some(r) = client.poll_completed() {
            on_complete(r);
        }
    }
    let (requests, stale_replies) = client.into_parts();
    Ok(ProbeLog {
        config: cfg.clone(),
        requests,
        stale_replies,
        malformed_replies: malformed,
        recv_errors,
        stopped_early,
        fatal_error,
    })
}

/// Sets this thread's timer slack to 1 ns for the run (the default 50 µs
/// would add up to 50 µs to every wake-up) and restores it on drop.
/// Best effort: if `prctl` fails the default slack stays.
pub(crate) struct TimerSlackGuard(Option<u64>);

impl TimerSlackGuard {
    pub(crate) fn tighten() -> Self {
        let old = nix::sys::prctl::get_timerslack()
            .ok()
            .and_then(|v| u64::try_from(v).ok());
        match old {
            Some(old) if nix::sys::prctl::set_timerslack(1).is_ok() => Self(Some(old)),
            _ => Self(None),
        }
    }
}

impl Drop for TimerSlackGuard {
    fn drop(&mut self) {
        if let Some(old) = self.0 {
            let _ = nix::sys::prctl::set_timerslack(old as _);
        }
    }
}

/// Waits up to `wait` for `sock` to be readable; true if it is.
pub(crate) fn wait_readable(sock: &UdpSocket, wait: Duration) -> Result<bool, ProbeError> {
    if wait.is_zero() {
        return Ok(false);
    }
    let mut fds = [PollFd::new(sock.as_fd(), PollFlags::POLLIN)];
    match ppoll(&mut fds, Some(TimeSpec::from_duration(wait)), None) {
        Ok(0) => Ok(false),
        Ok(_) => Ok(fds[0].revents().is_some_and(|r| !r.is_empty())),
        Err(Errno::EINTR) => Ok(false),
        Err(e) => Err(ProbeError::Socket {
            what: "ppoll on probe socket",
            source: std::io::Error::from(e),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EchoResponder;

    #[test]
    fn short_run_on_loopback_against_a_responder_thread() {
        let echo = EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = echo.local_addr().unwrap();
        let done = std::sync::Arc::new(AtomicBool::new(false));
        let th = crate::socket::serve_echo_until(echo, done.clone());
        let sock = connect_socket(None, addr).unwrap();
        // sends near 0, 0.2, …, 0.8 (each a little late, spacing counts from
        // the actual send); 0.8 + ε + 1 s quiet ≤ 1.9 s, the next is past it
        let cfg = ProbeConfig::with_end(Duration::from_millis(1900));
        let mut seen = Vec::new();
        let log = run_probe(&sock, Instant::now(), &cfg, None, |r| seen.push(r.seq)).unwrap();
        done.store(true, Ordering::Relaxed);
        let stats = th.join().unwrap().stats();
        assert_eq!(log.requests.len(), 5, "{log:?}");
        assert_eq!(seen, [0, 1, 2, 3, 4]);
        assert!(
            log.requests
                .iter()
                .all(|r| r.rtt_ms.is_some_and(|v| v < 50.0)),
            "{log:?}"
        );
        assert_eq!(stats.echoed, 5);
        assert!(!log.stopped_early);
        let ph = log.phase_stats();
        assert_eq!((ph[0].sent, ph[0].ok), (5, 5));
    }

    #[test]
    fn a_padded_probe_is_echoed_at_its_size() {
        let echo = EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = echo.local_addr().unwrap();
        let sock = connect_socket(None, addr).unwrap();
        let done = std::sync::Arc::new(AtomicBool::new(false));
        let th = crate::socket::serve_echo_until(echo, done.clone());
        let cfg = ProbeConfig {
            spacing: Duration::from_millis(50),
            size: 1000,
            ..ProbeConfig::with_end(Duration::from_millis(1300))
        };
        let log = run_probe(&sock, Instant::now(), &cfg, None, |_| {}).unwrap();
        done.store(true, Ordering::Relaxed);
        let echo = th.join().unwrap();
        let (stats, receipts) = (echo.stats(), echo.receipts().to_vec());
        let n = log.requests.len();
        assert!(n >= 3, "{log:?}");
        assert!(log.requests.iter().all(|r| r.rtt_ms.is_some()), "{log:?}");
        assert_eq!(log.malformed_replies, 0);
        assert_eq!(stats.echoed, n as u64);
        let seqs: Vec<u32> = receipts.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, (0..n as u32).collect::<Vec<_>>(), "B read every seq");
        assert_eq!(log.config.size, 1000);
        let bad = ProbeConfig { size: 3, ..cfg };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn no_responder_means_timeouts_or_refusals_never_successes() {
        // a bound but silent socket: nothing ever answers
        let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
        let sock = connect_socket(None, silent.local_addr().unwrap()).unwrap();
        let cfg = ProbeConfig {
            timeout: Duration::from_millis(100),
            ..ProbeConfig::with_end(Duration::from_millis(1400))
        };
        let log = run_probe(&sock, Instant::now(), &cfg, None, |_| {}).unwrap();
        // Requests are due every 200 ms until 1 s before the end (0.4 s):
        // at 0 and 0.2 s, and the bound socket answers neither, nor does
        // the kernel refuse them (the port is open).
        let due: Vec<f64> = log.requests.iter().map(|r| r.due_s).collect();
        assert_eq!(due.len(), 2, "{log:?}");
        assert_eq!(due[0], 0.0);
        assert!((due[1] - 0.2).abs() < 0.05, "{due:?}");
        for r in &log.requests {
            assert_eq!(r.outcome, crate::schedule::RequestOutcome::Timeout, "{r:?}");
            assert_eq!((r.rtt_ms, r.reply_s), (None, None), "{r:?}");
        }
    }

    #[test]
    fn late_duplicate_and_malformed_replies_are_discarded_on_a_real_socket() {
        // a hand-made responder: seq 1 answered after 1.1 s (after its
        // timeout), seq 0 answered twice, plus one 5-byte datagram
        let resp = UdpSocket::bind("127.0.0.1:0").unwrap();
        resp.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let addr = resp.local_addr().unwrap();
        let th = std::thread::spawn(move || {
            let t = Instant::now();
            let mut delayed: Option<(Instant, Vec<u8>, SocketAddr)> = None;
            let mut buf = [0u8; 16];
            while t.elapsed() < Duration::from_millis(2600) {
                if let Some((at, _, _)) = &delayed {
                    if Instant::now() >= *at {
                        let (_, d, from) = delayed.take().unwrap();
                        resp.send_to(&d, from).unwrap();
                    }
                }
                let Ok((n, from)) = resp.recv_from(&mut buf) else {
                    continue;
                };
                let seq = u32::from_be_bytes(buf[..4].try_into().unwrap());
                match seq {
                    0 => {
                        resp.send_to(&buf[..n], from).unwrap();
                        resp.send_to(&buf[..n], from).unwrap();
                        resp.send_to(&[1, 2, 3, 4, 5], from).unwrap();
                    }
                    1 => {
                        delayed = Some((
                            Instant::now() + Duration::from_millis(1100),
                            buf[..n].to_vec(),
                            from,
                        ))
                    }
                    _ => {
                        resp.send_to(&buf[..n], from).unwrap();
                    }
                }
            }
        });
        let sock = connect_socket(None, addr).unwrap();
        let cfg = ProbeConfig::with_end(Duration::from_millis(2700));
        let log = run_probe(&sock, Instant::now(), &cfg, None, |_| {}).unwrap();
        th.join().unwrap();
        use crate::RequestOutcome::*;
        let outcomes: Vec<_> = log.requests.iter().map(|r| r.outcome.clone()).collect();
        // 0 at ~0, 1 at ~0.2 (times out at ~1.2, its echo comes at ~1.3),
        // 2 at ~1.2, 3 at ~1.4, 4 at ~1.6 (1.6 + 1 s quiet <= 2.7; 1.8 is not)
        assert_eq!(outcomes, [Reply, Timeout, Reply, Reply, Reply], "{log:#?}");
        assert!((log.requests[2].send_s - 1.2).abs() < 0.15, "{log:#?}");
        assert_eq!(log.stale_replies, 2, "duplicate of 0 and late 1: {log:#?}");
        assert_eq!(log.malformed_replies, 1);
    }

    #[test]
    fn send_errors_are_kept_per_request_and_do_not_end_the_run() {
        // not connected: every send fails with EDESTADDRREQ
        let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
        let cfg = ProbeConfig::with_end(Duration::from_millis(1500));
        let log = run_probe(&sock, Instant::now(), &cfg, None, |_| {}).unwrap();
        assert_eq!(log.requests.len(), 3, "{log:?}"); // ~0, ~0.2, ~0.4
        for r in &log.requests {
            assert!(
                matches!(&r.outcome, crate::RequestOutcome::SendError { error } if error.contains("address required")),
                "{r:?}"
            );
        }
        assert_eq!(log.fatal_error, None);
        assert!(!log.stopped_early);
        let b = &log.phase_stats()[0];
        assert_eq!((b.sent, b.send_errors, b.p50_censored), (0, 3, None));
    }

    #[test]
    fn stop_flag_ends_the_run_and_keeps_the_outstanding_request() {
        let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
        let sock = connect_socket(None, silent.local_addr().unwrap()).unwrap();
        let stop = AtomicBool::new(true);
        let t = Instant::now();
        let log = run_probe(&sock, t, &ProbeConfig::default(), Some(&stop), |_| {}).unwrap();
        assert!(t.elapsed() < Duration::from_millis(500));
        assert!(log.stopped_early);
        assert!(log.requests.len() <= 1);
    }
}
