//! `run --resume`: continue a results folder whose run was
//! interrupted or whose machine died. The folder's results.json (the last
//! complete version) and its `scenarios/NNNN.json` files (left by a killed
//! run) say which scenarios are complete; those are kept byte for byte and
//! not run again, the partial one (the scenario a signal stopped) and the
//! ones never started are run. A folder made from another experiment
//! (content hash) or another netlab version is refused, naming both.

use std::collections::BTreeSet;
use std::path::Path;

use crate::merge::index_ranges;
use crate::split::{read_scenario_file, read_split, SplitError};
use crate::store::{scenario_files, SCENARIO_DIR};
use crate::{Results, ScenarioFiles};
use netlab_experiment::{Experiment, Shard};

/// What a resumed run takes over from its folder.
#[derive(Debug, Default)]
pub struct Adopted {
    /// Plan indices of the complete scenarios kept.
    pub complete: BTreeSet<u32>,
    /// Run ids of the earlier attempts, oldest first.
    pub resumed_from: Vec<String>,
}

/// Checks that `out`'s results.json (if any) is of this experiment, this
/// netlab version and this shard; returns its header. A folder with scenario files but no
/// results.json cannot say what it belongs to and is refused.
pub fn check(
    out: &Path,
    exp: &Experiment,
    shard: Option<Shard>,
) -> Result<Option<Results>, String> {
    let path = out.join("results.json");
    if !path.exists() {
        let dir = out.join(SCENARIO_DIR);
        let files = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
        if files > 0 {
            return Err(format!(
                "{} holds {files} file(s) but there is no results.json to say which experiment they are from",
                dir.display()
            ));
        }
        return Ok(None);
    }
    // The header only: every scenario is read (and checked) when adopted.
    let header = read_split(&path, |_, _, _| Ok(())).map_err(|e| e.to_string())?;
    // Scenarios this netlab writes go beside the adopted ones: one version.
    if header.schema_version != crate::SCHEMA_VERSION {
        return Err(format!(
            "{} is results.json version {}; this netlab writes version {}: a resumed folder must be the same version (use another --out)",
            path.display(),
            header.schema_version,
            crate::SCHEMA_VERSION
        ));
    }
    let theirs = header
        .experiment_hash_or_computed()
        .map_err(|e| format!("{}: experiment: {e}", path.display()))?;
    let ours = exp.content_hash();
    let this_version = env!("CARGO_PKG_VERSION");
    if theirs != ours || header.tool.version != this_version {
        return Err(format!(
            "{} was made from experiment {theirs} with netlab {}; this run is experiment {ours} with netlab {this_version}: \
             a resumed folder must be the same experiment and version (use another --out)",
            path.display(),
            header.tool.version
        ));
    }
    // Another share of the plan would drop the folder's other scenarios.
    let theirs = header.shard.as_ref().map(|s| Shard { k: s.k, n: s.n });
    if theirs != shard {
        let say = |s: Option<Shard>| {
            s.map_or_else(|| "the whole plan".to_string(), |s| format!("shard {s}"))
        };
        return Err(format!(
            "{} holds {}; this run is {}: resume a folder with the share it was made with",
            path.display(),
            say(theirs),
            say(shard)
        ));
    }
    Ok(Some(header))
}

/// With `--resume`, a folder that already holds its whole share: every
/// planned scenario complete in its results.json, no scenario file beside
/// it, no interruption recorded, and its summary.md written. Such a run
/// has nothing to do and rewrites nothing (not even results.json's
/// `wall_s` or `started_utc`): the line to say, or `None` when something is
/// left to run. Errors are [`check`]'s.
pub fn nothing_left(
    out: &Path,
    exp: &Experiment,
    shard: Option<Shard>,
    planned: &BTreeSet<u32>,
) -> Result<Option<String>, String> {
    let Some(header) = check(out, exp, shard)? else {
        return Ok(None);
    };
    if header.interrupted.is_some()
        || !scenario_files(out).is_empty()
        || !out.join("summary.md").is_file()
    {
        return Ok(None);
    }
    let mut held = BTreeSet::new();
    read_split(&out.join("results.json"), |_, _, s| {
        held.insert(s.index);
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    if &held != planned {
        return Ok(None);
    }
    let adopted = Adopted {
        complete: held,
        resumed_from: vec![header.run_id.clone()],
    };
    Ok(Some(format!(
        "{}: nothing rewritten",
        resumed_line(out, shard, planned, &adopted)
    )))
}

/// Takes the complete scenarios of `out` into `files` (their bytes
/// unchanged) for a run of `shard` whose scenarios are `planned`; the one
/// a signal stopped is left to run again.
pub fn adopt(
    out: &Path,
    exp: &Experiment,
    shard: Option<Shard>,
    planned: &BTreeSet<u32>,
    files: &mut ScenarioFiles,
) -> Result<Adopted, String> {
    let Some(header) = check(out, exp, shard)? else {
        return Ok(Adopted::default());
    };
    let partial = header.interrupted.as_ref().and_then(|i| i.scenario);
    let wanted = |index: u32| planned.contains(&index) && Some(index) != partial;
    let mut adopted = Adopted {
        resumed_from: header
            .resumed_from
            .iter()
            .cloned()
            .chain(std::iter::once(header.run_id.clone()))
            .collect(),
        ..Adopted::default()
    };
    let path = out.join("results.json");
    read_split(&path, |_, bytes, s| {
        if wanted(s.index) && adopted.complete.insert(s.index) {
            files
                .push_raw(s.index, bytes)
                .map_err(|e| SplitError::Refused(e.to_string()))?;
        }
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    // Files a killed run left after its last results.json.
    for p in scenario_files(out) {
        let (bytes, s) = read_scenario_file(&p).map_err(|e| e.to_string())?;
        if wanted(s.index) && !adopted.complete.contains(&s.index) {
            files.push_raw(s.index, &bytes).map_err(|e| e.to_string())?;
            adopted.complete.insert(s.index);
        }
    }
    Ok(adopted)
}

/// The one line a resumed run says on stderr, even under `--quiet`: the
/// folder, the share, which of the share's scenarios are kept (by plan
/// index, never another shard's) and which run now.
pub fn resumed_line(
    out: &Path,
    shard: Option<Shard>,
    share: &BTreeSet<u32>,
    adopted: &Adopted,
) -> String {
    let whose = match shard {
        Some(sh) => format!("shard {sh}"),
        None => "the whole plan".to_string(),
    };
    let to_run: Vec<u32> = share
        .iter()
        .copied()
        .filter(|i| !adopted.complete.contains(i))
        .collect();
    let kept: Vec<u32> = adopted.complete.iter().copied().collect();
    let from = if adopted.resumed_from.is_empty() {
        String::new()
    } else {
        format!(" from run {}", adopted.resumed_from.join(", "))
    };
    format!(
        "resuming {} ({whose}, {} scenario(s)): {}{from}; {}",
        out.display(),
        share.len(),
        match kept.as_slice() {
            [] => "none complete".to_string(),
            [one] => format!("scenario {one} complete, kept"),
            _ => format!("scenarios {} complete, kept", index_ranges(&kept)),
        },
        match to_run.as_slice() {
            [] => "nothing left to run".to_string(),
            [one] => format!("scenario {one} to run"),
            _ => format!("scenarios {} to run", index_ranges(&to_run)),
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shard 2 of 2 (plan indices 3, 4, 7, 8) with 3 and 4 kept names its
    /// own scenarios only, and says which run it continues.
    #[test]
    fn the_resumed_line_names_the_shards_own_scenarios() {
        let share: BTreeSet<u32> = [3, 4, 7, 8].into();
        let adopted = Adopted {
            complete: [3, 4].into(),
            resumed_from: vec!["abc123".into()],
        };
        let line = resumed_line(
            Path::new("/r/shard-2-of-2"),
            Some(Shard { k: 2, n: 2 }),
            &share,
            &adopted,
        );
        assert_eq!(
            line,
            "resuming /r/shard-2-of-2 (shard 2/2, 4 scenario(s)): scenarios 3–4 complete, \
             kept from run abc123; scenarios 7–8 to run"
        );
        assert!(!line.contains(" 1") && !line.contains("1–"), "{line}");
        // A folder that holds nothing complete yet (killed in its first scenario).
        let none = resumed_line(
            Path::new("o"),
            Some(Shard { k: 2, n: 2 }),
            &[2].into(),
            &Adopted {
                complete: BTreeSet::new(),
                resumed_from: vec!["r1".into(), "r2".into()],
            },
        );
        assert_eq!(
            none,
            "resuming o (shard 2/2, 1 scenario(s)): none complete from run r1, r2; scenario 2 to run"
        );
        let whole = resumed_line(
            Path::new("o"),
            None,
            &[1, 2, 3].into(),
            &Adopted {
                complete: [1, 3].into(),
                resumed_from: Vec::new(),
            },
        );
        assert_eq!(
            whole,
            "resuming o (the whole plan, 3 scenario(s)): scenarios 1, 3 complete, kept; scenario 2 to run"
        );
    }
}
