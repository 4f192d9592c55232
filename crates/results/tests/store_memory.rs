//! The scenario store holds no scenario in memory, counted
//! by this test binary's heap bytes per thread.

use std::path::Path;

use alloc_count::{live_bytes, peak_bytes_since_reset, reset_peak};
use netlab_os::testing::Scratch;
use netlab_results::{Results, ScenarioFiles};

#[path = "support/alloc_count.rs"]
mod alloc_count;

#[global_allocator]
static ALLOC: alloc_count::CountingAlloc = alloc_count::CountingAlloc;

fn golden() -> Results {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/orchestrator/golden/results.json");
    Results::read(&p).unwrap()
}

fn header_of(r: &Results) -> Results {
    Results {
        scenarios: Vec::new(),
        ..r.clone()
    }
}

/// The run keeps no scenario in memory once it is written,
/// and assembling results.json loads none of them. Counted by this
/// thread's heap bytes (the test binary's counting allocator): after 8
/// scenarios of about 0.7 MB each, the live heap and the peak while
/// assembling have grown by less than half of one scenario since the
/// second, where keeping them would add 6 of them.
#[test]
fn pushing_scenarios_holds_none_of_them_in_memory() {
    let dir = Scratch::new("store-memory");
    let full = golden();
    let mut big = full.scenarios[1].clone();
    let tcp = big.flows[0].tcp.as_mut().unwrap();
    let recvs = &mut tcp.receiver_log.recvs;
    let (t, len) = (recvs.t_us.clone(), recvs.len.clone());
    while recvs.t_us.len() < 60_000 {
        recvs.t_us.extend_from_slice(&t);
        recvs.len.extend_from_slice(&len);
    }
    let before = live_bytes();
    let probe = big.clone();
    let scenario_bytes = live_bytes() - before;
    drop(probe);
    assert!(scenario_bytes > 512 << 10, "{scenario_bytes}");
    let mut files = ScenarioFiles::create(&dir.0).unwrap();
    let path = dir.0.join("results.json");
    let header = header_of(&full);
    // (live after the push, peak while assembling) per scenario count
    let mut seen = Vec::new();
    for n in 1..=8u32 {
        let mut s = big.clone();
        s.index = n;
        files.push(s).unwrap();
        let live = live_bytes();
        let mut peak = None;
        if n == 2 || n == 8 {
            reset_peak();
            files.write_results(&header, &path).unwrap();
            peak = Some(peak_bytes_since_reset());
        }
        seen.push((live, peak));
    }
    let live_grown = seen[7].0 - seen[1].0;
    let peak_grown = seen[7].1.unwrap() - seen[1].1.unwrap();
    assert!(
        live_grown < scenario_bytes / 2 && peak_grown < scenario_bytes / 2,
        "over 6 scenarios of {scenario_bytes} bytes the live heap grew by {live_grown} \
         and the assembly's peak by {peak_grown} bytes: {seen:?}"
    );
    let mut n = 0;
    files
        .for_each(|s| {
            n += 1;
            assert_eq!(s.index, n);
            Ok(())
        })
        .unwrap();
    assert_eq!(n, 8);
    let back = Results::read(&path).unwrap();
    assert_eq!(back.scenarios.len(), 8);
    assert_eq!(back.scenarios[7].flows[0].tcp, big.flows[0].tcp);
}
