//! Sysctl files under `/proc/sys`, as seen by the calling thread's network
//! namespace, through `netlab_os::proc` (where every `/proc` file is read).

use std::io;

/// Writes a sysctl as seen by the calling thread's network namespace.
pub(crate) fn write(key: &str, value: &str) -> io::Result<()> {
    netlab_os::proc::write_sysctl(key, value)
}

/// Reads a sysctl as seen by the calling thread's network namespace.
pub(crate) fn read(key: &str) -> io::Result<String> {
    netlab_os::proc::read_sysctl(key)
}
