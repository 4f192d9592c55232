//! A namespace as read back: links, addresses, routes and the sysctls
//! netlab sets, each veth's offloads; the records results.json holds and
//! their decoding from rtnetlink messages (pure). Reading a live namespace
//! is [`crate::snapshot`]'s (cargo feature `net`), re-exported here.

use std::collections::BTreeMap;
use std::net::IpAddr;

use netlink_packet_route::address::{AddressAttribute, AddressMessage};
use netlink_packet_route::link::{LinkAttribute, LinkFlags, LinkInfo, LinkMessage};
use netlink_packet_route::route::{RouteAddress, RouteAttribute, RouteMessage};
use serde::{Deserialize, Serialize};

use crate::ethtool::FeatureState;
use crate::naming::Role;

/// One sysctl written inside a namespace and what was read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SysctlReadback {
    /// Namespace name.
    pub netns: String,
    /// Key, e.g. `net.ipv4.ip_forward`.
    pub key: String,
    /// Value written.
    pub wrote: String,
    /// Value read back right after.
    pub read: String,
}

/// One link as the kernel reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkReadback {
    /// ifindex.
    pub ifindex: u32,
    /// Interface name.
    pub name: String,
    /// MAC address, `aa:bb:..`, if any.
    pub mac: Option<String>,
    /// MTU.
    pub mtu: Option<u32>,
    /// `IFF_UP` is set.
    pub up: bool,
    /// Link kind (`veth`, ...), if reported.
    pub kind: Option<String>,
    /// A veth's aggregation features (GSO, TSO, GRO, ...: method §1.6) as
    /// read back over ethtool's netlink family: each one's state and
    /// whether the kernel will change it. Absent for other kinds, for a
    /// kernel without that family, and in results written before it was
    /// recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offloads: Option<Vec<FeatureState>>,
}

impl LinkReadback {
    /// Whether every aggregation feature read back is off (`None`: not read).
    pub fn offloads_all_off(&self) -> Option<bool> {
        self.offloads.as_ref().map(|f| f.iter().all(|s| !s.active))
    }
}

/// One IPv4 address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddressReadback {
    /// ifindex of the link.
    pub ifindex: u32,
    /// The address.
    pub address: IpAddr,
    /// Prefix length.
    pub prefix_len: u8,
}

/// One IPv4 route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteReadback {
    /// Routing table id.
    pub table: u32,
    /// Destination, `default` or `a.b.c.d/len`.
    pub destination: String,
    /// Gateway, if any.
    pub gateway: Option<IpAddr>,
    /// Output ifindex, if any.
    pub oif: Option<u32>,
    /// Route type (`Unicast`, `Local`, ...).
    pub kind: String,
    /// Protocol (`Kernel`, `Static`, ...).
    pub protocol: String,
}

/// Everything read back from one namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamespaceReadback {
    /// Namespace name (`host` for [`snapshot_current_netns`] of the host).
    pub netns: String,
    /// Its role, if it is part of a topology.
    pub role: Option<Role>,
    /// Links, by ifindex.
    pub links: Vec<LinkReadback>,
    /// IPv4 addresses.
    pub addresses: Vec<AddressReadback>,
    /// IPv4 routes (all tables).
    pub routes: Vec<RouteReadback>,
    /// `net.ipv4.ip_forward`, `net.ipv4.tcp_ecn` and `net.ipv4.tcp_rmem` as
    /// read now.
    pub sysctls: BTreeMap<String, String>,
}

impl NamespaceReadback {
    /// The link named `name`.
    pub fn link(&self, name: &str) -> Option<&LinkReadback> {
        self.links.iter().find(|l| l.name == name)
    }

    /// Routes of the main table (254).
    pub fn main_routes(&self) -> impl Iterator<Item = &RouteReadback> {
        self.routes.iter().filter(|r| r.table == 254)
    }
}

/// A readback of the three namespaces of a topology.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopologyReadback {
    /// A, R, B in that order, then the sender hosts from 2 on (role A,
    /// method §1.7).
    pub namespaces: Vec<NamespaceReadback>,
}

impl TopologyReadback {
    /// The readback of `role`.
    pub fn role(&self, role: Role) -> Option<&NamespaceReadback> {
        self.namespaces.iter().find(|n| n.role == Some(role))
    }

    /// Whether every aggregation feature read back off on every veth end
    /// (`a0`, `r0`, `r1`, `b0`, and two more per sender host from 2 on,
    /// method §1.7); `None` when not all of them were read.
    pub fn veth_offloads_all_off(&self) -> Option<bool> {
        let ends: Vec<Option<bool>> = self
            .namespaces
            .iter()
            .flat_map(|n| &n.links)
            .filter(|l| l.kind.as_deref() == Some("veth"))
            .map(LinkReadback::offloads_all_off)
            .collect();
        let hosts = self
            .namespaces
            .iter()
            .filter(|n| n.role == Some(Role::A))
            .count();
        if ends.len() != 2 + 2 * hosts.max(1) {
            return None;
        }
        ends.into_iter()
            .try_fold(true, |all, e| e.map(|off| all && off))
    }
}

/// Converts a link message of a dump.
pub fn link_readback(m: &LinkMessage) -> LinkReadback {
    let mut l = LinkReadback {
        ifindex: m.header.index,
        name: String::new(),
        mac: None,
        mtu: None,
        up: m.header.flags.contains(LinkFlags::Up),
        kind: None,
        offloads: None,
    };
    for a in &m.attributes {
        match a {
            LinkAttribute::IfName(n) => l.name = n.clone(),
            LinkAttribute::Address(mac) => l.mac = Some(mac_text(mac)),
            LinkAttribute::Mtu(mtu) => l.mtu = Some(*mtu),
            LinkAttribute::LinkInfo(infos) => {
                for i in infos {
                    if let LinkInfo::Kind(k) = i {
                        l.kind = Some(k.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    l
}

/// Converts an address message of a dump (`None` if it has no address).
pub fn address_readback(m: &AddressMessage) -> Option<AddressReadback> {
    let addr = m.attributes.iter().find_map(|a| match a {
        AddressAttribute::Local(ip) => Some(*ip),
        _ => None,
    });
    let addr = addr.or_else(|| {
        m.attributes.iter().find_map(|a| match a {
            AddressAttribute::Address(ip) => Some(*ip),
            _ => None,
        })
    })?;
    Some(AddressReadback {
        ifindex: m.header.index,
        address: addr,
        prefix_len: m.header.prefix_len,
    })
}

/// A MAC address as `ip link` prints it: lowercase hex pairs joined by `:`.
fn mac_text(mac: &[u8]) -> String {
    let pairs: Vec<String> = mac.chunks(1).map(hex::encode).collect();
    pairs.join(":")
}

fn route_ip(a: &RouteAddress) -> Option<IpAddr> {
    match a {
        RouteAddress::Inet(ip) => Some((*ip).into()),
        RouteAddress::Inet6(ip) => Some((*ip).into()),
        _ => None,
    }
}

/// Converts a route message of a dump.
pub fn route_readback(m: &RouteMessage) -> RouteReadback {
    let mut table = u32::from(m.header.table);
    let mut dst = None;
    let mut gateway = None;
    let mut oif = None;
    for a in &m.attributes {
        match a {
            RouteAttribute::Table(t) => table = *t,
            RouteAttribute::Destination(d) => dst = route_ip(d),
            RouteAttribute::Gateway(g) => gateway = route_ip(g),
            RouteAttribute::Oif(i) => oif = Some(*i),
            _ => {}
        }
    }
    let len = m.header.destination_prefix_length;
    let destination = match dst {
        None if len == 0 => "default".to_owned(),
        None => format!("?/{len}"),
        Some(ip) => format!("{ip}/{len}"),
    };
    RouteReadback {
        table,
        destination,
        gateway,
        oif,
        kind: format!("{:?}", m.header.kind),
        protocol: format!("{:?}", m.header.protocol),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtnl::{decode_datagram, Answer};
    use netlink_packet_route::RouteNetlinkMessage;

    /// The route-netlink messages of a captured dump (ends with NLMSG_DONE).
    fn messages(bytes: &[u8]) -> Vec<RouteNetlinkMessage> {
        let answers = decode_datagram(bytes).unwrap();
        assert!(matches!(answers.last(), Some((_, Answer::Done))));
        answers
            .into_iter()
            .filter_map(|(_, a)| match a {
                Answer::Message(m) => Some(*m),
                _ => None,
            })
            .collect()
    }

    // Real kernel answers captured in R of a freshly built topology
    // (see fixtures/topology/README.md).
    const LINKS: &[u8] = include_bytes!("../../../fixtures/topology/r_links.bin");
    const ADDRESSES: &[u8] = include_bytes!("../../../fixtures/topology/r_addresses.bin");
    const ROUTES: &[u8] = include_bytes!("../../../fixtures/topology/r_routes.bin");

    #[test]
    fn fixture_links_of_r() {
        let links: Vec<LinkReadback> = messages(LINKS)
            .iter()
            .filter_map(|m| match m {
                RouteNetlinkMessage::NewLink(l) => Some(link_readback(l)),
                _ => None,
            })
            .collect();
        let names: Vec<(u32, &str)> = links.iter().map(|l| (l.ifindex, l.name.as_str())).collect();
        assert_eq!(names, vec![(1, "lo"), (2, "r0"), (3, "r1")]);
        assert!(links.iter().all(|l| l.up));
        assert_eq!(links[0].mtu, Some(65536));
        assert_eq!(links[0].mac.as_deref(), Some("00:00:00:00:00:00"));
        for l in &links[1..] {
            assert_eq!(l.kind.as_deref(), Some("veth"));
            assert_eq!(l.mtu, Some(1500));
            assert_eq!(l.mac.as_ref().map(String::len), Some(17));
        }
    }

    #[test]
    fn fixture_addresses_and_routes_of_r() {
        let addrs: Vec<AddressReadback> = messages(ADDRESSES)
            .iter()
            .filter_map(|m| match m {
                RouteNetlinkMessage::NewAddress(a) => address_readback(a),
                _ => None,
            })
            .collect();
        let got: Vec<(u32, String, u8)> = addrs
            .iter()
            .map(|a| (a.ifindex, a.address.to_string(), a.prefix_len))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, "127.0.0.1".to_owned(), 8),
                (2, "10.20.1.1".to_owned(), 24),
                (3, "10.20.2.1".to_owned(), 24)
            ]
        );
        let routes: Vec<RouteReadback> = messages(ROUTES)
            .iter()
            .filter_map(|m| match m {
                RouteNetlinkMessage::NewRoute(r) => Some(route_readback(r)),
                _ => None,
            })
            .collect();
        let main: Vec<(&str, Option<u32>)> = routes
            .iter()
            .filter(|r| r.table == 254)
            .map(|r| (r.destination.as_str(), r.oif))
            .collect();
        assert_eq!(
            main,
            vec![("10.20.1.0/24", Some(2)), ("10.20.2.0/24", Some(3))]
        );
        assert!(
            routes.iter().all(|r| r.gateway.is_none()),
            "R has no gateway routes"
        );
        assert!(routes.iter().any(|r| r.table == 255 && r.kind == "Local"));
    }
}
