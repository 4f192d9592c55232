//! The checks every part of the experiment file's resolution shares: the
//! error naming a key, rates, congestion-control names and the offloads
//! word. Below `resolve`, `hosts`, `models`, `probes` and `sweep`, which
//! all call them.

use netlab_qdisc_model::Rate;

use netlab_path_settings::Offloads;

use crate::ExperimentError;

/// Congestion controls Linux ships (built in or as `tcp_<name>` modules).
/// A name outside this list is a typo; a name in it may still be missing
/// from a given kernel, which the runner checks against the kernel's list.
pub const KNOWN_CCS: &[&str] = &[
    "reno",
    "cubic",
    "bbr",
    "bic",
    "cdg",
    "dctcp",
    "highspeed",
    "htcp",
    "hybla",
    "illinois",
    "lp",
    "nv",
    "scalable",
    "vegas",
    "veno",
    "westwood",
    "yeah",
];

/// An error naming `key` and why its value is refused.
pub(crate) fn err(key: impl Into<String>, reason: impl Into<String>) -> ExperimentError {
    ExperimentError::Key {
        key: key.into(),
        reason: reason.into(),
    }
}

/// A rate (`5mbit`), or the error naming `key`.
pub(crate) fn rate(key: &str, text: &str) -> Result<Rate, ExperimentError> {
    Rate::parse(text).map_err(|e| err(key, e.to_string()))
}

/// Checks a congestion control name against [`KNOWN_CCS`].
pub fn check_cc(key: &str, cc: &str) -> Result<(), ExperimentError> {
    if KNOWN_CCS.contains(&cc) {
        Ok(())
    } else {
        Err(err(
            key,
            format!(
                "unknown congestion control {cc:?} (known: {})",
                KNOWN_CCS.join(", ")
            ),
        ))
    }
}

/// The offloads word (`kernel` or `off`), or the error naming `key`.
pub(crate) fn offloads(key: &str, word: &str) -> Result<Offloads, ExperimentError> {
    Offloads::from_file_word(word)
        .ok_or_else(|| err(key, format!("{word:?}: expected \"kernel\" or \"off\"")))
}
