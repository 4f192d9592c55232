//! A run's models recorded in its results.json (docs/usage.md,
//! `orchestrator report --models`): a run written before `[report] models`
//! existed names none, so its report cannot draw what its model would.
//! [`record_models`] writes them into the file's `experiment` as text,
//! `"report":{"models":[…]}` at the head of the object, and keeps every
//! other byte: no number is parsed and written again. The experiment's
//! hash leaves the models out, so the run stays the same experiment.

use std::path::{Path, PathBuf};

use netlab_experiment::ModelKind;

/// Why a run's models could not be recorded.
#[derive(Debug, thiserror::Error)]
pub enum RecordModelsError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a results.json netlab reads.
    #[error("{path}: {message}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The run records models of its own, which stand.
    #[error("{path} records the models [{recorded}]: a run keeps its own")]
    Recorded {
        /// The file.
        path: PathBuf,
        /// The models it records, by word.
        recorded: String,
    },
}

/// What [`record_models`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// The file named no models and now names these.
    Now,
    /// The file named exactly these already: nothing was written.
    Already,
}

/// Records `models` in the results.json at `file` when it names none.
/// The new text must read back as the same run with those models before
/// it replaces the file (atomically).
pub fn record_models(file: &Path, models: &[ModelKind]) -> Result<Recorded, RecordModelsError> {
    let unreadable = |message: String| RecordModelsError::Unreadable {
        path: file.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(file).map_err(|source| RecordModelsError::Io {
        path: file.to_path_buf(),
        source,
    })?;
    let header = crate::Results::parse(text.as_bytes()).map_err(|e| unreadable(e.to_string()))?;
    let words: Vec<&str> = models.iter().map(|m| m.as_str()).collect();
    let recorded: Vec<String> = header
        .experiment
        .report
        .as_ref()
        .and_then(|r| r.models.clone())
        .unwrap_or_default();
    if recorded == words {
        return Ok(Recorded::Already);
    }
    if header.experiment.report.is_some() {
        return Err(RecordModelsError::Recorded {
            path: file.to_path_buf(),
            recorded: recorded.join(", "),
        });
    }
    let at = experiment_body(&text).ok_or_else(|| unreadable("no experiment object".into()))?;
    let list: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
    let empty = text[at..].trim_start().starts_with('}');
    let new = format!(
        "{}\"report\":{{\"models\":[{}]}}{}{}",
        &text[..at],
        list.join(","),
        if empty { "" } else { "," },
        &text[at..]
    );
    let back = crate::Results::parse(new.as_bytes())
        .map_err(|e| unreadable(format!("recording the models would break it: {e}")))?;
    let got = back
        .experiment
        .report
        .and_then(|r| r.models)
        .unwrap_or_default();
    if got != words || back.scenarios.len() != header.scenarios.len() {
        return Err(unreadable("the models did not read back".into()));
    }
    netlab_os::atomic::write(file, new.as_bytes()).map_err(|e| RecordModelsError::Io {
        path: file.to_path_buf(),
        source: e.source,
    })?;
    Ok(Recorded::Now)
}

/// The byte offset just inside the `{` of the top-level `experiment`
/// object of a results.json text: a scan that tracks strings and depth,
/// and takes a string at depth 1 followed by `:` as a key.
fn experiment_body(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let (mut depth, mut i, mut in_str, mut start) = (0i32, 0usize, false, 0usize);
    while i < b.len() {
        let c = b[i];
        if in_str {
            match c {
                b'\\' => i += 1,
                b'"' => {
                    in_str = false;
                    let rest = text[i + 1..].trim_start();
                    if depth == 1 && &text[start..i] == "experiment" && rest.starts_with(':') {
                        let value = rest[1..].trim_start();
                        return value.starts_with('{').then(|| text.len() - value.len() + 1);
                    }
                }
                _ => {}
            }
        } else {
            match c {
                b'"' => {
                    in_str = true;
                    start = i + 1;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth -= 1,
                _ => {}
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_experiment_key_is_found_only_as_a_top_level_key() {
        // A value "experiment" and a nested key are not it.
        let t = r#"{"tool":"experiment","x":{"experiment":{}},"experiment" : {"a":1}}"#;
        let at = experiment_body(t).unwrap();
        assert_eq!(&t[at..at + 6], r#""a":1}"#);
        assert_eq!(experiment_body(r#"{"a":"\"experiment\""}"#), None);
    }
}
