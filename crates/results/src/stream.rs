//! Reading a results.json one scenario at a time: the top-level object is
//! walked key by key; each element of `scenarios` is deserialized, handed
//! to the caller and dropped, and every other key is kept as JSON to become
//! the run's header. Memory is one scenario plus what the caller keeps,
//! however many scenarios the file holds. Errors name the field's path as
//! the whole read does (`scenarios[1].probe.requests[3].rtt_ms`).
//!
//! Version 1 files, and a version 2 or 3 file whose `experiment` comes
//! after its `scenarios` (netlab always writes it before), are read whole
//! ([`Results::read`]) and handed over the same way.

use std::io::Read as _;
use std::path::Path;

use netlab_experiment::ExperimentFile;

use crate::read::{deserialize_at, sniff_version, ReadError};
use crate::split::{split_each, SplitError};
use crate::{Results, ScenarioResult, SCHEMA_VERSION};

/// Reads the results.json at `file` (any version, gzipped or not:
/// [`crate::open`]): calls
/// `each(experiment, scenario)` for every scenario in order, then returns
/// the header (the run with no scenarios).
pub fn read_each(
    file: &Path,
    mut each: impl FnMut(&ExperimentFile, &ScenarioResult),
) -> Result<Results, ReadError> {
    read_each_dyn(file, &mut each)
}

/// The callback every walk is handed, as a trait object: the walk and the
/// whole results.json deserializer under it are compiled once, here, not
/// again in every crate (and for every closure) that reads a run.
type Each<'a> = &'a mut dyn FnMut(&ExperimentFile, &ScenarioResult);

fn read_each_dyn(file: &Path, each: Each<'_>) -> Result<Results, ReadError> {
    let mut f = crate::read::open(file)?;
    // netlab writes schema_version first: its value is in the first bytes.
    let mut head = Vec::new();
    (&mut f)
        .take(4096)
        .read_to_end(&mut head)
        .map_err(ReadError::io(file))?;
    drop(f);
    // Versions 2, 3 and 4 share one shape (3 and 4 only add optional fields).
    if matches!(
        sniff_version(&head),
        Some(2) | Some(3) | Some(SCHEMA_VERSION)
    ) {
        match stream(file, crate::read::open(file)?, &mut *each) {
            Err(Streamed::OutOfOrder) => {}
            Err(Streamed::Failed(e)) => return Err(e),
            Ok(header) => return Ok(header),
        }
    }
    // Version 1, a refusal (unknown or missing version), or an unusual key
    // order: the whole read, which also gives those errors their wording.
    let results = Results::read(file)?;
    for s in &results.scenarios {
        each(&results.experiment, s);
    }
    Ok(Results {
        scenarios: Vec::new(),
        ..results
    })
}

enum Streamed {
    OutOfOrder,
    Failed(ReadError),
}

/// The run's experiment, read from the header's bytes before the first
/// scenario: `None` when `experiment` comes after `scenarios`.
#[derive(serde::Deserialize)]
struct ExperimentFirst {
    experiment: Option<ExperimentFile>,
}

/// Walks the file with the same splitter a merge uses
/// ([`crate::split::split_each`]): each scenario's bytes are parsed, handed
/// over and dropped; the experiment is read from the header's bytes when
/// the first scenario is whole; the header is parsed at the end. Every
/// parse is the whole read's ([`crate::read::deserialize_at`]), so one
/// deserializer serves both.
fn stream(
    file: &Path,
    reader: Box<dyn std::io::Read>,
    each: Each<'_>,
) -> Result<Results, Streamed> {
    let mut experiment: Option<ExperimentFile> = None;
    let mut stopped: Option<Streamed> = None;
    let mut stop = |why: Streamed| {
        stopped = Some(why);
        SplitError::Refused(String::new())
    };
    let walked = split_each(file, reader, &mut |position, element, header| {
        if experiment.is_none() {
            let mut head = header.to_vec();
            head.extend_from_slice(b"]}");
            match deserialize_at::<ExperimentFirst>(&head, "") {
                Ok(ExperimentFirst {
                    experiment: Some(e),
                }) => experiment = Some(e),
                Ok(ExperimentFirst { experiment: None }) => return Err(stop(Streamed::OutOfOrder)),
                Err(e) => return Err(stop(Streamed::Failed(e))),
            }
        }
        let at = format!("scenarios[{position}]");
        match deserialize_at::<ScenarioResult>(element, &at) {
            Ok(s) => {
                each(experiment.as_ref().expect("read above"), &s);
                Ok(())
            }
            Err(e) => Err(stop(Streamed::Failed(e))),
        }
    });
    let header = match walked {
        Ok(header) => header,
        Err(SplitError::Refused(_)) => return Err(stopped.expect("a refusal says why")),
        Err(SplitError::Io { path, source }) => {
            return Err(Streamed::Failed(ReadError::Io {
                what: "reading",
                path,
                source,
            }))
        }
        Err(SplitError::Truncated {
            inside, position, ..
        }) => {
            let at = if inside == "the top-level object" {
                String::new()
            } else {
                format!("scenarios[{position}]")
            };
            return Err(Streamed::Failed(ReadError::field(
                &at,
                format!("EOF while parsing: the text ends inside {inside}"),
            )));
        }
        Err(other) => return Err(Streamed::Failed(ReadError::field("", other.to_string()))),
    };
    deserialize_at(&header, "").map_err(Streamed::Failed)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::write_json_atomic;
    use netlab_os::testing::Scratch;
    use serde_json::{Map, Value};

    fn golden() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator/golden/results.json")
    }

    /// The golden run (schema 1) written in the current schema, with an
    /// interrupted record and a third scenario.
    fn v2_file(dir: &Scratch) -> (PathBuf, Results) {
        let mut r = Results::read(&golden()).unwrap();
        let mut third = r.scenarios[1].clone();
        third.index = 3;
        r.scenarios.push(third);
        r.interrupted = Some(crate::Interrupted {
            signal: "SIGTERM".into(),
            scenario: None,
            phase: "between scenarios".into(),
            at_s: None,
        });
        let path = dir.0.join("results.json");
        write_json_atomic(&path, &r).unwrap();
        (path, r)
    }

    /// The file read one scenario at a time, put back together.
    fn read_all(path: &Path) -> Result<Results, ReadError> {
        let (mut seen, mut experiments) = (Vec::new(), Vec::new());
        let header = read_each(path, |e, s| {
            experiments.push(e.clone());
            seen.push(s.clone());
        })?;
        assert!(header.scenarios.is_empty());
        // Each scenario comes with the run's experiment.
        assert!(experiments.iter().all(|e| *e == header.experiment));
        Ok(Results {
            scenarios: seen,
            ..header
        })
    }

    /// Streamed or read whole, a file gives the same header and scenarios,
    /// for schema 2 (streamed) and schema 1 (read whole).
    #[test]
    fn streaming_gives_what_the_whole_read_gives() {
        let dir = Scratch::new("stream-same");
        let (v2, _) = v2_file(&dir);
        for path in [v2, golden()] {
            assert_eq!(read_all(&path).unwrap(), Results::read(&path).unwrap());
        }
    }

    /// A file whose experiment comes after its scenarios is read whole.
    #[test]
    fn scenarios_before_the_experiment_are_read_whole() {
        let dir = Scratch::new("stream-order");
        let (path, whole) = v2_file(&dir);
        let mut v: Map<String, Value> =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let exp = v.remove("experiment").unwrap();
        v.insert("experiment".into(), exp);
        std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
        let back = read_all(&path).unwrap();
        assert_eq!(back.scenarios.len(), 3);
        assert_eq!(back, whole);
    }

    /// Errors of a streamed read name the field's path like the whole read.
    #[test]
    fn a_streamed_read_names_the_broken_field_and_a_truncation() {
        let dir = Scratch::new("stream-errors");
        let (path, _) = v2_file(&dir);
        let text = std::fs::read_to_string(&path).unwrap();
        let broken = text.replacen("\"series_bin_s\": 0.2", "\"series_bin_s\": \"0.2\"", 1);
        assert_ne!(broken, text, "the fixture changed: pick another field");
        std::fs::write(&path, &broken).unwrap();
        let e = read_all(&path).err().unwrap().to_string();
        assert!(
            e.contains("field scenarios[0].flows[0].tcp.series_bin_s")
                && e.contains("invalid type"),
            "{e}"
        );
        std::fs::write(&path, &text.as_bytes()[..text.len() / 2]).unwrap();
        let e = read_all(&path).err().unwrap().to_string();
        assert!(
            e.contains("results.json: field scenarios[") && e.contains("EOF"),
            "{e}"
        );
        let future = text.replacen(
            &format!("\"schema_version\": {SCHEMA_VERSION},"),
            "\"schema_version\": 99,",
            1,
        );
        std::fs::write(&path, future).unwrap();
        let e = read_all(&path).err().unwrap();
        assert!(
            matches!(e, ReadError::UnsupportedSchema { found: 99, .. }),
            "{e}"
        );
        let e = read_all(&dir.0.join("none.json"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("reading ") && e.contains("none.json"), "{e}");
    }
}
