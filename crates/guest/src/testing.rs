//! Helpers for tests that must run on the guest kernel (e.g. fq_codel
//! tests). Only with the `testing` feature: enable it in the
//! `[dev-dependencies]` entry of `netlab-guest`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::availability::available;
use crate::error::{tail_lines, Error, Result};
use crate::host::Guest;
use crate::running::GuestOutcome;
use crate::spec::in_guest;

/// Deadline of one test run inside the guest.
pub const TEST_DEADLINE: Duration = Duration::from_secs(120);

/// Runs the test `name` of the current test binary inside the guest with
/// `modules` loaded: `<exe> name --exact --nocapture --test-threads=1`, with
/// `NETLAB_REQUIRE_PRIVILEGED`, `RUST_BACKTRACE` and `RUST_LOG` passed
/// through. Returns the outcome whatever the test's status.
pub fn run_test_inside(modules: &[&str], name: &str) -> Result<GuestOutcome> {
    let exe =
        std::env::current_exe().map_err(|e| Error::io("finding the current executable", e))?;
    let cwd = std::env::current_dir().map_err(|e| Error::io("current directory", e))?;
    guest_for_test(exe, &cwd)
        .modules(modules.iter().copied())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .inherit_env("NETLAB_REQUIRE_PRIVILEGED")
        .inherit_env("RUST_BACKTRACE")
        .inherit_env("RUST_LOG")
        .deadline(TEST_DEADLINE)
        .run()
}

/// A guest running `program` from `cwd`, with the checkout around `cwd`
/// given back: a test reads fixtures anywhere in its checkout
/// (`../../fixtures`), and under /tmp (a clone there) the guest's own tmpfs
/// would hide all but the test's folder and binary.
pub fn guest_for_test(program: impl AsRef<std::ffi::OsStr>, cwd: &Path) -> Guest {
    let guest = Guest::new(program).current_dir(cwd);
    match checkout_root(cwd) {
        Some(root) => guest.share_dir(root),
        None => guest,
    }
}

/// The top-most folder above `dir` (or `dir` itself) that holds a
/// `Cargo.lock`: the checkout a test runs from (`cargo test` runs a test
/// in its package's folder). `None` outside a checkout.
fn checkout_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .filter(|d| d.join("Cargo.lock").is_file())
        .last()
        .map(Path::to_path_buf)
}

/// Whether the test binary's output says exactly one test ran and passed.
pub fn test_passed(stdout: &str) -> bool {
    stdout.contains("test result: ok. 1 passed")
}

/// True when the guest kernel and `modules` are available. Otherwise prints
/// `SKIP <name>: <reason>` and returns false, or panics when
/// `NETLAB_REQUIRE_PRIVILEGED=1` (CI).
pub fn guest_or_skip(name: &str, modules: &[&str]) -> bool {
    match available().require(modules) {
        Ok(()) => true,
        Err(e) if std::env::var("NETLAB_REQUIRE_PRIVILEGED").is_ok_and(|v| v == "1") => {
            panic!("{name}: the guest kernel is required (NETLAB_REQUIRE_PRIVILEGED=1) but: {e}")
        }
        Err(e) => {
            println!("SKIP {name}: {e}");
            netlab_os::testing::record_skip(netlab_os::testing::Skip::Guest, name, &e.to_string());
            false
        }
    }
}

/// Runs `body` inside the guest kernel.
///
/// On the host: skips (printed) when the guest kernel or a module is
/// missing, unless `NETLAB_REQUIRE_PRIVILEGED=1` (then panics); otherwise
/// boots the guest running this very test (`name` must be the exact test
/// path as `cargo test` prints it, e.g. `guest_fq_codel` for a test in
/// `tests/`, `module::tests::name` for a unit test) and panics with the
/// guest's output unless it passed there. Inside the guest: runs `body`.
pub fn test_in_guest(name: &str, modules: &[&str], body: impl FnOnce()) {
    if in_guest() {
        body();
        return;
    }
    if !guest_or_skip(name, modules) {
        return;
    }
    let outcome = match run_test_inside(modules, name) {
        Ok(o) => o,
        Err(e) => panic!("{name}: running the test inside the guest failed: {e}"),
    };
    println!(
        "{name}: guest {} ({}), boot to init {:?}, elapsed {:?}",
        outcome.release, outcome.status, outcome.boot_to_init, outcome.elapsed
    );
    println!("--- guest stdout ---\n{}", outcome.stdout);
    println!("--- guest stderr ---\n{}", outcome.stderr);
    if !outcome.status.success() || !test_passed(&outcome.stdout) {
        panic!(
            "{name}: failed inside the guest ({}; passed line {}).\n--- console tail ---\n{}",
            outcome.status,
            if test_passed(&outcome.stdout) {
                "present"
            } else {
                "missing: wrong test name?"
            },
            tail_lines(&outcome.console_log, 20)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checkout_is_the_top_folder_with_a_cargo_lock() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = checkout_root(here).unwrap();
        assert!(root.join("Cargo.lock").is_file() && root.join("crates").is_dir());
        assert!(here.starts_with(&root) && here != root);
        assert_eq!(checkout_root(Path::new("/")), None);
    }

    #[test]
    fn passed_line() {
        assert!(test_passed(
            "running 1 test\ntest x ... ok\n\ntest result: ok. 1 passed; 0 failed"
        ));
        assert!(!test_passed(
            "running 0 tests\n\ntest result: ok. 0 passed; 0 failed"
        ));
    }
}
