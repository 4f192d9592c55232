//! The cross-check's own parts of a scenario, as hooks on netlab-run's
//! runner ([`ScenarioHooks`]): the independent tools (iperf3's server and
//! client, irtt's server and client, the ordinary pair), the outside
//! client's tcp_info samplers in A and in B, B's sampler of netlab's own
//! flow, and the window's watcher: it finds the load's data connection,
//! ends the scenario where the window from that connect ends, takes the
//! bracketed `tc`/`ss` check 2/3 into the window and ends the ordinary
//! receiver at the end, as netlab's receivers are stopped then. netlab's
//! path, B's loop, probes, load and arm samples are the runner's.
//!
//! Every child is a [`ToolProcess`] (bounded waits, ended by its own pid) and
//! every thread is joined in [`ScenarioHooks::finished`], which the runner
//! calls whatever happened once the path stood.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use netlab_probe::EchoStats;
use netlab_qdisc::QdiscSocket;
use netlab_run::{HookError, ScenarioHooks, ScenarioView};
use netlab_tcpload::sampler::{DiagSocket, SamplerConfig, SamplerHandle};
use netlab_tcpload::sink::ReceiverLog;
use netlab_tcpload::{FlowId, SamplerLog, SenderLog, TcpSampler};
use netlab_topology::addresses::{A_ADDR, B_ADDR, R_B_IF};
use netlab_topology::netns::Netns;

use crate::config::{CrosscheckConfig, End, Load};
use crate::record::ReadbackCheck;
use crate::setup::Window;
use crate::setup::{CONNECT_SLACK, ORDINARY_PORT};
use crate::tools::{argv, wait_listening, ToolOutput, ToolProcess};
use crate::watch::{CheckTools, Connect, Watched, Watcher, IPERF_PAST_WINDOW_S};
use crate::CrosscheckError;
use netlab_path_settings::DEFAULT_TCP_PORT;

/// iperf3's port in B.
pub const IPERF_PORT: u16 = 5201;
/// iperf3 client's data-connection port in A (`--cport`), so its flow is
/// known before it connects.
pub const IPERF_CPORT: u16 = 5202;
/// irtt server port in B.
pub const IRTT_PORT: u16 = 2112;
/// The ordinary sender's port in A, so its flow is known before it connects.
pub const ORDINARY_CPORT: u16 = 5302;
/// The ordinary pair (`python3 -c` this, method §13).
const ORDINARY_PY: &str = include_str!("ordinary.py");

fn hook(e: CrosscheckError) -> HookError {
    HookError::new(e.to_string())
}

/// `python3 -c <ordinary.py> args…`.
fn ordinary_argv(args: &[&str]) -> Vec<String> {
    let mut v = argv(&["python3", "-c", ORDINARY_PY]);
    v.extend(argv(args));
    v
}

/// The first line of a tool's text.
pub fn first_line(s: &str) -> &str {
    s.trim().lines().next().unwrap_or("")
}

fn wall_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

fn diag_in(ns: &Netns, name: &str) -> Result<DiagSocket, HookError> {
    ns.run(DiagSocket::open)
        .map_err(|e| HookError::new(format!("entering {name}: {e}")))?
        .map_err(|e| HookError::new(format!("sock_diag in {name}: {e}")))
}

/// What the cross-check's parts measured in one scenario.
#[derive(Debug, Default)]
pub struct BesideOut {
    /// t0 as wall-clock time, ns since the epoch.
    pub t0_wall_ns: i64,
    /// The load's data connection, from t0.
    pub connect: Option<Duration>,
    /// The window from it.
    pub window: Option<Window>,
    /// Pairing 3, mid-window.
    pub readback: Option<ReadbackCheck>,
    /// tcp_info of an outside client's flow in A.
    pub tcp_a: Option<SamplerLog>,
    /// tcp_info of the load's flow in B.
    pub tcp_b: Option<SamplerLog>,
    /// netlab's sender's own log and its tcp_info in A (netlab's load).
    pub sender: Option<(SenderLog, Result<SamplerLog, String>)>,
    /// B's first receiver's log (the ordinary sender's netlab receiver).
    pub clock_receiver: Option<ReceiverLog<EchoStats>>,
    /// The outside load's client (iperf3's, or the ordinary sender).
    pub client: Option<ToolOutput>,
    /// The iperf3 server.
    pub iperf_server: Option<ToolOutput>,
    /// The ordinary receiver (ended at the end).
    pub ordinary_receiver: Option<ToolOutput>,
    /// irtt's client output and its JSON file's text.
    pub irtt: Option<(ToolOutput, Result<String, String>)>,
    /// What failed, in order.
    pub errors: Vec<String>,
}

/// The cross-check's parts of one scenario (see the [module](self)).
pub struct Beside<'c> {
    cfg: &'c CrosscheckConfig,
    load: Load,
    irtt_file: PathBuf,
    irtt_server: Option<ToolProcess>,
    /// The iperf3 server, or the ordinary receiver until the watcher
    /// takes it.
    load_server: Option<ToolProcess>,
    /// The ordinary sender and the port it connects to.
    ordinary_sender: Option<(u16, ToolProcess)>,
    irtt_client: Option<ToolProcess>,
    client: Option<ToolProcess>,
    sampler_a: Option<SamplerHandle>,
    sampler_b: Option<SamplerHandle>,
    watcher: Option<JoinHandle<Watched>>,
    watcher_stop: Arc<AtomicBool>,
    t0: Option<Instant>,
    /// What it measured.
    pub out: BesideOut,
}

impl<'c> Beside<'c> {
    /// The parts of a scenario of `load`; irtt writes its JSON to
    /// `irtt_file`.
    pub fn new(cfg: &'c CrosscheckConfig, load: Load, irtt_file: PathBuf) -> Beside<'c> {
        Beside {
            cfg,
            load,
            irtt_file,
            irtt_server: None,
            load_server: None,
            ordinary_sender: None,
            irtt_client: None,
            client: None,
            sampler_a: None,
            sampler_b: None,
            watcher: None,
            watcher_stop: Arc::new(AtomicBool::new(false)),
            t0: None,
            out: BesideOut::default(),
        }
    }

    fn sampler_config(&self) -> SamplerConfig {
        SamplerConfig {
            interval: Duration::from_millis(self.cfg.tcp_sample_ms),
            max_duration: self.cfg.timeline.end() + CONNECT_SLACK + Duration::from_secs(2),
        }
    }

    /// Starts the watcher of the load `flow`.
    fn watch(
        &mut self,
        view: &ScenarioView<'_>,
        flow: FlowId,
        connect: Connect,
    ) -> Result<(), HookError> {
        let t0 = view.t0.ok_or_else(|| HookError::new("t0 is not set"))?;
        let check = if self.cfg.readback_check {
            let qsock = QdiscSocket::open_in(view.r())
                .map_err(|e| HookError::new(format!("qdisc socket in R: {e}")))?;
            let ifindex = netlab_qdisc::ifindex_in(view.r(), R_B_IF)
                .map_err(|e| HookError::new(format!("{R_B_IF} in R: {e}")))?;
            Some(CheckTools {
                qsock,
                ifindex,
                psched: netlab_qdisc::read_psched(),
                r_ns: view.r().name().to_owned(),
                a_ns: view.a().name().to_owned(),
                diag_a: diag_in(view.a(), "A")?,
            })
        } else {
            None
        };
        let ordinary_receiver = match &self.load {
            Load::Ordinary(_) => self.load_server.take(),
            _ => None,
        };
        let connect = match connect {
            Connect::Now => Connect::At(Instant::now()),
            other => other,
        };
        let watcher = Watcher {
            t0,
            tl: self.cfg.timeline,
            flow,
            connect,
            end: view.end.clone(),
            stop: self.watcher_stop.clone(),
            check,
            ordinary_receiver,
        };
        self.watcher = Some(
            std::thread::Builder::new()
                .name("xc-window".into())
                .spawn(move || watcher.run())
                .map_err(|e| HookError::new(format!("starting the window's watcher: {e}")))?,
        );
        Ok(())
    }

    /// Samplers of an outside client's known flow, in A and in B.
    fn sample_both(&mut self, view: &ScenarioView<'_>, flow: FlowId) -> Result<(), HookError> {
        let t0 = view.t0.ok_or_else(|| HookError::new("t0 is not set"))?;
        let cfg = self.sampler_config();
        let a = TcpSampler::spawn(diag_in(view.a(), "A")?, flow, t0, cfg)
            .map_err(|e| HookError::new(format!("tcp_info sampler in A: {e}")))?;
        self.sampler_a = Some(a);
        self.sample_b(view, flow)
    }

    /// The load's flow seen from B.
    fn sample_b(&mut self, view: &ScenarioView<'_>, flow: FlowId) -> Result<(), HookError> {
        let t0 = view.t0.ok_or_else(|| HookError::new("t0 is not set"))?;
        let back = FlowId {
            local: flow.remote,
            remote: flow.local,
        };
        let b = TcpSampler::spawn(diag_in(view.b(), "B")?, back, t0, self.sampler_config())
            .map_err(|e| HookError::new(format!("tcp_info sampler in B: {e}")))?;
        self.sampler_b = Some(b);
        Ok(())
    }

    /// netlab's flow seen from B, told just before its connect: as netlab's
    /// own sampler in A, the first dump waits one interval, so no dump
    /// runs beside the connect and the first writes (method §13.5).
    fn sample_b_before_connect(
        &mut self,
        view: &ScenarioView<'_>,
        flow: FlowId,
    ) -> Result<(), HookError> {
        let t0 = view.t0.ok_or_else(|| HookError::new("t0 is not set"))?;
        let (pending, b) = TcpSampler::spawn_before_connect(
            diag_in(view.b(), "B")?,
            t0,
            self.sampler_config(),
            |_| {},
        )
        .map_err(|e| HookError::new(format!("tcp_info sampler in B: {e}")))?;
        pending.connected(FlowId {
            local: flow.remote,
            remote: flow.local,
        });
        self.sampler_b = Some(b);
        Ok(())
    }

    fn start_iperf3_client(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        let Load::Iperf3(i) = &self.load else {
            return Ok(());
        };
        let length = i.length;
        let flow = FlowId {
            local: SocketAddr::from((A_ADDR, IPERF_CPORT)),
            remote: SocketAddr::from((B_ADDR, IPERF_PORT)),
        };
        self.sample_both(view, flow)?;
        // Three seconds past the window, so the end is ours, not iperf3's,
        // and the mid-window check still finds the flow when a busy guest
        // made it late: in one CI run its `tc` spawn took about 3.5 s and
        // the flow had ended (1 s past the window then) before tcp_info
        // was read. The collection waits for the client's own end.
        let secs = self.cfg.timeline.load_s + IPERF_PAST_WINDOW_S;
        let mut args = argv(&[
            "iperf3",
            "-c",
            &B_ADDR.to_string(),
            "-p",
            &IPERF_PORT.to_string(),
            "--cport",
            &IPERF_CPORT.to_string(),
            "-C",
            &self.cfg.cc,
            "-J",
            "-i",
            "0.2",
            "-t",
            &format!("{secs}"),
        ]);
        if let Some(l) = length {
            args.extend(argv(&["-l", &l.to_string()]));
        }
        self.client =
            Some(ToolProcess::spawn("iperf3 client in A", view.a().name(), &args).map_err(hook)?);
        let diag = diag_in(view.a(), "A")?;
        self.watch(view, flow, Connect::Poll(diag))
    }

    fn start_ordinary_sender(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        let Some((to, mut client)) = self.ordinary_sender.take() else {
            return Ok(());
        };
        let flow = FlowId {
            local: SocketAddr::from((A_ADDR, ORDINARY_CPORT)),
            remote: SocketAddr::from((B_ADDR, to)),
        };
        self.sample_both(view, flow)?;
        let sent = client.send(b"g");
        self.client = Some(client);
        sent.map_err(hook)?;
        let diag = diag_in(view.a(), "A")?;
        self.watch(view, flow, Connect::Poll(diag))
    }

    /// Everything started, stopped and joined with its bound.
    fn collect(&mut self, view: &ScenarioView<'_>) {
        let out = &mut self.out;
        let load_started = self.client.is_some();
        // The window's end has come (the runner ended there), so the
        // watcher is done or about to be; after a failure it is told to
        // skip what is left (the ordinary receiver is still ended).
        self.watcher_stop.store(true, Ordering::SeqCst);
        if let Some(w) = self.watcher.take() {
            match w.join() {
                Ok(w) => {
                    out.connect = w.connect;
                    out.window = w.window;
                    out.readback = w.readback;
                    match w.ordinary_receiver {
                        Some(Ok(o)) => out.ordinary_receiver = Some(o),
                        Some(Err(e)) => out.errors.push(e.to_string()),
                        None => {}
                    }
                    out.errors.extend(w.error);
                }
                Err(_) => out.errors.push("the window's watcher panicked".into()),
            }
        }
        if matches!(self.load, Load::Ordinary(_)) {
            // Never handed to the watcher (the scenario failed before).
            if let Some(r) = self.load_server.take() {
                match r.stop() {
                    Ok(o) => out.ordinary_receiver = Some(o),
                    Err(e) => out.errors.push(e.to_string()),
                }
            }
        }
        if let Some(m) = view.measured {
            out.sender = m.senders.first().cloned().flatten();
            if matches!(&self.load, Load::Ordinary(o) if o.sender == End::Ordinary && o.receiver == End::Netlab)
            {
                out.clock_receiver = m.clock_receiver.clone();
            }
        }
        // The outside client ends by itself (its duration, or the
        // receiver's close); bounded.
        if let Some(client) = self.client.take() {
            match client.wait(Duration::from_secs_f64(IPERF_PAST_WINDOW_S + 5.0)) {
                Ok(o) => out.client = Some(o),
                Err(e) => out.errors.push(e.to_string()),
            }
        }
        // An ordinary sender that was never told to go.
        if let Some((_, s)) = self.ordinary_sender.take() {
            let _ = s.stop();
        }
        if let Some(a) = self.sampler_a.take() {
            match a.stop() {
                Ok(l) => out.tcp_a = Some(l),
                Err(e) => out.errors.push(format!("tcp_info sampler in A: {e}")),
            }
        }
        if let Some(b) = self.sampler_b.take() {
            match b.stop() {
                Ok(l) => out.tcp_b = Some(l),
                Err(e) => out.errors.push(format!("tcp_info sampler in B: {e}")),
            }
        }
        if let Some(server) = self.load_server.take() {
            // iperf3's server ends after its one client; without one, now.
            let bound = if load_started {
                Duration::from_secs(5)
            } else {
                Duration::ZERO
            };
            match server.wait(bound) {
                Ok(o) => out.iperf_server = Some(o),
                Err(e) => out.errors.push(e.to_string()),
            }
        }
        if let Some(client) = self.irtt_client.take() {
            // irtt sends until 1 s before t0 + end + slack, then waits
            // timeout + 0.5 s for late replies: give it that plus 10 s.
            let until = self.t0.map_or_else(Instant::now, |t0| {
                t0 + self.cfg.timeline.end()
                    + CONNECT_SLACK
                    + Duration::from_secs_f64(self.cfg.probe_timeout_s)
                    + Duration::from_secs(10)
            });
            match client.wait(until.saturating_duration_since(Instant::now())) {
                Ok(o) => {
                    let text = std::fs::read_to_string(&self.irtt_file)
                        .map_err(|e| format!("reading {}: {e}", self.irtt_file.display()));
                    let _ = std::fs::remove_file(&self.irtt_file);
                    out.irtt = Some((o, text));
                }
                Err(e) => out.errors.push(e.to_string()),
            }
        }
        if let Some(server) = self.irtt_server.take() {
            let _ = server.stop();
        }
    }
}

impl ScenarioHooks for Beside<'_> {
    /// Servers of the independent tools, up before t0; the ordinary
    /// sender started now and told to connect at the load's start (a byte
    /// on its stdin), so the interpreter's start-up (seconds in the guest)
    /// is not part of its flow's start, as netlab's sender is ready before
    /// it connects.
    fn path_ready(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        let (a_ns, b_ns) = (view.a().name().to_owned(), view.b().name().to_owned());
        let tl = self.cfg.timeline;
        if self.cfg.irtt {
            self.irtt_server = Some(
                ToolProcess::spawn(
                    "irtt server in B",
                    &b_ns,
                    &argv(&[
                        "irtt",
                        "server",
                        "-b",
                        &format!("{B_ADDR}:{IRTT_PORT}"),
                        "--timeout=2m",
                    ]),
                )
                .map_err(hook)?,
            );
        }
        self.load_server = match &self.load {
            Load::Iperf3(i) => {
                let mut args = argv(&[
                    "iperf3",
                    "-s",
                    "-1",
                    "-J",
                    "-i",
                    "0.2",
                    "-B",
                    &B_ADDR.to_string(),
                    "-p",
                    &IPERF_PORT.to_string(),
                ]);
                if let Some(l) = i.length {
                    args.extend(argv(&["-l", &l.to_string()]));
                }
                Some(ToolProcess::spawn("iperf3 server in B", &b_ns, &args).map_err(hook)?)
            }
            Load::Ordinary(o) if o.receiver == End::Ordinary => Some(
                ToolProcess::spawn(
                    "ordinary receiver in B",
                    &b_ns,
                    &ordinary_argv(&[
                        "recv",
                        &B_ADDR.to_string(),
                        &ORDINARY_PORT.to_string(),
                        &format!("{}", (tl.end() + CONNECT_SLACK).as_secs_f64() + 2.0),
                    ]),
                )
                .map_err(hook)?,
            ),
            Load::Netlab(_) | Load::Ordinary(_) => None,
        };
        if let Load::Ordinary(o) = &self.load {
            if o.sender == End::Ordinary {
                let to = match o.receiver {
                    End::Netlab => DEFAULT_TCP_PORT,
                    End::Ordinary => ORDINARY_PORT,
                };
                let secs = tl.end() - tl.load_start() + Duration::from_secs(2);
                let tool = ToolProcess::spawn_piped(
                    "ordinary sender in A",
                    &a_ns,
                    &ordinary_argv(&[
                        "send",
                        &B_ADDR.to_string(),
                        &to.to_string(),
                        &self.cfg.cc,
                        &format!("{}", secs.as_secs_f64()),
                        &ORDINARY_CPORT.to_string(),
                    ]),
                )
                .map_err(hook)?;
                self.ordinary_sender = Some((to, tool));
            }
        }
        if self.irtt_server.is_some() {
            // irtt's server listens within a second; the bound is for the
            // guest, where one `ss` asking took over 5 s beside the
            // ordinary pair's Python start-ups.
            wait_listening(&b_ns, true, IRTT_PORT, Duration::from_secs(30)).map_err(hook)?;
        }
        if self.load_server.is_some() {
            // Python's start-up takes seconds in the guest, and its first one
            // after the guest booted (an empty page cache, the interpreter and
            // its library read through hostfs) took over 30 s in one CI run on
            // a machine whose hypervisor stole the CPU: 90 s bounds it.
            let (port, bound) = match &self.load {
                Load::Ordinary(_) => (ORDINARY_PORT, Duration::from_secs(90)),
                _ => (IPERF_PORT, Duration::from_secs(30)),
            };
            wait_listening(&b_ns, false, port, bound).map_err(hook)?;
        }
        Ok(())
    }

    /// t0: its wall-clock time; irtt's client in A, same spacing, sending
    /// until 1 s before the latest end.
    fn started(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        let t0 = view.t0.ok_or_else(|| HookError::new("t0 is not set"))?;
        self.t0 = Some(t0);
        self.out.t0_wall_ns = wall_ns() - t0.elapsed().as_nanos() as i64;
        if !self.cfg.irtt {
            return Ok(());
        }
        let cfg = self.cfg;
        let d = (cfg.timeline.end() + CONNECT_SLACK).as_secs_f64() - 1.0;
        self.irtt_client = Some(
            ToolProcess::spawn(
                "irtt client in A",
                view.a().name(),
                &argv(&[
                    "irtt",
                    "client",
                    "-Q",
                    "-i",
                    &format!("{}ms", (cfg.probe_interval_s * 1e3).round() as u64),
                    "-d",
                    &format!("{}ms", (d * 1e3).round() as u64),
                    &format!(
                        "--wait={}ms",
                        (cfg.probe_timeout_s * 1e3 + 500.0).round() as u64
                    ),
                    "-o",
                    &self.irtt_file.display().to_string(),
                    &format!("{B_ADDR}:{IRTT_PORT}"),
                ]),
            )
            .map_err(hook)?,
        );
        Ok(())
    }

    /// The outside load starts: its samplers first, then its client.
    fn load_start(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        self.start_iperf3_client(view)?;
        self.start_ordinary_sender(view)
    }

    /// netlab's sender is about to connect: its flow seen from B, and the
    /// window from now.
    fn flow_bound(
        &mut self,
        view: &ScenarioView<'_>,
        index: usize,
        flow: FlowId,
    ) -> Result<(), HookError> {
        if index != 0 {
            return Ok(());
        }
        self.sample_b_before_connect(view, flow)?;
        self.watch(view, flow, Connect::Now)
    }

    fn finished(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        self.collect(view);
        Ok(())
    }
}
