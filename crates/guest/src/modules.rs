//! `modules.dep` parsing and dependency resolution (pure).
//!
//! `modules.dep` has one line per loadable module:
//! `kernel/net/sched/sch_foo.ko: kernel/a.ko kernel/b.ko`, paths relative
//! to the modules directory. `modules.builtin` lists modules compiled into
//! the kernel (nothing to load). Names are the file stem with `-` folded to
//! `_` (what `/proc/modules` shows).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// One module to load: its name and its file relative to the modules dir.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResolvedModule {
    /// Module name as in `/proc/modules` (e.g. `sch_fq_codel`).
    pub name: String,
    /// File path relative to the modules directory.
    pub path: PathBuf,
}

/// The parsed module index of one kernel release.
#[derive(Debug, Clone, Default)]
pub struct ModuleIndex {
    /// name -> (relative path, dependency paths as listed).
    by_name: BTreeMap<String, (String, Vec<String>)>,
    /// relative path -> name.
    by_path: BTreeMap<String, String>,
    builtin: BTreeSet<String>,
}

/// The module name of a module file path: stem without `.ko[.xz|.gz|.zst]`,
/// `-` folded to `_`.
pub fn module_name(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = [".ko.xz", ".ko.gz", ".ko.zst", ".ko"]
        .iter()
        .find_map(|ext| file.strip_suffix(ext))
        .unwrap_or(file);
    stem.replace('-', "_")
}

impl ModuleIndex {
    /// Parses the text of `modules.dep` and `modules.builtin` (may be empty).
    pub fn parse(modules_dep: &str, modules_builtin: &str) -> Result<Self> {
        let mut index = ModuleIndex::default();
        for (lineno, line) in modules_dep.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (module, deps) = line.split_once(':').ok_or_else(|| {
                Error::ModulesDep(format!("line {}: no ':' in {line:?}", lineno + 1))
            })?;
            let module = module.trim();
            if module.is_empty() {
                return Err(Error::ModulesDep(format!(
                    "line {}: empty module path",
                    lineno + 1
                )));
            }
            let deps: Vec<String> = deps.split_whitespace().map(str::to_owned).collect();
            let name = module_name(module);
            index.by_path.insert(module.to_owned(), name.clone());
            index.by_name.insert(name, (module.to_owned(), deps));
        }
        for line in modules_builtin.lines() {
            let line = line.trim();
            if !line.is_empty() {
                index.builtin.insert(module_name(line));
            }
        }
        Ok(index)
    }

    /// Reads `modules.dep` (required) and `modules.builtin` (optional) from `dir`.
    pub fn load(dir: &Path) -> Result<Self> {
        let dep = std::fs::read_to_string(dir.join("modules.dep")).map_err(|_| {
            Error::ModulesDirMissing {
                dir: dir.to_path_buf(),
            }
        })?;
        let builtin = std::fs::read_to_string(dir.join("modules.builtin")).unwrap_or_default();
        Self::parse(&dep, &builtin)
    }

    /// Whether `name` is known (loadable or built in).
    pub fn contains(&self, name: &str) -> bool {
        let name = name.replace('-', "_");
        self.by_name.contains_key(&name) || self.builtin.contains(&name)
    }

    /// Whether `name` is compiled into the kernel.
    pub fn is_builtin(&self, name: &str) -> bool {
        self.builtin.contains(&name.replace('-', "_"))
    }

    /// The load order for `names`: every module after all of its
    /// dependencies, each once; built-in modules are skipped. `dir` is only
    /// used to name the directory in errors.
    pub fn resolve(&self, names: &[&str], dir: &Path) -> Result<Vec<ResolvedModule>> {
        let mut order = Vec::new();
        let mut done = BTreeSet::new();
        for requested in names {
            let name = requested.replace('-', "_");
            if self.builtin.contains(&name) && !self.by_name.contains_key(&name) {
                continue;
            }
            let Some((path, _)) = self.by_name.get(&name) else {
                return Err(Error::ModuleNotFound {
                    name: (*requested).to_owned(),
                    dir: dir.to_path_buf(),
                });
            };
            let mut stack = Vec::new();
            self.visit(path, &mut done, &mut stack, &mut order)?;
        }
        Ok(order)
    }

    fn visit(
        &self,
        path: &str,
        done: &mut BTreeSet<String>,
        stack: &mut Vec<String>,
        order: &mut Vec<ResolvedModule>,
    ) -> Result<()> {
        if done.contains(path) {
            return Ok(());
        }
        if stack.iter().any(|p| p == path) {
            stack.push(path.to_owned());
            return Err(Error::ModulesDep(format!(
                "dependency cycle: {}",
                stack.join(" -> ")
            )));
        }
        stack.push(path.to_owned());
        let name = self
            .by_path
            .get(path)
            .cloned()
            .unwrap_or_else(|| module_name(path));
        let deps = self
            .by_name
            .get(&name)
            .map(|(_, d)| d.clone())
            .unwrap_or_default();
        for dep in &deps {
            self.visit(dep, done, stack, order)?;
        }
        stack.pop();
        done.insert(path.to_owned());
        order.push(ResolvedModule {
            name,
            path: PathBuf::from(path),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEP: &str = "\
kernel/net/sched/sch_tbf.ko:
kernel/net/sched/sch_fq_codel.ko:
kernel/drivers/net/veth.ko:
kernel/fs/nfs_common/nfs_acl.ko: kernel/net/sunrpc/sunrpc.ko
kernel/net/sunrpc/sunrpc.ko:
kernel/fs/nfs/nfsv4.ko: kernel/fs/nfs/nfs.ko kernel/fs/lockd/lockd.ko kernel/net/sunrpc/sunrpc.ko
kernel/fs/nfs/nfs.ko: kernel/fs/lockd/lockd.ko kernel/net/sunrpc/sunrpc.ko
kernel/fs/lockd/lockd.ko: kernel/net/sunrpc/sunrpc.ko
kernel/net/ipv4/tcp-bbr.ko:
";

    fn idx() -> ModuleIndex {
        ModuleIndex::parse(DEP, "kernel/net/ipv6/ipv6.ko\n").unwrap()
    }

    fn names(v: &[ResolvedModule]) -> Vec<&str> {
        v.iter().map(|m| m.name.as_str()).collect()
    }

    #[test]
    fn names_fold_suffix_and_dash() {
        assert_eq!(module_name("kernel/a/sch_fq_codel.ko"), "sch_fq_codel");
        assert_eq!(module_name("kernel/a/tcp-bbr.ko.zst"), "tcp_bbr");
        assert_eq!(module_name("veth.ko.xz"), "veth");
    }

    #[test]
    fn simple_modules_resolve_to_themselves() {
        let r = idx()
            .resolve(&["sch_tbf", "sch_fq_codel", "veth"], Path::new("/m"))
            .unwrap();
        assert_eq!(names(&r), ["sch_tbf", "sch_fq_codel", "veth"]);
        assert_eq!(r[1].path, PathBuf::from("kernel/net/sched/sch_fq_codel.ko"));
    }

    #[test]
    fn dependencies_come_first_once() {
        let r = idx()
            .resolve(&["nfsv4", "nfs_acl"], Path::new("/m"))
            .unwrap();
        assert_eq!(names(&r), ["sunrpc", "lockd", "nfs", "nfsv4", "nfs_acl"]);
        let pos = |n: &str| r.iter().position(|m| m.name == n).unwrap();
        assert!(pos("sunrpc") < pos("lockd"));
        assert!(pos("lockd") < pos("nfs"));
        assert!(pos("nfs") < pos("nfsv4"));
        assert_eq!(r.iter().filter(|m| m.name == "sunrpc").count(), 1);
    }

    #[test]
    fn dashes_and_builtins() {
        let r = idx()
            .resolve(&["tcp-bbr", "ipv6"], Path::new("/m"))
            .unwrap();
        assert_eq!(names(&r), ["tcp_bbr"]);
        assert!(idx().contains("ipv6"));
        assert!(idx().is_builtin("ipv6"));
    }

    #[test]
    fn missing_module_names_itself_and_dir() {
        let e = idx()
            .resolve(&["sch_cake"], Path::new("/m/6.1"))
            .unwrap_err();
        match e {
            Error::ModuleNotFound { name, dir } => {
                assert_eq!(name, "sch_cake");
                assert_eq!(dir, Path::new("/m/6.1"));
            }
            other => panic!("not ModuleNotFound: {other:?}"),
        }
    }

    #[test]
    fn malformed_and_cycles_are_errors() {
        assert!(ModuleIndex::parse("kernel/a.ko kernel/b.ko\n", "").is_err());
        let cyc = ModuleIndex::parse("a.ko: b.ko\nb.ko: a.ko\n", "").unwrap();
        let e = cyc.resolve(&["a"], Path::new("/m")).unwrap_err();
        assert!(e.to_string().contains("cycle"), "{e}");
    }

    #[test]
    fn real_index_if_installed() {
        let dir = Path::new("/usr/lib/uml/modules/6.1.176");
        let Ok(index) = ModuleIndex::load(dir) else {
            return;
        };
        let r = index
            .resolve(&["sch_tbf", "sch_fq_codel", "veth"], dir)
            .unwrap();
        assert_eq!(names(&r), ["sch_tbf", "sch_fq_codel", "veth"]);
    }
}
