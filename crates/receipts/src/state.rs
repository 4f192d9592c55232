//! The per-run state file: who owns the run and everything it owns,
//! rewritten atomically whenever that changes.

use std::path::{Path, PathBuf};

use netlab_topology::RunId;
use serde::{Deserialize, Serialize};

use crate::resource::Resource;
use crate::ReceiptsError;
use netlab_os::ProcessIdentity;

/// Default directory of state files.
pub const DEFAULT_STATE_DIR: &str = "/run/netlab";

/// Version of the state file's shape.
pub const STATE_SCHEMA: u32 = 1;

/// Contents of `<state_dir>/<runid>.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunState {
    /// [`STATE_SCHEMA`].
    pub schema: u32,
    /// The run.
    pub run_id: RunId,
    /// The process that owns the run.
    pub owner: ProcessIdentity,
    /// Everything the run owns, in registration order.
    pub resources: Vec<Resource>,
}

/// Path of the state file of `run` in `dir`.
pub fn state_path(dir: &Path, run: &RunId) -> PathBuf {
    dir.join(format!("{run}.json"))
}

/// Writes `state` to `path` atomically ([`netlab_os::atomic::write`]:
/// temporary file, fsync, rename).
pub fn write_state(path: &Path, state: &RunState) -> Result<(), ReceiptsError> {
    let json = serde_json::to_vec_pretty(state).map_err(|e| ReceiptsError::Malformed {
        path: path.to_owned(),
        reason: format!("serializing the state: {e}"),
    })?;
    netlab_os::atomic::write(path, &json).map_err(|e| ReceiptsError::StateFile {
        action: "writing",
        path: path.to_owned(),
        source: std::io::Error::new(e.source.kind(), e),
    })
}

/// Reads a state file.
pub fn read_state(path: &Path) -> Result<RunState, ReceiptsError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReceiptsError::StateFile {
        action: "reading",
        path: path.to_owned(),
        source,
    })?;
    let state: RunState = serde_json::from_str(&text).map_err(|e| ReceiptsError::Malformed {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    if state.schema != STATE_SCHEMA {
        return Err(ReceiptsError::Malformed {
            path: path.to_owned(),
            reason: format!("schema {} (expected {STATE_SCHEMA})", state.schema),
        });
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_roundtrips_through_a_file() {
        let tmp = tempfile::Builder::new()
            .prefix("netlab-state-unit-")
            .tempdir()
            .unwrap();
        let dir = tmp.path().to_path_buf();
        let run = RunId::parse("abcd01").unwrap();
        let path = state_path(&dir, &run);
        assert!(path.ends_with("abcd01.json"));
        let state = RunState {
            schema: STATE_SCHEMA,
            run_id: run,
            owner: ProcessIdentity {
                pid: 1,
                start_time: 2,
            },
            resources: vec![Resource::Namespace {
                name: "nl-abcd01-1-a".into(),
            }],
        };
        write_state(&path, &state).unwrap();
        assert_eq!(read_state(&path).unwrap(), state);
        std::fs::write(&path, "{").unwrap();
        assert!(matches!(
            read_state(&path),
            Err(ReceiptsError::Malformed { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
