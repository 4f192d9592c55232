//! Cleanup receipts: what was torn down, how, with what outcome, when.

use serde::{Deserialize, Serialize};

use crate::clock::Stamp;
use crate::resource::Resource;
use netlab_utc::format_rfc3339;

/// What was done to a resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// SIGTERM, and the process exited within the grace period.
    Sigterm,
    /// SIGTERM, then SIGKILL after the grace period.
    SigtermThenSigkill,
    /// Namespace unmounted and unlinked.
    DeleteNamespace,
    /// State file removed.
    RemoveStateFile,
    /// Nothing was done (see the outcome).
    None,
}

impl Action {
    /// The snake_case name used in JSON.
    pub fn as_str(&self) -> &'static str {
        match self {
            Action::Sigterm => "sigterm",
            Action::SigtermThenSigkill => "sigterm_then_sigkill",
            Action::DeleteNamespace => "delete_namespace",
            Action::RemoveStateFile => "remove_state_file",
            Action::None => "none",
        }
    }
}

/// How a teardown step ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TeardownOutcome {
    /// Removed and confirmed gone.
    Done,
    /// It was already gone.
    AlreadyGone,
    /// Not touched because it is not ours (foreign name, reused pid).
    NotOurs {
        /// Why it is not ours.
        reason: String,
    },
    /// The step failed; the resource may remain.
    Failed {
        /// The error.
        error: String,
    },
}

impl TeardownOutcome {
    /// True unless the step failed.
    pub fn is_ok(&self) -> bool {
        !matches!(self, TeardownOutcome::Failed { .. })
    }
}

/// One teardown step, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CleanupReceipt {
    /// The resource.
    pub resource: Resource,
    /// What was done.
    pub action: Action,
    /// How it ended.
    pub outcome: TeardownOutcome,
    /// When it ended, RFC 3339 UTC.
    pub utc: String,
    /// When it ended, `CLOCK_MONOTONIC` seconds.
    pub monotonic_s: f64,
}

impl CleanupReceipt {
    /// A receipt stamped `at`.
    pub fn new(resource: Resource, action: Action, outcome: TeardownOutcome, at: Stamp) -> Self {
        CleanupReceipt {
            resource,
            action,
            outcome,
            utc: format_rfc3339(at.utc),
            monotonic_s: at.monotonic.as_secs_f64(),
        }
    }
}

impl std::fmt::Display for CleanupReceipt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match &self.resource {
            Resource::Namespace { name } => format!("netns {name}"),
            Resource::Child { pid, label, .. } => format!("child {label} (pid {pid})"),
            Resource::StateFile { path } => format!("state file {}", path.display()),
            Resource::Guest { pid, .. } => format!("guest kernel (pid {pid})"),
        };
        let outcome = match &self.outcome {
            TeardownOutcome::Done => "done".to_owned(),
            TeardownOutcome::AlreadyGone => "already gone".to_owned(),
            TeardownOutcome::NotOurs { reason } => format!("not touched: {reason}"),
            TeardownOutcome::Failed { error } => format!("FAILED: {error}"),
        };
        write!(
            f,
            "{} {what}: {}: {outcome}",
            self.utc,
            self.action.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn receipt_serializes_and_displays() {
        let at = Stamp {
            utc: UNIX_EPOCH + Duration::from_secs(1_796_006_153),
            monotonic: Duration::from_millis(12_500),
        };
        let r = CleanupReceipt::new(
            Resource::Namespace {
                name: "nl-7f3a-1-a".into(),
            },
            Action::DeleteNamespace,
            TeardownOutcome::Done,
            at,
        );
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["utc"], "2026-11-30T02:35:53.000Z");
        assert_eq!(j["monotonic_s"], 12.5);
        assert_eq!(j["action"], "delete_namespace");
        assert_eq!(j["outcome"]["status"], "done");
        assert_eq!(j["resource"]["kind"], "namespace");
        let back: CleanupReceipt = serde_json::from_value(j).unwrap();
        assert_eq!(back, r);
        assert_eq!(
            r.to_string(),
            "2026-11-30T02:35:53.000Z netns nl-7f3a-1-a: delete_namespace: done"
        );
        assert!(TeardownOutcome::AlreadyGone.is_ok());
        assert!(!TeardownOutcome::Failed { error: "x".into() }.is_ok());
        for a in [Action::Sigterm, Action::SigtermThenSigkill, Action::None] {
            assert_eq!(serde_json::to_value(&a).unwrap(), a.as_str());
        }
    }
}
