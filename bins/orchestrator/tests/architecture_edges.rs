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

/// Library sources that hold a `"--word"` literal, each with why: a
/// command line of another program the library builds, never one of
/// netlab's own flags parsed (docs/architecture.md, "Commands: one module
/// each").
const FLAG_WORDS_ELSEWHERE: [(&str, &str); 10] = [
    (
        "crates/guest/src/kernels/build.rs",
        "tar's `--strip-components=1`: the kernel's source unpacked",
    ),
    (
        "crates/report/src/diff/gate.rs",
        "not cut yet: the gate's refusal names `--fail-on-change`",
    ),
    (
        "crates/report/src/summary/tests.rs",
        "summary.md's unit tests (a test module in a file of its own): a recorded `--kernel uml` reason",
    ),
    (
        "crates/run/src/session/guest.rs",
        "the guest's recorded reason when the host passed none: `--kernel NAME`",
    ),
    (
        "crates/crosscheck/src/beside.rs",
        "iperf3's, irtt's and the ordinary pair's command lines, which the cross-check starts",
    ),
    (
        "crates/guest/src/spec.rs",
        "the guest's init reads its own `--spec` from the kernel's command line and the host writes it",
    ),
    (
        "crates/guest/src/testing.rs",
        "a test binary re-run inside the guest with libtest's `--exact --nocapture`",
    ),
    (
        "crates/guest/src/availability.rs",
        "`linux.uml --version`, the guest kernel asked its release",
    ),
    (
        "crates/run/src/config.rs",
        "not cut yet: the guest's `run FILE --inside-guest` command line, which the host starts, and a shard's refusal naming `--shard`",
    ),
    (
        "crates/run/src/kernel.rs",
        "not cut yet: the kernel decision's refusal says which `--kernel` to pass",
    ),
];

/// Library types whose name ends in `Args` or `Flags` and is the
/// domain's, not a command line's.
const FLAG_NAMED_TYPES: [(&str, &str); 1] = [(
    "TcpFlags",
    "the TCP header's flags byte (RFC 9293's control bits), not a command's",
)];

#[test]
fn no_library_defines_flags_or_parses_a_flag_word() {
    let mut wrong = Vec::new();
    for package in tree::packages() {
        if package.starts_with(root().join("bins")) {
            continue;
        }
        for f in tree::files_under(&package.join("src"), Some("rs")) {
            let rel = tree::relative(&f);
            let code = product_code(&std::fs::read_to_string(&f).unwrap());
            for l in code.lines() {
                let t = l.trim_start();
                let Some(rest) = t
                    .strip_prefix("pub struct ")
                    .or(t.strip_prefix("pub enum "))
                else {
                    continue;
                };
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if (name.ends_with("Args") || name.ends_with("Flags"))
                    && !FLAG_NAMED_TYPES.iter().any(|(n, _)| *n == name)
                {
                    wrong.push(format!(
                        "{rel}: pub type {name}: a command's flags belong to its command module"
                    ));
                }
            }
            let words = code.match_indices("\"--").any(|(i, _)| {
                code[i + 3..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_lowercase())
            });
            if words && !FLAG_WORDS_ELSEWHERE.iter().any(|(p, _)| *p == rel) {
                wrong.push(format!(
                    "{rel}: a \"--word\" literal: a library parses no flag"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Each listed file still holds one: the list only shrinks.
    for (p, why) in FLAG_WORDS_ELSEWHERE {
        let code = product_code(&std::fs::read_to_string(root().join(p)).unwrap());
        assert!(
            code.contains("\"--"),
            "{p} ({why}) holds no \"--word\" any more: remove it from the list"
        );
    }
}

/// Source files (non-test lines) that name a `/proc` path without reading
/// it through `netlab_os::proc`, each with why (docs/architecture.md,
/// "/proc in one module").
const PROC_ELSEWHERE: [(&str, &str); 4] = [
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
        "crates/os/src/threads.rs",
        "a thread's own namespace file, opened to go back to it, not parsed",
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

/// A source file's module path inside its crate: `src/lib.rs` and
/// `src/main.rs` → `[]`, `src/a/b.rs` and `src/a/b/mod.rs` → `[a, b]`.
fn module_path(src: &std::path::Path, file: &std::path::Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text of a source file before its test module, without comments.
fn product_code(text: &str) -> String {
    text.lines()
        .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path a file names through `crate::` or `super::`, `use`
/// groups expanded (`crate::{a::B, c}` → `a::B`, `c`), as absolute
/// module paths of its crate.
fn named_paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    fn ident(s: &str) -> usize {
        s.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    }
    // Parses `rest` (after a `::`): a path, or a `{…}` group of paths;
    // each finished path is pushed onto `out` after `prefix`.
    fn walk(rest: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let rest = rest.trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        walk(&group[start..i], prefix.clone(), out);
                        return;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        walk(&group[start..i], prefix.clone(), out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let n = ident(rest);
        if n == 0 {
            out.push(prefix);
            return;
        }
        let mut path = prefix;
        path.push(rest[..n].to_string());
        match rest[n..].strip_prefix("::") {
            Some(more) => walk(more, path, out),
            None => out.push(path),
        }
    }
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        walk(&code[i + "crate::".len()..], Vec::new(), &mut out);
    }
    for (i, _) in code.match_indices("super::") {
        let before = code[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut base = here.to_vec();
        let mut rest = &code[i..];
        while let Some(more) = rest.strip_prefix("super::") {
            base.pop();
            rest = more;
        }
        walk(rest, base, &mut out);
    }
    out
}

/// Each crate's source files that import one another: for each package,
/// the edges file → file its `crate::` and `super::` paths make (an item
/// re-exported at the crate root counts as its defining module's).
fn import_edges() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut all = BTreeMap::new();
    for package in tree::packages() {
        let src = package.join("src");
        let files = tree::files_under(&src, Some("rs"));
        let modules: BTreeMap<Vec<String>, String> = files
            .iter()
            .map(|f| (module_path(&src, f), tree::relative(f)))
            .collect();
        // Root re-exports: `pub use a::b::{C, D}` → C, D live in a::b.
        let root_file = files
            .iter()
            .find(|f| module_path(&src, f).is_empty())
            .expect("lib.rs or main.rs");
        let root_code = product_code(&std::fs::read_to_string(root_file).unwrap());
        let mut reexported: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for stmt in root_code.split(';') {
            let Some(body) = stmt.trim_start().strip_prefix("pub use ") else {
                continue;
            };
            if body.starts_with("netlab_") || body.starts_with("crate::") {
                continue;
            }
            for path in named_paths(&format!("crate::{body}"), &[]) {
                if let Some((item, module)) = path.split_last() {
                    reexported.insert(item.clone(), module.to_vec());
                }
            }
        }
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for f in &files {
            let here = module_path(&src, f);
            let from = tree::relative(f);
            let code = product_code(&std::fs::read_to_string(f).unwrap());
            for path in named_paths(&code, &here) {
                // The longest prefix that is a file; a root item goes to
                // the module that defines it when the root re-exports it.
                let mut target = None;
                for n in (1..=path.len()).rev() {
                    if let Some(file) = modules.get(&path[..n]) {
                        target = Some(file.clone());
                        break;
                    }
                }
                if target.is_none() {
                    if let Some(module) = path.first().and_then(|p| reexported.get(p)) {
                        target = modules.get(module).cloned();
                    }
                }
                let Some(to) = target else { continue };
                // A module's own parent file declares it (`mod x;`): that
                // is not an import, and neither is a file naming itself.
                if to != from && !here.starts_with(&module_path(&src, &root().join(&to))) {
                    edges.entry(from.clone()).or_default().insert(to);
                }
            }
        }
        let name = package.file_name().unwrap().to_string_lossy().into_owned();
        all.insert(name, edges);
    }
    all
}

/// The strongly connected sets of more than one file (Tarjan's
/// algorithm), each sorted.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut set = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    set.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    self.out.push(set);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out
}

/// Crates layered bottom-up with no circle at all (docs/architecture.md,
/// "Files that import one another").
#[test]
fn no_crate_has_files_importing_one_another_in_a_circle() {
    let mut found = BTreeSet::new();
    for (package, edges) in import_edges() {
        for set in circles(&edges) {
            let prefix = format!("crates/{package}/src/");
            let short: Vec<String> = set
                .iter()
                .map(|f| f.trim_start_matches(&prefix).to_string())
                .collect();
            found.insert(format!("{package}: {}", short.join(" ↔ ")));
        }
    }
    assert!(
        found.is_empty(),
        "files that import one another in a circle (a reader cannot start at the \
         bottom): {found:#?}; layer them (docs/architecture.md, \"Files that import one another\")"
    );
}

#[test]
fn the_import_reader_sees_groups_super_and_circles() {
    let here = vec!["a".to_string(), "b".to_string()];
    let paths = named_paths(
        "use crate::{x::Y, z::{self, W}};\nlet v = super::c::D;\nuse super::super::e;",
        &here,
    );
    let paths: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(paths, ["x::Y", "z::self", "z::W", "a::c::D", "e"]);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in [
        ("1", "2"),
        ("2", "3"),
        ("3", "1"),
        ("3", "4"),
        ("4", "5"),
        ("5", "4"),
    ] {
        edges.entry(a.into()).or_default().insert(b.into());
    }
    let mut found = circles(&edges);
    found.sort();
    assert_eq!(found, [vec!["1", "2", "3"], vec!["4", "5"]]);
}
