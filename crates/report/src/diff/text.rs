//! A diff in words: the headline, diff.md, diff.html and the figure
//! files beside them.

use super::{PairDiff, RunDiff};

impl RunDiff {
    /// The headline: one line per claimed change, or that none was found.
    pub fn headline(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.same_run {
            out.push(format!(
                "A and B are one run ({}): what follows compares its arms with each other (--pair), not two runs",
                self.runs[0]
            ));
        }
        match self.same_experiment {
            Some(true) => out.push("the same experiment (content hash)".into()),
            Some(false) => out.push("different experiments (content hash)".into()),
            None => {}
        }
        if !self.setup_differs.is_empty() {
            out.push(format!(
                "setup differs in {}: {}",
                self.setup_differs.len(),
                self.setup_differs
                    .iter()
                    .map(|s| s.key.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let mut any = false;
        for p in &self.pairs {
            for m in p.metrics.iter().filter(|m| m.change.is_some()) {
                any = true;
                out.push(format!("{}: {}", pair_title(p), m.sentence));
            }
        }
        if !any {
            out.push("no detectable change in any metric of any arm both runs have".into());
        }
        out
    }

    /// diff.md: [`RunDiff::body`] and a list linking every figure.
    pub fn markdown(&self) -> String {
        use std::fmt::Write as _;
        let mut s = self.body();
        s.push_str("\n## Figures\n\n");
        for (file, title) in self.figure_files() {
            let _ = writeln!(s, "- [{title}]({file})");
        }
        s
    }

    /// The headline, the setup and what moved, as Markdown (diff.md
    /// without its list of figures).
    pub fn body(&self) -> String {
        use std::fmt::Write as _;
        let mut s = format!(
            "# netlab diff\n\nA: `{}` ({})\n\nB: `{}` ({})\n\n## Headline\n\n",
            self.a, self.runs[0], self.b, self.runs[1]
        );
        for l in self.headline() {
            let _ = writeln!(s, "- {l}");
        }
        s.push_str("\n## Setup\n\n");
        if self.setup_differs.is_empty() {
            let _ = writeln!(s, "All {} setup items are the same.\n", self.setup_same);
        } else {
            let _ = writeln!(
                s,
                "{} setup items are the same; these differ:\n\n| item | A | B | can explain |\n|---|---|---|---|",
                self.setup_same
            );
            for d in &self.setup_differs {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} |",
                    d.key,
                    cell(&d.a),
                    cell(&d.b),
                    d.explains.as_deref().unwrap_or("–")
                );
            }
            s.push('\n');
        }
        s.push_str("## What moved\n\nEach metric over the rounds of A against those of B (method §12.3: Hodges–Lehmann shift B − A, exact interval over rounds; a change is claimed only where the interval excludes 0).\n");
        for p in &self.pairs {
            let _ = writeln!(
                s,
                "\n### {}\n\nRounds: A {}, B {}. States: A — {}; B — {}.\n\n| metric | A rounds | B rounds | shift B − A | interval |\n|---|---|---|---|---|",
                pair_title(p),
                p.rounds.0,
                p.rounds.1,
                p.states.0,
                p.states.1
            );
            for m in &p.metrics {
                let _ = writeln!(
                    s,
                    "| {} ({}) | {} | {} | {} | [{}, {}] at {:.0} % |",
                    m.metric,
                    if m.unit.is_empty() { "–" } else { &m.unit },
                    m.text.a_rounds.join(" / "),
                    m.text.b_rounds.join(" / "),
                    m.text.shift,
                    m.text.interval.0,
                    m.text.interval.1,
                    m.level * 100.0
                );
            }
            s.push('\n');
            for m in &p.metrics {
                let _ = writeln!(s, "- {}", m.sentence);
            }
        }
        if !self.only_a.is_empty() || !self.only_b.is_empty() {
            s.push_str("\n## Only in one run\n\n");
            for x in &self.only_a {
                let _ = writeln!(s, "- only in A: {x}");
            }
            for x in &self.only_b {
                let _ = writeln!(s, "- only in B: {x}");
            }
        }
        s
    }

    /// Every figure's file name and what it shows, without drawing it:
    /// per pair its delay CDF (`diff-NN-cdf.svg`) and its goodput per
    /// round (`diff-NN-goodput.svg`), then with a sweep each metric
    /// against each axis (`diff-sweep-METRIC-vs-AXIS.svg`).
    pub fn figure_files(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (k, p) in self.pairs.iter().enumerate() {
            out.push((
                crate::diff::plot::file_name(k + 1),
                format!(
                    "{}: loaded probe delay (CDF), run A solid, run B dashed",
                    pair_title(p)
                ),
            ));
            if p.goodput.iter().any(|g| !g.is_empty()) {
                out.push((
                    crate::diff::plot::goodput_file_name(k + 1),
                    format!(
                        "{}: goodput per round, run A solid, run B dashed",
                        pair_title(p)
                    ),
                ));
            }
        }
        if let Some(sw) = &self.sweep {
            out.extend(sw.files());
        }
        out
    }

    /// Every figure ([`RunDiff::figure_files`]' order): its file name and
    /// SVG text.
    pub fn figures(&self) -> Result<Vec<(String, String)>, crate::ReportError> {
        let mut out = Vec::new();
        for (k, p) in self.pairs.iter().enumerate() {
            out.push(crate::diff::plot::figure(k + 1, p)?);
            out.extend(crate::diff::plot::goodput_figure(k + 1, p)?);
        }
        if let Some(sw) = &self.sweep {
            out.extend(sw.figures()?);
        }
        Ok(out)
    }

    /// Writes diff.md, diff.html, diff.json and every figure into `out`
    /// (created), each file replaced atomically.
    pub fn write_to(&self, out: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(out)?;
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let other = |e: crate::ReportError| std::io::Error::other(e.to_string());
        let mut files = vec![
            ("diff.md".to_string(), self.markdown()),
            ("diff.html".to_string(), self.html().map_err(other)?),
            ("diff.json".to_string(), json),
        ];
        files.extend(self.figures().map_err(other)?);
        for (name, text) in files {
            netlab_os::atomic::write(&out.join(name), text.as_bytes())
                .map_err(|e| std::io::Error::other(e.to_string()))?;
        }
        Ok(())
    }

    /// diff.html: diff.md as one self-contained page, every figure
    /// inline and linked to its SVG file.
    pub fn html(&self) -> Result<String, crate::ReportError> {
        use crate::markdown::esc;
        let titles = self.figure_files();
        let mut list = String::from("<ul>\n");
        for (file, title) in &titles {
            list.push_str(&format!(
                "<li><a href=\"{}\">{}</a></li>\n",
                esc(file),
                esc(title)
            ));
        }
        list.push_str("</ul>\n");
        let mut figs = String::new();
        for (name, svg) in self.figures()? {
            let svg = svg.find("<svg").map_or(svg.as_str(), |i| &svg[i..]);
            let title = titles
                .iter()
                .find(|(f, _)| *f == name)
                .map_or(name.as_str(), |(_, t)| t.as_str());
            figs.push_str(&format!(
                "<figure id=\"{n}\">{svg}<figcaption><a href=\"{n}\">{n}</a>: {}</figcaption></figure>\n",
                esc(title),
                n = esc(&name)
            ));
        }
        Ok(format!(
            "<!doctype html><html><head><meta charset=utf-8><title>netlab diff</title><style>{}</style></head><body>\n{}<h2>Figures</h2>\n{list}<div class=figs>\n{figs}</div>\n</body></html>\n",
            crate::html::CSS,
            crate::markdown::to_html(&self.body())
        ))
    }
}

/// `pfifo limit 256 at rate=5mbit`, `A-WORDS → B-WORDS` when paired.
pub(crate) fn pair_title(p: &PairDiff) -> String {
    let arm = if p.arm_a == p.arm_b {
        p.arm_a.clone()
    } else {
        format!("{} → {}", p.arm_a, p.arm_b)
    };
    if p.point == "default" || p.point.is_empty() {
        arm
    } else {
        format!("{arm} at {}", p.point)
    }
}

/// A value in a table cell (no pipe, not too long).
fn cell(s: &str) -> String {
    let s = s.replace('|', "/");
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}
