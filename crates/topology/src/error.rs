//! The one error type of this crate.

use std::io;

/// Everything that can go wrong while checking privileges, managing
/// namespaces or building a topology. Every message names the step that
/// failed (the syscall, the attribute, the namespace).
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    /// The platform is not Linux.
    #[error("netlab needs Linux network namespaces; this platform ({os}) is not Linux")]
    NotLinux {
        /// `std::env::consts::OS`.
        os: &'static str,
    },
    /// A required capability is not in the effective set.
    #[error(
        "{capability} is missing from the effective capability set (CapEff={cap_eff:#018x}); \
         run as root (or with CAP_NET_ADMIN and CAP_SYS_ADMIN)"
    )]
    MissingCapability {
        /// Capability name, e.g. `CAP_NET_ADMIN`.
        capability: &'static str,
        /// The CapEff mask that was read.
        cap_eff: u64,
    },
    /// A system call or file operation failed.
    #[error("{step}: {source}")]
    Io {
        /// What was being done, e.g. `adding 10.20.1.2/24 to a0 in netns nl-7f3a-1-a`.
        step: String,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// A name is not acceptable.
    #[error("invalid name {name:?}: {reason}")]
    InvalidName {
        /// The rejected name.
        name: String,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// More sender hosts than the address plan of method §1.7 allows.
    #[error("{hosts} sender hosts asked for: the address plan gives 1 to {max} (hosts 2 on take 10.21.<i>.0/24)")]
    TooManyHosts {
        /// How many were asked for.
        hosts: u16,
        /// The plan's limit.
        max: u16,
    },
    /// The MTU asked for cannot be given to every link.
    #[error("MTU {mtu} for the veths of A–R–B: {reason}")]
    InvalidMtu {
        /// The MTU asked for.
        mtu: u32,
        /// Why not (below IPv4's 68, above veth's 65535).
        reason: String,
    },
    /// A veth end's offloads cannot be, or were not, set as asked: a
    /// feature the kernel reports fixed, or one still on after the change.
    #[error("offloads of {link} in netns {netns}: {reason}")]
    Offloads {
        /// Namespace name.
        netns: String,
        /// The veth end (`r1`).
        link: String,
        /// What is wrong, naming the feature.
        reason: String,
    },
    /// A netlink answer could not be understood.
    #[error("{step}: malformed netlink answer: {reason}")]
    Decode {
        /// What was being done.
        step: String,
        /// What was wrong.
        reason: String,
    },
    /// A sysctl read back a different value than was written.
    #[error("sysctl {key} in netns {netns}: wrote {wrote:?} but read back {read:?}")]
    SysctlMismatch {
        /// Namespace name.
        netns: String,
        /// Sysctl key, e.g. `net.ipv4.ip_forward`.
        key: String,
        /// Value written.
        wrote: String,
        /// Value read back.
        read: String,
    },
    /// A namespace was still present after deletion.
    #[error("netns {name} still exists after deletion")]
    StillPresent {
        /// Namespace name.
        name: String,
    },
    /// A shared low-level step failed: a netlink exchange (the kernel
    /// refused, did not answer in time, answered malformed bytes) or a
    /// `/proc` read. The message names the step.
    #[error(transparent)]
    Sys(#[from] netlab_os::SysError),
    /// A helper thread panicked.
    #[error("{step}: helper thread panicked")]
    ThreadPanicked {
        /// What the thread was doing.
        step: String,
    },
}

impl TopologyError {
    /// Wraps an OS error with the step that failed.
    pub fn io(step: impl Into<String>, source: impl Into<io::Error>) -> Self {
        TopologyError::Io {
            step: step.into(),
            source: source.into(),
        }
    }

    /// The raw OS error number, if this is an OS error.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            TopologyError::Io { source, .. } => source.raw_os_error(),
            TopologyError::Sys(e) => e.errno(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_error_names_the_step() {
        let e = TopologyError::io(
            "adding 10.20.1.2/24 to a0 in netns nl-7f3a-1-a",
            io::Error::from_raw_os_error(17),
        );
        assert_eq!(
            e.to_string(),
            "adding 10.20.1.2/24 to a0 in netns nl-7f3a-1-a: File exists (os error 17)"
        );
        assert_eq!(e.raw_os_error(), Some(17));
    }
}
