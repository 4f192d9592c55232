//! probes.csv and flows.csv (docs/usage.md, "Flat tables") of the three
//! committed runs: one row per request and per flow of results.json, and
//! the loaded stop-and-wait fates adding up to the headline's counts.

mod common;

use common::{fixture_json_of, parse_csv as rows, TempDir};
use netlab_report::folder::{finish_folder, FinishOptions};
use netlab_results::Results;

#[test]
fn every_request_and_flow_has_one_row_and_the_fates_add_up() {
    for run in [
        "run-uml-3rounds-fates",
        "run-uml-sparse-flows",
        "run-host-pfifo-sweep",
    ] {
        let json = fixture_json_of(run);
        let r = Results::parse(&json).unwrap();
        let dir = TempDir::new(run);
        std::fs::write(dir.path().join("results.json"), &json).unwrap();
        finish_folder(dir.path(), &FinishOptions::rerender(), &mut |_| {})
            .unwrap_or_else(|e| panic!("{run}: {e}"));
        let probes = std::fs::read_to_string(dir.path().join("probes.csv")).unwrap();
        let flows = std::fs::read_to_string(dir.path().join("flows.csv")).unwrap();
        assert!(!probes.contains("None") && !flows.contains("None"), "{run}");
        let p = rows(&probes);
        let f = rows(&flows);
        let want_requests: usize = r
            .scenarios
            .iter()
            .map(|s| {
                let sw = s.probe().map_or(0, |p| match &p.fates {
                    Some(f) => f.requests.len(),
                    None => p.requests.len(),
                });
                sw + s.iso_probe.as_ref().map_or(0, |i| i.log.requests.len())
            })
            .sum();
        assert_eq!(p.len() - 1, want_requests, "{run}: probes.csv rows");
        let want_flows: usize = r.scenarios.iter().map(|s| s.flows.len()).sum();
        assert_eq!(f.len() - 1, want_flows, "{run}: flows.csv rows");
        // Every row has the header's width.
        assert!(p.iter().all(|x| x.len() == p[0].len()), "{run}");
        assert!(f.iter().all(|x| x.len() == f[0].len()), "{run}");
        // The loaded stop-and-wait fates per arm, against the headline's.
        let col = |name: &str| p[0].iter().position(|h| h == name).unwrap();
        let (arm, probe, phase, fate) = (col("arm"), col("probe"), col("phase"), col("fate"));
        let input = netlab_report::read_results(dir.path()).unwrap();
        let h = netlab_report::headline::of_input(&input);
        let point = col("point");
        // A sweep's headline is one per point, over that point's rounds.
        let arms: Vec<(&str, &netlab_report::headline::ArmHeadline)> = if h.points.is_empty() {
            h.arms.iter().map(|a| ("default", a)).collect()
        } else {
            h.points
                .iter()
                .flat_map(|pt| pt.headline.arms.iter().map(move |a| (pt.label.as_str(), a)))
                .collect()
        };
        let mut checked = 0;
        for (at, a) in arms {
            let Some(d) = &a.delivery else { continue };
            checked += 1;
            let count = |what: &str| {
                p.iter()
                    .skip(1)
                    .filter(|x| {
                        x[arm] == a.arm
                            && x[point] == at
                            && x[probe] == "stop_and_wait"
                            && x[phase] == "loaded"
                            && x[fate] == what
                    })
                    .count() as u32
            };
            assert_eq!(count("replied"), d.replied, "{run} {}", a.arm);
            assert_eq!(count("reached_b_late"), d.reached_late, "{run} {}", a.arm);
            assert_eq!(count("never_reached_b"), d.lost(), "{run} {}", a.arm);
            assert_eq!(count("unresolved"), d.unresolved, "{run} {}", a.arm);
        }
        let with_fates = r
            .scenarios
            .iter()
            .any(|s| s.probe().is_some_and(|p| p.fates.is_some()));
        assert_eq!(checked > 0, with_fates, "{run}: {checked} arms checked");
    }
}
