//! `orchestrator run FILE.toml`: its flags ([`RunArgs`]), the experiment
//! file read and resolved with the flags applied ([`run_config`]), and the
//! run of it by [`super::execute`], as `compare` runs its own.

use std::path::PathBuf;

use clap::Args;
use netlab_experiment::{PcapMode, Shard};
use netlab_run::SessionConfig;

use super::kernel_flag::{kernel_choice, KernelFlag};
use super::{execute, utc_stamp, UsageError};
use crate::flags;

/// `orchestrator run`.
#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    /// The experiment file (TOML).
    pub experiment: PathBuf,
    /// Which kernel runs the experiment (default: the file's `kernel`, else auto).
    #[arg(long, value_enum)]
    pub kernel: Option<KernelFlag>,
    /// Guest memory for the user-mode-linux kernel.
    #[arg(long, default_value = "1G", value_parser = flags::guest_mem)]
    pub guest_mem: String,
    /// Results folder (default results/<name>-<UTC timestamp>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write every frame's headers to a pcapng file per scenario (the file's `[capture] pcap = "headers"`).
    #[arg(long)]
    pub pcap: bool,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
    /// Run only shard K of N: the units (a round at a sweep point, all its arms) u with u mod N = K-1 (`orchestrator plan` lists them).
    #[arg(long, value_name = "K/N", value_parser = flags::shard)]
    pub shard: Option<Shard>,
    /// Continue the run in --out: skip every scenario already complete there, re-run a partial one; refused for a folder of another experiment or netlab version.
    #[arg(long)]
    pub resume: bool,
    /// Internal: this process runs inside the guest kernel started by the host side.
    #[arg(long, hide = true)]
    pub inside_guest: bool,
}

/// `orchestrator run EXPERIMENT.toml`.
pub fn main(a: &RunArgs) -> u8 {
    match run_config(a, &utc_stamp()) {
        Ok(cfg) => execute("run", cfg),
        Err(UsageError(m)) => {
            eprintln!("orchestrator run: {m}");
            2
        }
    }
}

/// Validates `orchestrator run` arguments into the run's configuration:
/// the file is read and resolved (a refusal names its key), then the
/// flags apply: `--kernel` and `--pcap` over the file's, the folder
/// (`results/<name>-<stamp>` unless `--out`; `--resume` needs `--out`),
/// the shard and the run-level options.
pub fn run_config(a: &RunArgs, now_utc_stamp: &str) -> Result<SessionConfig, UsageError> {
    let mut exp = netlab_experiment::load(&a.experiment)
        .map_err(|e| UsageError(format!("{}: {e}", a.experiment.display())))?;
    if let Some(k) = a.kernel {
        exp.kernel = kernel_choice(k);
    }
    if a.pcap {
        exp.capture.pcap = PcapMode::Headers;
    }
    if a.resume && a.out.is_none() {
        return Err(UsageError(
            "--resume needs --out: the results folder to continue".into(),
        ));
    }
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(format!("{}-{now_utc_stamp}", exp.name)));
    Ok(SessionConfig {
        guest_mem: a.guest_mem.clone(),
        quiet: a.quiet,
        inside_guest: a.inside_guest,
        shard: a.shard,
        resume: a.resume,
        ..SessionConfig::new(exp, out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn args(extra: &[&str]) -> Result<RunArgs, clap::Error> {
        use clap::Parser as _;
        let file = std::env::temp_dir().join("netlab-run-args-seed.toml");
        std::fs::write(&file, "name = \"seed\"\nrounds = 1\n").unwrap();
        let argv = ["orchestrator", "run", file.to_str().unwrap()]
            .into_iter()
            .chain(extra.iter().copied());
        let cli = crate::cli::Cli::try_parse_from(argv)?;
        let crate::cli::Command::Run(a) = cli.command else {
            panic!("not run")
        };
        Ok(a)
    }

    #[test]
    fn a_files_run_takes_the_overrides_and_names_its_folder() {
        let cfg = run_config(&args(&[]).unwrap(), "T1Z").unwrap();
        assert_eq!(cfg.out, Path::new("results/seed-T1Z"));
        assert_eq!(cfg.exp.name, "seed");
        assert!(!cfg.resume && cfg.shard.is_none());
        let a = args(&["--kernel", "uml", "--pcap", "--out", "/tmp/x/r", "--resume"]).unwrap();
        let cfg = run_config(&a, "T").unwrap();
        assert_eq!(cfg.exp.kernel, netlab_experiment::KernelChoice::Uml);
        assert_eq!(cfg.exp.capture.pcap, PcapMode::Headers);
        assert!(cfg.resume);
        assert_eq!(cfg.out, Path::new("/tmp/x/r"));
        assert_eq!(
            run_config(&args(&["--resume"]).unwrap(), "T")
                .unwrap_err()
                .0,
            "--resume needs --out: the results folder to continue"
        );
    }
}
