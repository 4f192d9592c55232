//! The one error type of this crate.

use std::path::PathBuf;
use std::time::Duration;

/// Everything that can go wrong when preparing, booting or running a guest.
///
/// Messages name what failed (the kernel binary, the module and its
/// directory, the syscall) and, for guests that went wrong after boot, carry
/// the tail of the guest console so the cause is visible without digging.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user-mode-linux kernel binary is not there.
    #[error(
        "user-mode-linux is not installed: apt-get install user-mode-linux \
         (no kernel binary at {})",
        path.display()
    )]
    KernelMissing {
        /// Where the kernel binary was looked for.
        path: PathBuf,
    },
    /// The kernel release could not be found (no modules dir, `--version` failed).
    #[error("cannot tell the release of the guest kernel {}: {reason}", kernel.display())]
    ReleaseUnknown {
        /// The kernel binary.
        kernel: PathBuf,
        /// Why.
        reason: String,
    },
    /// The modules directory (with `modules.dep`) is missing.
    #[error(
        "guest kernel modules directory {} is missing or has no modules.dep \
         (is the user-mode-linux package complete?)",
        dir.display()
    )]
    ModulesDirMissing {
        /// The directory that was expected.
        dir: PathBuf,
    },
    /// A requested module is neither in `modules.dep` nor built in.
    #[error("kernel module `{name}` not found in {} (not in modules.dep nor modules.builtin)", dir.display())]
    ModuleNotFound {
        /// Requested module name.
        name: String,
        /// The modules directory searched.
        dir: PathBuf,
    },
    /// `modules.dep` is malformed or has a dependency cycle.
    #[error("modules.dep: {0}")]
    ModulesDep(String),
    /// The program to run inside the guest was not found on the host.
    #[error("program `{0}` not found (give a path or a name on PATH)")]
    ProgramNotFound(String),
    /// The `netlab-guest-init` binary could not be found.
    #[error("{0}")]
    InitNotFound(String),
    /// A value cannot be passed to the guest (e.g. whitespace in a boot path).
    #[error("invalid guest setting: {0}")]
    InvalidSetting(String),
    /// A host-side I/O step failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done (names the file or the step).
        what: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Inside the guest, a module failed to load.
    #[error("inside the guest, loading module `{name}` ({}) failed: {error}\n--- guest console tail ---\n{console_tail}", path.display())]
    ModuleLoad {
        /// Module name.
        name: String,
        /// Module file.
        path: PathBuf,
        /// The error reported by finit_module.
        error: String,
        /// Last lines of the guest console.
        console_tail: String,
    },
    /// The guest init failed before the program could run (mount, spawn, …).
    #[error("guest init failed before the program ran: {message}\n--- guest console tail ---\n{console_tail}")]
    GuestSetup {
        /// The failure reported by init.
        message: String,
        /// Last lines of the guest console.
        console_tail: String,
    },
    /// The guest exited without writing a result (crash, kernel panic, …).
    #[error("the guest kernel exited ({kernel_status}) without reporting a result\n--- guest console tail ---\n{console_tail}")]
    NoReport {
        /// How the kernel process ended.
        kernel_status: String,
        /// Last lines of the guest console.
        console_tail: String,
    },
    /// The guest did not finish before its deadline and was killed.
    #[error("the guest did not finish within {deadline:?} and was killed\n--- program output tail ---\n{output_tail}\n--- guest console tail ---\n{console_tail}")]
    DeadlineExceeded {
        /// The deadline that was enforced.
        deadline: Duration,
        /// Last lines of the program's output.
        output_tail: String,
        /// Last lines of the guest console.
        console_tail: String,
    },
    /// The guest kernel ran out of memory: `mem` is too small for it to
    /// boot (or for init and the program to run).
    #[error("guest memory {mem} is too small: the guest kernel ran out of memory ({evidence})\n--- guest console tail ---\n{console_tail}")]
    MemoryTooSmall {
        /// The memory the guest was booted with (e.g. `16M`).
        mem: String,
        /// The console line that shows it.
        evidence: String,
        /// Last lines of the guest console.
        console_tail: String,
    },
    /// The guest was killed through its [`crate::KillHandle`].
    #[error("the guest was cancelled and killed")]
    Cancelled,
}

impl Error {
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            what: what.into(),
            source,
        }
    }
}

/// Short alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The last `lines` lines of `text` (for error messages).
pub(crate) fn tail_lines(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    all[start..].join("\n")
}
