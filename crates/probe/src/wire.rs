//! Wire format of the probe datagrams (pure, checked views).
//!
//! Two request kinds share B's echo port(s):
//!
//! * **Plain** (the method §5 stop-and-wait probe): exactly 4 bytes, the
//!   sequence number big-endian. The echo sends it back byte for byte, as it
//!   does with every datagram that is not a stamped request. Unchanged.
//!   A request may be padded with zero bytes to a chosen size
//!   ([`write_plain`]; at least [`PLAIN_LEN`]), and is echoed back the same.
//! * **Stamped** (the isochronous probe, [`crate::iso`]): a [`STAMPED_LEN`]
//!   = 40-byte header, starting with the magic `b"NLIP"` and a version
//!   byte, optionally followed by zero padding to a chosen size
//!   ([`write_request`]). The echo answers a valid stamped *request* with a
//!   stamped *reply* of the same length, the request's fields and padding
//!   copied and B's receive and send times (CLOCK_MONOTONIC, ns) filled in.
//!
//! A datagram shorter than 40 bytes can never be taken for a stamped one,
//! and a longer one is stamped only if magic, version and kind all match (a
//! padded plain request has its zero padding where the version byte is, so
//! it never does); anything else is echoed unchanged, so the client sees it
//! as malformed rather than as a reply.
//!
//! Layout (all integers big-endian):
//!
//! | offset | size | field                                              |
//! |-------:|-----:|----------------------------------------------------|
//! | 0      | 4    | magic `b"NLIP"`                                    |
//! | 4      | 1    | version ([`STAMPED_VERSION`] = 1)                  |
//! | 5      | 1    | kind: 1 request, 2 reply                           |
//! | 6      | 2    | reserved, 0                                        |
//! | 8      | 4    | sequence number (slot index)                       |
//! | 12     | 4    | reserved, 0                                        |
//! | 16     | 8    | A's send time, CLOCK_MONOTONIC ns (echoed as is)   |
//! | 24     | 8    | B's receive time, CLOCK_MONOTONIC ns (reply only)  |
//! | 32     | 8    | B's send time, CLOCK_MONOTONIC ns (reply only)     |
//! | 40     | n    | padding, 0 (to the probe's configured size)        |
//!
//! Request and reply are the same size, so the echo never amplifies and both
//! directions carry equal-sized packets (a one-way delay split is not biased
//! by serialisation time on a shaped link).

/// Magic at offset 0 of every stamped datagram ("NetLab Iso Probe").
pub const MAGIC: [u8; 4] = *b"NLIP";
/// Current version of the stamped format.
pub const STAMPED_VERSION: u8 = 1;
/// Length of a stamped request's header, bytes: the smallest stamped
/// datagram (and the isochronous probe's default size).
pub const STAMPED_LEN: usize = 40;
/// Length of a plain (stop-and-wait) request's sequence number, bytes: the
/// smallest plain datagram (and that probe's default size).
pub const PLAIN_LEN: usize = 4;
/// Largest UDP payload over IPv4 (65,535 − 20 − 8), bytes: the largest
/// probe datagram of either kind.
pub const MAX_DATAGRAM_LEN: usize = 65_507;

mod field {
    use std::ops::Range;
    pub const MAGIC: Range<usize> = 0..4;
    pub const VERSION: usize = 4;
    pub const KIND: usize = 5;
    pub const SEQ: Range<usize> = 8..12;
    pub const A_SEND: Range<usize> = 16..24;
    pub const B_RECV: Range<usize> = 24..32;
    pub const B_SEND: Range<usize> = 32..40;
}

/// Kind byte of a stamped datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A → B.
    Request,
    /// B → A.
    Reply,
    /// Any other value.
    Unknown(u8),
}

impl From<u8> for Kind {
    fn from(v: u8) -> Self {
        match v {
            1 => Kind::Request,
            2 => Kind::Reply,
            other => Kind::Unknown(other),
        }
    }
}

impl From<Kind> for u8 {
    fn from(k: Kind) -> u8 {
        match k {
            Kind::Request => 1,
            Kind::Reply => 2,
            Kind::Unknown(v) => v,
        }
    }
}

/// Why a datagram is not a stamped packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotStamped {
    /// Shorter than [`STAMPED_LEN`] bytes.
    Length(usize),
    /// The first 4 bytes are not [`MAGIC`].
    Magic,
    /// A version this code does not speak.
    Version(u8),
}

/// A checked view of a stamped datagram: once built, accessors cannot panic.
#[derive(Debug, Clone, Copy)]
pub struct Stamped<T: AsRef<[u8]>> {
    buf: T,
}

fn be_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    u64::from_be_bytes(a)
}

impl<T: AsRef<[u8]>> Stamped<T> {
    /// Checks length, magic and version.
    pub fn new_checked(buf: T) -> Result<Self, NotStamped> {
        let b = buf.as_ref();
        if b.len() < STAMPED_LEN {
            return Err(NotStamped::Length(b.len()));
        }
        if b[field::MAGIC] != MAGIC {
            return Err(NotStamped::Magic);
        }
        if b[field::VERSION] != STAMPED_VERSION {
            return Err(NotStamped::Version(b[field::VERSION]));
        }
        Ok(Self { buf })
    }

    fn b(&self) -> &[u8] {
        self.buf.as_ref()
    }

    /// Request or reply.
    pub fn kind(&self) -> Kind {
        Kind::from(self.b()[field::KIND])
    }

    /// Sequence number.
    pub fn seq(&self) -> u32 {
        let mut a = [0u8; 4];
        a.copy_from_slice(&self.b()[field::SEQ]);
        u32::from_be_bytes(a)
    }

    /// A's send time (CLOCK_MONOTONIC ns), as A wrote it.
    pub fn a_send_ns(&self) -> u64 {
        be_u64(&self.b()[field::A_SEND])
    }

    /// B's receive time (CLOCK_MONOTONIC ns); 0 in a request.
    pub fn b_recv_ns(&self) -> u64 {
        be_u64(&self.b()[field::B_RECV])
    }

    /// B's send time (CLOCK_MONOTONIC ns); 0 in a request.
    pub fn b_send_ns(&self) -> u64 {
        be_u64(&self.b()[field::B_SEND])
    }
}

/// Builds a stamped request for `seq` sent at `a_send_ns`, of the
/// smallest size ([`STAMPED_LEN`]).
pub fn request(seq: u32, a_send_ns: u64) -> [u8; STAMPED_LEN] {
    let mut b = [0u8; STAMPED_LEN];
    write_request(&mut b, seq, a_send_ns);
    b
}

/// Writes a stamped request for `seq` sent at `a_send_ns` over the whole of
/// `buf` (the header, then zero padding to `buf.len()`). Returns false, and
/// writes nothing, when `buf` is shorter than [`STAMPED_LEN`].
pub fn write_request(buf: &mut [u8], seq: u32, a_send_ns: u64) -> bool {
    if buf.len() < STAMPED_LEN {
        return false;
    }
    buf.fill(0);
    buf[field::MAGIC].copy_from_slice(&MAGIC);
    buf[field::VERSION] = STAMPED_VERSION;
    buf[field::KIND] = Kind::Request.into();
    buf[field::SEQ].copy_from_slice(&seq.to_be_bytes());
    buf[field::A_SEND].copy_from_slice(&a_send_ns.to_be_bytes());
    true
}

/// Writes a plain (stop-and-wait) request for `seq` over the whole of
/// `buf`: the 4-byte big-endian sequence number, then zero padding. Returns
/// false, and writes nothing, when `buf` is shorter than [`PLAIN_LEN`].
pub fn write_plain(buf: &mut [u8], seq: u32) -> bool {
    if buf.len() < PLAIN_LEN {
        return false;
    }
    buf.fill(0);
    buf[..PLAIN_LEN].copy_from_slice(&seq.to_be_bytes());
    true
}

/// The sequence number of a plain request or its echo: the first 4 bytes
/// when the rest is zero padding; None for anything else (a stamped
/// datagram, non-zero padding, fewer than 4 bytes).
pub fn parse_plain(buf: &[u8]) -> Option<u32> {
    let (seq, padding) = buf.split_first_chunk::<PLAIN_LEN>()?;
    padding
        .iter()
        .all(|b| *b == 0)
        .then(|| u32::from_be_bytes(*seq))
}

/// Turns a valid stamped request in `buf` into its reply in place: kind
/// becomes reply and B's receive time is written; B's send time is written
/// by [`set_b_send`] right before sending. Returns false (and leaves `buf`
/// untouched) if `buf` is not a valid stamped request.
pub fn make_reply(buf: &mut [u8], b_recv_ns: u64) -> bool {
    match Stamped::new_checked(&*buf) {
        Ok(p) if p.kind() == Kind::Request => {}
        _ => return false,
    }
    buf[field::KIND] = Kind::Reply.into();
    buf[field::B_RECV].copy_from_slice(&b_recv_ns.to_be_bytes());
    true
}

/// Writes B's send time into a reply built by [`make_reply`]. `buf` must be
/// at least [`STAMPED_LEN`] long (it is, after `make_reply` returned true).
pub fn set_b_send(buf: &mut [u8], b_send_ns: u64) {
    if buf.len() >= STAMPED_LEN {
        buf[field::B_SEND].copy_from_slice(&b_send_ns.to_be_bytes());
    }
}

/// A decoded stamped reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply {
    /// Sequence number.
    pub seq: u32,
    /// A's send time as echoed, CLOCK_MONOTONIC ns.
    pub a_send_ns: u64,
    /// B's receive time, CLOCK_MONOTONIC ns (B's clock).
    pub b_recv_ns: u64,
    /// B's send time, CLOCK_MONOTONIC ns (B's clock).
    pub b_send_ns: u64,
}

/// Decodes a stamped reply; `None` for anything else (plain echo, a request
/// echoed back unchanged by an old echo, wrong version, B's send before its
/// receive).
pub fn parse_reply(buf: &[u8]) -> Option<Reply> {
    let p = Stamped::new_checked(buf).ok()?;
    if p.kind() != Kind::Reply || p.b_send_ns() < p.b_recv_ns() {
        return None;
    }
    Some(Reply {
        seq: p.seq(),
        a_send_ns: p.a_send_ns(),
        b_recv_ns: p.b_recv_ns(),
        b_send_ns: p.b_send_ns(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_bytes_are_as_documented() {
        let r = request(0x0102_0304, 0x1122_3344_5566_7788);
        let want: [u8; 40] = [
            b'N', b'L', b'I', b'P', 1, 1, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0x11, 0x22, 0x33, 0x44,
            0x55, 0x66, 0x77, 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(r, want);
    }

    #[test]
    fn reply_round_trip() {
        let mut b = request(7, 1000);
        assert!(make_reply(&mut b, 1500));
        set_b_send(&mut b, 1600);
        assert_eq!(b[5], 2);
        assert_eq!(
            parse_reply(&b),
            Some(Reply {
                seq: 7,
                a_send_ns: 1000,
                b_recv_ns: 1500,
                b_send_ns: 1600
            })
        );
        // a reply is not a request: the echo does not stamp it again
        let before = b;
        assert!(!make_reply(&mut b, 9));
        assert_eq!(b, before);
    }

    #[test]
    fn non_stamped_datagrams_are_left_alone() {
        let mut plain = 5u32.to_be_bytes();
        assert!(!make_reply(&mut plain, 1), "stop-and-wait 4-byte request");
        assert_eq!(plain, 5u32.to_be_bytes());
        let mut short = [0u8; 39];
        short.copy_from_slice(&request(1, 1)[..39]);
        assert!(!make_reply(&mut short, 1), "shorter than the header");
        // A padded plain request whose seq spells the magic is still not
        // stamped: its padding is where the version byte is.
        let mut plain_long = [0u8; 64];
        write_plain(&mut plain_long, u32::from_be_bytes(MAGIC));
        assert!(!make_reply(&mut plain_long, 1));
        assert_eq!(
            Stamped::new_checked(&plain_long[..]).unwrap_err(),
            NotStamped::Version(0)
        );
        let mut v2 = request(1, 1);
        v2[4] = 2;
        assert!(!make_reply(&mut v2, 1), "unknown version");
        assert_eq!(
            Stamped::new_checked(&v2[..]).unwrap_err(),
            NotStamped::Version(2)
        );
        let mut bad = request(1, 1);
        bad[0] = b'X';
        assert_eq!(
            Stamped::new_checked(&bad[..]).unwrap_err(),
            NotStamped::Magic
        );
        assert_eq!(
            Stamped::new_checked(&plain[..]).unwrap_err(),
            NotStamped::Length(4)
        );
    }

    #[test]
    fn padded_requests_keep_their_header_and_size() {
        let mut b = vec![0xffu8; 200];
        assert!(write_request(&mut b, 7, 1000));
        assert_eq!(&b[..40], &request(7, 1000)[..]);
        assert!(b[40..].iter().all(|x| *x == 0), "zero padding");
        assert!(make_reply(&mut b, 1500));
        set_b_send(&mut b, 1600);
        assert_eq!(b.len(), 200, "a reply is as long as its request");
        assert_eq!(
            parse_reply(&b),
            Some(Reply {
                seq: 7,
                a_send_ns: 1000,
                b_recv_ns: 1500,
                b_send_ns: 1600
            })
        );
        assert!(!write_request(&mut [0u8; 39], 1, 1));

        let mut p = vec![0xffu8; 100];
        assert!(write_plain(&mut p, 0x0102_0304));
        assert_eq!(&p[..4], &[1, 2, 3, 4]);
        assert_eq!(parse_plain(&p), Some(0x0102_0304));
        assert_eq!(parse_plain(&5u32.to_be_bytes()), Some(5), "unpadded");
        p[99] = 1;
        assert_eq!(parse_plain(&p), None, "non-zero padding");
        assert_eq!(parse_plain(&[0, 0, 1]), None);
        assert!(!write_plain(&mut [0u8; 3], 1));
    }

    #[test]
    fn parse_reply_rejects_requests_and_inconsistent_stamps() {
        assert_eq!(parse_reply(&request(1, 1)), None, "an unanswered request");
        let mut b = request(1, 1);
        make_reply(&mut b, 100);
        set_b_send(&mut b, 99);
        assert_eq!(parse_reply(&b), None, "B sent before it received");
        assert_eq!(parse_reply(&[0, 0, 0, 1]), None);
        let mut k = request(1, 1);
        k[5] = 9;
        assert_eq!(
            Stamped::new_checked(&k[..]).unwrap().kind(),
            Kind::Unknown(9)
        );
        assert_eq!(parse_reply(&k), None);
    }
}
