//! docs/architecture.md says what the build says, so the prose cannot
//! drift from it: the layer diagram's arrows, the crate
//! table's workspace edges, the test-only edges (with the `testing`
//! features they turn on), the external crates per package, and the
//! crates that forbid `unsafe`, each against every Cargo.toml and lib.rs;
//! and that the schema and the report build pure, against
//! `cargo tree`; and that the binary stays a shell around the libraries
//! (its non-test lines under 1,000).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

mod tree;
use tree::root;

fn doc() -> String {
    std::fs::read_to_string(root().join("docs/architecture.md")).unwrap()
}

/// One package's dependencies as its Cargo.toml lists them.
#[derive(Default, Debug)]
struct Manifest {
    /// Workspace packages under `[dependencies]`.
    workspace: BTreeSet<String>,
    /// Other crates under `[dependencies]`.
    external: BTreeSet<String>,
    /// `[dev-dependencies]`, in the doc's words: `sys`, `sys+testing`,
    /// `proptest`.
    dev: BTreeSet<String>,
    /// The folder of the package (for its lib.rs).
    dir: PathBuf,
}

/// Package name → what its Cargo.toml lists.
fn manifests() -> BTreeMap<String, Manifest> {
    let mut out = BTreeMap::new();
    for dir in ["crates", "bins"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let dir = entry.unwrap().path();
            let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
                continue;
            };
            let mut name = None;
            let mut m = Manifest {
                dir: dir.clone(),
                ..Manifest::default()
            };
            let mut section = String::new();
            for line in text.lines().map(str::trim) {
                if line.starts_with('[') {
                    section = line.to_string();
                    continue;
                }
                let key = line.split(['=', '.', ' ']).next().unwrap_or("");
                if key.is_empty() || key.starts_with('#') {
                    continue;
                }
                match section.as_str() {
                    "[package]" if key == "name" => {
                        name = line.split('"').nth(1).map(str::to_string);
                    }
                    "[dependencies]" if key.starts_with("netlab-") => {
                        m.workspace.insert(key.to_string());
                    }
                    "[dependencies]" => {
                        m.external.insert(key.to_string());
                    }
                    "[dev-dependencies]" => {
                        let short = key.strip_prefix("netlab-").unwrap_or(key);
                        let testing = line.contains("\"testing\"");
                        m.dev.insert(if testing {
                            format!("{short}+testing")
                        } else {
                            short.to_string()
                        });
                    }
                    _ => {}
                }
            }
            out.insert(name.expect("a package name"), m);
        }
    }
    out
}

/// The rows "| `package` | a, b | … |" of the table that follows the
/// line starting with `after`, as package → set of cells' items.
fn table(after: &str) -> BTreeMap<String, BTreeSet<String>> {
    let text = doc();
    let start = text
        .find(after)
        .unwrap_or_else(|| panic!("architecture.md has no {after:?}"));
    let mut out = BTreeMap::new();
    let mut seen_row = false;
    for line in text[start..].lines().skip(1) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if !line.starts_with('|') {
            if seen_row {
                break;
            }
            continue;
        }
        seen_row = true;
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let items = cells[2]
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty() && *d != "—")
            .map(str::to_string)
            .collect();
        out.insert(cells[1].trim_matches('`').to_string(), items);
    }
    out
}

fn prefixed(items: &BTreeSet<String>) -> BTreeSet<String> {
    items.iter().map(|d| format!("netlab-{d}")).collect()
}

#[test]
fn the_crate_table_has_every_crate_with_its_real_edges() {
    let built: BTreeMap<_, _> = manifests()
        .into_iter()
        .map(|(n, m)| (n, m.workspace))
        .collect();
    let documented: BTreeMap<_, _> = table("| package | depends on (workspace, normal) |")
        .into_iter()
        .map(|(n, d)| (n, prefixed(&d)))
        .collect();
    assert!(built.len() >= 12, "{built:?}");
    assert_eq!(
        documented, built,
        "architecture.md's crate table differs from the Cargo.toml files"
    );
}

#[test]
fn the_layer_diagram_draws_every_edge() {
    let text = doc();
    let start = text.find("```\nlayer 0").expect("the layer diagram");
    let block = &text[start + 4..];
    let block = &block[..block.find("```").unwrap()];
    // "name ─► a, b" with continuation lines that hold no arrow.
    let mut drawn: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in block.lines() {
        let mut rest = if line.starts_with("layer") || line.starts_with("top") {
            let l = line
                .trim_start_matches("top")
                .trim_start_matches("layer")
                .trim_start();
            l.trim_start_matches(|c: char| c.is_ascii_digit())
                .to_string()
        } else {
            line.to_string()
        };
        if !rest.contains('►') {
            if let Some(c) = &current {
                let deps = rest.split('(').next().unwrap_or("");
                drawn.get_mut(c).unwrap().extend(items(deps));
            }
            continue;
        }
        // Several "name ─► deps" on one line, separated by wide gaps.
        while let Some(arrow) = rest.find("─►") {
            let name = rest[..arrow].split_whitespace().last().unwrap().to_string();
            let after = &rest[arrow + "─►".len()..];
            let next = after.find("─►").map(|i| {
                // The next name starts after the last wide gap before it.
                after[..i].rfind("   ").unwrap_or(i)
            });
            let (deps, tail) = match next {
                Some(i) => (&after[..i], after[i..].to_string()),
                None => (after, String::new()),
            };
            let deps = deps.split('(').next().unwrap_or("");
            drawn.entry(name.clone()).or_default().extend(items(deps));
            current = Some(name);
            rest = tail;
        }
    }
    let built = manifests();
    for (name, m) in &built {
        let short = name.strip_prefix("netlab-").unwrap_or(name).to_string();
        let want: BTreeSet<String> = m
            .workspace
            .iter()
            .map(|d| d.strip_prefix("netlab-").unwrap().to_string())
            .collect();
        let got = drawn.get(&short).cloned().unwrap_or_default();
        assert_eq!(got, want, "the layer diagram's arrows from {short}");
    }
}

fn items(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_test_only_edges_are_the_dev_dependencies() {
    let built: BTreeMap<_, _> = manifests().into_iter().map(|(n, m)| (n, m.dev)).collect();
    let documented = table("| package | test-only dependencies | for |");
    assert_eq!(
        documented, built,
        "architecture.md's test-only edges differ from [dev-dependencies]"
    );
}

#[test]
fn the_external_crates_are_the_manifests() {
    let built: BTreeMap<_, _> = manifests()
        .into_iter()
        .map(|(n, m)| (n, m.external))
        .collect();
    let documented = table("| package | external crates | for |");
    assert_eq!(
        documented, built,
        "architecture.md's external crates differ from [dependencies]"
    );
}

#[test]
fn the_crates_said_to_forbid_unsafe_do() {
    let text = doc().replace('\n', " ");
    let key = "forbidden (`#![forbid(unsafe_code)]`) in ";
    let start = text.find(key).expect("the unsafe paragraph") + key.len();
    let list = &text[start..start + text[start..].find(';').unwrap()];
    let said: BTreeSet<String> = list
        .replace(" and ", ", ")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let forbidding: BTreeSet<String> = manifests()
        .into_iter()
        .filter(|(_, m)| {
            std::fs::read_to_string(m.dir.join("src/lib.rs"))
                .is_ok_and(|t| t.contains("#![forbid(unsafe_code)]"))
        })
        .map(|(n, _)| n.strip_prefix("netlab-").unwrap_or(&n).to_string())
        .collect();
    assert_eq!(
        said, forbidding,
        "architecture.md's list of crates that forbid unsafe"
    );
}

/// The modules a cell of the pure/I-O table names: backticked words
/// outside parentheses, `a::{b, c}` spread into `a::b` and `a::c`.
fn modules_named(cell: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut code = false;
    let mut word = String::new();
    for c in cell.chars() {
        match c {
            '`' if depth == 0 => {
                if code && !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                word.clear();
                code = !code;
            }
            '(' if !code => depth += 1,
            ')' if !code => depth = depth.saturating_sub(1),
            _ if code && depth == 0 => word.push(c),
            _ => {}
        }
    }
    out.into_iter()
        .flat_map(|w| match w.split_once("::{") {
            Some((head, tail)) => tail
                .trim_end_matches('}')
                .split(',')
                .map(|t| format!("{head}::{}", t.trim()))
                .collect(),
            None => vec![w],
        })
        .collect()
}

#[test]
fn the_pure_and_io_table_names_every_module_that_exists() {
    let text = doc();
    let start = text
        .find("| crate | pure | mixed | I/O |")
        .expect("the pure/I-O table");
    let built = manifests();
    let mut rows = 0;
    for line in text[start..].lines().skip(2) {
        if !line.starts_with('|') {
            break;
        }
        rows += 1;
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let name = cells[1];
        let package = if name == "orchestrator" {
            name.to_string()
        } else {
            format!("netlab-{name}")
        };
        let m = built
            .get(&package)
            .unwrap_or_else(|| panic!("{package}: no such package"));
        let src = m.dir.join("src");
        let named: Vec<String> = cells[2..5].iter().flat_map(|c| modules_named(c)).collect();
        for module in &named {
            let path = module.trim_end_matches("/*").replace("::", "/");
            let exists = src.join(format!("{path}.rs")).exists() || src.join(&path).is_dir();
            assert!(
                exists,
                "architecture.md: {name}'s module `{module}` does not exist"
            );
        }
        // Every top-level module file of the crate is in its row (the
        // crate root, test modules and the binaries' own files aside).
        let tops: BTreeSet<String> = named
            .iter()
            .map(|m| m.split(['/', ':']).next().unwrap().to_string())
            .collect();
        for entry in std::fs::read_dir(&src).unwrap() {
            let p = entry.unwrap().path();
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            let is_module = p.extension().is_some_and(|x| x == "rs") || p.is_dir();
            let skipped = ["tests", "bin", "lib", "main"].contains(&stem.as_str());
            if !is_module || skipped {
                continue;
            }
            let listed = tops.contains(&stem);
            assert!(
                listed,
                "architecture.md's pure/I-O table leaves out {name}'s module `{stem}`"
            );
        }
    }
    assert!(rows >= 12, "only {rows} rows read");
}

/// The crates that open a socket, a namespace or a capture, or decode
/// what one read: none may be a normal dependency, direct or not, of the
/// schema crate or the report (docs/architecture.md, "Pure builds").
const IO_CRATES: [&str; 7] = [
    "nix",
    "socket2",
    "netlink-sys",
    "netlink-packet-sock-diag",
    "signal-hook",
    "etherparse",
    "pcap-file",
];

/// Every package in `cargo tree -p package -e normal`: what a build of
/// that package alone links (features resolved for it alone, as a crate
/// that embeds it gets them).
fn normal_tree(package: &str) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO"))
        .current_dir(root())
        .args(["tree", "--offline", "-p", package, "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}"])
        .output()
        .expect("running cargo tree");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_schema_analysis_and_report_link_no_socket_namespace_or_capture_crate() {
    let doc = doc();
    let start = doc
        .find("### Pure builds")
        .expect("the \"Pure builds\" section");
    let section = &doc[start..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    for krate in IO_CRATES {
        assert!(
            section.contains(&format!("`{krate}`")),
            "architecture.md's \"Pure builds\" does not name {krate}"
        );
    }
    for package in ["netlab-results", "netlab-analysis", "netlab-report"] {
        let tree = normal_tree(package);
        // The tree was read: the package, the schema's own crates, serde.
        for expected in [package, "netlab-results", "netlab-probe", "serde"] {
            assert!(
                tree.contains(expected),
                "{package}: {expected} not in {tree:?}"
            );
        }
        let linked: Vec<&str> = IO_CRATES
            .into_iter()
            .filter(|c| tree.contains(*c))
            .collect();
        assert!(
            linked.is_empty(),
            "`cargo tree -p {package} -e normal` lists {linked:?}: a dependency of \
             {package} was added with its `net` feature (or with default features \
             where the workspace turns them off); see docs/architecture.md, \
             \"Pure builds\""
        );
    }
    // The analysis computes figures; drawing and writing them is the
    // report's (docs/architecture.md, "Pure builds").
    let tree = normal_tree("netlab-analysis");
    for krate in DRAWING_CRATES {
        assert!(
            section.contains(&format!("`{krate}`")),
            "architecture.md's \"Pure builds\" does not name {krate}"
        );
        assert!(
            !tree.contains(krate),
            "`cargo tree -p netlab-analysis -e normal` lists {krate}: the analysis \
             crate links no plotting, SVG or file-compression crate"
        );
    }
}

/// The crates that draw or write a report: none may be a normal
/// dependency of netlab-analysis.
const DRAWING_CRATES: [&str; 4] = ["plotters", "plotters-backend", "resvg", "flate2"];

/// Lines of a binary source file before its first `#[cfg(test)]`
/// (comments and clap help included: everything a reader of the binary
/// reads).
fn non_test_lines(text: &str) -> usize {
    text.lines()
        .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
        .count()
}

#[test]
fn the_binary_holds_flags_a_session_and_an_exit_code() {
    let src = root().join("bins/orchestrator/src");
    let mut per_file: Vec<(String, usize)> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, non_test_lines(&text))
        })
        .collect();
    per_file.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let total: usize = per_file.iter().map(|(_, n)| n).sum();
    assert!(
        total < 1000,
        "the binary has {total} non-test lines ({per_file:?}); logic an embedder \
         needs belongs in its library (docs/architecture.md, orchestrator)"
    );
    assert_eq!(non_test_lines("a\nb\n#[cfg(test)]\nmod tests {}\n"), 2);
}

/// Source files (non-test lines) that name a `/proc` path without reading
/// it through `netlab_os::proc`, each with why (docs/architecture.md,
/// "/proc in one module").
const PROC_ELSEWHERE: [(&str, &str); 3] = [
    (
        "crates/guest/src/init.rs",
        "the guest's init mounts /proc and bind-mounts a descriptor's path; it parses nothing",
    ),
    (
        "crates/qdisc-model/src/tbf.rs",
        "the TBF's tick model parses /proc/net/psched's text (read by os::proc::psched_text); \
         the pure model links no os",
    ),
    (
        "crates/topology/src/mount.rs",
        "the calling thread's namespace file, bind-mounted, not parsed",
    ),
];

#[test]
fn proc_is_read_and_parsed_in_os_proc_only() {
    let files = tree::product_sources();
    assert!(files.len() > 100, "found only {} source files", files.len());
    let mut found = BTreeSet::new();
    for f in &files {
        let rel = tree::relative(f);
        if rel == "crates/os/src/proc.rs" {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let names_proc = text
            .lines()
            .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
            .filter(|l| !l.trim_start().starts_with("//"))
            .any(|l| l.contains("\"/proc"));
        if names_proc {
            found.insert(rel);
        }
    }
    let allowed: BTreeSet<String> = PROC_ELSEWHERE.iter().map(|(f, _)| f.to_string()).collect();
    let outside: Vec<&String> = found.difference(&allowed).collect();
    assert!(
        outside.is_empty(),
        "these read /proc outside netlab_os::proc: {outside:?}"
    );
    let stale: Vec<&String> = allowed.difference(&found).collect();
    assert!(
        stale.is_empty(),
        "listed as reading /proc but no longer do: {stale:?}"
    );
}
