//! Guest kernel (user-mode-linux: the host lacks these qdiscs): every
//! tc-accepted `tc qdisc add` case of the tc-testing corpus for the kinds
//! the pinned guest kernel has (pfifo, bfifo, fq_codel, codel, fq, cake,
//! pie) is applied as the root qdisc of a scratch namespace's `lo`, read
//! back, and every option the arm words set must be in the typed readback
//! with the value sent (times within the kernel's 1 µs rounding). And the
//! full CAKE line configures and reads back every option.

use std::time::Duration;

use netlab_qdisc::{ifindex_in, read_psched, QdiscSocket};
use netlab_qdisc_model::{arm_request, Arm, Handle, QdiscOptions, QdiscXstats};
use netlab_topology::testing::ScratchNetns;
use serde_json::Value;

const MODULES: &[&str] = &["sch_fq_codel", "sch_codel", "sch_fq", "sch_cake", "sch_pie"];

fn us_close(got: Option<u32>, want: Option<Duration>, what: &str, line: &str) {
    if let Some(w) = want {
        let w = w.as_micros() as i64;
        let g = got.unwrap_or_else(|| panic!("{line}: {what} not read back")) as i64;
        assert!(
            (g - w).abs() <= 1,
            "{line}: {what} read back {g} us, sent {w} us"
        );
    }
}

fn eq<T: PartialEq + std::fmt::Debug>(got: Option<T>, want: Option<T>, what: &str, line: &str) {
    if want.is_some() {
        assert_eq!(got, want, "{line}: {what}");
    }
}

/// tc leaves a zero out of the request (the kernel keeps its default).
fn nz(v: Option<u32>) -> Option<u32> {
    v.filter(|&v| v != 0)
}

/// Every option `arm` set is in `options` as sent.
fn assert_kept(arm: &Arm, options: &QdiscOptions, line: &str) {
    match (arm, options) {
        (Arm::Pfifo(a), QdiscOptions::Pfifo { limit_packets }) => eq(
            Some(*limit_packets),
            a.limit.or(Some(*limit_packets)),
            "limit",
            line,
        ),
        (Arm::Bfifo(a), QdiscOptions::Bfifo { limit_bytes }) => eq(
            Some(u64::from(*limit_bytes)),
            a.limit.map(|s| s.0).or(Some(u64::from(*limit_bytes))),
            "limit",
            line,
        ),
        (Arm::FqCodel(a), QdiscOptions::FqCodel(r)) => {
            eq(r.limit, nz(a.limit), "limit", line);
            eq(r.flows, nz(a.flows), "flows", line);
            eq(r.quantum, nz(a.quantum), "quantum", line);
            eq(
                r.memory_limit.map(u64::from),
                a.memory_limit.map(|s| s.0),
                "memory_limit",
                line,
            );
            eq(r.ecn, a.ecn, "ecn", line);
            eq(r.drop_batch, nz(a.drop_batch), "drop_batch", line);
            us_close(r.target_us, a.target, "target", line);
            us_close(r.interval_us, a.interval, "interval", line);
            us_close(r.ce_threshold_us, a.ce_threshold, "ce_threshold", line);
        }
        (Arm::Codel(a), QdiscOptions::Codel(r)) => {
            eq(r.limit, nz(a.limit), "limit", line);
            eq(r.ecn, a.ecn, "ecn", line);
            us_close(r.target_us, a.target, "target", line);
            us_close(r.interval_us, a.interval, "interval", line);
            us_close(r.ce_threshold_us, a.ce_threshold, "ce_threshold", line);
        }
        (Arm::Fq(a), QdiscOptions::Fq(r)) => {
            eq(r.limit, a.limit, "limit", line);
            eq(r.flow_limit, a.flow_limit, "flow_limit", line);
            eq(r.quantum, a.quantum, "quantum", line);
            eq(
                r.initial_quantum,
                a.initial_quantum,
                "initial_quantum",
                line,
            );
            eq(r.pacing, a.pacing, "pacing", line);
            eq(r.orphan_mask, a.orphan_mask, "orphan_mask", line);
            eq(r.horizon_drop, a.horizon_drop, "horizon_drop", line);
            let bytes = |x: Option<netlab_qdisc_model::Rate>| x.map(|r| r.bytes_per_sec() as u32);
            eq(r.maxrate_bytes_per_sec, bytes(a.maxrate), "maxrate", line);
            eq(
                r.low_rate_threshold_bytes_per_sec,
                bytes(a.low_rate_threshold),
                "low_rate_threshold",
                line,
            );
            eq(
                r.timer_slack_ns,
                a.timer_slack.map(|d| d.as_nanos() as u32),
                "timer_slack",
                line,
            );
            us_close(r.refill_delay_us, a.refill_delay, "refill_delay", line);
            us_close(r.horizon_us, a.horizon, "horizon", line);
            us_close(r.ce_threshold_us, a.ce_threshold, "ce_threshold", line);
        }
        (Arm::Cake(a), QdiscOptions::Cake(r)) => {
            match a.bandwidth {
                Some(Some(rate)) => eq(
                    r.base_rate_bytes_per_sec,
                    Some(rate.bytes_per_sec()),
                    "bandwidth",
                    line,
                ),
                Some(None) => eq(r.base_rate_bytes_per_sec, Some(0), "unlimited", line),
                None => {}
            }
            eq(r.autorate, a.autorate, "autorate", line);
            us_close(r.rtt_us, a.rtt.filter(|d| !d.is_zero()), "rtt", line);
            us_close(r.target_us, a.target(), "target", line);
            eq(r.diffserv.clone(), a.diffserv.clone(), "diffserv", line);
            eq(r.flow_mode.clone(), a.flow_mode.clone(), "flow mode", line);
            eq(r.nat, a.nat, "nat", line);
            eq(r.wash, a.wash, "wash", line);
            eq(r.split_gso, a.split_gso, "split-gso", line);
            eq(r.ingress, a.ingress, "ingress", line);
            eq(
                r.ack_filter.clone(),
                a.ack_filter.clone(),
                "ack filter",
                line,
            );
            eq(r.atm.clone(), a.atm.clone(), "atm", line);
            eq(r.overhead, a.overhead, "overhead", line);
            eq(r.mpu, a.mpu.filter(|&m| m > 0), "mpu", line);
            eq(
                r.memory_limit.map(u64::from),
                a.memlimit.map(|s| s.0),
                "memlimit",
                line,
            );
            eq(r.fwmark, a.fwmark, "fwmark", line);
            if a.raw {
                assert!(r.raw, "{line}: raw");
            }
        }
        (Arm::Pie(a), QdiscOptions::Pie(r)) => {
            eq(r.limit, nz(a.limit), "limit", line);
            eq(r.alpha, nz(a.alpha), "alpha", line);
            eq(r.beta, nz(a.beta), "beta", line);
            eq(r.ecn, a.ecn, "ecn", line);
            us_close(r.target_us, a.target, "target", line);
            // The kernel keeps tupdate in jiffies (rounded up; HZ is 100
            // in the guest): 15ms reads back 20ms.
            if let Some(w) = a.tupdate.filter(|d| !d.is_zero()) {
                let (g, w) = (i64::from(r.tupdate_us.unwrap()), w.as_micros() as i64);
                assert!(
                    (0..10_000).contains(&(g - w)),
                    "{line}: tupdate {g} us, sent {w} us"
                );
            }
        }
        (a, o) => panic!("{line}: {a:?} read back as {o:?}"),
    }
}

fn read_fixture(name: &str) -> Value {
    let p = format!(
        "{}/../../fixtures/qdisc/tc-testing/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The `tc qdisc add` cases of the kinds the guest has: arm words and the
/// case's `matchPattern` when it expects one match.
fn corpus_cases() -> Vec<(String, Handle, Option<String>)> {
    let v = read_fixture("tc_requests.json");
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["cmd"].as_str().unwrap().starts_with("$TC qdisc add "))
        .filter(|c| !c["arm"].as_str().unwrap().starts_with("fq_pie"))
        .map(|c| {
            let cmd: Vec<&str> = c["cmd"].as_str().unwrap().split_whitespace().collect();
            let at = cmd.iter().position(|&w| w == "handle").unwrap();
            let handle = Handle::parse(cmd[at + 1]).unwrap();
            let arm = c["arm"].as_str().unwrap().to_string();
            if c["file"] == "extra_lines.txt" {
                // netlab's own lines: no tc-testing pattern, options checked.
                return (arm, handle, None);
            }
            let file = read_fixture(c["file"].as_str().unwrap());
            let case = file
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["id"] == c["id"])
                .unwrap();
            let pattern = (case["matchCount"] == "1")
                .then(|| case["matchPattern"].as_str().unwrap().to_string());
            (arm, handle, pattern)
        })
        .collect()
}

/// The subset of regular expressions tc-testing's patterns use: literals,
/// `.`, `[0-9]`, and `*`/`+` after an atom; found anywhere in `text`.
fn pattern_matches(pattern: &str, text: &str) -> bool {
    #[derive(Clone, Copy)]
    enum Atom {
        Lit(char),
        Any,
        Digit,
    }
    let mut atoms: Vec<(Atom, char)> = Vec::new();
    let mut p = pattern.chars().peekable();
    while let Some(c) = p.next() {
        let atom = match c {
            '.' => Atom::Any,
            '[' => {
                let class: String = p.by_ref().take_while(|&c| c != ']').collect();
                assert_eq!(class, "0-9", "pattern class [{class}] not supported");
                Atom::Digit
            }
            '\\' => Atom::Lit(p.next().unwrap()),
            c => Atom::Lit(c),
        };
        let q = match p.peek() {
            Some('*') | Some('+') => p.next().unwrap(),
            _ => ' ',
        };
        atoms.push((atom, q));
    }
    fn one(a: Atom, c: char) -> bool {
        match a {
            Atom::Lit(l) => l == c,
            Atom::Any => true,
            Atom::Digit => c.is_ascii_digit(),
        }
    }
    fn at(atoms: &[(Atom, char)], t: &[char]) -> bool {
        let Some(&(a, q)) = atoms.first() else {
            return true;
        };
        match q {
            ' ' => !t.is_empty() && one(a, t[0]) && at(&atoms[1..], &t[1..]),
            _ => {
                let min = usize::from(q == '+');
                let mut n = 0;
                while n < t.len() && one(a, t[n]) {
                    n += 1;
                }
                (min..=n).rev().any(|k| at(&atoms[1..], &t[k..]))
            }
        }
    }
    let t: Vec<char> = text.chars().collect();
    (0..=t.len()).any(|i| at(&atoms, &t[i..]))
}

#[test]
fn the_pattern_matcher_works() {
    assert!(pattern_matches(
        "qdisc fq 1: root.*limit [0-9]+p",
        "qdisc fq 1: root x limit 10p"
    ));
    assert!(!pattern_matches("limit [0-9]+p", "limit p"));
    assert!(pattern_matches(
        "ce_threshold 1.02s",
        "x ce_threshold 1.02s y"
    ));
}

fn apply_and_read(
    sock: &QdiscSocket,
    lo: u32,
    handle: Handle,
    line: &str,
) -> netlab_qdisc_model::QdiscRecord {
    let arm = Arm::parse(line).unwrap();
    let req = arm_request("lo", lo, handle, Handle::ROOT, &arm, 1).unwrap();
    sock.apply(&req).unwrap_or_else(|e| panic!("{line}: {e}"));
    let rb = sock.readback(lo, None, &read_psched()).unwrap();
    let rec = rb
        .by_handle(handle)
        .unwrap_or_else(|| panic!("{line}: no 1:"))
        .clone();
    assert_eq!(rec.kind, arm.kind(), "{line}");
    assert_kept(&arm, &rec.options, line);
    rec
}

#[test]
fn guest_tc_corpus_cases_are_kept_by_the_kernel() {
    netlab_guest::test_in_guest(
        "guest_tc_corpus_cases_are_kept_by_the_kernel",
        MODULES,
        || {
            let ns = ScratchNetns::new("qcorpus").expect("scratch netns");
            let lo = ifindex_in(&ns, "lo").unwrap();
            let sock = QdiscSocket::open_in(&ns).unwrap();
            let cases = corpus_cases();
            let mut matched = 0;
            for (line, handle, pattern) in &cases {
                let rec = apply_and_read(&sock, lo, *handle, line);
                let shown = rec.tc_show();
                println!("{line}\n  read back: {shown}");
                if let Some(p) = pattern {
                    // A dump has no reference count: the pattern without it.
                    let p = p.replace("refcnt [0-9]+ ", "");
                    assert!(
                        pattern_matches(&p, &shown),
                        "{line}:\n  pattern  {p}\n  decoded  {shown}"
                    );
                    matched += 1;
                }
                sock.delete(lo, Handle::ROOT).unwrap();
            }
            println!(
                "{} corpus lines applied and read back, {matched} matchPatterns met by the decoded readback",
                cases.len()
            );
            assert!(matched >= 40, "{matched}");
        },
    );
}

#[test]
fn guest_full_cake_line_reads_back_every_option_and_stats() {
    netlab_guest::test_in_guest(
        "guest_full_cake_line_reads_back_every_option_and_stats",
        MODULES,
        || {
            let ns = ScratchNetns::new("qcake").expect("scratch netns");
            let lo = ifindex_in(&ns, "lo").unwrap();
            let sock = QdiscSocket::open_in(&ns).unwrap();
            let line = "cake bandwidth 5mbit diffserv4 dual-dsthost nat ack-filter rtt 50ms overhead 18 mpu 64";
            let rec = apply_and_read(&sock, lo, Handle::new(1, 0), line);
            let QdiscOptions::Cake(r) = &rec.options else {
                panic!("{rec:?}")
            };
            println!("{}", serde_json::to_string(r).unwrap());
            assert_eq!(r.base_rate_bytes_per_sec, Some(625_000));
            assert_eq!(r.diffserv.as_deref(), Some("diffserv4"));
            assert_eq!(r.flow_mode.as_deref(), Some("dual-dsthost"));
            assert_eq!(r.nat, Some(true));
            assert_eq!(r.ack_filter.as_deref(), Some("ack-filter"));
            assert_eq!((r.rtt_us, r.target_us), (Some(50_000), Some(2_500)));
            assert_eq!((r.overhead, r.mpu), (Some(18), Some(64)));
            assert_eq!(r.autorate, Some(false));
            let Some(QdiscXstats::Cake(x)) = &rec.xstats else {
                panic!("{:?}", rec.xstats)
            };
            println!("{}", serde_json::to_string(x).unwrap());
            assert_eq!(x.tins.len(), 4, "diffserv4 has four tins");
            assert!(x.memory_limit.is_some_and(|m| m > 0));
            // The tins' thresholds split the 5 Mbit/s the way diffserv4 does.
            assert_eq!(x.tins[1].threshold_rate_bytes_per_sec, 625_000);
            sock.delete(lo, Handle::ROOT).unwrap();

            // PIE's typed xstats: probability and delay are there.
            let rec = apply_and_read(
                &sock,
                lo,
                Handle::new(1, 0),
                "pie limit 1000 target 15ms ecn",
            );
            let Some(QdiscXstats::Pie(p)) = &rec.xstats else {
                panic!("{:?}", rec.xstats)
            };
            assert!((0.0..=1.0).contains(&p.probability), "{p:?}");
            assert_eq!(p.delay_us, 0, "{p:?}");
        },
    );
}
