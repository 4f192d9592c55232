//! The standalone probe role, for `orchestrator probe --to ADDR:PORT --end
//! SECS`: the stop-and-wait probe by hand (also between two real hosts)
//! against an echo, printing one JSON line per completed request, then
//! one line with the whole log's statistics. Phases are not meaningful
//! standalone: every request counts as baseline (0 .. end).

use std::io::Write;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::{connect_socket, run_probe, ProbeConfig, ProbeError};

/// `probe --to ADDR:PORT --end SECS`, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeRole {
    /// The echo's address.
    pub to: SocketAddr,
    /// The probe's configuration: every request in the baseline phase.
    pub config: ProbeConfig,
}

impl ProbeRole {
    /// Validates the values (a usage error names the field).
    pub fn new(to: SocketAddr, end: Duration) -> Result<ProbeRole, ProbeError> {
        let mut config = ProbeConfig::with_end(end);
        config.phases.baseline_end = end;
        config.phases.loaded_start = end;
        config.phases.loaded_end = end;
        config.validate()?;
        Ok(ProbeRole { to, config })
    }
}

/// Runs the probe role in the current namespace: `{"request": …}` per
/// completed request, then `{"summary": …}` (stale, malformed and failed
/// receives; each phase's statistics). A line that cannot be written is
/// skipped; the socket's and the probe's errors end the role.
pub fn run_probe_role(role: &ProbeRole, out: &mut dyn Write) -> Result<(), ProbeError> {
    let sock = connect_socket(None, role.to)?;
    let t0 = Instant::now();
    let log = run_probe(&sock, t0, &role.config, None, |req| {
        let _ = serde_json::to_writer(&mut *out, &serde_json::json!({ "request": req }));
        let _ = writeln!(out);
    })?;
    let line = serde_json::json!({
        "summary": {
            "stale_replies": log.stale_replies,
            "malformed_replies": log.malformed_replies,
            "recv_errors": log.recv_errors,
            "phases": log.phase_stats(),
        }
    });
    let _ = serde_json::to_writer(&mut *out, &line);
    let _ = writeln!(out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_role_puts_every_request_in_the_baseline() {
        let to: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let role = ProbeRole::new(to, Duration::from_secs(2)).unwrap();
        let p = &role.config.phases;
        assert_eq!(
            (p.baseline_end, p.loaded_start, p.loaded_end),
            (
                Duration::from_secs(2),
                Duration::from_secs(2),
                Duration::from_secs(2)
            )
        );
        assert!(matches!(
            ProbeRole::new(to, Duration::ZERO),
            Err(ProbeError::Config(_))
        ));
    }

    #[test]
    fn the_role_prints_each_reply_and_a_summary() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let mut echo = crate::EchoResponder::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let to = echo.local_addr().unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let h = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                echo.drain().unwrap();
                std::thread::sleep(Duration::from_micros(200));
            }
        });
        // Requests every 200 ms, none in the last second.
        let role = ProbeRole::new(to, Duration::from_millis(2500)).unwrap();
        let mut out = Vec::new();
        run_probe_role(&role, &mut out).unwrap();
        stop.store(true, Ordering::Relaxed);
        h.join().unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let (summary, requests) = lines.split_last().unwrap();
        assert!(
            requests.len() >= 5,
            "{} requests in 1.5 s: {summary}",
            requests.len()
        );
        assert!(requests.iter().all(|l| l.get("request").is_some()));
        assert_eq!(summary["summary"]["malformed_replies"], 0);
    }
}
