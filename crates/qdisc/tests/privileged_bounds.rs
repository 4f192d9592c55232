//! Bounded waits: the qdisc sampler, never told to stop,
//! ends by itself at its deadline (+ 1 s). Needs root / CAP_NET_ADMIN (an
//! owned scratch namespace); skips with a printed reason otherwise, fails
//! instead under NETLAB_REQUIRE_PRIVILEGED=1.

use std::time::{Duration, Instant};

use netlab_qdisc::{ifindex_in, read_psched, QdiscSamplerConfig, Sampler};
use netlab_qdisc_model::SamplerStop;
use netlab_topology::testing::require_privileged;
use netlab_topology::testing::ScratchNetns;

#[test]
fn privileged_bounds_qdisc_sampler_ends_at_its_deadline() {
    if !require_privileged("privileged_bounds_qdisc_sampler_ends_at_its_deadline") {
        return;
    }
    let ns = ScratchNetns::new("sampler_end").expect("scratch namespace");
    let ifindex = ifindex_in(&ns, "lo").expect("lo's ifindex");
    let start = Instant::now();
    let deadline = start + Duration::from_secs(2);
    let sampler = Sampler::start(
        &ns,
        ifindex,
        read_psched(),
        QdiscSamplerConfig::new(Duration::from_millis(200), start, deadline),
    )
    .expect("start the sampler");
    // Wait, bounded, for it to end by itself; never set its stop flag.
    let give_up = deadline + Duration::from_secs(5);
    while !sampler.is_finished() && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(10));
    }
    let ended = Instant::now();
    let finished = sampler.is_finished();
    let series = sampler.stop().expect("sampler thread");
    drop(ns);
    assert!(
        finished,
        "the sampler was still running 5 s after its deadline"
    );
    let late = ended.saturating_duration_since(deadline);
    assert!(
        late <= Duration::from_secs(1),
        "the sampler ended {late:?} after its deadline"
    );
    assert_eq!(series.stopped_by, SamplerStop::Deadline);
    assert!(
        (5..=12).contains(&(series.samples.len() + series.failures.len())),
        "about one sample per 200 ms over 2 s: {} samples, {} failures",
        series.samples.len(),
        series.failures.len()
    );
}
