//! The verdict on the committed real runs (fixtures/report/): its magnitude
//! is the interval's bound nearest zero, and goodput is compared over the
//! rounds' own goodputs (method §12.3–12.5).

mod common;

use std::io::Read as _;
use std::path::Path;

use common::{fixture_folder, TempDir};
use netlab_compare::compare::{analyse, Figure};
use netlab_stats::{Bounded, CensoredQuantile};

fn value(q: CensoredQuantile) -> f64 {
    match q {
        CensoredQuantile::Value(v) => v,
        other => panic!("not a value: {other:?}"),
    }
}

#[test]
fn the_three_round_guest_run_claims_no_more_than_its_interval() {
    let dir = fixture_folder("verdict");
    let input = netlab_report::read_results(dir.path()).expect("fixture reads");
    let st = analyse(&input);
    let p50 = st
        .comparisons
        .iter()
        .find(|c| c.figure == Figure::LoadedP50)
        .unwrap();
    // pfifo's loaded medians are on the censored mass (≥ 1000 ms) in every
    // round; fq_codel's are 14.3, 4.62 and 6.55 ms. Every pairwise
    // difference is "≤ x"; the upper endpoint is at most the largest,
    // 14.3 − 1000.
    let fq: Vec<f64> = st
        .figures
        .iter()
        .find(|f| f.arm == "fq_codel" && f.figure == Figure::LoadedP50)
        .unwrap()
        .rounds
        .iter()
        .map(|r| value(r.value))
        .collect();
    let worst = fq.iter().copied().fold(f64::MIN, f64::max);
    assert!((worst - 14.32).abs() < 0.01, "{fq:?}");
    assert!(
        matches!(p50.interval.1, Bounded::AtMost(x) if (x - (worst - 1000.0)).abs() < 1e-9),
        "{p50:?}"
    );
    assert!((p50.level - 0.9).abs() < 1e-12);
    let (lower, by) = p50.supported_shift().expect("the interval excludes 0");
    assert!(lower);
    assert!((by - (1000.0 - worst)).abs() < 1e-9);
    let h = netlab_compare::headline::Headline::of(&input, &st);
    let verdict = &h.verdicts[0];
    assert!(
        verdict.starts_with(
            "fq_codel has the lower loaded median than pfifo, by at least 985 ms (the 90 % interval \
             over 3 vs 3 rounds excludes 0; 3 vs 3 rounds allow no more than 90 %)"
        ),
        "{verdict}"
    );

    // Goodput: the rounds' own window goodputs (summary.md's table: pfifo
    // 4.755, 4.791, 4.432; fq_codel 4.737, 4.782, 3.923 Mbit/s), so the
    // interval runs from the smallest to the largest pairwise difference.
    let per_round = |arm: &str| -> Vec<f64> {
        st.figures
            .iter()
            .find(|f| f.arm == arm && f.figure == Figure::Goodput)
            .unwrap()
            .rounds
            .iter()
            .map(|r| value(r.value))
            .collect()
    };
    let (a, b) = (per_round("pfifo"), per_round("fq_codel"));
    for (got, want) in a
        .iter()
        .chain(&b)
        .zip([4.755, 4.791, 4.432, 4.737, 4.782, 3.923])
    {
        assert!((got - want).abs() < 0.002, "{a:?} {b:?}");
    }
    let g = st
        .comparisons
        .iter()
        .find(|c| c.figure == Figure::Goodput)
        .unwrap();
    let diffs: Vec<f64> = a
        .iter()
        .flat_map(|x| b.iter().map(move |y| y - x))
        .collect();
    let lo = diffs.iter().copied().fold(f64::MAX, f64::min);
    let hi = diffs.iter().copied().fold(f64::MIN, f64::max);
    assert_eq!(g.interval, (Bounded::Value(lo), Bounded::Value(hi)));
    assert!(lo > -0.9 && hi < 0.36, "[{lo}, {hi}]");
    // pfifo's round 2 (4.791) is above what 5 Mbit/s of 1514-byte frames
    // carry (4.78): no goodput difference is claimed on such a window.
    assert!(g.supported_shift().is_none());
    assert!(
        g.sentence.contains(
            "no difference claimed: pfifo r2 4.791 above the link's payload ceiling of 4.78 Mbit/s"
        ),
        "{}",
        g.sentence
    );
}

#[test]
fn the_host_runs_goodput_per_round_is_its_window_goodput() {
    let gz = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/report/run-host-pfifo-6rounds/results.json.gz");
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap())
        .read_to_end(&mut json)
        .unwrap();
    let dir = TempDir::new("verdict-host");
    std::fs::write(dir.path().join("results.json"), json).unwrap();
    let input = netlab_report::read_results(dir.path()).expect("fixture reads");
    let st = analyse(&input);
    assert!(st.comparisons.is_empty(), "one arm: nothing to compare");
    let g = st
        .figures
        .iter()
        .find(|f| f.figure == Figure::Goodput)
        .unwrap();
    assert_eq!(g.rounds.len(), 6);
    let vals: Vec<f64> = g.rounds.iter().map(|r| value(r.value)).collect();
    for (r, v) in g.rounds.iter().zip(&vals) {
        // 8 s window of 200 ms bins; a round near the 5 Mbit/s rate.
        assert_eq!(r.samples, 40, "round {}", r.round);
        assert!((4.0..5.6).contains(v), "round {}: {v}", r.round);
    }
    // The pooled value is the mean of the rounds' values.
    let mean = vals.iter().sum::<f64>() / vals.len() as f64;
    assert!((value(g.pooled.value) - mean).abs() < 1e-9);
}

/// A verdict only where the rounds give one (method §12.5): the 2-round
/// run-uml-rtt-fairness-quick gives no bold verdict for any pair, and for
/// cake against fq_codel, whose rounds go both ways, says what the rounds
/// show; the 3-round run with fates keeps its verdict. summary.md and
/// index.html say the same.
#[test]
fn fewer_than_three_rounds_or_rounds_both_ways_give_no_bold_verdict() {
    let dir = TempDir::new("verdict-two-rounds");
    std::fs::write(
        dir.path().join("results.json"),
        common::fixture_json_of("run-uml-rtt-fairness-quick"),
    )
    .unwrap();
    let input = netlab_report::read_results(dir.path()).unwrap();
    let h = netlab_compare::headline::Headline::of_input(&input);
    assert!(h.verdicts.is_empty(), "{:?}", h.verdicts);
    assert_eq!(h.readings.len(), 6, "one per pair of the four arms");
    let both = h
        .readings
        .iter()
        .find(|r| r.starts_with("cake vs fq_codel"))
        .unwrap();
    assert!(
        both.contains("no verdict, 2 rounds per arm (fewer than 3 give no interval), and the rounds go both ways: cake lower in 1 of 2 rounds, higher in 1"),
        "{both}"
    );
    let md = h.markdown();
    assert!(!md.contains("**Verdict:**"), "{md}");
    assert!(
        md.contains(&format!("What the rounds show: {both}.")),
        "{md}"
    );
    let files = netlab_report::render_all(&input).unwrap();
    let html = common::rendered_text(&files, "index.html", "rtt-fairness");
    assert!(
        !html.contains("class=verdict"),
        "index.html gives a bold verdict"
    );
    assert!(html.contains(&netlab_report::html_text(&format!(
        "What the rounds show: {both}."
    ))));
    // Three rounds a side, every round one way: the verdict stands.
    let dir = TempDir::new("verdict-three-rounds");
    std::fs::write(
        dir.path().join("results.json"),
        common::fixture_json_of("run-uml-3rounds-fates"),
    )
    .unwrap();
    let input = netlab_report::read_results(dir.path()).unwrap();
    let h = netlab_compare::headline::Headline::of_input(&input);
    assert_eq!(h.verdicts.len(), 1);
    assert!(h.readings.is_empty());
}
