//! B's event loop as netlab wires it: tcpload's validating receiver with
//! the probe's echoes registered before it (the stop-and-wait probe's echo,
//! then the isochronous probe's on its own port), one `poll` loop
//! (`netlab_os::event_loop`). The scenario's first receiver in B and the
//! standalone `sink` role are this; the flows' receivers are tcpload's
//! receiver alone.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use netlab_os::event_loop::{Handler, Wake};
use netlab_probe::{EchoHandler, EchoOutcome, EchoResponder, EchoStats, ProbeError};
use netlab_results::fate::{EchoArrival, EchoArrivals};
use netlab_tcpload::role::{json_line, SinkRole};
use netlab_tcpload::sink::{ReceiverLog, Sink, SinkConfig};
use netlab_tcpload::{delivered_series, goodput, GoodputWindow, TcpLoadError};

/// What B's loop serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BLoopConfig {
    /// The TCP receiver (listen address, hard end, recv size).
    pub receiver: SinkConfig,
    /// The stop-and-wait probe's UDP echo address, if it is served.
    pub udp_echo: Option<SocketAddr>,
    /// The isochronous probe's echo address, if it is served.
    pub iso_echo: Option<SocketAddr>,
}

/// Binding or running B's loop failed: the receiver's side or an echo's.
#[derive(Debug, thiserror::Error)]
pub enum BLoopError {
    /// The TCP receiver (bind, poll, accept).
    #[error(transparent)]
    Load(#[from] TcpLoadError),
    /// An echo's socket.
    #[error(transparent)]
    Probe(#[from] ProbeError),
}

/// B's bound sockets and the common origin t0.
#[derive(Debug)]
pub struct BLoop {
    sink: Sink,
    echo: Option<EchoHandler>,
    iso_echo: Option<EchoHandler>,
}

impl BLoop {
    /// Binds the echoes, then the receiver, in the calling thread's
    /// namespace (call it inside B); t0 is set last, at the receiver's bind.
    pub fn bind(cfg: BLoopConfig) -> Result<BLoop, BLoopError> {
        let bind = |a: SocketAddr| EchoResponder::bind(a).map(EchoHandler::new);
        let echo = cfg.udp_echo.map(bind).transpose()?;
        let iso_echo = cfg.iso_echo.map(bind).transpose()?;
        let sink = Sink::bind(cfg.receiver)?;
        Ok(BLoop {
            sink,
            echo,
            iso_echo,
        })
    }

    /// The common clock origin.
    pub fn t0(&self) -> Instant {
        self.sink.t0()
    }

    /// The bound TCP address.
    pub fn local_addr(&self) -> Result<SocketAddr, TcpLoadError> {
        self.sink.local_addr()
    }

    /// The bound address of the stop-and-wait probe's echo, if served.
    pub fn echo_addr(&self) -> Option<SocketAddr> {
        self.echo.as_ref().and_then(EchoHandler::local_addr)
    }

    /// Serves everything until the receiver's hard end or `stop`; the log
    /// carries what each echo served.
    pub fn run(self, stop: Option<&AtomicBool>) -> Result<ReceiverLog<EchoStats>, TcpLoadError> {
        self.run_logged(stop, None).map(|out| out.receiver)
    }

    /// [`BLoop::run`], keeping each echo's receive log too (method §5.8):
    /// every probe request B received, with its receive time on the
    /// timeline of the probes' send times (s since t0). Call it only where
    /// A and B share one kernel's CLOCK_MONOTONIC (the scenario runner):
    /// the arrivals say `shared_clock: true`. `wake`, served after the
    /// echoes, ends a wait as soon as `stop` is set.
    pub fn run_logged(
        self,
        stop: Option<&AtomicBool>,
        wake: Option<&mut Wake>,
    ) -> Result<BLoopOutput, TcpLoadError> {
        let BLoop {
            sink,
            mut echo,
            mut iso_echo,
        } = self;
        let t0 = sink.t0();
        let mut first: Vec<&mut dyn Handler> = Vec::with_capacity(2);
        first.extend(echo.as_mut().map(|h| h as &mut dyn Handler));
        first.extend(iso_echo.as_mut().map(|h| h as &mut dyn Handler));
        first.extend(wake.map(|h| h as &mut dyn Handler));
        let mut log = sink.run_serving(&mut first, stop)?;
        drop(first);
        let t0_ns = netlab_probe::clock::instant_as_monotonic_ns(t0);
        let (mut echo_arrivals, mut iso_arrivals) = (None, None);
        if let Some(o) = echo.map(EchoHandler::finish) {
            echo_arrivals = Some(arrivals_since(&o, t0_ns, log.closed_s));
            log.set_echo(o.addr, o.stats, o.error);
        }
        if let Some(o) = iso_echo.map(EchoHandler::finish) {
            iso_arrivals = Some(arrivals_since(&o, t0_ns, log.closed_s));
            log.set_iso_echo(o.addr, o.stats, o.error);
        }
        Ok(BLoopOutput {
            receiver: log,
            echo_arrivals,
            iso_arrivals,
        })
    }
}

/// What [`BLoop::run_logged`] returns.
#[derive(Debug)]
pub struct BLoopOutput {
    /// The receiver's log with the echoes' counters.
    pub receiver: ReceiverLog<EchoStats>,
    /// The stop-and-wait probe's echo's receive log, if it was served.
    pub echo_arrivals: Option<EchoArrivals>,
    /// The isochronous probe's echo's receive log, if it was served.
    pub iso_arrivals: Option<EchoArrivals>,
}

/// An echo's receipts on the timeline since t0 (`t0_ns` on CLOCK_MONOTONIC),
/// the first receipt of each seq only; `closed_s`: when B's loop closed.
pub fn arrivals_since(o: &EchoOutcome, t0_ns: u64, closed_s: f64) -> EchoArrivals {
    let mut seen = std::collections::HashSet::with_capacity(o.receipts.len());
    EchoArrivals {
        shared_clock: true,
        arrivals: o
            .receipts
            .iter()
            .filter(|r| seen.insert(r.seq))
            .map(|r| EchoArrival {
                seq: r.seq,
                recv_s: (r.recv_ns as f64 - t0_ns as f64) / 1e9,
            })
            .collect(),
        not_logged: o.receipts_not_logged,
        closed_s: Some(closed_s),
    }
}

/// Runs the sink role (`orchestrator sink`) in the current namespace and
/// prints JSON lines, each with an `"event"` field: `sink_listening`, then
/// `sink_done` (goodput over the whole run, per-200 ms series, the full
/// log).
pub fn run_sink_role(role: &SinkRole, out: &mut dyn std::io::Write) -> Result<(), BLoopError> {
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
        start: std::time::Duration::ZERO,
        end: role.duration,
    };
    json_line(
        out,
        &serde_json::json!({
            "event": "sink_done",
            "goodput_whole_run": goodput(&log.recvs, whole),
            "delivered_200ms": delivered_series(&log.recvs, std::time::Duration::from_millis(200), role.duration),
            "log": log,
        }),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use netlab_tcpload::role::{run_load_role, LoadRole};

    use super::*;

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
