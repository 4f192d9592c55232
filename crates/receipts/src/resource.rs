//! Owned resources and how a process is identified (pid + start time, so a
//! reused pid is never mistaken for ours).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A process, identified by pid and its start time (field 22 of
/// `/proc/<pid>/stat`, clock ticks since boot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProcessIdentity {
    /// Process id.
    pub pid: i32,
    /// Start time in clock ticks after boot.
    pub start_time: u64,
}

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

/// What `/proc/<pid>/stat` says about a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// State letter (`R`, `S`, `Z`, ...).
    pub state: char,
    /// Parent pid.
    pub ppid: i32,
    /// Start time in clock ticks after boot.
    pub start_time: u64,
}

/// Parses the text of `/proc/<pid>/stat`. The command name (field 2) may
/// contain spaces and parentheses, so fields are counted after the last `)`.
pub fn parse_proc_stat(text: &str) -> Option<ProcStat> {
    let after = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // after ")" come fields 3..: state is field 3, ppid 4, starttime 22
    let state = fields.first()?.chars().next()?;
    let ppid = fields.get(1)?.parse().ok()?;
    let start_time = fields.get(19)?.parse().ok()?;
    Some(ProcStat {
        state,
        ppid,
        start_time,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_odd_comm() {
        let text = "4242 (we ird) (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615";
        let s = parse_proc_stat(text).unwrap();
        assert_eq!(s.state, 'S');
        assert_eq!(s.ppid, 1);
        assert_eq!(s.start_time, 987_654);
        assert_eq!(parse_proc_stat("12 (x) S 1"), None);
        assert_eq!(parse_proc_stat("garbage"), None);
    }

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
