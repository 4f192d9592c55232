//! Guest kernel (root): a shortened cross-check — 2 rounds, both arms,
//! netlab vs iperf3, irtt next to netlab's probe, the tc/ss readback check
//! — so the whole pipeline runs in CI and cannot rot. It asserts that every
//! scenario ran and produced each pairing's figures, that netlab's stream
//! validated, and that the readbacks agree with tc and ss; it does not
//! assert the two loads' figures agree (2 short rounds are not enough to
//! say; the full run reports that).

use std::time::Duration;

use netlab_crosscheck::{run, CrosscheckConfig, Load, Timeline};

const NAME: &str = "guest_short_crosscheck_runs_every_pairing";
const MODULES: [&str; 3] = ["veth", "sch_tbf", "sch_fq_codel"];

/// Like `netlab_guest::test_in_guest`, with a deadline that fits 8
/// scenarios (its default of 120 s does not, on a busy 2-core machine).
fn in_guest(body: impl FnOnce()) {
    if netlab_guest::in_guest() {
        return body();
    }
    if !netlab_guest::guest_or_skip(NAME, &MODULES) {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = netlab_guest::Guest::new(exe)
        .modules(MODULES)
        .args([NAME, "--exact", "--nocapture", "--test-threads=1"])
        .inherit_env("NETLAB_REQUIRE_PRIVILEGED")
        .inherit_env("RUST_BACKTRACE")
        .deadline(Duration::from_secs(400))
        .run()
        .expect("running the test in the guest");
    println!(
        "--- guest stdout ---\n{}\n--- guest stderr ---\n{}",
        out.stdout, out.stderr
    );
    assert!(
        out.status.success() && netlab_guest::test_passed(&out.stdout),
        "{NAME} failed inside the guest ({})",
        out.status
    );
}

/// The third field of `net.ipv4.tcp_rmem` here.
fn rmem_max() -> u32 {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_rmem")
        .unwrap()
        .split_whitespace()
        .nth(2)
        .and_then(|v| v.parse().ok())
        .expect("tcp_rmem has three numbers")
}

#[test]
fn guest_short_crosscheck_runs_every_pairing() {
    in_guest(|| {
        let mut cfg = CrosscheckConfig::new(2);
        cfg.timeline = Timeline::SHORT;
        cfg.iso_probe = true;
        let result = run(&cfg, |l| println!("{l}")).expect("cross-check runs");
        let dir = std::env::temp_dir().join("netlab-crosscheck-test");
        let (md, json) = result.write(&dir).expect("report written");
        let text = std::fs::read_to_string(&md).unwrap();
        println!("{text}");
        assert!(
            text.contains("## 1. Load")
                && text.contains("## 2. Probe")
                && text.contains("## 2b. Probe")
                && text.contains("## 3. Readbacks")
        );
        let back: netlab_crosscheck::CrosscheckRun =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        // (floats may differ in the last bit: compare what identifies the data)
        assert_eq!(back.config, result.config, "raw JSON keeps the config");
        assert_eq!(back.scenarios.len(), result.scenarios.len());
        for (b, r) in back.scenarios.iter().zip(&result.scenarios) {
            assert_eq!(
                (b.probe.len(), b.irtt.len(), b.tcp_a.len(), b.queue.len()),
                (r.probe.len(), r.irtt.len(), r.tcp_a.len(), r.queue.len())
            );
        }

        assert_eq!(result.scenarios.len(), 2 * 2 * 2);
        let rmem_max = rmem_max();
        for s in &result.scenarios {
            let what = format!("scenario {} ({} {})", s.index, s.arm, s.load_label);
            assert_eq!(s.error, None, "{what}");
            // Both loads' receivers start at tcp_rmem's max (method §1.3).
            let first_b = s.tcp_b.iter().find(|x| x.record.info.is_some());
            assert_eq!(
                first_b
                    .and_then(|x| x.record.skmem.as_ref())
                    .map(|m| m.rcvbuf),
                Some(rmem_max),
                "{what}: B's receive buffer at the flow's start"
            );
            let g = s.goodput_mbps.unwrap_or_else(|| panic!("{what}: goodput"));
            assert!(g > 2.0 && g < 8.0, "{what}: goodput {g} at a 5 Mbit/s TBF");
            assert!(
                s.tcp_a.len() >= 10 && s.tcp_b.len() >= 10,
                "{what}: tcp_info samples"
            );
            assert!(s.queue.len() >= 20, "{what}: qdisc samples");
            assert!(
                s.metrics.reductions.is_some() && s.metrics.skb_in_queue_bytes.is_some(),
                "{what}"
            );
            let p = s.probe_loaded.as_ref().unwrap();
            let i = s.irtt_loaded.as_ref().unwrap();
            let iso = s.iso_loaded.as_ref().unwrap();
            assert!(iso.sent >= 10, "{what}: isochronous probe {iso:?}");
            assert!(
                p.sent >= 1 && i.sent >= 10,
                "{what}: probe {p:?} irtt {i:?}"
            );
            let c = s.readback.as_ref().unwrap();
            assert!(c.errors.is_empty(), "{what}: {:?}", c.errors);
            assert_eq!(c.qdisc_agrees(), Some(true), "{what}: tc vs netlab {c:?}");
            assert_eq!(c.tcp_agrees(), Some(true), "{what}: ss vs tcp_info {c:?}");
            match s.load.as_ref().unwrap() {
                Load::Netlab(_) => {
                    let r = s.receiver.as_ref().unwrap();
                    assert_eq!(r.validation_failures, 0, "{what}");
                    assert!(r.bytes_total > 1_000_000, "{what}: {r:?}");
                }
                Load::Iperf3(_) => assert!(s.iperf_server.is_some(), "{what}"),
            }
        }
    });
}
