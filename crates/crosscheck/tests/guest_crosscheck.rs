//! Guest kernel (root): a shortened cross-check — 1 round, both arms
//! (whose load orders are each other's reverse, so both orders run),
//! netlab vs iperf3 vs the ordinary pair, irtt next to netlab's probe, the tc/ss readback check
//! — so the whole pipeline runs in CI and cannot rot. It asserts that every
//! scenario ran and produced each pairing's figures, that netlab's stream
//! validated, and that the readbacks agree with tc and ss; it does not
//! assert the two loads' figures agree (one short round is not enough to
//! say; the full run reports that).

use std::time::Duration;

mod common;

use netlab_crosscheck::{cross_check, CrosscheckConfig, CrosscheckTimeline};

const NAME: &str = "guest_short_crosscheck_runs_every_pairing";
const MODULES: [&str; 3] = ["veth", "sch_tbf", "sch_fq_codel"];

/// Like `netlab_guest::test_in_guest`, with a deadline that fits 6
/// scenarios (its default of 120 s does not, on a busy 2-core machine).
fn in_guest(body: impl FnOnce()) {
    if netlab_guest::in_guest() {
        return body();
    }
    if !netlab_guest::guest_or_skip(NAME, &MODULES) {
        return;
    }
    // A second attempt when the first fails, printed in full: on this
    // 2-core machine the guest's one vCPU has made a scenario's mid-window
    // tcp_info read miss iperf3's flow ("flow not found") in some runs and
    // not in others (2026-12-03: the check began 1 s late and its `tc`
    // spawn took about 3.5 s, by the qdisc counters it bracketed, so iperf3
    // had ended, 1 s past the window, before tcp_info was read). The check
    // now reads the flow first, iperf3 runs 3 s past the window, and a
    // miss names its time against the window's end; the retry stays until
    // CI has shown the miss gone. Two failures in a row fail the test.
    for attempt in 1..=2 {
        let out = guest_run();
        println!(
            "--- attempt {attempt}: guest stdout ---\n{}\n--- guest stderr ---\n{}",
            out.stdout, out.stderr
        );
        let passed = out.status.success() && netlab_guest::test_passed(&out.stdout);
        if passed {
            return;
        }
        assert!(
            attempt < 2,
            "{NAME} failed inside the guest twice ({})",
            out.status
        );
        eprintln!(
            "{NAME}: ATTEMPT 1 FAILED inside the guest ({}); running it once more",
            out.status
        );
    }
}

fn guest_run() -> netlab_guest::GuestOutcome {
    let exe = std::env::current_exe().unwrap();
    netlab_guest::Guest::new(exe)
        .modules(MODULES)
        .args([NAME, "--exact", "--nocapture", "--test-threads=1"])
        .inherit_env("NETLAB_REQUIRE_PRIVILEGED")
        .inherit_env("RUST_BACKTRACE")
        .deadline(Duration::from_secs(600))
        .run()
        .expect("running the test in the guest")
}

#[test]
fn guest_short_crosscheck_runs_every_pairing() {
    in_guest(|| {
        let mut cfg = CrosscheckConfig::new(1);
        cfg.timeline = CrosscheckTimeline::SHORT;
        cfg.iso_probe = true;
        let result = cross_check(&cfg, |l| println!("{l}")).expect("cross-check runs");
        let dir = std::env::temp_dir().join("netlab-crosscheck-test");
        let (md, json) = result.write(&dir).expect("markdown and raw data written");
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

        assert_eq!(result.scenarios.len(), 2 * 3);
        // pfifo's loads in one order, fq_codel's in the other.
        let order = |arm: &str| -> Vec<String> {
            result
                .scenarios
                .iter()
                .filter(|s| s.arm == arm)
                .map(|s| s.load_label.clone())
                .collect()
        };
        let mut reversed = order("fq_codel");
        reversed.reverse();
        assert_eq!(order("pfifo"), reversed);
        let rmem_max = common::rmem_max();
        for s in &result.scenarios {
            // Loose below: the short window (2–6 s after the connect) can
            // hold all of pfifo's recovery from the slow-start overshoot
            // through a 1 s queue; one CI run measured 1.27 and 4.07 Mbit/s
            // for netlab's load and 2.66 twice for iperf3's (B's tcp_info
            // agreeing). A dead or unshaped flow is still caught.
            common::check_scenario(s, 0.5..8.0, rmem_max);
        }
    });
}
