//! Results written before B's receive log was kept (no B receive log, no fates, no late
//! RTTs) still load, and write back without the new keys; a scenario with
//! fates reads back what it wrote.

use std::path::Path;

use netlab_results::fate::{EchoArrival, EchoArrivals, FateInput, ProbeFates};
use netlab_results::Results;

fn fixture(rel: &str) -> Results {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel);
    Results::read(&p).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn old_results_load_without_fates_and_write_no_new_keys() {
    for rel in [
        "orchestrator/golden/results.json",
        "orchestrator/schema_v1/results.json",
    ] {
        let run = fixture(rel);
        assert!(!run.scenarios.is_empty(), "{rel}");
        for s in &run.scenarios {
            let p = s.probe().expect("the seed's probe ran");
            assert!(p.fates.is_none() && p.echo_arrivals.is_none(), "{rel}");
            assert!(p.requests.iter().all(|r| r.late_rtt_ms.is_none()));
            let json = serde_json::to_string(s).unwrap();
            for key in ["\"fates\"", "\"echo_arrivals\"", "\"late_rtt_ms\""] {
                assert!(!json.contains(key), "{rel}: {key} written");
            }
        }
    }
}

#[test]
fn a_scenario_with_fates_reads_back_what_it_wrote() {
    let mut run = fixture("orchestrator/golden/results.json");
    let s = &mut run.scenarios[0];
    let p = s.probes.first_mut().unwrap();
    let arrivals = EchoArrivals {
        shared_clock: true,
        arrivals: p
            .requests
            .iter()
            .map(|r| EchoArrival {
                seq: r.seq,
                recv_s: r.send_s + 0.002,
            })
            .collect(),
        not_logged: 0,
        closed_s: Some(18.0),
    };
    let inputs: Vec<FateInput> = p.requests.iter().map(FateInput::of_probe).collect();
    let fates = ProbeFates::build(&inputs, &arrivals, p.config.timeout, None);
    assert_eq!(fates.requests.len(), p.requests.len());
    let total: u32 = fates.phases.iter().map(|f| f.sent + f.not_sent).sum();
    assert_eq!(
        total as usize,
        p.requests.len(),
        "every request counted once"
    );
    p.fates = Some(fates);
    p.echo_arrivals = Some(arrivals);
    let json = serde_json::to_vec(&run).unwrap();
    let back = Results::parse(&json).unwrap();
    // serde_json's float parsing is not bit-exact (no `float_roundtrip`):
    // compare the fates' kinds and counts exactly, the delays to 1 ns.
    let (a, b) = (&back.scenarios[0].probes[0], &run.scenarios[0].probes[0]);
    let (fa, fb) = (a.fates.as_ref().unwrap(), b.fates.as_ref().unwrap());
    assert_eq!(fa.requests.len(), fb.requests.len());
    for (x, y) in fa.requests.iter().zip(&fb.requests) {
        assert_eq!(
            std::mem::discriminant(&x.fate),
            std::mem::discriminant(&y.fate)
        );
        assert_eq!((x.seq, x.phase), (y.seq, y.phase));
    }
    for (x, y) in fa.phases.iter().zip(&fb.phases) {
        assert_eq!(
            (
                x.sent,
                x.replied,
                x.reached_b,
                x.never_reached_b,
                x.unresolved
            ),
            (
                y.sent,
                y.replied,
                y.reached_b,
                y.never_reached_b,
                y.unresolved
            )
        );
        let (ox, oy) = (x.one_way.unwrap(), y.one_way.unwrap());
        assert_eq!(ox.n, oy.n);
        assert!((ox.p95_ms - oy.p95_ms).abs() < 1e-6);
    }
    let (ea, eb) = (
        a.echo_arrivals.as_ref().unwrap(),
        b.echo_arrivals.as_ref().unwrap(),
    );
    assert_eq!(ea.arrivals.len(), eb.arrivals.len());
    assert_eq!(
        (ea.shared_clock, ea.closed_s),
        (eb.shared_clock, eb.closed_s)
    );
}
