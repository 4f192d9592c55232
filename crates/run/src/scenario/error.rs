//! What can fail in a scenario. Each message names the step and, through
//! its source, the crate's own error (which names the syscall, attribute or
//! namespace).

use netlab_ecn::EcnError;
use netlab_probe::ProbeError;
use netlab_qdisc::QdiscError;
use netlab_receipts::ReceiptsError;
use netlab_tcpload::TcpLoadError;
use netlab_topology::TopologyError;

/// A scenario failure; recorded as text in `ScenarioResult::error`.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// A namespace could not be put in the run's registry before creation.
    #[error("registering namespace {name} for cleanup: {source}")]
    Register {
        /// The namespace.
        name: String,
        /// The registry's error.
        source: Box<ReceiptsError>,
    },
    /// Building A–R–B, or reading it back.
    #[error("{step}: {source}")]
    Topology {
        /// `building the topology`, `reading the topology back`.
        step: &'static str,
        /// The cause.
        source: Box<TopologyError>,
    },
    /// Entering a namespace to make a socket there.
    #[error("entering {netns} for {what}: {source}")]
    Enter {
        /// `A` or `B`.
        netns: &'static str,
        /// What the socket is for.
        what: &'static str,
        /// The cause.
        source: Box<TopologyError>,
    },
    /// Configuring the netem on R's egress toward a sender host (method
    /// §1.7).
    #[error(
        "configuring the netem on {dev}, R's egress toward a sender host, in {netns}: {source}"
    )]
    HostLink {
        /// R's interface toward the host (`r2`).
        dev: String,
        /// R's namespace.
        netns: String,
        /// The cause.
        source: Box<QdiscError>,
    },
    /// Configuring the bottleneck.
    #[error("configuring the bottleneck on {dev} in {netns}: {source}")]
    Configure {
        /// R's interface toward B.
        dev: &'static str,
        /// R's namespace.
        netns: String,
        /// The cause.
        source: Box<QdiscError>,
    },
    /// A qdisc readback step.
    #[error("{step}: {source}")]
    Qdisc {
        /// Which readback or sampler step.
        step: &'static str,
        /// The cause.
        source: Box<QdiscError>,
    },
    /// Opening the ECN capture.
    #[error("opening the capture on {dev}: {source}")]
    Capture {
        /// B's interface.
        dev: &'static str,
        /// The cause.
        source: Box<EcnError>,
    },
    /// A TCP load step (receiver bind, sender socket, sock_diag socket).
    #[error("{step}: {source}")]
    Load {
        /// Which step.
        step: &'static str,
        /// The cause.
        source: Box<TcpLoadError>,
    },
    /// A probe step (socket, configuration).
    #[error("{step}: {source}")]
    Probe {
        /// Which step.
        step: &'static str,
        /// The cause.
        source: Box<ProbeError>,
    },
    /// A worker thread could not be started.
    #[error("spawning the {worker} thread: {source}")]
    Spawn {
        /// Which worker.
        worker: &'static str,
        /// The cause.
        source: Box<TopologyError>,
    },
    /// A worker ended with an error.
    #[error("{worker}: {message}")]
    Worker {
        /// Which worker.
        worker: &'static str,
        /// Its error, as text.
        message: String,
    },
    /// A worker panicked.
    #[error("{worker}: thread panicked")]
    WorkerPanicked {
        /// Which worker.
        worker: &'static str,
    },
    /// One of several flows failed.
    #[error("flow {index}: {source}")]
    Flow {
        /// The flow's index.
        index: usize,
        /// What went wrong with it.
        source: Box<ScenarioError>,
    },
    /// The receiver saw bytes that do not match the pattern.
    #[error("receiver: {failures} bytes failed pattern validation (first bad offset {first_bad_offset:?})")]
    Validation {
        /// Bad bytes.
        failures: u64,
        /// The first bad stream offset.
        first_bad_offset: Option<u64>,
    },
    /// The tcp_info sampler failed.
    #[error("tcp_info sampler: {0}")]
    TcpInfoSampler(String),
    /// Some periodic qdisc readbacks failed.
    #[error("qdisc sampler: {0} failed readbacks")]
    QdiscSamples(usize),
    /// One of the caller's [`ScenarioHooks`](crate::ScenarioHooks) failed.
    #[error("{stage} hook: {message}")]
    Hook {
        /// `path ready`, `load start` or `finished`.
        stage: &'static str,
        /// The hook's own message.
        message: String,
    },
    /// SIGINT/SIGTERM stopped the scenario (its samples so far are kept).
    #[error("interrupted by {signal} during the {phase} phase, {at_s:.1} s after t0")]
    Interrupted {
        /// `SIGINT` or `SIGTERM`.
        signal: &'static str,
        /// The timeline phase it was in.
        phase: &'static str,
        /// Seconds after t0.
        at_s: f64,
    },
    /// Several failures at the end of one scenario, in the order found.
    #[error("{}", join(.0))]
    Several(Vec<ScenarioError>),
}

fn join(errors: &[ScenarioError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl ScenarioError {
    /// One error out of the failures collected while joining (`None` if there were none).
    pub fn from_all(mut errors: Vec<ScenarioError>) -> Option<ScenarioError> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(ScenarioError::Several(errors)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_step() {
        let e = ScenarioError::Validation {
            failures: 3,
            first_bad_offset: Some(7),
        };
        assert_eq!(
            e.to_string(),
            "receiver: 3 bytes failed pattern validation (first bad offset Some(7))"
        );
        let all = ScenarioError::from_all(vec![
            ScenarioError::Flow {
                index: 2,
                source: Box::new(ScenarioError::TcpInfoSampler("gone".into())),
            },
            ScenarioError::WorkerPanicked { worker: "probe" },
        ])
        .unwrap();
        assert_eq!(
            all.to_string(),
            "flow 2: tcp_info sampler: gone; probe: thread panicked"
        );
        assert!(ScenarioError::from_all(Vec::new()).is_none());
    }
}
