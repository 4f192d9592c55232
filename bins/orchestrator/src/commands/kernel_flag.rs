//! `--kernel`: which kernel runs an experiment, as `compare`, `run` and
//! `rerun` take it, and the experiment file's word for it.

use clap::ValueEnum;

/// Which kernel runs the experiment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum KernelFlag {
    /// The host kernel if it has every requested qdisc, else the guest if installed.
    #[default]
    Auto,
    /// The running kernel.
    Host,
    /// The Debian user-mode-linux kernel, booted for this run.
    Uml,
    /// The user-mode-linux 6.12 kernel netlab builds (`orchestrator kernel build uml-6.12`), booted for this run.
    #[value(name = "uml-6.12")]
    Uml612,
}

/// The experiment file's word for a `--kernel` choice.
pub(crate) fn kernel_choice(k: KernelFlag) -> netlab_experiment::KernelChoice {
    match k {
        KernelFlag::Auto => netlab_experiment::KernelChoice::Auto,
        KernelFlag::Host => netlab_experiment::KernelChoice::Host,
        KernelFlag::Uml => netlab_experiment::KernelChoice::Uml,
        KernelFlag::Uml612 => netlab_experiment::KernelChoice::Uml612,
    }
}
