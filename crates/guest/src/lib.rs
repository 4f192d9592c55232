//! netlab-guest: run any of our programs or tests inside a pinned
//! user-mode-linux kernel (Debian's `user-mode-linux`, `/usr/bin/linux.uml`),
//! so qdiscs the host kernel lacks (fq_codel, cake, netem, …) can be used.
//!
//! The guest boots with the host root as hostfs, so it sees the host's
//! files; our own init ([`init::main_from_args`], shipped as the
//! `netlab-guest-init` binary) mounts proc/sys/devtmpfs and tmpfs on `/run`
//! and `/tmp` (binding back what the program needs from there: its own
//! folder, its working directory, [`Guest::share_dir`] folders), loads the requested modules (dependencies first, from
//! `modules.dep`) with `finit_module`, runs the program, writes a JSON
//! outcome into a host folder the run owns and powers off. The host side
//! ([`Guest`]) boots the kernel as an owned child in its own process group,
//! tails the program's output (optionally live), enforces a deadline and
//! always removes its temporary files.
//!
//! ```no_run
//! use std::time::Duration;
//! use netlab_guest::Guest;
//!
//! let outcome = Guest::new("/usr/bin/uname")
//!     .arg("-r")
//!     .modules(["sch_tbf", "sch_fq_codel", "veth"])
//!     .deadline(Duration::from_secs(30))
//!     .run()?;
//! println!("{} -> {}: {}", outcome.release, outcome.status, outcome.stdout);
//! # Ok::<(), netlab_guest::Error>(())
//! ```
//!
//! Tests that need the guest kernel use the helpers of the `testing`
//! feature (`netlab-guest = { workspace = true, features = ["testing"] }`
//! under `[dev-dependencies]`):
//!
//! ```no_run
//! #[test]
//! fn guest_fq_codel_loads() {
//!     netlab_guest::test_in_guest("guest_fq_codel_loads", &["sch_fq_codel"], || {
//!         let modules = std::fs::read_to_string("/proc/modules").unwrap();
//!         assert!(modules.contains("sch_fq_codel"));
//!     });
//! }
//! ```

mod availability;
mod deadline;
mod error;
mod host;
pub mod init;
mod init_binary;
pub mod kernels;
pub mod modules;
mod process_group;
mod rundir;
mod running;
pub mod spec;
mod stale;
#[cfg(any(test, feature = "testing"))]
mod testing;
mod visibility;
mod xstate;

pub use availability::{available, available_at, kernel_image_release, Availability, ModuleCheck};
pub use error::{Error, Result};
pub use host::{Guest, GUEST_RUN_DEADLINE};
pub use init_binary::find_init;
pub use process_group::live_group_pids;
pub use running::{GuestOutcome, KillHandle, RunningGuest, KILL_GRACE};
pub use spec::{
    in_guest, GuestStatus, ModuleLoad, ModuleOutcome, MountStep, DEFAULT_KERNEL,
    DEFAULT_MODULES_ROOT, INIT_BINARY, INIT_ENV, IN_GUEST_ENV,
};
pub use stale::{
    cleanup_stale_runs, cleanup_stale_runs_in, run_dir_owner, StaleRun, OWNER_FILE, RUN_DIR_PREFIX,
};
#[cfg(feature = "testing")]
pub use testing::{
    guest_for_test, guest_or_skip, run_test_inside, test_in_guest, test_passed, TEST_DEADLINE,
};
pub use visibility::GUEST_MOUNTS;
