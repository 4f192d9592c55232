//! `orchestrator rerun RESULTS`, whole: its flags ([`RerunArgs`]), the
//! resolved experiment the results.json records, with its seeds and
//! order, on the kernel it ran on (`netlab_run::kernel::recorded`) unless
//! another is chosen; and the folder it may be written to (never one that
//! holds a result); once it ran, its diff against the original
//! ([`diff_into`]; docs/usage.md, "Two runs").
//!
//! A recorded kernel this machine does not have (another host release, a
//! guest kernel not installed or of another release) is refused before
//! anything is touched, saying what to pass; a chosen kernel overrides
//! it, and the diff's setup then names the kernel that differs. A run
//! merged from shards records the whole experiment and reruns as one; a
//! shard K/N of it runs one shard, whose rounds the diff compares with
//! all of the original's at the same arms and points (the others are
//! listed as in one run only).

use std::path::{Path, PathBuf};

use netlab_run::SessionConfig;

use clap::{value_parser, Args};
use netlab_experiment::Shard;

use super::kernel_flag::{kernel_choice, KernelFlag};
use super::{execute, utc_stamp};
use crate::flags;

use netlab_experiment::{Experiment, KernelChoice};

/// `orchestrator rerun`.
#[derive(Debug, Args)]
pub struct RerunArgs {
    /// The results folder (or its results.json) whose experiment runs again.
    pub results: PathBuf,
    /// Results folder of the new run (default results/<name>-rerun-<UTC timestamp>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Rounds, instead of the recorded count.
    #[arg(long, value_parser = value_parser!(u32).range(1..))]
    pub rounds: Option<u32>,
    /// The kernel to run on, instead of the recorded one (the diff then names it).
    #[arg(long, value_enum)]
    pub kernel: Option<KernelFlag>,
    /// Rerun only shard K of N of the recorded experiment (a merged run reruns as one experiment otherwise); the diff compares its rounds with all of the original's at the same arms and points.
    #[arg(long, value_name = "K/N", value_parser = flags::shard)]
    pub shard: Option<Shard>,
    /// Guest memory for the user-mode-linux kernel.
    #[arg(long, default_value = "1G", value_parser = flags::guest_mem)]
    pub guest_mem: String,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
}

/// Entry point; returns the exit code.
pub fn main(a: &RerunArgs) -> u8 {
    let kernel = a.kernel.map(kernel_choice);
    let exp = match recorded_experiment(&a.results, a.rounds, kernel) {
        Ok(x) => x,
        Err(why) => {
            eprintln!("orchestrator rerun: {why}");
            return 2;
        }
    };
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from("results").join(format!("{}-rerun-{}", exp.name, utc_stamp()))
    });
    if let Err(why) = check_out(&out) {
        eprintln!("orchestrator rerun: {why}");
        return 2;
    }
    let mut cfg = SessionConfig::new(exp, out.clone());
    cfg.guest_mem = a.guest_mem.clone();
    cfg.quiet = a.quiet;
    // Shard K of N of the recorded plan (refused before anything runs when
    // N exceeds its units, as `run --shard` is).
    cfg.shard = a.shard;
    let code = execute("rerun", cfg);
    if code != 0 {
        return code;
    }
    match diff_into(&a.results, &out) {
        Ok(lines) => {
            println!("diff against {}:", a.results.display());
            for l in lines {
                println!("- {l}");
            }
            println!("diff: {}", out.join("diff.html").display());
            0
        }
        Err(e) => {
            eprintln!("orchestrator rerun: the run is complete, the diff failed: {e}");
            1
        }
    }
}

/// The experiment the results folder (or file) `results` records, with
/// `rounds` and `kernel` overriding its own when given. The refusal says
/// what is wrong, naming the file, or what `--kernel` to pass.
pub fn recorded_experiment(
    results: &Path,
    rounds: Option<u32>,
    kernel: Option<KernelChoice>,
) -> Result<Experiment, String> {
    let file = netlab_report::results_path(results);
    let header = netlab_results::stream::read_each(&file, |_, _| {})
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let mut exp = Experiment::from_file(&header.experiment)
        .map_err(|e| format!("{}: its experiment: {e}", file.display()))?;
    if let Some(n) = rounds {
        exp.rounds = n;
    }
    exp.kernel = match kernel {
        Some(k) => k,
        None => netlab_run::kernel::recorded(
            &header.kernel.mode,
            header.kernel.name.as_deref(),
            &header.kernel.release,
        )?,
    };
    Ok(exp)
}

/// Refuses a folder that already holds a results.json: a rerun never
/// writes over a result.
pub fn check_out(out: &Path) -> Result<(), String> {
    if out.join("results.json").exists() {
        return Err(format!(
            "{} already holds a results.json; a rerun never writes over a result (choose a new --out)",
            out.display()
        ));
    }
    Ok(())
}

/// The diff of the run in `new` against the one in `original`
/// (`netlab_report::diff`), written into `new` (diff.md, diff.html,
/// diff.json); its headline. The refusal names the folder it could not
/// read.
pub fn diff_into(original: &Path, new: &Path) -> Result<Vec<String>, String> {
    use netlab_report::diff::{diff, RunDigest};
    let a = RunDigest::read(original).map_err(|e| format!("{}: {e}", original.display()))?;
    let b = RunDigest::read(new).map_err(|e| format!("{}: {e}", new.display()))?;
    let d = diff(&a, &b, &[]).map_err(|e| e.to_string())?;
    d.write_to(new).map_err(|e| e.to_string())?;
    Ok(d.headline())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_of_a_missing_run_names_its_folder_and_writes_nothing() {
        let dir = netlab_os::testing::Scratch::new("rerun-diff");
        let missing = dir.0.join("nothing-here");
        let why = diff_into(&missing, &dir.0).unwrap_err();
        assert!(
            why.starts_with(&format!("{}: ", missing.display())),
            "{why}"
        );
        assert!(!dir.0.join("diff.json").exists());
    }

    /// The golden run's experiment comes back with the overrides, and its
    /// folder is refused as a rerun's output.
    #[test]
    fn a_recorded_experiment_reads_back_with_its_overrides() {
        let dir = netlab_os::testing::Scratch::new("rerun-recorded");
        let (header, sc) = netlab_results::testing::golden_study(2);
        let folder = netlab_results::testing::shard_folder(&dir.0, "a", &header, &sc, 1);
        let exp = recorded_experiment(&folder, Some(5), Some(KernelChoice::Uml)).unwrap();
        assert_eq!(exp.rounds, 5);
        assert_eq!(exp.kernel, KernelChoice::Uml);
        assert_eq!(exp.name, header.experiment().unwrap().name);
        let e = check_out(&folder).unwrap_err();
        assert!(e.ends_with("already holds a results.json; a rerun never writes over a result (choose a new --out)"), "{e}");
        assert!(check_out(&dir.0.join("new")).is_ok());
        // A path that does not exist: named first, then the OS's reason.
        let missing = dir.0.join("none");
        let e = recorded_experiment(&missing, None, None).unwrap_err();
        let why = e
            .strip_prefix(&format!("{}: ", missing.display()))
            .unwrap_or_else(|| panic!("names not {}: {e}", missing.display()));
        assert!(
            why.ends_with("No such file or directory (os error 2)"),
            "{e}"
        );
    }
}
