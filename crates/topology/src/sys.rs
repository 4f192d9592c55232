//! The syscalls behind namespaces and sysctls (all via nix's safe
//! wrappers; nothing here needs `unsafe`).

use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::Mutex;

use nix::mount::{mount, umount2, MntFlags, MsFlags};
use nix::sched::{setns, unshare, CloneFlags};

use netlink_packet_route::RouteNetlinkMessage;

use crate::rtnl::{decode_datagram, Answer, Request};
use crate::TopologyError;

/// Serialises the shared-mount setup of `/run/netns` within this process.
static RUN_DIR_LOCK: Mutex<()> = Mutex::new(());

/// Makes `dir` exist and be a shared mount (recursively), as iproute2 does:
/// try `MS_SHARED|MS_REC`; if the directory is not a mount point (`EINVAL`)
/// bind-mount it onto itself first.
pub(crate) fn prepare_run_dir(dir: &Path) -> Result<(), TopologyError> {
    let _guard = RUN_DIR_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    std::fs::create_dir_all(dir)
        .map_err(|e| TopologyError::io(format!("creating {}", dir.display()), e))?;
    let share = || {
        mount(
            Some("none"),
            dir,
            None::<&str>,
            MsFlags::MS_SHARED | MsFlags::MS_REC,
            None::<&str>,
        )
    };
    match share() {
        Ok(()) => Ok(()),
        Err(nix::errno::Errno::EINVAL) => {
            mount(
                Some(dir),
                dir,
                Some("none"),
                MsFlags::MS_BIND | MsFlags::MS_REC,
                None::<&str>,
            )
            .map_err(|e| {
                TopologyError::io(format!("bind-mounting {} onto itself", dir.display()), e)
            })?;
            share().map_err(|e| {
                TopologyError::io(format!("making {} a shared mount", dir.display()), e)
            })
        }
        Err(e) => Err(TopologyError::io(
            format!("making {} a shared mount", dir.display()),
            e,
        )),
    }
}

/// Creates the empty mount point file exclusively (`O_CREAT|O_EXCL`, mode 0).
pub(crate) fn create_mount_point(path: &Path) -> io::Result<()> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o000)
        .open(path)
        .map(drop)
}

/// On the calling (dedicated, short-lived) thread: leaves for a new network
/// namespace and bind-mounts it onto `path`.
pub(crate) fn unshare_and_bind(path: &Path) -> Result<(), TopologyError> {
    unshare(CloneFlags::CLONE_NEWNET).map_err(|e| TopologyError::io("unshare(CLONE_NEWNET)", e))?;
    let own = thread_ns_path();
    mount(
        Some(own.as_str()),
        path,
        Some("none"),
        MsFlags::MS_BIND,
        None::<&str>,
    )
    .map_err(|e| TopologyError::io(format!("bind-mounting {own} onto {}", path.display()), e))
}

/// This thread's own network namespace file.
fn thread_ns_path() -> String {
    if Path::new("/proc/thread-self/ns/net").exists() {
        "/proc/thread-self/ns/net".to_owned()
    } else {
        format!("/proc/self/task/{}/ns/net", nix::unistd::gettid())
    }
}

/// Moves the calling thread into the namespace open as `file`.
pub(crate) fn enter(file: &File) -> io::Result<()> {
    setns(file, CloneFlags::CLONE_NEWNET).map_err(io::Error::from)
}

/// Lazily unmounts `path`.
pub(crate) fn detach(path: &Path) -> io::Result<()> {
    match umount2(path, MntFlags::MNT_DETACH) {
        Ok(()) => Ok(()),
        // not mounted (e.g. a half-created namespace): unlinking suffices
        Err(nix::errno::Errno::EINVAL) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Path of a sysctl under `/proc/sys` (`net.ipv4.ip_forward` →
/// `/proc/sys/net/ipv4/ip_forward`).
pub(crate) fn sysctl_path(key: &str) -> String {
    format!("/proc/sys/{}", key.replace('.', "/"))
}

/// Writes a sysctl as seen by the calling thread's network namespace.
pub(crate) fn write_sysctl(key: &str, value: &str) -> io::Result<()> {
    std::fs::write(sysctl_path(key), format!("{value}\n"))
}

/// Reads a sysctl as seen by the calling thread's network namespace.
pub(crate) fn read_sysctl(key: &str) -> io::Result<String> {
    Ok(std::fs::read_to_string(sysctl_path(key))?.trim().to_owned())
}

/// A synchronous rtnetlink socket, bound to the network namespace of the
/// thread that opened it (for its whole life).
pub(crate) struct RtnlSocket {
    sock: netlink_sys::Socket,
    seq: u32,
}

/// Longest wait for one kernel answer.
const RTNL_TIMEOUT_S: i64 = 2;
/// Most datagrams read for one request (bounds every loop).
const RTNL_MAX_DATAGRAMS: usize = 10_000;

impl RtnlSocket {
    /// Opens a route-netlink socket in the calling thread's namespace.
    pub(crate) fn open() -> io::Result<RtnlSocket> {
        use netlink_sys::{protocols::NETLINK_ROUTE, SocketAddr};
        let mut sock = netlink_sys::Socket::new(NETLINK_ROUTE)?;
        sock.bind_auto()?;
        sock.connect(&SocketAddr::new(0, 0))?;
        nix::sys::socket::setsockopt(
            &sock,
            nix::sys::socket::sockopt::ReceiveTimeout,
            &nix::sys::time::TimeVal::new(RTNL_TIMEOUT_S, 0),
        )?;
        Ok(RtnlSocket { sock, seq: 0 })
    }

    fn send(&mut self, req: &Request) -> Result<u32, TopologyError> {
        self.seq = self.seq.wrapping_add(1);
        let bytes = req.to_bytes(self.seq);
        self.sock
            .send(&bytes, 0)
            .map_err(|e| TopologyError::io(format!("{}: sending netlink request", req.step), e))?;
        Ok(self.seq)
    }

    fn recv(&self, req: &Request) -> Result<Vec<(u32, Answer)>, TopologyError> {
        let (buf, _) = self.sock.recv_from_full().map_err(|e| {
            TopologyError::io(format!("{}: waiting for the kernel's answer", req.step), e)
        })?;
        decode_datagram(&buf).map_err(|reason| TopologyError::Decode {
            step: req.step.clone(),
            reason,
        })
    }

    /// Sends a request and checks its ACK.
    pub(crate) fn apply(&mut self, req: &Request) -> Result<(), TopologyError> {
        let seq = self.send(req)?;
        for _ in 0..RTNL_MAX_DATAGRAMS {
            for (s, answer) in self.recv(req)? {
                if s != seq {
                    continue;
                }
                match answer {
                    Answer::Ack => return Ok(()),
                    Answer::Errno(code) => {
                        return Err(TopologyError::io(
                            req.step.clone(),
                            io::Error::from_raw_os_error(code),
                        ))
                    }
                    _ => {}
                }
            }
        }
        Err(TopologyError::Decode {
            step: req.step.clone(),
            reason: "no ACK".into(),
        })
    }

    /// Sends a dump request and collects the messages until `NLMSG_DONE`.
    pub(crate) fn dump(
        &mut self,
        req: &Request,
    ) -> Result<Vec<RouteNetlinkMessage>, TopologyError> {
        let seq = self.send(req)?;
        let mut out = Vec::new();
        for _ in 0..RTNL_MAX_DATAGRAMS {
            for (s, answer) in self.recv(req)? {
                if s != seq {
                    continue;
                }
                match answer {
                    Answer::Done => return Ok(out),
                    Answer::Message(m) => out.push(*m),
                    Answer::Errno(code) => {
                        return Err(TopologyError::io(
                            req.step.clone(),
                            io::Error::from_raw_os_error(code),
                        ))
                    }
                    Answer::Ack | Answer::Other => {}
                }
            }
        }
        Err(TopologyError::Decode {
            step: req.step.clone(),
            reason: "dump did not end".into(),
        })
    }
}
