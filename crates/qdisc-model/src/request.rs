//! RTM_NEWQDISC requests as plain values: the bytes to send, the `tc`
//! command line a person could paste instead, and what they are for.

use netlink_packet_core::{
    DefaultNla, Emitable, NetlinkHeader, NetlinkMessage, NetlinkPayload, NLA_F_NESTED, NLM_F_ACK,
    NLM_F_CREATE, NLM_F_DUMP, NLM_F_EXCL, NLM_F_REQUEST,
};
use netlink_packet_route::tc::{TcAttribute, TcHandle, TcHeader, TcMessage};
use netlink_packet_route::RouteNetlinkMessage;
use serde::{Deserialize, Serialize};

use crate::arm::OptionsPayload;
use crate::{Arm, Handle, ModelError, Psched, Tbf};

/// `TCA_OPTIONS` (`linux/rtnetlink.h`).
const TCA_OPTIONS: u16 = 2;

/// TBF's handle: `1:`.
pub const TBF_HANDLE: Handle = Handle::new(1, 0);
/// Where the arm hangs: TBF's class `1:1`.
pub const ARM_PARENT: Handle = Handle::new(1, 1);
/// The arm's handle: `10:` (hex, so 0x10).
pub const ARM_HANDLE: Handle = Handle::new(0x10, 0);

/// One qdisc request, built but not sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QdiscRequest {
    /// Qdisc kind, e.g. `tbf`.
    pub kind: String,
    /// Interface name (as used in `tc_argv`).
    pub dev: String,
    /// Interface index the bytes name.
    pub ifindex: u32,
    /// The new qdisc's handle.
    pub handle: Handle,
    /// Its parent (`root` or a class).
    pub parent: Handle,
    /// The equivalent command, e.g. `["tc","qdisc","add","dev","r1","root","handle","1:","tbf",...]`.
    pub tc_argv: Vec<String>,
    /// The netlink request (header included), lowercase hex.
    pub netlink_hex: String,
}

impl QdiscRequest {
    /// The request bytes.
    pub fn bytes(&self) -> Vec<u8> {
        hex::decode(&self.netlink_hex).unwrap_or_default()
    }

    /// `tc_argv` joined with spaces.
    pub fn tc_command(&self) -> String {
        self.tc_argv.join(" ")
    }

    /// `tc_argv` prefixed with `ip netns exec <netns>`, to paste on the host.
    pub fn tc_argv_in_netns(&self, netns: &str) -> Vec<String> {
        let mut v: Vec<String> = ["ip", "netns", "exec", netns]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend(self.tc_argv.iter().cloned());
        v
    }
}

/// The bottleneck of method §2: a root TBF with the arm as its only child.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BottleneckSpec {
    /// Root shaper at `root handle 1:`.
    pub tbf: Tbf,
    /// Child at `parent 1:1 handle 10:`.
    pub arm: Arm,
}

impl BottleneckSpec {
    /// method §2's TBF with `arm` as child.
    pub fn spec(arm: Arm) -> BottleneckSpec {
        BottleneckSpec {
            tbf: Tbf::spec_default(),
            arm,
        }
    }

    /// What a reader must know next to the numbers (method §2), worded for
    /// this bottleneck.
    pub fn caveats(&self) -> Vec<String> {
        let rate = self.tbf.rate.bytes_per_sec().max(1) as f64;
        let tbf_lat_ms = self.tbf.limit.0 as f64 / rate * 1e3;
        vec![
            format!(
                "TBF's own limit {} (about {tbf_lat_ms:.0} ms at {}) bounds only its default inner bfifo;                  the child {} replaces it, so the child's limit is the effective queue bound",
                self.tbf.limit,
                self.tbf.rate,
                self.arm.kind()
            ),
            "packet limits are not equal bytes or memory (skb and GSO sizes vary); fq_codel also adds              flow queueing and a memory limit: this is not a single-variable AQM comparison"
                .to_string(),
            "parent and child drop counters can count the same packet: never sum them".to_string(),
            "TBF overlimits count shaping events, not loss".to_string(),
            "the final readback is taken while traffic can still drain: parent and child counters are              not an atomic snapshot, and counters cover warm-up and termination"
                .to_string(),
        ]
    }

    /// The two requests, in order: root TBF (`seq` 1), then the arm (`seq` 2).
    pub fn requests(
        &self,
        dev: &str,
        ifindex: u32,
        psched: &Psched,
    ) -> Result<Vec<QdiscRequest>, ModelError> {
        Ok(vec![
            tbf_request(dev, ifindex, TBF_HANDLE, Handle::ROOT, &self.tbf, psched, 1)?,
            arm_request(dev, ifindex, ARM_HANDLE, ARM_PARENT, &self.arm, 2)?,
        ])
    }
}

/// `tc qdisc add dev <dev> <parent> handle <handle> tbf rate .. burst .. limit ..`.
pub fn tbf_request(
    dev: &str,
    ifindex: u32,
    handle: Handle,
    parent: Handle,
    tbf: &Tbf,
    psched: &Psched,
    seq: u32,
) -> Result<QdiscRequest, ModelError> {
    build(
        dev,
        ifindex,
        handle,
        parent,
        "tbf",
        OptionsPayload::Nested(tbf.nested_options(psched)?),
        tbf.tc_words(),
        seq,
    )
}

/// `tc qdisc add dev <dev> <parent> handle <handle> <arm words>`.
pub fn arm_request(
    dev: &str,
    ifindex: u32,
    handle: Handle,
    parent: Handle,
    arm: &Arm,
    seq: u32,
) -> Result<QdiscRequest, ModelError> {
    arm.validate()?;
    build(
        dev,
        ifindex,
        handle,
        parent,
        arm.kind(),
        arm.options_payload()?,
        arm.tc_words(),
        seq,
    )
}

/// A request that names only the kind (kernel defaults for everything),
/// used by the support probe.
pub fn bare_request(
    dev: &str,
    ifindex: u32,
    handle: Handle,
    parent: Handle,
    kind: &str,
    seq: u32,
) -> QdiscRequest {
    build(
        dev,
        ifindex,
        handle,
        parent,
        kind,
        OptionsPayload::None,
        Vec::new(),
        seq,
    )
    .expect("a bare request has nothing to validate")
}

/// `RTM_DELQDISC` for `parent` on `ifindex` (used to clean up probes).
pub fn delete_request_bytes(ifindex: u32, parent: Handle, seq: u32) -> Vec<u8> {
    let header = TcHeader {
        index: ifindex as i32,
        parent: TcHandle::from(parent.0),
        ..TcHeader::default()
    };
    serialize(
        RouteNetlinkMessage::DelQueueDiscipline(TcMessage::from_parts(header, Vec::new())),
        NLM_F_REQUEST | NLM_F_ACK,
        seq,
    )
}

/// `RTM_GETQDISC` dump of every qdisc of the namespace (an all-zero
/// `struct tcmsg`); the socket stamps the sequence number.
pub fn dump_request_bytes() -> Vec<u8> {
    serialize(
        RouteNetlinkMessage::GetQueueDiscipline(TcMessage::default()),
        NLM_F_REQUEST | NLM_F_DUMP,
        0,
    )
}

/// What an RTM_NEWQDISC request asks: a new qdisc (`tc qdisc add`:
/// `NLM_F_CREATE | NLM_F_EXCL`) or new options for the one at that handle
/// (`tc qdisc change`: neither flag, so the kernel calls the kind's
/// `change` and creates nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    Add,
    Change,
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    dev: &str,
    ifindex: u32,
    handle: Handle,
    parent: Handle,
    kind: &str,
    payload: OptionsPayload,
    words: Vec<String>,
    seq: u32,
) -> Result<QdiscRequest, ModelError> {
    build_as(
        Verb::Add,
        dev,
        ifindex,
        handle,
        parent,
        kind,
        payload,
        words,
        seq,
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn build_as(
    verb: Verb,
    dev: &str,
    ifindex: u32,
    handle: Handle,
    parent: Handle,
    kind: &str,
    payload: OptionsPayload,
    words: Vec<String>,
    seq: u32,
) -> Result<QdiscRequest, ModelError> {
    let index = i32::try_from(ifindex)
        .map_err(|_| ModelError::bad("ifindex", ifindex.to_string(), "too large"))?;
    let header = TcHeader {
        index,
        handle: TcHandle::from(handle.0),
        parent: TcHandle::from(parent.0),
        ..TcHeader::default()
    };
    let mut attrs = vec![TcAttribute::Kind(kind.to_string())];
    match payload {
        OptionsPayload::None => {}
        // TCA_OPTIONS = 2 carrying a bare struct, not nested attributes.
        OptionsPayload::Raw(bytes) => {
            attrs.push(TcAttribute::Other(DefaultNla::new(TCA_OPTIONS, bytes)))
        }
        OptionsPayload::Nested(opts) => attrs.push(TcAttribute::Options(opts)),
        OptionsPayload::NestedFlagged(opts) => {
            let mut value = vec![0u8; opts.as_slice().buffer_len()];
            opts.as_slice().emit(&mut value);
            attrs.push(TcAttribute::Other(DefaultNla::new(
                TCA_OPTIONS | NLA_F_NESTED,
                value,
            )));
        }
    }
    let (flags, word) = match verb {
        Verb::Add => (NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE, "add"),
        Verb::Change => (NLM_F_REQUEST | NLM_F_ACK, "change"),
    };
    let bytes = serialize(
        RouteNetlinkMessage::NewQueueDiscipline(TcMessage::from_parts(header, attrs)),
        flags,
        seq,
    );
    let mut tc_argv: Vec<String> = ["tc", "qdisc", word, "dev", dev]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if parent == Handle::ROOT {
        tc_argv.push("root".into());
    } else {
        tc_argv.push("parent".into());
        tc_argv.push(parent.to_string());
    }
    tc_argv.push("handle".into());
    tc_argv.push(handle.to_string());
    tc_argv.push(kind.to_string());
    tc_argv.extend(words);
    Ok(QdiscRequest {
        kind: kind.to_string(),
        dev: dev.to_string(),
        ifindex,
        handle,
        parent,
        tc_argv,
        netlink_hex: hex::encode(&bytes),
    })
}

fn serialize(msg: RouteNetlinkMessage, flags: u16, seq: u32) -> Vec<u8> {
    let mut header = NetlinkHeader::default();
    header.flags = flags;
    header.sequence_number = seq;
    let mut nl = NetlinkMessage::new(header, NetlinkPayload::InnerMessage(msg));
    nl.finalize();
    let mut buf = vec![0u8; nl.buffer_len()];
    nl.serialize(&mut buf);
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_bottleneck_has_two_requests_with_pasteable_tc_lines() {
        let reqs = BottleneckSpec::spec(Arm::spec_pfifo())
            .requests("r1", 3, &Psched::MODERN)
            .unwrap();
        assert_eq!(
            reqs[0].tc_command(),
            "tc qdisc add dev r1 root handle 1: tbf rate 5mbit burst 16kb limit 64kb"
        );
        assert_eq!(
            reqs[1].tc_command(),
            "tc qdisc add dev r1 parent 1:1 handle 10: pfifo limit 256"
        );
        assert_eq!(
            reqs[1].tc_argv_in_netns("nl-x-r")[..4],
            ["ip", "netns", "exec", "nl-x-r"].map(String::from)
        );
        assert_eq!(reqs[0].handle, Handle(0x1_0000));
        assert_eq!(reqs[1].handle, Handle(0x10_0000));
        assert_eq!(reqs[1].parent, Handle(0x1_0001));
        let c = BottleneckSpec::spec(Arm::spec_fq_codel()).caveats();
        assert!(
            c[0].starts_with("TBF's own limit 64kb (about 105 ms at 5mbit)"),
            "{}",
            c[0]
        );
        assert!(c[0].contains("the child fq_codel replaces it"));
    }

    #[test]
    fn dump_request_is_a_bare_rtm_getqdisc() {
        let b = dump_request_bytes();
        let msg = netlab_netlink_views::Message::new_checked(&b).unwrap();
        assert_eq!((msg.len(), msg.kind()), (16 + 20, 38));
        assert_eq!(msg.flags(), NLM_F_REQUEST | NLM_F_DUMP);
        assert_eq!(msg.payload(), &[0u8; 20]);
    }
}
