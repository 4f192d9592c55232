//! One scenario (method §3) as a plan and the workers that execute it:
//!
//! - [`plan`]: every parameter resolved from the run's configuration (pure);
//! - [`clock`]: the timeline as a pure clock, `poll(now) -> Step`;
//! - [`b_loop`]: B's event loop, tcpload's receiver with the probe's echoes;
//! - [`worker`]: a thread inside a namespace with one stop type;
//! - [`runner`]: builds the topology, starts the workers, walks the clock;
//! - [`collect`]: joins the workers in a fixed order into the typed result;
//! - [`pcap`]: the packet files (evidence always, headers on request);
//! - [`error`]: what can fail, naming the step.

pub mod b_loop;
pub mod clock;
pub mod collect;
pub mod error;
pub mod pcap;
pub mod plan;
pub mod runner;
pub mod worker;

pub use plan::ScenarioPlan;
pub use runner::{not_started, run, RunContext};
