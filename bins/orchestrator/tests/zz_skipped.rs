//! The line `cargo test --workspace` ends its test binaries with: how many
//! privileged, guest and tool-dependent tests were skipped in this run
//! (docs/architecture.md, "Tests that skip").
//!
//! Without root, the privileged and guest tests pass without running; each
//! says so on its own, and this count says it once where a reader looks
//! last. Cargo runs the workspace's test binaries in package order and, in
//! a package, its integration tests by name: `orchestrator` sorts after
//! every `netlab-*` crate and `zz_skipped` after its other tests, so this
//! binary runs after every other test binary (the doc tests follow).
//! `harness = false`: its output is not captured.

fn main() {
    let skipped = netlab_os::testing::take_skipped();
    println!();
    println!("{}", skipped.line());
    if std::env::var_os("NETLAB_LIST_SKIPPED").is_some() {
        for (kind, names) in [
            ("privileged", &skipped.privileged),
            ("guest", &skipped.guest),
            ("tool", &skipped.tool),
        ] {
            for n in names {
                println!("  {kind}: {n}");
            }
        }
    }
}
