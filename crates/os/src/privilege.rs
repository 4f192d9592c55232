//! The capabilities netlab needs (CAP_NET_ADMIN, CAP_SYS_ADMIN), read from
//! `CapEff` in `/proc/self/status`.

use crate::SysError;

/// Bit number of `CAP_NET_ADMIN`.
pub const CAP_NET_ADMIN: u32 = 12;
/// Bit number of `CAP_SYS_ADMIN` (needed for mounts and `setns`).
pub const CAP_SYS_ADMIN: u32 = 21;

/// Env var that turns a privileged-test skip into a failure (CI sets it to `1`).
pub const REQUIRE_PRIVILEGED_ENV: &str = "NETLAB_REQUIRE_PRIVILEGED";

/// The first capability netlab needs that `cap_eff` lacks.
pub fn missing_capability(cap_eff: u64) -> Option<&'static str> {
    [
        (CAP_NET_ADMIN, "CAP_NET_ADMIN"),
        (CAP_SYS_ADMIN, "CAP_SYS_ADMIN"),
    ]
    .into_iter()
    .find(|(bit, _)| cap_eff & (1u64 << bit) == 0)
    .map(|(_, name)| name)
}

/// This process's effective capability mask.
pub fn effective_capabilities() -> Result<u64, SysError> {
    crate::proc::own_cap_eff()
}

/// Whether `NETLAB_REQUIRE_PRIVILEGED=1` is set (privileged tests must
/// then fail, not skip, without privileges).
pub fn privileged_tests_required() -> bool {
    std::env::var(REQUIRE_PRIVILEGED_ENV).as_deref() == Ok("1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proc::parse_cap_eff;

    #[test]
    fn cap_eff_parsing_and_checks() {
        let status = "Name:\tx\nCapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\nCapBnd:\t0\n";
        assert_eq!(parse_cap_eff(status).unwrap(), 0x1ff_ffff_ffff);
        assert!(parse_cap_eff("Name: x\n").is_err());
        assert!(parse_cap_eff("CapEff:\tzz\n").is_err());
        assert_eq!(missing_capability(u64::MAX), None);
        assert_eq!(
            missing_capability(1 << CAP_SYS_ADMIN),
            Some("CAP_NET_ADMIN")
        );
        assert_eq!(
            missing_capability(1 << CAP_NET_ADMIN),
            Some("CAP_SYS_ADMIN")
        );
        assert!(effective_capabilities().is_ok());
    }
}
