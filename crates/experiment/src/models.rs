//! `[report] models`: the models an experiment asks the report to draw
//! beside its measurement (docs/models.md). They change nothing that runs:
//! the content hash leaves them out ([`crate::Experiment::content_hash`]),
//! so naming a model in a file whose shards already ran still merges and
//! resumes them.
//!
//! ```
//! use netlab_experiment::{parse, ModelKind};
//! let exp = parse("arms = [\"fq_codel\"]\n[report]\nmodels = [\"sparse_flow\"]\n").unwrap();
//! assert_eq!(exp.models, vec![ModelKind::SparseFlow]);
//! assert!(exp.to_toml().contains("models = [\"sparse_flow\"]"));
//! ```

use crate::file::ReportFile;
use crate::resolve::err;
use crate::ExperimentError;

/// A model the report can draw (docs/models.md names each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelKind {
    /// Model 1: a FIFO's bound, limit · L · 8 / R, a line on pfifo's
    /// delay figures.
    FifoBound,
    /// Model 2: FQ-CoDel's sparse-flow boundary N* = T · R / (8 · Q) and
    /// the probe's predicted delay and `new_flow_count` share against N.
    SparseFlow,
    /// Model 3: Mathis's law at the flows' measured RTT, the congestion
    /// signal probability p ≈ 1.5 · (8 · N · L / (R · RTT))² an AQM's
    /// marks and drops should show as flows are added.
    AqmLaw,
    /// Model 4: Ware et al.'s BBRv1 share against loss-based flows in a
    /// drop-tail buffer X BDPs deep, and the fair share under flow
    /// queueing.
    BbrShare,
}

impl ModelKind {
    /// Every model, in the order the report tells them.
    pub const ALL: [ModelKind; 4] = [
        ModelKind::FifoBound,
        ModelKind::SparseFlow,
        ModelKind::AqmLaw,
        ModelKind::BbrShare,
    ];

    /// Its word in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelKind::FifoBound => "fifo_bound",
            ModelKind::SparseFlow => "sparse_flow",
            ModelKind::AqmLaw => "aqm_law",
            ModelKind::BbrShare => "bbr_share",
        }
    }

    /// The model a word names.
    pub fn parse(word: &str) -> Option<ModelKind> {
        ModelKind::ALL.into_iter().find(|m| m.as_str() == word)
    }
}

/// The models of `[report]`, each named once, in the file's order.
pub(crate) fn resolve_models(r: Option<&ReportFile>) -> Result<Vec<ModelKind>, ExperimentError> {
    let mut out = Vec::new();
    for (i, word) in r
        .and_then(|r| r.models.as_ref())
        .into_iter()
        .flatten()
        .enumerate()
    {
        let key = format!("report.models[{i}]");
        let m = ModelKind::parse(word).ok_or_else(|| {
            let known: Vec<&str> = ModelKind::ALL.iter().map(|m| m.as_str()).collect();
            err(
                &key,
                format!("unknown model {word:?} (known: {})", known.join(", ")),
            )
        })?;
        if out.contains(&m) {
            return Err(err(&key, format!("{word:?} is named twice")));
        }
        out.push(m);
    }
    Ok(out)
}

/// `[report]` as printed back: absent when no model is named, so the
/// canonical text of a file without it is what it was before models.
pub(crate) fn report_file(models: &[ModelKind]) -> Option<ReportFile> {
    (!models.is_empty()).then(|| ReportFile {
        models: Some(models.iter().map(|m| m.as_str().to_string()).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn models_are_named_once_by_known_words_and_refused_naming_the_key() {
        let e = parse("[report]\nmodels = [\"sparse_flow\", \"bogus\"]\n").unwrap_err();
        assert_eq!(e.key(), "report.models[1]");
        assert!(e.to_string().contains("fifo_bound, sparse_flow"), "{e}");
        let e = parse("[report]\nmodels = [\"fifo_bound\", \"fifo_bound\"]\n").unwrap_err();
        assert_eq!(e.key(), "report.models[1]");
        let e = parse("[report]\nmodel = [\"fifo_bound\"]\n").unwrap_err();
        assert_eq!(e.key(), "report.model");
        assert!(e.to_string().contains("expected `models`"), "{e}");
        let exp = parse("[report]\nmodels = [\"sparse_flow\", \"fifo_bound\"]\n").unwrap();
        assert_eq!(exp.models, [ModelKind::SparseFlow, ModelKind::FifoBound]);
    }

    /// Models change what the report draws, not what runs: the content
    /// hash is the same with and without them, and a file without them
    /// prints no `[report]` table.
    #[test]
    fn models_print_back_but_leave_the_hash_alone() {
        let plain = parse("arms = [\"pfifo limit 256\"]\n").unwrap();
        assert!(!plain.to_toml().contains("[report]"));
        let with =
            parse("arms = [\"pfifo limit 256\"]\n[report]\nmodels = [\"fifo_bound\"]\n").unwrap();
        assert_eq!(with.content_hash(), plain.content_hash());
        assert_eq!(parse(&with.to_toml()).unwrap(), with);
        assert_ne!(with, plain);
    }
}
