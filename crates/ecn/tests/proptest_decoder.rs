//! Random and truncated bytes never panic the decoder.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::Duration;

use netlab_ecn::{CaptureDirection, Decoder, Flow};
use proptest::prelude::*;

fn flow(aport: u16) -> Flow {
    Flow {
        a: SocketAddrV4::new(Ipv4Addr::new(10, 20, 1, 2), aport),
        b: SocketAddrV4::new(Ipv4Addr::new(10, 20, 2, 2), 5201),
    }
}

/// A plausible Ethernet/IPv4/TCP header prefix of the flow, mutated.
fn tcp_like() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        any::<u8>(),
        0u8..16,
        0u8..16,
        any::<u16>(),
        any::<u8>(),
        proptest::collection::vec(any::<u8>(), 0..120),
    )
        .prop_map(|(from_a, tos, ihl, doff, tot, flags, tail)| {
            let (src, dst, sp, dp) = if from_a {
                ([10, 20, 1, 2], [10, 20, 2, 2], 40123u16, 5201u16)
            } else {
                ([10, 20, 2, 2], [10, 20, 1, 2], 5201, 40123)
            };
            let mut f = vec![0u8; 12];
            f.extend_from_slice(&[0x08, 0x00, 0x40 | ihl, tos]);
            f.extend_from_slice(&tot.to_be_bytes());
            f.extend_from_slice(&[0, 0, 0, 0, 64, 6, 0, 0]);
            f.extend_from_slice(&src);
            f.extend_from_slice(&dst);
            f.extend_from_slice(&sp.to_be_bytes());
            f.extend_from_slice(&dp.to_be_bytes());
            f.extend_from_slice(&[0; 8]);
            f.extend_from_slice(&[doff << 4, flags, 0, 0, 0, 0, 0, 0]);
            f.extend_from_slice(&tail);
            f
        })
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300),
                                orig in any::<u32>(), pkttype in any::<u8>(), aport in 0u16..3) {
        let mut d = Decoder::new(flow(aport));
        d.observe(&bytes, orig, CaptureDirection::from_pkttype(pkttype), Duration::ZERO);
        prop_assert_eq!(d.evidence().frames_seen, 1);
    }

    #[test]
    fn truncated_tcp_like_frames_never_panic(frame in tcp_like(), cut in any::<prop::sample::Index>(),
                                             orig in any::<u32>(), aport in prop_oneof![Just(0u16), Just(40123u16)]) {
        let mut d = Decoder::new(flow(aport));
        let n = cut.index(frame.len() + 1);
        d.observe(&frame[..n], orig, CaptureDirection::Incoming, Duration::from_secs(1));
        d.observe(&frame, orig, CaptureDirection::Outgoing, Duration::from_secs(2));
        let r = d.evidence();
        let c = r.counts;
        prop_assert_eq!(r.frames_seen, 2);
        prop_assert_eq!(c.a_to_b + c.b_to_a + c.other, 2);
        prop_assert!(c.ect0 + c.ect1 + c.not_ect + c.ce_data <= c.a_to_b);
    }
}
