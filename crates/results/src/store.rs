//! The scenarios of a run on disk, so a run of any length holds none of
//! them in memory.
//!
//! Each finished scenario is written once, atomically, to
//! `OUT/scenarios/NNNN.json` and dropped ([`ScenarioFiles::push`]).
//! results.json keeps its shape (every scenario inline) and is still
//! replaced atomically whenever the run writes it, but it is assembled by
//! streaming ([`ScenarioFiles::write_results`]): the run's header, then each
//! scenario file's bytes copied in by the kernel (`copy_file_range`), then
//! the rest of the header. Each file already holds its scenario exactly as
//! `serde_json::to_vec_pretty` of the whole [`Results`] would print it
//! (indented for its place in the `scenarios` array), so the assembled file
//! is byte for byte what serialising the whole run would give.
//!
//! Memory does not depend on the number of scenarios; I/O does: writing
//! results.json after scenario k copies all k scenario files, so writing it
//! after every one of N scenarios of S bytes each would write about
//! S·N²/2 bytes (netlab-run writes it after the 1st, 2nd, 4th, … and at
//! the end: fewer than 3·S·N).

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use netlab_os::atomic::{sync_dir, AtomicFile, Durability};

use crate::file::{io, ResultsFileError};
use crate::{Results, ScenarioResult};

/// The folder, inside a run's results folder, that holds its scenario files.
pub const SCENARIO_DIR: &str = "scenarios";

/// The scenario files (`scenarios/NNNN.json`) a run left in `folder`, in
/// name order (= plan order); temporary files (`.…`) are left out.
pub fn scenario_files(folder: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(folder.join(SCENARIO_DIR)) {
        Ok(d) => d
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter(|p| {
                !p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

/// Where one finished scenario is kept.
#[derive(Debug)]
enum Kept {
    /// In its file under `scenarios/`.
    File(PathBuf),
    /// In memory, because its file could not be written (a full disk): the
    /// scenario is then still in results.json whenever that can be written.
    Memory(Box<ScenarioResult>),
}

/// The finished scenarios of one run, each in its own file, named by its
/// plan index and kept in plan order (a shard's or a resumed run's indices
/// need not be contiguous, nor pushed in order).
#[derive(Debug)]
pub struct ScenarioFiles {
    dir: PathBuf,
    kept: Vec<(u32, Kept)>,
    /// Each scenario file is synced before its rename (off for a merge's
    /// working copies: the merged results.json is synced, and they go).
    sync_each: bool,
}

/// Indentation of a scenario inside results.json's `scenarios` array.
const ELEMENT_INDENT: &[u8] = b"    ";

/// A writer that indents every line by [`ELEMENT_INDENT`], the first one
/// included: a scenario serialised through it appears as it does inside
/// the `scenarios` array of the pretty printed results.json. A raw newline
/// only ever separates tokens (JSON escapes newlines in strings), so
/// indenting after each one indents every line.
struct Indented<W: std::io::Write> {
    inner: W,
    started: bool,
}

impl<W: std::io::Write> std::io::Write for Indented<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.started {
            self.inner.write_all(ELEMENT_INDENT)?;
            self.started = true;
        }
        let mut rest = buf;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            self.inner.write_all(&rest[..=nl])?;
            self.inner.write_all(ELEMENT_INDENT)?;
            rest = &rest[nl + 1..];
        }
        self.inner.write_all(rest)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Reads one scenario file back, through the deserializer every read of
/// results.json uses (serde_json's slice reader, the path tracked), so no
/// second copy of it is compiled.
fn read_scenario(path: &Path) -> Result<ScenarioResult, ResultsFileError> {
    let bytes = std::fs::read(path).map_err(io("reading", path))?;
    let de = &mut serde_json::Deserializer::from_slice(&bytes);
    serde_path_to_error::deserialize(de).map_err(|e| ResultsFileError::Parse {
        path: path.to_path_buf(),
        source: e.into_inner(),
    })
}

/// Serialises `s` into `out` as it appears inside results.json's
/// `scenarios` array, through a small buffer (never the whole text).
fn write_element(s: &ScenarioResult, out: &File) -> Result<(), ElementError> {
    let mut w = Indented {
        inner: std::io::BufWriter::with_capacity(64 << 10, out),
        started: false,
    };
    serde_json::to_writer_pretty(&mut w, s).map_err(ElementError::Serialize)?;
    w.flush().map_err(ElementError::Write)
}

/// Why [`write_element`] failed.
enum ElementError {
    Serialize(serde_json::Error),
    Write(std::io::Error),
}

impl ElementError {
    fn at(self, path: &Path) -> ResultsFileError {
        match self {
            // serde_json reports the writer's I/O errors as its own.
            ElementError::Serialize(e) if e.is_io() => ResultsFileError::Io {
                what: "writing",
                path: path.to_path_buf(),
                source: e.into(),
            },
            ElementError::Serialize(source) => ResultsFileError::Serialize {
                path: path.to_path_buf(),
                source,
            },
            ElementError::Write(source) => ResultsFileError::Io {
                what: "writing",
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

/// Writes scenario `s` to `path` atomically and durably.
fn write_scenario_file(path: &Path, s: &ScenarioResult) -> Result<(), ResultsFileError> {
    let mut f = AtomicFile::create(path)?;
    let tmp = f.temp_path().to_path_buf();
    write_element(s, f.as_file()).map_err(|e| e.at(&tmp))?;
    Ok(f.commit(Durability::Synced)?)
}

impl ScenarioFiles {
    /// The scenario folder of the results folder `out`, created if missing.
    pub fn create(out: &Path) -> Result<ScenarioFiles, ResultsFileError> {
        let dir = out.join(SCENARIO_DIR);
        std::fs::create_dir_all(&dir).map_err(io("creating", &dir))?;
        Ok(ScenarioFiles {
            dir,
            kept: Vec::new(),
            sync_each: true,
        })
    }

    /// Working copies only: [`ScenarioFiles::push_raw`] does not sync each
    /// file (a merge, whose results.json is synced when assembled and
    /// whose scenario files are removed after it; a merge cut short is
    /// simply run again).
    pub fn working_copies(mut self) -> ScenarioFiles {
        self.sync_each = false;
        self
    }

    /// The file of the scenario with plan index `index`: `scenarios/0007.json`.
    pub fn path_of(&self, index: u32) -> PathBuf {
        self.dir.join(format!("{index:04}.json"))
    }

    /// How many scenarios are kept.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// The plan indices of the scenarios kept, in plan order.
    pub fn indices(&self) -> Vec<u32> {
        self.kept.iter().map(|(i, _)| *i).collect()
    }

    /// Whether no scenario is kept yet.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Puts `kept` in its place in plan order, replacing an earlier record
    /// of the same scenario (a resumed run re-runs a partial one).
    fn keep(&mut self, index: u32, kept: Kept) {
        match self.kept.binary_search_by_key(&index, |(i, _)| *i) {
            Ok(at) => self.kept[at] = (index, kept),
            Err(at) => self.kept.insert(at, (index, kept)),
        }
    }

    /// Keeps a finished scenario: writes it to its own file (atomically)
    /// and drops it. If the file cannot be written the scenario is kept in
    /// memory instead (nothing measured is lost) and the error returned.
    pub fn push(&mut self, scenario: ScenarioResult) -> Result<(), ResultsFileError> {
        let index = scenario.index;
        let path = self.path_of(index);
        match write_scenario_file(&path, &scenario) {
            Ok(()) => {
                self.keep(index, Kept::File(path));
                Ok(())
            }
            Err(e) => {
                self.keep(index, Kept::Memory(Box::new(scenario)));
                Err(e)
            }
        }
    }

    /// Keeps scenario `index` from its bytes as they stand inside another
    /// results.json's `scenarios` array (`element`, from its `{` to its
    /// `}`, inner lines indented for that place), copied unchanged: a
    /// merged or resumed results.json holds the same bytes. The caller has
    /// parsed them (see [`crate::split`]).
    pub fn push_raw(&mut self, index: u32, element: &[u8]) -> Result<(), ResultsFileError> {
        let path = self.path_of(index);
        let mut f = AtomicFile::create(&path)?;
        f.write_all(ELEMENT_INDENT).map_err(f.error("writing"))?;
        f.write_all(element).map_err(f.error("writing"))?;
        f.commit(if self.sync_each {
            Durability::Synced
        } else {
            Durability::Unsynced
        })?;
        self.keep(index, Kept::File(path));
        Ok(())
    }

    /// Writes results.json at `path` atomically: `header` (whose own
    /// `scenarios` must be empty) with every pushed scenario in its
    /// `scenarios` array, streamed from the scenario files.
    pub fn write_results(&self, header: &Results, path: &Path) -> Result<(), ResultsFileError> {
        debug_assert!(header.scenarios.is_empty(), "scenarios live in their files");
        let serialize = |source| ResultsFileError::Serialize {
            path: path.to_path_buf(),
            source,
        };
        let text = serde_json::to_vec_pretty(header).map_err(serialize)?;
        // The header's empty array: a top-level key (two spaces after a
        // raw newline, which can only be formatting) named `scenarios`.
        let key = b"\n  \"scenarios\": [";
        let at = text
            .windows(key.len())
            .position(|w| w == key)
            .map(|p| p + key.len())
            .filter(|&p| text.get(p) == Some(&b']'))
            .ok_or_else(|| ResultsFileError::Io {
                what: "assembling (no empty scenarios array in the header)",
                path: path.to_path_buf(),
                source: std::io::Error::other("unexpected header shape"),
            })?;
        let mut f = AtomicFile::create(path)?;
        let tmp = f.temp_path().to_path_buf();
        f.write_all(&text[..at]).map_err(f.error("writing"))?;
        for (i, (_, kept)) in self.kept.iter().enumerate() {
            let sep: &[u8] = if i == 0 { b"\n" } else { b",\n" };
            f.write_all(sep).map_err(f.error("writing"))?;
            match kept {
                Kept::File(p) => {
                    let mut src = File::open(p).map_err(io("opening", p))?;
                    // File to file: the kernel copies (copy_file_range).
                    std::io::copy(&mut src, f.as_file()).map_err(io("copying", p))?;
                }
                Kept::Memory(s) => write_element(s, f.as_file()).map_err(|e| e.at(&tmp))?,
            }
        }
        if !self.kept.is_empty() {
            f.write_all(b"\n  ").map_err(f.error("writing"))?;
        }
        f.write_all(&text[at..]).map_err(f.error("writing"))?;
        f.commit(Durability::Synced)?;
        // The scenario files' renames, durable with the file that holds them.
        sync_dir(&self.dir);
        Ok(())
    }

    /// Hands every pushed scenario to `f`, in order, read back one at a
    /// time: only one scenario's raw data is in memory at once.
    pub fn for_each(
        &self,
        mut f: impl FnMut(&ScenarioResult) -> Result<(), ResultsFileError>,
    ) -> Result<(), ResultsFileError> {
        self.for_each_dyn(&mut f)
    }

    /// [`ScenarioFiles::for_each`] with the callback as a trait object, so
    /// a scenario's deserializer is compiled here once, not in each caller.
    fn for_each_dyn(
        &self,
        f: &mut dyn FnMut(&ScenarioResult) -> Result<(), ResultsFileError>,
    ) -> Result<(), ResultsFileError> {
        for (_, kept) in &self.kept {
            match kept {
                Kept::File(p) => f(&read_scenario(p)?)?,
                Kept::Memory(s) => f(s)?,
            }
        }
        Ok(())
    }

    /// Removes the scenario files and their folder (once results.json holds
    /// them all). A scenario kept in memory has no file; the folder is left
    /// if something else is in it.
    pub fn remove_files(&self) -> Result<(), ResultsFileError> {
        for (_, kept) in &self.kept {
            if let Kept::File(p) = kept {
                std::fs::remove_file(p).map_err(io("removing", p))?;
            }
        }
        let _ = std::fs::remove_dir(&self.dir);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_os::atomic::temp_path;
    use netlab_os::testing::Scratch;

    fn golden() -> Results {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator/golden/results.json");
        Results::read(&p).unwrap()
    }

    fn header_of(r: &Results) -> Results {
        Results {
            scenarios: Vec::new(),
            ..r.clone()
        }
    }

    /// The assembled file is byte for byte what serialising the whole run
    /// gives, with no, one and several scenarios, with and without the
    /// `interrupted` record after the array.
    #[test]
    fn assembled_results_json_equals_the_whole_run_serialised() {
        let dir = Scratch::new("store-bytes");
        let mut full = golden();
        full.interrupted = Some(crate::Interrupted {
            signal: "SIGINT".into(),
            scenario: Some(3),
            phase: "loaded".into(),
            at_s: Some(4.5),
        });
        let mut third = full.scenarios[0].clone();
        third.index = 3;
        third.error = Some("line one\nline two \"quoted\"\n  \"scenarios\": []".into());
        full.scenarios.push(third);
        for interrupted in [false, true] {
            let mut full = full.clone();
            if !interrupted {
                full.interrupted = None;
            }
            let out = dir.0.join(format!("run-{interrupted}"));
            std::fs::create_dir_all(&out).unwrap();
            let mut files = ScenarioFiles::create(&out).unwrap();
            let path = out.join("results.json");
            for n in 0..=full.scenarios.len() {
                let expect = serde_json::to_vec_pretty(&Results {
                    scenarios: full.scenarios[..n].to_vec(),
                    ..full.clone()
                })
                .unwrap();
                files.write_results(&header_of(&full), &path).unwrap();
                assert_eq!(
                    String::from_utf8(std::fs::read(&path).unwrap()).unwrap(),
                    String::from_utf8(expect).unwrap(),
                    "{n} scenario(s), interrupted {interrupted}"
                );
                if let Some(s) = full.scenarios.get(n) {
                    files.push(s.clone()).unwrap();
                    assert!(files.path_of(n as u32 + 1).exists());
                }
            }
            // Each file is a scenario on its own, and they read back in order.
            let mut back = Vec::new();
            files
                .for_each(|s| {
                    back.push(s.clone());
                    Ok(())
                })
                .unwrap();
            assert_eq!(back, full.scenarios);
            assert_eq!(files.indices(), [1, 2, 3]);
            assert_eq!(Results::read(&path).unwrap(), full);
            files.remove_files().unwrap();
            assert!(!out.join(SCENARIO_DIR).exists());
            assert!(path.exists());
        }
    }

    /// A scenario whose file cannot be written stays in memory, in its
    /// place: results.json still holds every scenario, in order.
    #[test]
    fn a_scenario_that_cannot_be_written_is_kept_in_memory_in_order() {
        let dir = Scratch::new("store-fallback");
        let full = golden();
        let mut files = ScenarioFiles::create(&dir.0).unwrap();
        // The first file's temporary name is taken by a folder.
        std::fs::create_dir(temp_path(&files.path_of(1))).unwrap();
        assert!(files.push(full.scenarios[0].clone()).is_err());
        files.push(full.scenarios[1].clone()).unwrap();
        assert!(!files.path_of(1).exists() && files.path_of(2).exists());
        let path = dir.0.join("results.json");
        files.write_results(&header_of(&full), &path).unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            serde_json::to_vec_pretty(&full).unwrap()
        );
    }
}
