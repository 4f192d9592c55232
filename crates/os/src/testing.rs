//! Test-only helpers (cargo feature `testing`; dev-dependencies enable it).

use std::path::PathBuf;

use crate::privilege::{
    effective_capabilities, missing_capability, privileged_tests_required, REQUIRE_PRIVILEGED_ENV,
};

/// Why this process cannot run privileged tests, or `None` if it can
/// (Linux, CAP_NET_ADMIN and CAP_SYS_ADMIN).
pub fn missing_privileges() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some(format!("{} is not Linux", std::env::consts::OS));
    }
    match effective_capabilities() {
        Ok(mask) => missing_capability(mask).map(|cap| {
            format!("{cap} is missing from the effective capability set (CapEff={mask:#018x})")
        }),
        Err(e) => Some(e.to_string()),
    }
}

/// For privileged tests: `true` if the process may build namespaces.
/// Otherwise prints why `test_name` is skipped and returns `false`, or,
/// when `NETLAB_REQUIRE_PRIVILEGED=1`, panics.
pub fn require_privileged(test_name: &str) -> bool {
    let missing = missing_privileges();
    let ok = gate(test_name, missing.clone(), privileged_tests_required());
    if let (false, Some(why)) = (ok, missing) {
        record_skip(Skip::Privileged, test_name, &why);
    }
    ok
}

fn gate(test_name: &str, missing: Option<String>, required: bool) -> bool {
    match missing {
        None => true,
        Some(why) if required => {
            panic!("{test_name}: privileges required ({REQUIRE_PRIVILEGED_ENV}=1) but {why}")
        }
        Some(why) => {
            eprintln!("skipping {test_name}: {why}");
            false
        }
    }
}

/// Why a test did not run: what it needed and this machine lacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Root, CAP_NET_ADMIN and CAP_SYS_ADMIN.
    Privileged,
    /// The user-mode-linux guest kernel or one of its modules.
    Guest,
    /// A program the test compares against (flent, chromium, Slurm, …).
    Tool,
}

impl Skip {
    fn word(self) -> &'static str {
        match self {
            Skip::Privileged => "privileged",
            Skip::Guest => "guest",
            Skip::Tool => "tool",
        }
    }

    fn from_word(w: &str) -> Option<Skip> {
        [Skip::Privileged, Skip::Guest, Skip::Tool]
            .into_iter()
            .find(|k| k.word() == w)
    }
}

/// The folder of the skip ledger: `<target>/<profile>/netlab-skipped`,
/// found from this test binary's own path (`…/<profile>/deps/<binary>`).
/// `None` outside a cargo target folder.
pub fn skip_ledger_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe
        .ancestors()
        .find(|a| a.file_name() == Some("deps".as_ref()))?;
    Some(deps.parent()?.join("netlab-skipped"))
}

/// The ledger one `cargo test` run shares: every test binary of the run is
/// a child of the same cargo process, so the file is named after the
/// parent's pid.
fn ledger_of(dir: &std::path::Path, cargo_pid: u32) -> PathBuf {
    dir.join(format!("{cargo_pid}.log"))
}

/// Records that `test_name` was skipped, for the count the last test
/// binary of `cargo test --workspace` prints (docs/architecture.md,
/// "Tests that skip"). Best effort: a ledger that cannot be written loses
/// the count, never the test's own `skipping` line.
pub fn record_skip(kind: Skip, test_name: &str, why: &str) {
    use std::io::Write;
    let Some(dir) = skip_ledger_dir() else {
        return;
    };
    let _ = std::fs::create_dir_all(&dir);
    let line = format!(
        "{}\t{}\t{}\n",
        kind.word(),
        test_name.replace(['\t', '\n'], " "),
        why.replace(['\t', '\n'], " ")
    );
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(ledger_of(&dir, std::os::unix::process::parent_id()));
    if let Ok(mut f) = file {
        // One write of one line: O_APPEND keeps concurrent test threads'
        // lines whole.
        let _ = f.write_all(line.as_bytes());
    }
}

/// The tests skipped so far in this `cargo test` run, by kind, and the
/// names of each kind.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Privileged tests skipped.
    pub privileged: Vec<String>,
    /// Guest-kernel tests skipped.
    pub guest: Vec<String>,
    /// Tests skipped for a missing program.
    pub tool: Vec<String>,
}

impl Skipped {
    /// Parses a ledger's text; lines of unknown kinds are ignored.
    pub fn parse(text: &str) -> Skipped {
        let mut s = Skipped::default();
        for line in text.lines() {
            let mut parts = line.splitn(3, '\t');
            let (Some(kind), Some(name)) = (parts.next().and_then(Skip::from_word), parts.next())
            else {
                continue;
            };
            let list = match kind {
                Skip::Privileged => &mut s.privileged,
                Skip::Guest => &mut s.guest,
                Skip::Tool => &mut s.tool,
            };
            list.push(name.to_string());
        }
        s
    }

    /// The one line `cargo test --workspace` ends its test binaries with.
    pub fn line(&self) -> String {
        let n = |v: &Vec<String>| v.len();
        if n(&self.privileged) + n(&self.guest) + n(&self.tool) == 0 {
            return "netlab: no privileged, guest or tool-dependent test was skipped in this run"
                .into();
        }
        format!(
            "netlab: {} privileged and {} guest test(s) skipped in this run, and {} for a missing \
             program (they passed without running; {REQUIRE_PRIVILEGED_ENV}=1 makes them fail instead)",
            n(&self.privileged),
            n(&self.guest),
            n(&self.tool)
        )
    }
}

/// Reads and removes this run's ledger (the run of the calling test
/// binary's parent cargo), and removes ledgers of runs whose cargo has
/// ended.
pub fn take_skipped() -> Skipped {
    let Some(dir) = skip_ledger_dir() else {
        return Skipped::default();
    };
    let mine = ledger_of(&dir, std::os::unix::process::parent_id());
    let text = std::fs::read_to_string(&mine).unwrap_or_default();
    let _ = std::fs::remove_file(&mine);
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let pid = e
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".log")
                .to_string();
            let alive = pid.parse::<u32>().is_ok_and(crate::proc::pid_exists);
            if !alive {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    Skipped::parse(&text)
}

/// A scratch folder for a test, `<temp>/netlab-<name>-<random>`: a
/// `tempfile::TempDir` (created with a fresh name, removed on drop) whose
/// path is field `.0`.
pub struct Scratch(pub PathBuf, tempfile::TempDir);

impl Scratch {
    /// A fresh, empty folder named after `name`.
    pub fn new(name: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("netlab-{name}-"))
            .tempdir()
            .expect("a scratch folder under the temporary directory");
        Scratch(dir.path().to_path_buf(), dir)
    }

    /// The folder (the same path as `.0`).
    pub fn path(&self) -> &std::path::Path {
        self.1.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_skips_or_fails() {
        assert!(gate("t", None, true));
        assert!(!gate("t", Some("no caps".into()), false));
        let r = std::panic::catch_unwind(|| gate("t", Some("no caps".into()), true));
        assert!(r.is_err());
    }

    #[test]
    fn ledger_lines_count_by_kind() {
        let s = Skipped::parse(
            "privileged\ta\tno caps\nguest\tb\tno linux.uml\nprivileged\tc\tx\n\
             tool\td\tno flent\nbogus\te\tx\nprivileged\n",
        );
        assert_eq!(s.privileged, ["a", "c"]);
        assert_eq!(s.guest, ["b"]);
        assert_eq!(s.tool, ["d"]);
        assert_eq!(
            s.line(),
            "netlab: 2 privileged and 1 guest test(s) skipped in this run, and 1 for a missing \
             program (they passed without running; NETLAB_REQUIRE_PRIVILEGED=1 makes them fail instead)"
        );
        assert_eq!(
            Skipped::default().line(),
            "netlab: no privileged, guest or tool-dependent test was skipped in this run"
        );
    }
}
