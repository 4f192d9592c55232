//! Decoding real kernel frames from `fixtures/ecn/` (see its README), field by field.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::PathBuf;
use std::time::Duration;

use netlab_ecn::{
    CaptureDirection, Decoder, EcnEvidence, Flow, FlowDirection, FrameEvidence, IpEcnCodepoint,
    TcpFlags,
};

const A: Ipv4Addr = Ipv4Addr::new(10, 20, 1, 2);
const B: Ipv4Addr = Ipv4Addr::new(10, 20, 2, 2);

struct Fixture {
    direction: CaptureDirection,
    orig_len: u32,
    bytes: Vec<u8>,
}

fn fixture(name: &str) -> Fixture {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "fixtures",
        "ecn",
        name,
    ]
    .iter()
    .collect();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut direction = None;
    let mut orig_len = None;
    let mut hex = String::new();
    for line in text.lines() {
        if let Some(meta) = line.strip_prefix("# direction=") {
            let mut it = meta.split_whitespace();
            direction = Some(match it.next().unwrap() {
                "in" => CaptureDirection::Incoming,
                "out" => CaptureDirection::Outgoing,
                other => {
                    CaptureDirection::Other(other.strip_prefix("pkttype").unwrap().parse().unwrap())
                }
            });
            let ol = it.next().unwrap().strip_prefix("orig_len=").unwrap();
            orig_len = Some(ol.parse().unwrap());
        } else if !line.starts_with('#') {
            hex.push_str(line.trim());
        }
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    Fixture {
        direction: direction.expect("direction line"),
        orig_len: orig_len.expect("orig_len"),
        bytes,
    }
}

fn flow() -> Flow {
    Flow {
        a: SocketAddrV4::new(A, 40123),
        b: SocketAddrV4::new(B, 5201),
    }
}

fn decode_one(name: &str) -> EcnEvidence {
    let f = fixture(name);
    let mut d = Decoder::new(flow());
    d.observe(
        &f.bytes,
        f.orig_len,
        f.direction,
        Duration::from_millis(1500),
    );
    d.into_evidence()
}

fn flags(bits: u8) -> TcpFlags {
    TcpFlags {
        fin: bits & 0x01 != 0,
        syn: bits & 0x02 != 0,
        rst: bits & 0x04 != 0,
        psh: bits & 0x08 != 0,
        ack: bits & 0x10 != 0,
        urg: bits & 0x20 != 0,
        ece: bits & 0x40 != 0,
        cwr: bits & 0x80 != 0,
        ae: false,
    }
}

fn a_to_b() -> (SocketAddrV4, SocketAddrV4) {
    (SocketAddrV4::new(A, 40123), SocketAddrV4::new(B, 5201))
}

fn b_to_a() -> (SocketAddrV4, SocketAddrV4) {
    (SocketAddrV4::new(B, 5201), SocketAddrV4::new(A, 40123))
}

fn check_common(e: &FrameEvidence, dir: FlowDirection, ends: (SocketAddrV4, SocketAddrV4)) {
    assert_eq!(e.flow_direction, dir);
    assert_eq!((e.fields.src, e.fields.dst), ends);
    assert!((e.at_s - 1.5).abs() < 1e-9);
    assert_eq!(e.hex.len(), 2 * (e.captured_len as usize).min(128));
}

#[test]
fn fixture_host_syn_with_ece_and_cwr() {
    let r = decode_one("host-syn-ece-cwr.hex");
    let syn = r.syn.expect("SYN kept");
    check_common(&syn, FlowDirection::AToB, a_to_b());
    assert_eq!(syn.capture_direction, CaptureDirection::Incoming);
    assert_eq!((syn.orig_len, syn.captured_len), (74, 74));
    let f = &syn.fields;
    assert_eq!(f.flags, flags(0xc2));
    assert_eq!((f.seq, f.ack, f.window), (1_034_497_726, 0, 64240));
    assert_eq!(
        (f.ip_ecn, f.ip_dscp, f.ip_total_len, f.ip_ttl),
        (IpEcnCodepoint::NotEct, 0, 60, 63)
    );
    assert_eq!(f.payload_len, 0);
    assert!(syn.hex.starts_with("aac10be821f2cae18071191d0800"));
    assert!(!r.negotiated, "a SYN alone is not a negotiation");
    assert_eq!((r.counts.cwr, r.counts.a_to_b, r.counts.other), (0, 1, 0));
}

#[test]
fn fixture_host_syn_ack_with_ece() {
    let r = decode_one("host-synack-ece.hex");
    let sa = r.syn_ack.expect("SYN-ACK kept");
    check_common(&sa, FlowDirection::BToA, b_to_a());
    assert_eq!(sa.capture_direction, CaptureDirection::Outgoing);
    let f = &sa.fields;
    assert_eq!(f.flags, flags(0x52));
    assert_eq!(
        (f.seq, f.ack, f.window),
        (3_616_779_999, 1_034_497_727, 65160)
    );
    assert_eq!(
        (f.ip_ecn, f.ip_total_len, f.ip_ttl),
        (IpEcnCodepoint::NotEct, 60, 64)
    );
    assert_eq!(
        r.counts.ece, 0,
        "the SYN-ACK's ECE is negotiation, not feedback"
    );
}

#[test]
fn fixture_host_handshake_negotiates() {
    let mut d = Decoder::new(Flow {
        a: SocketAddrV4::new(A, 0),
        b: SocketAddrV4::new(B, 5201),
    });
    for (i, name) in [
        "host-arp-request.hex",
        "host-syn-ece-cwr.hex",
        "host-synack-ece.hex",
    ]
    .iter()
    .enumerate()
    {
        let f = fixture(name);
        d.observe(
            &f.bytes,
            f.orig_len,
            f.direction,
            Duration::from_millis(i as u64),
        );
    }
    let r = d.into_evidence();
    assert!(r.negotiated);
    assert_eq!(
        r.flow_a,
        SocketAddrV4::new(A, 40123),
        "A's port learnt from the SYN"
    );
    assert_eq!(
        (r.counts.other, r.counts.a_to_b, r.counts.b_to_a),
        (1, 1, 1)
    );
}

#[test]
fn fixture_host_arp_is_other() {
    let r = decode_one("host-arp-request.hex");
    assert_eq!(r.counts.other, 1);
    assert_eq!(r.frames_seen, 1);
    assert!(r.syn.is_none() && r.first.ce.is_none());
}

#[test]
fn fixture_host_gro_frame_truncated_to_headers() {
    let f = fixture("host-tcp-gro-truncated.hex");
    assert_eq!((f.orig_len, f.bytes.len()), (65226, 256));
    let mut d = Decoder::new(flow());
    d.observe(&f.bytes, f.orig_len, f.direction, Duration::ZERO);
    let r = d.into_evidence();
    assert_eq!(r.frames_truncated, 1);
    assert_eq!(r.counts.ect0, 1, "one (GRO) data frame with ECT(0)");
    assert_eq!((r.counts.a_to_b, r.counts.other), (1, 0));
    // Cut inside the TCP header: no longer decodable, counted as other.
    let mut d = Decoder::new(flow());
    d.observe(&f.bytes[..40], f.orig_len, f.direction, Duration::ZERO);
    assert_eq!(d.evidence().counts.other, 1);
}

#[test]
fn fixture_uml_ce_marked_data() {
    let r = decode_one("guest-ce-data.hex");
    let ce = r.first.ce.expect("CE kept");
    check_common(&ce, FlowDirection::AToB, a_to_b());
    assert_eq!((ce.orig_len, ce.captured_len), (1514, 256));
    let f = &ce.fields;
    assert_eq!(f.ip_ecn, IpEcnCodepoint::Ce);
    assert_eq!(f.flags, flags(0x10));
    assert_eq!(
        (f.seq, f.ack, f.window),
        (1_008_639_083, 3_056_934_363, 502)
    );
    assert_eq!((f.ip_total_len, f.ip_ttl, f.payload_len), (1500, 63, 1448));
    assert_eq!((r.counts.ce, r.counts.ce_data, r.counts.ect0), (1, 1, 0));
}

#[test]
fn fixture_uml_ack_with_ece() {
    let r = decode_one("guest-ack-ece.hex");
    let ece = r.first.ece.expect("ECE kept");
    check_common(&ece, FlowDirection::BToA, b_to_a());
    assert_eq!(ece.capture_direction, CaptureDirection::Outgoing);
    let f = &ece.fields;
    assert_eq!(f.flags, flags(0x50));
    assert_eq!(
        (f.seq, f.ack, f.window),
        (3_056_934_363, 1_008_640_531, 639)
    );
    assert_eq!(
        (f.ip_ecn, f.ip_total_len, f.payload_len),
        (IpEcnCodepoint::NotEct, 52, 0)
    );
    assert_eq!(r.counts.ece, 1);
}

#[test]
fn fixture_uml_cwr_segment() {
    let r = decode_one("guest-cwr-data.hex");
    let cwr = r.first.cwr.expect("CWR kept");
    check_common(&cwr, FlowDirection::AToB, a_to_b());
    let f = &cwr.fields;
    assert_eq!(f.flags, flags(0x90));
    assert_eq!((f.seq, f.ack), (1_008_683_971, 3_056_934_363));
    assert_eq!((f.ip_ecn, f.payload_len), (IpEcnCodepoint::Ect0, 1448));
    assert_eq!((r.counts.cwr, r.counts.ect0, r.counts.ce), (1, 1, 0));
}

#[test]
fn fixture_evidence_serialises_with_notes() {
    let r = decode_one("guest-ce-data.hex");
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains("\"ip_ecn\":\"ce\""));
    assert!(json.contains("RFC 3168 §6.1.2"));
    assert!(json.contains("not a one-to-one"));
    let back: EcnEvidence = serde_json::from_str(&json).unwrap();
    assert_eq!(back, r);
}
