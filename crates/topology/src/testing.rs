//! Test-only helpers (cargo feature `testing`; dev-dependencies enable
//! it): a throw-away namespace and the privileged-test gate.

pub use crate::scratch::ScratchNetns;
pub use netlab_os::testing::require_privileged;
