//! netlab-topology: owned network namespaces and the A–R–B topology of
//! SPEC §1, built over rtnetlink.
//!
//! - [`netns`]: create / open / enter / delete named namespaces (visible
//!   to `ip netns`), without any subprocess.
//! - [`privilege`]: refuse early without Linux + CAP_NET_ADMIN; skip rules
//!   for privileged tests.
//! - [`naming`]: run ids and the `nl-<runid>-<scenario>-{a,r,b}` names.
//!
//! ```no_run
//! use netlab_topology::netns::ScratchNetns;
//! # fn main() -> Result<(), netlab_topology::TopologyError> {
//! netlab_topology::privilege::check_capabilities()?;
//! let scratch = ScratchNetns::new("demo")?; // deleted on drop
//! let addr = scratch.run(|| std::net::UdpSocket::bind("127.0.0.1:0").map(|s| s.local_addr()))?;
//! # let _ = addr;
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

mod error;
pub mod naming;
pub mod netns;
pub mod privilege;
mod sys;

pub use error::TopologyError;
pub use naming::{OwnedName, Role, RunId};
