//! One concept, one name; one name, one concept (docs/architecture.md,
//! "Names"): a public type, trait, const, static or free function name
//! is defined in one workspace crate, and a type has one path, its
//! defining crate's. Each
//! exception is a row of a table there, with its reason, and a row that
//! no longer holds fails too, so the tables only shrink.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

mod tree;

/// Each workspace package folder's name (`os`, `orchestrator`) with the
/// text of every file under its `src/`.
fn packages() -> BTreeMap<String, Vec<(PathBuf, String)>> {
    let mut out = BTreeMap::new();
    for dir in tree::packages() {
        let texts = tree::files_under(&dir.join("src"), Some("rs"))
            .into_iter()
            .map(|f| {
                let t = std::fs::read_to_string(&f).unwrap();
                (f, t)
            })
            .collect();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        out.insert(name, texts);
    }
    out
}

/// The names a file defines at its top level: `pub struct|enum|trait|type|
/// const|static|fn NAME` at the start of a line (items of test modules
/// and impl blocks are indented, so they are not counted; `pub(crate)`
/// items are not public).
fn defined(text: &str) -> Vec<String> {
    let kinds = ["struct", "enum", "trait", "type", "const", "static", "fn"];
    text.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("pub ")?;
            let (kind, rest) = rest.split_once(' ')?;
            if !kinds.contains(&kind) {
                return None;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// The first cell of each row of the architecture.md table under
/// `header`, with the row's last cell (the reason).
fn table(header: &str) -> BTreeMap<String, String> {
    let text = tree::read("docs/architecture.md");
    let start = text
        .find(header)
        .unwrap_or_else(|| panic!("architecture.md has no table {header:?}"));
    let mut rows = BTreeMap::new();
    for line in text[start..].lines().skip(2) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let name = cells[1].trim_matches('`').to_string();
        let reason = cells[cells.len() - 2].to_string();
        assert!(!reason.is_empty(), "architecture.md: {name} has no reason");
        rows.insert(name, reason);
    }
    rows
}

#[test]
fn no_public_name_is_defined_in_two_crates_unless_the_docs_say_why() {
    let mut crates_of: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (package, files) in packages() {
        for (_, text) in files {
            for name in defined(&text) {
                crates_of.entry(name).or_default().insert(package.clone());
            }
        }
    }
    let listed = table("| name | defined in | why |");
    let twice: BTreeMap<&String, &BTreeSet<String>> =
        crates_of.iter().filter(|(_, c)| c.len() > 1).collect();
    let unlisted: Vec<String> = twice
        .iter()
        .filter(|(n, _)| !listed.contains_key(n.as_str()))
        .map(|(n, c)| format!("{n} ({})", c.iter().cloned().collect::<Vec<_>>().join(", ")))
        .collect();
    assert!(
        unlisted.is_empty(),
        "defined in two crates: {unlisted:?}; rename one to what it is, keep one \
         definition where both are the same, or list it in docs/architecture.md, \
         \"Names\", with the reason"
    );
    let stale: Vec<&String> = listed.keys().filter(|n| !twice.contains_key(n)).collect();
    assert!(
        stale.is_empty(),
        "docs/architecture.md, \"Names\", lists {stale:?}, no longer defined in two \
         crates: remove the rows"
    );
}

/// `pub use netlab_x::…` lines: a type reached through a second crate.
fn cross_crate_reexports(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("pub use netlab_"))
        .map(|l| {
            l.trim_start_matches("pub use ")
                .split([':', ' ', ';'])
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn a_crate_reexports_another_only_where_the_docs_say_why() {
    let mut found: BTreeSet<String> = BTreeSet::new();
    for (package, files) in packages() {
        for (_, text) in files {
            for from in cross_crate_reexports(&text) {
                found.insert(format!("{package} ← {from}"));
            }
        }
    }
    let listed = table("| re-export | why |");
    let unlisted: Vec<&String> = found.iter().filter(|r| !listed.contains_key(*r)).collect();
    assert!(
        unlisted.is_empty(),
        "cross-crate re-exports {unlisted:?}: use the defining crate's path, or list \
         the re-export in docs/architecture.md, \"Names\", with the reason"
    );
    let stale: Vec<&String> = listed.keys().filter(|r| !found.contains(*r)).collect();
    assert!(
        stale.is_empty(),
        "docs/architecture.md, \"Names\", lists re-exports {stale:?} that no longer \
         exist: remove the rows"
    );
}
