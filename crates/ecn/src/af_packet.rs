//! The only syscalls of this crate: an AF_PACKET socket bound to one
//! interface, non-blocking headers-only reads, poll, and PACKET_STATISTICS.
//! nix covers the receive buffer (SO_RCVBUFFORCE), the reads (`recvmsg`
//! with MSG_TRUNC and the link-layer address), poll and the interface
//! lookup (via netlab-os); `unsafe` is left only in the two blocks nix has
//! no wrapper for (binding to a `sockaddr_ll`, PACKET_STATISTICS), each
//! allowed on its own with a `// SAFETY:` comment.

use std::io::{self, IoSliceMut};
use std::mem::size_of;
use std::os::fd::{AsFd, AsRawFd};
use std::time::Duration;

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::socket::{recvmsg, setsockopt, sockopt, LinkAddr, MsgFlags};
use socket2::{Domain, Socket, Type};

use crate::EcnError;

const ETH_P_ALL: u16 = 0x0003;
const SOL_PACKET: libc::c_int = 263;
const PACKET_STATISTICS: libc::c_int = 6;

/// `struct tpacket_stats` from `<linux/if_packet.h>`.
#[repr(C)]
#[derive(Default)]
struct TpacketStats {
    tp_packets: u32,
    tp_drops: u32,
}

/// Index of interface `name` in the calling thread's network namespace.
pub(crate) fn ifindex(name: &str) -> Result<u32, EcnError> {
    netlab_os::ifindex(name).map_err(|e| match e {
        netlab_os::SysError::NoSuchInterface { .. } => EcnError::InterfaceNotFound {
            name: name.to_string(),
        },
        other => EcnError::Syscall {
            op: "if_nametoindex",
            source: io::Error::other(other),
        },
    })
}

/// An AF_PACKET/SOCK_RAW socket that receives nothing until [`bind_all`]
/// (protocol 0), so no frame of another interface is ever queued.
pub(crate) fn packet_socket() -> Result<Socket, EcnError> {
    let s = Socket::new(Domain::PACKET, Type::RAW, None).map_err(|e| EcnError::Syscall {
        op: "socket(AF_PACKET, SOCK_RAW, 0)",
        source: e,
    })?;
    s.set_nonblocking(true).map_err(|e| EcnError::Syscall {
        op: "fcntl(O_NONBLOCK) on the capture socket",
        source: e,
    })?;
    Ok(s)
}

/// Sets the receive buffer with SO_RCVBUFFORCE (CAP_NET_ADMIN), falling back
/// to SO_RCVBUF (capped by net.core.rmem_max). Returns the size the kernel
/// reports afterwards.
pub(crate) fn set_rcvbuf(s: &Socket, bytes: usize) -> Result<usize, EcnError> {
    let want = bytes.min(libc::c_int::MAX as usize / 2);
    if setsockopt(s, sockopt::RcvBufForce, &want).is_err() {
        s.set_recv_buffer_size(want)
            .map_err(|e| EcnError::Syscall {
                op: "setsockopt(SO_RCVBUF) on the capture socket",
                source: e,
            })?;
    }
    s.recv_buffer_size().map_err(|e| EcnError::Syscall {
        op: "getsockopt(SO_RCVBUF) on the capture socket",
        source: e,
    })
}

/// Binds to `ifindex` for every ethertype (ETH_P_ALL).
pub(crate) fn bind_all(s: &Socket, ifindex: u32) -> Result<(), EcnError> {
    let sll = libc::sockaddr_ll {
        sll_family: libc::AF_PACKET as u16,
        sll_protocol: ETH_P_ALL.to_be(),
        sll_ifindex: ifindex as i32,
        sll_hatype: 0,
        sll_pkttype: 0,
        sll_halen: 0,
        sll_addr: [0; 8],
    };
    // nix has no public constructor of a `LinkAddr` from its fields.
    #[allow(unsafe_code)]
    // SAFETY: `sll` is a valid, initialised sockaddr_ll that outlives the
    // call, and the length passed is its size.
    let rc = unsafe {
        libc::bind(
            s.as_raw_fd(),
            (&sll as *const libc::sockaddr_ll).cast(),
            size_of::<libc::sockaddr_ll>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(EcnError::Syscall {
            op: "bind(AF_PACKET, ETH_P_ALL) to the interface",
            source: io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// One frame read from the socket.
pub(crate) struct Received {
    /// Bytes copied into the buffer.
    pub captured: usize,
    /// Length of the frame in the kernel (MSG_TRUNC).
    pub orig_len: usize,
    /// `sll_pkttype`.
    pub pkttype: u8,
}

/// Reads one frame without blocking; `Ok(None)` when the queue is empty.
/// MSG_TRUNC makes the kernel return the real frame length even though only
/// `buf.len()` bytes (the headers) are copied.
pub(crate) fn recv_frame(s: &Socket, buf: &mut [u8]) -> Result<Option<Received>, EcnError> {
    let cap = buf.len();
    let mut iov = [IoSliceMut::new(buf)];
    let got = recvmsg::<LinkAddr>(
        s.as_raw_fd(),
        &mut iov,
        None,
        MsgFlags::MSG_TRUNC | MsgFlags::MSG_DONTWAIT,
    );
    match got {
        Ok(msg) => Ok(Some(Received {
            captured: msg.bytes.min(cap),
            orig_len: msg.bytes,
            pkttype: msg.address.map_or(0, |a| a.pkttype()),
        })),
        Err(nix::errno::Errno::EAGAIN) | Err(nix::errno::Errno::EINTR) => Ok(None),
        Err(e) => Err(EcnError::Syscall {
            op: "recvmsg on the capture socket",
            source: e.into(),
        }),
    }
}

/// Waits until the socket is readable or `timeout` passes (at most 1 s).
pub(crate) fn poll_readable(s: &Socket, timeout: Duration) -> Result<(), EcnError> {
    let ms = timeout.as_millis().clamp(1, 1000) as u16;
    let mut fds = [PollFd::new(s.as_fd(), PollFlags::POLLIN)];
    match poll(&mut fds, PollTimeout::from(ms)) {
        Ok(_) | Err(nix::errno::Errno::EINTR) => Ok(()),
        Err(e) => Err(EcnError::Syscall {
            op: "poll on the capture socket",
            source: e.into(),
        }),
    }
}

/// Reads (and thereby resets) the socket's PACKET_STATISTICS. The kernel's
/// `tp_packets` already includes `tp_drops`.
pub(crate) fn packet_statistics(s: &Socket) -> Result<(u32, u32), EcnError> {
    let mut st = TpacketStats::default();
    let mut len = size_of::<TpacketStats>() as libc::socklen_t;
    // nix has no PACKET_STATISTICS option.
    #[allow(unsafe_code)]
    // SAFETY: `st` is a writable tpacket_stats and `len` its size; the
    // kernel writes at most `len` bytes.
    let rc = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            SOL_PACKET,
            PACKET_STATISTICS,
            (&mut st as *mut TpacketStats).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(EcnError::Syscall {
            op: "getsockopt(PACKET_STATISTICS)",
            source: io::Error::last_os_error(),
        });
    }
    Ok((st.tp_packets, st.tp_drops))
}
