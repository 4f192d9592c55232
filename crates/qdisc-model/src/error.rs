//! The one error type of this crate.

use netlab_netlink_views::WireError;

/// Everything that can go wrong while parsing a bottleneck description,
/// building a qdisc request or decoding a readback. Every message names
/// what failed (the word, the value, the attribute). netlab-qdisc's
/// `QdiscError` carries it unchanged (`QdiscError::Model`) beside its own
/// socket and namespace failures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
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
    /// Netlink bytes (or their hex) could not be decoded.
    #[error("decoding {what}: {reason}")]
    Decode {
        /// What was being decoded, e.g. `TCA_TBF_PARMS`.
        what: String,
        /// What was wrong.
        reason: String,
    },
}

impl From<WireError> for ModelError {
    /// Bytes of the wrong shape are [`ModelError::Decode`].
    fn from(e: WireError) -> Self {
        ModelError::Decode {
            what: e.what,
            reason: e.reason,
        }
    }
}

/// Names what a netlab-netlink-views read was for: `a.u32().named("TCA_CODEL_TARGET")?`
/// fails with `decoding TCA_CODEL_TARGET: 2 bytes, need 4`.
pub(crate) trait Named<T> {
    fn named(self, what: &str) -> Result<T, ModelError>;
}

impl<T> Named<T> for Result<T, WireError> {
    fn named(self, what: &str) -> Result<T, ModelError> {
        self.map_err(|e| ModelError::decode(what, e.reason))
    }
}

impl ModelError {
    /// A decoding error of `what`.
    pub(crate) fn decode(what: impl Into<String>, reason: impl Into<String>) -> Self {
        ModelError::Decode {
            what: what.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn bad(
        what: impl Into<String>,
        text: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        ModelError::BadValue {
            what: what.into(),
            text: text.into(),
            reason: reason.into(),
        }
    }
}
