//! Where the report's files go as they are rendered ([`RenderTarget`]): into
//! memory ([`Vec<Rendered>`], for tests and small runs) or into a staging
//! folder on disk ([`Staged`]), so a report of thousands of scenarios holds
//! one scenario's plots at a time, never all of them (docs/scale.md §3).
//!
//! A staged report is all or nothing: its files are written under
//! `.report.PID.tmp/` inside the results folder and renamed into place by
//! [`Staged::commit`] once everything has rendered; a report that fails
//! (or is dropped uncommitted) removes its staging folder and leaves the
//! results folder as it was.

use std::path::{Path, PathBuf};

use crate::{Rendered, ReportError, ReportFiles};

/// Takes each rendered file as soon as it is rendered; `name` is a path
/// relative to the results folder (`index.html`, `scenarios/s03/index.html`).
pub trait RenderTarget {
    /// Keeps one file.
    fn put(&mut self, name: &str, bytes: &[u8]) -> Result<(), ReportError>;

    /// Adds `bytes` to the end of the file `name`, which was [`put`]
    /// before: a file written a scenario at a time (probes.csv), so none
    /// of it is held across scenarios.
    ///
    /// [`put`]: RenderTarget::put
    fn append(&mut self, name: &str, bytes: &[u8]) -> Result<(), ReportError>;
}

impl RenderTarget for Vec<Rendered> {
    fn put(&mut self, name: &str, bytes: &[u8]) -> Result<(), ReportError> {
        self.push(Rendered {
            name: name.to_string(),
            bytes: bytes.to_vec(),
        });
        Ok(())
    }

    fn append(&mut self, name: &str, bytes: &[u8]) -> Result<(), ReportError> {
        let f = self
            .iter_mut()
            .rev()
            .find(|r| r.name == name)
            .ok_or_else(|| not_put(name))?;
        f.bytes.extend_from_slice(bytes);
        Ok(())
    }
}

/// An append to a file never put.
fn not_put(name: &str) -> ReportError {
    ReportError::Field {
        path: "report file".into(),
        message: format!("{name:?} appended to before it was written"),
    }
}

/// A report being written into a staging folder of its results folder.
#[derive(Debug)]
pub struct Staged {
    out_dir: PathBuf,
    stage: PathBuf,
    names: Vec<String>,
    committed: bool,
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ReportError {
    let path = path.to_path_buf();
    move |source| ReportError::Io { what, path, source }
}

/// A file name a report may write: relative, without `..`.
fn checked(name: &str) -> Result<&Path, ReportError> {
    let p = Path::new(name);
    if p.is_absolute()
        || p.components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(ReportError::Field {
            path: "report file".into(),
            message: format!("{name:?} is not a plain relative file name"),
        });
    }
    Ok(p)
}

impl Staged {
    /// A fresh staging folder in `out_dir` (created if missing).
    pub fn new(out_dir: &Path) -> Result<Staged, ReportError> {
        std::fs::create_dir_all(out_dir).map_err(io("creating", out_dir))?;
        let stage = out_dir.join(format!(".report.{}.tmp", std::process::id()));
        if stage.exists() {
            std::fs::remove_dir_all(&stage).map_err(io("removing", &stage))?;
        }
        std::fs::create_dir(&stage).map_err(io("creating", &stage))?;
        Ok(Staged {
            out_dir: out_dir.to_path_buf(),
            stage,
            names: Vec::new(),
            committed: false,
        })
    }

    /// Renames every staged file into place, in the order they were
    /// rendered, and removes the staging folder.
    pub fn commit(mut self) -> Result<ReportFiles, ReportError> {
        let mut written = ReportFiles {
            svgs: Vec::new(),
            html: self.out_dir.join("index.html"),
            pages: Vec::new(),
            flent: Vec::new(),
            data: Vec::new(),
        };
        for name in &self.names {
            let from = self.stage.join(name);
            let dest = self.out_dir.join(name);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).map_err(io("creating", parent))?;
            }
            std::fs::rename(&from, &dest).map_err(io("renaming into place", &dest))?;
            if name.ends_with(".svg") {
                written.svgs.push(dest);
            } else if name.ends_with(".flent.gz") {
                written.flent.push(dest);
            } else if name.starts_with("sweep.") || name.ends_with(".csv") {
                written.data.push(dest);
            } else if name.ends_with(".html") && name != "index.html" {
                written.pages.push(dest);
            }
        }
        self.committed = true;
        std::fs::remove_dir_all(&self.stage).map_err(io("removing", &self.stage))?;
        Ok(written)
    }
}

impl RenderTarget for Staged {
    fn put(&mut self, name: &str, bytes: &[u8]) -> Result<(), ReportError> {
        let path = self.stage.join(checked(name)?);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io("creating", parent))?;
        }
        std::fs::write(&path, bytes).map_err(io("writing", &path))?;
        self.names.push(name.to_string());
        Ok(())
    }

    fn append(&mut self, name: &str, bytes: &[u8]) -> Result<(), ReportError> {
        use std::io::Write as _;
        let path = self.stage.join(checked(name)?);
        if !path.is_file() {
            return Err(not_put(name));
        }
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(bytes))
            .map_err(io("appending to", &path))
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.stage);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use netlab_os::testing::Scratch;

    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = walk(dir, dir);
        v.sort();
        v
    }

    fn walk(root: &Path, dir: &Path) -> Vec<String> {
        let mut v = Vec::new();
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                v.extend(walk(root, &p));
            } else {
                v.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
        v
    }

    #[test]
    fn a_committed_report_lands_in_place_and_leaves_no_staging_folder() {
        let dir = Scratch::new("sink-commit");
        std::fs::write(dir.0.join("results.json"), b"{}").unwrap();
        let mut s = Staged::new(&dir.0).unwrap();
        s.put("scenarios/s01/s01-goodput.svg", b"<svg/>").unwrap();
        s.put("scenarios/s01/index.html", b"page").unwrap();
        s.put("index.html", b"index").unwrap();
        assert_eq!(
            listing(&dir.0)
                .iter()
                .filter(|n| !n.starts_with(".report."))
                .count(),
            1,
            "nothing in place before the commit"
        );
        let files = s.commit().unwrap();
        assert_eq!(
            listing(&dir.0),
            [
                "index.html",
                "results.json",
                "scenarios/s01/index.html",
                "scenarios/s01/s01-goodput.svg",
            ]
        );
        assert_eq!(files.pages, vec![dir.0.join("scenarios/s01/index.html")]);
        assert_eq!(
            files.svgs,
            vec![dir.0.join("scenarios/s01/s01-goodput.svg")]
        );
        assert_eq!(std::fs::read(&files.html).unwrap(), b"index");
    }

    /// The streaming contract of [`crate::render_into`]: each scenario's
    /// files (its four plots, its Flent file, its page) come together and
    /// before the next scenario's, so nothing of one scenario need be held
    /// past its page; index.html comes after every page.
    #[test]
    fn each_scenario_s_files_are_put_together_before_the_next_one_s() {
        let input = netlab_analysis::testing::input(2);
        let mut names: Vec<Rendered> = Vec::new();
        crate::render_into(&input, &mut names).unwrap();
        let names: Vec<&str> = names.iter().map(|r| r.name.as_str()).collect();
        let index = names.iter().position(|n| *n == "index.html").unwrap();
        let mut last_page = 0;
        for s in &input.scenarios {
            let page = netlab_figures::layout::scenario_page(s.index);
            let at = names.iter().position(|n| *n == page).unwrap();
            let own = format!("{}/", netlab_figures::layout::scenario_dir(s.index));
            let flent = format!("flent/s{:02}-", s.index);
            let first = names
                .iter()
                .position(|n| n.starts_with(&own) || n.starts_with(&flent))
                .unwrap();
            let mine: Vec<&str> = names[first..at].to_vec();
            // Its four plots, and its Flent file when one could be made.
            let svgs = mine.iter().filter(|n| n.ends_with(".svg")).count();
            let flents = mine.iter().filter(|n| n.ends_with(".flent.gz")).count();
            assert!(
                svgs == 4 && flents <= 1 && mine.len() == svgs + flents,
                "{mine:?}"
            );
            assert!(
                mine.iter()
                    .all(|n| n.starts_with(&own) || n.starts_with(&flent)),
                "{mine:?}"
            );
            assert!(first > last_page && at < index, "{names:?}");
            last_page = at;
        }
    }

    #[test]
    fn a_report_dropped_uncommitted_leaves_the_folder_as_it_was() {
        let dir = Scratch::new("sink-drop");
        std::fs::write(dir.0.join("results.json"), b"{}").unwrap();
        let mut s = Staged::new(&dir.0).unwrap();
        s.put("scenarios/s01/index.html", b"page").unwrap();
        assert!(s.put("../escape.html", b"x").is_err());
        assert!(s.put("/abs.html", b"x").is_err());
        drop(s);
        assert_eq!(listing(&dir.0), ["results.json"]);
    }

    /// A file written a scenario at a time: put once, then appended to,
    /// in either sink; an append to a file never put is refused.
    #[test]
    fn an_appended_file_is_its_header_then_each_append_in_order() {
        let dir = Scratch::new("sink-append");
        let mut staged = Staged::new(&dir.0).unwrap();
        let mut memory: Vec<Rendered> = Vec::new();
        for sink in [&mut staged as &mut dyn RenderTarget, &mut memory] {
            sink.put("probes.csv", b"seq\n").unwrap();
            sink.put("s01-goodput.svg", b"<svg/>").unwrap();
            sink.append("probes.csv", b"1\n").unwrap();
            sink.append("probes.csv", b"2\n").unwrap();
            assert!(sink.append("flows.csv", b"1\n").is_err());
        }
        assert_eq!(memory.len(), 2);
        assert_eq!(memory[0].bytes, b"seq\n1\n2\n");
        let files = staged.commit().unwrap();
        assert_eq!(files.data, vec![dir.0.join("probes.csv")]);
        assert_eq!(
            std::fs::read(dir.0.join("probes.csv")).unwrap(),
            b"seq\n1\n2\n"
        );
        assert_eq!(listing(&dir.0), ["probes.csv", "s01-goodput.svg"]);
    }
}
