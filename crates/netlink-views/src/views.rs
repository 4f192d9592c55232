use crate::WireError;

/// Length of `struct nlmsghdr`.
pub const NLMSG_HDRLEN: usize = 16;
/// Length of `struct nlattr`.
pub const NLA_HDRLEN: usize = 4;
/// `NLMSG_NOOP`.
pub const NLMSG_NOOP: u16 = 1;
/// `NLMSG_ERROR`: an ACK (errno 0) or a refusal.
pub const NLMSG_ERROR: u16 = 2;
/// `NLMSG_DONE`: the end of a dump.
pub const NLMSG_DONE: u16 = 3;
/// `NLMSG_OVERRUN`.
pub const NLMSG_OVERRUN: u16 = 4;

/// `NLM_F_REQUEST`.
pub const NLM_F_REQUEST: u16 = 0x1;
/// `NLM_F_MULTI`.
pub const NLM_F_MULTI: u16 = 0x2;
/// `NLM_F_ACK`.
pub const NLM_F_ACK: u16 = 0x4;
/// `NLM_F_DUMP_INTR`: the dump was interrupted by a change.
pub const NLM_F_DUMP_INTR: u16 = 0x10;
/// `NLM_F_DUMP` (`NLM_F_ROOT | NLM_F_MATCH`).
pub const NLM_F_DUMP: u16 = 0x300;
/// `NLM_F_REPLACE` (for `NEW` requests).
pub const NLM_F_REPLACE: u16 = 0x100;
/// `NLM_F_EXCL` (for `NEW` requests).
pub const NLM_F_EXCL: u16 = 0x200;
/// `NLM_F_CREATE` (for `NEW` requests).
pub const NLM_F_CREATE: u16 = 0x400;
/// `NLM_F_CAPPED` (on `NLMSG_ERROR`): the echoed request is only its header.
pub const NLM_F_CAPPED: u16 = 0x100;
/// `NLM_F_ACK_TLVS` (on `NLMSG_ERROR`): extended-ack attributes follow.
pub const NLM_F_ACK_TLVS: u16 = 0x200;
/// `NLMSGERR_ATTR_MSG`: the extended-ack text.
pub const NLMSGERR_ATTR_MSG: u16 = 1;
/// `NLA_F_NESTED`.
pub const NLA_F_NESTED: u16 = 0x8000;
/// `NLA_F_NET_BYTEORDER`.
pub const NLA_F_NET_BYTEORDER: u16 = 0x4000;
const NLA_TYPE_MASK: u16 = !(NLA_F_NESTED | NLA_F_NET_BYTEORDER);

/// `n` rounded up to netlink's 4-byte alignment.
pub const fn align4(n: usize) -> usize {
    n.saturating_add(3) & !3
}

/// Native-endian `u16` at `at` (caller has checked the length).
fn ne_u16(b: &[u8], at: usize) -> u16 {
    u16::from_ne_bytes([b[at], b[at + 1]])
}

/// Native-endian `u32` at `at` (caller has checked the length).
fn ne_u32(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// One netlink message (`nlmsghdr` + body), length-checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message<'a> {
    /// Exactly `nlmsg_len` bytes (at least [`NLMSG_HDRLEN`]).
    bytes: &'a [u8],
}

impl<'a> Message<'a> {
    /// Checks that `buf` starts with a whole message (`nlmsg_len` in
    /// `16..=buf.len()`); trailing bytes after it are not part of it.
    pub fn new_checked(buf: &'a [u8]) -> Result<Message<'a>, WireError> {
        if buf.len() < NLMSG_HDRLEN {
            return Err(WireError::new(
                "netlink message header",
                format!("{} bytes, need {NLMSG_HDRLEN}", buf.len()),
            ));
        }
        let len = ne_u32(buf, 0) as usize;
        if len < NLMSG_HDRLEN || len > buf.len() {
            return Err(WireError::new(
                "netlink message header",
                format!("nlmsg_len {len} outside {NLMSG_HDRLEN}..={}", buf.len()),
            ));
        }
        Ok(Message { bytes: &buf[..len] })
    }

    /// `nlmsg_len`.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Always false: a message holds at least its header.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// `nlmsg_type`.
    pub fn kind(&self) -> u16 {
        ne_u16(self.bytes, 4)
    }

    /// `nlmsg_flags`.
    pub fn flags(&self) -> u16 {
        ne_u16(self.bytes, 6)
    }

    /// `nlmsg_seq`.
    pub fn seq(&self) -> u32 {
        ne_u32(self.bytes, 8)
    }

    /// `nlmsg_pid` (the port id; 0 from the kernel).
    pub fn port(&self) -> u32 {
        ne_u32(self.bytes, 12)
    }

    /// The whole message, header included, without trailing padding.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Everything after the header.
    pub fn payload(&self) -> &'a [u8] {
        &self.bytes[NLMSG_HDRLEN..]
    }

    /// The attributes after a family header of `header_len` bytes (e.g. 20
    /// for `struct tcmsg`), or an error if the body is shorter.
    pub fn attrs_after(&self, header_len: usize, what: &'a str) -> Result<Attrs<'a>, WireError> {
        let body = self.payload();
        let rest = body.get(align4(header_len)..).ok_or_else(|| {
            WireError::new(
                what,
                format!(
                    "body of {} bytes, need a {header_len}-byte header",
                    body.len()
                ),
            )
        })?;
        Ok(Attrs::named(rest, what))
    }
}

/// The body of an `NLMSG_ERROR` message, length-checked: an ACK (errno 0)
/// or a refusal with, optionally, the kernel's extended-ack text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorMessage<'a> {
    flags: u16,
    payload: &'a [u8],
}

impl<'a> ErrorMessage<'a> {
    /// Checks that `msg` is an `NLMSG_ERROR` with at least its errno.
    pub fn new_checked(msg: &Message<'a>) -> Result<ErrorMessage<'a>, WireError> {
        if msg.kind() != NLMSG_ERROR {
            return Err(WireError::new(
                "NLMSG_ERROR",
                format!("message type {} is not NLMSG_ERROR", msg.kind()),
            ));
        }
        if msg.payload().len() < 4 {
            return Err(WireError::new(
                "NLMSG_ERROR",
                format!("body of {} bytes, need 4", msg.payload().len()),
            ));
        }
        Ok(ErrorMessage {
            flags: msg.flags(),
            payload: msg.payload(),
        })
    }

    /// The errno, positive (0 for an ACK).
    pub fn errno(&self) -> i32 {
        (ne_u32(self.payload, 0) as i32).saturating_neg()
    }

    /// True for an ACK.
    pub fn is_ack(&self) -> bool {
        self.errno() == 0
    }

    /// The extended-ack text (`NLMSGERR_ATTR_MSG`), if the kernel sent one
    /// and it can be found; never fails.
    pub fn kernel_message(&self) -> Option<String> {
        if self.flags & NLM_F_ACK_TLVS == 0 {
            return None;
        }
        // errno, then the echoed request: its header only when capped
        let echoed = if self.flags & NLM_F_CAPPED != 0 {
            NLMSG_HDRLEN
        } else {
            let inner = self.payload.get(4..)?;
            Message::new_checked(inner).ok()?.len()
        };
        let tlvs = self.payload.get(4 + align4(echoed)..)?;
        Attrs::new(tlvs)
            .map_while(Result::ok)
            .find(|a| a.kind() == NLMSGERR_ATTR_MSG)
            .map(|a| a.string_lossy())
    }
}

/// The messages packed in a buffer (one datagram, or several concatenated
/// with their padding).
#[derive(Debug, Clone)]
pub struct Messages<'a> {
    rest: &'a [u8],
}

impl<'a> Messages<'a> {
    /// Walks `buf`.
    pub fn new(buf: &'a [u8]) -> Messages<'a> {
        Messages { rest: buf }
    }
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<Message<'a>, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        match Message::new_checked(self.rest) {
            Ok(m) => {
                self.rest = self.rest.get(align4(m.len())..).unwrap_or(&[]);
                Some(Ok(m))
            }
            Err(e) => {
                self.rest = &[];
                Some(Err(e))
            }
        }
    }
}

/// One attribute (`nlattr` + value), length-checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr<'a> {
    raw_kind: u16,
    /// The whole attribute, header included, without trailing padding.
    bytes: &'a [u8],
    value: &'a [u8],
}

impl<'a> Attr<'a> {
    /// Checks that `buf` starts with a whole attribute (`nla_len` in
    /// `4..=buf.len()`).
    pub fn new_checked(buf: &'a [u8]) -> Result<Attr<'a>, WireError> {
        if buf.len() < NLA_HDRLEN {
            return Err(WireError::new(
                "netlink attribute",
                format!("{} stray bytes after the last attribute", buf.len()),
            ));
        }
        let len = ne_u16(buf, 0) as usize;
        let raw_kind = ne_u16(buf, 2);
        if len < NLA_HDRLEN || len > buf.len() {
            return Err(WireError::new(
                "netlink attribute",
                format!(
                    "attribute type {} has length {len} outside {NLA_HDRLEN}..={}",
                    raw_kind & NLA_TYPE_MASK,
                    buf.len()
                ),
            ));
        }
        Ok(Attr {
            raw_kind,
            bytes: &buf[..len],
            value: &buf[NLA_HDRLEN..len],
        })
    }

    /// The type, without the nested / byte-order flags.
    pub fn kind(&self) -> u16 {
        self.raw_kind & NLA_TYPE_MASK
    }

    /// Whether `NLA_F_NESTED` is set (many kernels nest without it).
    pub fn is_flagged_nested(&self) -> bool {
        self.raw_kind & NLA_F_NESTED != 0
    }

    /// The value bytes (`nla_len - 4` of them).
    pub fn value(&self) -> &'a [u8] {
        self.value
    }

    /// The whole attribute, header included, without trailing padding
    /// (for parsers that want the `nlattr` too).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The value as attributes (a nested attribute).
    pub fn nested(&self) -> Attrs<'a> {
        Attrs::new(self.value)
    }

    fn fixed<const N: usize>(&self, what: &str) -> Result<[u8; N], WireError> {
        self.value
            .get(..N)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| {
                WireError::new(
                    format!("attribute {} ({what})", self.kind()),
                    format!("{} bytes, need {N}", self.value.len()),
                )
            })
    }

    /// The value's first byte.
    pub fn u8(&self) -> Result<u8, WireError> {
        Ok(self.fixed::<1>("u8")?[0])
    }

    /// The value as a native-endian `u16`.
    pub fn u16(&self) -> Result<u16, WireError> {
        Ok(u16::from_ne_bytes(self.fixed("u16")?))
    }

    /// The value as a native-endian `u32`.
    pub fn u32(&self) -> Result<u32, WireError> {
        Ok(u32::from_ne_bytes(self.fixed("u32")?))
    }

    /// The value as a native-endian `u64`.
    pub fn u64(&self) -> Result<u64, WireError> {
        Ok(u64::from_ne_bytes(self.fixed("u64")?))
    }

    /// The value as text up to its first NUL (lossy UTF-8).
    pub fn string_lossy(&self) -> String {
        let s = self.value.split(|&b| b == 0).next().unwrap_or(&[]);
        String::from_utf8_lossy(s).into_owned()
    }
}

/// The attributes packed in a buffer.
#[derive(Debug, Clone)]
pub struct Attrs<'a> {
    rest: &'a [u8],
    what: &'a str,
}

impl<'a> Attrs<'a> {
    /// Walks `buf`.
    pub fn new(buf: &'a [u8]) -> Attrs<'a> {
        Attrs::named(buf, "netlink attributes")
    }

    /// Walks `buf`; errors name the container `what` (e.g. `TCA_OPTIONS`).
    pub fn named(buf: &'a [u8], what: &'a str) -> Attrs<'a> {
        Attrs { rest: buf, what }
    }

    /// The first attribute of type `kind`, or `None`; stops at an error.
    pub fn find(self, kind: u16) -> Result<Option<Attr<'a>>, WireError> {
        for a in self {
            let a = a?;
            if a.kind() == kind {
                return Ok(Some(a));
            }
        }
        Ok(None)
    }
}

impl<'a> Iterator for Attrs<'a> {
    type Item = Result<Attr<'a>, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        match Attr::new_checked(self.rest) {
            Ok(a) => {
                let len = NLA_HDRLEN + a.value.len();
                self.rest = self.rest.get(align4(len)..).unwrap_or(&[]);
                Some(Ok(a))
            }
            Err(WireError { reason, .. }) => {
                self.rest = &[];
                Some(Err(WireError::new(self.what, reason)))
            }
        }
    }
}

/// A fixed-layout C struct inside netlink bytes (`struct tc_fifo_qopt`, a
/// qdisc's xstats), length-checked once: afterwards every field read
/// inside that length cannot fail. Reading past the checked length is a
/// bug in the caller and panics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fields<'a> {
    bytes: &'a [u8],
}

impl<'a> Fields<'a> {
    /// Checks that `buf` holds at least `len` bytes (bytes after them, a
    /// newer kernel's extra fields, are ignored); `what` names the struct
    /// in the error.
    pub fn new_checked(buf: &'a [u8], len: usize, what: &str) -> Result<Fields<'a>, WireError> {
        match buf.get(..len) {
            Some(bytes) => Ok(Fields { bytes }),
            None => Err(WireError::new(
                what,
                format!("{} bytes, need {len}", buf.len()),
            )),
        }
    }

    /// The checked length.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the checked length is 0.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The byte at `at`.
    pub fn u8(&self, at: usize) -> u8 {
        self.bytes[at]
    }

    /// The native-endian `u16` at `at`.
    pub fn u16(&self, at: usize) -> u16 {
        ne_u16(self.bytes, at)
    }

    /// The native-endian `u32` at `at`.
    pub fn u32(&self, at: usize) -> u32 {
        ne_u32(self.bytes, at)
    }

    /// The native-endian `i32` at `at`.
    pub fn i32(&self, at: usize) -> i32 {
        ne_u32(self.bytes, at) as i32
    }

    /// The native-endian `u64` at `at`.
    pub fn u64(&self, at: usize) -> u64 {
        let b = &self.bytes[at..at + 8];
        u64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
}

/// Writes `seq` into the header of the message at the start of `buf` and
/// ORs `flags` into its flags. `buf` must hold a checked message (the
/// socket stamps each request it sends).
pub fn stamp(buf: &mut [u8], seq: u32, flags: u16) {
    let old = ne_u16(buf, 6);
    buf[6..8].copy_from_slice(&(old | flags).to_ne_bytes());
    buf[8..12].copy_from_slice(&seq.to_ne_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(len: u32, kind: u16, flags: u16, seq: u32) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&len.to_ne_bytes());
        b.extend_from_slice(&kind.to_ne_bytes());
        b.extend_from_slice(&flags.to_ne_bytes());
        b.extend_from_slice(&seq.to_ne_bytes());
        b.extend_from_slice(&0u32.to_ne_bytes());
        b
    }

    #[test]
    fn message_header_fields() {
        let mut b = header(20, 16, 0x2, 77);
        b.extend_from_slice(&[1, 2, 3, 4, 0xee]); // one stray byte after
        let m = Message::new_checked(&b).unwrap();
        assert_eq!((m.len(), m.kind(), m.flags(), m.seq()), (20, 16, 2, 77));
        assert_eq!(m.payload(), &[1, 2, 3, 4]);
        assert_eq!(m.bytes().len(), 20);
    }

    #[test]
    fn messages_reject_bad_lengths() {
        let mut m = header(20, NLMSG_DONE, 0, 1);
        m.extend_from_slice(&[0; 4]);
        assert_eq!(Messages::new(&m).count(), 1);
        m[0] = 21;
        assert!(Messages::new(&m).next().unwrap().is_err());
        m[0] = 4;
        assert!(Messages::new(&m).next().unwrap().is_err());
        assert!(Messages::new(&m[..10]).next().unwrap().is_err());
        // after an error the walker ends
        let mut w = Messages::new(&m);
        assert!(w.next().unwrap().is_err());
        assert!(w.next().is_none());
    }

    #[test]
    fn attrs_reject_bad_lengths_and_walk_nested() {
        let ok: Result<Vec<_>, _> = Attrs::new(&[8, 0, 1, 0, 1, 2, 3, 4]).collect();
        assert_eq!(
            ok.unwrap()[0].u32().unwrap(),
            u32::from_ne_bytes([1, 2, 3, 4])
        );
        assert!(Attrs::new(&[9, 0, 1, 0, 1, 2, 3, 4])
            .next()
            .unwrap()
            .is_err());
        assert!(Attrs::new(&[3, 0, 1, 0]).next().unwrap().is_err());
        let e = Attrs::named(&[8, 0, 1], "TCA_OPTIONS")
            .next()
            .unwrap()
            .unwrap_err();
        assert!(
            e.to_string().starts_with("TCA_OPTIONS: 3 stray bytes"),
            "{e}"
        );
        // last attribute without trailing padding is fine
        let a = Attrs::new(&[5, 0, 1, 0, 7]).next().unwrap().unwrap();
        assert_eq!((a.kind(), a.value(), a.u8().unwrap()), (1, &[7][..], 7));
        assert!(a.u32().is_err(), "short value");
        // nested: outer type 2 (flagged) holding [type 3: u16 9]
        let nested = [12, 0, 2, 0x80, 6, 0, 3, 0, 9, 0, 0, 0];
        let outer = Attrs::new(&nested).next().unwrap().unwrap();
        assert_eq!(outer.kind(), 2);
        assert!(outer.is_flagged_nested());
        let inner = outer.nested().find(3).unwrap().unwrap();
        assert_eq!(inner.u16().unwrap(), 9);
        assert_eq!(outer.nested().find(4).unwrap(), None);
    }

    #[test]
    fn extack_text_after_a_capped_header_and_after_a_full_echo() {
        let text = b"Specified qdisc kind is unknown\0";
        let tlv = |b: &mut Vec<u8>| {
            b.extend_from_slice(&((4 + text.len()) as u16).to_ne_bytes());
            b.extend_from_slice(&NLMSGERR_ATTR_MSG.to_ne_bytes());
            b.extend_from_slice(text);
        };
        // capped: errno + echoed header only
        let mut body = (-2i32).to_ne_bytes().to_vec();
        body.extend_from_slice(&header(36, 36, 5, 9));
        tlv(&mut body);
        let mut msg = header((16 + body.len()) as u32, NLMSG_ERROR, 0x300, 9);
        msg.extend_from_slice(&body);
        let m = Message::new_checked(&msg).unwrap();
        let e = ErrorMessage::new_checked(&m).unwrap();
        assert_eq!(e.errno(), 2);
        assert!(!e.is_ack());
        assert_eq!(
            e.kernel_message().as_deref(),
            Some("Specified qdisc kind is unknown")
        );
        // not capped: the whole request (20 bytes) is echoed
        let mut body = (-22i32).to_ne_bytes().to_vec();
        body.extend_from_slice(&header(20, 36, 5, 9));
        body.extend_from_slice(&[0; 4]);
        tlv(&mut body);
        let mut msg = header((16 + body.len()) as u32, NLMSG_ERROR, NLM_F_ACK_TLVS, 9);
        msg.extend_from_slice(&body);
        let m = Message::new_checked(&msg).unwrap();
        let e = ErrorMessage::new_checked(&m).unwrap();
        assert_eq!(e.errno(), 22);
        assert_eq!(
            e.kernel_message().as_deref(),
            Some("Specified qdisc kind is unknown")
        );
        // no TLV flag: no text
        let mut msg = header(36, NLMSG_ERROR, 0, 9);
        msg.extend_from_slice(&0i32.to_ne_bytes());
        msg.extend_from_slice(&header(16, 36, 5, 9));
        let m = Message::new_checked(&msg).unwrap();
        let e = ErrorMessage::new_checked(&m).unwrap();
        assert!(e.is_ack() && e.kernel_message().is_none());
        // truncated NLMSG_ERROR
        let short = header(18, NLMSG_ERROR, 0, 1);
        let mut short = short;
        short.extend_from_slice(&[0, 0]);
        assert!(ErrorMessage::new_checked(&Message::new_checked(&short).unwrap()).is_err());
    }

    #[test]
    fn fields_are_checked_once() {
        let b: Vec<u8> = (1..=12).collect();
        let f = Fields::new_checked(&b, 12, "struct x").unwrap();
        assert_eq!(f.len(), 12);
        assert_eq!(f.u8(11), 12);
        assert_eq!(f.u16(0), u16::from_ne_bytes([1, 2]));
        assert_eq!(f.u32(8), u32::from_ne_bytes([9, 10, 11, 12]));
        assert_eq!(f.u64(4), u64::from_ne_bytes([5, 6, 7, 8, 9, 10, 11, 12]));
        assert_eq!(Fields::new_checked(&b, 8, "x").unwrap().len(), 8);
        let e = Fields::new_checked(&b[..5], 8, "struct tc_stats").unwrap_err();
        assert_eq!(e.to_string(), "struct tc_stats: 5 bytes, need 8");
        // the whole attribute, header included
        let a = Attrs::new(&[5, 0, 1, 0, 7, 0, 0, 0])
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(a.bytes(), &[5, 0, 1, 0, 7]);
    }

    #[test]
    fn stamp_sets_seq_and_ors_flags() {
        let mut b = header(16, 18, NLM_F_REQUEST, 0);
        stamp(&mut b, 42, NLM_F_ACK);
        let m = Message::new_checked(&b).unwrap();
        assert_eq!((m.seq(), m.flags()), (42, NLM_F_REQUEST | NLM_F_ACK));
    }

    /// Every prefix of real kernel dumps walks to an error or to a prefix
    /// of the whole walk, never a panic.
    #[test]
    fn truncations_of_real_dumps_are_errors_or_prefixes() {
        for raw in [
            &include_bytes!("../../../fixtures/topology/r_links.bin")[..],
            &include_bytes!("../../../fixtures/tcpload/sock_diag_dump_reno_tbf5mbit.bin")[..],
        ] {
            let whole: Vec<Message<'_>> = Messages::new(raw).collect::<Result<_, _>>().unwrap();
            for cut in 0..raw.len() {
                let got: Vec<_> = Messages::new(&raw[..cut]).collect();
                let ok = got.iter().take_while(|r| r.is_ok()).count();
                assert!(ok <= whole.len());
                for (a, b) in got.iter().zip(&whole) {
                    if let Ok(a) = a {
                        assert_eq!(a.bytes(), b.bytes());
                        for attr in a.attrs_after(0, "x").unwrap() {
                            let _ = attr.map(|x| x.nested().count());
                        }
                    }
                }
                if ok < got.len() {
                    assert_eq!(ok + 1, got.len(), "walker stops after an error");
                }
            }
        }
    }
    /// Real kernel bytes: R's link dump (3 links, then NLMSG_DONE) and a
    /// sock_diag dump (1 socket, then NLMSG_DONE); see the fixtures' READMEs.
    #[test]
    fn real_dumps_walk_to_the_expected_messages_and_attributes() {
        const IFLA_IFNAME: u16 = 3;
        const IFLA_LINKINFO: u16 = 18;
        const IFLA_INFO_KIND: u16 = 1;
        let raw = include_bytes!("../../../fixtures/topology/r_links.bin");
        let msgs: Vec<Message<'_>> = Messages::new(raw).collect::<Result<_, _>>().unwrap();
        let kinds: Vec<u16> = msgs.iter().map(Message::kind).collect();
        assert_eq!(kinds, vec![16, 16, 16, NLMSG_DONE]);
        let mut names = Vec::new();
        let mut link_kinds = Vec::new();
        for m in &msgs[..3] {
            // struct ifinfomsg is 16 bytes
            let attrs = m.attrs_after(16, "RTM_NEWLINK").unwrap();
            let name = attrs.clone().find(IFLA_IFNAME).unwrap().unwrap();
            names.push(name.string_lossy());
            if let Some(info) = attrs.find(IFLA_LINKINFO).unwrap() {
                let kind = info.nested().find(IFLA_INFO_KIND).unwrap().unwrap();
                link_kinds.push(kind.string_lossy());
            }
        }
        assert_eq!(names, ["lo", "r0", "r1"]);
        assert_eq!(link_kinds, ["veth", "veth"]);

        const SOCK_DIAG_BY_FAMILY: u16 = 20;
        const INET_DIAG_CONG: u16 = 4;
        let raw = include_bytes!("../../../fixtures/tcpload/sock_diag_dump_reno_tbf5mbit.bin");
        let msgs: Vec<Message<'_>> = Messages::new(raw).collect::<Result<_, _>>().unwrap();
        let kinds: Vec<u16> = msgs.iter().map(Message::kind).collect();
        assert_eq!(kinds, vec![SOCK_DIAG_BY_FAMILY, NLMSG_DONE]);
        // struct inet_diag_msg is 72 bytes
        let cong = msgs[0]
            .attrs_after(72, "inet_diag_msg")
            .unwrap()
            .find(INET_DIAG_CONG)
            .unwrap()
            .unwrap();
        assert_eq!(cong.string_lossy(), "reno");
        assert!(msgs[0].attrs_after(4096, "inet_diag_msg").is_err());
    }
}
