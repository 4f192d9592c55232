//! ethtool's generic-netlink family, as plain values (pure): the request
//! that resolves the family's id (`CTRL_CMD_GETFAMILY "ethtool"`), the
//! features requests (`ETHTOOL_MSG_FEATURES_GET` / `_SET`) and checked
//! views of their replies; which features aggregate packets (method §1.6).
//! The private `offloads` module sends them inside each namespace.
//!
//! Bitsets are asked for in their verbose form (no
//! `ETHTOOL_FLAG_COMPACT_BITSETS`): each bit with its index and the
//! kernel's name for it, so the reply is read by name and no string set is
//! needed. The reply's four bitsets (`HW`: changeable, `WANTED`, `ACTIVE`,
//! `NOCHANGE`: never changeable) are lists of the bits that are set.
//!
//! ```
//! use netlab_topology::ethtool::{self, GenlRequest};
//! let req = ethtool::features_set(27, "r1", &["rx-gro"], "turning rx-gro off on r1".into());
//! let bytes = req.to_bytes(1);
//! assert_eq!(u16::from_ne_bytes([bytes[4], bytes[5]]), 27); // the family id
//! assert_eq!(bytes[16], ethtool::ETHTOOL_MSG_FEATURES_SET);
//! assert!(ethtool::is_aggregation_feature("tx-tcp6-segmentation"));
//! assert!(!ethtool::is_aggregation_feature("tx-checksum-ip-generic"));
//! ```

use std::collections::BTreeSet;

use netlab_os::wire::{Attr, Attrs, Message, Messages, WireError, NLA_F_NESTED, NLMSG_HDRLEN};
use serde::{Deserialize, Serialize};

/// `GENL_ID_CTRL`: the controller family's fixed id.
pub const GENL_ID_CTRL: u16 = 0x10;
/// `CTRL_CMD_GETFAMILY`.
pub const CTRL_CMD_GETFAMILY: u8 = 3;
/// `CTRL_CMD_NEWFAMILY`: the controller's answer.
pub const CTRL_CMD_NEWFAMILY: u8 = 1;
/// `CTRL_ATTR_FAMILY_ID` (u16).
pub const CTRL_ATTR_FAMILY_ID: u16 = 1;
/// `CTRL_ATTR_FAMILY_NAME` (string).
pub const CTRL_ATTR_FAMILY_NAME: u16 = 2;
/// `ETHTOOL_GENL_NAME`.
pub const ETHTOOL_GENL_NAME: &str = "ethtool";
/// `ETHTOOL_GENL_VERSION`.
pub const ETHTOOL_GENL_VERSION: u8 = 1;
/// `ETHTOOL_MSG_FEATURES_GET` (also its reply's command).
pub const ETHTOOL_MSG_FEATURES_GET: u8 = 11;
/// `ETHTOOL_MSG_FEATURES_SET`.
pub const ETHTOOL_MSG_FEATURES_SET: u8 = 12;
/// `ETHTOOL_MSG_FEATURES_GET_REPLY`.
pub const ETHTOOL_MSG_FEATURES_GET_REPLY: u8 = 11;
/// `ETHTOOL_A_HEADER_DEV_INDEX` (u32).
pub const ETHTOOL_A_HEADER_DEV_INDEX: u16 = 1;
/// `ETHTOOL_A_HEADER_DEV_NAME` (string).
pub const ETHTOOL_A_HEADER_DEV_NAME: u16 = 2;
/// `ETHTOOL_A_HEADER_FLAGS` (u32).
pub const ETHTOOL_A_HEADER_FLAGS: u16 = 3;
/// `ETHTOOL_FLAG_COMPACT_BITSETS`.
pub const ETHTOOL_FLAG_COMPACT_BITSETS: u32 = 1 << 0;
/// `ETHTOOL_FLAG_OMIT_REPLY`: no `_SET_REPLY`, only the ACK.
pub const ETHTOOL_FLAG_OMIT_REPLY: u32 = 1 << 1;
/// `ETHTOOL_A_FEATURES_HEADER` (nest).
pub const ETHTOOL_A_FEATURES_HEADER: u16 = 1;
/// `ETHTOOL_A_FEATURES_HW` (bitset): the features that can be changed.
pub const ETHTOOL_A_FEATURES_HW: u16 = 2;
/// `ETHTOOL_A_FEATURES_WANTED` (bitset).
pub const ETHTOOL_A_FEATURES_WANTED: u16 = 3;
/// `ETHTOOL_A_FEATURES_ACTIVE` (bitset).
pub const ETHTOOL_A_FEATURES_ACTIVE: u16 = 4;
/// `ETHTOOL_A_FEATURES_NOCHANGE` (bitset): never changeable.
pub const ETHTOOL_A_FEATURES_NOCHANGE: u16 = 5;
/// `ETHTOOL_A_BITSET_NOMASK` (flag): a list of the set bits.
pub const ETHTOOL_A_BITSET_NOMASK: u16 = 1;
/// `ETHTOOL_A_BITSET_SIZE` (u32).
pub const ETHTOOL_A_BITSET_SIZE: u16 = 2;
/// `ETHTOOL_A_BITSET_BITS` (nest of `_BITS_BIT`).
pub const ETHTOOL_A_BITSET_BITS: u16 = 3;
/// `ETHTOOL_A_BITSET_VALUE` (compact form only).
pub const ETHTOOL_A_BITSET_VALUE: u16 = 4;
/// `ETHTOOL_A_BITSET_BITS_BIT` (nest).
pub const ETHTOOL_A_BITSET_BITS_BIT: u16 = 1;
/// `ETHTOOL_A_BITSET_BIT_INDEX` (u32).
pub const ETHTOOL_A_BITSET_BIT_INDEX: u16 = 1;
/// `ETHTOOL_A_BITSET_BIT_NAME` (string).
pub const ETHTOOL_A_BITSET_BIT_NAME: u16 = 2;
/// `ETHTOOL_A_BITSET_BIT_VALUE` (flag).
pub const ETHTOOL_A_BITSET_BIT_VALUE: u16 = 3;

/// Length of `struct genlmsghdr` (cmd, version, reserved).
pub const GENL_HDRLEN: usize = 4;

/// The features `offloads = "off"` turns off, by the kernel's names
/// (`netdev_features_strings`): GSO, every TSO variant, the UDP
/// segmentation, GSO lists, GRO, hardware GRO, LRO, GRO lists and UDP GRO
/// forwarding. They are always recorded; any other feature whose name
/// [`is_aggregation_feature`] matches (the tunnel segmentations) is
/// recorded and turned off too.
pub const AGGREGATION_FEATURES: [&str; 12] = [
    "tx-generic-segmentation",
    "tx-tcp-segmentation",
    "tx-tcp-ecn-segmentation",
    "tx-tcp-mangleid-segmentation",
    "tx-tcp6-segmentation",
    "tx-udp-segmentation",
    "tx-gso-list",
    "rx-gro",
    "rx-gro-hw",
    "rx-lro",
    "rx-gro-list",
    "rx-udp-gro-forwarding",
];

/// Whether a feature makes one skb carry several packets: any
/// segmentation offload (`tx-*-segmentation`, `tx-gso-*`), and any
/// receive aggregation (`rx-gro*`, `rx-lro`, `rx-udp-gro-forwarding`).
pub fn is_aggregation_feature(name: &str) -> bool {
    (name.starts_with("tx-") && name.ends_with("-segmentation"))
        || name.starts_with("tx-gso-")
        || name.starts_with("rx-gro")
        || name == "rx-lro"
        || name == "rx-udp-gro-forwarding"
}

/// One generic-netlink request: the family's id, its command and version,
/// the attributes (already encoded), the step it performs (for errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenlRequest {
    /// What it does, e.g. `turning offloads off on r1 in netns nl-…-r`.
    pub step: String,
    /// `nlmsg_type`: the family's id.
    pub family: u16,
    /// `genlmsghdr.cmd`.
    pub cmd: u8,
    /// `genlmsghdr.version`.
    pub version: u8,
    /// The attributes after the genetlink header.
    pub attrs: Vec<u8>,
}

impl GenlRequest {
    /// The exact bytes sent, with sequence number `seq` (the socket sets
    /// the flags its wait needs: `NLM_F_REQUEST | NLM_F_ACK`).
    pub fn to_bytes(&self, seq: u32) -> Vec<u8> {
        let len = NLMSG_HDRLEN + GENL_HDRLEN + self.attrs.len();
        let mut b = Vec::with_capacity(len);
        b.extend_from_slice(&(len as u32).to_ne_bytes());
        b.extend_from_slice(&self.family.to_ne_bytes());
        b.extend_from_slice(&0u16.to_ne_bytes()); // flags: the socket's
        b.extend_from_slice(&seq.to_ne_bytes());
        b.extend_from_slice(&0u32.to_ne_bytes()); // port id
        b.extend_from_slice(&[self.cmd, self.version, 0, 0]);
        b.extend_from_slice(&self.attrs);
        b
    }
}

/// Appends one attribute (header, value, padding to 4 bytes).
fn put(buf: &mut Vec<u8>, kind: u16, value: &[u8]) {
    let len = 4 + value.len();
    buf.extend_from_slice(&(len as u16).to_ne_bytes());
    buf.extend_from_slice(&kind.to_ne_bytes());
    buf.extend_from_slice(value);
    buf.resize(netlab_os::wire::align4(buf.len()), 0);
}

/// A NUL-terminated string attribute.
fn put_str(buf: &mut Vec<u8>, kind: u16, s: &str) {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    put(buf, kind, &v);
}

/// A nested attribute (`NLA_F_NESTED` set: ethtool's policies are strict).
fn put_nest(buf: &mut Vec<u8>, kind: u16, inner: &[u8]) {
    put(buf, kind | NLA_F_NESTED, inner);
}

/// `ETHTOOL_A_*_HEADER` naming the device by name, with `flags`.
fn header(dev: &str, flags: u32) -> Vec<u8> {
    let mut h = Vec::new();
    put_str(&mut h, ETHTOOL_A_HEADER_DEV_NAME, dev);
    if flags != 0 {
        put(&mut h, ETHTOOL_A_HEADER_FLAGS, &flags.to_ne_bytes());
    }
    h
}

/// `CTRL_CMD_GETFAMILY` of `name` (answered by `CTRL_CMD_NEWFAMILY`).
pub fn get_family(name: &str, step: String) -> GenlRequest {
    let mut attrs = Vec::new();
    put_str(&mut attrs, CTRL_ATTR_FAMILY_NAME, name);
    GenlRequest {
        step,
        family: GENL_ID_CTRL,
        cmd: CTRL_CMD_GETFAMILY,
        version: 1,
        attrs,
    }
}

/// `ETHTOOL_MSG_FEATURES_GET` of device `dev`, verbose bitsets.
pub fn features_get(family: u16, dev: &str, step: String) -> GenlRequest {
    let mut attrs = Vec::new();
    put_nest(&mut attrs, ETHTOOL_A_FEATURES_HEADER, &header(dev, 0));
    GenlRequest {
        step,
        family,
        cmd: ETHTOOL_MSG_FEATURES_GET,
        version: ETHTOOL_GENL_VERSION,
        attrs,
    }
}

/// `ETHTOOL_MSG_FEATURES_SET` of device `dev` turning the features `off`
/// off: `WANTED` as a verbose bitset with a mask (no `NOMASK`), each
/// feature listed by name without `VALUE`, so those bits become 0 and no
/// other bit changes. No reply beyond the ACK (`ETHTOOL_FLAG_OMIT_REPLY`):
/// the caller reads the state back with [`features_get`].
pub fn features_set(family: u16, dev: &str, off: &[&str], step: String) -> GenlRequest {
    let mut bits = Vec::new();
    for name in off {
        let mut bit = Vec::new();
        put_str(&mut bit, ETHTOOL_A_BITSET_BIT_NAME, name);
        put_nest(&mut bits, ETHTOOL_A_BITSET_BITS_BIT, &bit);
    }
    let mut wanted = Vec::new();
    put_nest(&mut wanted, ETHTOOL_A_BITSET_BITS, &bits);
    let mut attrs = Vec::new();
    put_nest(
        &mut attrs,
        ETHTOOL_A_FEATURES_HEADER,
        &header(dev, ETHTOOL_FLAG_OMIT_REPLY),
    );
    put_nest(&mut attrs, ETHTOOL_A_FEATURES_WANTED, &wanted);
    GenlRequest {
        step,
        family,
        cmd: ETHTOOL_MSG_FEATURES_SET,
        version: ETHTOOL_GENL_VERSION,
        attrs,
    }
}

/// The one generic-netlink message of a `get` answer: its command and
/// its attributes, length-checked.
fn genl_message<'a>(answer: &'a [u8], what: &'a str) -> Result<(u8, Attrs<'a>), WireError> {
    let mut msgs = Messages::new(answer);
    let msg: Message<'a> = msgs
        .next()
        .ok_or_else(|| WireError::new(what, "no message in the answer"))??;
    let body = msg.payload();
    if body.len() < GENL_HDRLEN {
        return Err(WireError::new(
            what,
            format!(
                "body of {} bytes, need the {GENL_HDRLEN}-byte genetlink header",
                body.len()
            ),
        ));
    }
    Ok((body[0], msg.attrs_after(GENL_HDRLEN, what)?))
}

/// The family id in the controller's answer to [`get_family`].
pub fn parse_family_id(answer: &[u8]) -> Result<u16, WireError> {
    const WHAT: &str = "CTRL_CMD_NEWFAMILY";
    let (cmd, attrs) = genl_message(answer, WHAT)?;
    if cmd != CTRL_CMD_NEWFAMILY {
        return Err(WireError::new(
            WHAT,
            format!("command {cmd}, not {CTRL_CMD_NEWFAMILY}"),
        ));
    }
    attrs
        .find(CTRL_ATTR_FAMILY_ID)?
        .ok_or_else(|| WireError::new(WHAT, "no CTRL_ATTR_FAMILY_ID"))?
        .u16()
}

/// One device's features as the kernel reported them (`ethtool -k`), by
/// name: each set lists the features whose bit is set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeaturesReply {
    /// The device's name from the reply's header.
    pub dev: String,
    /// The device's ifindex from the reply's header.
    pub ifindex: u32,
    /// Changeable (`hw_features`).
    pub hw: BTreeSet<String>,
    /// Asked for.
    pub wanted: BTreeSet<String>,
    /// In effect.
    pub active: BTreeSet<String>,
    /// Never changeable (`NETIF_F_NEVER_CHANGE`).
    pub nochange: BTreeSet<String>,
}

impl FeaturesReply {
    /// Whether the kernel will not change `name` (`[fixed]` in `ethtool -k`):
    /// not in the changeable set, or in the never-change set.
    pub fn is_fixed(&self, name: &str) -> bool {
        !self.hw.contains(name) || self.nochange.contains(name)
    }

    /// The aggregation features to record: [`AGGREGATION_FEATURES`] and
    /// every other one the reply names that [`is_aggregation_feature`]
    /// matches, in name order.
    pub fn aggregation_features(&self) -> BTreeSet<&str> {
        let named = [&self.hw, &self.wanted, &self.active, &self.nochange]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .filter(|n| is_aggregation_feature(n));
        AGGREGATION_FEATURES.iter().copied().chain(named).collect()
    }

    /// The state of every aggregation feature.
    pub fn aggregation_states(&self) -> Vec<FeatureState> {
        self.aggregation_features()
            .into_iter()
            .map(|name| FeatureState {
                name: name.to_owned(),
                active: self.active.contains(name),
                fixed: self.is_fixed(name),
            })
            .collect()
    }
}

/// One feature of one veth end, as read back (results.json).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureState {
    /// The kernel's name (`tx-tcp-segmentation`).
    pub name: String,
    /// In effect.
    pub active: bool,
    /// The kernel will not change it (`[fixed]`).
    pub fixed: bool,
}

/// The bits set in a verbose bitset, by name: with `NOMASK` every listed
/// bit; with a mask the listed bits that carry `VALUE`.
fn bitset_names(attr: &Attr<'_>, what: &str) -> Result<BTreeSet<String>, WireError> {
    let mut nomask = false;
    let mut bits = None;
    for a in attr.nested() {
        let a = a?;
        match a.kind() {
            ETHTOOL_A_BITSET_NOMASK => nomask = true,
            ETHTOOL_A_BITSET_BITS => bits = Some(a),
            ETHTOOL_A_BITSET_VALUE => {
                return Err(WireError::new(
                    what,
                    "a compact bitset (netlab asks for the verbose form)",
                ))
            }
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    let Some(bits) = bits else { return Ok(out) };
    for bit in bits.nested() {
        let bit = bit?;
        if bit.kind() != ETHTOOL_A_BITSET_BITS_BIT {
            continue;
        }
        let mut name = None;
        let mut value = false;
        for f in bit.nested() {
            let f = f?;
            match f.kind() {
                ETHTOOL_A_BITSET_BIT_NAME => name = Some(f.string_lossy()),
                ETHTOOL_A_BITSET_BIT_VALUE => value = true,
                _ => {}
            }
        }
        let name = name.ok_or_else(|| WireError::new(what, "a bit without a name"))?;
        if nomask || value {
            out.insert(name);
        }
    }
    Ok(out)
}

/// Reads the answer to [`features_get`].
pub fn parse_features_reply(answer: &[u8]) -> Result<FeaturesReply, WireError> {
    const WHAT: &str = "ETHTOOL_MSG_FEATURES_GET_REPLY";
    let (cmd, attrs) = genl_message(answer, WHAT)?;
    if cmd != ETHTOOL_MSG_FEATURES_GET_REPLY {
        return Err(WireError::new(
            WHAT,
            format!("command {cmd}, not {ETHTOOL_MSG_FEATURES_GET_REPLY}"),
        ));
    }
    let mut r = FeaturesReply::default();
    let mut seen = [false; 4];
    for a in attrs {
        let a = a?;
        let (slot, set) = match a.kind() {
            ETHTOOL_A_FEATURES_HEADER => {
                for h in a.nested() {
                    let h = h?;
                    match h.kind() {
                        ETHTOOL_A_HEADER_DEV_NAME => r.dev = h.string_lossy(),
                        ETHTOOL_A_HEADER_DEV_INDEX => r.ifindex = h.u32()?,
                        _ => {}
                    }
                }
                continue;
            }
            ETHTOOL_A_FEATURES_HW => (0, &mut r.hw),
            ETHTOOL_A_FEATURES_WANTED => (1, &mut r.wanted),
            ETHTOOL_A_FEATURES_ACTIVE => (2, &mut r.active),
            ETHTOOL_A_FEATURES_NOCHANGE => (3, &mut r.nochange),
            _ => continue,
        };
        *set = bitset_names(&a, WHAT)?;
        seen[slot] = true;
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        let names = ["HW", "WANTED", "ACTIVE", "NOCHANGE"];
        return Err(WireError::new(
            WHAT,
            format!("no ETHTOOL_A_FEATURES_{}", names[i]),
        ));
    }
    Ok(r)
}

#[cfg(test)]
mod tests;
