//! Owned resources. Processes are identified by pid + start time
//! ([`ProcessIdentity`], from `netlab_os::proc`), so a reused pid is never
//! mistaken for ours.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use netlab_os::proc::ProcessIdentity;

/// One thing a run owns and must remove.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Resource {
    /// A named network namespace under `/run/netns`.
    Namespace {
        /// Its name (`nl-<runid>-...`).
        name: String,
    },
    /// A child process.
    Child {
        /// Process id.
        pid: i32,
        /// Start time from `/proc/<pid>/stat`.
        start_time: u64,
        /// What it is (`receiver`, `sender`, ...).
        label: String,
    },
    /// The run's state file.
    StateFile {
        /// Its path.
        path: PathBuf,
    },
    /// A guest kernel (User-Mode Linux) process.
    Guest {
        /// Process id.
        pid: i32,
        /// Start time from `/proc/<pid>/stat`.
        start_time: u64,
    },
}

impl Resource {
    /// The process identity, for `Child` and `Guest`.
    pub fn process(&self) -> Option<ProcessIdentity> {
        match self {
            Resource::Child {
                pid, start_time, ..
            }
            | Resource::Guest { pid, start_time } => Some(ProcessIdentity {
                pid: *pid,
                start_time: *start_time,
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_serialize_tagged() {
        let r = Resource::Child {
            pid: 5,
            start_time: 77,
            label: "receiver".into(),
        };
        let j = serde_json::to_string(&r).unwrap();
        assert_eq!(
            j,
            r#"{"kind":"child","pid":5,"start_time":77,"label":"receiver"}"#
        );
        assert_eq!(serde_json::from_str::<Resource>(&j).unwrap(), r);
        assert_eq!(
            r.process(),
            Some(ProcessIdentity {
                pid: 5,
                start_time: 77
            })
        );
        let ns = Resource::Namespace {
            name: "nl-7f3a-1-a".into(),
        };
        assert_eq!(
            serde_json::to_string(&ns).unwrap(),
            r#"{"kind":"namespace","name":"nl-7f3a-1-a"}"#
        );
        assert_eq!(ns.process(), None);
    }
}
