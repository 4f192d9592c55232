//! The figures draw each value where the data puts it: the SVG the
//! report writes is read back, each axis mapping taken from the tick
//! labels the SVG itself prints, and each drawn mark checked within
//! 1.5 px against the numbers netlab-analysis computes (the ones
//! summary.md prints; docs/report.md, "Headline figure" and "Sweep
//! figures").

mod common;

use common::fixture_json_of;
use common::svg::{elements, near, ticks, Axis, El};
use netlab_compare::compare::{analyse, Figure};
use netlab_compare::sweep::{self, Measured, SweepMetric};
use netlab_figures::plot_sweep::model_lines;
use netlab_results::Results;
use netlab_stats::CensoredQuantile;

fn rendered(run: &str, file: &str) -> String {
    let r = Results::parse(&fixture_json_of(run)).unwrap();
    let input = netlab_analysis::input_from(&r).unwrap();
    let all = netlab_report::render_all(&input).unwrap();
    common::rendered_text(&all, file, run)
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
    let hl = netlab_compare::headline::Headline::of(&input, &st);
    // The delay panel: from its axis title to the fate panel's.
    let start = els
        .iter()
        .position(|e| e.is_text("probe RTT (ms, log)"))
        .unwrap();
    let end = els
        .iter()
        .position(|e| {
            ["probes", "requests", "slots"]
                .iter()
                .any(|n| e.is_text(&format!("% of loaded {n}")))
        })
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
    let t = sweep::SweepTable::of(&netlab_analysis::input_from(&r).unwrap()).expect("a sweep");
    let m = SweepMetric::SignalProb;
    let panels = t.series(m, 0);
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
    line: &netlab_figures::plot_sweep::ModelLine,
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
    let at = |p: &netlab_figures::plot_sweep::ModelPoint| (x.px(p.x), y.px(p.value));
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

/// `#RRGGBB` as plotters' SVG backend writes a colour.
fn hex(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// One host in one scenario, as flows.csv gives it, with its models.
#[derive(Debug)]
struct HostRow {
    arm: String,
    round: u32,
    host: String,
    share: f64,
    /// Per-flow FQ, equal host share, Mathis (None without RTTs).
    models: [Option<f64>; 3],
}

/// Each scenario's hosts in flows.csv's order (scenario, then each
/// host's first flow), their shares from its `host_goodput_share`, and
/// their models worked out here from the flows: flows ÷ flows, 1 ÷ hosts
/// and Σ 1/RTT ÷ Σ 1/RTT with each flow's window RTT.
fn host_rows(run: &str, flows_csv: &str) -> Vec<HostRow> {
    let r = Results::parse(&fixture_json_of(run)).unwrap();
    let rows = common::parse_csv(flows_csv);
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let (sc, arm, round, host, share) = (
        col("scenario"),
        col("arm"),
        col("round"),
        col("host"),
        col("host_goodput_share"),
    );
    let mut out: Vec<(u32, HostRow)> = Vec::new();
    for row in &rows[1..] {
        let index: u32 = row[sc].parse().unwrap();
        if out.iter().any(|(i, h)| *i == index && h.host == row[host]) {
            continue;
        }
        let s = r.scenarios.iter().find(|s| s.index == index).unwrap();
        let of = |h: Option<&str>| -> (usize, f64) {
            let mine: Vec<_> = s
                .flows
                .iter()
                .filter(|f| h.is_none_or(|h| f.host.as_deref() == Some(h)))
                .collect();
            let inv = mine
                .iter()
                .map(|f| 1.0 / netlab_results::shares::window_rtt_ms(f).unwrap())
                .sum();
            (mine.len(), inv)
        };
        let (k, inv) = of(Some(&row[host]));
        let (n, all) = of(None);
        let hosts = s.hosts.len() as f64;
        // flows.csv writes the same models beside the share.
        for (name, want) in [
            ("host_model_per_flow", k as f64 / n as f64),
            ("host_model_equal_host", 1.0 / hosts),
            ("host_model_mathis", inv / all),
        ] {
            let got: f64 = row[col(name)].parse().unwrap();
            assert!(
                (got - want).abs() < 1e-9,
                "{run} scenario {index} host {}: {name} {got}, the flows give {want}",
                row[host]
            );
        }
        out.push((
            index,
            HostRow {
                arm: row[arm].clone(),
                round: row[round].parse().unwrap(),
                host: row[host].clone(),
                share: row[share].parse().unwrap(),
                models: [
                    Some(k as f64 / n as f64),
                    Some(1.0 / hosts),
                    Some(inv / all),
                ],
            },
        ));
    }
    out.into_iter().map(|(_, h)| h).collect()
}

/// The y a round's marker anchors its value at: a disc's centre, a
/// square's middle, a triangle's apex plus its radius (6 px).
fn anchor_y(e: &El) -> f64 {
    match e.tag.as_str() {
        "circle" => e.num("cy"),
        "rect" => e.num("y") + e.num("height") / 2.0,
        "polygon" => e.points()[0].1 + 6.0,
        t => panic!("no marker: {t}"),
    }
}

fn anchor_x_of(e: &El) -> f64 {
    match e.tag.as_str() {
        "circle" => e.num("cx"),
        "rect" => e.num("x") + e.num("width") / 2.0,
        _ => e.points()[0].0,
    }
}

/// Checks `hosts-share-up.svg` of `run` against flows.csv: every host's
/// marker per round at its share, in its host's colour and its round's
/// shape, arm by arm left to right; every dashed model line at a model
/// value of the host whose markers it stands over; and the `expected`
/// (model, value) dashes present. Returns how many dashes it checked.
fn check_hosts_figure(run: &str, expected: &[(usize, f64)]) -> usize {
    use netlab_figures::plot_hosts::{host_color, EQUAL_HOST_COLOR, MATHIS_COLOR, PER_FLOW_COLOR};
    let r = Results::parse(&fixture_json_of(run)).unwrap();
    let all = netlab_report::render_all(&netlab_analysis::input_from(&r).unwrap()).unwrap();
    let file = |name: &str| common::rendered_text(&all, name, run);
    let svg = file("hosts-share-up.svg");
    let hosts_rows = host_rows(run, &file("flows.csv"));
    let els = elements(&svg);
    let y = Axis::fit(&ticks(&els, "end", "y"), false);
    let (top, bottom) = (y.px(1.0) - 8.0, y.px(0.0) + 8.0);
    let in_plot = |e: &&El| {
        let v = match e.tag.as_str() {
            "polyline" => e.points()[0].1,
            "circle" | "rect" | "polygon" => anchor_y(e),
            _ => return false,
        };
        (top..=bottom).contains(&v)
    };
    // Hosts in the run's order, arms in the order they ran.
    let mut hosts: Vec<&str> = Vec::new();
    let mut arms: Vec<&str> = Vec::new();
    for h in &hosts_rows {
        if !hosts.contains(&h.host.as_str()) {
            hosts.push(&h.host);
        }
        if !arms.contains(&h.arm.as_str()) {
            arms.push(&h.arm);
        }
    }
    let colors: Vec<String> = (0..hosts.len()).map(|j| hex(host_color(j))).collect();
    let markers: Vec<&El> = els
        .iter()
        .filter(in_plot)
        .filter(|e| e.tag != "polyline")
        .filter(|e| {
            e.attr("fill")
                .is_some_and(|f| colors.iter().any(|c| c == f))
        })
        .collect();
    // The order they are drawn in: arm by arm, host by host, round by round.
    let mut want: Vec<&HostRow> = Vec::new();
    for arm in &arms {
        for host in &hosts {
            want.extend(
                hosts_rows
                    .iter()
                    .filter(|h| h.arm == *arm && h.host == *host),
            );
        }
    }
    assert_eq!(
        markers.len(),
        want.len(),
        "{run}: one marker per host and round"
    );
    let mut placed: Vec<(f64, &HostRow)> = Vec::new();
    for (m, h) in markers.iter().zip(&want) {
        let what = format!("{run}: {} round {} host {}", h.arm, h.round, h.host);
        let j = hosts.iter().position(|x| *x == h.host).unwrap();
        assert_eq!(m.attr("fill"), Some(colors[j].as_str()), "{what}: colour");
        let shape = if h.round == 1 { "circle" } else { "rect" };
        assert_eq!(m.tag, shape, "{what}: the round's shape");
        near(
            &format!("{what}: share {}", h.share),
            anchor_y(m),
            y.px(h.share),
        );
        placed.push((anchor_x_of(m), h));
    }
    // Left to right: arm after arm, and within an arm host after host.
    for w in placed.windows(2) {
        let (a, b) = (w[0].1, w[1].1);
        let order = |h: &HostRow| {
            (
                arms.iter().position(|x| *x == h.arm).unwrap(),
                hosts.iter().position(|x| *x == h.host).unwrap(),
            )
        };
        if order(a) != order(b) {
            assert!(w[0].0 < w[1].0, "{run}: {a:?} is not left of {b:?}");
        }
    }
    // Each dash: at a value of one of its model's for the host whose
    // markers are nearest it.
    let mut checked = 0;
    let mut seen = vec![false; expected.len()];
    for (k, c) in [PER_FLOW_COLOR, EQUAL_HOST_COLOR, MATHIS_COLOR]
        .iter()
        .enumerate()
    {
        let c = hex(*c);
        for d in els
            .iter()
            .filter(in_plot)
            .filter(|e| e.tag == "polyline" && e.attr("stroke") == Some(&c))
        {
            let p = d.points();
            let mid = (p[0].0 + p[1].0) / 2.0;
            let (_, owner) = placed
                .iter()
                .min_by(|a, b| (a.0 - mid).abs().total_cmp(&(b.0 - mid).abs()))
                .unwrap();
            let values: Vec<f64> = hosts_rows
                .iter()
                .filter(|h| h.arm == owner.arm && h.host == owner.host)
                .filter_map(|h| h.models[k])
                .collect();
            assert!(
                values.iter().any(|v| (y.px(*v) - p[0].1).abs() <= 1.5),
                "{run}: model {k} dash at y {} over {} host {} is at none of {values:?}",
                p[0].1,
                owner.arm,
                owner.host
            );
            for (i, (mk, v)) in expected.iter().enumerate() {
                seen[i] |= *mk == k && (y.px(*v) - p[0].1).abs() <= 1.5;
            }
            checked += 1;
        }
    }
    for ((k, v), s) in expected.iter().zip(seen) {
        assert!(s, "{run}: no dash of model {k} at {v}");
    }
    checked
}

#[test]
fn the_hosts_figure_draws_each_host_s_share_and_models_where_flows_csv_puts_them() {
    // host_isolation: a1 with 1 flow, a2 with 8; per flow 1/9 and 8/9,
    // per host 1/2 (docs/models.md, model 5).
    let n = check_hosts_figure(
        "run-uml-host-isolation-quick",
        &[(0, 1.0 / 9.0), (0, 8.0 / 9.0), (1, 0.5)],
    );
    assert!(n > 50, "only {n} dashes checked");
    // rtt_fairness: one flow a host, so per flow and per host both 1/2.
    let n = check_hosts_figure("run-uml-rtt-fairness-quick", &[(0, 0.5), (1, 0.5)]);
    assert!(n > 50, "only {n} dashes checked");
}
