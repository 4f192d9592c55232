//! Host kernel (root): the cross-check where the host has the arm — pfifo
//! behind TBF — one short round of netlab vs iperf3 vs the ordinary pair, with irtt and the
//! tc/ss readback check, so the host path of every pairing runs in CI too.
//! Like the guest test it checks that every pairing produced its figures,
//! that the readbacks agree and that every load's receiver kept the
//! kernel's tcp_rmem; it does not judge the loads' agreement (one short round
//! cannot; the full run reports it).

mod common;

use netlab_crosscheck::{cross_check, CrosscheckConfig, CrosscheckTimeline};

#[test]
fn privileged_short_crosscheck_on_the_host_kernel() {
    if !netlab_os::testing::require_privileged("privileged_short_crosscheck_on_the_host_kernel") {
        return;
    }
    let mut cfg = CrosscheckConfig::new(1);
    cfg.arms = vec!["pfifo limit 256".into()];
    cfg.timeline = CrosscheckTimeline::SHORT;
    cfg.iso_probe = true;
    // iperf3 and irtt missing is an environment failure, named by the run.
    let result = cross_check(&cfg, |l| println!("{l}")).expect("cross-check runs on the host");
    let text = result.markdown();
    println!("{text}");
    assert!(
        text.contains("## 1. Load")
            && text.contains("## 2b. Probe")
            && text.contains("consistent within sampling noise")
    );
    assert_eq!(result.scenarios.len(), 3);
    let rmem_max = common::rmem_max();
    for s in &result.scenarios {
        // Loose: the short window can hold all of pfifo's recovery from
        // the slow-start overshoot (goodput far below the rate, as in the
        // guest test), and a recovery that releases megabytes of
        // out-of-order data at once (this kernel's receive buffers go to
        // 32 MB) can lift goodput by receive time well above it.
        common::check_scenario(s, 0.5..20.0, rmem_max);
    }
}
