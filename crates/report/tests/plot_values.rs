//! The figures draw each value where the data puts it: the SVG the
//! report writes is read back, each axis mapping taken from the tick
//! labels the SVG itself prints, and each drawn mark checked within
//! 1.5 px against the numbers netlab-analysis computes (the ones
//! summary.md prints; docs/report.md, "Headline figure" and "Sweep
//! figures").

mod common;

use common::fixture_json_of;
use common::svg::{elements, near, ticks, Axis, El};
use netlab_analysis::compare::{analyse, Figure};
use netlab_analysis::sweep::{self, Measured, SweepMetric};
use netlab_report::plot_sweep::model_lines;
use netlab_results::Results;
use netlab_stats::CensoredQuantile;

fn rendered(run: &str, file: &str) -> String {
    let r = Results::parse(&fixture_json_of(run)).unwrap();
    let input = netlab_analysis::input_from(&r).unwrap();
    let all = netlab_report::render_all(&input).unwrap();
    let f = all
        .iter()
        .find(|f| f.name == file)
        .unwrap_or_else(|| panic!("{run} renders no {file}"));
    String::from_utf8(f.bytes.clone()).unwrap()
}

/// The value drawn and whether it is a bound ("≥" marker).
fn drawn(q: &CensoredQuantile) -> Option<(f64, bool)> {
    match *q {
        CensoredQuantile::Value(v) => Some((v.max(0.01), false)),
        CensoredQuantile::AtLeast(v) => Some((v.max(0.01), true)),
        CensoredQuantile::NoData => None,
    }
}

/// The x where a marker of the headline anchors its value: a ring's and
/// a dot's centre, a bar's middle, a triangle's apex, a "≥" triangle's
/// tip less its size (plot_style's markers).
fn anchor_x(e: &El, r: f64) -> f64 {
    match e.tag.as_str() {
        "circle" => e.num("cx"),
        "rect" => e.num("x") + e.num("width") / 2.0,
        "line" => e.num("x1"),
        "polygon" if e.points()[1].1 == e.points()[2].1 => e.points()[0].0,
        "polygon" => e.points()[0].0 - r,
        t => panic!("no marker: {t}"),
    }
}

#[test]
fn the_headline_figure_draws_each_arm_s_delays_where_the_headline_puts_them() {
    const RUN: &str = "run-uml-3rounds";
    let svg = rendered(RUN, "headline-delay-loss.svg");
    let els = elements(&svg);
    let r = Results::parse(&fixture_json_of(RUN)).unwrap();
    let input = netlab_analysis::input_from(&r).unwrap();
    let st = analyse(&input);
    let hl = netlab_analysis::headline::of(&input, &st);
    // The delay panel: from its axis title to the fate panel's.
    let start = els
        .iter()
        .position(|e| e.is_text("probe RTT (ms, log)"))
        .unwrap();
    let end = els
        .iter()
        .position(|e| e.is_text("% of loaded probes"))
        .unwrap();
    let panel = &els[start..end];
    let x = Axis::fit(&ticks(panel, "middle", "x"), true);
    // Each arm's row: from its name (drawn at the row's y) to the next.
    let names: Vec<usize> = hl
        .arms
        .iter()
        .map(|a| {
            panel
                .iter()
                .position(|e| e.is_text(&a.arm) && e.attr("text-anchor") == Some("end"))
                .unwrap_or_else(|| panic!("no row of {}", a.arm))
        })
        .collect();
    assert!(names.len() >= 2, "two arms give the row pitch");
    let pitch = panel[names[1]].num("y") - panel[names[0]].num("y");
    for (i, a) in hl.arms.iter().enumerate() {
        let row_end = names
            .get(i + 1)
            .copied()
            .unwrap_or_else(|| panel.iter().rposition(|e| e.tag != "text").expect("marks") + 1);
        let row = &panel[names[i]..row_end];
        let y = row[0].num("y");
        let color = row[0].attr("fill").unwrap().to_string();
        let baseline = drawn(&a.baseline_p50);
        // Rounds in different states have no pooled figure (method §12.6).
        let pooled = a.by_state.is_empty();
        let p50 = drawn(&a.loaded_p50).filter(|_| pooled);
        let p95 = drawn(&a.loaded_p95).filter(|_| pooled);
        let ends: Vec<f64> = [baseline, p50, p95].iter().flatten().map(|p| p.0).collect();
        let lo = ends.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ends.iter().copied().fold(0.0, f64::max);
        let line = row
            .iter()
            .find(|e| e.tag == "polyline" && e.attr("stroke") == Some(&color))
            .unwrap_or_else(|| panic!("{}: no range line", a.arm));
        let pts = line.points();
        near(&format!("{} range from", a.arm), pts[0].0, x.px(lo));
        near(&format!("{} range to", a.arm), pts[1].0, x.px(hi));
        near(&format!("{} range y", a.arm), pts[0].1, y);
        let (b, _) = baseline.expect("every arm has a baseline");
        let ring = row
            .iter()
            .find(|e| e.tag == "circle" && e.attr("r") == Some("8"))
            .unwrap_or_else(|| panic!("{}: no baseline ring", a.arm));
        near(&format!("{} baseline", a.arm), ring.num("cx"), x.px(b));
        near(&format!("{} baseline y", a.arm), ring.num("cy"), y);
        let marks: Vec<&El> = row
            .iter()
            .filter(|e| e.attr("fill") == Some(&color) || e.attr("stroke") == Some(&color))
            .filter(|e| matches!(e.tag.as_str(), "rect" | "polygon" | "line"))
            .collect();
        let mut k = 0;
        for (what, q) in [("p50", p50), ("p95", p95)] {
            let Some((v, _)) = q else { continue };
            let m = marks
                .get(k)
                .unwrap_or_else(|| panic!("{}: no {what} mark", a.arm));
            near(&format!("{} {what}", a.arm), anchor_x(m, 9.0), x.px(v));
            // A thin bar is three lines: its stem, then its two caps.
            k += if m.tag == "line" { 3 } else { 1 };
        }
        assert_eq!(
            k,
            marks.len(),
            "{}: marks beyond p50, p95: {marks:?}",
            a.arm
        );
        let rounds: Vec<(f64, bool)> = st
            .figures
            .iter()
            .find(|f| f.arm == a.arm && f.figure == Figure::LoadedP50)
            .map(|f| f.rounds.iter().filter_map(|r| drawn(&r.value)).collect())
            .unwrap_or_default();
        check_rounds(&a.arm, row, &rounds, x, y + 0.38 * pitch);
    }
}

/// Each round's p50 in its own marker, drawn last in the arm's row, at
/// `y` (0.38 of a row below it).
fn check_rounds(arm: &str, row: &[El], rounds: &[(f64, bool)], x: Axis, y: f64) {
    assert!(!rounds.is_empty(), "{arm}: no rounds");
    let drawn_rounds = &row[row.len() - rounds.len()..];
    for (j, ((v, _), m)) in rounds.iter().zip(drawn_rounds).enumerate() {
        near(&format!("{arm} r{} p50", j + 1), anchor_x(m, 6.0), x.px(*v));
        let my = match m.tag.as_str() {
            "circle" => m.num("cy"),
            "rect" => m.num("y") + m.num("height") / 2.0,
            _ => m.points()[0].1 + 6.0,
        };
        near(&format!("{arm} r{} y", j + 1), my, y);
    }
}

#[test]
fn the_signal_probability_figure_draws_each_point_and_model_where_the_sweep_puts_them() {
    const RUN: &str = "run-uml-aqm-law-quick";
    let svg = rendered(RUN, "sweep-signal-probability-vs-flows.svg");
    let els = elements(&svg);
    let r = Results::parse(&fixture_json_of(RUN)).unwrap();
    let t = sweep::table(&netlab_analysis::input_from(&r).unwrap()).expect("a sweep");
    let m = SweepMetric::SignalProb;
    let panels = sweep::series(&t, m, 0);
    let models = model_lines(&t, m, 0, &panels);
    assert_eq!(panels.len(), 1, "one panel: the sweep has one axis");
    let x = Axis::fit(&ticks(&els, "middle", "x"), true);
    let y = Axis::fit(&ticks(&els, "end", "y"), true);
    let rings: Vec<&El> = els
        .iter()
        .filter(|e| e.tag == "circle" && e.attr("r") == Some("8"))
        .filter(|e| e.attr("fill") == Some("none"))
        .collect();
    let arms = &panels[0].arms;
    let n = arms.len() as f64;
    let mut k_ring = 0;
    let mut model_colors = Vec::new();
    for (k, series) in arms.iter().enumerate() {
        // Arms side by side: each 8 px beside the next at a point.
        let dx = ((k as f64 - (n - 1.0) / 2.0) * 8.0).round();
        let mut color = None;
        for p in &series.points {
            let Some(Measured::Value(v)) = p.summary else {
                panic!("{} at {}: no value to check", series.arm, p.x)
            };
            let ring = rings[k_ring];
            k_ring += 1;
            let what = format!("{} at {} flows", series.arm, p.x);
            near(&format!("{what}: x"), ring.num("cx"), x.px(p.x) + dx);
            near(&format!("{what}: p {v}"), ring.num("cy"), y.px(v));
            color = ring.attr("stroke").map(str::to_string);
        }
        model_colors.push((series.arm.clone(), color.expect("a point")));
    }
    assert_eq!(k_ring, rings.len(), "rings beyond the data's points");
    // The model's dashes: each on the line between the predictions it
    // joins, the first from the first prediction.
    let bottom = y.px(y_min(&ticks(&els, "end", "y")));
    let mut checked = 0;
    for line in &models[0].lines {
        let c = &model_colors.iter().find(|(a, _)| *a == line.arm).unwrap().1;
        checked += check_model(&els, line, c, (x, y), bottom);
    }
    assert!(checked > 20, "only {checked} model dashes checked");
}

/// Checks the dashes of `line`'s model (drawn in half `c`, the arm's
/// colour) above `bottom`; how many.
fn check_model(
    els: &[El],
    line: &netlab_report::plot_sweep::ModelLine,
    c: &str,
    (x, y): (Axis, Axis),
    bottom: f64,
) -> usize {
    let mut checked = 0;
    let half = |h: &str| u8::from_str_radix(h, 16).unwrap() / 2;
    let dark = format!(
        "#{:02X}{:02X}{:02X}",
        half(&c[1..3]),
        half(&c[3..5]),
        half(&c[5..7])
    );
    let dashes: Vec<Vec<(f64, f64)>> = els
        .iter()
        .filter(|e| e.tag == "polyline" && e.attr("stroke") == Some(&dark))
        .map(El::points)
        .collect();
    let at = |p: &netlab_report::plot_sweep::ModelPoint| (x.px(p.x), y.px(p.value));
    let segments: Vec<((f64, f64), (f64, f64))> = line
        .points
        .windows(2)
        .filter(|w| w[0].regime == w[1].regime)
        .map(|w| (at(&w[0]), at(&w[1])))
        .collect();
    assert!(!segments.is_empty(), "{}: no model line", line.arm);
    assert!(
        line.points.iter().all(|p| p.upper.is_none()),
        "the Mathis law gives one level"
    );
    for (a, _) in &segments {
        let first = dashes
            .iter()
            .find(|d| (d[0].0 - a.0).hypot(d[0].1 - a.1) <= 1.5);
        assert!(
            first.is_some(),
            "{}: no dash starts at the prediction ({:.1}, {:.1})",
            line.arm,
            a.0,
            a.1
        );
    }
    // Dashes in the legend are left of the plot or below it.
    for d in dashes
        .iter()
        .filter(|d| d[0].1 <= bottom + 20.0 && d[0].0 > x.px(0.9))
    {
        for &p in d {
            let off = segments
                .iter()
                .map(|&(a, b)| to_segment(p, a, b))
                .fold(f64::INFINITY, f64::min);
            assert!(
                off <= 1.5,
                "{}: a dash at {p:?} is {off:.1} px off the model's line",
                line.arm
            );
        }
        checked += 1;
    }
    checked
}

fn y_min(ticks: &[(f64, f64)]) -> f64 {
    ticks.iter().map(|t| t.1).fold(f64::INFINITY, f64::min)
}

/// The distance of `p` from the segment `a`–`b`.
fn to_segment(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p.0 - a.0 - t * dx).hypot(p.1 - a.1 - t * dy)
}
