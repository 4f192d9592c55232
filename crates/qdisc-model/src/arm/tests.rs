//! Unit tests of the arm words, their payloads and their errors.

use super::*;
use netlink_packet_core::Nla as _;

#[test]
fn spec_fq_codel_parses_and_prints_back() {
    let arm = Arm::parse("fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn")
        .unwrap();
    assert_eq!(arm, Arm::spec_fq_codel());
    assert_eq!(arm.kind(), "fq_codel");
    assert_eq!(arm.module_name(), "sch_fq_codel");
    assert_eq!(
        arm.to_string(),
        "fq_codel limit 256 memory_limit 1mb target 5ms interval 100ms ecn"
    );
    assert_eq!(Arm::parse(&arm.to_string()).unwrap(), arm);
}

#[test]
fn spec_pfifo_parses() {
    let arm = Arm::parse("pfifo limit 256").unwrap();
    assert_eq!(arm, Arm::spec_pfifo());
    assert_eq!(arm.to_string(), "pfifo limit 256");
    assert_eq!(arm.module_name(), "sch_fifo");
}

#[test]
fn every_kind_round_trips_through_tc_words() {
    for text in [
        "pfifo",
        "bfifo limit 64kb",
        "fq_codel limit 1024 flows 2048 quantum 1514 memory_limit 32mb target 10ms interval 200ms ce_threshold 1ms drop_batch 32 noecn",
        "codel limit 100 target 5ms interval 100ms ce_threshold 2ms ecn",
        "fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140 maxrate 100mbit buckets 1024 ce_threshold 3ms nopacing",
        "cake bandwidth 5mbit rtt 100ms memlimit 4mb besteffort triple-isolate nonat wash",
        "cake unlimited",
        "pie limit 1000 target 15ms tupdate 15ms alpha 2 beta 20 ecn",
        "fq_pie limit 10240 flows 1024 target 15ms tupdate 15ms alpha 2 beta 20 quantum 1514b memory_limit 32mb ecn_prob 10 ecn",
    ] {
        let arm = Arm::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(arm.to_string(), text);
        assert_eq!(Arm::parse(&arm.to_string()).unwrap(), arm);
        arm.options_payload().unwrap();
    }
}

/// cake's framing keywords add up as tc adds them (`ethernet` twice is
/// 76 bytes), and a sum outside `overhead N`'s -64..=256 is refused: the
/// arm prints as `overhead N`, which must parse back (the fuzz target
/// qdisc_arm found nine `ethernet` words printing `overhead 342`).
#[test]
fn cake_framing_adds_up_within_the_overhead_range() {
    let arm = Arm::parse("cake ethernet ether-vlan ethernet").unwrap();
    assert_eq!(arm.to_string(), "cake overhead 80 mpu 84");
    assert_eq!(Arm::parse(&arm.to_string()).unwrap(), arm);
    let nine = format!("cake atm{}", " ethernet".repeat(9));
    // Refused at the seventh, whose sum (266) first leaves the range.
    let e = Arm::parse(&nine).unwrap_err().to_string();
    assert!(e.contains("bad cake overhead \"266\""), "{e}");
    // Six are 228 bytes, inside the range: parsed, printed, parsed back.
    let six = Arm::parse(&format!("cake atm{}", " ethernet".repeat(6))).unwrap();
    assert_eq!(Arm::parse(&six.to_string()).unwrap(), six);
}

#[test]
fn bad_words_get_clear_errors() {
    let e = Arm::parse("fq_codle limit 5").unwrap_err().to_string();
    assert!(e.contains("unknown qdisc kind \"fq_codle\""), "{e}");
    let e = Arm::parse("fq_codel limt 5").unwrap_err().to_string();
    assert!(e.contains("fq_codel: unknown option \"limt\""), "{e}");
    let e = Arm::parse("fq_codel limit").unwrap_err().to_string();
    assert_eq!(e, "fq_codel: option \"limit\" needs a value");
    let e = Arm::parse("fq_codel target 5min").unwrap_err().to_string();
    assert!(
        e.starts_with("bad fq_codel target \"5min\": unknown unit"),
        "{e}"
    );
    let e = Arm::parse("bfifo limit 64kib").unwrap_err().to_string();
    assert!(e.starts_with("bad bfifo limit \"64kib\""), "{e}");
    let e = Arm::parse("pfifo limit -1").unwrap_err().to_string();
    assert!(e.starts_with("bad pfifo limit \"-1\""), "{e}");
    assert!(Arm::parse("pfifo limit 0").is_err());
    assert!(Arm::parse("").is_err());
    // tc reads fq buckets with get_unsigned and rounds up to a power of two
    // (buckets 1000 is accepted as 1024); its quantum is a plain number.
    assert!(Arm::parse("fq quantum 3028b").is_err());
}

#[test]
fn fq_codel_payload_matches_iproute2_order() {
    let OptionsPayload::Nested(attrs) = Arm::spec_fq_codel().options_payload().unwrap() else {
        panic!("nested expected")
    };
    let kinds: Vec<u16> = attrs.iter().map(|a| a.kind()).collect();
    assert_eq!(kinds, vec![2, 3, 1, 4, 9]);
    assert!(matches!(
        attrs[0],
        TcOption::FqCodel(netlink_packet_route::tc::TcQdiscFqCodelOption::Limit(256))
    ));
}
