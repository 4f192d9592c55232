//! Availability check of the pinned guest kernel: is the kernel binary
//! there, which release it is, and which modules its modules directory has.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::modules::ModuleIndex;
use crate::spec::{DEFAULT_KERNEL, DEFAULT_MODULES_ROOT};

/// What [`available`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Availability {
    /// The kernel binary looked at.
    pub kernel: PathBuf,
    /// Whether it exists.
    pub kernel_present: bool,
    /// Its release, if known.
    pub release: Option<String>,
    /// The modules directory for that release, if it has a modules.dep.
    pub modules_dir: Option<PathBuf>,
    /// Why the guest cannot be used, if it cannot.
    pub problem: Option<String>,
}

/// Which of some requested modules the guest kernel has.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ModuleCheck {
    /// Loadable or built in.
    pub present: Vec<String>,
    /// Neither.
    pub missing: Vec<String>,
}

impl Availability {
    /// True when the kernel and its modules directory are there.
    pub fn usable(&self) -> bool {
        self.problem.is_none()
    }

    /// Which of `names` are present (all missing when unusable).
    pub fn check_modules(&self, names: &[&str]) -> ModuleCheck {
        let index = self
            .modules_dir
            .as_deref()
            .and_then(|d| ModuleIndex::load(d).ok());
        let mut check = ModuleCheck::default();
        for n in names {
            let has = index.as_ref().is_some_and(|i| i.contains(n));
            if has {
                check.present.push((*n).to_owned());
            } else {
                check.missing.push((*n).to_owned());
            }
        }
        check
    }

    /// `Ok` when usable and every module in `names` is present, else the
    /// error naming the first thing missing.
    pub fn require(&self, names: &[&str]) -> Result<()> {
        if !self.kernel_present {
            return Err(Error::KernelMissing {
                path: self.kernel.clone(),
            });
        }
        let Some(dir) = &self.modules_dir else {
            return Err(Error::ReleaseUnknown {
                kernel: self.kernel.clone(),
                reason: self.problem.clone().unwrap_or_default(),
            });
        };
        if let Some(name) = self.check_modules(names).missing.into_iter().next() {
            return Err(Error::ModuleNotFound {
                name,
                dir: dir.clone(),
            });
        }
        Ok(())
    }
}

/// Checks the default kernel (`/usr/bin/linux.uml`) and modules root.
pub fn available() -> Availability {
    available_at(Path::new(DEFAULT_KERNEL), Path::new(DEFAULT_MODULES_ROOT))
}

/// Checks a given kernel binary and modules root.
pub fn available_at(kernel: &Path, modules_root: &Path) -> Availability {
    let mut a = Availability {
        kernel: kernel.to_path_buf(),
        kernel_present: kernel.is_file(),
        release: None,
        modules_dir: None,
        problem: None,
    };
    if !a.kernel_present {
        a.problem = Some(
            Error::KernelMissing {
                path: kernel.to_path_buf(),
            }
            .to_string(),
        );
        return a;
    }
    match kernel_image_release(kernel, modules_root) {
        Ok(release) => {
            let dir = modules_root.join(&release);
            a.release = Some(release);
            if dir.join("modules.dep").is_file() {
                a.modules_dir = Some(dir);
            } else {
                a.problem = Some(Error::ModulesDirMissing { dir }.to_string());
            }
        }
        Err(e) => a.problem = Some(e.to_string()),
    }
    a
}

/// The release of `kernel`: `kernel --version` (bounded to 5 s), else the
/// only subdirectory of `modules_root` that has a modules.dep.
pub fn kernel_image_release(kernel: &Path, modules_root: &Path) -> Result<String> {
    if let Some(r) = version_of(kernel) {
        return Ok(r);
    }
    let dirs: Vec<String> = std::fs::read_dir(modules_root)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().join("modules.dep").is_file())
                .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    match dirs.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(Error::ReleaseUnknown {
            kernel: kernel.to_path_buf(),
            reason: format!(
                "the kernel did not print its release and {} has no modules directory",
                modules_root.display()
            ),
        }),
        many => Err(Error::ReleaseUnknown {
            kernel: kernel.to_path_buf(),
            reason: format!(
                "the kernel did not print its release and {} has several releases: {}",
                modules_root.display(),
                many.join(", ")
            ),
        }),
    }
}

/// Runs `kernel --version` with a 5 s bound; parses a release-looking line.
fn version_of(kernel: &Path) -> Option<String> {
    let out_path = std::env::temp_dir().join(format!(
        "netlab-guest-version-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let out = std::fs::File::create(&out_path).ok()?;
    let spawned = Command::new(kernel)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::null())
        .spawn();
    let result = spawned.ok().and_then(|mut child| {
        let start = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(s)) if s.success() => break Some(()),
                Ok(Some(_)) | Err(_) => break None,
                Ok(None) if start.elapsed() > Duration::from_secs(5) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            }
        }
    });
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    result?;
    parse_version(&text)
}

/// The first whitespace-free token starting with a digit and containing a dot.
fn parse_version(text: &str) -> Option<String> {
    text.split_whitespace()
        .find(|t| t.starts_with(|c: char| c.is_ascii_digit()) && t.contains('.'))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_text() {
        assert_eq!(parse_version("6.1.176\n").as_deref(), Some("6.1.176"));
        assert_eq!(parse_version("usage\n"), None);
    }

    #[test]
    fn missing_kernel_is_clear() {
        let a = available_at(
            Path::new("/nonexistent/linux.uml"),
            Path::new("/nonexistent"),
        );
        assert!(!a.usable());
        assert!(a
            .problem
            .unwrap()
            .contains("apt-get install user-mode-linux"));
        let e = available_at(Path::new("/nonexistent/linux.uml"), Path::new("/x"))
            .require(&["veth"])
            .unwrap_err();
        assert!(matches!(e, Error::KernelMissing { .. }));
    }

    #[test]
    fn installed_kernel_if_present() {
        let a = available();
        if !a.kernel_present {
            return;
        }
        assert!(a.usable(), "{:?}", a.problem);
        let c = a.check_modules(&["sch_fq_codel", "veth", "sch_nonexistent"]);
        assert_eq!(c.missing, ["sch_nonexistent"]);
        assert!(a.require(&["sch_tbf"]).is_ok());
        let e = a.require(&["sch_nonexistent"]).unwrap_err().to_string();
        assert!(
            e.contains("sch_nonexistent") && e.contains("/usr/lib/uml/modules"),
            "{e}"
        );
    }
}
