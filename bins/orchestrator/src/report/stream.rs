//! Reading a results.json one scenario at a time: the top-level object is
//! walked key by key; each element of `scenarios` is deserialized, handed to
//! a [`RunDigest`] and dropped, and every other key is kept as JSON to
//! become the run's header. Memory is one scenario plus the digest, however
//! many scenarios the file holds. Errors name the field's path as the whole
//! read does (`scenarios[1].probe.requests[3].rtt_ms`).
//!
//! Version 1 files, and a version 2 file whose `experiment` comes after its
//! `scenarios` (netlab always writes it before), are read whole and fed the
//! same way.

use std::fmt;
use std::io::{BufReader, Read as _};
use std::path::Path;

use netlab_experiment::ExperimentFile;
use netlab_report::ReportError;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::{field, parse_results, sniff_version, RunDigest};
use crate::results::{Results, ScenarioResult, SCHEMA_VERSION};

/// The error a streamed read stops with when `scenarios` comes before
/// `experiment` (the file is then read whole).
const OUT_OF_ORDER: &str = "netlab-stream: scenarios before experiment";

/// Reads the results.json at `file`: its header (with no scenarios) and the
/// digest of its scenarios, read one at a time.
pub fn read_digest(file: &Path) -> Result<(Results, RunDigest), ReportError> {
    let io = |what: &'static str| {
        let path = file.to_path_buf();
        move |source| ReportError::Io { what, path, source }
    };
    let mut f = std::fs::File::open(file).map_err(io("reading"))?;
    // netlab writes schema_version first: its value is in the first bytes.
    let mut head = Vec::new();
    (&mut f)
        .take(4096)
        .read_to_end(&mut head)
        .map_err(io("reading"))?;
    if sniff_version(&head) == Some(SCHEMA_VERSION) {
        let f = std::fs::File::open(file).map_err(io("reading"))?;
        match stream(BufReader::new(f)) {
            Err(Streamed::OutOfOrder) => {}
            Err(Streamed::Failed(e)) => return Err(e),
            Ok(v) => return Ok(v),
        }
    }
    // Version 1, a refusal (unknown or missing version), or an unusual key
    // order: the whole read, which also gives those errors their wording.
    let bytes = std::fs::read(file).map_err(io("reading"))?;
    let results = parse_results(&bytes)?;
    let mut digest = RunDigest::new(&results.experiment);
    for s in &results.scenarios {
        digest.push(s);
    }
    Ok((
        Results {
            scenarios: Vec::new(),
            ..results
        },
        digest,
    ))
}

enum Streamed {
    OutOfOrder,
    Failed(ReportError),
}

fn stream(reader: impl std::io::Read) -> Result<(Results, RunDigest), Streamed> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut track = serde_path_to_error::Track::new();
    let mut digest = None;
    let walked = TopLevel {
        digest: &mut digest,
    }
    .deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track));
    let rest = match walked {
        Ok(rest) => rest,
        Err(e) if e.to_string().starts_with(OUT_OF_ORDER) => return Err(Streamed::OutOfOrder),
        Err(e) => return Err(Streamed::Failed(path_error(&track.path(), &e))),
    };
    de.end()
        .map_err(|e| Streamed::Failed(field("(top level)", &e.to_string())))?;
    let header: Results = serde_path_to_error::deserialize(Value::Object(rest)).map_err(|e| {
        let path = e.path().to_string();
        Streamed::Failed(field(&path, &e.into_inner().to_string()))
    })?;
    let digest = digest.unwrap_or_else(|| RunDigest::new(&header.experiment));
    Ok((header, digest))
}

fn path_error(path: &serde_path_to_error::Path, e: &serde_json::Error) -> ReportError {
    let path = path.to_string();
    let path = if path == "." {
        "(top level)".to_string()
    } else {
        path
    };
    field(&path, &e.to_string())
}

/// The top-level object: `experiment` typed (the digest needs it),
/// `scenarios` streamed into the digest, every other key kept as JSON; the
/// result is the header with an empty `scenarios` array.
struct TopLevel<'a> {
    digest: &'a mut Option<RunDigest>,
}

impl<'de> DeserializeSeed<'de> for TopLevel<'_> {
    type Value = Map<String, Value>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a netlab results.json object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut rest = Map::new();
        let mut experiment: Option<ExperimentFile> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "experiment" => {
                    let e: ExperimentFile = map.next_value()?;
                    let v = serde_json::to_value(&e).map_err(de::Error::custom)?;
                    experiment = Some(e);
                    rest.insert(key, v);
                }
                "scenarios" => {
                    let Some(e) = &experiment else {
                        return Err(de::Error::custom(OUT_OF_ORDER));
                    };
                    let digest = self.digest.insert(RunDigest::new(e));
                    map.next_value_seed(Scenarios { digest })?;
                    rest.insert(key, Value::Array(Vec::new()));
                }
                _ => {
                    let v: Value = map.next_value()?;
                    rest.insert(key, v);
                }
            }
        }
        Ok(rest)
    }
}

/// The `scenarios` array: each element read, digested and dropped.
struct Scenarios<'a> {
    digest: &'a mut RunDigest,
}

impl<'de> DeserializeSeed<'de> for Scenarios<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Scenarios<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of scenarios")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(s) = seq.next_element::<ScenarioResult>()? {
            self.digest.push(&s);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::report::input_from;
    use crate::results::write_json_atomic;

    use crate::scratch::Scratch;

    fn golden() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator/golden/results.json")
    }

    /// The golden run (schema 1) written as schema 2, with an interrupted
    /// record and a third scenario.
    fn v2_file(dir: &Scratch) -> (PathBuf, Results) {
        let mut r = Results::read(&golden()).unwrap();
        let mut third = r.scenarios[1].clone();
        third.index = 3;
        r.scenarios.push(third);
        r.interrupted = Some(crate::results::Interrupted {
            signal: "SIGTERM".into(),
            scenario: None,
            phase: "between scenarios".into(),
            at_s: None,
        });
        let path = dir.0.join("results.json");
        write_json_atomic(&path, &r).unwrap();
        (path, r)
    }

    /// Streamed or read whole, a file gives the same summary and the same
    /// report input, for schema 2 (streamed) and schema 1 (read whole).
    #[test]
    fn streaming_gives_what_the_whole_read_gives() {
        let dir = Scratch::new("stream-same");
        let (v2, _) = v2_file(&dir);
        for path in [v2, golden()] {
            let whole = super::super::read_results(&path).unwrap();
            let (header, digest) = read_digest(&path).unwrap();
            assert!(header.scenarios.is_empty());
            assert_eq!(
                Results {
                    scenarios: Vec::new(),
                    ..whole.clone()
                },
                header
            );
            let figures = digest.figures().to_vec();
            let input = digest.report_input(&header).unwrap();
            assert_eq!(
                crate::summary::render_figures(
                    &header,
                    &figures,
                    crate::summary::headline_of(Ok(&input)).as_deref(),
                    0
                ),
                crate::summary::render(&whole, 0)
            );
            assert_eq!(input, input_from(&whole).unwrap());
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
        let (header, digest) = read_digest(&path).unwrap();
        assert_eq!(digest.figures().len(), 3);
        assert_eq!(
            digest.report_input(&header).unwrap(),
            input_from(&whole).unwrap()
        );
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
        let e = read_digest(&path).err().unwrap().to_string();
        assert!(
            e.contains("field scenarios[0].flows[0].tcp.series_bin_s")
                && e.contains("invalid type"),
            "{e}"
        );
        std::fs::write(&path, &text.as_bytes()[..text.len() / 2]).unwrap();
        let e = read_digest(&path).err().unwrap().to_string();
        assert!(
            e.contains("results.json: field scenarios[") && e.contains("EOF"),
            "{e}"
        );
        let future = text.replacen("\"schema_version\": 2,", "\"schema_version\": 99,", 1);
        std::fs::write(&path, future).unwrap();
        let e = read_digest(&path).err().unwrap();
        assert!(
            matches!(e, ReportError::UnsupportedSchema { found: 99, .. }),
            "{e}"
        );
    }
}
