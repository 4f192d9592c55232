//! SIGINT/SIGTERM: tear down every watched registry, print the receipts,
//! exit non-zero (130 for SIGINT, 143 for SIGTERM).
//!
//! Two modes. By default a signal tears down at once. After
//! [`set_graceful`], the first signal only records itself ([`interrupted`]):
//! the run's own loop notices, stops the scenario, keeps its samples and
//! receipts, writes its results and exits; if it has not exited within the
//! grace period, or a second signal arrives, the hard teardown runs anyway,
//! so a signal can never leave the run hanging.

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, Weak};
use std::time::Duration;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::clock::SystemClock;
use crate::registry::{Inner, Registry};
use crate::ReceiptsError;

static WATCHED: OnceLock<Mutex<Vec<Weak<Mutex<Inner>>>>> = OnceLock::new();

/// Exit status after a signal: 128 + the signal number.
pub fn exit_code_for(signal: i32) -> i32 {
    128 + signal
}

/// Installs (once per process) a SIGINT/SIGTERM handler thread and adds
/// `registry` to the registries it tears down. On a signal: every watched
/// registry that still exists is torn down, each receipt is printed to
/// stderr as `cleanup receipt: <json>`, and the process exits with
/// [`exit_code_for`] the signal.
pub fn install_signal_teardown(registry: &Registry) -> Result<(), ReceiptsError> {
    let mut first_error = None;
    let watched = WATCHED.get_or_init(|| {
        match Signals::new([SIGINT, SIGTERM]) {
            Ok(mut signals) => {
                let spawned = std::thread::Builder::new()
                    .name("netlab-signals".into())
                    .spawn(move || {
                        for sig in signals.forever() {
                            on_signal(sig);
                        }
                    });
                if let Err(e) = spawned {
                    first_error = Some(e);
                }
            }
            Err(e) => first_error = Some(e),
        }
        Mutex::new(Vec::new())
    });
    if let Some(e) = first_error {
        return Err(ReceiptsError::Signal(e));
    }
    let mut list = watched.lock().unwrap_or_else(|p| p.into_inner());
    list.retain(|w| w.strong_count() > 0);
    list.push(std::sync::Arc::downgrade(&registry.inner));
    Ok(())
}

/// The first signal received in graceful mode (0: none).
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);
/// Grace period in ms; 0 means a signal tears down at once.
static GRACE_MS: AtomicU64 = AtomicU64::new(0);

/// Switches to graceful mode: the first SIGINT/SIGTERM is only recorded
/// (see [`interrupted`]); the hard teardown follows `grace` later unless the
/// process has exited, or at once on a second signal.
pub fn set_graceful(grace: Duration) {
    GRACE_MS.store(grace.as_millis().max(1) as u64, Ordering::SeqCst);
}

/// The signal that interrupted the run, if one did (graceful mode).
pub fn interrupted() -> Option<i32> {
    match INTERRUPTED.load(Ordering::SeqCst) {
        0 => None,
        sig => Some(sig),
    }
}

/// Records an interrupt that arrived another way than as a signal to this
/// process (e.g. the host asking a run inside the guest to stop): the same
/// as a first signal in graceful mode, without the grace timer (the asking
/// side keeps its own). Returns false if an interrupt was already recorded.
pub fn request_interrupt(sig: i32) -> bool {
    INTERRUPTED
        .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
}

/// `SIGINT` or `SIGTERM`.
pub fn signal_name(sig: i32) -> &'static str {
    if sig == SIGINT {
        "SIGINT"
    } else if sig == SIGTERM {
        "SIGTERM"
    } else {
        "signal"
    }
}

fn on_signal(sig: i32) {
    let grace = GRACE_MS.load(Ordering::SeqCst);
    if grace > 0
        && INTERRUPTED
            .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    {
        eprintln!(
            "netlab: {} received: stopping the current scenario, keeping what it measured and \
             cleaning up (at most {:.0} s; a second signal tears down at once)",
            signal_name(sig),
            grace as f64 / 1000.0
        );
        let spawned = std::thread::Builder::new()
            .name("netlab-grace".into())
            .spawn(move || {
                std::thread::sleep(Duration::from_millis(grace));
                eprintln!("netlab: the run did not finish within its grace period");
                hard_teardown(sig)
            });
        if spawned.is_ok() {
            return;
        }
    }
    hard_teardown(interrupted().unwrap_or(sig))
}

fn hard_teardown(sig: i32) -> ! {
    let name = signal_name(sig);
    eprintln!("netlab: {name} received, tearing down what this run owns");
    let registries: Vec<_> = WATCHED
        .get()
        .map(|m| {
            m.lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .filter_map(Weak::upgrade)
                .collect()
        })
        .unwrap_or_default();
    for inner in registries {
        let receipts = inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .teardown_all(&SystemClock);
        for r in receipts {
            eprintln!(
                "cleanup receipt: {}",
                serde_json::to_string(&r).unwrap_or_default()
            );
        }
    }
    std::process::exit(exit_code_for(sig));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes() {
        assert_eq!(exit_code_for(SIGINT), 130);
        assert_eq!(exit_code_for(SIGTERM), 143);
    }
}
