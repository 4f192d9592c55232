//! Building, describing and tearing down one A–R–B topology.

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::addresses::{A_IF, B_IF, R_B_IF};
use crate::build::{build_requests, NetnsFds};
use crate::hosts::{host_requests, HostSide, SenderHost};
use crate::naming::Role;
use crate::netns::{self, Netns};
use crate::readback::{SysctlReadback, TopologyReadback};
use crate::snapshot::readback_netns;
use crate::spec::{Offloads, ReceiveBuffer, TopologySpec, TCP_RMEM};
use crate::{offloads, privilege, TopologyError};
use crate::{rtnl_socket, sysctl};

/// The outcome of deleting one namespace of a topology.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetnsTeardown {
    /// Namespace name.
    pub netns: String,
    /// `None` if it was deleted and confirmed gone, else the error.
    pub error: Option<String>,
}

/// A built A–R–B topology: the three owned namespaces and what was set.
#[derive(Debug, Serialize)]
pub struct Topology {
    /// What was built.
    pub spec: TopologySpec,
    /// A, the sender (`a0`, 10.20.1.2/24).
    pub a: Netns,
    /// R, the router (`r0` 10.20.1.1/24, `r1` 10.20.2.1/24).
    pub r: Netns,
    /// B, the receiver (`b0`, 10.20.2.2/24).
    pub b: Netns,
    /// The sender hosts from 2 on (method §1.7), host 2 first; empty for
    /// the seed's one A.
    pub hosts: Vec<Netns>,
    /// Every sysctl written, with its readback.
    pub sysctls: Vec<SysctlReadback>,
    /// Wall time the build took.
    pub build_time: Duration,
}

impl Topology {
    /// Checks privileges, then creates the namespaces and builds the
    /// topology over rtnetlink. On failure every namespace already created
    /// is deleted again before the error is returned.
    pub fn build(spec: &TopologySpec) -> Result<Topology, TopologyError> {
        privilege::check_capabilities()?;
        spec.validate()?;
        let started = Instant::now();
        let names = spec.all_netns_names();
        let mut made: Vec<Netns> = Vec::with_capacity(names.len());
        let result = (|| {
            for name in &names {
                made.push(Netns::create(name)?);
            }
            configure(spec, &made[0], &made[1], &made[2], &made[3..])
        })();
        match result {
            Ok(sysctls) => {
                let mut it = made.into_iter();
                let (a, r, b) = (it.next(), it.next(), it.next());
                Ok(Topology {
                    spec: spec.clone(),
                    a: a.expect("a"),
                    r: r.expect("r"),
                    b: b.expect("b"),
                    hosts: it.collect(),
                    sysctls,
                    build_time: started.elapsed(),
                })
            }
            Err(e) => {
                for ns in made.into_iter().rev() {
                    let _ = ns.delete();
                }
                Err(e)
            }
        }
    }

    /// The namespace of `role`.
    pub fn netns(&self, role: Role) -> &Netns {
        match role {
            Role::A => &self.a,
            Role::R => &self.r,
            Role::B => &self.b,
        }
    }

    /// The namespace of sender host `host` (host 1 is A); `None` beyond
    /// the hosts built.
    pub fn host(&self, host: SenderHost) -> Option<&Netns> {
        match host.number() {
            1 => Some(&self.a),
            n => self.hosts.get(usize::from(n) - 2),
        }
    }

    /// Reads links, addresses, routes and sysctls back from each namespace
    /// over rtnetlink and `/proc/sys`: A, R, B, then the hosts from 2 on
    /// (role A each).
    pub fn readback(&self) -> Result<TopologyReadback, TopologyError> {
        let mut namespaces = Vec::with_capacity(3 + self.hosts.len());
        for role in Role::ALL {
            namespaces.push(readback_netns(self.netns(role), Some(role))?);
        }
        for ns in &self.hosts {
            namespaces.push(readback_netns(ns, Some(Role::A))?);
        }
        Ok(TopologyReadback { namespaces })
    }

    /// Deletes every namespace, newest first (the hosts from the last
    /// down to 2, then B, R, A), and reports each.
    pub fn teardown(self) -> Vec<NetnsTeardown> {
        self.hosts
            .into_iter()
            .rev()
            .chain([self.b, self.r, self.a])
            .map(|ns| {
                let netns = ns.name().to_owned();
                let error = ns.delete().err().map(|e| e.to_string());
                NetnsTeardown { netns, error }
            })
            .collect()
    }
}

/// Sends the build requests through one rtnetlink socket per namespace,
/// adds the sender hosts from 2 on (method §1.7), turns the veths'
/// offloads off when the spec asks (method §1.6), then writes and reads
/// back the sysctls.
fn configure(
    spec: &TopologySpec,
    a: &Netns,
    r: &Netns,
    b: &Netns,
    hosts: &[Netns],
) -> Result<Vec<SysctlReadback>, TopologyError> {
    let open = |ns: &Netns| ns.run(|| rtnl_socket::open(ns.name()))?;
    let sockets = [open(a)?, open(r)?, open(b)?];
    let fds = NetnsFds {
        a: a.file().as_raw_fd(),
        r: r.file().as_raw_fd(),
        b: b.file().as_raw_fd(),
    };
    for (role, req) in build_requests(spec, fds) {
        let i = match role {
            Role::A => 0,
            Role::R => 1,
            Role::B => 2,
        };
        rtnl_socket::apply(&sockets[i], &req)?;
    }
    for (host, ns) in spec.hosts().skip(1).zip(hosts) {
        let own = open(ns)?;
        let requests = host_requests(
            host,
            ns.name(),
            ns.file().as_raw_fd(),
            r.name(),
            fds.r,
            spec.mtu,
        );
        for (side, req) in requests {
            let sock = match side {
                HostSide::Router => &sockets[1],
                HostSide::Host => &own,
            };
            rtnl_socket::apply(sock, &req)?;
        }
    }
    if spec.offloads == Offloads::Off {
        let router_ifs: Vec<String> = spec.hosts().map(|h| h.router_if()).collect();
        let mut router_devs: Vec<&str> = router_ifs.iter().map(String::as_str).collect();
        router_devs.insert(1, R_B_IF);
        let mut ends: Vec<(&Netns, &[&str])> =
            vec![(a, &[A_IF][..]), (r, &router_devs[..]), (b, &[B_IF][..])];
        ends.extend(hosts.iter().map(|ns| (ns, &[A_IF][..])));
        offloads::turn_off_everywhere(&ends)?;
    }
    let by_role = |role| match role {
        Role::A => a,
        Role::R => r,
        Role::B => b,
    };
    let mut readbacks = Vec::new();
    let every = Role::ALL
        .into_iter()
        .map(|role| (role, by_role(role)))
        .chain(hosts.iter().map(|ns| (Role::A, ns)));
    for (role, ns) in every {
        let writes: Vec<_> = spec
            .sysctl_writes()
            .into_iter()
            .filter(|(r, _, _)| *r == role)
            .collect();
        let receiver = role != Role::R;
        let done = ns.run(|| {
            let mut done = writes
                .iter()
                .map(|(_, key, value)| write_and_read(ns.name(), key, value))
                .collect::<Result<Vec<_>, _>>()?;
            if receiver {
                done.extend(set_receive_buffer(ns.name(), spec.receive_buffer)?);
            }
            Ok::<_, TopologyError>(done)
        })??;
        readbacks.extend(done);
    }
    Ok(readbacks)
}

/// Sets `net.ipv4.tcp_rmem` in the calling thread's namespace as
/// `choice` asks (nothing for [`ReceiveBuffer::Kernel`]).
fn set_receive_buffer(
    netns: &str,
    choice: ReceiveBuffer,
) -> Result<Option<SysctlReadback>, TopologyError> {
    let current = sysctl::read(TCP_RMEM)
        .map_err(|e| TopologyError::io(format!("reading {TCP_RMEM} in netns {netns}"), e))?;
    match choice.tcp_rmem(&current) {
        None => Ok(None),
        Some(Err(reason)) => Err(TopologyError::Decode {
            step: format!("reading {TCP_RMEM} in netns {netns}"),
            reason,
        }),
        Some(Ok(value)) => write_and_read(netns, TCP_RMEM, &value).map(Some),
    }
}

/// Writes one sysctl in the calling thread's namespace and reads it back.
fn write_and_read(netns: &str, key: &str, value: &str) -> Result<SysctlReadback, TopologyError> {
    sysctl::write(key, value)
        .map_err(|e| TopologyError::io(format!("writing {key}={value} in netns {netns}"), e))?;
    let read = sysctl::read(key)
        .map_err(|e| TopologyError::io(format!("reading back {key} in netns {netns}"), e))?;
    if read != value {
        return Err(TopologyError::SysctlMismatch {
            netns: netns.to_owned(),
            key: key.to_owned(),
            wrote: value.to_owned(),
            read,
        });
    }
    Ok(SysctlReadback {
        netns: netns.to_owned(),
        key: key.to_owned(),
        wrote: value.to_owned(),
        read,
    })
}

/// Owns a [`Topology`] and tears it down on drop (for tests and for error
/// paths). Derefs to the topology.
#[derive(Debug)]
pub struct TopologyGuard(Option<Topology>);

impl TopologyGuard {
    /// Builds the topology and guards it.
    pub fn build(spec: &TopologySpec) -> Result<TopologyGuard, TopologyError> {
        Topology::build(spec).map(TopologyGuard::new)
    }

    /// Guards an existing topology.
    pub fn new(topology: Topology) -> TopologyGuard {
        TopologyGuard(Some(topology))
    }

    /// Tears down now and returns the per-namespace results.
    pub fn teardown(mut self) -> Vec<NetnsTeardown> {
        self.0.take().map(Topology::teardown).unwrap_or_default()
    }

    /// Gives the topology back without tearing it down.
    pub fn into_inner(mut self) -> Topology {
        self.0.take().expect("present until drop")
    }
}

impl std::ops::Deref for TopologyGuard {
    type Target = Topology;
    fn deref(&self) -> &Topology {
        self.0.as_ref().expect("present until drop")
    }
}

impl Drop for TopologyGuard {
    fn drop(&mut self) {
        if let Some(t) = self.0.take() {
            for r in t.teardown() {
                if let Some(e) = r.error {
                    eprintln!("TopologyGuard: deleting {}: {e}", r.netns);
                }
            }
        }
    }
}

/// Deletes the namespaces of `spec` that exist (for cleanup paths that only
/// know the spec). Returns one result per name that existed.
pub fn delete_namespaces_of(spec: &TopologySpec) -> Vec<NetnsTeardown> {
    let mut names = spec.all_netns_names();
    names.reverse();
    names
        .into_iter()
        .filter(|n| netns::exists(n))
        .map(|n| NetnsTeardown {
            error: netns::delete(&n).err().map(|e| e.to_string()),
            netns: n,
        })
        .collect()
}
