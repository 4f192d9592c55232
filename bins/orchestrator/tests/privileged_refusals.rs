//! Up-front refusals: a results folder that cannot keep the
//! results is refused before anything is created, exit 1, with a message
//! that says why. Needs root (a private mount namespace holds the full
//! filesystem); skips without it unless NETLAB_REQUIRE_PRIVILEGED=1.

use std::process::{Command, Stdio};
use std::time::Duration;

use netlab_topology::testing::require_privileged;

mod support;

use support::*;

/// Our own namespaces (`nl-…`) that exist right now.
fn our_namespaces() -> Vec<String> {
    std::fs::read_dir("/run/netns")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("nl-"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn privileged_an_out_folder_that_cannot_be_created_is_refused_before_any_change() {
    if !require_privileged(
        "privileged_an_out_folder_that_cannot_be_created_is_refused_before_any_change",
    ) {
        return;
    }
    // A results folder below a regular file can never be made.
    let out = OutDir::new("refuse-out");
    std::fs::create_dir_all(&out.0).unwrap();
    let file = out.0.join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let target = file.join("results");
    let (code, _o, err) = run_bounded(
        &[
            "compare",
            "--kernel",
            "host",
            "--arm",
            "pfifo limit 256",
            "--out",
            target.to_str().unwrap(),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("nothing was changed"), "{err}");
    assert!(err.contains("creating the results folder"), "{err}");
    assert!(!err.contains("run "), "a run started:\n{err}");
}

#[test]
fn privileged_a_full_filesystem_is_refused_before_any_change() {
    if !require_privileged("privileged_a_full_filesystem_is_refused_before_any_change") {
        return;
    }
    // A 1 MB tmpfs in a private mount namespace of the child only: nothing
    // is mounted on the host, and it vanishes with the child.
    let out = OutDir::new("refuse-full");
    std::fs::create_dir_all(&out.0).unwrap();
    let before = our_namespaces();
    let script = format!(
        "mount -t tmpfs -o size=1m netlab-full '{dir}' && exec '{bin}' compare --kernel host \
         --arm 'pfifo limit 256' --rounds 1 --baseline 1s --warmup 1s --measure 2s --out '{dir}/r'",
        dir = out.0.display(),
        bin = BIN
    );
    let child = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("unshare");
    let done = wait_bounded(child, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&done.stderr).into_owned();
    assert_eq!(done.status.code(), Some(1), "{err}");
    assert!(err.contains("nothing was changed"), "{err}");
    assert!(err.contains("MB free"), "{err}");
    assert_eq!(our_namespaces(), before, "a namespace was created");
    // The host's view of the folder is untouched (the tmpfs was private).
    assert!(!out.0.join("r").exists());
}

/// Waits for `child` at most `limit`, killing it (by its pid) past that.
fn wait_bounded(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().ok().flatten().is_some() {
            return child.wait_with_output().expect("output");
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the refusal took longer than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
