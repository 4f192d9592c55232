//! `orchestrator merge OUT DIR...` (issue 22): one results folder from the
//! folders of a sharded run, reading exactly as if one machine had run the
//! plan. Every scenario is copied byte for byte from its folder, in plan
//! order; summary.md and the report are computed from them one at a time.
//!
//! Two passes over the sources. The first reads and checks everything and
//! writes nothing: every folder's results.json (and any scenario files a
//! killed run left) parses, all are one experiment (content hash) and one
//! netlab version, no plan index appears twice or outside the plan, and
//! none is missing (unless `--allow-partial`, when the missing ones are
//! listed in summary.md and the report). The second writes OUT. Memory is
//! one scenario plus each scenario's summary figures and report samples,
//! as in a run; OUT must not hold a results.json already.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use netlab_report::summary;
use netlab_results::split::{read_scenario_file, read_split, SplitError};
use netlab_results::{
    KernelInfo, MergeRecord, MergeSource, Results, ScenarioFiles, Tool, SCHEMA_VERSION,
};
use netlab_run::resume::scenario_files;

use crate::cli::MergeArgs;

/// Why a merge was refused: a usage error (exit 2) or bad data (exit 1).
#[derive(Debug)]
pub enum MergeError {
    /// Bad usage.
    Usage(String),
    /// The folders cannot be merged.
    Data(String),
}

impl MergeError {
    fn code(&self) -> u8 {
        match self {
            MergeError::Usage(_) => 2,
            MergeError::Data(_) => 1,
        }
    }
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeError::Usage(m) | MergeError::Data(m) => f.write_str(m),
        }
    }
}

fn data(e: impl std::fmt::Display) -> MergeError {
    MergeError::Data(e.to_string())
}

/// One source folder after the checking pass.
#[derive(Debug)]
struct Source {
    folder: PathBuf,
    header: Results,
    /// Complete scenarios in its results.json.
    in_results: BTreeSet<u32>,
    /// Complete scenarios only in a scenario file (a killed run's last ones).
    in_files: BTreeMap<u32, PathBuf>,
}

impl Source {
    fn indices(&self) -> impl Iterator<Item = u32> + '_ {
        self.in_results
            .iter()
            .copied()
            .chain(self.in_files.keys().copied())
    }
}

/// Reads and checks one folder (first pass; nothing is kept but indices).
fn read_source(folder: &Path) -> Result<Source, MergeError> {
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
    Ok(Source {
        folder: folder.to_path_buf(),
        header,
        in_results,
        in_files,
    })
}

/// What the checks found: the experiment, its plan size and what is missing.
struct Checked {
    hash: String,
    version: String,
    planned: u32,
    missing: Vec<u32>,
}

/// One experiment, one version, no duplicate, nothing outside the plan, and
/// nothing missing unless `allow_partial`.
fn check(sources: &[Source], allow_partial: bool) -> Result<Checked, MergeError> {
    let first = &sources[0];
    let hash_of = |s: &Source| {
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
        return Err(MergeError::Data(format!(
            "{} of {planned} planned scenarios are missing: plan indices {} \
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
fn merged_header(sources: &[Source], c: &Checked) -> Results {
    let first = &sources[0].header;
    let kernels: BTreeSet<(&str, &str)> = sources
        .iter()
        .map(|s| {
            (
                s.header.kernel.mode.as_str(),
                s.header.kernel.release.as_str(),
            )
        })
        .collect();
    let kernel = if kernels.len() == 1 {
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
        }
    };
    let mut notes = first.notes.clone();
    notes.push(format!(
        "Merged from {} folder(s) by `orchestrator merge`; wall_s is the sum of their wall times (machine time), \
         and each scenario's ran_on says where and when it ran.",
        sources.len()
    ));
    Results {
        schema_version: SCHEMA_VERSION,
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
    s: &netlab_results::ScenarioResult,
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
            eprintln!(
                "orchestrator merge: {} is missing (scenario {} names it); the merged folder lacks it too",
                src.display(),
                s.index
            );
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

/// What a merge wrote.
#[derive(Debug)]
pub struct Merged {
    /// Scenarios in the merged results.json.
    pub scenarios: usize,
    /// Plan indices missing (a partial merge).
    pub missing: Vec<u32>,
    /// The merged folder.
    pub out: PathBuf,
    /// The report could be rendered.
    pub report_ok: bool,
    /// Each step's end and the peak memory then.
    pub phases: Vec<Phase>,
}

/// Merges `dirs` into `out`.
// Long: the merge's steps in order, each followed by its phase mark with the
// peak memory then.
pub fn merge(out: &Path, dirs: &[PathBuf], allow_partial: bool) -> Result<Merged, MergeError> {
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
    // Pass 1: read and check everything; nothing is written. With
    // --allow-partial a folder that holds no results.json (a shard that
    // never started) is left out and its scenarios count as missing.
    let mut sources = Vec::new();
    for d in dirs {
        if allow_partial && !d.join("results.json").is_file() {
            eprintln!(
                "orchestrator merge: {} holds no results.json; left out (--allow-partial)",
                d.display()
            );
            continue;
        }
        sources.push(read_source(d)?);
    }
    if sources.is_empty() {
        return Err(MergeError::Data(
            "none of the folders holds a results.json".into(),
        ));
    }
    let checked = check(&sources, allow_partial)?;
    let mut phases = vec![Phase::now("checked")];
    // Pass 2: write OUT.
    std::fs::create_dir_all(out)
        .map_err(|e| MergeError::Data(format!("creating {}: {e}", out.display())))?;
    let mut files = ScenarioFiles::create(out).map_err(data)?.working_copies();
    for s in &sources {
        let file = s.folder.join("results.json");
        read_split(&file, |_, bytes, sc| {
            if s.in_results.contains(&sc.index) {
                files
                    .push_raw(sc.index, bytes)
                    .map_err(|e| SplitError::Refused(e.to_string()))?;
                copy_packet_files(&s.folder, out, &sc).map_err(SplitError::Refused)?;
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
            copy_packet_files(&s.folder, out, &sc).map_err(MergeError::Data)?;
        }
    }
    let header = merged_header(&sources, &checked);
    files
        .write_results(&header, &out.join("results.json"))
        .map_err(data)?;
    phases.push(Phase::now("results.json written"));
    let mut digest = crate::report::RunDigest::new(&header.experiment);
    files
        .for_each(|s| {
            digest.push(s);
            Ok(())
        })
        .map_err(data)?;
    let figures = digest.figures().to_vec();
    let input = digest.report_input(&header);
    let md = summary::render_figures(
        &header,
        &figures,
        summary::headline_of(input.as_ref()).as_deref(),
        0,
    );
    netlab_sys::atomic::write(&out.join("summary.md"), md.as_bytes())
        .map_err(|e| MergeError::Data(format!("writing summary.md: {e}")))?;
    phases.push(Phase::now("scenarios read back for the summary"));
    let report_ok = crate::report::after_run(input, out);
    phases.push(Phase::now("summary.md and report written"));
    files.remove_files().map_err(data)?;
    Ok(Merged {
        scenarios: files.len(),
        missing: checked.missing,
        out: out.to_path_buf(),
        report_ok,
        phases,
    })
}

/// A step of the merge: when it ended and the process's peak resident
/// memory then (VmHWM), so the cost of each step shows (docs/scale.md).
#[derive(Debug)]
pub struct Phase {
    /// What had been done.
    pub what: &'static str,
    /// When.
    pub at: std::time::Instant,
    /// VmHWM at that moment, kB (None off Linux).
    pub peak_kb: Option<u64>,
}

impl Phase {
    fn now(what: &'static str) -> Phase {
        let peak_kb = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            });
        Phase {
            what,
            at: std::time::Instant::now(),
            peak_kb,
        }
    }
}

/// Entry point of `orchestrator merge`; returns the exit code.
pub fn main(a: &MergeArgs) -> u8 {
    let started = std::time::Instant::now();
    match merge(&a.out, &a.dirs, a.allow_partial) {
        Ok(m) => {
            let mut last = started;
            for p in &m.phases {
                eprintln!(
                    "merge: {} after {:.2} s (+{:.2} s), peak RSS {}",
                    p.what,
                    (p.at - started).as_secs_f64(),
                    (p.at - last).as_secs_f64(),
                    p.peak_kb
                        .map_or_else(|| "?".into(), |kb| format!("{:.1} MB", kb as f64 / 1024.0))
                );
                last = p.at;
            }
            println!(
                "merged {} scenario(s) from {} folder(s) into {}",
                m.scenarios,
                a.dirs.len(),
                m.out.display()
            );
            if !m.missing.is_empty() {
                println!(
                    "partial: plan indices {} missing (said so in summary.md and the report)",
                    m.missing
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            if m.report_ok {
                0
            } else {
                1
            }
        }
        Err(e) => {
            eprintln!("orchestrator merge: {e}");
            e.code()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_results::store::SCENARIO_DIR;
    use netlab_results::{RanOn, ScenarioResult, ShardRecord};
    use netlab_sys::testing::Scratch;

    /// The golden run's two scenarios as a 2-round experiment (4
    /// scenarios, 2 units); `rounds` sets the experiment's rounds.
    fn study(rounds: u32) -> (Results, Vec<ScenarioResult>) {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator/golden/results.json");
        let golden = Results::read(&p).unwrap();
        let mut exp = golden.experiment().unwrap();
        exp.rounds = rounds;
        let header = Results {
            experiment: exp.to_file(),
            experiment_hash: Some(exp.content_hash()),
            scenarios: Vec::new(),
            ..golden.clone()
        };
        let scenarios = exp
            .plan()
            .scenarios
            .iter()
            .map(|p| {
                let mut s = golden.scenarios[p.arm_index].clone();
                s.index = p.index;
                s.round = p.round;
                s.seed = p.seed;
                s.ran_on = Some(RanOn {
                    hostname: format!("node{}", p.round),
                    kernel_release: "6.18.0".into(),
                    cpu_model: "Test CPU".into(),
                    netlab_version: "0.1.0".into(),
                    started_utc: "2026-12-01T00:00:00Z".into(),
                });
                s
            })
            .collect();
        (header, scenarios)
    }

    /// Writes a shard folder holding `scenarios` as a run writes it.
    fn shard_folder(
        dir: &Path,
        name: &str,
        header: &Results,
        scenarios: &[ScenarioResult],
        k: u32,
    ) -> PathBuf {
        let out = dir.join(name);
        std::fs::create_dir_all(&out).unwrap();
        let mut files = ScenarioFiles::create(&out).unwrap();
        for s in scenarios {
            files.push(s.clone()).unwrap();
        }
        let h = Results {
            shard: Some(ShardRecord {
                k,
                n: 2,
                units_total: 2,
                plan_indices: scenarios.iter().map(|s| s.index).collect(),
            }),
            run_id: format!("run{k}"),
            ..header.clone()
        };
        files.write_results(&h, &out.join("results.json")).unwrap();
        files.remove_files().unwrap();
        out
    }

    /// Every element of a results.json, as bytes, by plan index.
    fn elements(path: &Path) -> BTreeMap<u32, Vec<u8>> {
        let mut m = BTreeMap::new();
        read_split(path, |_, b, s| {
            m.insert(s.index, b.to_vec());
            Ok(())
        })
        .unwrap();
        m
    }

    #[test]
    fn two_shards_merge_into_the_whole_plan_byte_for_byte() {
        let dir = Scratch::new("merge-ok");
        let (header, sc) = study(2);
        // Given in the "wrong" order: the merge puts plan order back.
        let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
        let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
        let out = dir.0.join("merged");
        let m = merge(&out, &[b.clone(), a.clone()], false).unwrap();
        assert_eq!(m.scenarios, 4);
        assert!(m.missing.is_empty() && m.report_ok);
        let merged = elements(&out.join("results.json"));
        assert_eq!(merged.keys().copied().collect::<Vec<_>>(), [1, 2, 3, 4]);
        let mut from_shards = elements(&a.join("results.json"));
        from_shards.extend(elements(&b.join("results.json")));
        assert_eq!(merged, from_shards, "each scenario's bytes are its shard's");
        let r = Results::read(&out.join("results.json")).unwrap();
        assert_eq!(r.scenarios, sc);
        let rec = r.merged.as_ref().unwrap();
        assert_eq!(rec.planned, 4);
        assert_eq!(rec.sources[0].plan_indices, [3, 4]);
        assert_eq!(rec.sources[0].shard.as_deref(), Some("2/2"));
        assert!(!out.join(SCENARIO_DIR).exists());
        let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
        assert!(
            md.contains("Merged by `orchestrator merge` from 2 folder(s): 4 of 4"),
            "{md}"
        );
        // One kernel and one CPU model: no caveat.
        assert!(!md.contains("Caveat"), "{md}");
        assert!(out.join("index.html").exists());
        // A second merge into the same OUT is refused and changes nothing.
        let before = std::fs::read(out.join("results.json")).unwrap();
        let e = merge(&out, &[a, b], false).unwrap_err();
        assert!(
            matches!(e, MergeError::Data(_)) && e.to_string().contains("already holds"),
            "{e}"
        );
        assert_eq!(std::fs::read(out.join("results.json")).unwrap(), before);
    }

    #[test]
    fn different_kernels_or_cpus_are_said_beside_the_figures() {
        let dir = Scratch::new("merge-mixed");
        let (header, mut sc) = study(2);
        for s in &mut sc[2..] {
            let r = s.ran_on.as_mut().unwrap();
            r.kernel_release = "6.1.176".into();
        }
        let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
        let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
        let out = dir.0.join("merged");
        merge(&out, &[a, b], false).unwrap();
        let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
        let caveat = md
            .find("**Caveat:** these scenarios ran on different kernels")
            .expect(&md);
        // Right below the table, before the baseline list.
        assert!(caveat < md.find("Baseline p95").unwrap(), "{md}");
        assert!(
            md.contains("kernel 6.1.176 on Test CPU (scenarios 3–4)"),
            "{md}"
        );
        assert!(md.contains("point 1 (default): 2 machines"), "{md}");
        let html = std::fs::read_to_string(out.join("index.html")).unwrap();
        let at = html
            .find("Caveat:</strong> these scenarios ran on different kernels")
            .unwrap();
        assert!(at > html.find("Comparison between arms").unwrap());
    }

    #[test]
    fn missing_duplicate_and_foreign_folders_are_refused_by_name() {
        let dir = Scratch::new("merge-bad");
        let (header, sc) = study(2);
        let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
        let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
        let out = dir.0.join("merged");
        // Missing: listed; nothing written.
        let e = merge(&out, std::slice::from_ref(&a), false).unwrap_err();
        assert_eq!(e.code(), 1);
        assert!(e.to_string().contains("plan indices 3, 4"), "{e}");
        assert!(!out.exists());
        // Duplicates: named with both folders.
        let a2 = shard_folder(&dir.0, "a2", &header, &sc[1..2], 1);
        let e = merge(&out, &[a.clone(), a2.clone(), b.clone()], false).unwrap_err();
        assert!(e.to_string().contains("2 (in"), "{e}");
        assert!(e.to_string().contains("a2"), "{e}");
        assert!(!out.exists());
        // Another experiment (3 rounds): both hashes named.
        let (other, sc3) = study(3);
        let c = shard_folder(&dir.0, "c", &other, &sc3[2..4], 2);
        let e = merge(&out, &[a.clone(), c], false).unwrap_err();
        let (h2, h3) = (
            header.experiment_hash.clone().unwrap(),
            other.experiment_hash.clone().unwrap(),
        );
        assert!(
            e.to_string().contains(&h2) && e.to_string().contains(&h3),
            "{e}"
        );
        assert!(!out.exists());
        // A corrupt scenario file left by a killed run: named.
        let d = shard_folder(&dir.0, "d", &header, &sc[2..3], 2);
        let mut files = ScenarioFiles::create(&d).unwrap();
        files.push(sc[3].clone()).unwrap();
        let f = d.join(SCENARIO_DIR).join("0004.json");
        let text = std::fs::read(&f).unwrap();
        std::fs::write(&f, &text[..text.len() / 3]).unwrap();
        let e = merge(&out, &[a.clone(), d.clone()], false).unwrap_err();
        assert_eq!(e.code(), 1);
        assert!(e.to_string().contains("0004.json"), "{e}");
        assert!(!out.exists());
        // Intact, that file completes the shard (a killed run's last scenario).
        std::fs::write(&f, &text).unwrap();
        merge(&out, &[a.clone(), d], false).unwrap();
        assert_eq!(
            Results::read(&out.join("results.json")).unwrap().scenarios,
            sc
        );
        // Usage: the same folder twice.
        let e = merge(&dir.0.join("m2"), &[a.clone(), a.clone()], false).unwrap_err();
        assert_eq!(e.code(), 2);
        // --allow-partial merges what exists and says what is missing.
        let out = dir.0.join("partial");
        let m = merge(&out, &[b], true).unwrap();
        assert_eq!(m.missing, [1, 2]);
        let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
        assert!(md.contains("**partial: plan indices 1–2 missing**"), "{md}");
        assert!(md.contains("**Caveat:** partial merge"), "{md}");
        let html = std::fs::read_to_string(out.join("index.html")).unwrap();
        assert!(html.contains("partial merge (--allow-partial)"));
    }

    /// The committed real shard (fixtures/orchestrator/shard) reads back
    /// with its shard record, hash and `ran_on`, and merges on its own as
    /// a partial result that names the shard it lacks.
    #[test]
    fn the_shard_fixture_is_a_mergeable_shard() {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/orchestrator/shard");
        let src = read_source(&fixture).unwrap();
        let h = &src.header;
        assert_eq!(h.shard.as_ref().map(|s| (s.k, s.n)), Some((1, 2)));
        // The hash recorded is the experiment's as this netlab prints it
        // (a later netlab that prints experiments differently regenerates
        // the fixture: fixtures/orchestrator/README.md).
        assert_eq!(
            h.experiment_hash.as_deref(),
            Some(h.experiment().unwrap().content_hash().as_str())
        );
        // The file the fixture was run from is the same experiment.
        let exp = netlab_experiment::load(&fixture.join("experiment.toml")).unwrap();
        assert_eq!(h.experiment_hash_or_computed().unwrap(), exp.content_hash());
        assert_eq!(src.in_results, [1].into());
        let dir = Scratch::new("merge-fixture");
        let out = dir.0.join("m");
        let e = merge(&out, std::slice::from_ref(&fixture), false).unwrap_err();
        assert!(e.to_string().contains("plan indices 2 "), "{e}");
        let m = merge(&out, std::slice::from_ref(&fixture), true).unwrap();
        assert_eq!((m.scenarios, m.missing), (1, vec![2]));
        let r = Results::read(&out.join("results.json")).unwrap();
        assert!(r.scenarios[0].ran_on.is_some());
        // The scenario's packet files come along, byte for byte.
        let ecn = r.scenarios[0].ecn.as_ref().unwrap();
        let mut named = 0;
        for rec in ecn.pcap_files() {
            named += 1;
            assert_eq!(
                std::fs::read(out.join(&rec.file)).unwrap(),
                std::fs::read(fixture.join(&rec.file)).unwrap(),
                "{}",
                rec.file
            );
        }
        assert!(named >= 1);
        assert_eq!(
            elements(&out.join("results.json")),
            elements(&fixture.join("results.json"))
        );
    }

    /// The scenario a signal stopped is partial: a merge counts it as
    /// missing, and `--resume` runs it again (adopting only the others).
    #[test]
    fn an_interrupted_scenario_is_missing_and_resume_keeps_the_rest() {
        let dir = Scratch::new("merge-interrupted");
        let (header, sc) = study(2);
        let mut h = header.clone();
        h.interrupted = Some(netlab_results::Interrupted {
            signal: "SIGTERM".into(),
            scenario: Some(2),
            phase: "loaded".into(),
            at_s: Some(1.0),
        });
        let a = shard_folder(&dir.0, "a", &h, &sc[..2], 1);
        let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
        let e = merge(&dir.0.join("m"), &[a.clone(), b], false).unwrap_err();
        assert!(e.to_string().contains("plan indices 2 "), "{e}");
        let exp = header.experiment().unwrap();
        let mut files = ScenarioFiles::create(&a).unwrap();
        let share: BTreeSet<u32> = [1, 2].into();
        let one_of_two = Some(netlab_experiment::Shard { k: 1, n: 2 });
        let adopted = netlab_run::resume::adopt(&a, &exp, one_of_two, &share, &mut files).unwrap();
        assert_eq!(adopted.complete, [1].into());
        assert_eq!(adopted.resumed_from, ["run1"]);
        // Another experiment's folder is refused, naming both hashes.
        let mut other = exp.clone();
        other.rounds = 3;
        let e = netlab_run::resume::check(&a, &other, one_of_two).unwrap_err();
        assert!(
            e.contains(&exp.content_hash()) && e.contains(&other.content_hash()),
            "{e}"
        );
        // Another share of the same plan is refused too, naming both.
        let e = netlab_run::resume::check(&a, &exp, Some(netlab_experiment::Shard { k: 2, n: 2 }))
            .unwrap_err();
        assert!(e.contains("holds shard 1/2; this run is shard 2/2"), "{e}");
        let e = netlab_run::resume::check(&a, &exp, None).unwrap_err();
        assert!(e.contains("this run is the whole plan"), "{e}");
    }
}
