//! The repository's own files, as the tests that hold docs and code to
//! their rules read them (architecture_edges, long_functions, names,
//! readme): the checkout's root, the files under a folder, the product's
//! sources. (Shared by several test crates; each uses a part.)
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The checkout's root folder.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file under the root, read whole; a missing file fails the test with
/// its path.
pub fn read(rel: impl AsRef<Path>) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `path` relative to the root, with `/` separators (`crates/os/src/proc.rs`).
pub fn relative(path: &Path) -> String {
    let root = root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// Every file under `dir` (subfolders included) whose name ends in `.ext`,
/// or every file when `ext` is `None`, sorted. Build output (`target/`)
/// and hidden entries are left out; a missing folder gives nothing.
pub fn files_under(dir: &Path, ext: Option<&str>) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: Option<&str>, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name == "target" || name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                walk(&path, ext, out);
            } else if ext.is_none_or(|x| path.extension().is_some_and(|e| e == x)) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, ext, &mut out);
    out.sort();
    out
}

/// Each workspace package folder under `crates/` and `bins/`
/// (`crates/os`, `bins/orchestrator`), sorted.
pub fn packages() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for group in ["crates", "bins"] {
        for entry in std::fs::read_dir(root().join(group)).unwrap() {
            let dir = entry.unwrap().path();
            if dir.join("Cargo.toml").exists() {
                out.push(dir);
            }
        }
    }
    out.sort();
    out
}

/// Every `.rs` file of the product: each package's `src/`.
pub fn product_sources() -> Vec<PathBuf> {
    packages()
        .iter()
        .flat_map(|p| files_under(&p.join("src"), Some("rs")))
        .collect()
}
