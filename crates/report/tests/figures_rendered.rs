//! Every committed fixture's report as a reader meets it: rendered from
//! its gzipped results.json alone (as `orchestrator report DIR` reads a
//! committed folder), then every figure laid out by usvg in the face it is
//! drawn in, and judged as a journal's reviewer would (docs/report.md,
//! "One figure style"): no text outside the canvas, no two texts over
//! each other, the legend no larger than the plot. The folder too
//! (docs/report.md, "The results folder"): at most 20 entries at its top.
//!
//! The checks are shown to catch what they look for on figures netlab
//! drew before they held (`fixtures/report/figures-70da4a3/`).

mod common;

use std::path::{Path, PathBuf};

use common::figure;
use netlab_report::folder::{finish_folder, FinishOptions};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/report")
}

/// Whether the face is here; without it the test skips (fails under
/// NETLAB_REQUIRE_PRIVILEGED=1, as every test that needs a tool does).
fn have_font(test: &str) -> bool {
    if figure::font().is_some() {
        return true;
    }
    common::skip_for_missing(test, figure::FONT_FILE, "fonts-dejavu-core");
    false
}

/// Every file under `dir`, as paths relative to it.
fn files_in(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            out.extend(
                files_in(&e.path())
                    .into_iter()
                    .map(|n| format!("{name}/{n}")),
            );
        } else {
            out.push(name);
        }
    }
    out.sort();
    out
}

/// Renders the fixture `run` from its results.json.gz alone; returns the
/// folder.
fn render(run: &str) -> common::TempDir {
    let dir = common::TempDir::new(&format!("figs-{run}"));
    std::fs::copy(
        fixtures().join(run).join("results.json.gz"),
        dir.path().join("results.json.gz"),
    )
    .unwrap();
    let done = finish_folder(dir.path(), &FinishOptions::rerender(), &mut |_| {})
        .unwrap_or_else(|e| panic!("{run}: {e}"));
    done.summary.unwrap();
    done.report.unwrap();
    dir
}

/// The faults of every figure in `dir`, each named by its file.
fn faults_in(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for name in files_in(dir).iter().filter(|n| n.ends_with(".svg")) {
        let svg = std::fs::read_to_string(dir.join(name)).unwrap();
        let f = figure::read(&svg).unwrap_or_else(|e| panic!("{name}: {e}"));
        if std::env::var("FIG_DEBUG").is_ok() {
            eprintln!(
                "{name}: {} texts, panels {:?}, legend {:?}",
                f.texts.len(),
                f.panels,
                f.legend
            );
        }
        out.extend(
            figure::faults(&f)
                .into_iter()
                .map(|m| format!("{name}: {m}")),
        );
    }
    out
}

fn check(run: &str) -> Option<common::TempDir> {
    if !have_font(run) {
        return None;
    }
    let dir = render(run);
    let top: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        top.len() <= 20,
        "{run}: {} entries at the top: {top:?}",
        top.len()
    );
    let faults = faults_in(dir.path());
    assert!(
        faults.is_empty(),
        "{run}: {} fault(s):\n{}",
        faults.len(),
        faults.join("\n")
    );
    headline_reads_in_30_seconds(run, dir.path());
    Some(dir)
}

/// The headline of summary.md and of index.html opens with a table, and
/// none of its sentences runs past 60 words (docs/report.md, "The
/// headline"); the full sentences are below it.
fn headline_reads_in_30_seconds(run: &str, dir: &Path) {
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    let at = md.find("## Headline\n\n").expect("a headline") + "## Headline\n\n".len();
    let block = &md[at..];
    assert!(
        block.starts_with("| "),
        "{run}: summary.md's headline opens with {:?}",
        &block[..80.min(block.len())]
    );
    let end = block.find("\n### ").unwrap_or(block.len());
    for sentence in sentences(&block[..end]) {
        let words = sentence.split_whitespace().count();
        assert!(
            words <= 60,
            "{run}: a headline sentence of {words} words: {sentence}"
        );
    }
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let at = html
        .find("<section id=headline><h2>Headline</h2>\n")
        .expect("a headline")
        + "<section id=headline><h2>Headline</h2>\n".len();
    assert!(
        html[at..].starts_with("<table"),
        "{run}: index.html's headline opens with {:?}",
        &html[at..at + 80]
    );
}

/// The sentences of a Markdown block outside its tables: split after a
/// full stop that ends a word (`4.14` is no end).
fn sentences(block: &str) -> Vec<String> {
    let text: String = block
        .lines()
        .filter(|l| !l.starts_with('|'))
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = Vec::new();
    let mut cur = String::new();
    for w in text.split_whitespace() {
        cur.push_str(w);
        cur.push(' ');
        if w.ends_with('.') || w.ends_with(".**") {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

#[test]
fn run_uml_3rounds() {
    check("run-uml-3rounds");
}

#[test]
fn run_uml_3rounds_fates() {
    check("run-uml-3rounds-fates");
}

#[test]
fn run_host_pfifo_6rounds() {
    check("run-host-pfifo-6rounds");
}

#[test]
fn run_host_pfifo_sweep() {
    check("run-host-pfifo-sweep");
}

#[test]
fn run_uml_aqm_law_quick() {
    check("run-uml-aqm-law-quick");
}

#[test]
fn run_uml_bbr_share_quick() {
    check("run-uml-bbr-share-quick");
}

#[test]
fn run_uml_host_isolation_quick() {
    check("run-uml-host-isolation-quick");
}

#[test]
fn run_uml_rtt_fairness_quick() {
    check("run-uml-rtt-fairness-quick");
}

#[test]
fn run_uml_sparse_flows() {
    check("run-uml-sparse-flows");
}

#[test]
fn run_uml_kernel_ab_6_1() {
    check("run-uml-kernel-ab-6.1");
}

#[test]
fn run_uml_kernel_ab_6_12() {
    check("run-uml-kernel-ab-6.12");
}

#[test]
fn run_uml_window() {
    check("run-uml-window");
}

#[test]
fn run_uml_trace_link() {
    // The moving rate's figures: delay, rates and schedule over time per
    // scenario, and the trace's use against delay plane.
    let Some(dir) = check("run-uml-trace-link") else {
        return;
    };
    for fig in [
        "figures/link-plane.svg",
        "scenarios/s01/s01-link.svg",
        "scenarios/s02/s02-link.svg",
    ] {
        assert!(dir.path().join(fig).is_file(), "no {fig}");
    }
}

/// The checks fail on figures drawn before they held: a legend off the
/// canvas and an axis name over a tick label (the signal probability
/// against N), rounds' labels over each other (a delay CDF).
#[test]
fn the_checks_fail_on_the_figures_drawn_before_them() {
    if !have_font("the_checks_fail_on_the_figures_drawn_before_them") {
        return;
    }
    let old = |name: &str| {
        let gz = fixtures()
            .join("figures-70da4a3")
            .join(format!("{name}.gz"));
        let mut svg = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap()),
            &mut svg,
        )
        .unwrap();
        figure::faults(&figure::read(&svg).unwrap())
    };
    let p = old("sweep-signal-probability-vs-flows.svg");
    assert!(p.iter().any(|f| f.contains("leaves the 600×")), "{p:?}");
    assert!(
        p.iter()
            .any(|f| f.contains("\"per packet, log\"") && f.contains("overprints")),
        "{p:?}"
    );
    let km = old("p01-km-cdf-loaded.svg");
    assert!(
        km.iter()
            .any(|f| f.starts_with("\"r1\"") && f.contains("overprints \"r2\"")),
        "{km:?}"
    );
}

/// A legend larger than the plot is found from its frame and the axes.
#[test]
fn a_legend_larger_than_its_plot_is_a_fault() {
    if !have_font("a_legend_larger_than_its_plot_is_a_fault") {
        return;
    }
    let svg = |legend_h: u32| {
        format!(
            "<svg width=\"600\" height=\"600\" viewBox=\"0 0 600 600\" xmlns=\"http://www.w3.org/2000/svg\">\n\
             <polyline fill=\"none\" stroke=\"#000000\" stroke-width=\"1\" points=\"100,50 100,250 \"/>\n\
             <polyline fill=\"none\" stroke=\"#000000\" stroke-width=\"1\" points=\"101,251 581,251 \"/>\n\
             <rect x=\"2\" y=\"300\" width=\"596\" height=\"{legend_h}\" fill=\"none\" stroke=\"#A0A0A0\" stroke-width=\"1\"/>\n\
             </svg>"
        )
    };
    let small = figure::read(&svg(100)).unwrap();
    assert_eq!(small.panels.len(), 1);
    assert!(small.legend.is_some());
    assert!(
        figure::faults(&small).is_empty(),
        "{:?}",
        figure::faults(&small)
    );
    let big = figure::faults(&figure::read(&svg(280)).unwrap());
    assert!(big.iter().any(|f| f.contains("the legend")), "{big:?}");
}

/// Every committed fixture has its test above.
#[test]
fn every_fixture_is_checked() {
    let me = include_str!("figures_rendered.rs");
    for e in std::fs::read_dir(fixtures()).unwrap() {
        let e = e.unwrap();
        if e.path().join("results.json.gz").is_file() {
            let run = e.file_name().to_string_lossy().into_owned();
            assert!(
                me.contains(&format!("check(\"{run}\")")),
                "{run} is not checked"
            );
        }
    }
}
