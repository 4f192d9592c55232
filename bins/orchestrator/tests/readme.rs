//! The README and docs/ stay true to the code:
//! - README.md is a newcomer's page: at most 300 lines;
//! - every `orchestrator SUBCOMMAND --flag` that README.md or a page of
//!   docs/ shows in code exists in the binary's own `--help`, and every
//!   inline `--flag` of README.md and docs/usage.md is a flag of some
//!   subcommand;
//! - usage.md's command list shows every subcommand and flag the binary
//!   has, and the README's layout table every workspace package;
//! - every relative link of README.md and docs/ (subfolders included)
//!   resolves to a file,
//!   and its `#anchor` to a heading of that file;
//! - the schema version the README states is the one the code writes;
//! - the workspace's `rust-version` is the highest `rust-version` of any
//!   dependency Cargo.lock pins for this machine (tests' included), and
//!   the README's "Rust ≥" says the same;
//! - every `netlab_crate::name` a page shows in code names something
//!   public at that crate's root (a public module, a re-export or an
//!   item), so a reader can follow the path;
//! - no page, source, experiment file or script cites a tracker number
//!   ("issue N") or a numbered rule of a style guide outside the
//!   repository ("STYLE N"), not even wrapped across a comment's lines: a
//!   reader can open a method § or a docs section, not those.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_orchestrator");

mod tree;
use tree::{read, root};

/// README.md and every markdown page of docs/ (subfolders included), with
/// their paths.
fn pages() -> Vec<(PathBuf, String)> {
    let mut out = vec![(root().join("README.md"), read("README.md"))];
    for p in tree::files_under(&root().join("docs"), Some("md")) {
        let text = read(&p);
        out.push((p, text));
    }
    out
}

/// The pieces of a markdown text that are code: fenced blocks line by
/// line, and inline `code` spans.
fn code_segments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut paragraph = String::new();
    let flush = |paragraph: &mut String, out: &mut Vec<String>| {
        // Inline spans may wrap across the lines of one paragraph.
        for (i, part) in paragraph.split('`').enumerate() {
            if i % 2 == 1 {
                out.push(part.replace('\n', " "));
            }
        }
        paragraph.clear();
    };
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            flush(&mut paragraph, &mut out);
            fenced = !fenced;
            continue;
        }
        if fenced {
            out.push(line.to_string());
        } else if line.trim().is_empty() {
            flush(&mut paragraph, &mut out);
        } else {
            paragraph.push_str(line);
            paragraph.push('\n');
        }
    }
    flush(&mut paragraph, &mut out);
    out
}

/// `orchestrator SUB --flag …` invocations in a code segment: the
/// subcommand and the flags that follow it up to a comment, a pipe, `&&`,
/// `;` or `)`.
fn invocations(segment: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let tokens: Vec<&str> = segment.split_whitespace().collect();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        let is_bin = t == "orchestrator" || t.ends_with("/orchestrator");
        if !is_bin {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        if tokens.get(j) == Some(&"--") {
            j += 1;
        }
        let Some(sub) = tokens.get(j) else { break };
        let sub = sub.trim_end_matches([',', '.', ':', ')']);
        let word = sub.starts_with(|c: char| c.is_ascii_lowercase())
            && sub.chars().all(|c| c.is_ascii_lowercase() || c == '-');
        if !word {
            i = j;
            continue;
        }
        let mut flags = Vec::new();
        for tok in &tokens[j + 1..] {
            if tok.starts_with('#') || ["|", "&&", ";", "||"].contains(tok) || tok.contains(')') {
                break;
            }
            if let Some(flag) = flag_of(tok) {
                flags.push(flag);
            }
        }
        out.push((sub.to_string(), flags));
        i = j + 1;
    }
    out
}

/// `--name` out of a token such as `[--rounds`, `--kernel=host` or
/// `--arm…`.
fn flag_of(tok: &str) -> Option<String> {
    let start = tok.find("--")?;
    let rest = &tok[start + 2..];
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    (start == 0 || tok[..start].chars().all(|c| c == '[' || c == '('))
        .then_some(())
        .filter(|_| !name.is_empty() && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
        .map(|_| format!("--{name}"))
}

fn help(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .arg("--help")
        .output()
        .expect("run orchestrator --help");
    assert!(out.status.success(), "orchestrator {args:?} --help failed");
    String::from_utf8(out.stdout).expect("utf-8 help")
}

/// Subcommands the binary lists, each with the flags its help lists.
fn cli() -> BTreeMap<String, BTreeSet<String>> {
    let top = help(&[]);
    let mut subs = BTreeMap::new();
    let mut in_commands = false;
    for line in top.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            if !line.starts_with("  ") {
                break;
            }
            let name = line.split_whitespace().next().unwrap_or_default();
            if name == "help" || name.is_empty() {
                continue;
            }
            let flags = help(&[name])
                .split_whitespace()
                .filter_map(flag_of)
                .collect::<BTreeSet<_>>();
            subs.insert(name.to_string(), flags);
        }
    }
    assert!(subs.contains_key("compare"), "no compare in:\n{top}");
    subs
}

#[test]
fn readme_is_a_newcomers_page() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines (at most 300: investigations go to docs/)"
    );
}

#[test]
fn every_subcommand_and_flag_the_docs_name_exists() {
    let cli = cli();
    let every_flag: BTreeSet<&String> = cli.values().flatten().collect();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (path, text) in pages() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for segment in code_segments(&text) {
            for (sub, flags) in invocations(&segment) {
                checked += 1;
                let Some(known) = cli.get(&sub) else {
                    wrong.push(format!("{name}: `orchestrator {sub}` is no subcommand"));
                    continue;
                };
                for f in flags {
                    if !known.contains(&f) && f != "--help" {
                        wrong.push(format!("{name}: `orchestrator {sub} {f}`: no such flag"));
                    }
                }
            }
            // A lone `--flag` in prose about the command (README, usage).
            let lone = segment.trim_start().starts_with("--")
                && (name == "README.md" || name == "usage.md");
            if lone {
                if let Some(f) = flag_of(segment.trim()) {
                    if !every_flag.contains(&f) {
                        wrong.push(format!(
                            "{name}: `{}` is no flag of any subcommand",
                            segment.trim()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} invocations found: is the parser broken?"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// GitHub's anchor of a heading: lower case, punctuation dropped except
/// `-` and `_`, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// `[text](target)` links of a markdown text outside code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// The other way round: usage.md's command list shows every subcommand
/// the binary has with every flag its help lists, and the README's layout
/// table every workspace package's folder.
#[test]
fn usage_lists_every_command_and_flag_and_the_readme_every_crate() {
    let usage = read("docs/usage.md");
    let list = usage
        .split("## Commands and flags")
        .nth(1)
        .and_then(|s| s.split("```").nth(1))
        .expect("usage.md's command list");
    let mut shown: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current = None;
    for line in list.lines() {
        let line = line.split(" # ").next().unwrap_or_default();
        let mut words = line.split_whitespace().peekable();
        if words.peek() == Some(&"orchestrator") {
            words.next();
            current = words.next().map(str::to_string);
        }
        if let Some(sub) = &current {
            let flags = shown.entry(sub.clone()).or_default();
            flags.extend(words.filter_map(flag_of));
        }
    }
    let mut missing = Vec::new();
    for (sub, flags) in cli() {
        match shown.get(&sub) {
            None => missing.push(format!("orchestrator {sub}")),
            Some(listed) => missing.extend(
                flags
                    .difference(listed)
                    .filter(|f| *f != "--help")
                    .map(|f| format!("orchestrator {sub} {f}")),
            ),
        }
    }
    assert!(
        missing.is_empty(),
        "usage.md's command list lacks {missing:?}"
    );
    let readme = read("README.md");
    let layout = readme.split("## Layout").nth(1).expect("README's layout");
    for p in tree::packages() {
        let folder = tree::relative(&p);
        assert!(
            layout.contains(&format!("`{folder}`")),
            "README's layout table does not name {folder}"
        );
    }
}

#[test]
fn every_relative_link_resolves() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (path, text) in pages() {
        let dir = path.parent().unwrap();
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, frag) = match link.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                path.clone()
            } else {
                dir.join(file)
            };
            if !target.exists() {
                wrong.push(format!("{}: link {link} names no file", path.display()));
                continue;
            }
            if let Some(a) = frag {
                let is_md = target.extension().is_some_and(|x| x == "md");
                if is_md && !anchors(&read(&target)).contains(a) {
                    wrong.push(format!("{}: link {link}: no heading #{a}", path.display()));
                }
            }
        }
    }
    assert!(checked > 10, "only {checked} links found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_readme_states_the_schema_version_the_code_writes() {
    let text = read("README.md");
    let stated: Vec<u32> = text
        .match_indices("schema_version")
        .filter_map(|(i, _)| {
            let after = text[i + "schema_version".len()..].trim_start_matches(['`', ' ']);
            let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect();
    assert!(!stated.is_empty(), "README.md states no schema_version");
    for v in stated {
        assert_eq!(
            v,
            netlab_results::SCHEMA_VERSION,
            "README.md states schema_version {v}"
        );
    }
}

/// A `rust-version` as numbers (`1.85.0` → `[1, 85, 0]`), missing parts
/// as 0, so `1.85` and `1.85.0` compare equal.
fn version(text: &str) -> Vec<u64> {
    let mut v: Vec<u64> = text
        .split('.')
        .map(|p| {
            p.parse()
                .unwrap_or_else(|_| panic!("rust-version {text:?}"))
        })
        .collect();
    v.resize(3, 0);
    v
}

/// The highest `rust-version` among the packages of a `cargo metadata`
/// answer that are in its resolve and are not workspace members, with the
/// packages that state it; `None` when none states one.
fn highest_dependency_minimum(metadata: &serde_json::Value) -> Option<(Vec<u64>, Vec<String>)> {
    let ids = |v: &serde_json::Value| -> BTreeSet<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect()
    };
    let members = ids(&metadata["workspace_members"]);
    let resolved: BTreeSet<String> = metadata["resolve"]["nodes"]
        .as_array()
        .expect("cargo metadata has a resolve")
        .iter()
        .filter_map(|n| n["id"].as_str().map(str::to_string))
        .collect();
    let mut best: Option<(Vec<u64>, Vec<String>)> = None;
    for p in metadata["packages"].as_array().expect("packages") {
        let id = p["id"].as_str().unwrap_or_default();
        if members.contains(id) || !resolved.contains(id) {
            continue;
        }
        let Some(rv) = p["rust_version"].as_str() else {
            continue;
        };
        let name = format!(
            "{} {} ({rv})",
            p["name"].as_str().unwrap_or("?"),
            p["version"].as_str().unwrap_or("?")
        );
        let rv = version(rv);
        match &mut best {
            Some((v, names)) if *v == rv => names.push(name),
            Some((v, _)) if *v > rv => {}
            _ => best = Some((rv, vec![name])),
        }
    }
    best
}

/// The workspace's `rust-version` from the root Cargo.toml.
fn workspace_rust_version() -> String {
    let manifest = read("Cargo.toml");
    let line = manifest
        .lines()
        .find(|l| l.trim_start().starts_with("rust-version"))
        .expect("the root Cargo.toml states a rust-version");
    line.split('"')
        .nth(1)
        .expect("rust-version = \"X.Y\"")
        .to_string()
}

/// Where the stated minimum and the dependencies' part, in words; empty
/// when they agree.
fn rust_version_mismatch(stated: &str, metadata: &serde_json::Value) -> Option<String> {
    let (highest, names) = highest_dependency_minimum(metadata)?;
    let stated_v = version(stated);
    if stated_v < highest {
        Some(format!(
            "rust-version {stated} is below what Cargo.lock's dependencies ask for: {}",
            names.join(", ")
        ))
    } else if stated_v > highest {
        Some(format!(
            "rust-version {stated} is above every locked dependency's minimum (highest: {}): state the real minimum",
            names.join(", ")
        ))
    } else {
        None
    }
}

#[test]
fn rust_version_is_the_highest_locked_dependency_minimum() {
    let host = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("-vV")
        .output()
        .expect("rustc -vV");
    let host = String::from_utf8_lossy(&host.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host");
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--filter-platform",
        ])
        .arg(&host)
        .output()
        .expect("cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let stated = workspace_rust_version();
    if let Some(why) = rust_version_mismatch(&stated, &metadata) {
        panic!("{why}");
    }
    let readme = read("README.md").replace('\n', " ");
    let said = readme
        .split("Rust ≥")
        .nth(1)
        .and_then(|after| after.split_whitespace().next())
        .map(|v| v.trim_end_matches(['.', ',', ';', ')']).to_string());
    assert_eq!(
        said.as_deref(),
        Some(stated.as_str()),
        "README.md's \"Rust ≥\""
    );
}

#[test]
fn the_rust_version_check_fails_when_a_dependency_asks_for_more() {
    let metadata = |rv: &str| {
        serde_json::json!({
            "workspace_members": ["ws"],
            "resolve": {"nodes": [{"id": "ws"}, {"id": "a"}, {"id": "b"}]},
            "packages": [
                {"id": "ws", "name": "orchestrator", "version": "0.1.0", "rust_version": "1.10"},
                {"id": "a", "name": "a", "version": "1.0.0", "rust_version": "1.85"},
                {"id": "b", "name": "b", "version": "2.0.0", "rust_version": rv},
                {"id": "c", "name": "c", "version": "1.0.0", "rust_version": "1.99"},
            ],
        })
    };
    // A dependency in the resolve raises its minimum: the stated one is low.
    let why = rust_version_mismatch("1.85", &metadata("1.88.0")).expect("1.88 > 1.85");
    assert!(why.contains("b 2.0.0 (1.88.0)"), "{why}");
    // Equal (1.88 = 1.88.0) holds; a package outside the resolve (c) counts not.
    assert_eq!(rust_version_mismatch("1.88", &metadata("1.88.0")), None);
    // Stating more than any dependency asks is not the real minimum.
    assert!(rust_version_mismatch("1.90", &metadata("1.88")).is_some());
}

/// Citations a reader of the repository cannot open: the word "issue" or
/// "style", any case, then a number, with nothing between or spaces,
/// dashes, " #" or a line break into a comment's next line (`///`, `//!`,
/// `#`, ` * `).
fn unopenable_citations(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    for word in ["issue", "style"] {
        for (i, _) in lower.match_indices(word) {
            let rest = lower[i + word.len()..]
                .trim_start_matches(|c: char| c.is_whitespace() || "-#/!*".contains(c));
            let glued = lower[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            if !glued && digits > 0 {
                // The citation as written: the word, its separator, the number.
                let end = lower.len() - rest.len() + digits;
                out.push(lower[i..end].to_string());
            }
        }
    }
    out
}

/// Every text file the repository holds under the folders a reader
/// browses (sources, docs, experiments, scripts, fixtures' notes), the
/// README and the justfile; build output and compressed or binary data
/// (not UTF-8) are left out.
fn repository_texts() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for dir in [
        "bins",
        "crates",
        "deploy",
        "docs",
        "experiments",
        "fixtures",
        "fuzz",
        "scripts",
    ] {
        for path in tree::files_under(&root().join(dir), None) {
            if let Ok(text) = std::fs::read_to_string(&path) {
                out.push((path, text));
            }
        }
    }
    for file in ["README.md", "justfile", "Cargo.toml", ".ci/run"] {
        let path = root().join(file);
        let text = read(&path);
        out.push((path, text));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn no_file_cites_a_tracker_number_or_a_numbered_style_rule() {
    let mut wrong = Vec::new();
    let texts = repository_texts();
    assert!(
        texts.len() > 300,
        "{} files read: the walk lost a folder",
        texts.len()
    );
    for (path, text) in texts {
        for hit in unopenable_citations(&text) {
            wrong.push(format!("{}: `{hit}`", path.display()));
        }
    }
    assert!(
        wrong.is_empty(),
        "cite a method § or a docs section instead:\n{}",
        wrong.join("\n")
    );
}

/// The identifiers of a Rust text: runs of letters, digits and `_`.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// The names a `use` tree brings in: each path's last name, or its
/// alias after `as` (`a::{b::C, d as e}` → `C`, `e`).
fn imported(tree: &str) -> impl Iterator<Item = &str> {
    let mut names = Vec::new();
    let mut rest = tree;
    while let Some(start) = rest.find(|c: char| c.is_alphanumeric() || c == '_') {
        let word_len = rest[start..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len() - start);
        let word = &rest[start..start + word_len];
        rest = &rest[start + word_len..];
        let next = rest.trim_start();
        if word != "as" && !next.starts_with("::") && !next.starts_with("as ") {
            names.push(word);
        }
    }
    names.into_iter()
}

/// Whether `name` can follow `crate_name::` from outside the crate: a
/// public module, a name a `pub use` of its lib.rs brings in, or a public
/// item lib.rs defines.
fn public_at_root(lib: &str, name: &str) -> bool {
    let defines = [
        "mod", "fn", "struct", "enum", "trait", "const", "static", "type",
    ]
    .iter()
    .any(|kind| {
        let head = format!("pub {kind} {name}");
        lib.match_indices(&head).any(|(i, _)| {
            !lib[i + head.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
        })
    });
    defines
        || lib
            .split("pub use ")
            .skip(1)
            .any(|rest| imported(rest.split(';').next().unwrap_or("")).any(|w| w == name))
}

/// Every `netlab_crate::name…` the docs show in code: the crate's
/// package name (`netlab_analysis`) and the first name after it.
fn crate_paths(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for seg in code_segments(text) {
        for (i, _) in seg.match_indices("netlab_") {
            if seg[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let mut words = seg[i..].split("::");
            let krate = words.next().unwrap_or("");
            let krate: String = identifiers(krate).next().unwrap_or("").into();
            if seg[i + krate.len()..].starts_with("::") {
                if let Some(name) = words.next().and_then(|w| identifiers(w).next()) {
                    out.push((krate, name.to_string()));
                }
            }
        }
    }
    out
}

#[test]
fn every_crate_path_the_docs_name_is_public() {
    let mut libs = BTreeMap::new();
    for dir in tree::packages() {
        let manifest = read(dir.join("Cargo.toml"));
        let name = manifest
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|l| l.strip_suffix('"'))
            .expect("a package name")
            .replace('-', "_");
        if let Ok(lib) = std::fs::read_to_string(dir.join("src/lib.rs")) {
            libs.insert(name, lib);
        }
    }
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (path, text) in pages() {
        for (krate, name) in crate_paths(&text) {
            let Some(lib) = libs.get(&krate) else {
                wrong.push(format!(
                    "{}: `{krate}` is no library of the workspace",
                    path.display()
                ));
                continue;
            };
            checked += 1;
            if !public_at_root(lib, &name) {
                wrong.push(format!(
                    "{}: `{krate}::{name}` is not public (a private module, or gone)",
                    path.display()
                ));
            }
        }
    }
    assert!(checked > 30, "only {checked} paths found: the scan broke");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_parsers_find_what_they_should() {
    let segs = code_segments("a `orchestrator run FILE --shard 1/2` b\n\n```\norchestrator merge OUT [--allow-partial] # x --no\n```\n");
    let inv: Vec<_> = segs.iter().flat_map(|s| invocations(s)).collect();
    assert_eq!(
        inv,
        vec![
            ("run".to_string(), vec!["--shard".to_string()]),
            ("merge".to_string(), vec!["--allow-partial".to_string()]),
        ]
    );
    assert_eq!(
        invocations("cargo run --release -p orchestrator -- compare --pcap --out x"),
        vec![(
            "compare".to_string(),
            vec!["--pcap".to_string(), "--out".to_string()]
        )]
    );
    assert!(invocations("cargo build -p orchestrator --bins").is_empty());
    assert_eq!(
        crate_paths(
            "see `netlab_os::proc::read_sysctl` and `use netlab_report::{diff}`; not netlab_x::y"
        ),
        [("netlab_os", "proc"), ("netlab_report", "diff")]
            .map(|(k, n)| (k.to_string(), n.to_string()))
    );
    let lib = "pub mod alpha;
mod beta;
pub use beta::{Gamma, delta as zeta};
pub fn epsilon() {}
pub mod alphabet;";
    for (name, public) in [
        ("alpha", true),
        ("beta", false),
        ("Gamma", true),
        ("delta", false),
        ("zeta", true),
        ("epsilon", true),
        ("alph", false),
    ] {
        assert_eq!(public_at_root(lib, name), public, "{name}");
    }
    assert_eq!(anchor("Packet files (pcapng)"), "packet-files-pcapng");
    // Built from parts, so a search of the sources for such citations
    // does not find this test's own examples.
    let (i, st) = ("iss", "STY");
    assert_eq!(
        unopenable_citations(&format!(
            "see {i}ue 29, {i}ue-3, {i}ue #4, {i}ue11.json, {i}ue\n    /// 30 and {st}LE 24"
        )),
        [29, 3, 4, 11, 30, 24]
            .iter()
            .zip([" ", "-", " #", "", "\n    /// ", " "])
            .enumerate()
            .map(|(k, (n, sep))| {
                let word = if k == 5 { "style" } else { "issue" };
                format!("{word}{sep}{n}")
            })
            .collect::<Vec<_>>()
    );
    assert!(
        unopenable_citations(&format!("a t{i}ue 3, life{}le 2, {i}ues and style", "sty"))
            .is_empty()
    );
    assert_eq!(
        links("see [a](b.md#c) and [d](http://x)"),
        vec!["b.md#c", "http://x"]
    );
}
