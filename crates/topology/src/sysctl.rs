//! Sysctl files under `/proc/sys`, as seen by the calling thread's network
//! namespace.

use std::io;

/// Path of a sysctl under `/proc/sys` (`net.ipv4.ip_forward` →
/// `/proc/sys/net/ipv4/ip_forward`).
pub(crate) fn path(key: &str) -> String {
    format!("/proc/sys/{}", key.replace('.', "/"))
}

/// Writes a sysctl as seen by the calling thread's network namespace.
pub(crate) fn write(key: &str, value: &str) -> io::Result<()> {
    std::fs::write(path(key), format!("{value}\n"))
}

/// Reads a sysctl as seen by the calling thread's network namespace.
pub(crate) fn read(key: &str) -> io::Result<String> {
    Ok(std::fs::read_to_string(path(key))?.trim().to_owned())
}
