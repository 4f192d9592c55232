//! The small subcommands: standalone traffic roles, `guest` and `cleanup`.
//! Each validates its flags (exit 2 with a message naming the flag), then
//! calls one crate.

use std::io::Write;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use netlab_probe::{connect_socket, run_probe, ProbeConfig};
use netlab_tcpload::role::{json_line, run_load_role, LoadRole};
use netlab_tcpload::{delivered_series, goodput, GoodputWindow, SinkConfig, TcpLoadError};

use crate::cli::{CleanupArgs, GuestArgs, LoadArgs, ProbeArgs, SinkArgs};
use crate::config::UsageError;
use netlab_run::b_loop::{BLoop, BLoopConfig, BLoopError};

fn usage_exit(e: &UsageError) -> u8 {
    eprintln!("orchestrator: {e}");
    2
}

/// `orchestrator sink`.
pub fn sink(a: &SinkArgs) -> u8 {
    let role = match SinkRole::new(a.listen, Some(a.udp_echo), a.for_secs)
        .map_err(|e| UsageError(e.to_string()))
    {
        Ok(r) => r,
        Err(e) => return usage_exit(&e),
    };
    let mut out = std::io::stdout().lock();
    match run_sink_role(&role, &mut out) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("orchestrator sink: {e}");
            1
        }
    }
}

/// `sink --listen ADDR:PORT --udp-echo PORT --for SECS`: B's loop by hand
/// (also between two real hosts) in the current network namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SinkRole {
    /// TCP listen address.
    pub listen: SocketAddr,
    /// UDP echo port on the listen IP, if any.
    pub udp_echo_port: Option<u16>,
    /// Run time.
    pub duration: Duration,
}

impl SinkRole {
    /// Validates the values (usage errors name the flag).
    pub fn new(
        listen: SocketAddr,
        udp_echo_port: Option<u16>,
        duration: Duration,
    ) -> Result<Self, TcpLoadError> {
        if duration.is_zero() {
            return Err(TcpLoadError::Config("--for must be > 0".into()));
        }
        if udp_echo_port == Some(0) {
            return Err(TcpLoadError::Config("--udp-echo port must be > 0".into()));
        }
        Ok(Self {
            listen,
            udp_echo_port,
            duration,
        })
    }
}

/// Runs the sink role in the current namespace and prints JSON lines, each
/// with an `"event"` field: `sink_listening`, then `sink_done` (goodput over
/// the whole run, per-200 ms series, the full log).
pub fn run_sink_role(role: &SinkRole, out: &mut dyn Write) -> Result<(), BLoopError> {
    let echo = role
        .udp_echo_port
        .map(|p| SocketAddr::new(role.listen.ip(), p));
    let b = BLoop::bind(BLoopConfig {
        receiver: SinkConfig {
            duration: role.duration,
            ..SinkConfig::new(role.listen)
        },
        udp_echo: echo,
        iso_echo: None,
    })?;
    json_line(
        out,
        &serde_json::json!({
            "event": "sink_listening",
            "listen": b.local_addr()?,
            "udp_echo": b.echo_addr(),
            "for_s": role.duration.as_secs_f64(),
        }),
    )?;
    let log = b.run(None)?;
    let whole = GoodputWindow {
        start: Duration::ZERO,
        end: role.duration,
    };
    json_line(
        out,
        &serde_json::json!({
            "event": "sink_done",
            "goodput_whole_run": goodput(&log.recvs, whole),
            "delivered_200ms": delivered_series(&log.recvs, Duration::from_millis(200), role.duration),
            "log": log,
        }),
    )?;
    Ok(())
}

/// `orchestrator load`.
pub fn load(a: &LoadArgs) -> u8 {
    let role = match LoadRole::new(a.to, &a.cc, a.for_secs).map_err(|e| UsageError(e.to_string())) {
        Ok(r) => r,
        Err(e) => return usage_exit(&e),
    };
    let mut out = std::io::stdout().lock();
    match run_load_role(&role, &mut out) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("orchestrator load: {e}");
            1
        }
    }
}

/// `orchestrator probe`: one JSON line per completed request, then one line
/// with the whole log's statistics. Phases are not meaningful standalone: every
/// request counts as baseline (0 .. end).
pub fn probe(a: &ProbeArgs) -> u8 {
    let (to, end) = (a.to, a.end);
    let mut cfg = ProbeConfig::with_end(end);
    cfg.phases.baseline_end = end;
    cfg.phases.loaded_start = end;
    cfg.phases.loaded_end = end;
    if let Err(e) = cfg.validate() {
        return usage_exit(&UsageError(e.to_string()));
    }
    let sock = match connect_socket(None, to) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("orchestrator probe: {e}");
            return 1;
        }
    };
    let t0 = Instant::now();
    let stdout = std::io::stdout();
    let log = run_probe(&sock, t0, &cfg, None, |req| {
        let mut o = stdout.lock();
        let _ = serde_json::to_writer(&mut o, &serde_json::json!({ "request": req }));
        let _ = writeln!(o);
    });
    match log {
        Ok(log) => {
            let mut o = stdout.lock();
            let line = serde_json::json!({
                "summary": {
                    "stale_replies": log.stale_replies,
                    "malformed_replies": log.malformed_replies,
                    "recv_errors": log.recv_errors,
                    "phases": log.phase_stats(),
                }
            });
            let _ = serde_json::to_writer(&mut o, &line);
            let _ = writeln!(o);
            0
        }
        Err(e) => {
            eprintln!("orchestrator probe: {e}");
            1
        }
    }
}

/// `orchestrator guest [--module M]… [--mem 1G] [--deadline 60s] -- PROGRAM ARGS…`.
pub fn guest(a: &GuestArgs) -> u8 {
    let deadline = a.deadline;
    let Some((program, args)) = a.program.split_first() else {
        return usage_exit(&UsageError("a PROGRAM is required after --".into()));
    };
    let init = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("orchestrator guest: cannot find my own binary: {e}");
            return 1;
        }
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    let guest = netlab_guest::Guest::new(program)
        .args(args.iter().cloned())
        .modules(a.modules.iter().cloned())
        .mem(a.mem.clone())
        .deadline(deadline)
        .init(init, &["guest-init"])
        .inherit_all_env()
        .current_dir(cwd)
        .stream_output(true);
    match guest.run() {
        Ok(out) => {
            eprintln!(
                "orchestrator guest: kernel {} finished in {:.2}s: {:?}",
                out.release,
                out.elapsed.as_secs_f64(),
                out.status
            );
            match out.status {
                netlab_guest::GuestStatus::Exited(c) => c.clamp(0, 255) as u8,
                netlab_guest::GuestStatus::Signaled(s) => (128 + s).clamp(0, 255) as u8,
            }
        }
        Err(e) => {
            eprintln!("orchestrator guest: {e}");
            1
        }
    }
}

/// `orchestrator cleanup`.
pub fn cleanup(a: &CleanupArgs) -> u8 {
    crate::compare::cleanup_dead(&a.state_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sink_role_validation() {
        let a: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        assert!(SinkRole::new(a, Some(0), Duration::from_secs(1)).is_err());
        assert!(SinkRole::new(a, None, Duration::ZERO).is_err());
    }

    #[test]
    fn roles_talk_over_loopback_and_print_json_lines() {
        // Ephemeral loopback ports in the test's namespace.
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = probe.local_addr().unwrap().port();
        drop(probe);
        let listen: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let sink = SinkRole::new(listen, None, Duration::from_millis(1500)).unwrap();
        let h = std::thread::spawn(move || {
            let mut out = Vec::new();
            run_sink_role(&sink, &mut out).map(|_| out)
        });
        std::thread::sleep(Duration::from_millis(200));
        let load = LoadRole::new(listen, "reno", Duration::from_millis(800)).unwrap();
        let mut out = Vec::new();
        run_load_role(&load, &mut out).unwrap();
        let sink_out = h.join().unwrap().unwrap();
        let load_lines: Vec<serde_json::Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(load_lines[0]["event"], "load_connected");
        assert_eq!(load_lines[0]["cc_readback"], "reno");
        assert_eq!(load_lines.last().unwrap()["event"], "load_done");
        let samples = load_lines
            .iter()
            .filter(|l| l["event"] == "tcp_sample")
            .count();
        assert!(samples >= 3, "{samples} samples in 0.8 s");
        let sink_lines: Vec<serde_json::Value> = String::from_utf8(sink_out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(sink_lines[0]["event"], "sink_listening");
        assert_eq!(sink_lines[1]["event"], "sink_done");
        assert_eq!(sink_lines[1]["log"]["validation"]["failures"], 0);
        assert!(sink_lines[1]["log"]["bytes_total"].as_u64().unwrap() > 0);
    }
}
