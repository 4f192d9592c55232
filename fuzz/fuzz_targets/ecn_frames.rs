//! AF_PACKET frames into `netlab_ecn::Decoder::observe`.
//!
//! Input: byte 0 picks the flow (bit 0 set: A's port known, 40123; clear:
//! 0, so the decoder locks onto the first A→B frame), then records of
//! `[captured_len: u16 BE][pkttype: u8][orig_len: u32 BE][captured bytes]`
//! (a short last record takes what is left). Addresses are the fixtures'
//! (A 10.20.1.2, B 10.20.2.2:5201), so the real frames match the flow.
//! Property: never panics; the counters stay consistent with the frames fed.
#![no_main]

use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use netlab_ecn::{CaptureDirection, Decoder, Flow};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, mut rest)) = data.split_first() else {
        return;
    };
    let a_port = if mode & 1 == 1 { 40123 } else { 0 };
    let mut d = Decoder::new(Flow {
        a: SocketAddrV4::new(Ipv4Addr::new(10, 20, 1, 2), a_port),
        b: SocketAddrV4::new(Ipv4Addr::new(10, 20, 2, 2), 5201),
    });
    let mut fed = 0u64;
    while rest.len() >= 7 {
        let len = usize::from(u16::from_be_bytes([rest[0], rest[1]]));
        let dir = CaptureDirection::from_pkttype(rest[2]);
        let orig_len = u32::from_be_bytes([rest[3], rest[4], rest[5], rest[6]]);
        let body = &rest[7..];
        let frame = &body[..len.min(body.len())];
        d.observe(frame, orig_len, dir, Duration::from_micros(fed));
        fed += 1;
        rest = &body[frame.len()..];
    }
    let r = d.into_evidence();
    assert_eq!(r.frames_seen, fed);
    assert!(r.frames_truncated <= fed);
    assert_eq!(r.counts.other + r.counts.a_to_b + r.counts.b_to_a, fed);
});
