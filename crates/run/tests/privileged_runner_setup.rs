//! The runner with a setup its caller changed, on the host kernel (needs
//! root: namespaces, qdiscs; skipped without unless
//! `NETLAB_REQUIRE_PRIVILEGED=1`): what netlab-crosscheck needs of it.
//! A hook learns each flow before its connect, ends the scenario early
//! through `ScenarioView::end`, and gets the senders' own logs in
//! `finished`; a setup without flows runs the path, B's loop (t0), the
//! probe and the qdisc sampler alone.

use std::time::{Duration, Instant};

use netlab_os::testing::{require_privileged, Scratch};
use netlab_receipts::Registry;
use netlab_results::ScenarioResult;
use netlab_run::progress::Progress;
use netlab_run::scenario::{run, RunContext};
use netlab_run::{HookError, ScenarioEnd, ScenarioHooks, ScenarioSetup, ScenarioView};
use netlab_tcpload::FlowId;
use netlab_topology::addresses::A_ADDR;
use netlab_topology::{netns, RunId};

/// Ends the scenario `after` past the moment it learns of (the first
/// flow's bind, or the load start when the setup has no flow), from a
/// thread of its own as a caller's connect detection would.
struct EndAfter {
    after: Duration,
    on_flow: bool,
    bound: Vec<(usize, FlowId)>,
    asked_end: Option<Duration>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// In `finished`: each sender's flow and its tcp_info sample count.
    senders: Vec<Option<(FlowId, usize)>>,
    /// In `finished`: the bytes B's first receiver took.
    clock_bytes: Option<u64>,
    /// `started` came with t0 set, before `load_start`.
    started: bool,
    finished: bool,
}

impl EndAfter {
    fn new(after: Duration, on_flow: bool) -> EndAfter {
        EndAfter {
            after,
            on_flow,
            bound: Vec::new(),
            asked_end: None,
            thread: None,
            senders: Vec::new(),
            clock_bytes: None,
            started: false,
            finished: false,
        }
    }

    fn end_from_now(&mut self, view: &ScenarioView<'_>) {
        let t0 = view.t0.expect("t0 is set once the load starts");
        let at = Instant::now().saturating_duration_since(t0) + self.after;
        self.asked_end = Some(at);
        let end: ScenarioEnd = view.end.clone();
        self.thread = Some(std::thread::spawn(move || end.set(at)));
    }
}

impl ScenarioHooks for EndAfter {
    fn started(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        let t0 = view.t0.expect("t0 is set when the scenario starts");
        self.started = t0.elapsed() < view.timeline().load_start();
        Ok(())
    }

    fn load_start(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        assert!(self.started, "started comes first");
        if !self.on_flow {
            self.end_from_now(view);
        }
        Ok(())
    }

    fn flow_bound(
        &mut self,
        view: &ScenarioView<'_>,
        index: usize,
        flow: FlowId,
    ) -> Result<(), HookError> {
        self.bound.push((index, flow));
        if self.on_flow && index == 0 {
            self.end_from_now(view);
        }
        Ok(())
    }

    fn finished(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        if let Some(t) = self.thread.take() {
            t.join()
                .map_err(|_| HookError::new("end thread panicked"))?;
        }
        let measured = view.measured.expect("finished sees the senders' logs");
        self.senders = measured
            .senders
            .iter()
            .map(|s| {
                s.as_ref()
                    .map(|(log, tcp)| (log.flow, tcp.as_ref().map_or(0, |l| l.samples.len())))
            })
            .collect();
        self.clock_bytes = measured.clock_receiver.as_ref().map(|l| l.bytes_total);
        self.finished = true;
        Ok(())
    }
}

fn setup_of(toml: &str, run_id: &RunId) -> ScenarioSetup {
    let exp = netlab_experiment::parse(toml).unwrap();
    ScenarioSetup::new(&exp.plan().scenarios[0], run_id).unwrap()
}

fn run_one(setup: &ScenarioSetup, hooks: &mut EndAfter, out: &std::path::Path) -> ScenarioResult {
    let registry = Registry::new(setup.topology.run_id.clone()).unwrap();
    let progress = Progress::new(true);
    let ctx = RunContext {
        registry: &registry,
        progress: &progress,
        total: 1,
        out,
    };
    let (res, stopped) = run(&ctx, setup, hooks);
    assert_eq!(stopped, None);
    assert!(
        res.namespaces.iter().all(|n| !netns::exists(n)),
        "{:?}",
        res.namespaces
    );
    res
}

/// The final readback's time (s from t0) of the one egress.
fn final_taken(res: &ScenarioResult) -> f64 {
    res.qdiscs[0].final_taken_s.expect("the final readback ran")
}

#[test]
fn privileged_a_hook_ends_the_scenario_early_and_gets_the_senders_logs() {
    if !require_privileged("privileged_a_hook_ends_the_scenario_early") {
        return;
    }
    let dir = Scratch::new("run-early-end");
    let run_id = RunId::random();
    // A 1 s baseline and a 10 s load: the hook ends it 2 s after the bind.
    let toml = "arms = [\"pfifo limit 256\"]\n\
                [timeline]\nbaseline = \"1s\"\nwarmup = \"1s\"\nmeasure = \"8s\"\n";
    let mut setup = setup_of(toml, &run_id);
    setup.capture_flow = None;
    setup.pcap = None;
    setup.flows[0].sender.block_size = 16_384;
    let mut hooks = EndAfter::new(Duration::from_secs(2), true);
    let started = Instant::now();
    let res = run_one(&setup, &mut hooks, &dir.0);
    assert_eq!(res.error, None, "{res:?}");
    assert!(hooks.finished);
    // The flow as the hook learnt it: A's address, the receiver's port.
    assert_eq!(hooks.bound.len(), 1);
    let (index, flow) = hooks.bound[0];
    assert_eq!(index, 0);
    assert_eq!(flow.local.ip(), std::net::IpAddr::V4(A_ADDR));
    assert_eq!(flow.remote, setup.flows[0].receiver.unwrap().listen);
    // The end it asked for (about 3 s) and not the timeline's (10 s).
    let asked = hooks.asked_end.unwrap().as_secs_f64();
    assert!((2.9..3.5).contains(&asked), "{asked}");
    let taken = final_taken(&res);
    assert!(
        taken >= asked && taken < asked + 0.15,
        "final readback at {taken} s, end asked for {asked} s"
    );
    // The probe was stopped at the early end, not let run to 10 s.
    let last_probe = res.probes[0]
        .requests
        .iter()
        .map(|r| r.send_s)
        .fold(0.0, f64::max);
    assert!(last_probe < asked + 0.3, "{last_probe}");
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );
    // The sender's own log, whole: the flow it carried and its samples
    // (results.json keeps them as well, reduced).
    assert_eq!(hooks.senders.len(), 1);
    let (sender_flow, samples) = hooks.senders[0].expect("the sender's log");
    assert_eq!(sender_flow, flow);
    assert!(samples > 0);
    assert_eq!(res.flows[0].tcp_info.len(), samples);
    assert!(res.flows[0].tcp.as_ref().unwrap().sender.accepted_bytes > 0);
}

#[test]
fn privileged_a_setup_without_flows_runs_the_path_the_probe_and_the_samplers() {
    if !require_privileged("privileged_a_setup_without_flows") {
        return;
    }
    let dir = Scratch::new("run-no-flows");
    let run_id = RunId::random();
    let toml = "arms = [\"pfifo limit 256\"]\n\
                [timeline]\nbaseline = \"1s\"\nwarmup = \"1s\"\nmeasure = \"6s\"\n";
    let mut setup = setup_of(toml, &run_id);
    // An outside load (iperf3 in netlab-crosscheck) carries the flow.
    setup.flows.clear();
    setup.capture_flow = None;
    setup.pcap = None;
    let mut hooks = EndAfter::new(Duration::from_millis(1500), false);
    let res = run_one(&setup, &mut hooks, &dir.0);
    assert_eq!(res.error, None, "{res:?}");
    assert!(res.flows.is_empty() && hooks.bound.is_empty());
    assert!(hooks.senders.is_empty());
    assert!(res.t0_utc.is_some());
    let probe = &res.probes[0];
    assert!(probe.requests.len() >= 5, "{}", probe.requests.len());
    assert!(probe.requests.iter().any(|r| r.rtt_ms.is_some()));
    let asked = hooks.asked_end.unwrap().as_secs_f64();
    let taken = final_taken(&res);
    assert!(taken >= asked && taken < asked + 0.15, "{taken} vs {asked}");
    assert!(!res.qdiscs[0].samples.is_empty());
}

#[test]
fn privileged_a_flow_without_netlab_s_receiver_goes_where_its_caller_says() {
    if !require_privileged("privileged_a_flow_without_netlab_s_receiver") {
        return;
    }
    let dir = Scratch::new("run-caller-receiver");
    let run_id = RunId::random();
    let toml = "arms = [\"pfifo limit 256\"]\n\
                [timeline]\nbaseline = \"1s\"\nwarmup = \"1s\"\nmeasure = \"6s\"\n";
    let mut setup = setup_of(toml, &run_id);
    setup.capture_flow = None;
    setup.pcap = None;
    // No receiver of the flow's own: its sender connects to B's first
    // receiver, which listens on a port the caller chose.
    let at = std::net::SocketAddr::from((netlab_topology::addresses::B_ADDR, 46030));
    setup.clock_sink.receiver.listen = at;
    setup.flows[0].receiver = None;
    setup.flows[0].sender.to = at;
    let mut hooks = EndAfter::new(Duration::from_secs(2), true);
    let res = run_one(&setup, &mut hooks, &dir.0);
    assert_eq!(res.error, None, "{res:?}");
    assert_eq!(hooks.bound[0].1.remote, at);
    let bytes = hooks.clock_bytes.expect("B's first receiver's log");
    assert!(bytes > 100_000, "{bytes}");
    // The flow keeps its sender's tcp_info; it has no receiver of its own.
    let flow = &res.flows[0];
    assert!(flow.tcp.is_none() && flow.error.is_none());
    assert!(!flow.tcp_info.is_empty());
    let (_, samples) = hooks.senders[0].expect("the sender's log");
    assert_eq!(flow.tcp_info.len(), samples);
}

/// A flow whose mark the scenario never reaches: its sender was made ready
/// before t0 (socket bound, thread waiting), is never released, and ends
/// with the scenario without connecting: the caller never learns it, no
/// log comes back, and the join does not wait for the sender's own bound.
#[test]
fn privileged_a_sender_never_released_ends_with_the_scenario_unconnected() {
    if !require_privileged("privileged_a_sender_never_released") {
        return;
    }
    let dir = Scratch::new("run-unreleased");
    let run_id = RunId::random();
    let toml = "arms = [\"pfifo limit 256\"]\n\
                [timeline]\nbaseline = \"1s\"\nwarmup = \"1s\"\nmeasure = \"8s\"\n\
                [[flows]]\n\
                [[flows]]\nstart = \"6s\"\n";
    let mut setup = setup_of(toml, &run_id);
    setup.capture_flow = None;
    setup.pcap = None;
    assert_eq!(setup.flows.len(), 2);
    let mut hooks = EndAfter::new(Duration::from_secs(1), true);
    let started = Instant::now();
    let res = run_one(&setup, &mut hooks, &dir.0);
    assert_eq!(res.error, None, "{res:?}");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        hooks.bound.iter().map(|b| b.0).collect::<Vec<_>>(),
        vec![0],
        "only the first flow reached its mark"
    );
    assert_eq!(hooks.senders.len(), 2);
    assert!(hooks.senders[0].is_some());
    assert!(hooks.senders[1].is_none(), "{:?}", hooks.senders[1]);
    assert!(res.flows[1].tcp.is_none(), "{:?}", res.flows[1]);
    // The first flow connected at its mark, the load's start.
    let tcp = res.flows[0].tcp.as_ref().unwrap();
    let lag = tcp.start_s - res.flows[0].start_s;
    assert!((0.0..0.5).contains(&lag), "started {lag} s after its mark");
}
