//! The kernel's tc-testing qdisc cases (fixtures/qdisc/tc-testing/, copied
//! verbatim): every `tc qdisc add|replace|change` line tc accepts for our
//! kinds parses as an arm, and the TCA_KIND + TCA_OPTIONS attributes we
//! build equal, byte for byte, what iproute2 6.1's `tc` sent for the same
//! line (captured once by `capture.py` into `tc_requests.json`). No root.

use netlab_qdisc_model::{arm_request, Arm, Handle};
use serde_json::Value;

fn fixture(name: &str) -> String {
    let p = format!(
        "{}/../../fixtures/qdisc/tc-testing/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// TCA_KIND and TCA_OPTIONS of a request (header and flags kept, padding not).
fn kind_and_options(request: &[u8]) -> String {
    let mut b = &request[16 + 20..];
    let mut out = Vec::new();
    while b.len() >= 4 {
        let len = u16::from_ne_bytes([b[0], b[1]]) as usize;
        let ty = u16::from_ne_bytes([b[2], b[3]]);
        if matches!(ty & 0x3fff, 1 | 2) {
            out.extend_from_slice(&b[..len]);
        }
        b = &b[len.next_multiple_of(4).min(b.len())..];
    }
    hex::encode(&out)
}

#[test]
fn every_tc_accepted_case_parses_and_sends_what_tc_sends() {
    let captured: Value = serde_json::from_str(&fixture("tc_requests.json")).unwrap();
    let cases = captured["cases"].as_array().unwrap();
    let mut passed = 0;
    let mut corpus_passed = 0;
    let mut failures = Vec::new();
    for case in cases {
        let arm_text = case["arm"].as_str().unwrap();
        let want = case["tca_kind_and_options_hex"].as_str().unwrap();
        let arm = match Arm::parse(arm_text) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{arm_text}: refused: {e}"));
                continue;
            }
        };
        let req = arm_request("d0", 3, Handle::new(1, 0), Handle::ROOT, &arm, 1).unwrap();
        let got = kind_and_options(&req.bytes());
        if got == want {
            passed += 1;
            if case["file"] != "extra_lines.txt" {
                corpus_passed += 1;
            }
        } else {
            failures.push(format!("{arm_text}:\n  tc:  {want}\n  ours {got}"));
        }
        // What we print back is tc words that build the same request.
        let again = Arm::parse(&arm.to_string()).unwrap();
        assert_eq!(again, arm, "{arm_text} -> {arm}");
    }
    println!(
        "{passed} of {} captured lines send what tc sends ({corpus_passed} from tc-testing)",
        cases.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every tc-accepted add/replace/change case of the eight kinds in the
    // copied files is in the capture.
    let mut expected = 0;
    for f in ["fifo", "fq_codel", "codel", "fq", "cake", "pie", "fq_pie"] {
        let v: Value = serde_json::from_str(&fixture(&format!("{f}.json"))).unwrap();
        expected += v
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["expExitCode"] == "0")
            .filter(|c| {
                let cmd = c["cmdUnderTest"].as_str().unwrap();
                ["add", "replace", "change"]
                    .iter()
                    .any(|op| cmd.starts_with(&format!("$TC qdisc {op} ")))
                    && cmd.split_whitespace().any(|w| {
                        [
                            "pfifo", "bfifo", "fq_codel", "codel", "fq", "cake", "pie", "fq_pie",
                        ]
                        .contains(&w)
                    })
            })
            .count();
    }
    assert_eq!(corpus_passed, expected);
    assert!(passed > corpus_passed, "the extra lines were captured too");
}

#[test]
fn words_tc_rejects_are_rejected_naming_the_word_and_the_accepted_ones() {
    let e = Arm::parse("bfifo foorbar").unwrap_err().to_string();
    assert_eq!(e, "bfifo: unknown option \"foorbar\" (known: limit)");
    let e = Arm::parse("pfifo foorbar").unwrap_err().to_string();
    assert!(e.contains("\"foorbar\" (known: limit)"), "{e}");
    let e = Arm::parse("bfifo limit foo-bar").unwrap_err().to_string();
    assert!(e.starts_with("bad bfifo limit \"foo-bar\""), "{e}");
    let e = Arm::parse("cake bandwith 5mbit").unwrap_err().to_string();
    assert!(e.contains("cake: unknown option \"bandwith\""), "{e}");
    assert!(
        e.contains("ack-filter-aggressive") && e.contains("pppoe-ptm"),
        "{e}"
    );
    assert!(Arm::parse("cake overhead 300").is_err());
    assert!(Arm::parse("cake mpu -1").is_err());
    assert!(Arm::parse("pie alpha 33").is_err());
    assert!(Arm::parse("fq_pie ecn_prob 100").is_err());
    assert!(Arm::parse("fq quantum 1514b").is_err());
    assert!(Arm::parse("codel target 5ns").is_err());
}

#[test]
fn hex_sizes_and_derived_cake_values_are_read_like_tc() {
    let Arm::Fq(fq) = Arm::parse("fq initial_quantum 0x80000000").unwrap() else {
        panic!()
    };
    assert_eq!(fq.initial_quantum, Some(0x8000_0000));
    let Arm::Bfifo(b) = Arm::parse("bfifo limit 0x10kb").unwrap() else {
        panic!()
    };
    assert_eq!(b.limit.unwrap().0, 16 * 1024);
    let Arm::Cake(c) = Arm::parse("cake rtt 200").unwrap() else {
        panic!()
    };
    assert_eq!(c.target().unwrap().as_micros(), 10);
}
