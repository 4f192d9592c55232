//! Every probe request's fate on the host kernel (needs root: namespaces,
//! qdiscs; skipped without unless `NETLAB_REQUIRE_PRIVILEGED=1`): pfifo
//! behind the 5 Mbit/s TBF holds a standing queue of several hundred ms,
//! far deeper than a 100 ms probe timeout, so loaded requests time out at
//! A — and B's receive log shows they reached B, with their real one-way
//! delay past the timeout (method §5.8).

use netlab_os::testing::{require_privileged, Scratch};
use netlab_results::fate::{Fate, LossCause};
use netlab_results::Results;
use netlab_run::{RunOutcome, Session, SessionConfig};

#[test]
fn privileged_requests_past_the_timeout_reached_b_with_their_real_one_way_delay() {
    if !require_privileged("privileged_requests_past_the_timeout_reached_b") {
        return;
    }
    let dir = Scratch::new("run-probe-fates");
    let toml = "name = \"fates\"\nrounds = 1\nkernel = \"host\"\narms = [\"pfifo limit 256\"]\n\
                [timeline]\nbaseline = \"1s\"\nwarmup = \"2s\"\nmeasure = \"4s\"\n\
                [[probes]]\nkind = \"stop-and-wait\"\ntimeout = \"100ms\"\n";
    let exp = netlab_experiment::parse(toml).unwrap();
    let out = dir.0.join("out");
    let mut cfg = SessionConfig::new(exp, out.clone());
    cfg.quiet = true;
    assert_eq!(Session::new(cfg).run(), Ok(RunOutcome::Complete));
    let results = Results::read(&out.join("results.json")).unwrap();
    let s = &results.scenarios[0];
    assert!(s.error.is_none(), "{:?}", s.error);
    let p = s.probe().unwrap();
    let arrivals = p.echo_arrivals.as_ref().expect("B's receive log");
    assert!(arrivals.shared_clock && arrivals.closed_s.is_some());
    let fates = p.fates.as_ref().expect("fates");
    assert_eq!(fates.requests.len(), p.requests.len());
    assert!(fates.drops_matched, "the up arm was sampled");

    // Timeouts at A that B received: their one-way delay is past the
    // timeout, and a late reply (if it came) took longer still.
    let mut past = 0;
    for (f, r) in fates.requests.iter().zip(&p.requests) {
        assert_eq!(f.seq, r.seq);
        match &f.fate {
            Fate::ReachedB {
                one_way_ms: Some(d),
                late_rtt_ms,
            } => {
                assert!(r.rtt_ms.is_none(), "{r:?}");
                assert!(*d > 0.0 && *d < 5_000.0, "{f:?}");
                if *d > 100.0 {
                    past += 1;
                }
                if let Some(l) = late_rtt_ms {
                    assert!(*l >= 100.0 && *l > *d, "{f:?}");
                }
            }
            Fate::Replied { rtt_ms, one_way_ms } => {
                let d = one_way_ms.expect("B saw every replied request");
                assert!(d > 0.0 && d <= *rtt_ms, "{f:?}");
            }
            Fate::NeverReachedB { cause } => {
                // pfifo's only loss at R is a tail drop
                if let LossCause::DroppedAtBottleneck { reason, qdisc, .. } = cause {
                    assert_eq!(
                        (qdisc.as_str(), *reason),
                        ("pfifo", netlab_results::fate::DropReason::TailDrop)
                    );
                }
            }
            Fate::ReachedB {
                one_way_ms: None, ..
            } => panic!("shared clock, no delay: {f:?}"),
            Fate::NotSent { .. } | Fate::Unresolved => {}
        }
    }
    let loaded = fates
        .phase(netlab_probe::Phase::Loaded)
        .expect("loaded requests");
    assert!(
        past >= 3,
        "requests past the 100 ms timeout reached B: {fates:#?}"
    );
    let ow = loaded.one_way.expect("one-way delays");
    assert!(
        ow.p50_ms > 100.0,
        "the standing queue is past the timeout: {ow:?}"
    );
    assert_eq!(
        loaded.sent,
        loaded.replied + loaded.reached_b + loaded.never_reached_b + loaded.unresolved
    );
    println!(
        "loaded: sent {} replied {} reached_b {} (late replies {}) never {} unresolved {}; one-way p50 {:.1} p95 {:.1} ms",
        loaded.sent,
        loaded.replied,
        loaded.reached_b,
        loaded.late_replies,
        loaded.never_reached_b,
        loaded.unresolved,
        ow.p50_ms,
        ow.p95_ms
    );
}
