//! Reading a live namespace back (cargo feature `net`): rtnetlink dumps of
//! links, addresses and routes decoded by [`crate::readback`], each veth's
//! offloads over ethtool's family, the sysctls netlab sets.

use std::collections::BTreeMap;

use netlink_packet_route::RouteNetlinkMessage;

use crate::naming::Role;
use crate::netns::Netns;
use crate::offloads::{read_states, EthtoolSocket};
use crate::readback::{address_readback, link_readback, route_readback, NamespaceReadback};
use crate::rtnl;
use crate::spec::{IP_FORWARD, TCP_ECN, TCP_RMEM};
use crate::TopologyError;
use crate::{rtnl_socket, sysctl};

/// Reads back the namespace the calling thread is in; `netns` is only the
/// label recorded.
pub fn snapshot_current_netns(
    netns: &str,
    role: Option<Role>,
) -> Result<NamespaceReadback, TopologyError> {
    let sock = rtnl_socket::open(netns)?;
    let step = |what: &str| format!("dumping {what} in netns {netns}");
    let mut links = Vec::new();
    for m in rtnl_socket::dump(&sock, &rtnl::dump_links(step("links")))? {
        if let RouteNetlinkMessage::NewLink(l) = m {
            links.push(link_readback(&l));
        }
    }
    links.sort_by_key(|l| l.ifindex);
    if links.iter().any(|l| l.kind.as_deref() == Some("veth")) {
        let ethtool = EthtoolSocket::open(netns)?;
        for l in links.iter_mut() {
            if l.kind.as_deref() == Some("veth") {
                l.offloads = read_states(ethtool.as_ref(), &l.name)?;
            }
        }
    }
    let mut addresses = Vec::new();
    for m in rtnl_socket::dump(&sock, &rtnl::dump_ipv4_addresses(step("IPv4 addresses")))? {
        if let RouteNetlinkMessage::NewAddress(a) = m {
            addresses.extend(address_readback(&a));
        }
    }
    let mut routes = Vec::new();
    for m in rtnl_socket::dump(&sock, &rtnl::dump_ipv4_routes(step("IPv4 routes")))? {
        if let RouteNetlinkMessage::NewRoute(r) = m {
            routes.push(route_readback(&r));
        }
    }
    let mut sysctls = BTreeMap::new();
    for key in [IP_FORWARD, TCP_ECN, TCP_RMEM] {
        let v = sysctl::read(key)
            .map_err(|e| TopologyError::io(format!("reading {key} in netns {netns}"), e))?;
        sysctls.insert(key.to_owned(), v);
    }
    Ok(NamespaceReadback {
        netns: netns.to_owned(),
        role,
        links,
        addresses,
        routes,
        sysctls,
    })
}

/// Reads back namespace `ns` from a thread inside it.
pub fn readback_netns(ns: &Netns, role: Option<Role>) -> Result<NamespaceReadback, TopologyError> {
    ns.run(|| snapshot_current_netns(ns.name(), role))?
}
