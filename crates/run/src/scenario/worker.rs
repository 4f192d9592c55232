//! Worker threads of a scenario: each runs inside one namespace, can be
//! asked to stop, and is joined into a typed result. One [`Stop`] type for
//! all of them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use netlab_os::event_loop::{Wake, Waker};
use netlab_os::threads::Pooled;
use netlab_topology::netns::Netns;

use super::error::ScenarioError;

/// A request to stop, shared between the runner and one worker: a flag,
/// and the wakes of the worker's event loops, woken once it is set.
#[derive(Debug, Clone, Default)]
pub struct Stop {
    flag: Arc<AtomicBool>,
    wakers: Arc<Mutex<Vec<Waker>>>,
}

impl Stop {
    /// A stop not yet requested.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Asks the worker to stop: it ends at its next check, or at once
    /// where it waits in an event loop that serves one of its [`Stop::wake`]s.
    pub fn request(&self) {
        self.flag.store(true, Ordering::SeqCst);
        let wakers = self.wakers.lock().unwrap_or_else(|p| p.into_inner());
        for w in wakers.iter() {
            w.wake();
        }
    }

    /// The flag itself, for the crates' loops that take `&AtomicBool`.
    pub fn flag(&self) -> &AtomicBool {
        &self.flag
    }

    /// A handler for the worker's event loop that ends its wait as soon
    /// as the stop is requested (method §3.5). `None` when no socket pair
    /// could be made: the loop then sees the flag within its stop check.
    pub fn wake(&self) -> Option<Wake> {
        let (wake, waker) = Wake::pair().ok()?;
        let mut wakers = self.wakers.lock().unwrap_or_else(|p| p.into_inner());
        wakers.push(waker);
        Some(wake)
    }
}

/// A running worker: its name, its stop and its thread.
#[derive(Debug)]
pub struct Worker<T> {
    name: &'static str,
    stop: Stop,
    thread: Pooled<T>,
}

impl<T, E: std::fmt::Display> Worker<Result<T, E>> {
    /// Asks the worker to stop; [`Worker::join`] then waits for it.
    pub fn stop(&self) {
        self.stop.request();
    }

    /// Whether its thread has ended.
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Waits for the thread; its error or panic becomes a [`ScenarioError`]
    /// naming the worker.
    pub fn join(self) -> Result<T, ScenarioError> {
        match self.thread.join() {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(ScenarioError::Worker {
                worker: self.name,
                message: e.to_string(),
            }),
            Err(_) => Err(ScenarioError::WorkerPanicked { worker: self.name }),
        }
    }

    /// Asks it to stop, then waits for it.
    pub fn stop_and_join(self) -> Result<T, ScenarioError> {
        self.stop();
        self.join()
    }
}

/// Starts `work` on a thread named `thread_name` inside `ns`; `name` is how
/// errors call it. `work` gets the worker's [`Stop`].
pub fn spawn_in<T, E, F>(
    ns: &Netns,
    name: &'static str,
    thread_name: &str,
    work: F,
) -> Result<Worker<Result<T, E>>, ScenarioError>
where
    T: Send + 'static,
    E: Send + 'static,
    F: FnOnce(&Stop) -> Result<T, E> + Send + 'static,
{
    let stop = Stop::new();
    let theirs = stop.clone();
    let thread = ns
        .spawn(thread_name, move || work(&theirs))
        .map_err(|source| ScenarioError::Spawn {
            worker: name,
            source: Box::new(source),
        })?;
    Ok(Worker { name, stop, thread })
}

/// A worker made ready before t0, inside its namespace, and waiting for
/// it: handing a job to a thread and entering a namespace take time (a
/// pooled thread about 0.3 ms under user-mode Linux, a new one 2-18 ms),
/// so a scenario readies them before its clock starts and only wakes
/// them at their mark (method §3.3, §3.5). Its release hands it `P`: t0 for most, B's bound loop (which
/// sets t0) for B's. Dropped unreleased (the scenario ended or failed
/// first), it tells its thread, which ends at once having done nothing,
/// and joins it.
pub struct Ready<T, P = Instant> {
    release: Option<mpsc::Sender<P>>,
    worker: Option<Worker<Result<T, String>>>,
}

/// What a ready worker answers when it was never released.
pub const NOT_RELEASED: &str = "the scenario ended before this worker's start";

impl<T: Send + 'static, P: Send + 'static> Ready<T, P> {
    /// Starts `work`'s thread in `ns` (as [`spawn_in`]); it waits at most
    /// `bound` for [`Ready::release`] and then runs `work` with what the
    /// release handed it.
    pub fn spawn<F>(
        ns: &Netns,
        name: &'static str,
        thread_name: &str,
        bound: Duration,
        work: F,
    ) -> Result<Ready<T, P>, ScenarioError>
    where
        F: FnOnce(P, &Stop) -> Result<T, String> + Send + 'static,
    {
        let (release, released) = mpsc::channel::<P>();
        let worker = spawn_in(ns, name, thread_name, move |stop| {
            match released.recv_timeout(bound) {
                Ok(given) => work(given, stop),
                Err(RecvTimeoutError::Disconnected) => Err(NOT_RELEASED.to_string()),
                Err(RecvTimeoutError::Timeout) => {
                    Err(format!("not released within {} s", bound.as_secs()))
                }
            }
        })?;
        Ok(Ready {
            release: Some(release),
            worker: Some(worker),
        })
    }
}

impl<T, P> Ready<T, P> {
    /// Releases it with `given` (the scenario's t0, or B's bound loop):
    /// the worker to join.
    pub fn release(mut self, given: P) -> Option<Worker<Result<T, String>>> {
        if let Some(tx) = self.release.take() {
            // A thread gone already (it panicked) shows when it is joined.
            let _ = tx.send(given);
        }
        self.worker.take()
    }
}

impl<T, P> Drop for Ready<T, P> {
    fn drop(&mut self) {
        drop(self.release.take());
        if let Some(w) = self.worker.take() {
            // Unreleased, it can only answer NOT_RELEASED (or its panic).
            let _ = w.thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_reaches_every_clone() {
        let stop = Stop::new();
        let theirs = stop.clone();
        let t = std::thread::spawn(move || {
            let end = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while !theirs.flag().load(Ordering::SeqCst) && std::time::Instant::now() < end {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            theirs.flag().load(Ordering::SeqCst)
        });
        stop.request();
        assert!(t.join().unwrap());
    }

    /// A worker on a pooled thread in the process's own namespace
    /// (spawn_in needs a namespace, so root).
    fn local<T: Send + 'static>(
        name: &'static str,
        work: impl FnOnce(&Stop) -> Result<T, String> + Send + 'static,
    ) -> Worker<Result<T, String>> {
        let stop = Stop::new();
        let theirs = stop.clone();
        let thread = netlab_os::threads::spawn_pooled(name, None, move || work(&theirs)).unwrap();
        Worker { name, stop, thread }
    }

    #[test]
    fn join_names_the_worker_in_its_error_or_panic() {
        let w = local("probe", |stop| {
            let end = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while !stop.flag().load(Ordering::SeqCst) && std::time::Instant::now() < end {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Ok(7)
        });
        assert_eq!(w.stop_and_join().unwrap(), 7);
        let e = local::<()>("capture", |_| Err("socket closed".into()))
            .join()
            .unwrap_err();
        assert_eq!(e.to_string(), "capture: socket closed");
        let e = local::<()>("receiver", |_| panic!("boom"))
            .join()
            .unwrap_err();
        assert_eq!(e.to_string(), "receiver: thread panicked");
    }
}
