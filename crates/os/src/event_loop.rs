//! One `poll` loop serving several handlers until a hard end time or a stop
//! flag (B's event loop, method §3–§4).
//!
//! The loop owns the waiting: it asks each [`Handler`] for the descriptors
//! it waits on, polls them all at once (never longer than the time left,
//! rounded up to the next millisecond so it does not spin just before the
//! end, and never longer than [`STOP_CHECK`] when a stop flag is watched),
//! then tells each handler, in the order given, which of its descriptors are
//! ready. A [`Wake`] served beside them ends a wait as soon as a stop flag
//! is set. What a handler does with a ready descriptor (echo a datagram,
//! accept, receive) is its own business; the order of the handlers is the
//! caller's priority (B puts the probe's echoes before the TCP receiver, so
//! a busy flow delays an echo by at most one receiver turn).
//!
//! ```
//! use std::ops::ControlFlow;
//! use std::os::fd::{AsFd, BorrowedFd};
//! use std::time::{Duration, Instant};
//! use netlab_os::event_loop::{self, Handler};
//!
//! struct Counter(std::net::UdpSocket, u32);
//! impl Handler for Counter {
//!     fn fds<'a>(&'a self, fds: &mut Vec<BorrowedFd<'a>>) {
//!         fds.push(self.0.as_fd());
//!     }
//!     fn ready(&mut self, _readable: &[bool]) -> ControlFlow<()> {
//!         self.1 += 1;
//!         ControlFlow::Continue(())
//!     }
//! }
//! let mut c = Counter(std::net::UdpSocket::bind("127.0.0.1:0")?, 0);
//! let end = event_loop::serve(&mut [&mut c], Instant::now() + Duration::from_millis(20), None)?;
//! assert!(!end.stopped_early && !end.aborted);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

/// Longest single `poll` wait when a stop flag is watched: the loop sees a
/// set flag within this.
pub const STOP_CHECK: Duration = Duration::from_millis(50);

/// A handler that ends the loop's wait at once when its [`Waker`] is
/// woken, so a stop flag set just before is seen now rather than within
/// [`STOP_CHECK`]: the stopper sets the flag, then wakes; the loop looks
/// at the flag before every wait. Serving it only empties its socket.
#[derive(Debug)]
pub struct Wake(UnixStream);

/// The other end of a [`Wake`]: cheap to clone, usable from any thread.
#[derive(Debug, Clone)]
pub struct Waker(Arc<UnixStream>);

impl Wake {
    /// A connected pair: the handler for the loop, the waker for the stopper.
    pub fn pair() -> io::Result<(Wake, Waker)> {
        let (rx, tx) = UnixStream::pair()?;
        rx.set_nonblocking(true)?;
        tx.set_nonblocking(true)?;
        Ok((Wake(rx), Waker(Arc::new(tx))))
    }
}

impl Waker {
    /// Makes the loop's [`Wake`] readable. A full socket is already
    /// readable, and a loop that has ended has nobody to wake: neither is
    /// an error.
    pub fn wake(&self) {
        let _ = (&*self.0).write(&[1]);
    }
}

impl Handler for Wake {
    fn fds<'a>(&'a self, fds: &mut Vec<BorrowedFd<'a>>) {
        fds.push(self.0.as_fd());
    }

    fn ready(&mut self, readable: &[bool]) -> ControlFlow<()> {
        if readable.first() == Some(&true) {
            let mut b = [0u8; 64];
            while matches!((&self.0).read(&mut b), Ok(n) if n > 0) {}
        }
        ControlFlow::Continue(())
    }
}

/// Something the loop serves: a few descriptors waited on for reading, and
/// what to do when they are ready.
pub trait Handler {
    /// Appends the descriptors to wait on (`POLLIN`) for this turn; none is
    /// fine (a handler that has stopped, or has nothing open yet).
    fn fds<'a>(&'a self, fds: &mut Vec<BorrowedFd<'a>>);

    /// Called after every wakeup with, for each descriptor appended by the
    /// last [`Handler::fds`] in that order, whether `poll` reported any
    /// event on it (readable, error or hang-up). `Break` ends the loop at
    /// once (the handler keeps the reason for its caller).
    fn ready(&mut self, readable: &[bool]) -> ControlFlow<()>;
}

/// How and when the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopEnd {
    /// When the loop stopped (read right after it left the loop, before the
    /// caller closes anything).
    pub closed: Instant,
    /// The stop flag ended it before the end time.
    pub stopped_early: bool,
    /// A handler ended it ([`ControlFlow::Break`]).
    pub aborted: bool,
    /// `poll` returns (for diagnosis).
    pub wakeups: u64,
}

/// Serves `handlers` until `end`, until `stop` is set (seen within
/// [`STOP_CHECK`]) or until a handler breaks. The only error is a failed
/// `poll` (an interrupted one is retried).
pub fn serve(
    handlers: &mut [&mut dyn Handler],
    end: Instant,
    stop: Option<&AtomicBool>,
) -> io::Result<LoopEnd> {
    let mut wakeups = 0;
    let (mut stopped_early, mut aborted) = (false, false);
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            stopped_early = true;
            break;
        }
        let mut wait = end - now;
        if stop.is_some() {
            wait = wait.min(STOP_CHECK);
        }
        let Some(readable) = wait_once(handlers, wait)? else {
            continue; // EINTR
        };
        wakeups += 1;
        let mut at = 0;
        for (h, &n) in handlers.iter_mut().zip(&readable.counts) {
            let mine = &readable.flags[at..at + n];
            at += n;
            if h.ready(mine).is_break() {
                aborted = true;
                break;
            }
        }
        if aborted {
            break;
        }
    }
    Ok(LoopEnd {
        closed: Instant::now(),
        stopped_early,
        aborted,
        wakeups,
    })
}

/// What one `poll` reported: per handler how many descriptors it gave, and
/// per descriptor (in the same order) whether it had an event.
struct Readiness {
    counts: Vec<usize>,
    flags: Vec<bool>,
}

/// One `poll` over every handler's descriptors for at most `wait`; `None`
/// when it was interrupted.
fn wait_once(handlers: &[&mut dyn Handler], wait: Duration) -> io::Result<Option<Readiness>> {
    // Round up so we do not spin just before the end.
    let ms = wait.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
    let timeout = PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX);
    let mut fds = Vec::with_capacity(4);
    let mut counts = Vec::with_capacity(handlers.len());
    for h in handlers {
        let before = fds.len();
        h.fds(&mut fds);
        counts.push(fds.len() - before);
    }
    let mut polled: Vec<PollFd<'_>> = fds
        .iter()
        .map(|fd| PollFd::new(*fd, PollFlags::POLLIN))
        .collect();
    match poll(&mut polled, timeout) {
        Ok(_) => {}
        Err(nix::errno::Errno::EINTR) => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let flags = polled
        .iter()
        .map(|p| p.revents().is_some_and(|r| !r.is_empty()))
        .collect();
    Ok(Some(Readiness { counts, flags }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::UdpSocket;
    use std::os::fd::AsFd;

    /// Drains its socket and records the order it was called in.
    struct Recorder {
        sock: Option<UdpSocket>,
        name: char,
        seen: std::rc::Rc<std::cell::RefCell<String>>,
        break_after: Option<u32>,
        turns: u32,
    }

    impl Recorder {
        fn new(name: char, seen: &std::rc::Rc<std::cell::RefCell<String>>) -> Self {
            let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
            sock.set_nonblocking(true).unwrap();
            Recorder {
                sock: Some(sock),
                name,
                seen: seen.clone(),
                break_after: None,
                turns: 0,
            }
        }
    }

    impl Handler for Recorder {
        fn fds<'a>(&'a self, fds: &mut Vec<BorrowedFd<'a>>) {
            if let Some(s) = &self.sock {
                fds.push(s.as_fd());
            }
        }
        fn ready(&mut self, readable: &[bool]) -> ControlFlow<()> {
            assert_eq!(readable.len(), usize::from(self.sock.is_some()));
            if readable.first() == Some(&true) {
                let mut b = [0u8; 16];
                while self.sock.as_ref().unwrap().recv(&mut b).is_ok() {}
                self.seen.borrow_mut().push(self.name);
                self.turns += 1;
                if self.break_after == Some(self.turns) {
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }
    }

    #[test]
    fn ready_handlers_are_called_in_the_given_order_and_the_end_is_kept() {
        let seen = Default::default();
        let (mut a, mut b) = (Recorder::new('a', &seen), Recorder::new('b', &seen));
        let c = UdpSocket::bind("127.0.0.1:0").unwrap();
        // b is sent to first; a still comes first in the loop.
        c.send_to(b"x", b.sock.as_ref().unwrap().local_addr().unwrap())
            .unwrap();
        c.send_to(b"x", a.sock.as_ref().unwrap().local_addr().unwrap())
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
        let start = Instant::now();
        let end = serve(
            &mut [&mut a, &mut b],
            start + Duration::from_millis(120),
            None,
        )
        .unwrap();
        assert_eq!(seen.borrow().as_str(), "ab");
        assert!(end.closed >= start + Duration::from_millis(120));
        assert!(end.closed < start + Duration::from_millis(400));
        assert!(!end.stopped_early && !end.aborted);
        assert!(end.wakeups >= 2, "{end:?}");
    }

    #[test]
    fn a_breaking_handler_ends_the_loop_before_later_handlers_run() {
        let seen = Default::default();
        let (mut a, mut b) = (Recorder::new('a', &seen), Recorder::new('b', &seen));
        a.break_after = Some(1);
        let c = UdpSocket::bind("127.0.0.1:0").unwrap();
        for r in [&a, &b] {
            c.send_to(b"x", r.sock.as_ref().unwrap().local_addr().unwrap())
                .unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
        let start = Instant::now();
        let end = serve(&mut [&mut a, &mut b], start + Duration::from_secs(30), None).unwrap();
        assert!(end.aborted && !end.stopped_early);
        assert_eq!(seen.borrow().as_str(), "a");
        assert!(end.closed < start + Duration::from_secs(1));
    }

    #[test]
    fn a_wake_ends_the_wait_at_once_and_is_emptied_by_serving_it() {
        let (mut wake, waker) = Wake::pair().unwrap();
        waker.clone().wake();
        waker.wake();
        // Woken, the wait returns at once however long it may be.
        let r = wait_once(&[&mut wake], Duration::from_secs(600))
            .unwrap()
            .unwrap();
        assert_eq!((r.counts, r.flags), (vec![1], vec![true]));
        assert!(wake.ready(&[true]).is_continue());
        // Served, it is quiet again.
        let r = wait_once(&[&mut wake], Duration::ZERO).unwrap().unwrap();
        assert_eq!(r.flags, vec![false]);
        // A stopper sets the flag, then wakes: the loop ends on it.
        let stop = AtomicBool::new(true);
        waker.wake();
        let end = serve(
            &mut [&mut wake],
            Instant::now() + Duration::from_secs(600),
            Some(&stop),
        )
        .unwrap();
        assert!(end.stopped_early && end.wakeups == 0);
    }

    #[test]
    fn the_stop_flag_is_seen_within_the_stop_check() {
        let seen = Default::default();
        let mut a = Recorder::new('a', &seen);
        a.sock = None; // nothing to wait on: the loop still waits and ends
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            s2.store(true, Ordering::Relaxed);
        });
        let start = Instant::now();
        let end = serve(&mut [&mut a], start + Duration::from_secs(30), Some(&stop)).unwrap();
        setter.join().unwrap();
        assert!(end.stopped_early && !end.aborted);
        let took = end.closed - start;
        assert!(took >= Duration::from_millis(100), "{took:?}");
        assert!(
            took < Duration::from_millis(100) + STOP_CHECK * 4,
            "{took:?}"
        );
    }
}
