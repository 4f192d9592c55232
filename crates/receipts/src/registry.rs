//! The registry of what a run owns, torn down in reverse order with a
//! receipt per resource.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use netlab_topology::{OwnedName, RunId};

use crate::clock::{Clock, SystemClock};
use crate::process;
use crate::receipt::{Action, CleanupReceipt, TeardownOutcome};
use crate::resource::Resource;
use crate::state::{state_path, write_state, RunState, STATE_SCHEMA};
use crate::teardown::{teardown_one, teardown_order, TeardownOptions};
use crate::ReceiptsError;
use netlab_os::ProcessIdentity;

#[derive(Debug)]
pub(crate) struct Inner {
    run_id: RunId,
    owner: ProcessIdentity,
    state_path: Option<PathBuf>,
    resources: Vec<Resource>,
    options: TeardownOptions,
}

/// What one run owns. Cheap to clone (shared); resources are registered as
/// they are created and torn down in reverse order (processes first, the
/// state file last). Tears down whatever is left when the last clone is
/// dropped (also during a panic), printing the receipts to stderr.
#[derive(Debug, Clone)]
pub struct Registry {
    pub(crate) inner: Arc<Mutex<Inner>>,
}

impl Registry {
    /// A registry kept in memory only (no state file).
    pub fn new(run_id: RunId) -> Result<Registry, ReceiptsError> {
        Ok(Registry::from_inner(Inner {
            run_id,
            owner: process::own_identity()?,
            state_path: None,
            resources: Vec::new(),
            options: TeardownOptions::default(),
        }))
    }

    /// A registry with a state file `<state_dir>/<runid>.json` (directory
    /// created if needed), written now and on every change.
    pub fn with_state_dir(run_id: RunId, state_dir: &Path) -> Result<Registry, ReceiptsError> {
        std::fs::create_dir_all(state_dir).map_err(|source| ReceiptsError::StateFile {
            action: "creating the directory of",
            path: state_dir.to_owned(),
            source,
        })?;
        let path = state_path(state_dir, &run_id);
        let inner = Inner {
            owner: process::own_identity()?,
            resources: vec![Resource::StateFile { path: path.clone() }],
            state_path: Some(path),
            run_id,
            options: TeardownOptions::default(),
        };
        inner.persist()?;
        Ok(Registry::from_inner(inner))
    }

    fn from_inner(inner: Inner) -> Registry {
        Registry {
            inner: Arc::new(Mutex::new(inner)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Changes the teardown bounds (grace period before SIGKILL, ...).
    pub fn set_options(&self, options: TeardownOptions) {
        self.lock().options = options;
    }

    /// The run id.
    pub fn run_id(&self) -> RunId {
        self.lock().run_id.clone()
    }

    /// The state file, if any.
    pub fn state_path(&self) -> Option<PathBuf> {
        self.lock().state_path.clone()
    }

    /// The registered resources, in registration order.
    pub fn resources(&self) -> Vec<Resource> {
        self.lock().resources.clone()
    }

    /// Registers a resource and rewrites the state file. A namespace must be
    /// named `nl-<this run id>-…`.
    pub fn register(&self, resource: Resource) -> Result<(), ReceiptsError> {
        let mut inner = self.lock();
        if let Resource::Namespace { name } = &resource {
            if !OwnedName::belongs_to(name, &inner.run_id) {
                return Err(ReceiptsError::Malformed {
                    path: inner.state_path.clone().unwrap_or_default(),
                    reason: format!(
                        "namespace {name:?} is not named nl-{}-… so it cannot be registered",
                        inner.run_id
                    ),
                });
            }
        }
        if !inner.resources.contains(&resource) {
            inner.resources.push(resource);
            inner.persist()?;
        }
        Ok(())
    }

    /// Registers namespace `name` (register it before creating it).
    pub fn register_namespace(&self, name: &str) -> Result<Resource, ReceiptsError> {
        let r = Resource::Namespace {
            name: name.to_owned(),
        };
        self.register(r.clone())?;
        Ok(r)
    }

    /// Registers child process `pid` (its start time is read now).
    pub fn register_child(&self, pid: i32, label: &str) -> Result<Resource, ReceiptsError> {
        let id = process::identify(pid)?;
        let r = Resource::Child {
            pid,
            start_time: id.start_time,
            label: label.to_owned(),
        };
        self.register(r.clone())?;
        Ok(r)
    }

    /// Registers a guest-kernel process `pid`.
    pub fn register_guest(&self, pid: i32) -> Result<Resource, ReceiptsError> {
        let id = process::identify(pid)?;
        let r = Resource::Guest {
            pid,
            start_time: id.start_time,
        };
        self.register(r.clone())?;
        Ok(r)
    }

    /// Forgets a resource that was removed by other means (e.g. a child
    /// that was waited for). Returns whether it was registered.
    pub fn forget(&self, resource: &Resource) -> Result<bool, ReceiptsError> {
        let mut inner = self.lock();
        let before = inner.resources.len();
        inner.resources.retain(|r| r != resource);
        let removed = inner.resources.len() != before;
        if removed {
            inner.persist()?;
        }
        Ok(removed)
    }

    /// Tears down the registered resources matching `which` (never the
    /// state file), in teardown order, and unregisters those that are gone.
    /// Use at the end of a scenario.
    pub fn release(
        &self,
        which: impl Fn(&Resource) -> bool,
        clock: &dyn Clock,
    ) -> Vec<CleanupReceipt> {
        self.lock().teardown_where(
            |r| !matches!(r, Resource::StateFile { .. }) && which(r),
            clock,
        )
    }

    /// Tears down everything, the state file last. The state file is
    /// removed only if every other step succeeded; otherwise it is kept
    /// listing what is left, for `cleanup` to retry.
    pub fn teardown(&self, clock: &dyn Clock) -> Vec<CleanupReceipt> {
        self.lock().teardown_all(clock)
    }
}

impl Inner {
    fn persist(&self) -> Result<(), ReceiptsError> {
        let Some(path) = &self.state_path else {
            return Ok(());
        };
        write_state(
            path,
            &RunState {
                schema: STATE_SCHEMA,
                run_id: self.run_id.clone(),
                owner: self.owner,
                resources: self.resources.clone(),
            },
        )
    }

    fn teardown_where(
        &mut self,
        which: impl Fn(&Resource) -> bool,
        clock: &dyn Clock,
    ) -> Vec<CleanupReceipt> {
        let chosen: Vec<Resource> = self
            .resources
            .iter()
            .filter(|r| which(r))
            .cloned()
            .collect();
        let mut receipts = Vec::new();
        for r in teardown_order(&chosen) {
            let (action, outcome) = teardown_one(&r, &self.run_id, &self.options);
            if outcome.is_ok() {
                self.resources.retain(|x| x != &r);
            }
            receipts.push(CleanupReceipt::new(r, action, outcome, clock.now()));
        }
        if let Err(e) = self.persist() {
            eprintln!("netlab-receipts: {e}");
        }
        receipts
    }

    pub(crate) fn teardown_all(&mut self, clock: &dyn Clock) -> Vec<CleanupReceipt> {
        let mut receipts = self.teardown_where(|r| !matches!(r, Resource::StateFile { .. }), clock);
        let failed = receipts.iter().filter(|r| !r.outcome.is_ok()).count();
        let state_files: Vec<Resource> = self
            .resources
            .iter()
            .filter(|r| matches!(r, Resource::StateFile { .. }))
            .cloned()
            .collect();
        for sf in state_files {
            if failed == 0 {
                let (action, outcome) = teardown_one(&sf, &self.run_id, &self.options);
                if outcome.is_ok() {
                    self.resources.retain(|x| x != &sf);
                }
                receipts.push(CleanupReceipt::new(sf, action, outcome, clock.now()));
            } else {
                receipts.push(CleanupReceipt::new(
                    sf,
                    Action::None,
                    TeardownOutcome::Failed {
                        error: format!(
                            "kept: {failed} resource(s) could not be removed; `orchestrator cleanup` retries"
                        ),
                    },
                    clock.now(),
                ));
            }
        }
        if self.resources.is_empty() {
            self.state_path = None;
        }
        receipts
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if self.resources.is_empty() {
            return;
        }
        for r in self.teardown_all(&SystemClock) {
            eprintln!("cleanup receipt: {r}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_rejects_foreign_namespaces_and_keeps_state_in_sync() {
        let tmp = tempfile::Builder::new()
            .prefix("netlab-reg-unit-")
            .tempdir()
            .unwrap();
        let dir = tmp.path().to_path_buf();
        let run = RunId::parse("c0ffee").unwrap();
        let reg = Registry::with_state_dir(run.clone(), &dir).unwrap();
        let path = reg.state_path().unwrap();
        assert!(reg.register_namespace("blue").is_err());
        assert!(reg.register_namespace("nl-c0ffef-1-a").is_err());
        reg.register_namespace("nl-c0ffee-unit-a").unwrap();
        let state = crate::state::read_state(&path).unwrap();
        assert_eq!(state.run_id, run);
        assert_eq!(state.resources.len(), 2);
        assert_eq!(state.owner, process::own_identity().unwrap());
        // absent namespace: already gone; then the state file is removed
        let receipts = reg.teardown(&SystemClock);
        assert_eq!(receipts.len(), 2);
        assert_eq!(receipts[0].outcome, TeardownOutcome::AlreadyGone);
        assert_eq!(receipts[1].action, Action::RemoveStateFile);
        assert!(!path.exists());
        assert!(reg.resources().is_empty());
        assert!(reg.teardown(&SystemClock).is_empty(), "idempotent");
        let _ = std::fs::remove_dir(&dir);
    }
}
