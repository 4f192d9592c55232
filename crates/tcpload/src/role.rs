//! The standalone roles. The load role, for `orchestrator load …`: run A's
//! side by hand (also between two real hosts) in the current network
//! namespace and print JSON lines of what was measured. The sink role's
//! flags ([`SinkRole`]); B's side serves the probe's echo beside the
//! receiver, so it runs where both crates are wired:
//! `netlab_run::b_loop::run_sink_role`.
//!
//! Each line is one JSON object with an `"event"` field: `load_connected`,
//! one `tcp_sample` per sample (live, every 200 ms), then `load_done`.

use std::io::Write;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::sampler::{DiagSocket, SamplerConfig, TcpSample, TcpSampler};
use crate::sender::{new_sender_socket, Sender, SenderConfig};
use crate::TcpLoadError;

/// `load --to ADDR:PORT --cc NAME --for SECS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadRole {
    /// Receiver address.
    pub to: SocketAddr,
    /// Congestion control.
    pub cc: String,
    /// Sender lifetime.
    pub duration: Duration,
}

impl LoadRole {
    /// Validates the values (each refusal names the value).
    pub fn new(to: SocketAddr, cc: &str, duration: Duration) -> Result<Self, TcpLoadError> {
        if duration.is_zero() {
            return Err(TcpLoadError::Config("the lifetime must be > 0".into()));
        }
        if to.port() == 0 || to.ip().is_unspecified() {
            return Err(TcpLoadError::Config(format!(
                "receiver {to}: need a concrete address and port"
            )));
        }
        let cfg = SenderConfig {
            cc: cc.to_owned(),
            ..SenderConfig::new(to)
        };
        cfg.validate()?;
        Ok(Self {
            to,
            cc: cc.to_owned(),
            duration,
        })
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
    /// Validates the values (each refusal names the value).
    pub fn new(
        listen: SocketAddr,
        udp_echo_port: Option<u16>,
        duration: Duration,
    ) -> Result<Self, TcpLoadError> {
        if duration.is_zero() {
            return Err(TcpLoadError::Config("the lifetime must be > 0".into()));
        }
        if udp_echo_port == Some(0) {
            return Err(TcpLoadError::Config("the UDP echo port must be > 0".into()));
        }
        Ok(Self {
            listen,
            udp_echo_port,
            duration,
        })
    }
}

/// Writes `value` as one JSON line and flushes (the roles' output).
pub fn json_line(out: &mut dyn Write, value: &impl Serialize) -> Result<(), TcpLoadError> {
    serde_json::to_writer(&mut *out, value).map_err(|e| TcpLoadError::Output(e.to_string()))?;
    out.write_all(b"\n")
        .and_then(|_| out.flush())
        .map_err(|e| TcpLoadError::Output(e.to_string()))
}

/// Runs the load role in the current namespace (sender + sampler); prints
/// `load_connected`, the `tcp_sample`s and `load_done`. Connect failures and
/// a congestion-control mismatch are errors; a close by the peer is a
/// termination kind in `load_done`.
pub fn run_load_role(role: &LoadRole, out: &mut dyn Write) -> Result<(), TcpLoadError> {
    let t0 = Instant::now();
    let cfg = SenderConfig {
        cc: role.cc.clone(),
        lifetime: role.duration,
        ..SenderConfig::new(role.to)
    };
    let sock = new_sender_socket(&role.cc, role.to)?;
    let sampler_cfg = SamplerConfig {
        max_duration: role.duration + Duration::from_secs(2),
        ..SamplerConfig::default()
    };
    // Samples are printed live while the sender runs on its own thread.
    // The sampler and that thread start before the connect, and the thread
    // writes right after it: nothing (no socket, thread start or output)
    // sits between the connect and the first write (method §4.1).
    let (sample_tx, sample_rx) = std::sync::mpsc::channel::<TcpSample>();
    let (pending, sampler) =
        TcpSampler::spawn_before_connect(DiagSocket::open()?, t0, sampler_cfg, move |s| {
            let _ = sample_tx.send(s.clone());
        })?;
    let (connected_tx, connected_rx) = std::sync::mpsc::channel();
    let sending = std::thread::Builder::new()
        .name("tcp-sender".into())
        .spawn(move || {
            // The sampler learns the flow before the connect (the socket
            // is bound), so the connect is followed by the first write.
            pending.connected(sock.flow());
            let sender = Sender::connect(sock, cfg, t0)?;
            let _ = connected_tx.send((sender.flow(), sender.cc_readback().to_owned()));
            Ok::<_, TcpLoadError>(sender.run())
        })
        .map_err(|source| TcpLoadError::Io {
            what: "spawn sender thread",
            source,
        })?;
    let Ok((flow, cc_readback)) = connected_rx.recv() else {
        // The thread ended without connecting: its error says why.
        let _ = sampler.stop();
        return match sending.join() {
            Ok(Err(e)) => Err(e),
            _ => Err(TcpLoadError::Output(
                "sender thread ended before connecting".into(),
            )),
        };
    };
    json_line(
        out,
        &serde_json::json!({
            "event": "load_connected",
            "flow": flow,
            "cc_requested": role.cc,
            "cc_readback": cc_readback,
            "connect_s": t0.elapsed().as_secs_f64(),
        }),
    )?;
    // Bounded: the sender ends by its lifetime (+ one send timeout).
    while !sending.is_finished() {
        if let Ok(s) = sample_rx.recv_timeout(Duration::from_millis(100)) {
            json_line(
                out,
                &serde_json::json!({ "event": "tcp_sample", "sample": s }),
            )?;
        }
    }
    let sender_log = sending
        .join()
        .map_err(|_| TcpLoadError::Output("sender thread panicked".into()))??;
    let samples = sampler.stop()?;
    for s in sample_rx.try_iter() {
        json_line(
            out,
            &serde_json::json!({ "event": "tcp_sample", "sample": s }),
        )?;
    }
    json_line(
        out,
        &serde_json::json!({
            "event": "load_done",
            "sender": sender_log,
            "samples": samples.samples.len(),
            "sampler_not_found_s": samples.not_found_s,
            "sampler_errors": samples.errors,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sink_role_validation() {
        let a: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        assert!(SinkRole::new(a, Some(0), Duration::from_secs(1)).is_err());
        assert!(SinkRole::new(a, None, Duration::ZERO).is_err());
        assert_eq!(
            SinkRole::new(a, Some(7), Duration::from_secs(1))
                .unwrap()
                .udp_echo_port,
            Some(7)
        );
    }

    #[test]
    fn role_validation() {
        let a: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        assert!(
            LoadRole::new("0.0.0.0:1".parse().unwrap(), "reno", Duration::from_secs(1)).is_err()
        );
        assert!(LoadRole::new(a, "", Duration::from_secs(1)).is_err());
        assert!(LoadRole::new(a, "reno", Duration::from_secs(1)).is_ok());
    }

    #[test]
    fn load_role_against_the_receiver_prints_json_lines() {
        let cfg = crate::sink::SinkConfig {
            duration: Duration::from_millis(1500),
            ..crate::sink::SinkConfig::new("127.0.0.1:0".parse().unwrap())
        };
        let sink = crate::sink::Sink::bind(cfg).unwrap();
        let to = sink.local_addr().unwrap();
        let rx = std::thread::spawn(move || sink.run::<()>());
        let load = LoadRole::new(to, "reno", Duration::from_millis(800)).unwrap();
        let mut out = Vec::new();
        run_load_role(&load, &mut out).unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["event"], "load_connected");
        assert_eq!(lines[0]["cc_readback"], "reno");
        assert_eq!(lines.last().unwrap()["event"], "load_done");
        // The receiver got a valid prefix of what the sender handed over
        // (all of it unless its end came first).
        let log = rx.join().unwrap().unwrap();
        assert_eq!(log.validation.failures, 0);
        let accepted = lines.last().unwrap()["sender"]["bytes_accepted"]
            .as_u64()
            .unwrap();
        assert!(
            log.bytes_total > 0 && log.bytes_total <= accepted,
            "{accepted}"
        );
    }
}
