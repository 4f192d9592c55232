//! Bad input never panics: the arm/TBF/unit parsers and the netlink
//! decoder, fed garbage, truncated or mutated real bytes, return errors.

use netlab_qdisc_model::{decode_dump, decode_qdisc, parse_time, Arm, Psched, Rate, Size, Tbf};
use proptest::prelude::*;

fn real_dump() -> Vec<u8> {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/qdisc/guest_tbf_fq_codel.loaded.hex");
    hex::decode(std::fs::read_to_string(p).unwrap().trim()).unwrap()
}

const WORDS: &[&str] = &[
    "pfifo",
    "bfifo",
    "fq_codel",
    "codel",
    "fq",
    "cake",
    "pie",
    "fq_pie",
    "tbf",
    "limit",
    "flows",
    "quantum",
    "target",
    "interval",
    "memory_limit",
    "ecn",
    "noecn",
    "ce_threshold",
    "drop_batch",
    "flow_limit",
    "initial_quantum",
    "maxrate",
    "buckets",
    "pacing",
    "nopacing",
    "bandwidth",
    "unlimited",
    "rtt",
    "memlimit",
    "besteffort",
    "diffserv4",
    "triple-isolate",
    "nat",
    "wash",
    "tupdate",
    "alpha",
    "beta",
    "ecn_prob",
    "rate",
    "burst",
    "0",
    "1",
    "256",
    "4294967296",
    "-1",
    "5ms",
    "100ms",
    "1s",
    "5min",
    "16kb",
    "64kb",
    "1mb",
    "5gb",
    "5mbit",
    "1gbit",
    "0bit",
    "1.5",
    ".",
    "",
    "x",
    "0x10",
    "1e9",
    "NaN",
    "inf",
];

fn words() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(WORDS), 0..12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arm_parser_never_panics_on_vocabulary(w in words()) {
        let text = w.join(" ");
        if let Ok(arm) = Arm::parse(&text) {
            // Whatever parses prints back to words that parse to the same arm.
            prop_assert_eq!(Arm::parse(&arm.to_string()).unwrap(), arm.clone());
            let _ = netlab_qdisc_model::arm_request("r1", 3, netlab_qdisc_model::ARM_HANDLE, netlab_qdisc_model::ARM_PARENT, &arm, 2);
        }
        let _ = Tbf::parse(&text);
    }

    #[test]
    fn parsers_never_panic_on_any_text(s in "\\PC{0,40}") {
        let _ = Arm::parse(&s);
        let _ = Tbf::parse(&s);
        let _ = Rate::parse(&s);
        let _ = Size::parse(&s);
        let _ = parse_time("t", &s);
        let _ = netlab_qdisc_model::Handle::parse(&s);
    }

    #[test]
    fn decoder_never_panics_on_garbage(b in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = decode_dump(&b, None, &Psched::MODERN);
        let _ = decode_qdisc(&b, &Psched::MODERN);
    }

    #[test]
    fn decoder_never_panics_on_mutated_real_bytes(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut d = real_dump();
        for (i, v) in edits {
            let i = i.index(d.len());
            d[i] = v;
        }
        let end = cut.index(d.len() + 1);
        let _ = decode_dump(&d[..end], None, &Psched::MODERN);
        let _ = decode_dump(&d[..end], Some(3), &Psched::MODERN);
    }

    #[test]
    fn truncated_message_is_an_error(cut in 0usize..328) {
        // The fq_codel message is the 4th in the dump and 328 bytes long.
        let d = real_dump();
        let start = d.len() - 328;
        let msg = &d[start..];
        prop_assume!(cut < msg.len());
        prop_assert!(decode_qdisc(&msg[..cut], &Psched::MODERN).is_err());
    }
}
