//! The one error type of this crate.

use std::io;

use netlab_sys::wire::WireError;
use netlab_sys::SysError;

/// Everything that can go wrong while parsing a bottleneck description,
/// building or applying a qdisc request, or decoding a readback. Every
/// message names what failed (the word, the attribute, the request, the
/// namespace).
#[derive(Debug, thiserror::Error)]
pub enum QdiscError {
    /// A value (rate, size, time, number) could not be understood.
    #[error("bad {what} {text:?}: {reason}")]
    BadValue {
        /// What the value was meant to be, e.g. `rate` or `fq_codel target`.
        what: String,
        /// The text that was given.
        text: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The arm names a qdisc kind this crate does not know.
    #[error("unknown qdisc kind {kind:?} (known: {known})")]
    UnknownKind {
        /// The kind that was given.
        kind: String,
        /// The kinds that are known, comma separated.
        known: &'static str,
    },
    /// A word is not an option of that qdisc kind.
    #[error("{kind}: unknown option {word:?} (known: {known})")]
    UnknownWord {
        /// Qdisc kind (or `tbf`).
        kind: String,
        /// The word that was not understood.
        word: String,
        /// The options that kind accepts.
        known: String,
    },
    /// An option that needs a value came last.
    #[error("{kind}: option {word:?} needs a value")]
    MissingValue {
        /// Qdisc kind (or `tbf`).
        kind: String,
        /// The option word.
        word: String,
    },
    /// A required TBF parameter was not given.
    #[error("tbf: {0} is required")]
    MissingParameter(&'static str),
    /// Netlink bytes could not be decoded.
    #[error("decoding {what}: {reason}")]
    Decode {
        /// What was being decoded, e.g. `TCA_TBF_PARMS`.
        what: String,
        /// What was wrong.
        reason: String,
    },
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
    /// Any other failure of the shared low-level layer.
    #[error(transparent)]
    Sys(netlab_sys::SysError),
}

impl From<SysError> for QdiscError {
    /// Keeps this crate's variants for what it matches on: a bad shape is
    /// [`QdiscError::Decode`], a kernel refusal [`QdiscError::Refused`], a
    /// bounded wait [`QdiscError::Timeout`], an OS error [`QdiscError::Io`].
    fn from(e: SysError) -> Self {
        match e {
            SysError::Malformed { what, reason } => QdiscError::Decode { what, reason },
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

impl From<WireError> for QdiscError {
    /// Bytes of the wrong shape are [`QdiscError::Decode`].
    fn from(e: WireError) -> Self {
        QdiscError::Decode {
            what: e.what,
            reason: e.reason,
        }
    }
}

/// Names what a netlab-wire read was for: `a.u32().named("TCA_CODEL_TARGET")?`
/// fails with `decoding TCA_CODEL_TARGET: 2 bytes, need 4`.
pub(crate) trait Named<T> {
    fn named(self, what: &str) -> Result<T, QdiscError>;
}

impl<T> Named<T> for Result<T, WireError> {
    fn named(self, what: &str) -> Result<T, QdiscError> {
        self.map_err(|e| QdiscError::decode(what, e.reason))
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
    pub(crate) fn decode(what: impl Into<String>, reason: impl Into<String>) -> Self {
        QdiscError::Decode {
            what: what.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn bad(
        what: impl Into<String>,
        text: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        QdiscError::BadValue {
            what: what.into(),
            text: text.into(),
            reason: reason.into(),
        }
    }

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
