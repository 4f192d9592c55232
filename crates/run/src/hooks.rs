//! Hooks through which a caller adds its own workers to every scenario:
//! an independent tool's server and client beside netlab's
//! probe and load, a sampler of its own, anything that needs the
//! scenario's namespaces while the path stands.
//!
//! The runner calls them on its own thread, in this order, for each
//! scenario whose path was built:
//!
//! 1. [`ScenarioHooks::path_ready`]: A–R–B is built and read back, R's
//!    egresses carry their qdiscs (read back too), neighbours are resolved
//!    when netem is on the path; nothing of netlab's measurement runs yet
//!    and t0 is not set (B's first receiver binds after this hook). Start
//!    servers here.
//! 2. [`ScenarioHooks::started`]: B's first receiver has bound (t0 is
//!    set) and netlab's receivers, samplers and probes run; the baseline
//!    begins. Start a probe of your own here.
//! 3. [`ScenarioHooks::load_start`]: the baseline has ended (t0 +
//!    `timeline.load_start()`), before netlab starts any flow due at the
//!    same instant. Start clients here.
//! 4. [`ScenarioHooks::flow_bound`], once per netlab flow as it starts:
//!    its sender's socket is bound, so the flow's 4-tuple is known, and
//!    the connect follows at once on the sender's own thread.
//! 5. [`ScenarioHooks::finished`]: after the end, once netlab's workers
//!    are joined and the scenario's result is filled, before the
//!    namespaces are deleted; [`ScenarioView::measured`] holds what
//!    netlab's senders returned as they returned it. Called whenever
//!    `path_ready` was called, also after a failure or a signal, so what
//!    the hooks started can be stopped and joined. Join with a bound: the
//!    run's watchdog still runs.
//!
//! The scenario ends at its timeline's end, or earlier when a hook (or a
//! thread a hook started) asks for it through [`ScenarioView::end`]: a
//! caller whose load connects late takes its window from that connect and
//! ends the scenario at the window's end (netlab-crosscheck, method §13).
//! The runner sees the request within 100 ms and then waits for the exact
//! instant; at an early end the probes are stopped at once instead of
//! finishing their schedule. The scenario's result keeps the timeline's
//! phases (its goodput window, the probes' phase marks): a caller that
//! ends early takes its own window from the raw values, as
//! netlab-crosscheck does.
//!
//! A hook that fails fails its scenario: its message is the scenario's
//! error (recorded in results.json as every other error is) and netlab's
//! workers are stopped and collected as after any failure. What a hook
//! measures stays with the caller (in the hook object itself):
//! results.json's schema does not change.
//!
//! ```no_run
//! use netlab_run::{HookError, ScenarioHooks, ScenarioView, Session, SessionConfig};
//! use std::process::{Child, Command};
//!
//! /// An `iperf3` server in B for every scenario, stopped at its end.
//! #[derive(Default)]
//! struct Iperf3Beside {
//!     server: Option<Child>,
//!     finished: Vec<u32>,
//! }
//!
//! impl ScenarioHooks for Iperf3Beside {
//!     fn path_ready(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
//!         let b = view.b().name().to_string();
//!         let child = Command::new("ip")
//!             .args(["netns", "exec", &b, "iperf3", "-s", "-1", "-p", "5201"])
//!             .spawn()
//!             .map_err(|e| HookError::new(format!("iperf3 server in {b}: {e}")))?;
//!         self.server = Some(child);
//!         Ok(())
//!     }
//!
//!     fn finished(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
//!         if let Some(mut child) = self.server.take() {
//!             let _ = child.kill();
//!             let _ = child.wait();
//!         }
//!         self.finished.push(view.setup.index);
//!         Ok(())
//!     }
//! }
//!
//! let exp = netlab_experiment::load(std::path::Path::new("experiment.toml")).unwrap();
//! let mut hooks = Iperf3Beside::default();
//! let outcome = Session::new(SessionConfig::new(exp, "results/x".into()))
//!     .with_scenario_hooks(&mut hooks)
//!     .run();
//! println!("{outcome:?}: {} scenario(s) had the server", hooks.finished.len());
//! ```

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use netlab_experiment::Timeline;
use netlab_probe::EchoStats;
use netlab_results::{Interrupted, Results, ScenarioResult};
use netlab_tcpload::sink::ReceiverLog;
use netlab_tcpload::{FlowId, SamplerLog, SenderLog};
use netlab_topology::netns::Netns;
use netlab_topology::Topology;

use crate::setup::ScenarioSetup;

/// A request to end the scenario before its timeline's end, shared by the
/// runner and the caller's hooks (clone it into a hook's own thread).
#[derive(Debug, Clone, Default)]
pub struct ScenarioEnd(Arc<Mutex<Option<Duration>>>);

impl ScenarioEnd {
    /// No end requested.
    pub fn new() -> ScenarioEnd {
        ScenarioEnd::default()
    }

    /// Ends the scenario at `at` from t0 (the final readback is taken
    /// then, and every worker stopped). The earliest end asked for
    /// counts; one at or past the timeline's end changes nothing.
    pub fn set(&self, at: Duration) {
        let mut end = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *end = Some(end.map_or(at, |e| e.min(at)));
    }

    /// The end asked for, if any.
    pub fn get(&self) -> Option<Duration> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What the sender worker returns: its report and its tcp_info samples.
pub type SenderOutput = (SenderLog, Result<SamplerLog, String>);

/// What netlab's own workers returned, as they returned it, before the
/// scenario's result reduced it (results.json keeps the sender's summary,
/// the tcp_info samples without the socket's inode, and of B's first
/// receiver only its echoes).
#[derive(Debug, Default)]
pub struct WorkerLogs {
    /// Per flow, in flow order: the sender's log and its tcp_info
    /// sampler's log (`None`: the sender never started or failed).
    pub senders: Vec<Option<SenderOutput>>,
    /// B's first receiver (the one that set t0, its clock is t0's): its
    /// log, with whatever connection it took on its listen address
    /// (`ScenarioSetup::clock_sink`); `None` if it failed.
    pub clock_receiver: Option<ReceiverLog<EchoStats>>,
}

/// The scenario as a hook sees it.
#[derive(Clone, Copy)]
pub struct ScenarioView<'a> {
    /// The built path: its namespaces A, R and B (`topology.a`, …), the
    /// spec it was built from and the sysctls it set.
    pub topology: &'a Topology,
    /// The scenario's setup: index, round, arm, R's egresses, flows, probes.
    pub setup: &'a ScenarioSetup,
    /// The scenario's t0 (B's first receiver's bind); `None` in
    /// [`ScenarioHooks::path_ready`], and in [`ScenarioHooks::finished`]
    /// when the scenario failed before it.
    pub t0: Option<Instant>,
    /// The run's results folder.
    pub out: &'a Path,
    /// Ends the scenario early (see the [module](self)).
    pub end: &'a ScenarioEnd,
    /// What netlab's senders returned; set in
    /// [`ScenarioHooks::finished`] once they were joined.
    pub measured: Option<&'a WorkerLogs>,
}

impl ScenarioView<'_> {
    /// Namespace A (the upload's sender, the probe's client).
    pub fn a(&self) -> &Netns {
        &self.topology.a
    }

    /// Namespace R (the bottleneck's egresses).
    pub fn r(&self) -> &Netns {
        &self.topology.r
    }

    /// Namespace B (the upload's receiver, the probe's echo).
    pub fn b(&self) -> &Netns {
        &self.topology.b
    }

    /// The scenario's phases from t0.
    pub fn timeline(&self) -> Timeline {
        self.setup.timeline
    }
}

/// A hook's failure: it fails its scenario with this message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HookError(pub String);

impl HookError {
    /// A failure saying `message`.
    pub fn new(message: impl Into<String>) -> HookError {
        HookError(message.into())
    }
}

/// A caller's workers in each scenario (see the [module](self) for when
/// each method is called). Every method does nothing by default.
pub trait ScenarioHooks {
    /// The path is built and configured; t0 is not set yet.
    fn path_ready(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        let _ = view;
        Ok(())
    }

    /// t0 is set; netlab's receivers, samplers and probes run.
    fn started(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        let _ = view;
        Ok(())
    }

    /// The load phase begins (t0 is set).
    fn load_start(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        let _ = view;
        Ok(())
    }

    /// Flow `index` of the setup starts: its sender's socket is bound (in
    /// A for an upload, B for a download), `flow` is its 4-tuple as the
    /// sender sees it, and the connect follows as soon as this returns.
    fn flow_bound(
        &mut self,
        view: &ScenarioView<'_>,
        index: usize,
        flow: FlowId,
    ) -> Result<(), HookError> {
        let _ = (view, index, flow);
        Ok(())
    }

    /// The scenario is over and collected; its namespaces still exist.
    fn finished(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        let _ = view;
        Ok(())
    }
}

/// No hooks: the scenario as netlab runs it alone.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoHooks;

impl ScenarioHooks for NoHooks {}

/// The run's own hooks: what the caller keeps in results.json's header,
/// does between scenarios, and writes and prints once the run is over
/// (the orchestrator's summary.md, report and table: netlab-run computes
/// neither). Every method does nothing by default.
///
/// At the end of a run on this kernel the session tears down what it owns,
/// writes results.json a last time, then calls
/// [`scenario_read_back`](RunHooks::scenario_read_back) for each scenario
/// (read back from its file, in plan order), then
/// [`write`](RunHooks::write), removes the scenario files, then
/// [`print`](RunHooks::print).
pub trait RunHooks {
    /// The notes results.json's header carries (`Results::notes`) for a
    /// run of `exp`.
    fn notes(&self, exp: &netlab_experiment::Experiment) -> Vec<String> {
        let _ = exp;
        Vec::new()
    }

    /// A scenario was written to its file and results.json rewritten.
    fn scenario_written(&mut self) {}

    /// One finished scenario, read back after the run; `header`: the
    /// run's final results.json without its scenarios.
    fn scenario_read_back(&mut self, header: &Results, scenario: &ScenarioResult) {
        let _ = (header, scenario);
    }

    /// Every scenario was read back: write what the run ends with into
    /// `out` (its results.json is final). `failed_receipts`: steps of the
    /// run's final teardown that failed. `false`: something could not be
    /// written (the run then fails).
    fn write(&mut self, header: &Results, failed_receipts: usize, out: &Path) -> bool {
        let _ = (header, failed_receipts, out);
        true
    }

    /// The scenario files are removed: print what the run ends with.
    fn print(&mut self) {}

    /// The line said on stderr (after `netlab: `) when a signal stopped
    /// the run; `kept`: the plan indices of the scenarios the folder holds
    /// (the run's own share only, with those a resumed run took over).
    fn interrupted_banner(&self, interrupted: &Interrupted, kept: &[u32]) -> String {
        format!(
            "interrupted by {} ({}); {} scenario(s) kept",
            interrupted.signal,
            interrupted.phase,
            kept.len()
        )
    }

    /// A signal stopped a guest run before the guest started it: the
    /// session just wrote the results.json that says so (`header`, no
    /// scenario) into `out`.
    fn unstarted(&mut self, header: &Results, out: &Path) {
        let _ = (header, out);
    }
}

impl RunHooks for NoHooks {}
