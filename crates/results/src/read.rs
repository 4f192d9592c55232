//! Reading a results.json of any version this netlab knows into
//! [`Results`] (the shape of [`SCHEMA_VERSION`], which versions 2 and 3
//! have without the newer optional fields): the version is judged first (a
//! future file is refused before its shape), then every field, an error
//! naming the field's path (`scenarios[1].probe.requests[3].rtt_ms`).
//! Version 1 is read in its own shape and migrated ([`crate::v1`]).

use std::io::{BufReader, Read, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::{Results, SCHEMA_VERSION};

/// The schema versions this netlab reads (every one but the last is
/// migrated on read).
pub const SUPPORTED_SCHEMAS: &[u32] = &[1, 2, 3, SCHEMA_VERSION];

/// Why a results.json could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done (`reading`).
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A field is missing or has the wrong type, or the text is not JSON
    /// (a truncated file names the field it stops in).
    #[error("results.json: field {path}: {message}")]
    Field {
        /// Path of the field (`scenarios[2].probe.requests[5].send_s`),
        /// `(top level)` for the file itself.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// A version this netlab does not read (a newer netlab wrote it).
    #[error("results.json has schema_version {found}, which this netlab cannot read (it reads {supported:?}); use the netlab version that wrote it, or a newer one")]
    UnsupportedSchema {
        /// The version found.
        found: u32,
        /// The versions this netlab reads.
        supported: Vec<u32>,
    },
}

impl ReadError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReadError {
        let path = path.to_path_buf();
        move |source| ReadError::Io {
            what: "reading",
            path,
            source,
        }
    }

    pub(crate) fn field(path: &str, message: impl Into<String>) -> ReadError {
        ReadError::Field {
            path: if path == "." || path.is_empty() {
                "(top level)".into()
            } else {
                path.into()
            },
            message: message.into(),
        }
    }
}

impl Results {
    /// Reads the results.json at `path` (any version; version 1 migrated),
    /// gzipped or not ([`open`]).
    pub fn read(path: &Path) -> Result<Results, ReadError> {
        let mut bytes = Vec::new();
        open(path)?
            .read_to_end(&mut bytes)
            .map_err(ReadError::io(path))?;
        Results::parse(&bytes)
    }

    /// Writes the run as pretty JSON to `path`, atomically and durably
    /// ([`crate::write_json_atomic`]). Not generic: the whole serializer is
    /// compiled here once, not in each crate that writes a run.
    pub fn write(&self, path: &Path) -> Result<(), crate::ResultsFileError> {
        crate::write_json_atomic(path, self)
    }

    /// [`Results::read`] on the file's bytes.
    pub fn parse(bytes: &[u8]) -> Result<Results, ReadError> {
        match version(bytes)? {
            1 => deserialize::<crate::v1::ResultsV1>(bytes).map(Results::from),
            _ => deserialize(bytes),
        }
    }
}

/// The bytes of the results.json at `path`, unpacked as they are read
/// when the file is gzipped (its first bytes are gzip's magic, 1f 8b), as
/// committed results are (`results.json.gz`), with the `gzip` feature;
/// without it a gzipped file is refused, saying so. Every reader of the
/// format goes through it, so none has to unpack a file first.
pub fn open(path: &Path) -> Result<Box<dyn Read>, ReadError> {
    let mut f = std::fs::File::open(path).map_err(ReadError::io(path))?;
    let mut magic = [0u8; 2];
    let n = f.read(&mut magic).map_err(ReadError::io(path))?;
    f.seek(SeekFrom::Start(0)).map_err(ReadError::io(path))?;
    let f = BufReader::new(f);
    if n == 2 && magic == [0x1f, 0x8b] {
        #[cfg(feature = "gzip")]
        return Ok(Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(
            f,
        ))));
        #[cfg(not(feature = "gzip"))]
        return Err(ReadError::field(
            "(top level)",
            "the file is gzipped: read it with netlab-results' `gzip` feature (netlab-report has it), or gunzip it first",
        ));
    }
    Ok(Box::new(f))
}

/// The results file of the folder `dir`: its `results.json`, else its
/// gzipped `results.json.gz` (a committed or archived run), else the
/// `results.json` a reader then fails to find, naming it.
pub fn file_in(dir: &Path) -> PathBuf {
    let plain = dir.join("results.json");
    let gz = dir.join("results.json.gz");
    if !plain.exists() && gz.is_file() {
        gz
    } else {
        plain
    }
}

#[derive(Deserialize)]
struct VersionOnly {
    schema_version: Option<u32>,
}

/// The file's version, refused unless this netlab reads it. A truncated
/// file still has one (netlab writes `schema_version` first); a file with
/// none is refused, and one that is not JSON at all is left to the full
/// read, which says where it breaks.
pub(crate) fn version(bytes: &[u8]) -> Result<u32, ReadError> {
    let v = match serde_json::from_slice::<VersionOnly>(bytes) {
        Ok(v) => v.schema_version,
        Err(_) => match sniff_version(bytes) {
            Some(v) => Some(v),
            None => return Ok(SCHEMA_VERSION),
        },
    };
    match v {
        None => Err(ReadError::field(
            "schema_version",
            "missing: this is not a netlab results.json",
        )),
        Some(n) if !SUPPORTED_SCHEMAS.contains(&n) => Err(ReadError::UnsupportedSchema {
            found: n,
            supported: SUPPORTED_SCHEMAS.to_vec(),
        }),
        Some(n) => Ok(n),
    }
}

/// The schema version of a file that does not parse (a truncated one, or
/// the first bytes of a large one): netlab writes `schema_version` first,
/// so its value can be read before the break.
pub(crate) fn sniff_version(bytes: &[u8]) -> Option<u32> {
    let key = b"\"schema_version\"";
    let at = bytes.windows(key.len()).position(|w| w == key)? + key.len();
    let rest = std::str::from_utf8(&bytes[at..bytes.len().min(at + 32)]).ok()?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn deserialize<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, ReadError> {
    deserialize_at(bytes, "")
}

/// Parses `bytes` as `T`, naming a broken field by its path under `at`
/// (`scenarios[2]` for a streamed scenario). The one deserializer of
/// results.json: the whole read, the streamed one and a merge's scenarios
/// all go through serde_json's slice reader with the path tracked.
pub(crate) fn deserialize_at<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    at: &str,
) -> Result<T, ReadError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let inner = e.path().to_string();
        let path = match (at, inner.as_str()) {
            (_, ".") | (_, "") => at.to_string(),
            ("", _) => inner,
            (_, i) if i.starts_with('[') => format!("{at}{i}"),
            (_, i) => format!("{at}.{i}"),
        };
        ReadError::field(&path, e.into_inner().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator/golden/results.json")
    }

    /// A gzipped results.json (as committed runs keep it) reads as the
    /// plain one, whole and streamed, and a folder holding only it is
    /// found by [`file_in`].
    #[test]
    fn a_gzipped_results_json_reads_as_the_plain_one() {
        use std::io::Write as _;
        let dir = netlab_os::testing::Scratch::new("read-gz");
        let plain = std::fs::read(golden()).unwrap();
        let gz = dir.0.join("results.json.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&plain).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        assert_eq!(file_in(&dir.0), gz);
        let want = Results::parse(&plain).unwrap();
        assert_eq!(Results::read(&gz).unwrap(), want);
        let mut streamed = Vec::new();
        let header = crate::stream::read_each(&gz, |_, s| streamed.push(s.clone())).unwrap();
        assert_eq!(streamed, want.scenarios);
        assert_eq!(header.run_id, want.run_id);
        // The plain file wins where both are.
        std::fs::write(dir.0.join("results.json"), &plain).unwrap();
        assert_eq!(file_in(&dir.0), dir.0.join("results.json"));
    }

    #[test]
    fn a_future_or_missing_schema_is_refused_before_its_shape() {
        let e = Results::parse(br#"{"schema_version": 99, "whatever": true}"#).unwrap_err();
        assert!(matches!(e, ReadError::UnsupportedSchema { found: 99, .. }));
        assert!(e.to_string().contains("schema_version 99"), "{e}");
        assert!(e.to_string().contains("[1, 2, 3, 4]"), "{e}");
        let e = Results::parse(br#"{"tool": {}}"#).unwrap_err();
        assert!(
            e.to_string().contains("field schema_version: missing"),
            "{e}"
        );
        let e = Results::parse(b"").unwrap_err();
        assert!(
            matches!(&e, ReadError::Field { path, .. } if path == "(top level)"),
            "{e}"
        );
        let e = Results::read(Path::new("/nonexistent/results.json")).unwrap_err();
        assert!(e.to_string().starts_with("reading /nonexistent"), "{e}");
    }

    #[test]
    fn a_broken_field_is_named_by_its_path_in_either_version() {
        let text = std::fs::read_to_string(golden()).unwrap();
        let broken = text.replacen("\"rtt_ms\": 5.625344", "\"rtt_ms\": \"fast\"", 1);
        assert_ne!(broken, text, "the fixture changed: pick another field");
        let e = Results::parse(broken.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("scenarios[1].probe.requests[0].rtt_ms"), "{e}");
        let truncated = &text.as_bytes()[..text.len() / 2];
        let e = Results::parse(truncated).unwrap_err().to_string();
        assert!(e.contains("results.json: field scenarios["), "{e}");
        assert!(e.contains("EOF"), "{e}");
        // The same in a version 2 file.
        let v2 = serde_json::to_string_pretty(&Results::read(&golden()).unwrap()).unwrap();
        let broken = v2.replacen("\"series_bin_s\": 0.2", "\"series_bin_s\": \"0.2\"", 1);
        assert_ne!(broken, v2);
        let e = Results::parse(broken.as_bytes()).unwrap_err().to_string();
        assert!(
            e.contains("field scenarios[0].flows[0].tcp.series_bin_s")
                && e.contains("invalid type"),
            "{e}"
        );
        let e = Results::parse(&v2.as_bytes()[..v2.len() / 3])
            .unwrap_err()
            .to_string();
        assert!(e.contains("EOF"), "{e}");
    }

    /// Files written before netlab recorded the veths' offloads and MTU
    /// load, and say they ran with the kernel's: offloads `kernel`, MTU
    /// 1500, no feature read back.
    #[test]
    fn older_results_load_without_offload_data() {
        let shard = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator/shard/results.json");
        for path in [golden(), shard] {
            let r = Results::read(&path).unwrap();
            let topologies: Vec<_> = r
                .scenarios
                .iter()
                .filter_map(|s| s.topology.as_ref())
                .collect();
            assert!(!topologies.is_empty(), "{}", path.display());
            for t in topologies {
                assert_eq!(t.spec.offloads, netlab_topology::Offloads::Kernel);
                assert_eq!(t.spec.mtu, 1500);
                let links = t.readback.namespaces.iter().flat_map(|n| &n.links);
                assert!(links.clone().any(|l| l.kind.as_deref() == Some("veth")));
                assert!(links.clone().all(|l| l.offloads.is_none()));
            }
            // Written again, they still say nothing of offloads.
            let text = serde_json::to_string(&r).unwrap();
            assert!(!text.contains("\"offloads\":["), "{}", path.display());
        }
    }

    #[test]
    fn the_version_of_a_truncated_file_is_read_from_its_first_bytes() {
        assert_eq!(
            sniff_version(b"{\n  \"schema_version\": 2,\n  \"tool\": {"),
            Some(2)
        );
        assert_eq!(sniff_version(b"{\"schema_version\" :1"), Some(1));
        assert_eq!(sniff_version(b"{\"tool\": 1"), None);
    }
}
