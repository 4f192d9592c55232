//! Rendering tests on the committed results of a real short guest run.

mod common;

use common::{fixture_folder, rasterize, TempDir};
use netlab_analysis::records::{ProbeOutcome, ProbePhase};
use netlab_stats::{kaplan_meier, Observation};

#[test]
fn every_plot_is_produced_parses_and_is_not_blank() {
    let dir = fixture_folder("plots");
    let input = netlab_report::read_results(dir.path()).expect("fixture reads");
    assert_eq!(input.scenarios.len(), 6);
    let files = netlab_report::render(&input, dir.path()).expect("renders");
    let mut names: Vec<String> = files
        .svgs
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for s in &input.scenarios {
        for kind in ["probe-rtt", "goodput", "tcp-info", "qdisc"] {
            let want = format!("s{:02}-{kind}.svg", s.index);
            assert!(names.contains(&want), "missing {want} in {names:?}");
        }
    }
    for want in [
        "km-cdf-loaded.svg",
        "overview-pfifo-vs-fq_codel.svg",
        "scatter-goodput-delay.svg",
    ] {
        assert!(names.iter().any(|n| n == want), "missing {want}");
    }
    assert!(names.iter().any(|n| n == "headline-delay-loss.svg"));
    assert_eq!(names.len(), 6 * 4 + 4);
    for p in &files.svgs {
        let bytes = std::fs::read(p).unwrap();
        let ink = rasterize(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(
            ink > 0.02,
            "{} renders almost blank ({ink:.4})",
            p.display()
        );
    }
    assert_eq!(files.flent.len(), 6);
    let html = std::fs::read_to_string(&files.html).unwrap();
    assert!(html.contains("<table>"));
    // index.html inlines the run's four plots; each scenario's four are
    // inline on its own page, which index.html links.
    assert_eq!(html.matches("<svg").count(), 4, "the run's plots inline");
    assert_eq!(files.pages.len(), 6);
    for s in &input.scenarios {
        let name = netlab_figures::layout::scenario_page(s.index);
        assert!(
            html.contains(&format!("<a href=\"{name}\">")),
            "index.html does not link {name}"
        );
        let path = dir.path().join(&name);
        assert_eq!(files.pages[s.index as usize - 1], path);
        let page = std::fs::read_to_string(&path).unwrap();
        assert!(
            page.contains("<a href=\"../../index.html\">"),
            "{name} does not link back"
        );
        for kind in ["probe-rtt", "goodput", "tcp-info", "qdisc"] {
            let file = format!("s{:02}-{kind}.svg", s.index);
            assert!(
                page.contains(&format!("<figure id=\"{file}\"><svg")),
                "{name} lacks {file} inline"
            );
            assert!(!html.contains(&file), "index.html names {file}");
        }
        assert_eq!(page.matches("<svg").count(), 4, "{name}: its four plots");
        let flent = files.flent.iter().find(|f| {
            f.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("s{:02}-", s.index))
        });
        let flent = flent
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            page.contains(&format!("<a href=\"../../flent/{flent}\">")),
            "{name} does not link {flent}"
        );
        self_contained(&name, &page);
    }
    self_contained("index.html", &html);
    // No temporaries left behind.
    for e in std::fs::read_dir(dir.path()).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!n.ends_with(".tmp"), "leftover {n}");
    }
}

/// No script, and nothing is loaded from anywhere.
fn self_contained(name: &str, html: &str) {
    assert!(!html.contains("<script"), "{name}: no script");
    for bad in ["src=", "<link", "@import", "url(", "<iframe", "<object"] {
        assert!(!html.contains(bad), "{name} has {bad:?}");
    }
}

#[test]
fn timeouts_show_in_the_band_and_the_km_curve_stops_below_one() {
    let dir = fixture_folder("timeouts");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    // Scenario 1 (round 1, pfifo): every loaded probe timed out in this run.
    let s = &input.scenarios[0];
    let loaded: Vec<Observation> = s
        .probes
        .iter()
        .filter(|p| p.phase == ProbePhase::Loaded)
        .map(|p| match p.outcome {
            ProbeOutcome::Reply { rtt_ms } => Observation::Exact(rtt_ms),
            _ => Observation::AtLeast(1000.0),
        })
        .collect();
    let timeouts = s
        .probes
        .iter()
        .filter(|p| p.outcome == ProbeOutcome::Timeout)
        .count();
    assert!(timeouts > 0, "the fixture's pfifo scenario has timeouts");
    let km = kaplan_meier(&loaded);
    assert!(km.final_cdf() < 1.0, "KM stops below 1: {}", km.final_cdf());

    let probe_svg =
        std::fs::read_to_string(dir.path().join("scenarios/s01/s01-probe-rtt.svg")).unwrap();
    // Without B's receive log a timeout cannot be told a loss or a delay:
    // it stays in the band, said so.
    assert!(
        probe_svg.contains(&format!(
            "no reply within 1000 ms ({timeouts}: lost or late"
        )),
        "{probe_svg}"
    );
    // The pooled pfifo curve in the KM plot says where it stops.
    let pooled: Vec<Observation> = input
        .scenarios
        .iter()
        .filter(|s| s.arm == "pfifo")
        .flat_map(|s| {
            s.loaded_probes()
                .map(|p| match p.outcome {
                    ProbeOutcome::Reply { rtt_ms } => Observation::Exact(rtt_ms),
                    _ => Observation::AtLeast(s.probe_timeout_s * 1000.0),
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let pk = kaplan_meier(&pooled);
    assert!(pk.final_cdf() < 1.0);
    let km_svg = std::fs::read_to_string(dir.path().join("figures/km-cdf-loaded.svg")).unwrap();
    let fq = input
        .scenarios
        .iter()
        .filter(|s| s.arm == "fq_codel")
        .map(|s| s.loaded_probes().count())
        .sum::<usize>();
    assert!(
        km_svg.contains(&format!("fq_codel: n={fq}")),
        "the legend gives each arm's requests"
    );
    assert!(km_svg.contains("no reply within 1000 ms: censored"));
    assert!(files.svgs.len() > 3);
}

#[test]
fn re_rendering_is_byte_deterministic() {
    let dir = fixture_folder("det");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let a = TempDir::new("det-a");
    let b = TempDir::new("det-b");
    netlab_report::render(&input, a.path()).unwrap();
    let again = netlab_report::read_results(dir.path()).unwrap();
    netlab_report::render(&again, b.path()).unwrap();
    let mut n = 0;
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(a.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into())
        .collect();
    while let Some(name) = names.pop() {
        let path = a.path().join(&name);
        if path.is_dir() {
            names.extend(
                std::fs::read_dir(&path)
                    .unwrap()
                    .map(|e| name.join(e.unwrap().file_name())),
            );
            continue;
        }
        let x = std::fs::read(&path).unwrap();
        let y = std::fs::read(b.path().join(&name)).unwrap();
        assert!(x == y, "{name:?} differs between renders");
        n += 1;
    }
    // 6 × 4 scenario plots, 4 run plots, index.html, 6 Flent files, 6
    // scenario pages, probes.csv and flows.csv.
    assert_eq!(n, 6 * 4 + 4 + 1 + 6 + 6 + 2);
}

#[test]
fn a_failed_scenario_without_data_still_renders_and_says_so() {
    let dir = fixture_folder("failed");
    let mut input = netlab_report::read_results(dir.path()).unwrap();
    let s = &mut input.scenarios[0];
    s.error = Some("building the topology: boom".into());
    s.probes.clear();
    s.flows.clear();
    s.tcp_info.clear();
    s.qdisc.clear();
    s.measured_window = None;
    s.final_counters = Default::default();
    let out = TempDir::new("failed-out");
    let files = netlab_report::render(&input, out.path()).expect("renders");
    // No probe request: its probe plot is not drawn.
    assert_eq!(files.svgs.len(), 6 * 4 + 4 - 1);
    assert_eq!(
        files.flent.len(),
        5,
        "no Flent file for the scenario without data"
    );
    let html = std::fs::read_to_string(&files.html).unwrap();
    assert!(html.contains("failed: building the topology: boom"));
    assert!(html.contains("not written: flent export of scenario 1"));
    let page = std::fs::read_to_string(&files.pages[0]).unwrap();
    assert!(page.contains("failed: building the topology: boom"));
    assert!(page.contains("Flent file not written: flent export of scenario 1"));
    assert_eq!(
        page.matches("<svg").count(),
        3,
        "a failed scenario's page draws its (empty) plots but the probe's"
    );
    assert!(page.contains("No probe plot: this scenario recorded no probe request."));
    assert!(html.contains("Left out of the statistics (failed): scenarios [1]"));
    for p in &files.svgs {
        rasterize(&std::fs::read(p).unwrap()).unwrap();
    }
}

/// Every figure the report writes, for both committed fixtures, keeps its
/// smallest type at 8 pt when printed 8.5 cm wide (a paper's column): the
/// SVG's width and every font-size are read back from the file.
#[test]
fn every_figure_keeps_8_pt_type_when_printed_at_a_column_width() {
    use netlab_figures::plot_style::{fonts_below_print_rule, MIN_PRINT_PT, PRINT_WIDTH_CM};
    for fixture in ["run-uml-3rounds", "run-host-pfifo-6rounds"] {
        let dir = TempDir::new("print-rule");
        let gz = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/report")
            .join(fixture)
            .join("results.json.gz");
        let mut json = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap()),
            &mut json,
        )
        .unwrap();
        std::fs::write(dir.path().join("results.json"), json).unwrap();
        let input = netlab_report::read_results(dir.path()).unwrap();
        let files = netlab_report::render_all(&input).unwrap();
        let svgs: Vec<_> = files.iter().filter(|f| f.name.ends_with(".svg")).collect();
        assert!(svgs.len() >= 10, "{fixture}: {} SVGs", svgs.len());
        for f in svgs {
            let svg = std::str::from_utf8(&f.bytes).unwrap();
            assert!(svg.contains("font-size"), "{}: no text at all", f.name);
            let small = fonts_below_print_rule(svg).unwrap_or_else(|e| panic!("{}: {e}", f.name));
            // Nothing is cut: every text starts inside the figure.
            let num = |s: &str, a: &str| -> f64 {
                let i = s.find(&format!(" {a}=\"")).unwrap() + a.len() + 3;
                s[i..i + s[i..].find('"').unwrap()].parse().unwrap()
            };
            let height = num(svg, "height");
            for t in svg.split("<text").skip(1) {
                let y = num(t, "y");
                assert!(y < height - 8.0, "{}: a text at y {y} of {height}", f.name);
            }
            assert!(
                small.is_empty(),
                "{fixture} {}: {} fonts below {MIN_PRINT_PT} pt at {PRINT_WIDTH_CM} cm, e.g. {:?}",
                f.name,
                small.len(),
                &small[..small.len().min(4)]
            );
        }
    }
}

/// A sweep's scenario pages: each names its point, links that point's
/// headline on index.html and its neighbours, and draws its goodput
/// against its own point's rate (the fixture's points run at 2 and
/// 20 Mbit/s).
#[test]
fn a_sweep_s_scenario_pages_name_their_point_and_draw_its_rate() {
    let dir = TempDir::new("sweep-pages");
    std::fs::write(
        dir.path().join("results.json"),
        common::fixture_json_of("run-host-pfifo-sweep"),
    )
    .unwrap();
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    assert_eq!(files.pages.len(), input.scenarios.len());
    let n = input.scenarios.len();
    for (i, s) in input.scenarios.iter().enumerate() {
        let page = std::fs::read_to_string(&files.pages[i]).unwrap();
        let point = format!(
            "<a href=\"../../index.html#point{0}\">point {0}</a> ({1})",
            s.point.index, s.point.label
        );
        assert!(page.contains(&point), "scenario {} lacks {point}", s.index);
        assert!(page.contains("<th class=l>point</th>"));
        assert_eq!(page.contains("previous: "), i > 0);
        assert_eq!(page.contains("next: "), i + 1 < n);
        let rate = if s.point.label.contains("rate=20mbit") {
            "20"
        } else {
            "2"
        };
        let goodput = std::fs::read_to_string(
            dir.path()
                .join(netlab_figures::layout::scenario_plot(s.index, "goodput")),
        )
        .unwrap();
        let text = goodput.replace('\n', " ");
        assert!(
            text.contains(&format!("rate {rate} Mbit/s")),
            "scenario {} ({}) does not draw its point's rate",
            s.index,
            s.point.label
        );
    }
}
