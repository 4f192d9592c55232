//! netlab-os: the low-level pieces every netlab crate shares, once, with
//! one policy for timeouts and errors (one [`SysError`]).
//!
//! - [`netlink`]: the one netlink socket ([`NetlinkSocket`]): opened in the
//!   caller's namespace, own sequence numbers, bounded waits, ACKs with the
//!   kernel's extended-ack text in errors, dumps until `NLMSG_DONE`.
//! - [`wire`]: checked views over netlink bytes (messages, attributes,
//!   nested attributes, `NLMSG_ERROR`), smoltcp-style; and [`hex`]. Both
//!   are the pure crate `netlab-netlink-views`, re-exported here; a malformed
//!   input is its `WireError`, which becomes [`SysError::Malformed`].
//! - [`errno_name`], [`ifindex()`]: small helpers for reports and
//!   errors.
//! - [`cpu`]: this process's and every CPU's time (`/proc/self/stat`,
//!   `/proc/stat`), for the CPU a window used.
//! - [`proc`]: `/proc/<pid>/stat` and [`ProcessIdentity`] (pid + start
//!   time, so a reused pid is never mistaken for the recorded process).
//! - [`secs`]: serde for a `Duration` as seconds (`#[serde(with = "netlab_os::secs")]`).
//! - [`event_loop`]: one `poll` loop serving several [`event_loop::Handler`]s
//!   until a hard end or a stop flag (B's loop: TCP receiver and echoes).
//! - [`atomic`]: the one way a file is replaced (temporary file, fsync,
//!   rename, fsync of the folder; its [`atomic::FileError`] names the step
//!   and the file).
//! - [`pace`]: slots on a fixed grid without catch-up bursts; [`StopFlag`]:
//!   one stop flag for every worker.
//! - `heap` (with `net`): a long run's heap kept flat (glibc's mmap and
//!   trim thresholds fixed, free arenas returned between scenarios).
//! - `threads` (with `net`): threads started once and reused, each job
//!   in the namespace it names (thread starts cost 2-15 ms under
//!   user-mode Linux).
//! - [`privilege`]: the capabilities netlab needs; with the `testing`
//!   feature, `testing::require_privileged` gates privileged tests
//!   (`NETLAB_REQUIRE_PRIVILEGED=1` turns a skip into a failure).
//!
//! The cargo feature `net` (docs/architecture.md, "Pure builds") holds the
//! socket code (`netlink`, `event_loop`, `ifindex`, `errno_name`), `heap` and the
//! crates it needs (nix, netlink-sys). Without it (`default-features =
//! false`, as netlab-results and netlab-report depend on it) the crate is
//! `atomic`, `secs`, `cpu`, `proc`, `pace`, `StopFlag`, `privilege` and
//! `SysError`: files and `/proc` through `std` only.
//!
//! ```no_run
//! # #[cfg(feature = "net")]
//! # fn main() -> Result<(), netlab_os::SysError> {
//! use netlab_os::netlink::{NetlinkSocket, Protocol};
//! use netlab_os::wire::{Messages, NLMSG_DONE};
//! // RTM_GETLINK dump: nlmsghdr + an empty struct ifinfomsg
//! let mut req = vec![0u8; 32];
//! req[0..4].copy_from_slice(&32u32.to_ne_bytes());
//! req[4..6].copy_from_slice(&18u16.to_ne_bytes());
//! let sock = NetlinkSocket::open(Protocol::Route, "this namespace")?;
//! let dump = sock.dump(&req, "RTM_GETLINK dump")?;
//! for msg in Messages::new(&dump) {
//!     let msg = msg?;
//!     if msg.kind() != NLMSG_DONE {
//!         println!("{} bytes (checked: {})", msg.len(), msg.bytes().len());
//!     }
//! }
//! let me = netlab_os::ProcessIdentity::own()?;
//! println!("{me}, lo is {}", netlab_os::ifindex("lo")?);
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "net"))] // the example needs the sockets
//! # fn main() {}
//! ```
// `unsafe` is denied (workspace lints) and allowed in the two blocks of
// `heap` only (glibc's malloc parameters; docs/architecture.md).

pub mod atomic;
pub mod cpu;
#[cfg(feature = "net")]
mod errno;
mod error;
#[cfg(feature = "net")]
pub mod event_loop;
#[cfg(feature = "net")]
pub mod heap;
#[cfg(feature = "net")]
mod ifindex;
#[cfg(feature = "net")]
pub mod netlink;
pub mod pace;
pub mod privilege;
pub mod proc;
pub mod secs;
mod stop;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "net")]
pub mod threads;

#[cfg(feature = "net")]
pub use errno::errno_name;
pub use error::SysError;
#[cfg(feature = "net")]
pub use ifindex::ifindex;
/// Checked views over netlink bytes (the crate `netlab-netlink-views`).
pub use netlab_netlink_views as wire;
#[cfg(feature = "net")]
pub use netlink::{NetlinkSocket, Protocol};
pub use pace::{next_slot, Pacer};
pub use proc::{kernel_release, Liveness, ProcStat, ProcessIdentity};
pub use stop::StopFlag;
