//! The rtnetlink socket of a namespace: [`crate::rtnl`]'s requests sent
//! through netlab-os's socket, ACKs checked and dumps decoded.

use netlab_os::{NetlinkSocket, Protocol};
use netlink_packet_route::RouteNetlinkMessage;

use crate::rtnl::{decode_datagram, Answer, Request};
use crate::TopologyError;

/// Opens an rtnetlink socket in the calling thread's namespace (`netns`
/// names it in errors).
pub(crate) fn open(netns: &str) -> Result<NetlinkSocket, TopologyError> {
    Ok(NetlinkSocket::open(
        Protocol::Route,
        format!("netns {netns}"),
    )?)
}

/// Sends a request and checks its ACK.
pub(crate) fn apply(sock: &NetlinkSocket, req: &Request) -> Result<(), TopologyError> {
    Ok(sock.ack(&req.to_bytes(0), &req.step)?)
}

/// Sends a dump request and decodes the messages until `NLMSG_DONE`.
pub(crate) fn dump(
    sock: &NetlinkSocket,
    req: &Request,
) -> Result<Vec<RouteNetlinkMessage>, TopologyError> {
    let raw = sock.dump(&req.to_bytes(0), &req.step)?;
    let answers = decode_datagram(&raw).map_err(|reason| TopologyError::Decode {
        step: req.step.clone(),
        reason,
    })?;
    Ok(answers
        .into_iter()
        .filter_map(|(_, a)| match a {
            Answer::Message(m) => Some(*m),
            _ => None,
        })
        .collect())
}
