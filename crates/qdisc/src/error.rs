//! The one error type of this crate.

use std::io;

use netlab_os::SysError;
use netlab_qdisc_model::ModelError;

/// Everything that can go wrong while configuring or reading qdiscs: the
/// model's failures (parsing, building, decoding: [`QdiscError::Model`])
/// and this crate's own (the socket, the kernel's answer, the namespace).
/// Every message names what failed (the word, the attribute, the request,
/// the namespace).
#[derive(Debug, thiserror::Error)]
pub enum QdiscError {
    /// Parsing words, building a request or decoding a dump failed
    /// (netlab-qdisc-model; its message unchanged).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The kernel does not have the requested qdisc kind.
    #[error("qdisc {kind} is not available in this kernel ({release}): its module {module} is not loaded and could not be loaded{}", note_suffix(.note))]
    KindUnavailable {
        /// Qdisc kind, e.g. `fq_codel`.
        kind: String,
        /// Kernel release (`/proc/sys/kernel/osrelease`).
        release: String,
        /// Module that provides it, e.g. `sch_fq_codel`.
        module: String,
        /// What is known about its absence (e.g. the pinned guest kernel
        /// is built without it).
        note: Option<String>,
    },
    /// The kernel answered a request with an error.
    #[error("{request}: kernel answered {errno_name} (errno {errno}){}", kernel_message_suffix(.kernel_message))]
    Refused {
        /// The request, as its `tc` command line.
        request: String,
        /// Positive errno.
        errno: i32,
        /// Symbolic errno, e.g. `ENOENT`.
        errno_name: String,
        /// The kernel's extended-ack message, if it sent one.
        kernel_message: Option<String>,
    },
    /// An interface name could not be resolved in a namespace.
    #[error("no interface {dev:?} in netns {netns}")]
    NoSuchInterface {
        /// Interface name.
        dev: String,
        /// Namespace name.
        netns: String,
    },
    /// A socket call or file operation failed.
    #[error("{step}: {source}")]
    Io {
        /// What was being done.
        step: String,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// Entering or managing a namespace failed.
    #[error("{step}: {source}")]
    Netns {
        /// What was being done.
        step: String,
        /// The namespace error.
        #[source]
        source: netlab_topology::TopologyError,
    },
    /// A bounded wait ran out.
    #[error("timed out after {millis} ms waiting for {what}")]
    Timeout {
        /// What was awaited.
        what: String,
        /// How long it waited.
        millis: u64,
    },
    /// The sampler thread panicked.
    #[error("qdisc sampler thread panicked")]
    SamplerPanicked,
    /// The rate driver's thread panicked.
    #[error("the rate driver thread panicked")]
    DriverPanicked,
    /// Any other failure of the shared low-level layer.
    #[error(transparent)]
    Sys(netlab_os::SysError),
}

impl From<SysError> for QdiscError {
    /// Keeps this crate's variants for what it matches on: a bad shape is
    /// [`ModelError::Decode`] (inside [`QdiscError::Model`]), a kernel refusal [`QdiscError::Refused`], a
    /// bounded wait [`QdiscError::Timeout`], an OS error [`QdiscError::Io`].
    fn from(e: SysError) -> Self {
        match e {
            SysError::Malformed { what, reason } => {
                QdiscError::Model(ModelError::Decode { what, reason })
            }
            SysError::Refused {
                what,
                errno,
                errno_name,
                kernel_message,
            } => QdiscError::Refused {
                request: what,
                errno,
                errno_name,
                kernel_message,
            },
            SysError::Timeout { what, after } => QdiscError::Timeout {
                what,
                millis: after.as_millis() as u64,
            },
            SysError::Io { what, source } => QdiscError::Io { step: what, source },
            other => QdiscError::Sys(other),
        }
    }
}

fn note_suffix(note: &Option<String>) -> String {
    match note {
        Some(why) => format!(" ({why})"),
        None => String::new(),
    }
}

fn kernel_message_suffix(msg: &Option<String>) -> String {
    match msg {
        Some(m) if !m.is_empty() => format!(": {m}"),
        _ => String::new(),
    }
}

impl QdiscError {
    pub(crate) fn io(step: impl Into<String>, source: impl Into<io::Error>) -> Self {
        QdiscError::Io {
            step: step.into(),
            source: source.into(),
        }
    }

    /// The errno of a kernel refusal, if this is one.
    pub fn errno(&self) -> Option<i32> {
        match self {
            QdiscError::Refused { errno, .. } => Some(*errno),
            _ => None,
        }
    }
}
