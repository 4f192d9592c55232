//! The run's own threads and registry: the owned run id with the
//! SIGINT/SIGTERM teardown in graceful mode, the watchdog of the whole
//! run, and the interrupt file through which a signal reaches the run
//! inside the guest.

use std::path::{Path, PathBuf};
use std::time::Duration;

use netlab_receipts::{install_signal_teardown, Registry, SystemClock, DEFAULT_STATE_DIR};
use netlab_topology::RunId;

/// Grace after a signal on the kernel that runs the scenarios: the current
/// scenario stops within 0.1 s, its workers join within a few seconds, then
/// results, summary and report are written.
pub const GRACE: Duration = Duration::from_secs(30);
/// Grace for the host while a guest finishes the same steps inside.
pub const GUEST_GRACE: Duration = Duration::from_secs(90);
/// In `--out`: the host writes the signal number here to interrupt the run
/// inside the guest (the folder is shared with it).
pub const INTERRUPT_FILE: &str = ".netlab-interrupt";

/// A new run id and its registry of owned resources, with a state file and
/// the SIGINT/SIGTERM teardown installed in graceful mode: a first signal
/// lets the run stop its scenario, keep what it measured and write its
/// results; the hard teardown follows after `grace` or a second signal.
pub fn owned_run(grace: Duration) -> Result<(RunId, Registry), String> {
    let run_id = RunId::random();
    let registry = Registry::with_state_dir(run_id.clone(), Path::new(DEFAULT_STATE_DIR))
        .map_err(|e| format!("creating the run's state file: {e}"))?;
    install_signal_teardown(&registry)
        .map_err(|e| format!("installing the SIGINT/SIGTERM teardown: {e}"))?;
    netlab_receipts::set_graceful(grace);
    Ok((run_id, registry))
}

/// A thread of the run that must not outlive it: dropping it (the run
/// over) tells the thread to stop, and it ends without acting. An
/// embedder may run several sessions in one process: a later one is never
/// ended by an earlier one's watchdog.
#[must_use = "dropping it stops the thread at once"]
#[derive(Debug)]
pub struct RunThread {
    stop: netlab_os::StopFlag,
}

impl RunThread {
    fn new() -> RunThread {
        RunThread {
            stop: netlab_os::StopFlag::new(),
        }
    }
}

impl Drop for RunThread {
    fn drop(&mut self) {
        self.stop.stop();
    }
}

/// Inside the guest: a request the host wrote before the guest even
/// booted stops the run before its first scenario; later ones are
/// watched for until the returned guard is dropped.
pub fn interrupt_from_host(program: &str, out: &Path) -> RunThread {
    let file = out.join(INTERRUPT_FILE);
    if let Ok(text) = std::fs::read_to_string(&file) {
        netlab_receipts::request_interrupt(text.trim().parse().unwrap_or(nix::libc::SIGINT));
    }
    let guard = RunThread::new();
    watch_interrupt_file(program, file, guard.stop.clone());
    guard
}

/// Inside the guest: watches `--out` for the host's interrupt request,
/// every 100 ms until `stop`.
fn watch_interrupt_file(program: &str, path: PathBuf, stop: netlab_os::StopFlag) {
    let spawned = std::thread::Builder::new()
        .name("interrupt-watch".into())
        .spawn(move || {
            while !stop.sleep(Duration::from_millis(100)) {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    let sig = text.trim().parse().unwrap_or(nix::libc::SIGINT);
                    netlab_receipts::request_interrupt(sig);
                    return;
                }
            }
        });
    if let Err(e) = spawned {
        eprintln!("{program}: watching for the host's interrupt: {e}");
    }
}

/// The whole run's computed deadline: past it, whatever is still running,
/// the run tears down what it owns (with receipts) and exits 1. Dropping
/// the returned guard (the run ended in time) stops the watchdog.
pub fn start_watchdog(program: &str, registry: &Registry, deadline: Duration) -> RunThread {
    let guard = RunThread::new();
    let registry = registry.clone();
    let name = program.to_string();
    let spawned = spawn_watchdog(deadline, guard.stop.clone(), move || {
        eprintln!(
            "{name}: the run exceeded its computed deadline of {:.0}s; tearing down what it owns",
            deadline.as_secs_f64()
        );
        for r in registry.teardown(&SystemClock) {
            eprintln!(
                "cleanup receipt: {}",
                serde_json::to_string(&r).unwrap_or_default()
            );
        }
        std::process::exit(1);
    });
    if let Err(e) = spawned {
        eprintln!("{program}: starting the run watchdog: {e}");
    }
    guard
}

/// The watchdog's thread: `on_expiry` runs once `deadline` passes unless
/// `stop` is raised first. The thread ends with whether it acted.
fn spawn_watchdog(
    deadline: Duration,
    stop: netlab_os::StopFlag,
    on_expiry: impl FnOnce() + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<bool>> {
    std::thread::Builder::new()
        .name("run-watchdog".into())
        .spawn(move || {
            if stop.sleep(deadline) {
                return false;
            }
            on_expiry();
            true
        })
}

/// A signal to this process is passed to the run inside the guest as a
/// file in the shared `--out`, polled every 100 ms until `done`.
pub fn forward_interrupt(
    program: &str,
    file: PathBuf,
    done: netlab_os::StopFlag,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let name = program.to_string();
    std::thread::Builder::new()
        .name("interrupt-forward".into())
        .spawn(move || {
            while !done.sleep(Duration::from_millis(100)) {
                if let Some(sig) = netlab_receipts::interrupted() {
                    if let Err(e) = std::fs::write(&file, sig.to_string()) {
                        eprintln!("{name}: asking the guest to stop: {e}");
                    }
                    return;
                }
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dropped watchdog never acts: its thread ends, at once, without
    /// running what it would do at the deadline.
    #[test]
    fn a_dropped_watchdog_does_not_act() {
        let fired = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = fired.clone();
        let guard = RunThread::new();
        let started = std::time::Instant::now();
        let thread = spawn_watchdog(Duration::from_millis(300), guard.stop.clone(), move || {
            flag.store(true, std::sync::atomic::Ordering::SeqCst)
        })
        .unwrap();
        drop(guard);
        assert!(!thread.join().unwrap(), "the watchdog acted");
        assert!(started.elapsed() < Duration::from_millis(300));
        assert!(!fired.load(std::sync::atomic::Ordering::SeqCst));
    }

    /// A watchdog still held acts once, at its deadline and not before.
    #[test]
    fn a_held_watchdog_acts_at_its_deadline() {
        let fired = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = fired.clone();
        let guard = RunThread::new();
        let started = std::time::Instant::now();
        let thread = spawn_watchdog(Duration::from_millis(200), guard.stop.clone(), move || {
            flag.store(true, std::sync::atomic::Ordering::SeqCst)
        })
        .unwrap();
        assert!(thread.join().unwrap(), "the watchdog did not act");
        assert!(started.elapsed() >= Duration::from_millis(200));
        assert!(fired.load(std::sync::atomic::Ordering::SeqCst));
        drop(guard);
    }

    /// The interrupt watcher stops with its guard: an interrupt file
    /// written after the drop is never read.
    #[test]
    fn a_dropped_interrupt_watcher_reads_no_later_request() {
        let tmp = tempfile::Builder::new()
            .prefix("netlab-watch-")
            .tempdir()
            .unwrap();
        let dir = tmp.path().to_path_buf();
        let guard = interrupt_from_host("test", &dir);
        drop(guard);
        std::thread::sleep(Duration::from_millis(250));
        std::fs::write(dir.join(INTERRUPT_FILE), "15").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let seen = netlab_receipts::interrupted();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(seen, None);
    }
}
