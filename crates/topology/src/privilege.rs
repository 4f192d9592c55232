//! Privilege checks: refuse clearly before any change. (The gate for
//! privileged tests is `testing::require_privileged`, cargo feature
//! `testing`.)

use crate::TopologyError;

pub use netlab_os::privilege::{CAP_NET_ADMIN, CAP_SYS_ADMIN, REQUIRE_PRIVILEGED_ENV};

/// Checks a `CapEff` mask for the capabilities netlab needs.
pub fn check_cap_eff(cap_eff: u64) -> Result<(), TopologyError> {
    match netlab_os::privilege::missing_capability(cap_eff) {
        None => Ok(()),
        Some(capability) => Err(TopologyError::MissingCapability {
            capability,
            cap_eff,
        }),
    }
}

/// Refuses non-Linux platforms and a process without CAP_NET_ADMIN and
/// CAP_SYS_ADMIN (read from `CapEff` in `/proc/self/status`). Changes
/// nothing.
pub fn check_capabilities() -> Result<(), TopologyError> {
    if !cfg!(target_os = "linux") {
        return Err(TopologyError::NotLinux {
            os: std::env::consts::OS,
        });
    }
    check_cap_eff(netlab_os::privilege::effective_capabilities()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_checks() {
        assert!(check_cap_eff(u64::MAX).is_ok());
        let e = check_cap_eff(1 << CAP_SYS_ADMIN).unwrap_err();
        assert!(e.to_string().starts_with("CAP_NET_ADMIN is missing"), "{e}");
        let e = check_cap_eff(1 << CAP_NET_ADMIN).unwrap_err();
        assert!(e.to_string().starts_with("CAP_SYS_ADMIN is missing"), "{e}");
    }
}
