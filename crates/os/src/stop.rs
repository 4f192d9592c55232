//! One stop flag for every stoppable worker: set once, seen by all clones,
//! and waited on without polling.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
struct Inner {
    stopped: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

/// A shared "please stop" flag. Cheap to clone; all clones see
/// [`StopFlag::stop`]. Dereferences to the underlying [`AtomicBool`] for
/// APIs that take `&AtomicBool`.
#[derive(Debug, Clone, Default)]
pub struct StopFlag {
    inner: Arc<Inner>,
}

impl StopFlag {
    /// A flag not yet set.
    pub fn new() -> StopFlag {
        StopFlag::default()
    }

    /// Sets the flag and wakes every [`StopFlag::sleep`].
    pub fn stop(&self) {
        self.inner.stopped.store(true, Ordering::SeqCst);
        let _guard = self.inner.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.inner.wake.notify_all();
    }

    /// Whether the flag is set.
    pub fn is_stopped(&self) -> bool {
        self.inner.stopped.load(Ordering::SeqCst)
    }

    /// Sleeps until `deadline` or until the flag is set, whichever is
    /// first; returns whether the flag is set.
    pub fn sleep_until(&self, deadline: Instant) -> bool {
        let mut guard = self.inner.lock.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if self.is_stopped() {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            guard = match self.inner.wake.wait_timeout(guard, left) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }

    /// Sleeps for `d` or until the flag is set; returns whether it is set.
    pub fn sleep(&self, d: Duration) -> bool {
        self.sleep_until(Instant::now() + d)
    }
}

impl std::ops::Deref for StopFlag {
    type Target = AtomicBool;
    fn deref(&self) -> &AtomicBool {
        &self.inner.stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag_and_stop_wakes_a_sleeper() {
        let flag = StopFlag::new();
        assert!(!flag.is_stopped());
        let t0 = Instant::now();
        assert!(!flag.sleep(Duration::from_millis(20)));
        assert!(t0.elapsed() >= Duration::from_millis(20));
        let other = flag.clone();
        let sleeper = std::thread::spawn(move || {
            let t = Instant::now();
            (other.sleep(Duration::from_secs(10)), t.elapsed())
        });
        std::thread::sleep(Duration::from_millis(30));
        flag.stop();
        let (stopped, slept) = sleeper.join().unwrap();
        assert!(stopped);
        assert!(
            slept < Duration::from_secs(5),
            "woken, not timed out: {slept:?}"
        );
        // as &AtomicBool
        let atomic: &AtomicBool = &flag;
        assert!(atomic.load(Ordering::SeqCst));
        assert!(
            flag.sleep(Duration::from_secs(10)),
            "returns at once once set"
        );
    }
}
