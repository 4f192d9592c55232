//! The run of one experiment: [`Session`]. Its steps, in order:
//!
//! 1. checks that refuse before anything is created ([`RunError`]): what
//!    the runner cannot do, the results folder (created, proven writable,
//!    enough free space), a `--resume` folder of another experiment;
//! 2. the kernel ([`crate::kernel::decide`]): this one, or the
//!    user-mode-linux guest;
//! 3. on this kernel (`here`): an owned run id and registry with the
//!    SIGINT/SIGTERM teardown in graceful mode, the run's watchdog, the
//!    interrupt file when inside the guest, resume, every scenario
//!    (setup, runner, collect) streamed through netlab-results into
//!    results.json, then the caller's [`RunHooks`] (summary, report);
//! 4. or in the guest (`guest`): the same binary booted inside
//!    `linux.uml` as `run FILE --inside-guest`, signals passed on through
//!    the interrupt file in the results folder.

mod guest;
mod here;
mod watch;

use std::path::{Path, PathBuf};

use crate::config::SessionConfig;
use crate::hooks::{NoHooks, RunHooks, ScenarioHooks};
use crate::kernel::{decide, KernelPlan};

pub use watch::{owned_run, GRACE, INTERRUPT_FILE};

/// Environment variable carrying the host's reason for booting the guest.
pub const REASON_ENV: &str = "NETLAB_KERNEL_REASON";

/// How a run that started ended; the orchestrator maps it to its exit code
/// (0, 1, 128 + signal, or the guest run's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// Every scenario ran and everything was written and torn down.
    Complete,
    /// The run ended, but a scenario, a teardown step or a file failed
    /// (each said on stderr); what it measured is written.
    Failed,
    /// SIGINT/SIGTERM stopped the run; what it measured is written.
    Interrupted {
        /// The signal's number.
        signal: i32,
    },
    /// The guest ran the experiment and its run exited with this status.
    Guest {
        /// The run inside the guest's exit status.
        exit: u8,
    },
}

/// Why a run was refused before it measured anything (nothing was
/// changed, or what was created is torn down again).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The experiment asks for what the runner cannot do (a usage error).
    #[error("{0}")]
    Unrunnable(String),
    /// Not Linux.
    #[error("netlab needs Linux (network namespaces, rtnetlink)")]
    NotLinux,
    /// A shard's results folder already holds a run.
    #[error(
        "refusing to run, nothing was changed: {} already holds a results.json \
         (--resume continues it; another --out starts afresh)",
        .0.display()
    )]
    ResultsExist(PathBuf),
    /// The results folder cannot be made, written or is too small.
    #[error("refusing to run, nothing was changed: {0}")]
    ResultsFolder(String),
    /// The folder to resume is of another experiment, version or shard.
    #[error("refusing to resume, nothing was changed: {0}")]
    Resume(String),
    /// Neither kernel can run the experiment (each missing thing named).
    #[error("refusing to run, nothing was changed:\n{0}")]
    Kernel(String),
    /// The guest kernel the experiment names is not built (the message
    /// gives the command that builds it).
    #[error("refusing to run, nothing was changed: {0}")]
    KernelNotBuilt(String),
    /// The capabilities are missing.
    #[error("refusing to run, nothing was changed: {0}")]
    Privilege(String),
    /// The run's own set-up: its registry and signal handling, the
    /// scenario store, the guest's start.
    #[error("{0}")]
    Setup(String),
    /// The scenario store of the results folder could not be created.
    #[error("refusing to run, nothing was changed: {0}")]
    Store(String),
    /// The complete scenarios of the folder to resume could not be taken.
    #[error("refusing to resume, nothing was run: {0}")]
    Adopt(String),
}

impl RunOutcome {
    /// The exit status the orchestrator gives it: 0 complete, 1 failed,
    /// 128 + signal when interrupted, the guest run's own after a guest run.
    pub fn exit_code(self) -> u8 {
        match self {
            RunOutcome::Complete => 0,
            RunOutcome::Failed => 1,
            RunOutcome::Interrupted { signal } => {
                netlab_receipts::exit_code_for(signal).clamp(0, 255) as u8
            }
            RunOutcome::Guest { exit } => exit,
        }
    }
}

impl RunError {
    /// The exit status the orchestrator gives it: 2 for what the
    /// experiment asks and the runner cannot do, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            RunError::Unrunnable(_) | RunError::KernelNotBuilt(_) => 2,
            _ => 1,
        }
    }

    /// Whether it was found before the kernel was chosen (the orchestrator
    /// names the subcommand in these messages: `orchestrator run: …`).
    pub fn before_kernel(&self) -> bool {
        matches!(
            self,
            RunError::Unrunnable(_)
                | RunError::KernelNotBuilt(_)
                | RunError::NotLinux
                | RunError::ResultsExist(_)
                | RunError::ResultsFolder(_)
                | RunError::Resume(_)
                | RunError::Kernel(_)
        )
    }

    /// The line that says it: `PROGRAM COMMAND: …` when it was found
    /// before the kernel was chosen, `PROGRAM: …` after.
    pub fn line(&self, program: &str, command: &str) -> String {
        if self.before_kernel() {
            format!("{program} {command}: {self}")
        } else {
            format!("{program}: {self}")
        }
    }
}

/// One run of one experiment, with the caller's hooks.
pub struct Session<'h> {
    config: SessionConfig,
    program: String,
    scenario_hooks: Option<&'h mut dyn ScenarioHooks>,
    run_hooks: Option<&'h mut dyn RunHooks>,
}

impl<'h> Session<'h> {
    /// A session for `config`, without hooks; its messages start with
    /// `netlab:`.
    pub fn new(config: SessionConfig) -> Session<'h> {
        Session {
            config,
            program: "netlab".into(),
            scenario_hooks: None,
            run_hooks: None,
        }
    }

    /// The name its messages on stderr start with (`orchestrator: …`).
    pub fn program(mut self, name: impl Into<String>) -> Session<'h> {
        self.program = name.into();
        self
    }

    /// The caller's workers in every scenario.
    pub fn with_scenario_hooks(mut self, hooks: &'h mut dyn ScenarioHooks) -> Session<'h> {
        self.scenario_hooks = Some(hooks);
        self
    }

    /// The caller's notes, summary and report.
    pub fn with_run_hooks(mut self, hooks: &'h mut dyn RunHooks) -> Session<'h> {
        self.run_hooks = Some(hooks);
        self
    }

    /// The configuration it runs.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// Checks, chooses the kernel and runs the experiment (here, or in the
    /// guest). `Err`: refused before anything was measured.
    pub fn run(&mut self) -> Result<RunOutcome, RunError> {
        // A guest kernel netlab builds must be built: said before the
        // results folder is made.
        if !self.config.inside_guest {
            guest::check_built(self.config.exp.kernel).map_err(RunError::KernelNotBuilt)?;
        }
        let cfg = prepare(&self.config)?;
        if cfg.resume {
            let share = cfg.planned().iter().map(|s| s.index).collect();
            let done = netlab_results::resume::nothing_left(&cfg.out, &cfg.exp, cfg.shard, &share)
                .map_err(RunError::Resume)?;
            if let Some(line) = done {
                // Said even under --quiet, as every resumed run's line is.
                eprintln!("netlab: {line}");
                return Ok(RunOutcome::Complete);
            }
        }
        let plan = decide(&cfg.exp.requirements(), cfg.exp.kernel, cfg.inside_guest)
            .map_err(RunError::Kernel)?;
        let (mut no_scenario_hooks, mut no_run_hooks) = (NoHooks, NoHooks);
        let scenario_hooks: &mut dyn ScenarioHooks = match &mut self.scenario_hooks {
            Some(h) => &mut **h,
            None => &mut no_scenario_hooks,
        };
        let run_hooks: &mut dyn RunHooks = match &mut self.run_hooks {
            Some(h) => &mut **h,
            None => &mut no_run_hooks,
        };
        let program = self.program.as_str();
        match plan {
            KernelPlan::Uml {
                guest,
                release,
                modules,
                because,
            } => {
                let plan = guest::GuestPlan {
                    guest: &guest,
                    release: &release,
                    modules: &modules,
                    because: &because,
                };
                guest::run_in_guest(&cfg, program, run_hooks, &plan)
            }
            KernelPlan::Host { release, because } => here::run_here(
                &cfg,
                program,
                guest::host_kernel_info(release, because),
                scenario_hooks,
                run_hooks,
            ),
            KernelPlan::InsideGuest { release } => here::run_here(
                &cfg,
                program,
                guest::inside_kernel_info(release),
                scenario_hooks,
                run_hooks,
            ),
        }
    }
}

/// The checks before the kernel is chosen; the configuration with its
/// results folder made, proven writable and resolved.
fn prepare(cfg: &SessionConfig) -> Result<SessionConfig, RunError> {
    cfg.check_runnable().map_err(RunError::Unrunnable)?;
    if !cfg!(target_os = "linux") {
        return Err(RunError::NotLinux);
    }
    // The results folder first: a run that could not keep its results is
    // refused before anything is created.
    let needed = cfg.out_space_needed();
    if cfg.shard.is_some() && !cfg.resume && cfg.out.join("results.json").exists() {
        return Err(RunError::ResultsExist(cfg.out.clone()));
    }
    let out = prepare_out(&cfg.out, needed).map_err(RunError::ResultsFolder)?;
    let cfg = SessionConfig { out, ..cfg.clone() };
    if cfg.resume {
        netlab_results::resume::check(&cfg.out, &cfg.exp, cfg.shard).map_err(RunError::Resume)?;
    }
    Ok(cfg)
}

/// Creates the results folder, proves it writable with a probe file (written,
/// synced, removed) and checks its filesystem has `needed` bytes free.
fn prepare_out(out: &Path, needed: u64) -> Result<PathBuf, String> {
    std::fs::create_dir_all(out)
        .map_err(|e| format!("creating the results folder {}: {e}", out.display()))?;
    let out = out
        .canonicalize()
        .map_err(|e| format!("resolving the results folder {}: {e}", out.display()))?;
    let probe = out.join(".netlab-write-probe");
    let written = std::fs::File::create(&probe).and_then(|mut f| {
        use std::io::Write as _;
        f.write_all(&[0u8; 4096])?;
        f.sync_all()
    });
    let _ = std::fs::remove_file(&probe);
    written.map_err(|e| format!("the results folder {} is not writable: {e}", out.display()))?;
    let st = nix::sys::statvfs::statvfs(&out)
        .map_err(|e| format!("reading the free space of {}: {e}", out.display()))?;
    let free = st.blocks_available() as u64 * st.fragment_size() as u64;
    if free < needed {
        return Err(format!(
            "the filesystem of {} has {:.1} MB free; this run needs about {:.0} MB for its results",
            out.display(),
            free as f64 / 1e6,
            needed as f64 / 1e6
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_has_its_exit_code() {
        assert_eq!(RunOutcome::Complete.exit_code(), 0);
        assert_eq!(RunOutcome::Failed.exit_code(), 1);
        assert_eq!(RunOutcome::Interrupted { signal: 15 }.exit_code(), 143);
        assert_eq!(RunOutcome::Guest { exit: 7 }.exit_code(), 7);
    }

    #[test]
    fn refusals_keep_their_words_and_exit_codes() {
        let e = RunError::ResultsExist(PathBuf::from("/r"));
        assert_eq!(
            e.to_string(),
            "refusing to run, nothing was changed: /r already holds a results.json \
             (--resume continues it; another --out starts afresh)"
        );
        assert!(e.before_kernel());
        assert_eq!(e.exit_code(), 1);
        let e = RunError::Unrunnable("probes[1]: no".into());
        assert_eq!(
            (e.to_string().as_str(), e.exit_code()),
            ("probes[1]: no", 2)
        );
        let e = RunError::Kernel("a\nb".into());
        assert_eq!(e.to_string(), "refusing to run, nothing was changed:\na\nb");
        let e = RunError::Adopt("x".into());
        assert_eq!(e.to_string(), "refusing to resume, nothing was run: x");
        assert!(!e.before_kernel());
        assert_eq!(
            e.line("orchestrator", "run"),
            "orchestrator: refusing to resume, nothing was run: x"
        );
        assert_eq!(
            RunError::Unrunnable("no".into()).line("orchestrator", "run"),
            "orchestrator run: no"
        );
    }

    #[test]
    fn a_results_folder_that_cannot_be_made_is_refused_before_anything() {
        let dir = netlab_os::testing::Scratch::new("run-prepare");
        let file = dir.0.join("a-file");
        std::fs::write(&file, b"x").unwrap();
        let cfg = SessionConfig::new(netlab_experiment::Experiment::default(), file.join("out"));
        match prepare(&cfg) {
            Err(RunError::ResultsFolder(m)) => {
                assert!(m.starts_with("creating the results folder"), "{m}")
            }
            other => panic!("{other:?}"),
        }
        // A folder that can be made is made, resolved and left empty.
        let cfg = SessionConfig::new(netlab_experiment::Experiment::default(), dir.0.join("out"));
        let ready = prepare(&cfg).unwrap();
        assert_eq!(ready.out, dir.0.join("out").canonicalize().unwrap());
        assert_eq!(std::fs::read_dir(&ready.out).unwrap().count(), 0);
    }
}
