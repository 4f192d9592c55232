//! The path's neighbours resolved before anything is measured: on a
//! just-built A–R–B the first packet each way waits for ARP (through
//! netem too), and a first ARP request lost while a link was still coming
//! up is retried by the kernel only 1 s later (method §11.2).

use std::time::{Duration, Instant};

use crate::addresses::{A_ADDR, B_ADDR};

/// Sends a UDP datagram from A (call inside A) to a port nothing listens
/// on in B, again every `per_try` until B's ICMP port unreachable comes
/// back or `bound` has passed: on the way A, R and B resolve their
/// neighbours (R's ARP toward B and A passes netem too). Returns the time
/// it took and the datagrams sent.
pub fn warm_neighbours(bound: Duration, per_try: Duration) -> std::io::Result<(Duration, u32)> {
    let started = Instant::now();
    let s = std::net::UdpSocket::bind((A_ADDR, 0))?;
    // The discard port: nothing of netlab's listens there.
    s.connect((B_ADDR, 9))?;
    let mut buf = [0u8; 64];
    let mut tries = 0u32;
    loop {
        let left = bound.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("{tries} datagrams, no answer"),
            ));
        }
        s.set_read_timeout(Some(per_try.min(left)))?;
        s.send(b"netlab neighbour warm-up")?;
        tries += 1;
        match s.recv(&mut buf) {
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                return Ok((started.elapsed(), tries))
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
            Ok(_) => {
                return Err(std::io::Error::other(
                    "an unexpected reply on the discard port",
                ))
            }
        }
    }
}
