//! Losses are not delays (method §5.8, "One rule for every output"): on
//! the committed host sweep (fixtures/report/run-host-pfifo-sweep), the
//! point at 2 Mbit/s with one flow sends 302 loaded isochronous slots over
//! its two rounds; B's receive log says 141 reached B, 67 were
//! tail-dropped and 94 were still on their way when B stopped listening.
//! Every output — summary.md, index.html, sweep.csv, sweep.json, the sweep
//! figures, the point's isochronous CDF and probes.csv — gives them as
//! such: delays over the delivered slots, the dropped ones as losses, the
//! unresolved ones censored at their own bounds (B's close less their
//! send), never at the largest delay seen.

mod common;

use common::{fixture_json_of, parse_csv, TempDir};
use netlab_probe::Phase;
use netlab_results::fate::Fate;
use netlab_results::Results;

const RUN: &str = "run-host-pfifo-sweep";

/// What results.json itself says of point 1's loaded isochronous slots,
/// recomputed here without the report: the delivered one-way delays
/// (ascending), the dropped count, and each unresolved slot's own bound,
/// ms.
fn point_one() -> (Vec<f64>, usize, Vec<f64>) {
    let r = Results::parse(&fixture_json_of(RUN)).unwrap();
    let (mut delivered, mut dropped, mut bounds) = (Vec::new(), 0, Vec::new());
    for s in r.scenarios.iter().filter(|s| s.point.index == 1) {
        let iso = s.iso_probe.as_ref().unwrap();
        let closed = iso.echo_arrivals.as_ref().unwrap().closed_s.unwrap();
        for q in &iso.fates.as_ref().unwrap().requests {
            if q.phase != Phase::Loaded {
                continue;
            }
            match &q.fate {
                Fate::Replied { one_way_ms, .. } | Fate::ReachedB { one_way_ms, .. } => {
                    delivered.push(one_way_ms.unwrap())
                }
                Fate::NeverReachedB { .. } => dropped += 1,
                Fate::Unresolved => bounds.push((closed - q.send_s.unwrap()) * 1e3),
                Fate::NotSent { .. } => {}
            }
        }
    }
    delivered.sort_by(f64::total_cmp);
    bounds.sort_by(f64::total_cmp);
    (delivered, dropped, bounds)
}

/// The report of the fixture, rendered into a fresh folder.
fn rendered(tag: &str) -> TempDir {
    let d = TempDir::new(tag);
    std::fs::write(d.path().join("results.json"), fixture_json_of(RUN)).unwrap();
    let input = netlab_report::read_results(d.path()).unwrap();
    netlab_report::render(&input, d.path()).unwrap();
    d
}

fn read(d: &TempDir, name: &str) -> String {
    std::fs::read_to_string(d.path().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The words every output uses for point 1, from the recomputed fates.
fn words() -> String {
    let (delivered, dropped, bounds) = point_one();
    assert_eq!((delivered.len(), dropped, bounds.len()), (141, 67, 94));
    format!(
        "141 delivered, 67 dropped, 94 censored at their own bounds (≥ {} to ≥ {} ms) of 302",
        netlab_stats::fmt_num(bounds[0]),
        netlab_stats::fmt_num(bounds[93])
    )
}

#[test]
fn the_fixture_s_point_one_is_141_delivered_67_dropped_94_censored() {
    let (delivered, _, bounds) = point_one();
    // The lower median of the 141 delivered delays.
    assert!((delivered[70] - 1836.4).abs() < 0.1, "{}", delivered[70]);
    // Each bound is the slot's own: they range over more than a second,
    // all below the largest delivered delay the old rule censored them at.
    assert!(bounds[0] < 1100.0 && bounds[93] > 2300.0, "{bounds:?}");
    assert!(bounds[93] < delivered[140]);
}

/// What results.json says of one round of point 1: its dropped slots and
/// its censored slots' smallest and largest own bound, ms.
fn round_of_point_one(round: u32) -> (usize, usize, f64, f64) {
    let r = Results::parse(&fixture_json_of(RUN)).unwrap();
    let s = r
        .scenarios
        .iter()
        .find(|s| s.point.index == 1 && s.round == round)
        .unwrap();
    let iso = s.iso_probe.as_ref().unwrap();
    let closed = iso.echo_arrivals.as_ref().unwrap().closed_s.unwrap();
    let loaded = iso
        .fates
        .as_ref()
        .unwrap()
        .requests
        .iter()
        .filter(|q| q.phase == Phase::Loaded);
    let (mut dropped, mut bounds) = (0, Vec::new());
    for q in loaded {
        match q.fate {
            Fate::NeverReachedB { .. } => dropped += 1,
            Fate::Unresolved => bounds.push((closed - q.send_s.unwrap()) * 1e3),
            _ => {}
        }
    }
    bounds.sort_by(f64::total_cmp);
    (dropped, bounds.len(), bounds[0], bounds[bounds.len() - 1])
}

#[test]
fn summary_and_index_give_point_one_by_fate_never_at_the_largest_delay() {
    let d = rendered("losses-summary");
    // summary.md as `orchestrator report` writes it.
    let md = netlab_report::summary::render(&Results::parse(&fixture_json_of(RUN)).unwrap(), 0);
    let html = read(&d, "index.html").replace("&gt;", ">");
    // Each round apart (its state changed inside the window: nothing is
    // pooled), its dropped slots a loss and its unresolved ones censored
    // at their own bounds.
    for round in [1, 2] {
        let (dropped, censored, lo, hi) = round_of_point_one(round);
        let want = format!(
            "{dropped} of 151 loaded slots tail-dropped (queue full) ({censored} unresolved, censored at their own bounds (B's close less each send): ≥ {} to ≥ {} ms)",
            netlab_stats::fmt_num(lo),
            netlab_stats::fmt_num(hi)
        );
        for (name, text) in [("summary.md", &md), ("index.html", &html)] {
            assert!(text.contains(&want), "{name} lacks «{want}»");
        }
    }
    for (name, text) in [("summary.md", &md), ("index.html", &html)] {
        assert!(
            !text.contains("counted at least the largest delay seen"),
            "{name}"
        );
        // The figures table: the counts over both rounds (no pooled
        // value: neither round was one state over its window).
        assert!(text.contains("302 sent, 67 lost"), "{name}");
    }
    // The isochronous table's loaded rows: each round by fate.
    assert!(
        md.contains("| 1 | 1 | pfifo | loaded | 20 | 151 | 0 | 68 | 69 delivered, 35 dropped, 47 censored at their own bounds"),
        "{md}"
    );
    assert!(
        !md.contains("≥ 1000 ms (censored)/≥ 1000 ms (censored)"),
        "{md}"
    );
}

#[test]
fn sweep_csv_and_json_count_the_fates_and_rank_only_the_delivered() {
    let d = rendered("losses-sweep");
    let (delivered, dropped, bounds) = point_one();
    let rows = parse_csv(&read(&d, "sweep.csv"));
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let mine: Vec<&Vec<String>> = rows[1..]
        .iter()
        .filter(|r| r[col("point")] == "1")
        .collect();
    let sum = |name: &str| -> usize {
        mine.iter()
            .map(|r| r[col(name)].parse::<usize>().unwrap())
            .sum()
    };
    assert_eq!(sum("iso_sent"), 302);
    assert_eq!(sum("iso_delivered"), delivered.len());
    assert_eq!(sum("iso_dropped"), dropped);
    assert_eq!(sum("iso_censored"), bounds.len());
    assert_eq!(sum("iso_lost_unknown") + sum("iso_no_record"), 0);
    let lo = mine
        .iter()
        .map(|r| r[col("iso_censored_bound_min_ms")].parse::<f64>().unwrap())
        .fold(f64::INFINITY, f64::min);
    let hi = mine
        .iter()
        .map(|r| r[col("iso_censored_bound_max_ms")].parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    assert!((lo - bounds[0]).abs() < 1e-6 && (hi - bounds[93]).abs() < 1e-6);
    for r in &mine {
        // A delivered slot's delay, never a bound at the largest one.
        assert_eq!(r[col("iso_up_p50_ms_at_least")], "");
        let p50: f64 = r[col("iso_up_p50_ms")].parse().unwrap();
        assert!((1800.0..1900.0).contains(&p50), "{p50}");
    }
    let json = read(&d, "sweep.json");
    let t = netlab_export::sweep_file::parse_table(&json).unwrap();
    let mut c = netlab_analysis::SlotCounts::default();
    for r in t.rows.iter().filter(|r| r.point == 1) {
        c.add(&r.iso_slots.unwrap());
    }
    assert_eq!(
        (c.sent, c.delivered, c.dropped, c.censored),
        (302, 141, 67, 94)
    );
    assert_eq!(c.text(), words());
}

#[test]
fn the_figures_say_what_became_of_the_slots_and_the_cdf_stops_below_one() {
    let d = rendered("losses-figures");
    let want = words();
    for f in [
        "sweep/sweep-iso-up-p50-ms-vs-rate.svg",
        "sweep/sweep-iso-up-p50-ms-vs-flows.svg",
        "sweep/sweep-iso-up-p99-ms-vs-rate.svg",
        "sweep/sweep-iso-up-p99-ms-vs-flows.svg",
    ] {
        let t = common::svg_words(&read(&d, f));
        assert!(t.contains(&want), "{f}: {t}");
    }
    let t = common::svg_words(&read(&d, "points/p01/p01-iso-cdf-loaded.svg"));
    assert!(t.contains("one-way A→B delay"), "{t}");
    assert!(
        t.contains("141 of 302 delivered, p50 1836 ms; 67 dropped; 94 unresolved (≥)"),
        "{t}"
    );
    // The dashed isochronous curve ends at the delivered share, 141/302:
    // its highest point is well below the top of the axis.
    let els = common::svg::elements(&read(&d, "points/p01/p01-iso-cdf-loaded.svg"));
    let y_ticks = common::svg::ticks(&els, "end", "y");
    let y = common::svg::Axis::fit(&y_ticks, false);
    // The arm's curves: its colour's polylines (the legend's marks sit
    // below the plot, so they never lower the top).
    let dashed_top = els
        .iter()
        .filter(|e| e.tag == "polyline" && e.attr("stroke") == Some("#C83C28"))
        .flat_map(|e| e.points())
        .map(|(_, py)| py)
        .fold(f64::INFINITY, f64::min);
    assert!(dashed_top.is_finite());
    let share = 141.0 / 302.0;
    assert!(
        dashed_top > y.px(share) - 2.0,
        "a curve reaches above the delivered share ({dashed_top} px vs {} px)",
        y.px(share)
    );
}

#[test]
fn probes_csv_gives_each_unresolved_slot_its_own_bound() {
    let d = rendered("losses-probes");
    let rows = parse_csv(&read(&d, "probes.csv"));
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let mine: Vec<&Vec<String>> = rows[1..]
        .iter()
        .filter(|r| r[col("point")] == "1" && r[col("probe")] == "isochronous")
        .filter(|r| r[col("phase")] == "loaded")
        .collect();
    let (_, _, mut bounds) = point_one();
    let mut got = Vec::new();
    for r in &mine {
        let up = &r[col("one_way_up_ms")];
        let at_least = &r[col("one_way_up_ms_at_least")];
        match r[col("fate")].as_str() {
            "unresolved" => {
                assert!(up.is_empty());
                got.push(at_least.parse::<f64>().unwrap());
            }
            "never_reached_b" => assert!(up.is_empty() && at_least.is_empty()),
            _ => assert!(!up.is_empty() && at_least.is_empty()),
        }
    }
    got.sort_by(f64::total_cmp);
    bounds.sort_by(f64::total_cmp);
    assert_eq!(got.len(), 94);
    for (g, b) in got.iter().zip(&bounds) {
        assert!((g - b).abs() < 1e-6, "{g} vs {b}");
    }
}
