//! A sweep's data files, figures and pooling (docs/report.md, "Sweeps") on the
//! committed real host sweep (fixtures/report/run-host-pfifo-sweep: pfifo,
//! rate 2/20 Mbit/s × flows 1/2, 2 rounds, both probes).

mod common;

use common::{fixture_json_of, parse_csv, rasterize, TempDir};
use netlab_compare::sweep::{self, AxisKind, Measured, SweepMetric};
use netlab_probe::{Phase, RequestOutcome};
use netlab_results::fate::Fate;
use netlab_results::Results;
use netlab_stats::{censored_quantile, CensoredQuantile, Observation};

const RUN: &str = "run-host-pfifo-sweep";

fn results() -> Results {
    Results::parse(&fixture_json_of(RUN)).expect("the sweep fixture parses")
}

fn folder(tag: &str) -> TempDir {
    let d = TempDir::new(tag);
    std::fs::write(d.path().join("results.json"), fixture_json_of(RUN)).unwrap();
    d
}

/// The loaded stop-and-wait RTT quantile of one scenario, recomputed
/// here from results.json's raw requests (not through the report).
fn rtt_quantile(r: &Results, scenario: usize, p: f64) -> CensoredQuantile {
    let s = &r.scenarios[scenario];
    let probe = s.probe().unwrap();
    let bound = probe.config.timeout.as_secs_f64() * 1e3;
    let obs: Vec<Observation> = probe
        .requests
        .iter()
        .filter(|q| q.phase == Phase::Loaded)
        .filter_map(|q| match q.outcome {
            RequestOutcome::Reply => Some(Observation::Exact(q.rtt_ms.unwrap())),
            RequestOutcome::Timeout => Some(Observation::AtLeast(bound)),
            _ => None,
        })
        .collect();
    censored_quantile(&obs, p)
}

/// The isochronous probe's loaded one-way A→B quantile, recomputed from
/// the raw fates: over the delivered slots only (replied or reached B),
/// the lower median and the nearest rank (method §5.8); a dropped or
/// unresolved slot is never a delay.
fn iso_up_quantile(r: &Results, scenario: usize, p: f64) -> CensoredQuantile {
    let iso = r.scenarios[scenario].iso_probe.as_ref().unwrap();
    let mut v: Vec<f64> = iso
        .fates
        .as_ref()
        .unwrap()
        .requests
        .iter()
        .filter(|q| q.phase == Phase::Loaded)
        .filter_map(|q| match q.fate {
            Fate::Replied { one_way_ms, .. } | Fate::ReachedB { one_way_ms, .. } => one_way_ms,
            _ => None,
        })
        .collect();
    if v.is_empty() {
        return CensoredQuantile::NoData;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let i = if p == 0.5 {
        (n - 1) / 2
    } else {
        ((p * n as f64).ceil() as usize).clamp(1, n) - 1
    };
    CensoredQuantile::Value(v[i])
}

fn as_csv_pair(q: CensoredQuantile) -> (String, String) {
    match q {
        CensoredQuantile::Value(v) => (format!("{v}"), String::new()),
        CensoredQuantile::AtLeast(v) => (String::new(), format!("{v}")),
        CensoredQuantile::NoData => (String::new(), String::new()),
    }
}

#[test]
fn sweep_csv_and_json_hold_every_scenario_with_censoring_in_its_own_column() {
    let dir = folder("sweep-data");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    // probes.csv, flows.csv, sweep.csv and sweep.json.
    assert_eq!(files.data.len(), 4, "{:?}", files.data);
    let csv = std::fs::read_to_string(dir.path().join("sweep.csv")).unwrap();
    let rows = parse_csv(&csv);
    let head = &rows[0];
    assert_eq!(rows.len(), 1 + 8, "a header and one row per scenario");
    let col = |name: &str| {
        head.iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {head:?}"))
    };
    for c in [
        "scenario",
        "point",
        "rate",
        "rate_mbit_s",
        "flows",
        "flows_value",
        "arm",
        "round",
        "state",
        "rtt_p50_ms",
        "rtt_p50_ms_at_least",
        "rtt_p95_ms_at_least",
        "iso_up_p50_ms",
        "iso_up_p99_ms_at_least",
        "goodput_up_mbit_s",
        "drops",
        "ce_marks",
        "jain_up",
    ] {
        col(c);
    }
    let r = results();
    for (i, row) in rows[1..].iter().enumerate() {
        let s = &r.scenarios[i];
        assert_eq!(row[col("scenario")], s.index.to_string());
        let rate = row[col("rate")].clone();
        assert!(s.point.values.contains(&format!("rate={rate}")));
        let mbit: f64 = row[col("rate_mbit_s")].parse().unwrap();
        assert_eq!(mbit, if rate == "2mbit" { 2.0 } else { 20.0 });
        // The probe's quantiles, recomputed from the raw requests: at 2
        // Mbit/s every loaded request timed out (pfifo's 256 packets hold
        // about 1.5 s), so p50 and p95 are only bounds, in their own column.
        for (p, key) in [(0.5, "rtt_p50_ms"), (0.95, "rtt_p95_ms")] {
            let (v, bound) = as_csv_pair(rtt_quantile(&r, i, p));
            assert_eq!(row[col(key)], v, "scenario {} {key}", s.index);
            assert_eq!(row[col(&format!("{key}_at_least"))], bound);
            if rate == "2mbit" {
                assert_eq!(row[col(key)], "", "a censored value is never written");
                assert_eq!(row[col(&format!("{key}_at_least"))], "1000");
            } else {
                assert!(!row[col(key)].is_empty());
            }
        }
        for (p, key) in [(0.5, "iso_up_p50_ms"), (0.99, "iso_up_p99_ms")] {
            let (v, bound) = as_csv_pair(iso_up_quantile(&r, i, p));
            assert_eq!(row[col(key)], v, "scenario {} {key}", s.index);
            assert_eq!(row[col(&format!("{key}_at_least"))], bound);
        }
        let g = s.directions[0].goodput_mbps.unwrap();
        assert_eq!(row[col("goodput_up_mbit_s")].parse::<f64>().unwrap(), g);
        assert_eq!(row[col("ce_marks")], "", "pfifo counts no marks");
        let two = row[col("flows")] == "2";
        assert_eq!(!row[col("jain_up")].is_empty(), two, "Jain only with flows");
    }
    // The JSON twin reads back into the same table the CSV came from.
    let json = std::fs::read_to_string(dir.path().join("sweep.json")).unwrap();
    let t = netlab_export::sweep_file::parse_table(&json).unwrap();
    assert_eq!(Some(&t), sweep::SweepTable::of(&input).as_ref());
    assert_eq!(netlab_export::sweep_file::csv(&t), csv);
    assert_eq!(t.axes.len(), 2);
    assert_eq!(t.axes[0].kind, AxisKind::Rate);
    assert_eq!(t.axes[1].kind, AxisKind::Number);
    let first = &t.rows[0].metrics;
    assert_eq!(first.rtt_p50_ms, Some(Measured::AtLeast(1000.0)));
    assert!(json.contains("\"at_least\": 1000.0"), "{json}");
    // A renamed or retyped field fails the read instead of becoming 0.
    let bad = json.replacen("\"rows\"", "\"lines\"", 1);
    assert!(netlab_export::sweep_file::parse_table(&bad).is_err());
}

#[test]
fn each_metric_has_a_figure_against_each_axis_that_parses_and_keeps_the_print_rule() {
    let dir = folder("sweep-figs");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    let names: Vec<String> = files
        .svgs
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let want = [
        SweepMetric::RttP50,
        SweepMetric::RttP95,
        SweepMetric::IsoUpP50,
        SweepMetric::IsoUpP99,
        SweepMetric::GoodputUp,
        SweepMetric::Drops,
        SweepMetric::JainUp,
        SweepMetric::SignalProb,
        SweepMetric::FlowQueueDelay,
    ];
    let t = sweep::SweepTable::of(&input).unwrap();
    assert_eq!(t.metrics_with_data(), want.to_vec());
    for m in want {
        for a in &t.axes {
            let f = netlab_figures::plot_sweep::file_name(m, a);
            assert!(names.contains(&f), "missing {f} in {names:?}");
            let svg =
                std::fs::read(dir.path().join(netlab_figures::layout::sweep_figure(&f))).unwrap();
            let ink = rasterize(&svg).unwrap_or_else(|e| panic!("{f}: {e}"));
            // Sparse by nature (a few points per panel; text is not
            // rasterized here): ink above a blank page's axes alone.
            assert!(ink > 0.004, "{f} renders almost blank ({ink:.4})");
            let text = String::from_utf8(svg).unwrap();
            assert_eq!(
                netlab_figures::plot_style::fonts_below_print_rule(&text).unwrap(),
                vec![],
                "{f}"
            );
            // Two axes: a panel per value of the other one.
            assert_eq!(text.matches(">\nat ").count(), 2, "{f}: two panels");
        }
    }
    // The per-arm figures are per point, each saying which; none pools
    // the whole sweep.
    for kind in [
        "headline-delay-loss",
        "km-cdf-loaded",
        "scatter-goodput-delay",
    ] {
        assert!(!names.contains(&format!("{kind}.svg")), "{kind} pooled");
        for p in 1..=4 {
            assert!(
                names.contains(&format!("p{p:02}-{kind}.svg")),
                "{kind} of point {p}"
            );
        }
        let svg = std::fs::read_to_string(dir.path().join(netlab_figures::layout::point_figure(
            3,
            &format!("{kind}.svg"),
        )))
        .unwrap();
        assert!(
            svg.contains("(rate=20mbit"),
            "{kind}: its title names the point"
        );
    }
    // No figure for what did not run or does not apply.
    assert!(!names.iter().any(|n| n.contains("goodput-down")));
    assert!(!names.iter().any(|n| n.contains("ce-marks")));
    // The page: the headline, then the sweep figures, before the rest.
    let html = std::fs::read_to_string(&files.html).unwrap();
    let at = |s: &str| html.find(s).unwrap_or_else(|| panic!("no {s}"));
    assert!(at("id=headline") < at("id=sweep"));
    assert!(
        at("id=sweep") < at("id=points"),
        "each point's headline after the figures"
    );
    assert!(at("id=points") < at("id=run-plots"));
    assert!(html.contains("<h3 id=\"point3\">Point 3: rate=20mbit flows=1</h3>"));
    assert!(html.contains("href=\"sweep.csv\"") && html.contains("href=\"sweep.json\""));
}

#[test]
fn an_axis_spanning_ten_times_is_logarithmic_and_one_that_does_not_is_linear() {
    let input = netlab_report::read_results(folder("sweep-log").path()).unwrap();
    let t = sweep::SweepTable::of(&input).unwrap();
    let (rate, flows) = (&t.axes[0], &t.axes[1]);
    assert!(rate.is_log(), "2 → 20 Mbit/s spans 10×");
    assert!(!flows.is_log(), "1 → 2 flows does not");
    let xs = netlab_figures::plot_scale::x_scale(rate);
    assert!(xs.log);
    assert_eq!(xs.ticks, vec![2f64.log10(), 20f64.log10()]);
    assert!(!netlab_figures::plot_scale::x_scale(flows).log);
    // A base RTT axis with 0 cannot be logarithmic; words keep file order.
    assert_eq!(
        AxisKind::parse_value("0ms"),
        (AxisKind::Duration, Some(0.0))
    );
    assert_eq!(
        AxisKind::parse_value("1514"),
        (AxisKind::Number, Some(1514.0))
    );
    assert_eq!(AxisKind::parse_value("64kb").0, AxisKind::Size);
    assert_eq!(AxisKind::parse_value("cubic"), (AxisKind::Category, None));
    // y: values spanning 10× or more are drawn on a log axis, others not.
    assert!(netlab_figures::plot_scale::y_scale(&[105.0, 1000.0, 2400.0]).log);
    assert!(!netlab_figures::plot_scale::y_scale(&[105.0, 211.0]).log);
    assert!(!netlab_figures::plot_scale::y_scale(&[0.0, 427.0]).log);
}

/// Rounds are pooled within a point and never across points: each point's
/// headline has its 2 rounds, each figure's median is over that point's
/// rounds alone; the old pooled "pfifo (8 rounds)" is gone.
#[test]
fn rounds_are_pooled_within_a_point_never_across_points() {
    let input = netlab_report::read_results(folder("sweep-pool").path()).unwrap();
    let h = netlab_compare::headline::Headline::of_input(&input);
    assert!(h.arms.is_empty(), "nothing pooled over the whole sweep");
    assert_eq!(h.points.len(), 4);
    let r = results();
    for p in &h.points {
        assert_eq!(p.headline.arms.len(), 1);
        let a = &p.headline.arms[0];
        assert_eq!(a.rounds, 2, "point {}: {} rounds", p.index, a.rounds);
        // The point's loaded p50 is the KM quantile over its own two
        // scenarios' requests, recomputed from results.json.
        let mine: Vec<usize> = (0..r.scenarios.len())
            .filter(|&i| r.scenarios[i].point.index == p.index)
            .collect();
        assert_eq!(mine.len(), 2);
        let bound = 1000.0;
        let obs: Vec<Observation> = mine
            .iter()
            .flat_map(|&i| r.scenarios[i].probe().unwrap().requests.iter())
            .filter(|q| q.phase == Phase::Loaded)
            .filter_map(|q| match q.outcome {
                RequestOutcome::Reply => Some(Observation::Exact(q.rtt_ms.unwrap())),
                RequestOutcome::Timeout => Some(Observation::AtLeast(bound)),
                _ => None,
            })
            .collect();
        assert_eq!(
            a.loaded_p50,
            censored_quantile(&obs, 0.5),
            "point {}",
            p.index
        );
    }
    let md = h.markdown();
    assert!(!md.contains("(8 rounds)"), "{md}");
    assert!(md.contains("### Point 3: rate=20mbit flows=1"), "{md}");
    assert!(
        md.contains("along rate (2mbit → 20mbit) at flows=1, pfifo: loaded stop-and-wait probe RTT p50 ≥ 1000 / ≥ 1000 (mean ≥ 1000) → 191 / 105 (mean 148) ms"),
        "{md}"
    );
    // Each figure's median at a point comes from that point's rounds only.
    let t = sweep::SweepTable::of(&input).unwrap();
    for panel in t.series(SweepMetric::RttP50, 1) {
        for p in &panel.arms[0].points {
            let rows: Vec<_> = t.rows.iter().filter(|r| r.point == p.point).collect();
            assert_eq!(p.rounds.len(), rows.len());
            let o: Vec<Observation> = rows
                .iter()
                .map(|r| r.metrics.rtt_p50_ms.unwrap().observation())
                .collect();
            // Two rounds: their mean, never the lower one.
            assert_eq!(rows.len(), 2);
            let mean = o
                .iter()
                .map(|x| match x {
                    Observation::Exact(v) | Observation::AtLeast(v) => *v,
                })
                .sum::<f64>()
                / 2.0;
            assert!(
                p.summary.is_some_and(|m| (m.level() - mean).abs() < 1e-9),
                "{:?} vs {mean}",
                p.summary
            );
            if o[0] != o[1] {
                assert_ne!(p.summary, Measured::of(censored_quantile(&o, 0.5)));
            }
        }
    }
    // The rounds in another state are told apart: both states appear.
    let states: std::collections::BTreeSet<_> =
        t.rows.iter().filter_map(|r| r.state.clone()).collect();
    assert!(states.len() >= 2, "{states:?}");
}

/// Whichever probe ran feeds the headline: with the stop-and-wait probe
/// taken out, the isochronous probe's one-way delay over the window is
/// the headline's latency (it once said "no data"), every slot's fate
/// apart (method §12.11).
#[test]
fn an_isochronous_only_sweep_has_a_latency_in_its_headline() {
    let mut input = netlab_report::read_results(folder("sweep-iso").path()).unwrap();
    for s in &mut input.scenarios {
        s.probes.clear();
        s.fates = None;
    }
    let h = netlab_compare::headline::Headline::of_input(&input);
    let md = h.markdown();
    assert!(
        md.contains("from the isochronous probe, a slot every 20 ms whatever is outstanding"),
        "{md}"
    );
    assert!(
        md.contains("loaded slots tail-dropped (queue full)"),
        "{md}"
    );
    assert!(md.contains("one-way A→B over the window p50 "), "{md}");
    assert!(!md.contains("no data"), "{md}");
    assert!(!md.contains("no B receive log"), "{md}");
    let p3 = &h.points[2].headline.arms[0];
    assert!(matches!(p3.loaded_p50, CensoredQuantile::Value(v) if v > 50.0));
    assert!(
        md.contains("loaded isochronous probe one-way A→B delay p50"),
        "{md}"
    );
    assert!(!md.contains("stop-and-wait probe RTT p50"), "{md}");
}

#[test]
fn a_metric_that_never_changes_is_said_in_one_line_not_drawn() {
    let dir = folder("sweep-constant");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let mut t = sweep::SweepTable::of(&input).unwrap();
    assert!(netlab_figures::plot_sweep::constant_lines(&t).is_empty());
    // Zero drops at every point and round.
    for r in &mut t.rows {
        r.metrics.drops = Some(Measured::Value(0.0));
    }
    let lines = netlab_figures::plot_sweep::constant_lines(&t);
    assert_eq!(
        lines,
        ["drops in the measured window (the arm's counter): 0 packets at every point and round (constant: not drawn)"]
    );
    let plots = netlab_figures::plot_sweep::all(&t).unwrap();
    for a in &t.axes {
        let f = netlab_figures::layout::sweep_figure(&netlab_figures::plot_sweep::file_name(
            SweepMetric::Drops,
            a,
        ));
        assert!(plots.iter().all(|p| p.file != f), "{f} drawn");
        let g = netlab_figures::layout::sweep_figure(&netlab_figures::plot_sweep::file_name(
            SweepMetric::GoodputUp,
            a,
        ));
        assert!(plots.iter().any(|p| p.file == g), "{g} not drawn");
    }
}
