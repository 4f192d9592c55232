//! A scenario's own page, `scenarios/sNN/index.html`, beside its plots: its
//! row of the scenarios table, its four plots inline (probe RTT, goodput,
//! tcp_info, qdisc), and its files (the plots' SVGs, its Flent file, its
//! packet files), with a link back to index.html. Self-contained like
//! index.html: inline SVG and CSS, no script, nothing fetched. Every run
//! gets these pages, however few its scenarios (docs/report.md, "Pages"):
//! index.html never carries a single scenario's plots, so one rule holds
//! for a 6-scenario compare and a 10,000-scenario sweep.

use std::fmt::Write as _;

use crate::html::{figure, packet_files, plot_files, scenario_row, scenario_table_head, CSS};
use crate::markdown::esc;
use netlab_analysis::records::Scenario;
use netlab_analysis::ReportInput;
use netlab_figures::plots::Plot;

/// The page's Flent file: written (its name) or why not.
pub(crate) type FlentFile<'a> = Result<&'a str, &'a str>;

/// The scenarios before and after a page's in execution order, linked
/// from it (none at either end).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Neighbours<'a> {
    /// The scenario run before it.
    pub previous: Option<&'a Scenario>,
    /// The scenario run after it.
    pub next: Option<&'a Scenario>,
}

/// The page of scenario `s` of the run `input`, with its `plots` (drawn
/// by [`netlab_figures::drawn::scenario_plots`]), its Flent file and links to its
/// neighbours.
pub(crate) fn page(
    input: &ReportInput,
    s: &Scenario,
    plots: &[Plot],
    flent: FlentFile<'_>,
    around: Neighbours<'_>,
) -> String {
    let up = netlab_figures::layout::up_from(&netlab_figures::layout::scenario_page(s.index));
    let mut h = String::new();
    let _ = writeln!(
        h,
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>netlab report {}: scenario {}</title>\
         <meta name=viewport content=\"width=device-width, initial-scale=1\"><style>{CSS}</style></head><body>",
        esc(&input.run_id),
        s.index
    );
    let _ = write!(
        h,
        "<p><a href=\"{up}index.html\">← the run's report (index.html)</a>: its headline, figures, comparison and notes."
    );
    for (word, n) in [("previous", around.previous), ("next", around.next)] {
        if let Some(n) = n {
            let _ = write!(
                h,
                " · {word}: <a href=\"{up}{}\">scenario {} ({})</a>",
                netlab_figures::layout::scenario_page(n.index),
                n.index,
                esc(&n.label())
            );
        }
    }
    h.push_str("</p>\n");
    let _ = writeln!(
        h,
        "<h1>Scenario {}: {}</h1>\n<p>Run {}, arm <code>{}</code>{}. Every figure is recomputed from the raw samples in \
         <a href=\"{up}results.json\">results.json</a>.</p>",
        s.index,
        esc(&s.label()),
        esc(&input.run_id),
        esc(&s.arm_words),
        if s.point.values.is_empty() {
            String::new()
        } else {
            format!(
                ", <a href=\"{up}index.html#point{0}\">point {0}</a> ({1})",
                s.point.index,
                esc(&s.point.label)
            )
        }
    );
    let sweep = !s.point.values.is_empty();
    scenario_table_head(&mut h, sweep);
    scenario_row(&mut h, s, sweep, None);
    h.push_str("</table>\n<h2 id=plots>Plots</h2>\n<div class=figs>\n");
    for p in plots {
        figure(&mut h, p);
    }
    if !plots.iter().any(|p| p.file.ends_with("-probe-rtt.svg")) {
        // A plot with no data is not drawn; the page says why.
        h.push_str("<p class=small>No probe plot: this scenario recorded no probe request.</p>\n");
    }
    h.push_str("</div>\n<h2 id=files>Files</h2>\n<ul>\n");
    plot_files(&mut h, plots, &up);
    match flent {
        Ok(name) => {
            let _ = writeln!(
                h,
                "<li><a href=\"{up}{0}\"><code>{0}</code></a> — Flent data file (<code>flent -i FILE -p ping_cdf -o out.svg</code>; docs/flent.md)</li>",
                esc(name)
            );
        }
        Err(why) => {
            let _ = writeln!(h, "<li class=err>Flent file not written: {}</li>", esc(why));
        }
    }
    packet_files(&mut h, s, &up);
    h.push_str("</ul>\n");
    if !s.packet_files.is_empty() {
        let _ = writeln!(h, "<p class=small>{}</p>", crate::html::PACKET_FILES_TEXT);
    }
    h.push_str("</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_holds_the_scenario_s_plots_and_links_back_and_to_its_files() {
        let input = netlab_analysis::testing::input(1);
        let s = &input.scenarios[0];
        let plots = netlab_figures::drawn::scenario_plots(s, input.bottleneck_bps).unwrap();
        let around = Neighbours {
            previous: None,
            next: Some(&input.scenarios[1]),
        };
        let h = page(
            &input,
            s,
            &plots,
            Ok("flent/s01-round1-pfifo.flent.gz"),
            around,
        );
        assert!(h.contains(&format!(
            "next: <a href=\"../../scenarios/s02/index.html\">scenario 2 ({})</a>",
            input.scenarios[1].label()
        )));
        assert!(!h.contains("previous:"));
        assert_eq!(h.matches("<svg").count(), 4, "its four plots inline");
        assert!(h.contains("<a href=\"../../index.html\">"));
        assert!(h.contains("<a href=\"../../flent/s01-round1-pfifo.flent.gz\">"));
        for p in &plots {
            assert!(h.contains(&format!(
                "<a href=\"../../{0}\"><code>{0}</code></a>",
                p.file
            )));
        }
        assert_eq!(h.matches("<tr>").count(), 2, "its own row of the table");
        for bad in ["<script", "src=", "<link", "@import", "url("] {
            assert!(!h.contains(bad), "the page has {bad:?}");
        }
        let none = page(
            &input,
            s,
            &plots,
            Err("flent export of scenario 1: no reply"),
            Neighbours::default(),
        );
        assert!(none.contains("Flent file not written: flent export of scenario 1: no reply"));
    }
}
