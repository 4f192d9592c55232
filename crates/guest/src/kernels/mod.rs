//! The guest kernels netlab can boot, by name: `uml`, Debian's
//! user-mode-linux package (installed, never built), and `uml-6.12`, a
//! user-mode-linux kernel netlab builds from Debian's `linux-source-6.12`
//! with a configuration fragment it commits (`kernels/uml-6.12.config`).
//!
//! A built kernel lives in a cache outside any checkout ([`cache_root`]),
//! one folder per key: the source package's version and a hash of the
//! fragment and of the build recipe ([`BuiltKernel::cache_key`]), so a
//! changed fragment or source is a new entry and an unchanged one is
//! found again. [`locate`] finds a kernel by name and says what describes
//! it ([`GuestKernel`]: binary, modules, release, configuration hash,
//! compiler); [`build::build`] makes an entry, written into a temporary
//! folder and renamed into place only when it is whole.

pub mod build;
pub mod config;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::spec::{DEFAULT_KERNEL, DEFAULT_MODULES_ROOT};

/// Name of Debian's user-mode-linux package kernel, the default guest.
pub const DEBIAN_UML: &str = "uml";

/// Environment variable naming the cache of built kernels.
pub const CACHE_ENV: &str = "NETLAB_KERNEL_CACHE";

/// The cache of built kernels when run as root and [`CACHE_ENV`] is unset.
pub const SYSTEM_CACHE: &str = "/var/cache/netlab/kernels";

/// Debian's configuration of its user-mode-linux package.
pub const DEBIAN_UML_CONFIG: &str = "/usr/share/doc/user-mode-linux/config.gz";

/// Version of the build recipe (the make targets, the steps, the layout of
/// an entry); part of every cache key, so a changed recipe builds anew.
pub const RECIPE_VERSION: u32 = 1;

/// The manifest's file name in a cache entry.
pub const MANIFEST: &str = "manifest.json";

/// A kernel netlab builds from a Debian source package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltKernel {
    /// The name `--kernel` takes (`uml-6.12`).
    pub name: &'static str,
    /// The series the source package carries (`6.12`).
    pub series: &'static str,
    /// Debian's source package.
    pub source_package: &'static str,
    /// The tarball the package installs.
    pub tarball: &'static str,
    /// The configuration fragment over the UML defconfig.
    pub fragment: &'static str,
}

/// User-mode Linux 6.12 from Debian's `linux-source-6.12`.
pub const UML_6_12: BuiltKernel = BuiltKernel {
    name: "uml-6.12",
    series: "6.12",
    source_package: "linux-source-6.12",
    tarball: "/usr/src/linux-source-6.12.tar.xz",
    fragment: include_str!("../../kernels/uml-6.12.config"),
};

/// Every kernel netlab builds.
pub const BUILT_KERNELS: [BuiltKernel; 1] = [UML_6_12];

/// The built kernel a word names: its name (`uml-6.12`) or its series
/// (`6.12`).
pub fn built_kernel(word: &str) -> Option<BuiltKernel> {
    BUILT_KERNELS
        .into_iter()
        .find(|k| k.name == word || k.series == word)
}

impl BuiltKernel {
    /// The command that builds it.
    pub fn build_command(&self) -> String {
        format!("orchestrator kernel build {}", self.name)
    }

    /// SHA-256 of the fragment and the recipe version: the configuration
    /// part of the cache key.
    pub fn recipe_hash(&self) -> String {
        config::sha256_hex(format!("recipe {RECIPE_VERSION}\n{}", self.fragment).as_bytes())
    }

    /// The cache folder's name for a source version:
    /// `uml-6.12_6.12.118-1~deb12u1_<12 hex digits of the recipe hash>`.
    pub fn cache_key(&self, source_version: &str) -> String {
        let version: String = source_version
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._+~-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{}_{version}_{}", self.name, &self.recipe_hash()[..12])
    }

    /// The installed version of the source package (`dpkg-query`), if it
    /// is installed.
    pub fn source_version(&self) -> Option<String> {
        package_version(self.source_package)
    }
}

/// The version of an installed Debian package, bounded to 10 s.
pub fn package_version(package: &str) -> Option<String> {
    let out = crate::kernels::build::bounded_output(
        Command::new("dpkg-query").args(["-W", "-f=${Status}\t${Version}", package]),
        std::time::Duration::from_secs(10),
    )
    .ok()?;
    let text = String::from_utf8_lossy(&out);
    let (status, version) = text.split_once('\t')?;
    (status.ends_with(" installed") && !version.is_empty()).then(|| version.trim().to_owned())
}

/// Where built kernels are kept: `$NETLAB_KERNEL_CACHE`, else
/// `/var/cache/netlab/kernels` for root, else `~/.cache/netlab/kernels`.
pub fn cache_root() -> PathBuf {
    if let Some(p) = std::env::var_os(CACHE_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    if nix::unistd::geteuid().is_root() {
        return PathBuf::from(SYSTEM_CACHE);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    base.join("netlab").join("kernels")
}

/// What a cache entry says about its kernel (`manifest.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`RECIPE_VERSION`] of the build.
    pub recipe: u32,
    /// The kernel's name (`uml-6.12`).
    pub name: String,
    /// Its release (`uname -r`).
    pub release: String,
    /// `linux-source-6.12 6.12.118-1~deb12u1`.
    pub source: String,
    /// SHA-256 of the fragment and recipe ([`BuiltKernel::recipe_hash`]).
    pub recipe_hash: String,
    /// SHA-256 of the whole `.config` the kernel was built with.
    pub config_sha256: String,
    /// The compiler, as the configuration names it (`CONFIG_CC_VERSION_TEXT`).
    pub compiler: String,
    /// When the build finished, UTC (RFC 3339).
    pub built_utc: String,
    /// How long the build took, s (extraction to the entry's rename).
    pub build_seconds: f64,
    /// Parallel make jobs.
    pub jobs: usize,
    /// CPU time of the build's steps (user + system, every process), s:
    /// on an idle machine the build takes about this over the cores used.
    #[serde(default)]
    pub cpu_seconds: f64,
}

/// A guest kernel ready to boot, and what describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuestKernel {
    /// Its name (`uml`, `uml-6.12`).
    pub name: String,
    /// The kernel binary.
    pub kernel: PathBuf,
    /// The parent of its modules directory (`<root>/<release>/modules.dep`).
    pub modules_root: PathBuf,
    /// The release, where known before boot.
    pub release: Option<String>,
    /// Where it came from (`user-mode-linux 6.1um4+b13`,
    /// `linux-source-6.12 6.12.118-1~deb12u1`).
    pub source: Option<String>,
    /// SHA-256 of its whole configuration file.
    pub config_sha256: Option<String>,
    /// The compiler it was built with.
    pub compiler: Option<String>,
}

/// Why a named kernel cannot be booted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocateError {
    /// No such kernel name.
    #[error("unknown guest kernel {0:?}: netlab boots uml (Debian's user-mode-linux) and {names}", names = BUILT_KERNELS.map(|k| k.name).join(", "))]
    Unknown(String),
    /// A kernel netlab builds that is not built (for this source and fragment).
    #[error("the guest kernel {name} is not built{detail}: build it first with `{command}`")]
    NotBuilt {
        /// Its name.
        name: String,
        /// What is missing (`` for this source and configuration (no …)``).
        detail: String,
        /// The command that builds it.
        command: String,
    },
}

/// The guest kernel `name` on this machine. For `uml` that is Debian's
/// package wherever it stands (its absence is said when it is booted, as
/// before); for a built kernel, the cache entry for the installed source
/// version and the committed fragment, or [`LocateError::NotBuilt`].
pub fn locate(name: &str) -> Result<GuestKernel, LocateError> {
    locate_in(name, &cache_root())
}

/// [`locate`] with a given cache root.
pub fn locate_in(name: &str, root: &Path) -> Result<GuestKernel, LocateError> {
    if name == DEBIAN_UML {
        return Ok(debian_uml());
    }
    let spec = built_kernel(name).ok_or_else(|| LocateError::Unknown(name.to_owned()))?;
    let not_built = |detail: String| LocateError::NotBuilt {
        name: spec.name.to_owned(),
        detail,
        command: spec.build_command(),
    };
    let version = spec.source_version().ok_or_else(|| {
        not_built(format!(
            " (its source package {} is not installed)",
            spec.source_package
        ))
    })?;
    let dir = root.join(spec.cache_key(&version));
    entry(&dir).map_err(|why| {
        not_built(format!(
            " for {} {version} and this configuration ({why})",
            spec.source_package
        ))
    })
}

/// The kernel of a cache entry, if it is whole: its manifest, binary and
/// modules directory.
pub fn entry(dir: &Path) -> Result<GuestKernel, String> {
    let m = read_manifest(dir)?;
    let kernel = dir.join("linux");
    let modules_root = dir.join("modules");
    if !kernel.is_file() {
        return Err(format!("no kernel binary {}", kernel.display()));
    }
    if !modules_root.join(&m.release).join("modules.dep").is_file() {
        return Err(format!(
            "no modules.dep under {}",
            modules_root.join(&m.release).display()
        ));
    }
    Ok(GuestKernel {
        name: m.name,
        kernel,
        modules_root,
        release: Some(m.release),
        source: Some(m.source),
        config_sha256: Some(m.config_sha256),
        compiler: Some(m.compiler),
    })
}

/// The manifest of the cache entry `dir`.
pub fn read_manifest(dir: &Path) -> Result<Manifest, String> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("no {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not a manifest: {e}", path.display()))
}

/// Debian's user-mode-linux package: its binary and modules where the
/// package puts them, its version and its configuration (shipped as
/// `config.gz` in its documentation) where they can be read.
pub fn debian_uml() -> GuestKernel {
    let facts = config::read_config(Path::new(DEBIAN_UML_CONFIG))
        .ok()
        .map(|text| config::ConfigFacts::of(&text));
    GuestKernel {
        name: DEBIAN_UML.to_owned(),
        kernel: PathBuf::from(DEFAULT_KERNEL),
        modules_root: PathBuf::from(DEFAULT_MODULES_ROOT),
        release: None,
        source: package_version("user-mode-linux").map(|v| format!("user-mode-linux {v}")),
        config_sha256: facts.as_ref().map(|f| f.sha256.clone()),
        compiler: facts.and_then(|f| f.compiler),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_is_named_by_its_name_or_series() {
        assert_eq!(built_kernel("uml-6.12"), Some(UML_6_12));
        assert_eq!(built_kernel("6.12"), Some(UML_6_12));
        assert_eq!(built_kernel("uml"), None);
        assert_eq!(built_kernel("6.1"), None);
        assert_eq!(
            UML_6_12.build_command(),
            "orchestrator kernel build uml-6.12"
        );
    }

    #[test]
    fn the_key_follows_the_source_and_the_fragment() {
        let k = UML_6_12.cache_key("6.12.118-1~deb12u1");
        assert!(k.starts_with("uml-6.12_6.12.118-1~deb12u1_"), "{k}");
        assert_eq!(k.len(), "uml-6.12_6.12.118-1~deb12u1_".len() + 12);
        assert_ne!(k, UML_6_12.cache_key("6.12.119-1~deb12u1"));
        let other = BuiltKernel {
            fragment: "CONFIG_NET_SCH_FQ_PIE=y\n",
            ..UML_6_12
        };
        assert_ne!(k, other.cache_key("6.12.118-1~deb12u1"));
        // A version with a character a path should not hold is tamed.
        assert!(UML_6_12.cache_key("1:2 3/4").contains("_1_2_3_4_"));
    }

    #[test]
    fn the_fragment_asks_for_every_arm_and_congestion_control() {
        let f = UML_6_12.fragment;
        for kind in [
            "tbf", "netem", "fq_codel", "codel", "fq", "cake", "pie", "fq_pie",
        ] {
            let line = format!("CONFIG_NET_SCH_{}=m", kind.to_ascii_uppercase());
            assert!(f.lines().any(|l| l == line), "{line}");
        }
        for cc in [
            "BBR", "BIC", "CDG", "DCTCP", "HSTCP", "HTCP", "HYBLA", "ILLINOIS", "LP", "NV",
            "SCALABLE", "VEGAS", "VENO", "WESTWOOD", "YEAH",
        ] {
            let line = format!("CONFIG_TCP_CONG_{cc}=m");
            assert!(f.lines().any(|l| l == line), "{line}");
        }
        assert!(f.lines().any(|l| l == "CONFIG_TCP_CONG_CUBIC=y"));
        assert!(f.lines().any(|l| l == "CONFIG_VETH=m"));
        assert!(f.lines().any(|l| l == "CONFIG_NET_NS=y"));
        assert!(f.lines().any(|l| l == "CONFIG_INET_DIAG=y"));
    }

    #[test]
    fn an_unbuilt_kernel_names_its_build_command() {
        let root = tempfile::tempdir().unwrap();
        match locate_in("uml-6.12", root.path()) {
            Err(LocateError::NotBuilt { name, command, .. }) => {
                assert_eq!(name, "uml-6.12");
                assert_eq!(command, "orchestrator kernel build uml-6.12");
            }
            other => panic!("{other:?}"),
        }
        let e = locate_in("uml-9.9", root.path()).unwrap_err();
        assert!(e.to_string().contains("uml-6.12"), "{e}");
        assert_eq!(locate_in("uml", root.path()).unwrap().name, "uml");
    }

    #[test]
    fn a_half_written_entry_is_not_a_kernel() {
        let dir = tempfile::tempdir().unwrap();
        assert!(entry(dir.path()).unwrap_err().contains("manifest.json"));
        let m = Manifest {
            recipe: RECIPE_VERSION,
            name: "uml-6.12".into(),
            release: "6.12.118".into(),
            source: "linux-source-6.12 6.12.118-1~deb12u1".into(),
            recipe_hash: UML_6_12.recipe_hash(),
            config_sha256: "ab".repeat(32),
            compiler: "gcc 12".into(),
            built_utc: "2026-12-07T13:00:00Z".into(),
            build_seconds: 1.0,
            jobs: 2,
            cpu_seconds: 2.0,
        };
        std::fs::write(
            dir.path().join(MANIFEST),
            serde_json::to_string(&m).unwrap(),
        )
        .unwrap();
        assert!(entry(dir.path()).unwrap_err().contains("kernel binary"));
        std::fs::write(dir.path().join("linux"), b"\x7fELF").unwrap();
        assert!(entry(dir.path()).unwrap_err().contains("modules.dep"));
        let mods = dir.path().join("modules/6.12.118");
        std::fs::create_dir_all(&mods).unwrap();
        std::fs::write(mods.join("modules.dep"), "").unwrap();
        let k = entry(dir.path()).unwrap();
        assert_eq!(k.release.as_deref(), Some("6.12.118"));
        assert_eq!(k.compiler.as_deref(), Some("gcc 12"));
        assert_eq!(k.kernel, dir.path().join("linux"));
    }
}
