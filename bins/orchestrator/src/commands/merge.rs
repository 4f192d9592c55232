//! `orchestrator merge OUT DIR...`, whole: its flags ([`MergeArgs`]), then
//! one results folder from the folders of a sharded run, reading exactly
//! as if one machine had run the plan. The folders are checked and their
//! scenarios copied byte for byte, in plan order, by
//! [`netlab_results::merge`]; the folder is then finished as a run's is,
//! from its scenarios read back one at a time
//! ([`netlab_report::folder::finish_from`]: summary.md, then the report;
//! with `--allow-partial`, the missing ones are listed in both). Memory is
//! one scenario plus each scenario's summary figures and report samples,
//! as in a run. [`update`] (`--update`) is a merge that may be run again:
//! nothing is written when OUT holds this merge, else OUT is replaced in
//! one step. [`main`] prints each step's time and peak memory, then what
//! was merged.

use std::path::{Path, PathBuf};

use clap::Args;
use netlab_analysis::ReportBuilder;
use netlab_report::folder::{self, FinishOptions, FinishStep};
use netlab_report::{ReportError, ReportFiles};
use netlab_results::merge::{check_folders, MergeError};

/// `orchestrator merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The merged results folder (must not hold a results.json yet, unless --update).
    pub out: PathBuf,
    /// The shard folders (each with its results.json).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Merge what exists even when plan indices are missing (they are listed in summary.md and the report).
    #[arg(long)]
    pub allow_partial: bool,
    /// OUT may already hold a merge: nothing is written when it holds this one (the same runs, every scenario's bytes); otherwise it is replaced in one step and its former result kept as OUT.previous.
    #[arg(long)]
    pub update: bool,
}

/// Entry point of `orchestrator merge`; returns the exit code.
pub fn main(a: &MergeArgs) -> u8 {
    let started = std::time::Instant::now();
    let mut notice = |m: String| eprintln!("orchestrator merge: {m}");
    let done = if a.update {
        update(&a.out, &a.dirs, a.allow_partial, &mut notice)
    } else {
        merge(&a.out, &a.dirs, a.allow_partial, &mut notice).map(Updated::New)
    };
    let updated = match done {
        Ok(u) => u,
        Err(e) => {
            eprintln!("orchestrator merge: {e}");
            return exit_code(&e);
        }
    };
    // The report is said as the merge ends, before what it replaced.
    let report_ok = match &updated {
        Updated::New(m) | Updated::Replaced { merged: m, .. } => {
            netlab_run::finish::said("orchestrator merge", &m.report)
        }
        Updated::Same => true,
    };
    if let Some(s) = updated.sentence(&a.out) {
        println!("{s}");
    }
    let (Updated::New(m) | Updated::Replaced { merged: m, .. }) = &updated else {
        return 0;
    };
    for line in m.step_lines(started) {
        eprintln!("{line}");
    }
    for line in m.summary_lines(a.dirs.len()) {
        println!("{line}");
    }
    u8::from(!report_ok)
}

fn data(e: impl std::fmt::Display) -> MergeError {
    MergeError::Data(e.to_string())
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
    /// The report's files, or why it failed (results.json and summary.md
    /// are kept either way; `netlab_run::finish::said` says it).
    pub report: Result<ReportFiles, ReportError>,
    /// Each step's end and the peak memory then.
    pub phases: Vec<MergeStep>,
}

/// Merges `dirs` into `out`: results.json, then the folder finished from
/// its scenarios ([`folder::finish_from`]: summary.md, then the report).
/// `notice`: what the merge says as it goes (a folder skipped, one
/// removed).
pub fn merge(
    out: &Path,
    dirs: &[PathBuf],
    allow_partial: bool,
    notice: &mut dyn FnMut(String),
) -> Result<Merged, MergeError> {
    let checked = check_folders(out, dirs, allow_partial, notice)?;
    write_checked(checked, out, notice)
}

/// What `merge --update` did to OUT.
#[derive(Debug)]
pub enum Updated {
    /// OUT held no result: merged as a plain merge.
    New(Merged),
    /// OUT already held this merge's result: nothing was written.
    Same,
    /// The sources changed: OUT was replaced by a new merge in one step
    /// and the result it held moved to `previous`.
    Replaced {
        /// The new merge.
        merged: Merged,
        /// Where OUT's former result is now (`OUT.previous`).
        previous: PathBuf,
    },
}

/// `OUT` with `suffix` after its last component (`merged` → `merged.new`).
fn beside(out: &Path, suffix: &str) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "merged".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!("{name}{suffix}"))
}

/// `merge --update`: a merge that may be run again. When OUT already holds
/// what merging `dirs` now would write ([`netlab_results::merge::CheckedMerge::holds_same`]),
/// nothing is written. When the sources changed (a shard resumed or run
/// again), the new merge is written beside OUT (`OUT.new`) and swapped
/// with it in one rename (`RENAME_EXCHANGE`: OUT is never missing or half
/// written), and the former result is kept as `OUT.previous` (one
/// generation: an older `OUT.previous` is removed, and said).
pub fn update(
    out: &Path,
    dirs: &[PathBuf],
    allow_partial: bool,
    notice: &mut dyn FnMut(String),
) -> Result<Updated, MergeError> {
    if !out.join("results.json").exists() {
        return merge(out, dirs, allow_partial, notice).map(Updated::New);
    }
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    if let Some(d) = dirs.iter().find(|d| canon(d) == canon(out)) {
        return Err(MergeError::Usage(format!(
            "{} is both OUT and a folder to merge",
            d.display()
        )));
    }
    let staging = beside(out, ".new");
    if staging.exists() {
        // Only an update writes there; one that died left it half made.
        std::fs::remove_dir_all(&staging)
            .map_err(|e| data(format!("removing {}: {e}", staging.display())))?;
        notice(format!(
            "removed {}, left by an update that did not finish",
            staging.display()
        ));
    }
    let checked = check_folders(&staging, dirs, allow_partial, notice)?;
    if checked.holds_same(out)? {
        return Ok(Updated::Same);
    }
    let merged = write_checked(checked, &staging, notice)?;
    nix::fcntl::renameat2(
        nix::fcntl::AT_FDCWD,
        staging.as_path(),
        nix::fcntl::AT_FDCWD,
        out,
        nix::fcntl::RenameFlags::RENAME_EXCHANGE,
    )
    .map_err(|e| {
        data(format!(
            "swapping {} and {}: {e} (the new merge stays in {})",
            staging.display(),
            out.display(),
            staging.display()
        ))
    })?;
    let previous = beside(out, ".previous");
    if previous.exists() {
        std::fs::remove_dir_all(&previous)
            .map_err(|e| data(format!("removing {}: {e}", previous.display())))?;
        notice(format!(
            "removed the older {} (one former result is kept)",
            previous.display()
        ));
    }
    std::fs::rename(&staging, &previous).map_err(|e| {
        data(format!(
            "moving the former result {} to {}: {e}",
            staging.display(),
            previous.display()
        ))
    })?;
    Ok(Updated::Replaced {
        merged: Merged {
            out: out.to_path_buf(),
            ..merged
        },
        previous,
    })
}

/// The second pass of a merge checked into `out`: results.json, then the
/// folder finished from its scenarios.
fn write_checked(
    checked: netlab_results::merge::CheckedMerge,
    out: &Path,
    notice: &mut dyn FnMut(String),
) -> Result<Merged, MergeError> {
    let mut phases = vec![MergeStep::now("checked")];
    let merged = checked.write(notice)?;
    phases.push(MergeStep::now("results.json written"));
    let (header, files) = (&merged.header, &merged.files);
    let mut digest = ReportBuilder::new(&header.experiment);
    files
        .for_each(|s| {
            digest.push(s);
            Ok(())
        })
        .map_err(data)?;
    let options = FinishOptions::run_end(0);
    let finished = folder::finish_from(digest, header, out, &options, &mut |step| {
        phases.push(MergeStep::now(match step {
            FinishStep::SummaryWritten => "scenarios read back for the summary",
            FinishStep::ReportWritten => "summary.md and report written",
        }))
    })
    .map_err(data)?;
    finished
        .summary
        .map_err(|e| MergeError::Data(format!("writing summary.md: {e}")))?;
    files.remove_files().map_err(data)?;
    Ok(Merged {
        scenarios: files.len(),
        missing: merged.missing,
        out: out.to_path_buf(),
        report: finished.report,
        phases,
    })
}

/// A step of the merge: when it ended and the process's peak resident
/// memory then (VmHWM), so the cost of each step shows (docs/scale.md).
#[derive(Debug)]
pub struct MergeStep {
    /// What had been done.
    pub what: &'static str,
    /// When.
    pub at: std::time::Instant,
    /// VmHWM at that moment, kB (None off Linux).
    pub peak_kb: Option<u64>,
}

impl MergeStep {
    fn now(what: &'static str) -> MergeStep {
        MergeStep {
            what,
            at: std::time::Instant::now(),
            peak_kb: netlab_os::proc::MemoryUse::own().map(|m| m.peak_kb),
        }
    }
}

impl Merged {
    /// What the merge prints when it ends (stdout): the count, then, for
    /// a partial merge, the plan indices missing.
    pub fn summary_lines(&self, folders: usize) -> Vec<String> {
        let mut lines = vec![format!(
            "merged {} scenario(s) from {folders} folder(s) into {}",
            self.scenarios,
            self.out.display()
        )];
        if !self.missing.is_empty() {
            let missing: Vec<String> = self.missing.iter().map(u32::to_string).collect();
            lines.push(format!(
                "partial: plan indices {} missing (said so in summary.md and the report)",
                missing.join(", ")
            ));
        }
        lines
    }

    /// Each step's time since `started` and since the step before, with the
    /// peak memory then (stderr; docs/scale.md reads them).
    pub fn step_lines(&self, started: std::time::Instant) -> Vec<String> {
        let mut last = started;
        let mut lines = Vec::with_capacity(self.phases.len());
        for p in &self.phases {
            let peak = p
                .peak_kb
                .map_or_else(|| "?".into(), |kb| format!("{:.1} MB", kb as f64 / 1024.0));
            lines.push(format!(
                "merge: {} after {:.2} s (+{:.2} s), peak RSS {peak}",
                p.what,
                (p.at - started).as_secs_f64(),
                (p.at - last).as_secs_f64(),
            ));
            last = p.at;
        }
        lines
    }
}

/// The exit code of a refused merge: usage 2, data 1.
pub fn exit_code(e: &MergeError) -> u8 {
    match e {
        MergeError::Usage(_) => 2,
        MergeError::Data(_) => 1,
    }
}

impl Updated {
    /// What `merge --update` says about OUT (stdout): that nothing was
    /// written, or where the former result went; nothing for a new merge.
    pub fn sentence(&self, out: &Path) -> Option<String> {
        match self {
            Updated::New(_) => None,
            Updated::Same => Some(format!(
                "{} already holds this merge: the same runs and every scenario's bytes; nothing written",
                out.display()
            )),
            Updated::Replaced { previous, .. } => Some(format!(
                "the folders changed since {} was merged: merged again, the former result kept in {}",
                out.display(),
                previous.display()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_os::testing::Scratch;
    use netlab_results::merge::read_source;
    use netlab_results::store::SCENARIO_DIR;
    use netlab_results::testing::{elements, golden_study, shard_folder};
    use netlab_results::{Results, ScenarioFiles};
    use std::collections::BTreeSet;

    fn quiet(_: String) {}

    #[test]
    fn a_merge_says_what_it_merged_and_each_step() {
        let t0 = std::time::Instant::now();
        let step = |what, ms, peak_kb| MergeStep {
            what,
            at: t0 + std::time::Duration::from_millis(ms),
            peak_kb,
        };
        let m = Merged {
            scenarios: 3,
            missing: vec![2, 5],
            out: PathBuf::from("/tmp/x/m"),
            report: Err(ReportError::Plot {
                plot: "p.svg".into(),
                message: "m".into(),
            }),
            phases: vec![step("read", 500, Some(2048)), step("written", 1250, None)],
        };
        assert_eq!(
            m.summary_lines(2),
            [
                "merged 3 scenario(s) from 2 folder(s) into /tmp/x/m",
                "partial: plan indices 2, 5 missing (said so in summary.md and the report)"
            ]
        );
        assert_eq!(
            m.step_lines(t0),
            [
                "merge: read after 0.50 s (+0.50 s), peak RSS 2.0 MB",
                "merge: written after 1.25 s (+0.75 s), peak RSS ?"
            ]
        );
        let out = Path::new("/tmp/x/m");
        assert_eq!(Updated::New(m).sentence(out), None);
        assert_eq!(
            Updated::Same.sentence(out).unwrap(),
            "/tmp/x/m already holds this merge: the same runs and every scenario's bytes; nothing written"
        );
        assert_eq!(exit_code(&MergeError::Usage("u".into())), 2);
        assert_eq!(exit_code(&MergeError::Data("d".into())), 1);
    }

    #[test]
    fn two_shards_merge_into_the_whole_plan_byte_for_byte() {
        let dir = Scratch::new("merge-ok");
        let (header, sc) = golden_study(2);
        // Given in the "wrong" order: the merge puts plan order back.
        let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
        let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
        let out = dir.0.join("merged");
        let m = merge(&out, &[b.clone(), a.clone()], false, &mut quiet).unwrap();
        assert_eq!(m.scenarios, 4);
        assert!(m.missing.is_empty() && m.report.is_ok());
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
        // The working copies are gone; `scenarios/` holds the report's
        // folders, one per scenario (its page and plots), and nothing else.
        assert!(netlab_results::store::scenario_files(&out).is_empty());
        let mut left: Vec<String> = std::fs::read_dir(out.join(SCENARIO_DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["s01", "s02", "s03", "s04"]);
        let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
        assert!(
            md.contains("Merged by `orchestrator merge` from 2 folder(s): 4 of 4"),
            "{md}"
        );
        // One kernel and one CPU model: no caveat about machines.
        assert!(!md.contains("different kernels or CPU models"), "{md}");
        assert!(out.join("index.html").exists());
        // A second merge into the same OUT is refused and changes nothing.
        let before = std::fs::read(out.join("results.json")).unwrap();
        let e = merge(&out, &[a, b], false, &mut quiet).unwrap_err();
        assert!(
            matches!(e, MergeError::Data(_)) && e.to_string().contains("already holds"),
            "{e}"
        );
        assert_eq!(std::fs::read(out.join("results.json")).unwrap(), before);
    }

    #[test]
    fn different_kernels_or_cpus_are_said_beside_the_figures() {
        let dir = Scratch::new("merge-mixed");
        let (header, mut sc) = golden_study(2);
        for s in &mut sc[2..] {
            let r = s.ran_on.as_mut().unwrap();
            r.kernel_release = "6.1.176".into();
        }
        let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
        let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
        let out = dir.0.join("merged");
        merge(&out, &[a, b], false, &mut quiet).unwrap();
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
        let (header, sc) = golden_study(2);
        let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
        let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
        let out = dir.0.join("merged");
        // Missing: listed; nothing written.
        let e = merge(&out, std::slice::from_ref(&a), false, &mut quiet).unwrap_err();
        assert!(matches!(e, MergeError::Data(_)), "{e}");
        assert!(e.to_string().contains("plan indices 3, 4"), "{e}");
        assert!(!out.exists());
        // Duplicates: named with both folders.
        let a2 = shard_folder(&dir.0, "a2", &header, &sc[1..2], 1);
        let e = merge(&out, &[a.clone(), a2.clone(), b.clone()], false, &mut quiet).unwrap_err();
        assert!(e.to_string().contains("2 (in"), "{e}");
        assert!(e.to_string().contains("a2"), "{e}");
        assert!(!out.exists());
        // Another experiment (3 rounds): both hashes named.
        let (other, sc3) = golden_study(3);
        let c = shard_folder(&dir.0, "c", &other, &sc3[2..4], 2);
        let e = merge(&out, &[a.clone(), c], false, &mut quiet).unwrap_err();
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
        let e = merge(&out, &[a.clone(), d.clone()], false, &mut quiet).unwrap_err();
        assert!(matches!(e, MergeError::Data(_)), "{e}");
        assert!(e.to_string().contains("0004.json"), "{e}");
        assert!(!out.exists());
        // Intact, that file completes the shard (a killed run's last scenario).
        std::fs::write(&f, &text).unwrap();
        merge(&out, &[a.clone(), d], false, &mut quiet).unwrap();
        assert_eq!(
            Results::read(&out.join("results.json")).unwrap().scenarios,
            sc
        );
        // Usage: the same folder twice.
        let e = merge(
            &dir.0.join("m2"),
            &[a.clone(), a.clone()],
            false,
            &mut quiet,
        )
        .unwrap_err();
        assert!(matches!(e, MergeError::Usage(_)), "{e}");
        // --allow-partial merges what exists and says what is missing.
        let out = dir.0.join("partial");
        let m = merge(&out, &[b], true, &mut quiet).unwrap();
        assert_eq!(m.missing, [1, 2]);
        let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
        assert!(md.contains("**partial: plan indices 1–2 missing**"), "{md}");
        assert!(md.contains("**Caveat:** partial merge"), "{md}");
        let html = std::fs::read_to_string(out.join("index.html")).unwrap();
        assert!(html.contains("partial merge (--allow-partial)"));
    }

    /// A version 2 folder (recorded before version 3) is not resumed: the
    /// scenarios this netlab writes would sit beside version 2 ones.
    #[test]
    fn a_version_2_folder_is_not_resumed() {
        let dir = Scratch::new("resume-v2");
        let (mut header, sc) = golden_study(2);
        let exp = header.experiment().unwrap();
        let one = netlab_experiment::Shard { k: 1, n: 2 };
        let ok = shard_folder(&dir.0, "v3", &header, &sc[..2], 1);
        assert!(netlab_results::resume::check(&ok, &exp, Some(one)).is_ok());
        header.schema_version = 2;
        let old = shard_folder(&dir.0, "v2", &header, &sc[..2], 1);
        let e = netlab_results::resume::check(&old, &exp, Some(one)).unwrap_err();
        let writes = format!(
            "is results.json version 2; this netlab writes version {}",
            netlab_results::SCHEMA_VERSION
        );
        assert!(e.contains(&writes), "{e}");
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
        let e = merge(&out, std::slice::from_ref(&fixture), false, &mut quiet).unwrap_err();
        assert!(
            e.to_string()
                .contains("plan indices 2; missing shards: 2 of 2 "),
            "{e}"
        );
        let m = merge(&out, std::slice::from_ref(&fixture), true, &mut quiet).unwrap();
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
        let (header, sc) = golden_study(2);
        let mut h = header.clone();
        h.interrupted = Some(netlab_results::Interrupted {
            signal: "SIGTERM".into(),
            scenario: Some(2),
            phase: "loaded".into(),
            at_s: Some(1.0),
        });
        let a = shard_folder(&dir.0, "a", &h, &sc[..2], 1);
        let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
        let e = merge(&dir.0.join("m"), &[a.clone(), b], false, &mut quiet).unwrap_err();
        assert!(
            e.to_string()
                .contains("plan indices 2; missing shards: 1 of 2 "),
            "{e}"
        );
        let exp = header.experiment().unwrap();
        let mut files = ScenarioFiles::create(&a).unwrap();
        let share: BTreeSet<u32> = [1, 2].into();
        let one_of_two = Some(netlab_experiment::Shard { k: 1, n: 2 });
        let adopted =
            netlab_results::resume::adopt(&a, &exp, one_of_two, &share, &mut files).unwrap();
        assert_eq!(adopted.complete, [1].into());
        assert_eq!(adopted.resumed_from, ["run1"]);
        // Another experiment's folder is refused, naming both hashes.
        let mut other = exp.clone();
        other.rounds = 3;
        let e = netlab_results::resume::check(&a, &other, one_of_two).unwrap_err();
        assert!(
            e.contains(&exp.content_hash()) && e.contains(&other.content_hash()),
            "{e}"
        );
        // Another share of the same plan is refused too, naming both.
        let e =
            netlab_results::resume::check(&a, &exp, Some(netlab_experiment::Shard { k: 2, n: 2 }))
                .unwrap_err();
        assert!(e.contains("holds shard 1/2; this run is shard 2/2"), "{e}");
        let e = netlab_results::resume::check(&a, &exp, None).unwrap_err();
        assert!(e.contains("this run is the whole plan"), "{e}");
    }

    /// `merge --update` of an unchanged set of folders writes nothing; once
    /// a folder changed, OUT is replaced and its former result kept as
    /// OUT.previous; a third update of the same folders writes nothing again.
    #[test]
    fn an_update_is_a_no_op_until_a_folder_changes() {
        let dir = Scratch::new("merge-update");
        let (header, sc) = golden_study(2);
        let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
        let b = shard_folder(&dir.0, "b", &header, &sc[2..], 2);
        let out = dir.0.join("merged");
        let dirs = [a.clone(), b.clone()];
        assert!(matches!(
            update(&out, &dirs, false, &mut quiet).unwrap(),
            Updated::New(_)
        ));
        let first = std::fs::read(out.join("results.json")).unwrap();
        let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        let (json_at, summary_at) = (
            modified(&out.join("results.json")),
            modified(&out.join("summary.md")),
        );
        assert!(matches!(
            update(&out, &dirs, false, &mut quiet).unwrap(),
            Updated::Same
        ));
        assert_eq!(std::fs::read(out.join("results.json")).unwrap(), first);
        assert_eq!(modified(&out.join("results.json")), json_at);
        assert_eq!(modified(&out.join("summary.md")), summary_at);
        assert!(!dir.0.join("merged.previous").exists());
        // Shard 2 ran again (another run id): merged again, the former kept.
        let file = b.join("results.json");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("\"run2\""));
        std::fs::write(&file, text.replace("\"run2\"", "\"run7\"")).unwrap();
        match update(&out, &dirs, false, &mut quiet).unwrap() {
            Updated::Replaced { previous, merged } => {
                assert_eq!(previous, dir.0.join("merged.previous"));
                assert_eq!(merged.out, out);
                assert_eq!(merged.scenarios, 4);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            std::fs::read(dir.0.join("merged.previous/results.json")).unwrap(),
            first
        );
        let r = Results::read(&out.join("results.json")).unwrap();
        let runs: Vec<&str> = r
            .merged
            .as_ref()
            .unwrap()
            .sources
            .iter()
            .map(|s| s.run_id.as_str())
            .collect();
        assert_eq!(runs, ["run1", "run7"]);
        assert!(!dir.0.join("merged.new").exists());
        assert!(out.join("summary.md").exists() && out.join("index.html").exists());
        assert!(matches!(
            update(&out, &dirs, false, &mut quiet).unwrap(),
            Updated::Same
        ));
        // A scenario whose bytes changed under the same run id is a change.
        let file = a.join("results.json");
        let text = std::fs::read_to_string(&file).unwrap();
        let first_index = text.find("\"index\"").unwrap();
        let mut bytes = text.into_bytes();
        // One byte of whitespace inside the first scenario becomes another.
        let space = bytes[first_index..]
            .iter()
            .position(|&c| c == b' ')
            .unwrap()
            + first_index;
        bytes[space] = b'\n';
        std::fs::write(&file, bytes).unwrap();
        assert!(matches!(
            update(&out, &dirs, false, &mut quiet).unwrap(),
            Updated::Replaced { .. }
        ));
        // OUT among the folders is a usage error.
        let e = update(&out, &[a, out.clone()], false, &mut quiet).unwrap_err();
        assert!(e.to_string().contains("both OUT and a folder"), "{e}");
    }

    /// `run --resume` of a folder that holds its whole share has nothing
    /// left to run; one without its summary, or interrupted, has.
    #[test]
    fn a_complete_share_has_nothing_left_to_run() {
        let dir = Scratch::new("resume-nothing-left");
        let (header, sc) = golden_study(2);
        let a = shard_folder(&dir.0, "a", &header, &sc[..2], 1);
        let exp = header.experiment().unwrap();
        let one = Some(netlab_experiment::Shard { k: 1, n: 2 });
        let share: BTreeSet<u32> = [1, 2].into();
        let left =
            |share: &BTreeSet<u32>| netlab_results::resume::nothing_left(&a, &exp, one, share);
        assert_eq!(left(&share).unwrap(), None, "no summary.md yet");
        std::fs::write(a.join("summary.md"), "# done\n").unwrap();
        let line = left(&share).unwrap().expect("nothing left");
        assert!(
            line.ends_with("scenarios 1–2 complete, kept from run run1; nothing left to run: nothing rewritten"),
            "{line}"
        );
        let more: BTreeSet<u32> = [1, 2, 3].into();
        assert_eq!(left(&more).unwrap(), None);
        let other = Some(netlab_experiment::Shard { k: 2, n: 2 });
        assert!(netlab_results::resume::nothing_left(&a, &exp, other, &share).is_err());
    }
}
