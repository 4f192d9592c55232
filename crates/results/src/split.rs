//! Reading a results.json as its header plus the exact bytes of each
//! scenario, one at a time: a merged or resumed results.json
//! copies every scenario's bytes unchanged from the file it came from, and
//! memory is one scenario, however many the file holds.
//!
//! [`Splitter`] is a pure byte-level state machine over JSON text: it
//! follows strings (with escapes) and nesting, finds the top-level key
//! `scenarios`, and hands out each element of that array from its first
//! byte to its last; everything else (with the array left empty) is the
//! header. It does not validate JSON: the header and every element are
//! parsed afterwards by serde, which names what is wrong.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::{Results, ScenarioResult, SCHEMA_VERSION};

/// Why a results.json could not be split or parsed.
#[derive(Debug, thiserror::Error)]
pub enum SplitError {
    /// The file could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The text ends inside a string, an object or an array.
    #[error("{path}: truncated (the JSON text ends inside {inside})")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Where it ended.
        inside: &'static str,
        /// How many scenarios were whole before it.
        position: usize,
    },
    /// The header (everything but the scenarios) does not parse.
    #[error("{path}: {field}: {reason}")]
    Header {
        /// The file.
        path: PathBuf,
        /// The field's path.
        field: String,
        /// What serde said.
        reason: String,
    },
    /// A scenario does not parse.
    #[error("{path}: scenarios[{position}]: {field}: {reason}")]
    Scenario {
        /// The file.
        path: PathBuf,
        /// 0-based position in the array.
        position: usize,
        /// The field's path inside the scenario.
        field: String,
        /// What serde said.
        reason: String,
    },
    /// Not a version this reads.
    #[error("{path}: schema_version {version} (merge and resume read results.json versions {SPLIT_VERSIONS:?})")]
    Version {
        /// The file.
        path: PathBuf,
        /// Its version.
        version: u64,
    },
    /// The callback refused an element.
    #[error("{0}")]
    Refused(String),
}

/// One event of the splitter.
#[derive(Debug, PartialEq, Eq)]
enum State {
    /// Outside the scenarios array.
    Header,
    /// Inside the scenarios array, between elements.
    Between,
    /// Inside an element.
    Element,
}

/// The byte-level state machine (pure).
#[derive(Debug)]
pub struct Splitter {
    depth: u32,
    in_string: bool,
    escape: bool,
    /// The last string completed at depth 1 (a top-level key), while short.
    last_key: Vec<u8>,
    collecting_key: bool,
    state: State,
    /// Depth of the scenarios array once entered.
    header: Vec<u8>,
    element: Vec<u8>,
    seen_scenarios: bool,
}

/// What one byte did.
enum Step {
    Nothing,
    /// An element ended with this byte.
    ElementDone,
}

impl Default for Splitter {
    fn default() -> Self {
        Splitter {
            depth: 0,
            in_string: false,
            escape: false,
            last_key: Vec::new(),
            collecting_key: false,
            state: State::Header,
            header: Vec::new(),
            element: Vec::new(),
            seen_scenarios: false,
        }
    }
}

impl Splitter {
    fn byte(&mut self, b: u8) -> Step {
        match self.state {
            State::Header => self.header.push(b),
            State::Element => self.element.push(b),
            State::Between => {}
        }
        if self.in_string {
            if self.escape {
                self.escape = false;
            } else if b == b'\\' {
                self.escape = true;
            } else if b == b'"' {
                self.in_string = false;
                self.collecting_key = false;
            } else if self.collecting_key && self.last_key.len() < 16 {
                self.last_key.push(b);
            }
            return Step::Nothing;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.state == State::Header {
                    self.collecting_key = true;
                    self.last_key.clear();
                }
                if self.state == State::Between {
                    // A string element: kept as an element (serde refuses it).
                    self.state = State::Element;
                    self.element.push(b);
                }
            }
            b'{' | b'[' => {
                if self.state == State::Between {
                    self.state = State::Element;
                    self.element.push(b);
                } else if b == b'['
                    && self.state == State::Header
                    && self.depth == 1
                    && self.last_key == b"scenarios"
                    && !self.seen_scenarios
                {
                    self.seen_scenarios = true;
                    self.depth += 1;
                    self.state = State::Between;
                    return Step::Nothing;
                }
                self.depth += 1;
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                if self.state == State::Element && self.depth == 2 {
                    self.state = State::Between;
                    return Step::ElementDone;
                }
                if self.state == State::Between && b == b']' && self.depth == 1 {
                    // The array closes: the header's is left empty (its
                    // `[` went to the header when it opened).
                    self.state = State::Header;
                    self.header.push(b']');
                }
            }
            _ => {}
        }
        Step::Nothing
    }

    /// Where the text stopped, if not at its end.
    fn unfinished(&self) -> Option<&'static str> {
        if self.in_string {
            Some("a string")
        } else if self.state != State::Header {
            Some("the scenarios array")
        } else if self.depth > 0 {
            Some("the top-level object")
        } else {
            None
        }
    }
}

/// The results.json versions [`read_split`] reads: 2, 3 and the one this
/// netlab writes (3 and 4 only add optional fields to 2's shape). The header it
/// returns keeps the file's own `schema_version`: a merge keeps it, a
/// resume asks for the current one.
pub const SPLIT_VERSIONS: [u32; 3] = [2, 3, SCHEMA_VERSION];

/// Reads `path`: calls `each(position, element_bytes, scenario)` for every
/// scenario in file order (bytes from the element's `{` to its `}`), then
/// returns the header (with no scenarios). Refuses a version other than
/// [`SPLIT_VERSIONS`].
pub fn read_split(
    path: &Path,
    mut each: impl FnMut(usize, &[u8], ScenarioResult) -> Result<(), SplitError>,
) -> Result<Results, SplitError> {
    let f = std::fs::File::open(path).map_err(|source| SplitError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let header = split_each(path, Box::new(f), &mut |position, bytes, _| {
        let s = parse_scenario(path, position, bytes)?;
        each(position, bytes, s)
    })?;
    parse_header(path, &header)
}

/// What [`split_each`] calls with each scenario: its position, its bytes
/// and the header's bytes so far.
pub(crate) type OnElement<'a> = &'a mut dyn FnMut(usize, &[u8], &[u8]) -> Result<(), SplitError>;

/// The splitting loop under [`read_split`] and the streamed read
/// ([`crate::stream::read_each`]): reads `reader` (the file at `path`)
/// through a [`Splitter`], calls `each(position, element_bytes,
/// header_so_far)` as each scenario's last byte arrives (the header so
/// far ends with the `scenarios` array's `[`), and returns the header's
/// bytes. Nothing is parsed here.
pub(crate) fn split_each(
    path: &Path,
    reader: Box<dyn std::io::Read>,
    each: OnElement<'_>,
) -> Result<Vec<u8>, SplitError> {
    let io = |source| SplitError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::io::BufReader::with_capacity(1 << 16, reader);
    let mut sp = Splitter::default();
    let mut buf = vec![0u8; 1 << 16];
    let mut position = 0usize;
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        for &b in &buf[..n] {
            if let Step::ElementDone = sp.byte(b) {
                let bytes = std::mem::take(&mut sp.element);
                each(position, &bytes, &sp.header)?;
                position += 1;
            }
        }
    }
    if let Some(inside) = sp.unfinished() {
        return Err(SplitError::Truncated {
            path: path.to_path_buf(),
            inside,
            position,
        });
    }
    Ok(sp.header)
}

fn parse_scenario(
    path: &Path,
    position: usize,
    bytes: &[u8],
) -> Result<ScenarioResult, SplitError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut de).map_err(|e| SplitError::Scenario {
        path: path.to_path_buf(),
        position,
        field: e.path().to_string(),
        reason: e.into_inner().to_string(),
    })
}

/// Parses one scenario file (`scenarios/NNNN.json`): the element's bytes
/// (its indentation before the `{` is dropped).
pub fn read_scenario_file(path: &Path) -> Result<(Vec<u8>, ScenarioResult), SplitError> {
    let bytes = std::fs::read(path).map_err(|source| SplitError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let element = bytes[start..].to_vec();
    let s = parse_scenario(path, 0, &element).map_err(|e| match e {
        SplitError::Scenario {
            path,
            field,
            reason,
            ..
        } => SplitError::Header {
            path,
            field,
            reason,
        },
        other => other,
    })?;
    Ok((element, s))
}

fn parse_header(path: &Path, header: &[u8]) -> Result<Results, SplitError> {
    #[derive(serde::Deserialize)]
    struct Version {
        schema_version: Option<u64>,
    }
    let bad = |field: String, reason: String| SplitError::Header {
        path: path.to_path_buf(),
        field,
        reason,
    };
    let v: Version =
        serde_json::from_slice(header).map_err(|e| bad("(file)".into(), e.to_string()))?;
    match v.schema_version {
        Some(v) if SPLIT_VERSIONS.iter().any(|s| u64::from(*s) == v) => {}
        Some(version) => {
            return Err(SplitError::Version {
                path: path.to_path_buf(),
                version,
            })
        }
        None => return Err(bad("schema_version".into(), "missing".into())),
    }
    let mut de = serde_json::Deserializer::from_slice(header);
    serde_path_to_error::deserialize(&mut de)
        .map_err(|e| bad(e.path().to_string(), e.into_inner().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScenarioFiles;
    use netlab_os::testing::Scratch;

    fn golden() -> Results {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator/golden/results.json");
        Results::read(&p).unwrap()
    }

    /// Every element comes out as the exact bytes it has in the file, the
    /// header reads back without them, and a tricky string (brackets,
    /// quotes, a `"scenarios": [` inside it) does not confuse it.
    #[test]
    fn elements_are_the_files_own_bytes() {
        let dir = Scratch::new("split-bytes");
        let mut full = golden();
        full.scenarios[0].error = Some("a \"scenarios\": [ {\\ ] } string".into());
        full.run_id = "[\"scenarios\"]".into();
        let path = dir.0.join("results.json");
        let text = serde_json::to_vec_pretty(&full).unwrap();
        std::fs::write(&path, &text).unwrap();
        let mut got = Vec::new();
        let header = read_split(&path, |pos, bytes, s| {
            assert_eq!(pos, got.len());
            got.push((bytes.to_vec(), s));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            header,
            Results {
                scenarios: Vec::new(),
                ..full.clone()
            }
        );
        assert_eq!(got.len(), full.scenarios.len());
        for ((bytes, s), want) in got.iter().zip(&full.scenarios) {
            assert_eq!(s, want);
            // The bytes are a substring of the file, as they stand in it.
            let at = text.windows(bytes.len()).position(|w| w == &bytes[..]);
            assert!(at.is_some());
            assert!(bytes.starts_with(b"{") && bytes.ends_with(b"}"));
        }
        // Re-assembled through the store, the file is the same bytes.
        let out = dir.0.join("again");
        std::fs::create_dir_all(&out).unwrap();
        let mut files = ScenarioFiles::create(&out).unwrap();
        for (bytes, s) in &got {
            files.push_raw(s.index, bytes).unwrap();
        }
        let again = out.join("results.json");
        files.write_results(&header, &again).unwrap();
        assert_eq!(std::fs::read(&again).unwrap(), text);
    }

    #[test]
    fn truncated_and_corrupt_files_are_named() {
        let dir = Scratch::new("split-bad");
        let full = golden();
        let text = serde_json::to_vec_pretty(&full).unwrap();
        let path = dir.0.join("results.json");
        // Cut inside a string of the second scenario, then between its
        // elements: each cut is named by where the text ended.
        let second = text
            .windows(b"\"index\": 2".len())
            .position(|w| w == b"\"index\": 2")
            .unwrap();
        let arm = second
            + text[second..]
                .windows(b"\"arm\": \"".len())
                .position(|w| w == b"\"arm\": \"")
                .unwrap();
        for (cut, where_) in [(arm + 9, "a string"), (second, "the scenarios array")] {
            std::fs::write(&path, &text[..cut]).unwrap();
            match read_split(&path, |_, _, _| Ok(())).unwrap_err() {
                SplitError::Truncated {
                    path: p, inside, ..
                } => {
                    assert_eq!(p, path);
                    assert_eq!(inside, where_);
                }
                other => panic!("not Truncated: {other:?}"),
            }
        }
        // A scenario with a field of the wrong type names it.
        let mut t = String::from_utf8(text.clone()).unwrap();
        t = t.replacen("\"index\": 2,", "\"index\": \"two\",", 1);
        std::fs::write(&path, &t).unwrap();
        match read_split(&path, |_, _, _| Ok(())).unwrap_err() {
            SplitError::Scenario {
                path: p,
                position,
                field,
                reason,
            } => {
                assert_eq!((p, position, field.as_str()), (path.clone(), 1, "index"));
                assert_eq!(
                    reason,
                    "invalid type: string \"two\", expected u32 at line 2 column 20"
                );
            }
            other => panic!("not Scenario: {other:?}"),
        }
        // A future version is refused by number.
        let t = String::from_utf8(text).unwrap().replacen(
            &format!("\"schema_version\": {SCHEMA_VERSION}"),
            "\"schema_version\": 7",
            1,
        );
        std::fs::write(&path, t).unwrap();
        match read_split(&path, |_, _, _| Ok(())).unwrap_err() {
            SplitError::Version { path: p, version } => assert_eq!((p, version), (path, 7)),
            other => panic!("not Version: {other:?}"),
        }
    }
}
