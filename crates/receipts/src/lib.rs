//! netlab-receipts: what a run owns, torn down with a receipt for each
//! step, at a normal end, on error, on panic, on SIGINT/SIGTERM, and, for
//! runs killed with SIGKILL, by a later `orchestrator cleanup`.
//!
//! - [`Registry`]: resources ([`Resource`]: namespaces, children, guest,
//!   state file) registered as they are created and mirrored into a state
//!   file `/run/netlab/<runid>.json`; [`Registry::teardown`] stops
//!   processes (SIGTERM, bounded wait, SIGKILL; pid + start time checked)
//!   and deletes namespaces (only `nl-<runid>-…`) in reverse order, giving
//!   [`CleanupReceipt`]s. Dropping the last clone tears down what is left.
//! - [`install_signal_teardown`]: SIGINT/SIGTERM tear down, then exit
//!   130/143.
//! - [`cleanup_dead_runs`]: for state files whose owner is dead, remove
//!   what they own and nothing else.
//!
//! The cargo feature `net` (docs/architecture.md, "Pure builds") holds the
//! registry, teardown, signals and the real clock, and nix and signal-hook
//! with them. Without it the crate is the records: [`CleanupReceipt`],
//! [`Resource`], [`RunState`] and its state file, [`Stamp`].
//!
//! ```no_run
//! # #[cfg(feature = "net")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use netlab_receipts::{install_signal_teardown, Registry, SystemClock, DEFAULT_STATE_DIR};
//! use netlab_topology::{RunId, Topology, TopologySpec};
//! let run = RunId::random();
//! let registry = Registry::with_state_dir(run.clone(), DEFAULT_STATE_DIR.as_ref())?;
//! install_signal_teardown(&registry)?;
//! let spec = TopologySpec::new(run, "1");
//! for name in spec.netns_names() {
//!     registry.register_namespace(&name)?; // before creating
//! }
//! let topo = Topology::build(&spec)?;
//! // ... run the scenario ...
//! drop(topo); // closes the namespace files; the registry deletes them
//! for receipt in registry.teardown(&SystemClock) {
//!     println!("{receipt}");
//! }
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "net"))] // the example needs the sockets
//! # fn main() {}
//! ```
#![forbid(unsafe_code)]

#[cfg(feature = "net")]
mod cleanup;
mod clock;
mod error;
#[cfg(feature = "net")]
mod process;
mod receipt;
#[cfg(feature = "net")]
mod registry;
mod resource;
#[cfg(feature = "net")]
mod signals;
mod state;
#[cfg(feature = "net")]
mod teardown;

#[cfg(feature = "net")]
pub use cleanup::{cleanup_dead_runs, cleanup_dead_runs_with, OwnerSeen, RunCleanup, RunStatus};
#[cfg(feature = "net")]
pub use clock::SystemClock;
pub use clock::{Clock, Stamp};
pub use error::ReceiptsError;
#[cfg(feature = "net")]
pub use process::{identify, own_identity};
pub use receipt::{Action, CleanupReceipt, TeardownOutcome};
#[cfg(feature = "net")]
pub use registry::Registry;
pub use resource::Resource;
#[cfg(feature = "net")]
pub use signals::{
    exit_code_for, install_signal_teardown, interrupted, request_interrupt, set_graceful,
    signal_name,
};
pub use state::{read_state, state_path, write_state, RunState, DEFAULT_STATE_DIR, STATE_SCHEMA};
#[cfg(feature = "net")]
pub use teardown::TeardownOptions;
