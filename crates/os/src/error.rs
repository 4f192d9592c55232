//! The one error type of this crate.

use std::io;
use std::time::Duration;

/// Everything that can go wrong in the shared low-level pieces. Every
/// message names what was being done (`what`) and what failed.
#[derive(Debug, thiserror::Error)]
pub enum SysError {
    /// A system call failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done, e.g. `sending RTM_NEWQDISC in netns nl-7f3a-1-r`.
        what: String,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// The kernel did not answer within the bound.
    #[error("{what}: no answer from the kernel within {after:?}")]
    Timeout {
        /// What was waiting.
        what: String,
        /// The bound that elapsed.
        after: Duration,
    },
    /// The kernel refused a netlink request (`NLMSG_ERROR` with an errno).
    #[error(
        "{what}: kernel refused: {errno_name} ({errno}){}",
        kernel_message.as_deref().map(|m| format!(": {m}")).unwrap_or_default()
    )]
    Refused {
        /// The request.
        what: String,
        /// The errno (positive).
        errno: i32,
        /// Its symbolic name, e.g. `ENOENT`.
        errno_name: String,
        /// The extended-ack text (`NLMSGERR_ATTR_MSG`), when the kernel sent one.
        kernel_message: Option<String>,
    },
    /// Bytes or text did not have the expected shape.
    #[error("{what}: {reason}")]
    Malformed {
        /// What was being parsed, e.g. `netlink attribute`.
        what: String,
        /// What was wrong.
        reason: String,
    },
    /// No interface of that name in the calling thread's namespace.
    #[error("no interface named {name:?} in this network namespace")]
    NoSuchInterface {
        /// The name looked up.
        name: String,
    },
    /// No process with that pid.
    #[error("no process with pid {pid}")]
    NoSuchProcess {
        /// The pid.
        pid: i32,
    },
}

impl From<netlab_netlink_views::WireError> for SysError {
    /// Bytes that do not have the expected shape are [`SysError::Malformed`].
    fn from(e: netlab_netlink_views::WireError) -> Self {
        SysError::Malformed {
            what: e.what,
            reason: e.reason,
        }
    }
}

impl SysError {
    /// Wraps an OS error with what was being done.
    pub fn io(what: impl Into<String>, source: impl Into<io::Error>) -> Self {
        SysError::Io {
            what: what.into(),
            source: source.into(),
        }
    }

    /// A parse error.
    pub fn malformed(what: impl Into<String>, reason: impl Into<String>) -> Self {
        SysError::Malformed {
            what: what.into(),
            reason: reason.into(),
        }
    }

    /// The errno behind this error: the OS error of `Io`, the kernel's
    /// refusal of `Refused`.
    pub fn errno(&self) -> Option<i32> {
        match self {
            SysError::Io { source, .. } => source.raw_os_error(),
            SysError::Refused { errno, .. } => Some(*errno),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_what_failed() {
        let e = SysError::Refused {
            what: "RTM_NEWQDISC".into(),
            errno: 2,
            errno_name: "ENOENT".into(),
            kernel_message: Some("Specified qdisc kind is unknown".into()),
        };
        assert_eq!(
            e.to_string(),
            "RTM_NEWQDISC: kernel refused: ENOENT (2): Specified qdisc kind is unknown"
        );
        assert_eq!(e.errno(), Some(2));
        let e = SysError::io("bind", io::Error::from_raw_os_error(98));
        assert_eq!(e.errno(), Some(98));
        assert!(e.to_string().starts_with("bind: "));
    }
}
