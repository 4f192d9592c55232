//! What the host tells the guest init ([`InitSpec`]) and what init reports
//! back ([`InitOutcome`]), both JSON files in the run's host folder, the
//! pure command-line helpers of both sides, and the names both sides share
//! (default kernel paths, the init binary, the environment variables).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Schema version of [`InitSpec`] and [`InitOutcome`]; bumped on a change of shape.
pub const INIT_SPEC_VERSION: u32 = 1;

/// Default kernel binary (Debian package `user-mode-linux`).
pub const DEFAULT_KERNEL: &str = "/usr/bin/linux.uml";
/// Default parent of the per-release modules directories.
pub const DEFAULT_MODULES_ROOT: &str = "/usr/lib/uml/modules";
/// Name of the init binary built by this package.
pub const INIT_BINARY: &str = "netlab-guest-init";
/// Environment variable that overrides where the init binary is.
pub const INIT_ENV: &str = "NETLAB_GUEST_INIT";
/// Set (to `1`) by init for the program it runs.
pub const IN_GUEST_ENV: &str = "NETLAB_IN_GUEST";

/// True inside a guest started by this crate (`NETLAB_IN_GUEST=1`).
pub fn in_guest() -> bool {
    std::env::var(IN_GUEST_ENV).is_ok_and(|v| v == "1")
}

/// File names inside the run folder (the spec's parent directory).
pub mod files {
    /// The spec written by the host.
    pub const SPEC: &str = "spec.json";
    /// The outcome written by init ([`crate::spec::InitOutcome`]).
    pub const RESULT: &str = "result.json";
    /// Created by init as its first action (boot-to-init timing).
    pub const STARTED: &str = "init-started";
    /// The program's standard output.
    pub const STDOUT: &str = "stdout";
    /// The program's standard error.
    pub const STDERR: &str = "stderr";
    /// The guest console (kernel + init messages).
    pub const CONSOLE: &str = "console.log";
    /// The kernel's host pid (= its process group), written by the host.
    pub const KERNEL_PID: &str = "kernel.pid";
}

/// One module file for init to load, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleFile {
    /// Module name.
    pub name: String,
    /// Absolute path of the `.ko` file (host path = guest path via hostfs).
    pub path: PathBuf,
}

/// Instructions for the guest init.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitSpec {
    /// [`INIT_SPEC_VERSION`].
    pub schema: u32,
    /// Modules to load, dependencies first.
    pub modules: Vec<ModuleFile>,
    /// Absolute path of the program.
    pub program: PathBuf,
    /// Arguments (without argv\[0\]).
    pub args: Vec<String>,
    /// The complete environment of the program (init adds `NETLAB_IN_GUEST=1`).
    pub env: Vec<(String, String)>,
    /// Working directory of the program.
    pub cwd: PathBuf,
    /// Host folders (or single files) under a path the guest mounts its own
    /// file system on (`/tmp`, `/run`, `/dev`) that stay visible at the
    /// same path inside the guest: init bind-mounts them back over the
    /// guest's mounts. None is below another.
    #[serde(default)]
    pub shared_dirs: Vec<PathBuf>,
}

/// How the program (or the kernel process) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuestStatus {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal number.
    Signaled(i32),
}

impl GuestStatus {
    /// True for `Exited(0)`.
    pub fn success(&self) -> bool {
        matches!(self, GuestStatus::Exited(0))
    }

    /// The status as a process exit code, the shell's way: the code
    /// itself, or 128 + the signal, held to 0..=255.
    pub fn exit_code(self) -> u8 {
        match self {
            GuestStatus::Exited(c) => c.clamp(0, 255) as u8,
            GuestStatus::Signaled(s) => (128 + s).clamp(0, 255) as u8,
        }
    }

    /// The exit code, or `128 + signal` like a shell.
    pub fn code(&self) -> i32 {
        match *self {
            GuestStatus::Exited(c) => c,
            GuestStatus::Signaled(s) => 128 + s,
        }
    }
}

impl std::fmt::Display for GuestStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GuestStatus::Exited(c) => write!(f, "exit status {c}"),
            GuestStatus::Signaled(s) => write!(f, "killed by signal {s}"),
        }
    }
}

/// Result of loading one module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum ModuleOutcome {
    /// finit_module succeeded.
    Loaded,
    /// EEXIST: it was already loaded.
    AlreadyLoaded,
    /// Any other error.
    Failed {
        /// The error text.
        error: String,
    },
}

/// One module load as reported by init.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleLoad {
    /// Module name.
    pub name: String,
    /// Module file.
    pub path: PathBuf,
    /// What happened.
    #[serde(flatten)]
    pub outcome: ModuleOutcome,
}

/// One mount step as reported by init.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MountStep {
    /// Mount point.
    pub target: String,
    /// Filesystem type.
    pub fstype: String,
    /// `None` on success, else the error.
    pub error: Option<String>,
}

/// What init writes to `result.json`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct InitOutcome {
    /// [`INIT_SPEC_VERSION`].
    pub schema: u32,
    /// The guest kernel release (`/proc/sys/kernel/osrelease`).
    pub release: Option<String>,
    /// Mount steps.
    pub mounts: Vec<MountStep>,
    /// Module loads, in order (stops at the first failure).
    pub modules: Vec<ModuleLoad>,
    /// How the program ended; `None` if it never ran.
    pub status: Option<GuestStatus>,
    /// A failure before (or while starting) the program.
    pub error: Option<String>,
}

/// Finds `--spec PATH` (or `--spec=PATH`) among init's arguments, ignoring
/// anything else the kernel passes (e.g. `console=tty0`).
pub fn parse_init_args<I>(args: I) -> Option<PathBuf>
where
    I: IntoIterator<Item = OsString>,
{
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        if arg == "--spec" {
            return it.next().map(PathBuf::from);
        }
        if let Some(rest) = arg.to_str().and_then(|s| s.strip_prefix("--spec=")) {
            return Some(PathBuf::from(rest));
        }
    }
    None
}

/// Kernel parameters of [`crate::Guest::fast_boot`]: skip the RAID6 and XOR
/// speed benchmarks (about 0.8 s of a 1.3 s boot). Only btrfs and md-raid456
/// use them; they must not be used in a guest booted this way.
pub const FAST_BOOT_PARAMS: &str = "initcall_blacklist=raid6_select_algo,calibrate_xor_blocks";

/// The bytes of a memory size in the kernel's syntax: a number with an
/// optional `K`, `M`, `G` or `T` suffix (either case), as `mem=` takes it.
pub fn memory_bytes(size: &str) -> Option<u64> {
    let (digits, shift) = match size.as_bytes().last()?.to_ascii_uppercase() {
        b'K' => (&size[..size.len() - 1], 10),
        b'M' => (&size[..size.len() - 1], 20),
        b'G' => (&size[..size.len() - 1], 30),
        b'T' => (&size[..size.len() - 1], 40),
        _ => (size, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// Settings for the kernel command line.
#[derive(Debug, Clone)]
pub struct BootLine<'a> {
    /// Guest memory, e.g. `1G`.
    pub mem: &'a str,
    /// The init binary.
    pub init: &'a Path,
    /// Arguments placed before `--spec PATH` (e.g. a hidden subcommand).
    pub init_args: &'a [String],
    /// Extra kernel parameters (before `--`).
    pub kernel_params: &'a [String],
    /// The spec file.
    pub spec: &'a Path,
    /// Folder for UML's umid/mconsole files.
    pub uml_dir: &'a Path,
    /// Unique machine id.
    pub umid: &'a str,
}

impl BootLine<'_> {
    /// The arguments for `linux.uml`. Fails on whitespace or non-UTF-8 in
    /// any value, since the kernel splits its command line on spaces.
    pub fn to_args(&self) -> Result<Vec<String>, String> {
        fn word(what: &str, s: &str) -> Result<String, String> {
            if s.is_empty() || s.chars().any(|c| c.is_whitespace() || c == '"') {
                Err(format!("{what} {s:?} is empty or contains whitespace/quotes, which the kernel command line cannot carry"))
            } else {
                Ok(s.to_owned())
            }
        }
        fn path(what: &str, p: &Path) -> Result<String, String> {
            let s = p
                .to_str()
                .ok_or_else(|| format!("{what} {} is not UTF-8", p.display()))?;
            word(what, s)
        }
        if memory_bytes(self.mem).is_none() {
            return Err(format!(
                "guest memory {:?} is not a size such as 512M or 1G",
                self.mem
            ));
        }
        let mut v = vec![
            format!("mem={}", word("memory", self.mem)?),
            "root=/dev/root".into(),
            "rootfstype=hostfs".into(),
            "rootflags=/".into(),
            "rw".into(),
            "quiet".into(),
            format!("init={}", path("init binary", self.init)?),
            "con=null".into(),
            "con0=fd:0,fd:1".into(),
            "ssl=null".into(),
            format!("uml_dir={}", path("uml dir", self.uml_dir)?),
            format!("umid={}", word("umid", self.umid)?),
        ];
        for p in self.kernel_params {
            v.push(word("kernel parameter", p)?);
        }
        v.push("--".into());
        for a in self.init_args {
            v.push(word("init argument", a)?);
        }
        v.push("--spec".into());
        v.push(path("spec path", self.spec)?);
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_the_shells_exit_code() {
        assert_eq!(GuestStatus::Exited(3).exit_code(), 3);
        assert_eq!(GuestStatus::Exited(-1).exit_code(), 0);
        assert_eq!(GuestStatus::Signaled(9).exit_code(), 137);
        assert_eq!(GuestStatus::Signaled(200).exit_code(), 255);
    }

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn init_args_found_among_kernel_noise() {
        let p = parse_init_args(os(&["/init", "--spec", "/t/spec.json", "console=tty0"]));
        assert_eq!(p, Some(PathBuf::from("/t/spec.json")));
        let p = parse_init_args(os(&["/o", "guest-init", "console=tty0", "--spec=/x"]));
        assert_eq!(p, Some(PathBuf::from("/x")));
        assert_eq!(parse_init_args(os(&["/init", "console=tty0"])), None);
        assert_eq!(parse_init_args(os(&["/init", "--spec"])), None);
    }

    #[test]
    fn boot_line_shape() {
        let init_args = vec!["guest-init".to_string()];
        let b = BootLine {
            mem: "1G",
            init: Path::new("/bin/o"),
            init_args: &init_args,
            kernel_params: &[],
            spec: Path::new("/tmp/r/spec.json"),
            uml_dir: Path::new("/tmp/r"),
            umid: "nlg-1",
        };
        let a = b.to_args().unwrap();
        assert_eq!(a[0], "mem=1G");
        assert!(a.contains(&"init=/bin/o".to_string()));
        let dd = a.iter().position(|x| x == "--").unwrap();
        assert_eq!(&a[dd + 1..], ["guest-init", "--spec", "/tmp/r/spec.json"]);
        let bad = BootLine {
            spec: Path::new("/tmp/a b/spec.json"),
            ..b
        };
        assert!(bad.to_args().unwrap_err().contains("whitespace"));
    }

    #[test]
    fn memory_sizes() {
        assert_eq!(memory_bytes("16M"), Some(16 << 20));
        assert_eq!(memory_bytes("1g"), Some(1 << 30));
        assert_eq!(memory_bytes("4096"), Some(4096));
        for bad in ["", "M", "1.5G", "-1G", "1GB", "ten"] {
            assert_eq!(memory_bytes(bad), None, "{bad}");
        }
        let b = BootLine {
            mem: "lots",
            init: Path::new("/bin/o"),
            init_args: &[],
            kernel_params: &[],
            spec: Path::new("/r/spec.json"),
            uml_dir: Path::new("/r"),
            umid: "u",
        };
        assert!(b.to_args().unwrap_err().contains("\"lots\""));
    }

    #[test]
    fn status_codes() {
        assert!(GuestStatus::Exited(0).success());
        assert_eq!(GuestStatus::Exited(3).code(), 3);
        assert_eq!(GuestStatus::Signaled(9).code(), 137);
    }

    #[test]
    fn init_outcome_roundtrip() {
        let r = InitOutcome {
            schema: INIT_SPEC_VERSION,
            release: Some("6.1.176".into()),
            modules: vec![ModuleLoad {
                name: "veth".into(),
                path: "/m/veth.ko".into(),
                outcome: ModuleOutcome::Failed {
                    error: "ENOENT".into(),
                },
            }],
            status: Some(GuestStatus::Exited(3)),
            ..Default::default()
        };
        let j = serde_json::to_string(&r).unwrap();
        assert!(j.contains("\"outcome\":\"failed\""), "{j}");
        assert_eq!(serde_json::from_str::<InitOutcome>(&j).unwrap(), r);
    }
}
