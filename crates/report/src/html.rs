//! `index.html`: one self-contained page (inline SVG and CSS, no script, no
//! network): what ran, the headline, the run's and the sweep's figures, the
//! scenarios table linking each scenario's own page
//! ([`crate::scenario_page`]), the comparison with its sentences and the
//! notes. No figure of a single scenario is on it, so its size grows by one
//! table row per scenario, not by four plots (docs/report.md, "Pages").

use std::fmt::Write as _;

use crate::markdown::esc;
use netlab_analysis::records::{ProbeOutcome, ProbePhase, Scenario};
use netlab_analysis::ReportInput;
use netlab_compare::compare::Statistics;
use netlab_compare::headline::Headline;
use netlab_figures::plots::Plot;
use netlab_stats::{censored_quantile, Observation};

pub(crate) const CSS: &str = "body{font-family:sans-serif;margin:0 auto;max-width:1240px;padding:0 16px 40px;color:#222;line-height:1.4}\
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;padding-bottom:2px;margin-top:1.8em}\
table{border-collapse:collapse;margin:8px 0;font-size:0.9em}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}\
th{background:#f2f2f2}td.l,th.l{text-align:left}.sentence{margin:4px 0;padding:4px 8px;background:#f6f8fc;border-left:4px solid #4a78c8}\
figure{margin:14px 0}figure svg{max-width:100%;height:auto;border:1px solid #ddd}figcaption{font-size:0.85em;color:#555}\
.top{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}.top #headline{flex:1 1 420px;margin-top:0}.top figure{flex:0 1 600px;margin:0}\
.figs{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:14px}.figs figure{margin:0}\
.err{color:#a00}.small{font-size:0.85em;color:#555}code{font-family:monospace,monospace;font-size:1em}\
#headline{background:#fbfbf3;border:1px solid #d8d3a8;padding:0 14px 6px;margin:10px 0}#headline h2{margin-top:0.6em}#headline li{margin:6px 0}\
.verdict{font-weight:bold;margin:8px 0}table.headline{font-size:0.85em;margin:6px 0 10px}table.headline caption{text-align:left;font-weight:bold;padding:4px 0}.armline{margin:4px 0}nav ul{columns:2;font-size:0.95em}details{margin:8px 0}summary{cursor:pointer;font-weight:bold;font-size:1.05em}";

/// The heading of summary.md's sections below its table on the page.
pub(crate) const DETAILS_TITLE: &str =
    "Probe fates, flows and the bottleneck (summary.md's sections)";

fn loaded_obs(s: &Scenario) -> Vec<Observation> {
    s.loaded_probes()
        .map(|p| match p.outcome {
            ProbeOutcome::Reply { rtt_ms } => Observation::Exact(rtt_ms),
            _ => Observation::AtLeast(s.probe_timeout_s * 1000.0),
        })
        .collect()
}

fn baseline_obs(s: &Scenario) -> Vec<Observation> {
    s.probes
        .iter()
        .filter(|p| p.phase == ProbePhase::Baseline)
        .filter_map(|p| match p.outcome {
            ProbeOutcome::Reply { rtt_ms } => Some(Observation::Exact(rtt_ms)),
            ProbeOutcome::Timeout => Some(Observation::AtLeast(s.probe_timeout_s * 1000.0)),
            ProbeOutcome::NoInformation => None,
        })
        .collect()
}

/// The headline block: one item per arm, the verdicts, the comparisons.
/// The headline (docs/report.md, "The headline"): a table first, one per
/// metric for a sweep; at most one short sentence per arm; the verdicts.
/// Every arm's full sentences follow the first screen
/// ([`in_full_block`]).
fn headline_block(h: &mut String, input: &ReportInput, hl: &Headline) {
    use netlab_compare::headline_table::{HeadlineTable, Metric, SweepTables};
    h.push_str("<section id=headline><h2>Headline</h2>\n");
    let note = format!(
        "<p class=small>{}</p>\n",
        esc(crate::summary::HEADLINE_TABLE_NOTE)
    );
    if hl.points.is_empty() {
        let t = HeadlineTable::of(input, hl);
        h.push_str("<table class=headline><tr><th class=l>arm</th>");
        for m in Metric::ALL {
            let _ = write!(h, "<th>{}</th>", esc(&m.heading(&t.delay)));
        }
        h.push_str("</tr>\n");
        for r in &t.rows {
            let flag = if r.flags.is_empty() { "" } else { " ⚠" };
            let _ = write!(h, "<tr><th class=l>{}{flag}</th>", esc(&r.arm));
            for c in &r.cells {
                let _ = write!(h, "<td>{}</td>", esc(c));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
        h.push_str(&note);
        for line in t.sentences(hl) {
            let _ = writeln!(h, "<p class=armline>{}</p>", esc(&line));
        }
        for v in &hl.verdicts {
            let _ = writeln!(h, "<p class=verdict>Verdict: {}.</p>", esc(v));
        }
        h.push_str(
            "<p class=small>Each arm in full: <a href=\"#in-full\">below the figure</a>.</p>\n",
        );
    } else {
        let t = SweepTables::of(input, hl);
        for (m, rows) in &t.tables {
            let _ = write!(
                h,
                "<table class=headline><caption>{}</caption><tr><th class=l>arm</th>",
                esc(&m.heading(&t.delay))
            );
            for p in &t.points {
                let _ = write!(h, "<th>{}</th>", esc(p));
            }
            h.push_str("</tr>\n");
            for (arm, cells) in rows {
                let _ = write!(h, "<tr><th class=l>{}</th>", esc(arm));
                for c in cells {
                    let _ = write!(h, "<td>{}</td>", esc(c));
                }
                h.push_str("</tr>\n");
            }
            h.push_str("</table>\n");
        }
        h.push_str(&note);
        for f in &t.flags {
            let _ = writeln!(h, "<p class=armline>⚠ {}.</p>", esc(f));
        }
        h.push_str("<p class=small>What changes along each axis, the models and each point's own headline: <a href=\"#points\">below the sweep figures</a>.</p>\n");
    }
    h.push_str("</section>\n");
}

/// Every arm's full sentences, unchanged (a run's; a sweep's are with
/// each point's headline, [`points_block`]).
fn in_full_block(h: &mut String, hl: &Headline) {
    if !hl.points.is_empty() {
        return;
    }
    h.push_str("<section id=in-full><h2>Each arm in full</h2>\n");
    arms_block(h, hl);
    h.push_str("</section>\n");
}

/// A sweep's sentences along each axis and its models.
fn along_block(h: &mut String, hl: &Headline) {
    {
        h.push_str("<p class=small>Along each swept axis, each point's own rounds: every round and their mean below 3 rounds, the median and range from 3 on (rounds are never pooled across points; sweep.csv has every round).</p><ul>\n");
        for a in &hl.along {
            let _ = writeln!(h, "<li>{}</li>", esc(a));
        }
        h.push_str("</ul>\n");
        if !hl.models.is_empty() {
            h.push_str("<p class=small>The models beside the measurement (docs/models.md; the dashed lines of the sweep figures):</p><ul>\n");
            for m in &hl.models {
                let _ = writeln!(h, "<li>{}</li>", esc(m));
            }
            h.push_str("</ul>\n");
        }
    }
}

/// A sweep's per-point headlines (after its figures): each point's arms,
/// states and verdicts over its own rounds.
fn points_block(h: &mut String, hl: &Headline) {
    if hl.points.is_empty() {
        return;
    }
    h.push_str("<section id=points><h2>Each point's headline</h2>\n");
    along_block(h, hl);
    for p in &hl.points {
        let _ = writeln!(
            h,
            "<h3 id=\"point{}\">Point {}: {}</h3>",
            p.index,
            p.index,
            esc(&p.label)
        );
        arms_block(h, &p.headline);
    }
    h.push_str("</section>\n");
}

/// One point's (or a run's) arms, verdicts and comparisons.
fn arms_block(h: &mut String, hl: &Headline) {
    if let Some(n) = hl.delay_note() {
        let _ = writeln!(h, "<p class=small>{}</p>", esc(&n));
    }
    h.push_str("<ul>\n");
    for a in &hl.arms {
        let sw = a
            .stop_and_wait_text()
            .map(|t| format!("<br><span class=small>{}.</span>", esc(&t)))
            .unwrap_or_default();
        let _ = writeln!(
            h,
            "<li class=arm><b>{}</b> ({} round{}): {}; {}.{sw}<br><span class=small>State per round (sender tcp_info):</span> {}</li>",
            esc(&a.arm),
            a.rounds,
            if a.rounds == 1 { "" } else { "s" },
            esc(&a.probe_text()),
            esc(&a.load_text()),
            esc(&a.states.text())
        );
    }
    h.push_str("</ul>\n");
    method_rtt_table(h, hl);
    for v in &hl.verdicts {
        let _ = writeln!(h, "<p class=verdict>Verdict: {}.</p>", esc(v));
    }
    for r in &hl.readings {
        let _ = writeln!(
            h,
            "<p class=sentence>{}.</p>",
            esc(&Headline::reading_text(r))
        );
    }
    for c in &hl.comparisons {
        let _ = writeln!(h, "<p class=sentence>{}</p>", esc(c));
    }
}

/// The method's RTT view (method §9) as its own table, when the arms'
/// lines say delay and loss apart ([`Headline::method_rtt_table`], the
/// table summary.md prints).
fn method_rtt_table(h: &mut String, hl: &Headline) {
    if let Some(t) = hl.method_rtt_table() {
        table(h, &t);
    }
}

/// A table summary.md prints too ([`netlab_analysis::Table`]), as HTML: the
/// same cells, so the two files never carry different numbers.
pub(crate) fn table(h: &mut String, t: &netlab_analysis::Table) {
    let _ = writeln!(h, "<p class=small>{}</p>\n<table><tr>", esc(&t.intro));
    for c in &t.header {
        let _ = write!(h, "<th class=l>{}</th>", esc(c));
    }
    h.push_str("</tr>\n");
    for r in &t.rows {
        h.push_str("<tr>");
        for c in r {
            let _ = write!(h, "<td class=l>{}</td>", esc(c));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    if !t.note.is_empty() {
        let _ = writeln!(h, "<p class=small>{}</p>", esc(&t.note));
    }
}

/// A sweep figure ([`netlab_figures::plot_sweep`]).
fn is_sweep(p: &&Plot) -> bool {
    p.file.starts_with(netlab_figures::layout::SWEEP_DIR)
        && p.file[netlab_figures::layout::SWEEP_DIR.len()..].starts_with('/')
}

/// A sweep's figures, right after the headline, with the data behind them.
fn sweep_block(h: &mut String, plots: &[Plot], input: &ReportInput) {
    let constant = netlab_compare::sweep::SweepTable::of(input)
        .map(|t| netlab_figures::plot_sweep::constant_lines(&t))
        .unwrap_or_default();
    if !plots.iter().any(|p| is_sweep(&p)) && constant.is_empty() {
        return;
    }
    h.push_str("<h2 id=sweep>Sweep figures</h2>\n<p class=small>Each headline metric against each swept axis, in the axis' own unit (log where its values span 10× or more). \
        One line per arm through each point's rounds: their mean below 3 rounds (each round a dot beside it), their median from 3 on (rounds are pooled within a point, never across points); every round a dot, its shape the round's state; \
        the grey bar the spread over rounds; a censored value a “≥” at its bound, never a value. \
        The numbers behind them: <a href=\"sweep.csv\"><code>sweep.csv</code></a> and <a href=\"sweep.json\"><code>sweep.json</code></a> (columns and censoring: docs/report.md).</p>\n<div class=figs>\n");
    for p in plots.iter().filter(is_sweep) {
        figure(h, p);
    }
    h.push_str("</div>\n");
    for line in constant {
        let _ = writeln!(h, "<p class=small>{}</p>", esc(&line));
    }
}

/// The run's figures beside the headline's (`point` None), or a sweep
/// point's: a run's inline; a point's headline figure inline and its
/// other figures linked, so index.html stays light however many points
/// and arms a sweep has (docs/report.md, "The results folder").
fn run_plots(h: &mut String, plots: &[Plot], point: Option<u32>) {
    let own: Vec<&Plot> = plots
        .iter()
        .filter(|p| {
            p.scenario.is_none()
                && p.point == point
                && p.file != netlab_figures::plot_headline::FILE
                && !is_sweep(p)
        })
        .collect();
    let inline =
        |p: &Plot| point.is_none() || p.file.ends_with(netlab_figures::plot_headline::FILE);
    h.push_str("<div class=figs>\n");
    for p in own.iter().filter(|p| inline(p)) {
        figure(h, p);
    }
    h.push_str("</div>\n");
    if own.iter().any(|p| !inline(p)) {
        h.push_str("<p class=small>This point's other figures, each a file of its own:</p><ul>\n");
        plot_files(h, own.iter().copied().filter(|p| !inline(p)), "");
        h.push_str("</ul>\n");
    }
}

/// Whether a note applies to this run: notes about an arm kind the run
/// did not have, or limits its arms did not have, are left out (the rule
/// of [`crate::summary::note_fits_arms`]).
fn applies(note: &str, input: &ReportInput) -> bool {
    crate::summary::note_fits_arms(note, input.scenarios.iter().map(|s| s.arm_words.as_str()))
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "–".into(), |x| x.to_string())
}

fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

fn scenario_table(h: &mut String, input: &ReportInput) {
    let sweep = input.is_sweep();
    scenario_table_head(h, sweep);
    for s in &input.scenarios {
        scenario_row(
            h,
            s,
            sweep,
            Some(&netlab_figures::layout::scenario_page(s.index)),
        );
    }
    h.push_str("</table>\n");
}

/// The scenarios table's opening and header row (a point column in a sweep).
pub(crate) fn scenario_table_head(h: &mut String, sweep: bool) {
    h.push_str("<table><tr><th>#</th>");
    if sweep {
        h.push_str("<th class=l>point</th>");
    }
    h.push_str("<th>round</th><th class=l>arm</th><th>goodput Mbit/s</th><th>baseline RTT p50 (KM)</th><th>loaded probes / timeouts</th><th>loaded RTT p50 (KM)</th><th>loaded RTT p95 (KM)</th><th>drops arm (tbf), whole run</th><th>ECN marks</th><th>CE/ECE/CWR seen</th></tr>\n");
}

/// One scenario's row; its number links to `page` when given (its own
/// page, from index.html).
pub(crate) fn scenario_row(h: &mut String, s: &Scenario, sweep: bool, page: Option<&str>) {
    let number = match page {
        Some(p) => format!("<a href=\"{}\">{}</a>", esc(p), s.index),
        None => s.index.to_string(),
    };
    let point = if sweep {
        format!("<td class=l>{}</td>", esc(&s.point.label))
    } else {
        String::new()
    };
    if let Some(err) = &s.error {
        let _ = writeln!(
            h,
            "<tr><td>{number}</td>{point}<td>{}</td><td class=l>{}</td><td class='l err' colspan=8>failed: {}</td></tr>",
            s.round,
            esc(&s.arm),
            esc(err)
        );
        return;
    }
    let g = s
        .window_goodput()
        .map_or_else(|| "–".to_string(), |g| format!("{g:.3}"));
    let obs = loaded_obs(s);
    let to = obs
        .iter()
        .filter(|o| matches!(o, Observation::AtLeast(_)))
        .count();
    let q = |p| censored_quantile(&obs, p).text("ms");
    let base = censored_quantile(&baseline_obs(s), 0.5).text("ms");
    let fc = &s.final_counters;
    let drops = format!("{} ({})", opt(fc.arm_drops), opt(fc.tbf_drops));
    let wire = fc
        .wire_ce_ece_cwr
        .map_or("–".into(), |(a, b, c)| format!("{a}/{b}/{c}"));
    let _ = writeln!(
        h,
        "<tr><td>{number}</td>{point}<td>{}</td><td class=l>{}</td><td>{g}</td><td>{}</td><td>{}/{to}</td><td>{}</td><td>{}</td><td>{drops}</td><td>{}</td><td>{wire}</td></tr>",
        s.round,
        esc(&s.arm),
        esc(&base),
        obs.len(),
        esc(&q(0.5)),
        esc(&q(0.95)),
        opt(fc.ecn_marks),
    );
}

fn comparison_block(h: &mut String, st: &Statistics) {
    if st.arms.len() < 2 {
        h.push_str("<p class=small>One arm: no difference between arms to compute. Each figure per round and pooled over rounds, with its sample and timeout counts; a quantile on the censored mass is a bound (≥).</p>\n");
    } else {
        comparison_intro(h);
    }
    comparison_rest(h, st);
}

fn comparison_intro(h: &mut String) {
    let _ = writeln!(
        h,
        "<p class=small>{}</p>",
        esc(&netlab_compare::compare::Statistics::method_text())
    );
}

fn comparison_rest(h: &mut String, st: &Statistics) {
    for c in &st.comparisons {
        let _ = writeln!(h, "<p class=sentence>{}</p>", esc(&c.sentence));
    }
    if !st.failed_scenarios.is_empty() {
        let _ = writeln!(
            h,
            "<p class=err>Left out of the statistics (failed): scenarios {:?}</p>",
            st.failed_scenarios
        );
    }
    table(h, &st.figures_table());
}

/// A figure inline, its id its file's own name
/// ([`netlab_figures::layout::base_name`]), its caption its title and path.
pub(crate) fn figure(h: &mut String, p: &Plot) {
    let _ = writeln!(
        h,
        "<figure id=\"{}\">{}<figcaption>{} — <code>{}</code></figcaption></figure>",
        esc(netlab_figures::layout::base_name(&p.file)),
        inline_svg(&p.svg),
        esc(&p.title),
        esc(&p.file)
    );
}

/// What the packet files are (method §7.7), before their list.
pub(crate) const PACKET_FILES_TEXT: &str = "Packet files (pcapng): Open them in Wireshark, tshark or tcpdump. \
    <em>evidence</em>: the frames kept in results.json (handshake, first CE, ECE and CWR; 128 bytes each, a comment says why each was kept); \
    <em>headers</em>: every frame B's capture read, cut to the snap length (no payload beyond it), with the capture socket's kernel drops in the statistics block (docs/method.md §7.7).";

/// Plot files, linked from a page `up` folders below the results folder
/// (`""` from index.html, `../../` from a scenario's page), one `<li>`
/// each: the file's path and the plot's title.
pub(crate) fn plot_files<'a>(h: &mut String, plots: impl IntoIterator<Item = &'a Plot>, up: &str) {
    for p in plots {
        let _ = writeln!(
            h,
            "<li><a href=\"{up}{0}\"><code>{0}</code></a> — {1}</li>",
            esc(&p.file),
            esc(&p.title)
        );
    }
}

/// One scenario's packet files, linked from a page `up` folders below the
/// results folder (`../` from its own page), one `<li>` each.
pub(crate) fn packet_files(h: &mut String, s: &Scenario, up: &str) {
    for f in &s.packet_files {
        if f.present {
            let _ = write!(
                h,
                "<li><a href=\"{up}{}\">{}</a> — {}, {} frames",
                esc(&f.file),
                esc(&f.file),
                esc(&f.content),
                f.frames
            );
        } else {
            // Links only to files that exist.
            let _ = write!(
                h,
                "<li><code>{}</code> (results.json records it; not in this folder) — {}, {} frames",
                esc(&f.file),
                esc(&f.content),
                f.frames
            );
        }
        match &f.partial {
            Some(why) => {
                let _ = writeln!(h, " <span class=err>partial: {}</span></li>", esc(why));
            }
            None => h.push_str("</li>\n"),
        }
    }
}

/// The title of the run's cost section.
const COST_TITLE: &str = "What the run cost beside its timelines";

/// The run's wall time against its timelines, and the scenarios' steps
/// beside them added up (docs/method.md §3.5).
fn cost_block(h: &mut String, steps: &netlab_results::StepSums) {
    let _ = writeln!(h, "<h2 id=cost>{COST_TITLE}</h2>");
    let _ = writeln!(
        h,
        "<p>Wall time {:.1} s for {:.1} s of planned scenario timelines: {:.3}× (results.json's <code>wall_s</code>, \
         from the run's start to its last teardown, without a guest kernel's boot or this report).</p>",
        steps.wall_s,
        steps.timelines_s,
        steps.ratio()
    );
    if steps.counted == 0 {
        h.push_str("<p class=small>Its scenarios record no steps (results.json written before schema_version 4).</p>\n");
        return;
    }
    let per = |s: f64| s * 1e3 / steps.counted as f64;
    h.push_str("<table><tr><th class=l>step (method §3.5)</th><th>s, all scenarios</th><th>ms per scenario</th></tr>\n");
    for (name, s) in steps.scenarios.named() {
        let _ = writeln!(
            h,
            "<tr><td class=l>{name}</td><td>{s:.3}</td><td>{:.1}</td></tr>",
            per(s)
        );
    }
    if let Some(run) = steps.run {
        let _ = writeln!(
            h,
            "<tr><td class=l>between scenarios</td><td>{:.3}</td><td>{:.1}</td></tr>\n\
             <tr><td class=l>of it, writing files</td><td>{:.3}</td><td>{:.1}</td></tr>",
            run.between_s,
            per(run.between_s),
            run.write_s,
            per(run.write_s)
        );
    }
    h.push_str("</table>\n");
    let _ = writeln!(
        h,
        "<p class=small>{} scenario{} spent {:.3} s beside {:.3} s of timelines walked (each <code>timeline</code> step runs from t0 until the walk reached the timeline's end).</p>",
        steps.counted,
        if steps.counted == 1 { "" } else { "s" },
        steps.scenarios.beyond_timeline_s(),
        steps.scenarios.timeline_s
    );
}

/// The table of contents: the sections this page has, in order.
fn toc_block(h: &mut String, hl: &Headline, plots: &[Plot], figures_title: &str) {
    h.push_str("<nav id=toc><h2>Contents</h2><ul>");
    let mut toc = vec![("headline".to_string(), "Headline".to_string())];
    if hl.points.is_empty() {
        toc.push(("in-full".into(), "Each arm in full".into()));
    }
    if plots.iter().any(|p| is_sweep(&p)) {
        toc.push(("sweep".into(), "Sweep figures".into()));
    }
    if !hl.points.is_empty() {
        toc.push(("points".into(), "Each point's headline".into()));
    }
    toc.extend([
        ("run-plots".into(), "Plots of the whole run".into()),
        ("scenarios".into(), "Scenarios".into()),
        ("details".into(), DETAILS_TITLE.into()),
        ("figures".into(), figures_title.to_string()),
        ("notes".into(), "Notes".into()),
        ("files".into(), "Files".into()),
        ("cost".into(), COST_TITLE.into()),
        ("configuration".into(), "Configuration".into()),
    ]);
    for (id, title) in &toc {
        let _ = write!(h, "<li><a href=\"#{id}\">{}</a></li>", esc(title));
    }
    h.push_str("</ul></nav>\n");
}

/// The notes: the run's (those that apply, said for its probes' fates
/// and timeout) and each scenario's, as summary.md lists them.
fn notes_block(h: &mut String, input: &ReportInput, scenario_notes: &[String]) {
    h.push_str("<h2 id=notes>Notes</h2><ul>\n");
    let fates = crate::summary::every_round_has_fates(&input.figures);
    let timeout_ms = input
        .scenarios
        .iter()
        .find(|s| !s.probes.is_empty())
        .map(|s| s.probe_timeout_s * 1e3);
    for n in input
        .notes
        .iter()
        .filter(|n| applies(n, input))
        .map(|n| crate::summary::note_for_fates(n, fates))
        .filter_map(|n| crate::summary::note_for_probe(&n, timeout_ms))
    {
        let _ = writeln!(h, "<li>{}</li>", crate::markdown::inline(&n));
    }
    for n in scenario_notes {
        let _ = writeln!(h, "<li>{}</li>", crate::markdown::inline(n));
    }
    h.push_str("</ul>\n");
}

/// The files of the folder: results.json, summary.md, the flat tables,
/// the scenario pages, the Flent files (`flent`: written, and why any was
/// not), the packet files and the run's plots.
fn files_block(h: &mut String, input: &ReportInput, plots: &[Plot], flent: (usize, &[String])) {
    let (flent_written, flent_skipped) = flent;
    h.push_str("<h2 id=files>Files</h2>\n<ul><li><a href=\"results.json\">results.json</a> (every raw sample)</li>\
        <li><a href=\"summary.md\">summary.md</a></li>");
    h.push_str("<li><a href=\"probes.csv\">probes.csv</a> (one row per probe request, both probes, with its fate) and <a href=\"flows.csv\">flows.csv</a> (one row per flow), for pandas and R (columns: docs/usage.md, \"Flat tables\")</li>\n");
    let _ = writeln!(
        h,
        "<li>{} page{} of a scenario each, <code>scenarios/sNN/index.html</code> beside its four plots, linked from the scenarios table</li>",
        input.scenarios.len(),
        if input.scenarios.len() == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        h,
        "<li>{flent_written} Flent data file{}, one per scenario (<code>flent/sNN-roundR-ARM.flent.gz</code>, linked from its page), for Flent's own plots \
         (<code>flent -i FILE -p ping_cdf -o out.svg</code>; the probe is UDP echo, never ICMP; docs/flent.md)</li>",
        if flent_written == 1 { "" } else { "s" }
    );
    for f in flent_skipped {
        let _ = writeln!(h, "<li class=err>not written: {}</li>", esc(f));
    }
    let pcaps: usize = input.scenarios.iter().map(|s| s.packet_files.len()).sum();
    if pcaps > 0 {
        let _ = writeln!(
            h,
            "<li>{pcaps} packet file{} (pcapng) under <code>pcap/</code>, linked from its scenario's page. {PACKET_FILES_TEXT}</li>",
            if pcaps == 1 { "" } else { "s" }
        );
    }
    h.push_str("</ul>\n<p class=small>Plots of the run (each scenario's own four, <code>scenarios/sNN/sNN-*.svg</code>, are on its page):</p><ul>\n");
    plot_files(h, plots, "");
    h.push_str("</ul>\n");
}

/// The run's plots, under one heading per sweep point when `points` (its
/// index and label) are given.
fn run_plots_by_point(h: &mut String, plots: &[Plot], points: &[(u32, String)]) {
    if points.is_empty() {
        run_plots(h, plots, None);
        return;
    }
    h.push_str(
        "<p class=small>Per point: each point's figures pool the rounds of that point alone.</p>\n",
    );
    for (i, label) in points {
        let _ = writeln!(h, "<h3>{}</h3>", esc(&format!("Point {i}: {label}")));
        run_plots(h, plots, Some(*i));
    }
}

/// The whole page.
pub(crate) fn page(
    input: &ReportInput,
    st: &Statistics,
    hl: &Headline,
    plots: &[Plot],
    flent_written: usize,
    flent_skipped: &[String],
) -> String {
    let mut h = String::new();
    let _ = writeln!(
        h,
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>netlab report {}</title>\
         <meta name=viewport content=\"width=device-width, initial-scale=1\"><style>{CSS}</style></head><body>",
        esc(&input.run_id)
    );
    let _ = writeln!(h, "<h1>netlab report — run {}</h1>", esc(&input.run_id));
    let arms = st.arms.len();
    let _ = writeln!(
        h,
        "<p>{} ran {} scenario{} ({} arm{}) from {} to {}. Kernel: {}. \
         Every figure below is recomputed from the raw samples in results.json (schema_version {}).</p>",
        esc(&input.tool),
        input.scenarios.len(),
        if input.scenarios.len() == 1 { "" } else { "s" },
        arms,
        if arms == 1 { "" } else { "s" },
        esc(&input.started_utc),
        esc(&input.finished_utc),
        esc(&crate::summary::kernel_line(
            &input.kernel.described,
            &input.kernel.chosen_because
        )),
        input.schema_version
    );
    // The answer first: the headline and its figure side by side, on the
    // first screen.
    h.push_str("<div class=top>\n");
    headline_block(&mut h, input, hl);
    for p in plots
        .iter()
        .filter(|p| p.file == netlab_figures::plot_headline::FILE)
    {
        figure(&mut h, p);
    }
    h.push_str("</div>\n");
    in_full_block(&mut h, hl);
    sweep_block(&mut h, plots, input);
    points_block(&mut h, hl);
    let figures_title = if arms > 1 {
        "Comparison between arms"
    } else {
        "Figures per round"
    };
    toc_block(&mut h, hl, plots, figures_title);
    h.push_str("<h2 id=run-plots>Plots of the whole run</h2>\n");
    let points = if input.is_sweep() {
        input.point_labels()
    } else {
        Vec::new()
    };
    run_plots_by_point(&mut h, plots, &points);
    h.push_str("<h2 id=scenarios>Scenarios</h2>\n<p class=small>Goodput: each direction's flows' bytes delivered inside the measured window over the window (method §4.3), the goodput summary.md and every other output give. \
        Probe: UDP echo; a timeout is censored at the timeout (“≥”), never counted as loss; quantiles are Kaplan–Meier over every request of the phase (the headline figures everywhere in this report and in summary.md). \
        Each scenario's number links to its own page (<code>scenarios/sNN/index.html</code>): its four plots (probe RTT, goodput, tcp_info, qdisc), its Flent file and its packet files.</p>\n");
    scenario_table(&mut h, input);
    // summary.md's sections below its table, word for word.
    let _ = writeln!(h, "<h2 id=details>{DETAILS_TITLE}</h2>");
    let parts = crate::summary::parts(&input.figures);
    for section in &parts.sections {
        h.push_str(&crate::markdown::to_html(section));
    }
    let _ = writeln!(h, "<h2 id=figures>{figures_title}</h2>");
    for c in &input.caveats {
        let _ = writeln!(h, "<p class=err><strong>Caveat:</strong> {}</p>", esc(c));
    }
    if !points.is_empty() {
        for p in input.points() {
            let _ = writeln!(h, "<h3>Point {}: {}</h3>", p.index, esc(&p.label));
            comparison_block(&mut h, &netlab_compare::compare::analyse(&p.input));
        }
    } else {
        comparison_block(&mut h, st);
    }
    notes_block(&mut h, input, &parts.scenario_notes);
    files_block(&mut h, input, plots, (flent_written, flent_skipped));
    cost_block(&mut h, &input.steps);
    h.push_str("<h2 id=configuration>Configuration</h2><table>");
    for (k, v) in &input.config {
        let _ = write!(
            h,
            "<tr><th class=l>{}</th><td class=l>{}</td></tr>",
            esc(k),
            esc(v)
        );
    }
    h.push_str("</table>\n");
    h.push_str("</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_files_are_linked_from_the_scenario_page_and_a_partial_one_says_why() {
        let mut input = netlab_analysis::testing::input(1);
        let mut h = String::new();
        packet_files(&mut h, &input.scenarios[1], "../");
        assert!(h.is_empty(), "no list without packet files");
        input.scenarios[1].packet_files = vec![
            netlab_analysis::records::PacketFile {
                file: "pcap/s02-round1-fq_codel.evidence.pcapng".into(),
                content: "evidence".into(),
                frames: 5,
                partial: None,
                present: true,
            },
            netlab_analysis::records::PacketFile {
                file: "pcap/s02-round1-fq_codel.headers.pcapng".into(),
                content: "headers".into(),
                frames: 447,
                partial: Some("it reached its byte cap (4096 B)".into()),
                present: true,
            },
        ];
        packet_files(&mut h, &input.scenarios[1], "../");
        assert_eq!(
            h,
            "<li><a href=\"../pcap/s02-round1-fq_codel.evidence.pcapng\">\
             pcap/s02-round1-fq_codel.evidence.pcapng</a> — evidence, 5 frames</li>\n\
             <li><a href=\"../pcap/s02-round1-fq_codel.headers.pcapng\">\
             pcap/s02-round1-fq_codel.headers.pcapng</a> — headers, 447 frames \
             <span class=err>partial: it reached its byte cap (4096 B)</span></li>\n"
        );
        // A file the folder lacks is named, never linked.
        input.scenarios[1].packet_files[1].present = false;
        let mut h = String::new();
        packet_files(&mut h, &input.scenarios[1], "../");
        assert_eq!(
            h,
            "<li><a href=\"../pcap/s02-round1-fq_codel.evidence.pcapng\">\
             pcap/s02-round1-fq_codel.evidence.pcapng</a> — evidence, 5 frames</li>\n\
             <li><code>pcap/s02-round1-fq_codel.headers.pcapng</code> \
             (results.json records it; not in this folder) — headers, 447 frames \
             <span class=err>partial: it reached its byte cap (4096 B)</span></li>\n"
        );
    }

    #[test]
    fn the_scenarios_table_links_each_scenario_s_page() {
        let input = netlab_analysis::testing::input(1);
        let mut h = String::new();
        scenario_table(&mut h, &input);
        for s in &input.scenarios {
            let link = format!(
                "<td><a href=\"scenarios/s{:02}/index.html\">{}</a></td>",
                s.index, s.index
            );
            assert!(h.contains(&link), "no {link} in {h}");
        }
        assert_eq!(h.matches("<tr>").count(), input.scenarios.len() + 1);
    }

    #[test]
    fn the_cost_section_states_the_steps_sums_per_scenario_and_the_ratio() {
        use netlab_results::{RunSteps, ScenarioSteps, StepSums};
        let one = ScenarioSteps {
            setup_s: 0.1,
            start_s: 0.05,
            timeline_s: 12.0,
            end_s: 0.02,
            collect_s: 0.01,
            teardown_s: 0.004,
        };
        let steps = StepSums {
            timelines_s: 24.0,
            wall_s: 24.5,
            scenarios: ScenarioSteps::sum([&one, &one]),
            counted: 2,
            run: Some(RunSteps {
                between_s: 0.132,
                write_s: 0.1,
            }),
        };
        let mut h = String::new();
        cost_block(&mut h, &steps);
        assert!(
            h.contains("Wall time 24.5 s for 24.0 s of planned scenario timelines: 1.021×"),
            "{h}"
        );
        assert!(
            h.contains("<td class=l>setup</td><td>0.200</td><td>100.0</td>"),
            "{h}"
        );
        assert!(
            h.contains("<td class=l>timeline</td><td>24.000</td><td>12000.0</td>"),
            "{h}"
        );
        assert!(
            h.contains("<td class=l>teardown</td><td>0.008</td><td>4.0</td>"),
            "{h}"
        );
        assert!(
            h.contains("<td class=l>between scenarios</td><td>0.132</td><td>66.0</td>"),
            "{h}"
        );
        assert!(
            h.contains("2 scenarios spent 0.368 s beside 24.000 s"),
            "{h}"
        );
        // A file without steps says so instead of a table of zeros.
        let mut h = String::new();
        cost_block(
            &mut h,
            &StepSums {
                counted: 0,
                ..steps
            },
        );
        assert!(
            h.contains("record no steps") && !h.contains("<table>"),
            "{h}"
        );
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(esc("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }
}
