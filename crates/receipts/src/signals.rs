//! SIGINT/SIGTERM: tear down every watched registry, print the receipts,
//! exit non-zero (130 for SIGINT, 143 for SIGTERM).

use std::sync::{Mutex, OnceLock, Weak};

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
                        if let Some(sig) = signals.forever().next() {
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

fn on_signal(sig: i32) -> ! {
    let name = if sig == SIGINT { "SIGINT" } else { "SIGTERM" };
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
