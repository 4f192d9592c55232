//! The sender hosts A1…Ak behind R (method §1.7), as data: each host's
//! namespace suffix, interfaces, addresses, and the rtnetlink requests
//! that add a host beyond the first (pure).
//!
//! Host 1 is the seed's A, unchanged: `nl-<run>-<scenario>-a`, `a0`
//! 10.20.1.2/24, R's `r0` 10.20.1.1/24. Host `i` from 2 on is
//! `nl-<run>-<scenario>-a<i>`, its own `a0` (ifindex 2) at `10.21.<i>.2/24`,
//! R's `r<i>` (ifindex `i + 2`) at `10.21.<i>.1/24`, its default route via
//! R. R needs no route of its own (every host subnet is connected), and B's
//! default route via R's `r1` covers the way back; so every host's packets
//! toward B leave through the one shaped egress `r1`. The plan gives host
//! numbers 2 to 254 one `/24` each in `10.21.0.0/16`: at most
//! [`MAX_SENDER_HOSTS`] hosts.
//!
//! ```
//! use netlab_topology::hosts::SenderHost;
//! let h = SenderHost::new(3).unwrap();
//! assert_eq!((h.addr().to_string(), h.router_if()), ("10.21.3.2".into(), "r3".into()));
//! assert!(SenderHost::new(255).is_err());
//! ```

use std::net::Ipv4Addr;
use std::os::fd::RawFd;

use crate::addresses::{A_ADDR, A_IF, A_IFINDEX, R_A_ADDR, R_A_IF, R_A_IFINDEX};
use crate::rtnl::{self, Request, LOOPBACK_IFINDEX};
use crate::TopologyError;

/// The most sender hosts the address plan allows: host 1 is the seed's A,
/// hosts 2 to 254 each take `10.21.<i>.0/24`.
pub const MAX_SENDER_HOSTS: u16 = 254;

/// One sender host of the topology: its 1-based number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SenderHost(u16);

impl SenderHost {
    /// The seed's A.
    pub const FIRST: SenderHost = SenderHost(1);

    /// Host `number` (1 to [`MAX_SENDER_HOSTS`]).
    pub fn new(number: u16) -> Result<SenderHost, TopologyError> {
        check_host_count(number)?;
        if number == 0 {
            return Err(TopologyError::TooManyHosts {
                hosts: 0,
                max: MAX_SENDER_HOSTS,
            });
        }
        Ok(SenderHost(number))
    }

    /// The 1-based number.
    pub fn number(self) -> u16 {
        self.0
    }

    /// The suffix of its namespace name: `a` for host 1, else `a<i>`.
    pub fn suffix(self) -> String {
        if self.0 == 1 {
            "a".to_owned()
        } else {
            format!("a{}", self.0)
        }
    }

    /// Its interface toward R (`a0` in every host's own namespace).
    pub fn interface(self) -> &'static str {
        A_IF
    }

    /// Its address: 10.20.1.2 for host 1, else 10.21.`i`.2.
    pub fn addr(self) -> Ipv4Addr {
        if self.0 == 1 {
            A_ADDR
        } else {
            Ipv4Addr::new(10, 21, self.third_octet(), 2)
        }
    }

    /// R's address toward it, its gateway: 10.20.1.1, else 10.21.`i`.1.
    pub fn router_addr(self) -> Ipv4Addr {
        if self.0 == 1 {
            R_A_ADDR
        } else {
            Ipv4Addr::new(10, 21, self.third_octet(), 1)
        }
    }

    /// R's interface toward it: `r0` for host 1, else `r<i>`.
    pub fn router_if(self) -> String {
        if self.0 == 1 {
            R_A_IF.to_owned()
        } else {
            format!("r{}", self.0)
        }
    }

    /// The ifindex of R's interface toward it: 2 for host 1, else `i + 2`
    /// (R's `r1`, toward B, is 3).
    pub fn router_ifindex(self) -> u32 {
        if self.0 == 1 {
            R_A_IFINDEX
        } else {
            u32::from(self.0) + 2
        }
    }

    fn third_octet(self) -> u8 {
        u8::try_from(self.0).expect("checked against MAX_SENDER_HOSTS")
    }
}

/// Refuses more sender hosts than the address plan allows.
pub fn check_host_count(hosts: u16) -> Result<(), TopologyError> {
    if hosts > MAX_SENDER_HOSTS {
        return Err(TopologyError::TooManyHosts {
            hosts,
            max: MAX_SENDER_HOSTS,
        });
    }
    Ok(())
}

/// Which namespace's rtnetlink socket sends a request of [`host_requests`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostSide {
    /// R's socket.
    Router,
    /// The host's own socket.
    Host,
}

/// The requests that add sender host `host` (2 or more) once A–R–B is
/// built: the veth pair from R's socket with each end placed in its
/// namespace, R's end addressed and up, then in the host lo up, its
/// address, its link up and the default route via R.
pub fn host_requests(
    host: SenderHost,
    host_ns: &str,
    host_fd: RawFd,
    router_ns: &str,
    router_fd: RawFd,
    mtu: u32,
) -> Vec<(HostSide, Request)> {
    let (rif, rix) = (host.router_if(), host.router_ifindex());
    let (ip, gw) = (host.addr(), host.router_addr());
    use crate::rtnl::{address as addr, default_route, link_up as up, veth_end as end};
    vec![
        (
            HostSide::Router,
            // R's end is the link, the host's the peer, as `r1`/`b0` are:
            // the guest's 6.1 refuses (EEXIST) a link placed in another
            // namespace with an ifindex R already uses.
            rtnl::new_veth_pair(
                &end(&rif, router_fd, rix),
                &end(A_IF, host_fd, A_IFINDEX),
                mtu,
                format!(
                    "creating veth {rif} (netns {router_ns}) / {A_IF} (netns {host_ns}) with MTU {mtu}"
                ),
            ),
        ),
        (HostSide::Router, addr(rix, gw, &rif, router_ns)),
        (HostSide::Router, up(rix, &rif, router_ns)),
        (HostSide::Host, up(LOOPBACK_IFINDEX, "lo", host_ns)),
        (HostSide::Host, addr(A_IFINDEX, ip, A_IF, host_ns)),
        (HostSide::Host, up(A_IFINDEX, A_IF, host_ns)),
        (HostSide::Host, default_route(gw, host_ns)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_one_is_the_seeds_a() {
        let h = SenderHost::FIRST;
        assert_eq!(h.suffix(), "a");
        assert_eq!(h.addr(), A_ADDR);
        assert_eq!(h.router_addr(), R_A_ADDR);
        assert_eq!((h.router_if(), h.router_ifindex()), ("r0".into(), 2));
    }

    #[test]
    fn the_plan_gives_each_host_its_own_subnet_up_to_its_limit() {
        let mut seen = std::collections::HashSet::new();
        let mut ifs = std::collections::HashSet::new();
        for n in 1..=MAX_SENDER_HOSTS {
            let h = SenderHost::new(n).unwrap();
            let o = h.addr().octets();
            assert!(seen.insert((o[0], o[1], o[2])), "subnet of host {n}");
            assert_eq!(h.router_addr().octets()[..3], o[..3]);
            assert!(ifs.insert(h.router_ifindex()));
            // R's r1 (ifindex 3) is B's; no host takes its name or index.
            assert_ne!(h.router_if(), "r1");
            assert_ne!(h.router_ifindex(), 3);
            assert!(h.router_if().len() <= 15);
            // never the seed's B subnet
            assert_ne!((o[1], o[2]), (20, 2));
        }
        assert_eq!(SenderHost::new(2).unwrap().suffix(), "a2");
        assert_eq!(
            SenderHost::new(254).unwrap().addr(),
            Ipv4Addr::new(10, 21, 254, 2)
        );
        let e = SenderHost::new(255).unwrap_err().to_string();
        assert!(e.contains("255 sender hosts") && e.contains("254"), "{e}");
        assert!(SenderHost::new(0).is_err());
        assert!(check_host_count(254).is_ok());
    }

    #[test]
    fn a_hosts_requests_name_every_step_r_first() {
        let h = SenderHost::new(3).unwrap();
        let reqs = host_requests(h, "nl-7f3a-1-a3", 7, "nl-7f3a-1-r", 4, 1500);
        let steps: Vec<&str> = reqs.iter().map(|(_, r)| r.step.as_str()).collect();
        assert_eq!(
            steps,
            [
                "creating veth r3 (netns nl-7f3a-1-r) / a0 (netns nl-7f3a-1-a3) with MTU 1500",
                "adding 10.21.3.1/24 to r3 in netns nl-7f3a-1-r",
                "setting r3 up in netns nl-7f3a-1-r",
                "setting lo up in netns nl-7f3a-1-a3",
                "adding 10.21.3.2/24 to a0 in netns nl-7f3a-1-a3",
                "setting a0 up in netns nl-7f3a-1-a3",
                "adding default route via 10.21.3.1 in netns nl-7f3a-1-a3",
            ]
        );
        let first_host = reqs.iter().position(|(s, _)| *s == HostSide::Host).unwrap();
        assert!(reqs[..first_host]
            .iter()
            .all(|(s, _)| *s == HostSide::Router));
    }
}
