//! The README names only results-folder files a run writes: every plot,
//! page, Flent or packet file it names is one the report renders for the
//! committed fixture run, or one the docs say a default run writes
//! (`pcap/sNN-roundR-ARM.evidence.pcapng`, method §7.7), or one whose flag
//! (`--pcap`, `--iso-probe`) stands in the same paragraph; a path under
//! `results/DIR/` belongs to a command in the same block that writes
//! `--out results/DIR` (with the flag, where one is needed). And it says
//! where a run writes its folder and what to open first.

mod common;

use std::path::Path;

use common::fixture_folder;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
        .expect("README.md")
}

/// `s02-round1-fq_codel.headers.pcapng` → `sNN-roundR-ARM.headers.pcapng`,
/// `overview-pfifo-vs-fq_codel.svg` → `overview-A-vs-B.svg`; a path's
/// folders are left out (`scenarios/s03/s03-goodput.svg` →
/// `sNN-goodput.svg`, a scenario's page `scenarios/s03/index.html` →
/// `index.html`).
fn pattern(name: &str) -> String {
    let name = name.rsplit('/').next().unwrap_or(name);
    if let Some(rest) = name.strip_prefix("overview-") {
        if rest.contains("-vs-") && rest.ends_with(".svg") {
            return "overview-A-vs-B.svg".into();
        }
    }
    let b = name.as_bytes();
    if b.len() > 3 && b[0] == b's' && b[1].is_ascii_digit() && b[2].is_ascii_digit() {
        let rest = &name[3..];
        if let Some(r) = rest.strip_prefix("-round") {
            let digits = r.chars().take_while(char::is_ascii_digit).count();
            if digits > 0 && r[digits..].starts_with('-') {
                let after = &r[digits + 1..];
                let dot = after.find('.').unwrap_or(after.len());
                return format!("sNN-roundR-ARM{}", &after[dot..]);
            }
        }
        return format!("sNN{rest}");
    }
    name.to_string()
}

/// What a name needs: None (a default run writes it) or the flag.
fn requirement(name: &str, rendered: &[String]) -> Result<Option<&'static str>, String> {
    let p = pattern(name);
    if p.ends_with(".headers.pcapng") {
        return Ok(Some("--pcap"));
    }
    if p == "iso-cdf-loaded.svg" {
        return Ok(Some("--iso-probe"));
    }
    if p == "sNN-roundR-ARM.evidence.pcapng" || rendered.contains(&p) {
        return Ok(None);
    }
    Err(format!("{name} ({p}) is not a file a run writes"))
}

/// Results-folder file names in `text`, with their `results/DIR` when the
/// token is such a path.
fn names(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || "`()[]<>\"',;".contains(c))
        .collect();
    for (i, t) in tokens.iter().enumerate() {
        let t = t.trim_end_matches(['.', ':']);
        if t.starts_with("docs/") || t.contains("…") || (i > 0 && tokens[i - 1] == "-o") {
            continue;
        }
        let file = t.rsplit('/').next().unwrap_or(t);
        let wanted = [".svg", ".pcapng", ".flent.gz", ".html"]
            .iter()
            .any(|x| file.ends_with(x) && file.len() > x.len());
        if !wanted {
            continue;
        }
        let dir = t
            .strip_prefix("results/")
            .and_then(|r| r.split('/').next())
            .map(str::to_string);
        out.push((file.to_string(), dir));
    }
    out
}

#[test]
fn every_results_file_the_readme_names_is_one_the_command_shown_writes() {
    let dir = fixture_folder("readme");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let rendered: Vec<String> = netlab_report::render_all(&input)
        .unwrap()
        .iter()
        .map(|f| pattern(&f.name))
        .collect();
    let text = readme();
    let mut checked = 0;
    let mut bad = Vec::new();
    // Paragraphs, list items and code blocks: text between blank lines.
    for block in text.split("\n\n") {
        for (name, out) in names(block) {
            checked += 1;
            let need = match requirement(&name, &rendered) {
                Ok(n) => n,
                Err(e) => {
                    bad.push(e);
                    continue;
                }
            };
            if let Some(flag) = need {
                if !block.contains(flag) && !block.contains("pcap = \"headers\"") {
                    bad.push(format!("{name}: its flag {flag} is not in its paragraph"));
                }
            }
            // In a block of commands, the folder comes from one of them.
            let commands = block.trim_start().starts_with("```");
            if let Some(d) = out.filter(|_| commands) {
                let writer = block.lines().find(|l| {
                    l.contains(&format!("--out results/{d}"))
                        && (l.contains(" compare") || l.contains(" run "))
                });
                match writer {
                    None => bad.push(format!(
                        "{name}: no command in its block writes results/{d}"
                    )),
                    Some(l) if need.is_some_and(|f| !l.contains(f)) => bad.push(format!(
                        "{name}: the command writing results/{d} lacks {need:?}: {l}"
                    )),
                    Some(_) => {}
                }
            }
        }
    }
    assert!(checked >= 5, "only {checked} names found");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_readme_says_where_a_run_writes_and_what_to_open_first() {
    let text = readme();
    let quick =
        &text[text.find("## Quick start").unwrap()..text.find("## One run's headline").unwrap()];
    for want in [
        "results/<UTC time>",
        "--out DIR",
        "index.html",
        "summary.md",
    ] {
        assert!(quick.contains(want), "Quick start lacks {want:?}");
    }
    assert!(
        quick.contains("Open that\n`index.html` first")
            || quick.contains("Open that `index.html` first")
    );
}

#[test]
fn a_name_the_runs_never_write_is_caught() {
    let rendered = vec!["index.html".to_string(), "sNN-probe-rtt.svg".to_string()];
    assert!(requirement("s03-probe-rtt.svg", &rendered)
        .unwrap()
        .is_none());
    assert!(requirement("s03-latency.svg", &rendered).is_err());
    assert_eq!(
        requirement("s02-round1-fq_codel.headers.pcapng", &rendered).unwrap(),
        Some("--pcap")
    );
    let found = names("tshark -r results/pcap-run/pcap/s02-round1-fq_codel.headers.pcapng -Y x");
    assert_eq!(
        found,
        vec![(
            "s02-round1-fq_codel.headers.pcapng".to_string(),
            Some("pcap-run".to_string())
        )]
    );
}
