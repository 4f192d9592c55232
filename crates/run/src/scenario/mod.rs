//! One scenario (method §3): its [`ScenarioSetup`](crate::setup::ScenarioSetup)
//! executed by workers.
//!
//! - [`clock`]: the timeline as a pure clock, `poll(now) -> Step`;
//! - [`worker`]: a thread inside a namespace with one stop type;
//! - [`runner`]: builds the topology, starts the workers, walks the clock,
//!   calls the caller's [`ScenarioHooks`](crate::ScenarioHooks);
//! - [`collect`]: joins the workers in a fixed order into the typed result;
//! - [`link`]: the rate drivers of a moving bottleneck (method §15.4);
//! - [`cpu`]: the CPU the measured window used (the bottleneck verdict's);
//! - [`egress`]: R's configured egresses, where to read each back;
//! - [`pcap`]: the packet files (evidence always, headers on request);
//! - [`steps`]: where the scenario's time goes, step by step;
//! - [`error`]: what can fail, naming the step.
//!
//! The setup itself is [`crate::setup`] (pure) and B's loop [`crate::b_loop`].

pub mod clock;
pub mod collect;
pub mod cpu;
pub mod egress;
pub mod error;
pub mod link;
pub mod pcap;
pub mod runner;
pub mod steps;
pub mod worker;

pub use error::ScenarioError;
pub use runner::{not_started, run, threads_at_once, RunContext, StoppedAt};
