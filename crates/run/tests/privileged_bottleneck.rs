//! Was the shaper the bottleneck? (docs/method.md §14.2) On the host kernel
//! (needs root: namespaces, qdiscs; skipped without unless
//! `NETLAB_REQUIRE_PRIVILEGED=1`), one pfifo run over two rates with a
//! short timeline: at 5 Mbit/s the TBF is the bottleneck; at 100 Gbit/s
//! no veth pair on any machine netlab runs on delivers 90 % of the rate,
//! so the TBF never holds a queue and the verdict must name something
//! else (the CPU when one was saturated). Both verdicts are read back
//! from results.json with their evidence.

use netlab_os::testing::{require_privileged, Scratch};
use netlab_results::{Results, Verdict};
use netlab_run::{RunOutcome, Session, SessionConfig};
use netlab_topology::netns;

const EXPERIMENT: &str = "name = \"bottleneck\"\nrounds = 1\nkernel = \"host\"\n\
    arms = [\"pfifo limit 256\"]\n\
    [timeline]\nbaseline = \"1s\"\nwarmup = \"1s\"\nmeasure = \"3s\"\n\
    [[flows]]\ncc = \"reno\"\n\
    [sweep]\nrate = [\"5mbit\", \"100gbit\"]\n";

#[test]
fn privileged_a_5mbit_shaper_is_the_bottleneck_and_a_100gbit_one_is_not() {
    if !require_privileged("privileged_a_5mbit_shaper_is_the_bottleneck_and_a_100gbit_one_is_not") {
        return;
    }
    let dir = Scratch::new("run-bottleneck");
    let out = dir.0.join("out");
    let mut cfg = SessionConfig::new(netlab_experiment::parse(EXPERIMENT).unwrap(), out.clone());
    cfg.quiet = true;
    assert_eq!(Session::new(cfg).run(), Ok(RunOutcome::Complete));
    let results = Results::read(&out.join("results.json")).unwrap();
    assert_eq!(results.scenarios.len(), 2);
    for s in &results.scenarios {
        assert!(s.error.is_none(), "{:?}", s.error);
        assert!(s.namespaces.iter().all(|n| !netns::exists(n)));
    }
    let verdict = |i: usize| {
        let b = results.scenarios[i]
            .bottleneck
            .clone()
            .expect("a recorded verdict");
        let cpu = b.cpu.clone().expect("the window's CPU was read");
        assert!(cpu.span_s > 2.5 && cpu.span_s < 4.0, "{cpu:?}");
        assert!(!cpu.cpu_busy.is_empty());
        assert!(cpu.netlab_user_s + cpu.netlab_system_s > 0.0, "{cpu:?}");
        assert_eq!(b.directions.len(), 1);
        b.directions[0].clone()
    };
    // 5 Mbit/s: the TBF holds pfifo's queue in the window.
    let slow = verdict(0);
    assert_eq!(slow.rate_mbps, Some(5.0));
    assert_eq!(slow.verdict, Verdict::ShaperBound, "{slow:?}");
    assert!(slow.shaper_held_queue(), "{slow:?}");
    assert!(slow.tbf_samples >= 10, "{slow:?}");
    // 100 Gbit/s: far short of the rate, no queue at the shaper.
    let fast = verdict(1);
    assert_eq!(fast.rate_mbps, Some(100_000.0));
    assert!(fast.goodput_share().unwrap() < 0.9, "{fast:?}");
    assert!(
        matches!(fast.verdict, Verdict::Cpu | Verdict::OtherThanShaper),
        "{fast:?}"
    );
    assert!(results.scenarios[1]
        .bottleneck
        .as_ref()
        .unwrap()
        .flags_comparison());
}
