//! The headline's probe text against the committed 3-round guest run
//! (fixtures/report/run-uml-3rounds): each arm's losses said as losses,
//! a FIFO's delay as a number, and the fallback when B's receive log is
//! absent.

use netlab_probe::RequestOutcome;
use netlab_results::Results;

fn fixture() -> Results {
    netlab_analysis::testing::fixture_results("run-uml-3rounds")
}

fn loaded_timeouts(r: &Results, arm: &str) -> (usize, usize) {
    let reqs = r
        .scenarios
        .iter()
        .filter(|s| s.arm == arm)
        .flat_map(|s| &s.probe().unwrap().requests)
        .filter(|q| q.phase == netlab_probe::Phase::Loaded);
    let all: Vec<_> = reqs.collect();
    let t = all
        .iter()
        .filter(|q| q.outcome == RequestOutcome::Timeout)
        .count();
    (t, all.len())
}

#[test]
fn the_headline_says_fq_codels_losses_as_losses_and_pfifos_delay_as_a_number() {
    let r = netlab_analysis::testing::with_fates(fixture());
    let (fq_lost, fq_sent) = loaded_timeouts(&r, "fq_codel");
    let (pf_late, pf_sent) = loaded_timeouts(&r, "pfifo");
    assert!(fq_lost > 0 && pf_late > 0);
    let input = netlab_analysis::input_from(&r).unwrap();
    let st = netlab_compare::compare::analyse(&input);
    let h = netlab_compare::headline::Headline::of(&input, &st);
    let fq = h.arms.iter().find(|a| a.arm == "fq_codel").unwrap();
    let d = fq.delivery.as_ref().unwrap();
    assert!(
        d.not_ect_beside_ecn,
        "the seed's fq_codel marks its ECN flow"
    );
    let text = fq.probe_text();
    assert!(
        text.starts_with(&format!(
            "{fq_lost} of {fq_sent} loaded requests dropped by CoDel (Not-ECT beside an ECN flow); one-way A→B over the window p50 "
        )),
        "{text}"
    );
    assert!(!text.contains("≥"), "{text}");
    let pf = h.arms.iter().find(|a| a.arm == "pfifo").unwrap();
    let text = pf.probe_text();
    // pfifo's rounds fall into three groups: round 2 one state, rounds
    // 1 and 3 each cut inside the window (method §12.6): each said
    // apart, none pooled.
    assert!(
        text.starts_with("by state, not pooled: 1 cut (r2): 0 of "),
        "{text}"
    );
    assert!(
        text.contains("; 1 cut, changed inside the window (r1): 0 of "),
        "{text}"
    );
    assert!(
        text.contains("; 2 cuts, changed inside the window (r3): 0 of "),
        "{text}"
    );
    let by_state = |f: fn(&netlab_analysis::ArmDelivery) -> u32| -> u32 {
        pf.by_state
            .iter()
            .map(|s| f(s.delivery.as_ref().unwrap()))
            .sum()
    };
    assert_eq!(by_state(|d| d.sent), pf_sent as u32, "{text}");
    assert_eq!(by_state(|d| d.past_timeout), pf_late as u32, "{text}");
    let p95 = pf.delivery.as_ref().unwrap().one_way.unwrap().p95_ms;
    assert!((p95 - 1100.0).abs() < 1e-6, "{p95}");
    // The method's RTT view keeps its own table, censored as before.
    let md = h.markdown();
    assert!(
        md.contains(netlab_compare::headline::Headline::METHOD_RTT_HEADING),
        "{md}"
    );
    assert!(md.contains("| fq_codel |"), "{md}");
    assert!(md.contains("≥ 1000 ms"), "{md}");
    assert!(!md.contains("loaded probes censored"), "{md}");
}

#[test]
fn results_without_bs_log_fall_back_to_the_censored_rtt_and_say_so() {
    let input = netlab_analysis::input_from(&fixture()).unwrap();
    let h = netlab_compare::headline::Headline::of_input(&input);
    for a in &h.arms {
        assert!(a.delivery.is_none());
        // Each request counted once, as the method's view: without B's
        // log a timeout's second cannot be weighted (method §12.11).
        let w = a.window.as_ref().unwrap();
        assert_eq!(
            w.sampling,
            netlab_compare::window::Sampling::StopAndWaitPerRequest
        );
        let t = a.probe_text();
        assert!(t.contains("RTT over the window p50 "), "{t}");
        assert!(t.contains("no B receive log in these results"), "{t}");
    }
    assert!(h
        .delay_note()
        .unwrap()
        .contains("these quantiles over-weight low delay"));
    assert!(h.method_rtt_table().is_none());
}
