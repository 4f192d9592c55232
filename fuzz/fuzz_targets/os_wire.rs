//! The netlink walkers of `netlab_os::wire` (every netlink answer netlab
//! reads goes through them): `Messages`, `Message`, `ErrorMessage`,
//! `Attrs` (nested too), `Attr`'s fixed-size readers and `Fields`.
//!
//! Input: byte 0 chooses the family-header length (`byte % 32`) handed to
//! `Message::attrs_after`; the rest is walked twice, as netlink messages
//! and as bare attributes.
//! Properties beyond "no panic": each item is the bytes at the walker's
//! aligned offset (contiguous, nothing skipped or invented); lengths obey
//! their headers; a walker ends after its first error; the fixed-size
//! readers succeed exactly when the value is long enough and read its first
//! bytes; `Attrs::find` agrees with the first match of the walk;
//! `Fields::new_checked` succeeds exactly when the buffer is long enough.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_os::wire::{
    align4, Attr, Attrs, ErrorMessage, Fields, Message, Messages, NLA_HDRLEN, NLMSG_ERROR,
    NLMSG_HDRLEN,
};

/// Nesting depth walked (each level at least 4 bytes shorter anyway).
const MAX_DEPTH: usize = 16;

fn check_attr(a: &Attr<'_>) {
    let v = a.value();
    assert!(a.bytes().len() >= NLA_HDRLEN);
    assert_eq!(&a.bytes()[NLA_HDRLEN..], v);
    assert_eq!(
        u16::from_ne_bytes([a.bytes()[0], a.bytes()[1]]) as usize,
        a.bytes().len()
    );
    assert_eq!(a.kind() & 0xc000, 0, "kind keeps no flag bits");
    assert_eq!(a.u8().ok(), v.first().copied());
    assert_eq!(
        a.u16().ok(),
        v.get(..2)
            .map(|b| u16::from_ne_bytes(b.try_into().unwrap()))
    );
    assert_eq!(
        a.u32().ok(),
        v.get(..4)
            .map(|b| u32::from_ne_bytes(b.try_into().unwrap()))
    );
    assert_eq!(
        a.u64().ok(),
        v.get(..8)
            .map(|b| u64::from_ne_bytes(b.try_into().unwrap()))
    );
    let s = a.string_lossy();
    assert!(!s.contains('\0'));
    let _ = a.is_flagged_nested();
}

/// Walks `buf` as attributes, recursing into every value as nested
/// attributes; returns how many attributes were walked at this level.
fn walk_attrs(buf: &[u8], walker: Attrs<'_>, depth: usize) -> usize {
    let mut off = 0;
    let mut count = 0;
    let mut first_of_kind: Option<(u16, usize)> = None;
    let mut it = walker.clone();
    loop {
        match it.next() {
            None => break,
            Some(Ok(a)) => {
                check_attr(&a);
                assert_eq!(a.bytes(), &buf[off..off + a.bytes().len()]);
                if first_of_kind.is_none() {
                    first_of_kind = Some((a.kind(), a.bytes().len()));
                }
                off += align4(a.bytes().len());
                count += 1;
                if depth < MAX_DEPTH {
                    walk_attrs(a.value(), a.nested(), depth + 1);
                }
            }
            Some(Err(_)) => {
                assert!(off < buf.len());
                assert!(it.next().is_none(), "the walk ends after an error");
                break;
            }
        }
    }
    assert!(count <= buf.len() / NLA_HDRLEN);
    // find() gives the first attribute of a kind (the first one walked).
    if let Some((kind, len)) = first_of_kind {
        let found = walker.find(kind).expect("the first attribute is valid");
        assert_eq!(found.map(|a| a.bytes().len()), Some(len));
    }
    count
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, buf)) = data.split_first() else {
        return;
    };
    let header_len = usize::from(sel % 32);

    // As messages.
    let mut off = 0;
    let mut it = Messages::new(buf);
    loop {
        match it.next() {
            None => break,
            Some(Ok(m)) => {
                assert!(m.len() >= NLMSG_HDRLEN && !m.is_empty());
                assert_eq!(m.bytes(), &buf[off..off + m.len()]);
                assert_eq!(m.payload(), &m.bytes()[NLMSG_HDRLEN..]);
                let again = Message::new_checked(&buf[off..]).expect("walked message is valid");
                assert_eq!(again, m);
                let _ = (m.kind(), m.flags(), m.seq(), m.port());
                match ErrorMessage::new_checked(&m) {
                    Ok(e) => {
                        assert_eq!(m.kind(), NLMSG_ERROR);
                        assert_eq!(e.is_ack(), e.errno() == 0);
                        let _ = e.kernel_message();
                    }
                    Err(_) => assert!(m.kind() != NLMSG_ERROR || m.payload().len() < 4),
                }
                match m.attrs_after(header_len, "fuzz") {
                    Ok(attrs) => {
                        let rest = &m.payload()[align4(header_len)..];
                        walk_attrs(rest, attrs, 0);
                    }
                    Err(_) => assert!(m.payload().len() < align4(header_len)),
                }
                off += align4(m.len());
            }
            Some(Err(_)) => {
                assert!(off < buf.len());
                assert!(Message::new_checked(&buf[off..]).is_err());
                assert!(it.next().is_none(), "the walk ends after an error");
                break;
            }
        }
    }

    // As bare (possibly nested) attributes.
    walk_attrs(buf, Attrs::new(buf), 0);

    // A fixed-layout struct of `header_len` bytes.
    match Fields::new_checked(buf, header_len, "fuzz struct") {
        Ok(f) => {
            assert_eq!(f.len(), header_len);
            if header_len >= 8 {
                assert_eq!(f.u64(0).to_ne_bytes(), buf[..8]);
                assert_eq!(f.u32(4).to_ne_bytes(), buf[4..8]);
                assert_eq!(
                    f.u16(header_len - 2).to_ne_bytes(),
                    buf[header_len - 2..header_len]
                );
                assert_eq!(f.u8(header_len - 1), buf[header_len - 1]);
            }
        }
        Err(_) => assert!(buf.len() < header_len),
    }
});
