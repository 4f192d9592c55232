//! rtnetlink requests as plain values, and decoding of the answers.
//!
//! Building is pure: a [`Request`] is a route-netlink message plus the
//! netlink flags and the step it performs (used in error messages).
//! [`Request::to_bytes`] gives the exact bytes sent; the private `rtnl_socket` module sends
//! them and checks the kernel's ACK.

use std::net::Ipv4Addr;
use std::os::fd::RawFd;

use crate::addresses::PREFIX_LEN;

use netlab_os::wire::{ErrorMessage, Messages, NLMSG_DONE, NLMSG_ERROR};
use netlink_packet_core::{
    NetlinkHeader, NetlinkMessage, NetlinkPayload, NLM_F_ACK, NLM_F_CREATE, NLM_F_DUMP, NLM_F_EXCL,
    NLM_F_REQUEST,
};
use netlink_packet_route::address::{AddressAttribute, AddressMessage};
use netlink_packet_route::link::{
    InfoData, InfoKind, InfoVeth, LinkAttribute, LinkFlags, LinkInfo, LinkMessage,
};
use netlink_packet_route::route::{
    RouteAddress, RouteAttribute, RouteHeader, RouteMessage, RouteProtocol, RouteScope, RouteType,
};
use netlink_packet_route::{AddressFamily, RouteNetlinkMessage};

/// `ifindex` of `lo` in every network namespace.
pub const LOOPBACK_IFINDEX: u32 = 1;

/// One rtnetlink request: what it does (for errors), the message, and the
/// netlink header flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The step, e.g. `adding 10.20.1.2/24 to a0 in netns nl-7f3a-1-a`.
    pub step: String,
    /// The route-netlink message.
    pub message: RouteNetlinkMessage,
    /// Netlink header flags (`NLM_F_*`).
    pub flags: u16,
}

impl Request {
    /// True for a dump request (answered by a multipart series).
    pub fn is_dump(&self) -> bool {
        self.flags & NLM_F_DUMP == NLM_F_DUMP
    }

    /// The exact bytes sent to the kernel, with sequence number `seq`.
    pub fn to_bytes(&self, seq: u32) -> Vec<u8> {
        let mut header = NetlinkHeader::default();
        header.flags = self.flags;
        header.sequence_number = seq;
        let mut msg =
            NetlinkMessage::new(header, NetlinkPayload::InnerMessage(self.message.clone()));
        msg.finalize();
        let mut buf = vec![0u8; msg.buffer_len()];
        msg.serialize(&mut buf);
        buf
    }
}

const CREATE: u16 = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
const CHANGE: u16 = NLM_F_REQUEST | NLM_F_ACK;
const DUMP: u16 = NLM_F_REQUEST | NLM_F_DUMP;

/// One end of a veth pair: its name, the namespace it is created in (fd of
/// the open namespace file) and the ifindex requested for it there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VethEnd {
    /// Interface name.
    pub name: String,
    /// Fd of the destination namespace (`IFLA_NET_NS_FD`).
    pub netns_fd: RawFd,
    /// Requested ifindex inside that namespace (0: kernel chooses).
    pub ifindex: u32,
}

/// `RTM_NEWLINK` of a veth pair whose two ends are created straight in
/// their namespaces (`IFLA_NET_NS_FD` on the link and on the peer), both
/// with MTU `mtu` (`IFLA_MTU` on each: the peer does not inherit it).
pub fn new_veth_pair(end: &VethEnd, peer: &VethEnd, mtu: u32, step: String) -> Request {
    let mut peer_msg = LinkMessage::default();
    peer_msg.header.index = peer.ifindex;
    peer_msg.attributes = vec![
        LinkAttribute::IfName(peer.name.clone()),
        LinkAttribute::NetNsFd(peer.netns_fd),
        LinkAttribute::Mtu(mtu),
    ];
    let mut msg = LinkMessage::default();
    msg.header.index = end.ifindex;
    msg.attributes = vec![
        LinkAttribute::IfName(end.name.clone()),
        LinkAttribute::NetNsFd(end.netns_fd),
        LinkAttribute::Mtu(mtu),
        LinkAttribute::LinkInfo(vec![
            LinkInfo::Kind(InfoKind::Veth),
            LinkInfo::Data(InfoData::Veth(InfoVeth::Peer(peer_msg))),
        ]),
    ];
    Request {
        step,
        message: RouteNetlinkMessage::NewLink(msg),
        flags: CREATE,
    }
}

/// `RTM_NEWLINK` (change) setting `IFF_UP` on link `ifindex`.
pub fn set_link_up(ifindex: u32, step: String) -> Request {
    let mut msg = LinkMessage::default();
    msg.header.index = ifindex;
    msg.header.flags = LinkFlags::Up;
    msg.header.change_mask = LinkFlags::Up;
    Request {
        step,
        message: RouteNetlinkMessage::NewLink(msg),
        flags: CHANGE,
    }
}

/// `RTM_NEWADDR` of `addr/prefix_len` on link `ifindex`.
pub fn new_ipv4_address(ifindex: u32, addr: Ipv4Addr, prefix_len: u8, step: String) -> Request {
    let mut msg = AddressMessage::default();
    msg.header.family = AddressFamily::Inet;
    msg.header.prefix_len = prefix_len;
    msg.header.index = ifindex;
    msg.attributes = vec![
        AddressAttribute::Local(addr.into()),
        AddressAttribute::Address(addr.into()),
    ];
    Request {
        step,
        message: RouteNetlinkMessage::NewAddress(msg),
        flags: CREATE,
    }
}

/// `RTM_NEWROUTE` of the IPv4 default route via `gateway` in the main table.
pub fn new_default_route(gateway: Ipv4Addr, step: String) -> Request {
    let mut msg = RouteMessage::default();
    msg.header.address_family = AddressFamily::Inet;
    msg.header.destination_prefix_length = 0;
    msg.header.table = RouteHeader::RT_TABLE_MAIN;
    msg.header.protocol = RouteProtocol::Static;
    msg.header.scope = RouteScope::Universe;
    msg.header.kind = RouteType::Unicast;
    msg.attributes = vec![RouteAttribute::Gateway(RouteAddress::Inet(gateway))];
    Request {
        step,
        message: RouteNetlinkMessage::NewRoute(msg),
        flags: CREATE,
    }
}

/// `RTM_GETLINK` dump of every link.
pub fn dump_links(step: String) -> Request {
    Request {
        step,
        message: RouteNetlinkMessage::GetLink(LinkMessage::default()),
        flags: DUMP,
    }
}

/// `RTM_GETADDR` dump of IPv4 addresses.
pub fn dump_ipv4_addresses(step: String) -> Request {
    let mut msg = AddressMessage::default();
    msg.header.family = AddressFamily::Inet;
    Request {
        step,
        message: RouteNetlinkMessage::GetAddress(msg),
        flags: DUMP,
    }
}

/// `RTM_GETROUTE` dump of IPv4 routes.
pub fn dump_ipv4_routes(step: String) -> Request {
    let mut msg = RouteMessage::default();
    msg.header.address_family = AddressFamily::Inet;
    Request {
        step,
        message: RouteNetlinkMessage::GetRoute(msg),
        flags: DUMP,
    }
}

/// One decoded message of a kernel answer.
#[derive(Debug)]
pub enum Answer {
    /// `NLMSG_ERROR` with code 0: the ACK.
    Ack,
    /// `NLMSG_ERROR` with a negative errno (positive value given here).
    Errno(i32),
    /// `NLMSG_DONE`: end of a dump.
    Done,
    /// A route-netlink message (part of a dump).
    Message(Box<RouteNetlinkMessage>),
    /// Anything else (noop, overrun, unknown).
    Other,
}

/// Decodes every netlink message in `buf` (one datagram, or a dump's
/// messages concatenated), with its sequence number.
pub fn decode_datagram(buf: &[u8]) -> Result<Vec<(u32, Answer)>, String> {
    let mut out = Vec::new();
    for msg in Messages::new(buf) {
        let msg = msg.map_err(|e| e.to_string())?;
        let answer = match msg.kind() {
            NLMSG_ERROR => {
                let err = ErrorMessage::new_checked(&msg).map_err(|e| e.to_string())?;
                if err.is_ack() {
                    Answer::Ack
                } else {
                    Answer::Errno(err.errno())
                }
            }
            NLMSG_DONE => Answer::Done,
            _ => match NetlinkMessage::<RouteNetlinkMessage>::deserialize(msg.bytes()) {
                Ok(m) => match m.payload {
                    NetlinkPayload::InnerMessage(m) => Answer::Message(Box::new(m)),
                    _ => Answer::Other,
                },
                Err(e) => return Err(format!("message type {}: {e}", msg.kind())),
            },
        };
        out.push((msg.seq(), answer));
    }
    Ok(out)
}

/// Adds `ip`/[`PREFIX_LEN`](crate::addresses::PREFIX_LEN) to `ifname` (index `ifindex`) in namespace `ns`.
pub(crate) fn address(ifindex: u32, ip: std::net::Ipv4Addr, ifname: &str, ns: &str) -> Request {
    new_ipv4_address(
        ifindex,
        ip,
        PREFIX_LEN,
        format!("adding {ip}/{PREFIX_LEN} to {ifname} in netns {ns}"),
    )
}

/// Sets `ifname` (index `ifindex`) up in namespace `ns`.
pub(crate) fn link_up(ifindex: u32, ifname: &str, ns: &str) -> Request {
    set_link_up(ifindex, format!("setting {ifname} up in netns {ns}"))
}

/// A default route via `gw` in namespace `ns`.
pub(crate) fn default_route(gw: std::net::Ipv4Addr, ns: &str) -> Request {
    new_default_route(gw, format!("adding default route via {gw} in netns {ns}"))
}

/// One end of a veth pair: its name, namespace and interface index.
pub(crate) fn veth_end(name: &str, netns_fd: RawFd, ifindex: u32) -> VethEnd {
    VethEnd {
        name: name.to_owned(),
        netns_fd,
        ifindex,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks the netlink attributes in `buf`: (type without flags, payload).
    fn nlas(buf: &[u8]) -> Vec<(u16, &[u8])> {
        netlab_os::wire::Attrs::new(buf)
            .map(|a| {
                a.map(|a| (a.kind(), a.value()))
                    .expect("well-formed attribute")
            })
            .collect()
    }

    fn find<'a>(attrs: &[(u16, &'a [u8])], kind: u16) -> &'a [u8] {
        attrs
            .iter()
            .find(|(k, _)| *k == kind)
            .unwrap_or_else(|| panic!("attribute {kind} missing"))
            .1
    }

    fn u16_at(b: &[u8], off: usize) -> u16 {
        u16::from_ne_bytes([b[off], b[off + 1]])
    }
    fn u32_at(b: &[u8], off: usize) -> u32 {
        u32::from_ne_bytes(b[off..off + 4].try_into().unwrap())
    }

    #[test]
    fn veth_pair_bytes_put_both_ends_in_their_namespaces() {
        let a = VethEnd {
            name: "a0".into(),
            netns_fd: 7,
            ifindex: 2,
        };
        let r = VethEnd {
            name: "r0".into(),
            netns_fd: 9,
            ifindex: 2,
        };
        let b = new_veth_pair(&a, &r, 9000, "creating veth a0/r0".into()).to_bytes(42);
        // nlmsghdr
        assert_eq!(u32_at(&b, 0) as usize, b.len());
        assert_eq!(u16_at(&b, 4), 16, "RTM_NEWLINK");
        assert_eq!(u16_at(&b, 6), 0x605, "REQUEST|ACK|EXCL|CREATE");
        assert_eq!(u32_at(&b, 8), 42, "sequence number");
        // ifinfomsg: family 0, ifindex 2
        assert_eq!(b[16], 0);
        assert_eq!(u32_at(&b, 20), 2);
        let attrs = nlas(&b[32..]);
        assert_eq!(find(&attrs, 3), b"a0\0", "IFLA_IFNAME");
        assert_eq!(u32_at(find(&attrs, 28), 0), 7, "IFLA_NET_NS_FD");
        assert_eq!(u32_at(find(&attrs, 4), 0), 9000, "IFLA_MTU");
        let info = nlas(find(&attrs, 18)); // IFLA_LINKINFO
        assert_eq!(find(&info, 1), b"veth\0", "IFLA_INFO_KIND");
        let data = nlas(find(&info, 2)); // IFLA_INFO_DATA
        let peer = find(&data, 1); // VETH_INFO_PEER: ifinfomsg + attributes
        assert_eq!(u32_at(peer, 4), 2, "peer ifindex");
        let peer_attrs = nlas(&peer[16..]);
        assert_eq!(find(&peer_attrs, 3), b"r0\0");
        assert_eq!(u32_at(find(&peer_attrs, 28), 0), 9, "peer IFLA_NET_NS_FD");
        assert_eq!(u32_at(find(&peer_attrs, 4), 0), 9000, "peer IFLA_MTU");
    }

    #[test]
    fn address_bytes_exact() {
        let req = new_ipv4_address(2, Ipv4Addr::new(10, 20, 1, 2), 24, "s".into());
        let b = req.to_bytes(1);
        let mut want = Vec::new();
        want.extend_from_slice(&40u32.to_ne_bytes()); // nlmsg_len
        want.extend_from_slice(&20u16.to_ne_bytes()); // RTM_NEWADDR
        want.extend_from_slice(&0x605u16.to_ne_bytes());
        want.extend_from_slice(&1u32.to_ne_bytes()); // seq
        want.extend_from_slice(&0u32.to_ne_bytes()); // port id
        want.extend_from_slice(&[2, 24, 0, 0]); // AF_INET, /24, flags, scope
        want.extend_from_slice(&2u32.to_ne_bytes()); // ifindex
        want.extend_from_slice(&8u16.to_ne_bytes());
        want.extend_from_slice(&2u16.to_ne_bytes()); // IFA_LOCAL
        want.extend_from_slice(&[10, 20, 1, 2]);
        want.extend_from_slice(&8u16.to_ne_bytes());
        want.extend_from_slice(&1u16.to_ne_bytes()); // IFA_ADDRESS
        want.extend_from_slice(&[10, 20, 1, 2]);
        assert_eq!(b, want);
    }

    #[test]
    fn link_up_and_route_bytes() {
        let b = set_link_up(3, "s".into()).to_bytes(5);
        assert_eq!(u16_at(&b, 4), 16);
        assert_eq!(u16_at(&b, 6), 0x5, "REQUEST|ACK, no CREATE");
        assert_eq!(u32_at(&b, 20), 3);
        assert_eq!(u32_at(&b, 24) & 1, 1, "IFF_UP in flags");
        assert_eq!(u32_at(&b, 28), 1, "change mask IFF_UP only");

        let b = new_default_route(Ipv4Addr::new(10, 20, 1, 1), "s".into()).to_bytes(6);
        assert_eq!(u16_at(&b, 4), 24, "RTM_NEWROUTE");
        // rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type
        assert_eq!(&b[16..24], &[2, 0, 0, 0, 254, 4, 0, 1]);
        let attrs = nlas(&b[28..]);
        assert_eq!(find(&attrs, 5), &[10, 20, 1, 1], "RTA_GATEWAY");
    }

    #[test]
    fn dump_flags() {
        let r = dump_links("s".into());
        assert!(r.is_dump());
        assert_eq!(u16_at(&r.to_bytes(1), 6), 0x301);
        assert!(!set_link_up(1, "s".into()).is_dump());
    }

    #[test]
    fn decodes_ack_error_and_done() {
        let mut buf = Vec::new();
        for code in [0i32, -17] {
            buf.extend_from_slice(&36u32.to_ne_bytes());
            buf.extend_from_slice(&2u16.to_ne_bytes()); // NLMSG_ERROR
            buf.extend_from_slice(&0u16.to_ne_bytes());
            buf.extend_from_slice(&9u32.to_ne_bytes());
            buf.extend_from_slice(&0u32.to_ne_bytes());
            buf.extend_from_slice(&code.to_ne_bytes());
            buf.extend_from_slice(&[0u8; 16]); // echoed request header
        }
        buf.extend_from_slice(&20u32.to_ne_bytes());
        buf.extend_from_slice(&3u16.to_ne_bytes()); // NLMSG_DONE
        buf.extend_from_slice(&2u16.to_ne_bytes());
        buf.extend_from_slice(&10u32.to_ne_bytes());
        buf.extend_from_slice(&0u32.to_ne_bytes());
        buf.extend_from_slice(&0u32.to_ne_bytes());
        let got = decode_datagram(&buf).unwrap();
        assert!(matches!(got[0], (9, Answer::Ack)));
        assert!(matches!(got[1], (9, Answer::Errno(17))));
        assert!(matches!(got[2], (10, Answer::Done)));
        assert!(decode_datagram(&buf[..30]).is_err());
    }

    /// Fuzz reproducer (fuzz/README.md, topology_rtnl): an NLMSG_ERROR whose
    /// code is i32::MIN made `-code` overflow (a panic in debug builds).
    #[test]
    fn error_code_i32_min_does_not_overflow() {
        const FUZZ_CRASH: &str = "4c000000020001007a001a710007fee70000008000000014000600000200ffff00ffffffffffffff0701081406000013000200013f0003000081fffdffffff080001500a140101080002003f000300723200001000080008008000000014000600000200ffff00ffffffffffffff0701081406000013000200013f0003007231ff8000000014000000";
        let bytes: Vec<u8> = (0..FUZZ_CRASH.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&FUZZ_CRASH[i..i + 2], 16).unwrap())
            .collect();
        let _ = decode_datagram(&bytes);

        let mut buf = Vec::new();
        buf.extend_from_slice(&36u32.to_ne_bytes());
        buf.extend_from_slice(&2u16.to_ne_bytes()); // NLMSG_ERROR
        buf.extend_from_slice(&0u16.to_ne_bytes());
        buf.extend_from_slice(&5u32.to_ne_bytes());
        buf.extend_from_slice(&0u32.to_ne_bytes());
        buf.extend_from_slice(&i32::MIN.to_ne_bytes());
        buf.extend_from_slice(&[0u8; 16]);
        let got = decode_datagram(&buf).unwrap();
        assert!(matches!(got[..], [(5, Answer::Errno(i32::MAX))]));
    }
}
