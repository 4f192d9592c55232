//! The only syscalls of this crate: an AF_PACKET socket bound to one
//! interface, non-blocking headers-only reads, poll, and PACKET_STATISTICS.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::mem::{size_of, zeroed};
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

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
    let c = CString::new(name).map_err(|_| EcnError::InterfaceNotFound {
        name: name.to_string(),
    })?;
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    let idx = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if idx == 0 {
        return Err(EcnError::InterfaceNotFound {
            name: name.to_string(),
        });
    }
    Ok(idx)
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
    let v: libc::c_int = bytes.min(libc::c_int::MAX as usize / 2) as libc::c_int;
    // SAFETY: valid fd; `v` is a c_int living across the call and the length matches.
    let rc = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            (&v as *const libc::c_int).cast(),
            size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        s.set_recv_buffer_size(bytes)
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
    // SAFETY: sockaddr_ll is plain old data; all-zero is a valid value.
    let mut sll: libc::sockaddr_ll = unsafe { zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_protocol = ETH_P_ALL.to_be();
    sll.sll_ifindex = ifindex as i32;
    // SAFETY: `sll` is a valid sockaddr_ll and the length passed is its size.
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
pub(crate) fn recv_frame(fd: RawFd, buf: &mut [u8]) -> Result<Option<Received>, EcnError> {
    // SAFETY: sockaddr_ll is plain old data; all-zero is a valid value.
    let mut sll: libc::sockaddr_ll = unsafe { zeroed() };
    let mut len = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes (the kernel writes
    // at most that many); `sll`/`len` describe a writable sockaddr_ll.
    let n = unsafe {
        libc::recvfrom(
            fd,
            buf.as_mut_ptr().cast(),
            buf.len(),
            libc::MSG_TRUNC | libc::MSG_DONTWAIT,
            (&mut sll as *mut libc::sockaddr_ll).cast(),
            &mut len,
        )
    };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(EcnError::Syscall {
                op: "recvfrom on the capture socket",
                source: e,
            }),
        };
    }
    let orig_len = n as usize;
    Ok(Some(Received {
        captured: orig_len.min(buf.len()),
        orig_len,
        pkttype: sll.sll_pkttype,
    }))
}

/// Waits until `fd` is readable or `timeout` passes.
pub(crate) fn poll_readable(fd: RawFd, timeout: Duration) -> Result<(), EcnError> {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.as_millis().clamp(1, 1000) as libc::c_int;
    // SAFETY: `pfd` is one valid pollfd and nfds is 1.
    let rc = unsafe { libc::poll(&mut pfd, 1, ms) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(EcnError::Syscall {
                op: "poll on the capture socket",
                source: e,
            });
        }
    }
    Ok(())
}

/// Reads (and thereby resets) the socket's PACKET_STATISTICS. The kernel's
/// `tp_packets` already includes `tp_drops`.
pub(crate) fn packet_statistics(fd: RawFd) -> Result<(u32, u32), EcnError> {
    let mut st = TpacketStats::default();
    let mut len = size_of::<TpacketStats>() as libc::socklen_t;
    // SAFETY: `st` is a writable tpacket_stats and `len` its size.
    let rc = unsafe {
        libc::getsockopt(
            fd,
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
