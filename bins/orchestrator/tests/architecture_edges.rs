//! docs/architecture.md's table of crates and their workspace dependencies
//! equals what each Cargo.toml's `[dependencies]` says, so the prose cannot
//! drift from the build (house style 24).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Package name → its workspace packages under `[dependencies]`.
fn from_manifests() -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for dir in ["crates", "bins"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let manifest = entry.unwrap().path().join("Cargo.toml");
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            let mut name = None;
            let mut deps = BTreeSet::new();
            let mut section = String::new();
            for line in text.lines().map(str::trim) {
                if line.starts_with('[') {
                    section = line.to_string();
                    continue;
                }
                let key = line.split(['=', '.', ' ']).next().unwrap_or("");
                match section.as_str() {
                    "[package]" if key == "name" => {
                        name = line.split('"').nth(1).map(str::to_string);
                    }
                    "[dependencies]" if key.starts_with("netlab-") => {
                        deps.insert(key.to_string());
                    }
                    _ => {}
                }
            }
            out.insert(name.expect("a package name"), deps);
        }
    }
    out
}

/// The same from the doc's table rows "| `package` | deps | … |".
fn from_doc() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let name = cells[1].trim_matches('`');
        if !(name.starts_with("netlab-") || name == "orchestrator") {
            continue;
        }
        let deps = cells[2]
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty() && *d != "—")
            .map(|d| format!("netlab-{d}"))
            .collect();
        out.insert(name.to_string(), deps);
    }
    out
}

#[test]
fn the_architecture_doc_lists_every_crate_with_its_real_edges() {
    let (built, documented) = (from_manifests(), from_doc());
    assert!(built.len() >= 12, "{built:?}");
    assert_eq!(
        documented, built,
        "docs/architecture.md's crate table differs from the Cargo.toml files"
    );
}
