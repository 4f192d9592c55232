//! The probe on real UDP sockets: with [`crate::clock`], the only code in
//! this crate that does I/O.
//!
//! [`echo`] is the non-blocking echo responder and its handler for B's
//! event loop;
//! [`client`] runs the pure [`crate::schedule::ProbeClient`] against a real
//! connected UDP socket; [`iso`] runs the isochronous
//! [`crate::iso::IsoClient`].

pub mod client;
pub mod echo;
pub mod iso;

/// Tests' responder thread: drains `echo` until `done` (at most 10 s) and
/// hands it back, with its counters and receipts.
#[cfg(test)]
pub(crate) fn serve_echo_until(
    mut echo: echo::EchoResponder,
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<echo::EchoResponder> {
    use nix::poll::{ppoll, PollFd, PollFlags};
    use nix::sys::time::TimeSpec;
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};
    std::thread::spawn(move || {
        let t = Instant::now();
        while !done.load(Ordering::Relaxed) && t.elapsed() < Duration::from_secs(10) {
            let mut fds = [PollFd::new(echo.as_fd(), PollFlags::POLLIN)];
            let _ = ppoll(
                &mut fds,
                Some(TimeSpec::from_duration(Duration::from_millis(20))),
                None,
            );
            echo.drain().unwrap();
        }
        echo
    })
}
