//! Privilege checks: refuse clearly before any change, and let privileged
//! tests skip (or fail under CI) when the privileges are missing.

use crate::TopologyError;

/// Bit number of `CAP_NET_ADMIN`.
pub const CAP_NET_ADMIN: u32 = 12;
/// Bit number of `CAP_SYS_ADMIN` (needed for mounts and `setns`).
pub const CAP_SYS_ADMIN: u32 = 21;

/// Env var that turns a privileged-test skip into a failure (CI sets it to `1`).
pub const REQUIRE_PRIVILEGED_ENV: &str = "NETLAB_REQUIRE_PRIVILEGED";

/// Extracts the `CapEff` mask from the text of `/proc/<pid>/status`.
pub fn parse_cap_eff(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
}

/// Checks a `CapEff` mask for the capabilities netlab needs.
pub fn check_cap_eff(cap_eff: u64) -> Result<(), TopologyError> {
    for (bit, capability) in [
        (CAP_NET_ADMIN, "CAP_NET_ADMIN"),
        (CAP_SYS_ADMIN, "CAP_SYS_ADMIN"),
    ] {
        if cap_eff & (1u64 << bit) == 0 {
            return Err(TopologyError::MissingCapability {
                capability,
                cap_eff,
            });
        }
    }
    Ok(())
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
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| TopologyError::io("reading /proc/self/status", e))?;
    let cap_eff = parse_cap_eff(&status).ok_or_else(|| TopologyError::Decode {
        step: "reading CapEff from /proc/self/status".into(),
        reason: "no CapEff line".into(),
    })?;
    check_cap_eff(cap_eff)
}

/// For privileged tests: `true` if the process may build namespaces.
/// Otherwise prints why `test_name` is skipped and returns `false`, or,
/// when `NETLAB_REQUIRE_PRIVILEGED=1`, panics.
pub fn require_privileged(test_name: &str) -> bool {
    match check_capabilities() {
        Ok(()) => true,
        Err(e) => {
            if std::env::var(REQUIRE_PRIVILEGED_ENV).as_deref() == Ok("1") {
                panic!("{test_name}: privileges required ({REQUIRE_PRIVILEGED_ENV}=1) but {e}");
            }
            eprintln!("skipping {test_name}: {e}");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_eff_parsing() {
        let status = "Name:\tx\nCapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\nCapBnd:\t0\n";
        assert_eq!(parse_cap_eff(status), Some(0x1ff_ffff_ffff));
        assert_eq!(parse_cap_eff("Name: x\n"), None);
    }

    #[test]
    fn cap_checks() {
        assert!(check_cap_eff(u64::MAX).is_ok());
        let e = check_cap_eff(1 << CAP_SYS_ADMIN).unwrap_err();
        assert!(e.to_string().starts_with("CAP_NET_ADMIN is missing"), "{e}");
        let e = check_cap_eff(1 << CAP_NET_ADMIN).unwrap_err();
        assert!(e.to_string().starts_with("CAP_SYS_ADMIN is missing"), "{e}");
    }
}
