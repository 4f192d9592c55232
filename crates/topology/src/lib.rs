//! netlab-topology: owned network namespaces and the A–R–B topology of
//! method §1, built over rtnetlink.
//!
//! - [`netns`]: create / open / enter / delete named namespaces (visible
//!   to `ip netns`), without any subprocess.
//! - [`privilege`]: refuse early without Linux + CAP_NET_ADMIN.
//! - `testing` (cargo feature `testing`): `ScratchNetns`, a namespace
//!   deleted on drop, and `require_privileged`, the privileged-test gate.
//! - [`naming`]: run ids and the `nl-<runid>-<scenario>-{a,r,b}` names.
//! - [`ethtool`]: ethtool's generic-netlink requests and replies, pure;
//!   the build turns the veths' offloads off with them when the spec asks
//!   (`offloads = "off"`, method §1.6) and the readback records each
//!   veth's aggregation features.
//! - [`hosts`]: the sender hosts A1…Ak behind R (method §1.7): the
//!   address plan and the requests that add a host beyond the seed's A.
//! - [`Topology`]: A–R–B of method §1 built over rtnetlink from the pure
//!   request list of [`build`] (messages in [`rtnl`]), read back with
//!   [`Topology::readback`], torn down by [`Topology::teardown`] or a
//!   [`TopologyGuard`].
//!
//! The cargo feature `net` (docs/architecture.md, "Pure builds") holds
//! everything that enters, builds or reads a namespace (`netns`,
//! `Topology`, the live readback, the sysctl writes) and nix. Without it
//! the crate is the records results.json holds (`TopologySpec`,
//! `TopologyReadback`, `SysctlReadback`, `FeatureState`, names and roles)
//! and the pure request building and decoding ([`build`], [`rtnl`],
//! [`ethtool`], [`readback`]).
//!
//! ```no_run
//! # #[cfg(feature = "net")]
//! # fn main() -> Result<(), netlab_topology::TopologyError> {
//! use netlab_topology::netns::Netns;
//! netlab_topology::privilege::check_capabilities()?;
//! let ns = Netns::create("nl-ab12-demo")?;
//! let topo = netlab_topology::TopologyGuard::build(&netlab_topology::TopologySpec::new(
//!     netlab_topology::RunId::random(),
//!     "demo",
//! ))?; // torn down on drop
//! let rb = topo.readback()?;
//! # let _ = rb;
//! let addr = ns.run(|| std::net::UdpSocket::bind("127.0.0.1:0").map(|s| s.local_addr()))?;
//! # let _ = addr;
//! ns.delete()?;
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "net"))] // the example needs the sockets
//! # fn main() {}
//! ```
#![forbid(unsafe_code)]

pub mod addresses;
pub mod build;
mod error;
pub mod ethtool;
pub mod hosts;
#[cfg(feature = "net")]
mod mount;
pub mod naming;
#[cfg(feature = "net")]
pub mod netns;
#[cfg(feature = "net")]
mod offloads;
pub mod privilege;
pub mod readback;
pub mod rtnl;
#[cfg(feature = "net")]
mod rtnl_socket;
#[cfg(all(feature = "testing", feature = "net"))]
mod scratch;
#[cfg(feature = "net")]
pub mod snapshot;
pub mod spec;
#[cfg(feature = "net")]
mod sysctl;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "net")]
mod topology;
#[cfg(feature = "net")]
mod warm;

pub use error::TopologyError;
pub use ethtool::FeatureState;
pub use hosts::{SenderHost, MAX_SENDER_HOSTS};
pub use naming::{OwnedName, Role, RunId};
pub use readback::{LinkReadback, NamespaceReadback, SysctlReadback, TopologyReadback};
pub use spec::{Offloads, ReceiveBuffer, TopologySpec};
#[cfg(feature = "net")]
pub use topology::{delete_namespaces_of, NetnsTeardown, Topology, TopologyGuard};
#[cfg(feature = "net")]
pub use warm::warm_neighbours;
