//! One results folder from the folders of a sharded run, reading exactly
//! as if one machine had run the plan (`orchestrator merge`). Every
//! scenario is copied byte for byte from its folder, in plan order.
//!
//! Two passes over the sources. The first reads and checks everything and
//! writes nothing: every folder's results.json (and any scenario files a
//! killed run left) parses, all are one experiment (content hash) and one
//! netlab version, no plan index appears twice or outside the plan, and
//! none is missing (unless `allow_partial`, when the missing ones are
//! recorded in the header's [`MergeRecord`]). The second writes the
//! scenarios and results.json; the caller then reads them back one at a
//! time (summary, report) through the returned [`ScenarioFiles`] and
//! removes their working copies. OUT must not hold a results.json already.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::split::{read_scenario_file, read_split, SplitError};
use crate::store::scenario_files;
use crate::{
    KernelInfo, MergeRecord, MergeSource, Results, RunSteps, ScenarioFiles, ScenarioResult, Tool,
};

/// Why a merge was refused.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// The folders given cannot be a merge (none, OUT among them, one
    /// twice).
    #[error("{0}")]
    Usage(String),
    /// The folders cannot be merged (their data).
    #[error("{0}")]
    Data(String),
}

fn data(e: impl std::fmt::Display) -> MergeError {
    MergeError::Data(e.to_string())
}

/// One source folder after the checking pass.
#[derive(Debug)]
pub struct SourceFolder {
    /// The folder.
    pub folder: PathBuf,
    /// Its results.json's header.
    pub header: Results,
    /// Complete scenarios in its results.json.
    pub in_results: BTreeSet<u32>,
    /// Complete scenarios only in a scenario file (a killed run's last ones).
    pub in_files: BTreeMap<u32, PathBuf>,
}

impl SourceFolder {
    /// Its complete scenarios' plan indices.
    pub fn indices(&self) -> impl Iterator<Item = u32> + '_ {
        self.in_results
            .iter()
            .copied()
            .chain(self.in_files.keys().copied())
    }
}

/// Reads and checks one folder (first pass; nothing is kept but indices).
pub fn read_source(folder: &Path) -> Result<SourceFolder, MergeError> {
    let file = folder.join("results.json");
    if !file.is_file() {
        return Err(MergeError::Data(format!(
            "{}: no results.json (is it a results folder?)",
            folder.display()
        )));
    }
    let mut seen = Vec::new();
    let header = read_split(&file, |_, _, s| {
        seen.push(s.index);
        Ok(())
    })
    .map_err(data)?;
    // The scenario a signal stopped is partial: it counts as missing.
    let partial = header.interrupted.as_ref().and_then(|i| i.scenario);
    let mut in_results = BTreeSet::new();
    for i in seen {
        if Some(i) == partial {
            continue;
        }
        if !in_results.insert(i) {
            return Err(MergeError::Data(format!(
                "{}: plan index {i} appears twice",
                file.display()
            )));
        }
    }
    let mut in_files = BTreeMap::new();
    for p in scenario_files(folder) {
        // Every file must parse, even one results.json also holds.
        let (_, s) = read_scenario_file(&p).map_err(data)?;
        if Some(s.index) != partial && !in_results.contains(&s.index) {
            in_files.insert(s.index, p);
        }
    }
    Ok(SourceFolder {
        folder: folder.to_path_buf(),
        header,
        in_results,
        in_files,
    })
}

/// What the checks found: the experiment, its plan size and what is missing.
#[derive(Debug)]
struct Checked {
    hash: String,
    version: String,
    planned: u32,
    missing: Vec<u32>,
}

/// The shards (of N) that own the `missing` plan indices, when every
/// source with a shard record says one N: `(N, [K, …])`. A merge that
/// refuses names them, so the task to submit again is plain.
fn missing_shards(
    exp: &netlab_experiment::Experiment,
    sources: &[SourceFolder],
    missing: &[u32],
) -> Option<(u32, Vec<u32>)> {
    let ns: BTreeSet<u32> = sources
        .iter()
        .filter_map(|s| s.header.shard.as_ref().map(|sh| sh.n))
        .collect();
    let n = match ns.into_iter().collect::<Vec<_>>().as_slice() {
        [n] if *n > 0 => *n,
        _ => return None,
    };
    let plan = exp.plan();
    let ks: BTreeSet<u32> = missing
        .iter()
        .filter_map(|i| plan.scenarios.get(*i as usize - 1))
        .map(|s| netlab_experiment::shard::unit_of(s, exp.rounds) % n + 1)
        .collect();
    Some((n, ks.into_iter().collect()))
}

/// `s` is results.json of `first`'s version (a merge copies scenarios byte
/// for byte, so their versions must agree).
fn same_schema(first: &SourceFolder, s: &SourceFolder) -> Result<(), MergeError> {
    if s.header.schema_version == first.header.schema_version {
        return Ok(());
    }
    Err(MergeError::Data(format!(
        "{} is results.json version {}, but {} is version {}: only folders of one version merge",
        s.folder.display(),
        s.header.schema_version,
        first.folder.display(),
        first.header.schema_version
    )))
}

/// One experiment, one version, no duplicate, nothing outside the plan, and
/// nothing missing unless `allow_partial` (a refusal names the missing
/// plan indices, their shards and the folders that held no results.json).
fn check(
    sources: &[SourceFolder],
    absent: &[PathBuf],
    allow_partial: bool,
) -> Result<Checked, MergeError> {
    let first = &sources[0];
    let hash_of = |s: &SourceFolder| {
        s.header
            .experiment_hash_or_computed()
            .map_err(|e| MergeError::Data(format!("{}: experiment: {e}", s.folder.display())))
    };
    let hash = hash_of(first)?;
    let version = first.header.tool.version.clone();
    for s in &sources[1..] {
        let h = hash_of(s)?;
        if h != hash || s.header.tool.version != version {
            return Err(MergeError::Data(format!(
                "{} is experiment {h} with netlab {}, but {} is experiment {hash} with netlab {version}: \
                 only folders of one experiment file and one netlab version merge",
                s.folder.display(),
                s.header.tool.version,
                first.folder.display()
            )));
        }
        same_schema(first, s)?;
    }
    let exp = first
        .header
        .experiment()
        .map_err(|e| MergeError::Data(format!("{}: experiment: {e}", first.folder.display())))?;
    let planned = exp.plan().scenarios.len() as u32;
    let mut owner: BTreeMap<u32, &Path> = BTreeMap::new();
    let mut duplicates = Vec::new();
    for s in sources {
        for i in s.indices() {
            if i == 0 || i > planned {
                return Err(MergeError::Data(format!(
                    "{}: plan index {i} is outside the plan (1–{planned})",
                    s.folder.display()
                )));
            }
            if let Some(other) = owner.insert(i, &s.folder) {
                duplicates.push(format!(
                    "{i} (in {} and {})",
                    other.display(),
                    s.folder.display()
                ));
            }
        }
    }
    if !duplicates.is_empty() {
        return Err(MergeError::Data(format!(
            "plan indices in more than one folder: {}",
            duplicates.join(", ")
        )));
    }
    let missing: Vec<u32> = (1..=planned).filter(|i| !owner.contains_key(i)).collect();
    if !missing.is_empty() && !allow_partial {
        let shards = missing_shards(&exp, sources, &missing)
            .map(|(n, ks)| {
                format!(
                    "; missing shards: {} of {n}",
                    ks.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
                )
            })
            .unwrap_or_default();
        let absent = if absent.is_empty() {
            String::new()
        } else {
            format!(
                "; no results.json in {}",
                absent
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return Err(MergeError::Data(format!(
            "{} of {planned} planned scenarios are missing: plan indices {}{shards}{absent} \
             (`run --shard K/N --resume` completes a shard; --allow-partial merges what exists)",
            missing.len(),
            missing
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(Checked {
        hash,
        version,
        planned,
        missing,
    })
}

/// The merged run's header (no scenarios).
fn merged_header(sources: &[SourceFolder], c: &Checked) -> Results {
    let first = &sources[0].header;
    // Two folders ran on one kernel when everything recorded of it agrees.
    let described: BTreeSet<String> = sources.iter().map(|s| s.header.kernel.describe()).collect();
    let kernels: BTreeSet<(&str, &str)> = sources
        .iter()
        .map(|s| {
            (
                s.header.kernel.mode.as_str(),
                s.header.kernel.release.as_str(),
            )
        })
        .collect();
    let kernel = if described.len() == 1 {
        first.kernel.clone()
    } else {
        KernelInfo {
            mode: kernels
                .iter()
                .map(|k| k.0)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>()
                .join("+"),
            release: kernels
                .iter()
                .map(|k| k.1)
                .collect::<Vec<_>>()
                .join(", "),
            chosen_because: "merged from folders that ran on different kernels; each scenario's ran_on names its own".into(),
            ..KernelInfo::default()
        }
    };
    let mut notes = first.notes.clone();
    notes.push(format!(
        "Merged from {} folder(s) by `orchestrator merge`; wall_s is the sum of their wall times (machine time), \
         and each scenario's ran_on says where and when it ran.",
        sources.len()
    ));
    Results {
        // The sources' own version (one for all, checked): a merge copies
        // their scenarios byte for byte and adds nothing of a later one.
        schema_version: first.schema_version,
        tool: Tool {
            name: "netlab".into(),
            version: c.version.clone(),
        },
        kernel,
        experiment: first.experiment.clone(),
        run_id: format!("merged-{}", &c.hash[..12.min(c.hash.len())]),
        started_utc: sources
            .iter()
            .map(|s| s.header.started_utc.clone())
            .min()
            .unwrap_or_default(),
        finished_utc: sources
            .iter()
            .map(|s| s.header.finished_utc.clone())
            .max()
            .unwrap_or_default(),
        timeline_total_s: sources.iter().map(|s| s.header.timeline_total_s).sum(),
        wall_s: sources.iter().map(|s| s.header.wall_s).sum(),
        // Added up as the wall times are (when every source recorded them).
        steps: sources
            .iter()
            .map(|s| s.header.steps)
            .sum::<Option<RunSteps>>(),
        scenarios: Vec::new(),
        notes,
        interrupted: None,
        experiment_hash: Some(c.hash.clone()),
        shard: None,
        resumed_from: Vec::new(),
        merged: Some(MergeRecord {
            sources: sources
                .iter()
                .map(|s| MergeSource {
                    folder: s.folder.display().to_string(),
                    run_id: s.header.run_id.clone(),
                    shard: s
                        .header
                        .shard
                        .as_ref()
                        .map(|sh| format!("{}/{}", sh.k, sh.n)),
                    plan_indices: s.indices().collect::<BTreeSet<_>>().into_iter().collect(),
                })
                .collect(),
            planned: c.planned,
            missing: c.missing.clone(),
        }),
    }
}

/// Copies the packet files a scenario names (paths relative to its results
/// folder, `pcap/sNN-…`: the plan index keeps them apart across shards)
/// from `from` to the same place under `out`. A named file missing from
/// its folder is said on stderr and the merge goes on (its record stays
/// in results.json, as the scenario's other data does).
fn copy_packet_files(
    from: &Path,
    out: &Path,
    s: &ScenarioResult,
    notice: &mut dyn FnMut(String),
) -> Result<(), String> {
    let Some(ecn) = &s.ecn else {
        return Ok(());
    };
    for rec in ecn.pcap_files() {
        let rel = Path::new(&rec.file);
        if rel.is_absolute()
            || rel
                .components()
                .any(|c| c == std::path::Component::ParentDir)
        {
            return Err(format!(
                "{}: scenario {} names the packet file {:?} outside its results folder",
                from.display(),
                s.index,
                rec.file
            ));
        }
        let src = from.join(rel);
        if !src.is_file() {
            notice(format!(
                "{} is missing (scenario {} names it); the merged folder lacks it too",
                src.display(),
                s.index
            ));
            continue;
        }
        let dst = out.join(rel);
        if let Some(dir) = dst.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        }
        std::fs::copy(&src, &dst)
            .map_err(|e| format!("copying {} to {}: {e}", src.display(), dst.display()))?;
    }
    Ok(())
}

/// What the second pass wrote: the merged header (its `merged` record
/// names the sources and what is missing), and the scenarios' working
/// copies, to read back and then remove.
#[derive(Debug)]
pub struct MergedFolder {
    /// The merged results.json's header.
    pub header: Results,
    /// The scenarios as written, in plan order.
    pub files: ScenarioFiles,
    /// Plan indices missing (a partial merge).
    pub missing: Vec<u32>,
}

/// The first pass done: every folder read and checked, nothing written.
#[derive(Debug)]
pub struct CheckedMerge {
    out: PathBuf,
    sources: Vec<SourceFolder>,
    checked: Checked,
}

impl CheckedMerge {
    /// Plan indices missing (a partial merge).
    pub fn missing(&self) -> &[u32] {
        &self.checked.missing
    }

    /// The second pass: the scenarios and their packet files copied into
    /// OUT in plan order, then results.json written.
    pub fn write(self, notice: &mut dyn FnMut(String)) -> Result<MergedFolder, MergeError> {
        let out = &self.out;
        std::fs::create_dir_all(out)
            .map_err(|e| MergeError::Data(format!("creating {}: {e}", out.display())))?;
        let mut files = ScenarioFiles::create(out).map_err(data)?.working_copies();
        for s in &self.sources {
            copy_source(s, out, &mut files, notice)?;
        }
        let header = merged_header(&self.sources, &self.checked);
        files
            .write_results(&header, &out.join("results.json"))
            .map_err(data)?;
        Ok(MergedFolder {
            header,
            files,
            missing: self.checked.missing,
        })
    }
}

/// A scenario element's length and a 64-bit hash of its bytes: enough to
/// tell whether a merged result still holds the bytes its sources hold
/// now, one scenario at a time, without keeping any of them.
fn fingerprint(bytes: &[u8]) -> (usize, u64) {
    use std::hash::{DefaultHasher, Hasher};
    let mut h = DefaultHasher::new();
    h.write(bytes);
    (bytes.len(), h.finish())
}

impl CheckedMerge {
    /// Whether the merged result in `existing` is what this merge would
    /// write: a merged results.json of the same experiment from the same
    /// runs (run id, shard and plan indices of each source), missing the
    /// same plan indices, whose every scenario holds the bytes its source
    /// holds now. A re-merge of such a folder has nothing to do.
    pub fn holds_same(&self, existing: &Path) -> Result<bool, MergeError> {
        let mut have = BTreeMap::new();
        let header = read_split(&existing.join("results.json"), |_, bytes, s| {
            have.insert(s.index, fingerprint(bytes));
            Ok(())
        })
        .map_err(data)?;
        let Some(had) = header.merged.as_ref() else {
            return Ok(false);
        };
        let would = merged_header(&self.sources, &self.checked);
        let Some(will) = would.merged.as_ref() else {
            return Ok(false);
        };
        let runs = |r: &MergeRecord| {
            r.sources
                .iter()
                .map(|s| (s.run_id.clone(), s.shard.clone(), s.plan_indices.clone()))
                .collect::<BTreeSet<_>>()
        };
        if header.experiment_hash != would.experiment_hash
            || had.planned != will.planned
            || had.missing != will.missing
            || runs(had) != runs(will)
        {
            return Ok(false);
        }
        let mut want = BTreeMap::new();
        for s in &self.sources {
            read_split(&s.folder.join("results.json"), |_, bytes, sc| {
                if s.in_results.contains(&sc.index) {
                    want.insert(sc.index, fingerprint(bytes));
                }
                Ok(())
            })
            .map_err(data)?;
            for (index, p) in &s.in_files {
                let (bytes, _) = read_scenario_file(p).map_err(data)?;
                want.insert(*index, fingerprint(&bytes));
            }
        }
        Ok(have == want)
    }
}

/// Sorted plan (or scenario) indices as runs, `1–4, 7, 9–10`: how every
/// summary, note and message names a set of them.
///
/// ```
/// assert_eq!(netlab_results::merge::index_ranges(&[1, 2, 3, 5, 7, 8]), "1–3, 5, 7–8");
/// ```
pub fn index_ranges(indices: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
            j += 1;
        }
        out.push(if j == i {
            indices[i].to_string()
        } else {
            format!("{}–{}", indices[i], indices[j])
        });
        i = j + 1;
    }
    out.join(", ")
}

/// The first pass of merging the results folders `dirs` into `out`:
/// reads and checks everything, writes nothing. `notice` hears what is
/// said but does not stop the merge (a folder left out under
/// `allow_partial`; in [`CheckedMerge::write`], a named packet file
/// missing).
pub fn check_folders(
    out: &Path,
    dirs: &[PathBuf],
    allow_partial: bool,
    notice: &mut dyn FnMut(String),
) -> Result<CheckedMerge, MergeError> {
    if dirs.is_empty() {
        return Err(MergeError::Usage("merge needs at least one folder".into()));
    }
    if out.join("results.json").exists() {
        return Err(MergeError::Data(format!(
            "{} already holds a results.json; a merge never writes over a result (choose a new OUT)",
            out.display()
        )));
    }
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let mut seen = BTreeSet::new();
    for d in dirs {
        if canon(d) == canon(out) {
            return Err(MergeError::Usage(format!(
                "{} is both OUT and a folder to merge",
                d.display()
            )));
        }
        if !seen.insert(canon(d)) {
            return Err(MergeError::Usage(format!("{} is given twice", d.display())));
        }
    }
    // A folder that holds no results.json (a shard that never started, or
    // was killed in its first scenario) is left out and its scenarios
    // count as missing: refused, naming it, unless `allow_partial`.
    let mut sources = Vec::new();
    let mut absent = Vec::new();
    for d in dirs {
        if !d.join("results.json").is_file() && scenario_files(d).is_empty() {
            if allow_partial {
                notice(format!(
                    "{} holds no results.json; left out (--allow-partial)",
                    d.display()
                ));
            }
            absent.push(d.clone());
            continue;
        }
        sources.push(read_source(d)?);
    }
    if sources.is_empty() {
        return Err(MergeError::Data(format!(
            "none of the folders holds a results.json ({})",
            absent
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let checked = check(&sources, &absent, allow_partial)?;
    Ok(CheckedMerge {
        out: out.to_path_buf(),
        sources,
        checked,
    })
}

/// One source's complete scenarios (from its results.json, then from its
/// scenario files) and their packet files into `out`.
fn copy_source(
    s: &SourceFolder,
    out: &Path,
    files: &mut ScenarioFiles,
    notice: &mut dyn FnMut(String),
) -> Result<(), MergeError> {
    let file = s.folder.join("results.json");
    read_split(&file, |_, bytes, sc| {
        if s.in_results.contains(&sc.index) {
            files
                .push_raw(sc.index, bytes)
                .map_err(|e| SplitError::Refused(e.to_string()))?;
            copy_packet_files(&s.folder, out, &sc, notice).map_err(SplitError::Refused)?;
        }
        Ok(())
    })
    .map_err(data)?;
    for (index, p) in &s.in_files {
        let (bytes, sc) = read_scenario_file(p).map_err(data)?;
        if sc.index != *index {
            return Err(MergeError::Data(format!(
                "{} changed while it was merged",
                p.display()
            )));
        }
        files.push_raw(*index, &bytes).map_err(data)?;
        copy_packet_files(&s.folder, out, &sc, notice).map_err(MergeError::Data)?;
    }
    Ok(())
}
