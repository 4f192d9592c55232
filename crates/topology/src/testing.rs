//! Test-only helpers (cargo feature `testing`; dev-dependencies enable
//! it): the privileged-test gate and, with `net`, a throw-away namespace.

#[cfg(feature = "net")]
pub use crate::scratch::ScratchNetns;
pub use netlab_os::testing::require_privileged;
