//! The request bytes for method §2's parameters, compared with what iproute2's
//! `tc` sent on this host (captured with `strace -e write=3`, see
//! fixtures/qdisc/README.md). Interface index 3 in all captures.
//!
//! Intended differences: the sequence number (tc uses the time; we number
//! requests 1, 2, ...) and, for TBF, the 1024-byte `TCA_TBF_RTAB` rate
//! table that tc appends: the kernel only reads it when the rate's link
//! layer is unset, and both tc and we set it to ethernet.

use std::path::PathBuf;

use netlab_qdisc_model::{
    arm_request, tbf_request, Arm, BottleneckSpec, Handle, Psched, Rate, Size, Tbf,
};

const IFINDEX: u32 = 3;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/qdisc/requests")
        .join(name)
}

/// The bytes of the RTM_NEWQDISC sendmsg in a `strace -e write=3` log.
fn strace_request(name: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(fixture(name)).expect("strace capture");
    let mut out = Vec::new();
    let mut in_dump = false;
    for line in text.lines() {
        if line.starts_with("sendmsg(") {
            in_dump = line.contains("RTM_NEWQDISC");
            continue;
        }
        if !in_dump {
            continue;
        }
        let Some(rest) = line.strip_prefix(" | ") else {
            continue;
        };
        // " | 00010  00 00 ... 00  ascii |": offset, then up to 16 bytes.
        let hexpart = &rest[7..rest.len().min(7 + 16 * 3 + 1)];
        for tok in hexpart.split_whitespace() {
            out.push(u8::from_str_radix(tok, 16).expect("hex byte"));
        }
    }
    assert!(!out.is_empty(), "no RTM_NEWQDISC dump in {name}");
    let len = u32::from_ne_bytes(out[0..4].try_into().unwrap()) as usize;
    assert_eq!(len, out.len(), "{name}: nlmsg_len matches the dump");
    out
}

fn attrs(mut b: &[u8]) -> Attrs {
    let mut v = Vec::new();
    while b.len() >= 4 {
        let len = u16::from_ne_bytes([b[0], b[1]]) as usize;
        let kind = u16::from_ne_bytes([b[2], b[3]]);
        v.push((kind, b[4..len].to_vec()));
        b = &b[len.next_multiple_of(4).min(b.len())..];
    }
    v
}

/// `(type, flags, tcmsg, [(attr, value or nested attrs)])` without seq/len.
/// Attributes as `(type, value)`.
type Attrs = Vec<(u16, Vec<u8>)>;
/// `(type+flags, tcmsg, [(top attr, nested attrs or one raw value)])`.
type Meaning = (Vec<u8>, Vec<u8>, Vec<(u16, Attrs)>);

fn meaning(b: &[u8], drop_tbf_rtab: bool) -> Meaning {
    let hdr_no_len_seq = b[4..8].to_vec();
    let tcmsg = b[16..36].to_vec();
    let top = attrs(&b[36..])
        .into_iter()
        .map(|(k, v)| {
            if k == 2 && b.windows(4).any(|w| w == b"tbf\0") {
                let nested = attrs(&v)
                    .into_iter()
                    .filter(|(k, _)| !(drop_tbf_rtab && *k == 2))
                    .collect();
                (k, nested)
            } else {
                (k, vec![(0, v)])
            }
        })
        .collect();
    (hdr_no_len_seq, tcmsg, top)
}

#[test]
fn tbf_5mbit_16kb_64kb_bytes() {
    let ours = tbf_request(
        "r1",
        IFINDEX,
        Handle::new(1, 0),
        Handle::ROOT,
        &Tbf::spec_default(),
        &Psched::MODERN,
        1,
    )
    .unwrap();
    // nlmsghdr (len 96, RTM_NEWQDISC, REQUEST|ACK|EXCL|CREATE, seq 1),
    // tcmsg (ifindex 3, handle 1:, parent root), TCA_KIND "tbf",
    // TCA_OPTIONS { TCA_TBF_PARMS { rate {cell_log 3, linklayer ethernet,
    // cell_align -1, 625000 B/s}, peakrate 0, limit 65536, buffer 409593
    // ticks, mtu 0 }, TCA_TBF_BURST 16384 }.
    assert_eq!(
        ours.netlink_hex,
        concat!(
            "60000000",
            "2400",
            "0506",
            "01000000",
            "00000000",
            "00000000",
            "03000000",
            "00000100",
            "ffffffff",
            "00000000",
            "0800",
            "0100",
            "74626600",
            "3400",
            "0200",
            "2800",
            "0100",
            "03010000ffff000068890900",
            "000000000000000000000000",
            "00000100",
            "f93f0600",
            "00000000",
            "0800",
            "0600",
            "00400000",
        )
    );
    let tc = strace_request("tbf.strace.txt");
    assert_eq!(
        tc.len(),
        ours.bytes().len() + 4 + 1024,
        "tc adds TCA_TBF_RTAB (4 + 256 * 4 bytes)"
    );
    assert_eq!(meaning(&ours.bytes(), false), meaning(&tc, true));
}

#[test]
fn tbf_above_4gbyte_per_s_sends_rate64_like_tc() {
    let tbf = Tbf {
        rate: Rate::parse("40gbit").unwrap(),
        burst: Size::parse("1mb").unwrap(),
        limit: Size::parse("4mb").unwrap(),
    };
    let ours = tbf_request(
        "v1",
        2,
        Handle::new(1, 0),
        Handle::ROOT,
        &tbf,
        &Psched::MODERN,
        1,
    )
    .unwrap();
    let tc = strace_request("tbf40g.strace.txt");
    assert_eq!(meaning(&ours.bytes(), false), meaning(&tc, true));
}

#[test]
fn pfifo_limit_256_bytes() {
    let ours = arm_request(
        "r1",
        IFINDEX,
        Handle::new(0x10, 0),
        Handle::new(1, 1),
        &Arm::spec_pfifo(),
        2,
    )
    .unwrap();
    assert_eq!(
        ours.netlink_hex,
        concat!(
            "38000000",
            "2400",
            "0506",
            "02000000",
            "00000000",
            "00000000",
            "03000000",
            "00001000",
            "01000100",
            "00000000",
            "0a00",
            "0100",
            "706669666f000000",
            "0800",
            "0200",
            "00010000",
        )
    );
    let tc = strace_request("pfifo.strace.txt");
    let mut ours_b = ours.bytes();
    ours_b[8..12].copy_from_slice(&tc[8..12]);
    assert_eq!(
        ours_b, tc,
        "identical to tc's request apart from the sequence number"
    );
}

#[test]
fn fq_codel_spec_bytes() {
    let ours = arm_request(
        "r1",
        IFINDEX,
        Handle::new(0x10, 0),
        Handle::new(1, 1),
        &Arm::spec_fq_codel(),
        2,
    )
    .unwrap();
    // TCA_OPTIONS { LIMIT 256, INTERVAL 100000, TARGET 5000, ECN 1, MEMORY_LIMIT 1048576 }.
    assert_eq!(
        ours.netlink_hex,
        concat!(
            "60000000",
            "2400",
            "0506",
            "02000000",
            "00000000",
            "00000000",
            "03000000",
            "00001000",
            "01000100",
            "00000000",
            "0d00",
            "0100",
            "66715f636f64656c00000000",
            "2c00",
            "0200",
            "0800",
            "0200",
            "00010000",
            "0800",
            "0300",
            "a0860100",
            "0800",
            "0100",
            "88130000",
            "0800",
            "0400",
            "01000000",
            "0800",
            "0900",
            "00001000",
        )
    );
    let tc = strace_request("fq_codel.strace.txt");
    let mut ours_b = ours.bytes();
    ours_b[8..12].copy_from_slice(&tc[8..12]);
    assert_eq!(
        ours_b, tc,
        "identical to tc's request apart from the sequence number"
    );
}

#[test]
fn spec_bottleneck_requests_are_those_two() {
    let reqs = BottleneckSpec::spec(Arm::spec_fq_codel())
        .requests("r1", IFINDEX, &Psched::MODERN)
        .unwrap();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].tc_argv,
        [
            "tc", "qdisc", "add", "dev", "r1", "root", "handle", "1:", "tbf", "rate", "5mbit",
            "burst", "16kb", "limit", "64kb"
        ]
    );
    assert_eq!(
        reqs[1].tc_argv.join(" "),
        "tc qdisc add dev r1 parent 1:1 handle 10: fq_codel limit 256 memory_limit 1mb target 5ms interval 100ms ecn"
    );
    assert_eq!(hex::decode(&reqs[1].netlink_hex).unwrap(), reqs[1].bytes());
    let json = serde_json::to_value(&reqs[0]).unwrap();
    assert_eq!(json["netlink_hex"].as_str().unwrap().len(), 96 * 2);
}
