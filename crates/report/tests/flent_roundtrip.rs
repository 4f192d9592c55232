//! Flent round trip: Debian's `flent` loads every exported `.flent.gz` and
//! draws its plots and statistics with no error and non-empty output.
//! Skips when /usr/bin/flent is missing, fails under NETLAB_REQUIRE_PRIVILEGED=1
//! (CI installs flent).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{fixture_folder, rasterize, required, TempDir};

const FLENT: &str = "/usr/bin/flent";

fn have_flent() -> bool {
    if Path::new(FLENT).exists() {
        return true;
    }
    assert!(
        !required(),
        "{FLENT} is missing and NETLAB_REQUIRE_PRIVILEGED=1: install Debian's flent package"
    );
    eprintln!("skipping: {FLENT} is not installed");
    false
}

/// Runs flent with a deadline; returns stdout+stderr.
fn flent(args: &[&str], home: &Path) -> String {
    let mut child = Command::new(FLENT)
        .args(args)
        .env("HOME", home)
        .env("MPLCONFIGDIR", home)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn flent");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(_status) = child.try_wait().expect("wait flent") {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("flent {args:?} ran past 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("flent output");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "flent {args:?} failed: {text}");
    assert!(!text.contains("Traceback"), "flent {args:?}: {text}");
    assert!(!text.contains("ERROR"), "flent {args:?}: {text}");
    text
}

fn non_empty_svg(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        bytes.len() > 1000,
        "{} is nearly empty ({} bytes)",
        path.display(),
        bytes.len()
    );
    let ink = rasterize(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(ink > 0.01, "{} renders blank", path.display());
}

#[test]
fn flent_loads_plots_and_summarises_every_export() {
    if !have_flent() {
        return;
    }
    let dir = fixture_folder("flent");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    assert_eq!(files.flent.len(), input.scenarios.len());
    let out = TempDir::new("flent-out");
    for (i, f) in files.flent.iter().enumerate() {
        let file = f.to_str().unwrap();
        let cdf = out.path().join(format!("{i}-ping_cdf.svg"));
        flent(
            &["-i", file, "-p", "ping_cdf", "-o", cdf.to_str().unwrap()],
            out.path(),
        );
        non_empty_svg(&cdf);
        if i >= 2 {
            continue;
        }
        // The test's totals plot and the sender's TCP RTT from tcp_info.
        for plot in ["totals", "tcp_rtt"] {
            let svg = out.path().join(format!("{i}-{plot}.svg"));
            flent(
                &["-i", file, "-p", plot, "-o", svg.to_str().unwrap()],
                out.path(),
            );
            non_empty_svg(&svg);
        }
        let stats = out.path().join(format!("{i}-stats.txt"));
        flent(
            &["-i", file, "-f", "stats", "-o", stats.to_str().unwrap()],
            out.path(),
        );
        let text = std::fs::read_to_string(&stats).unwrap();
        assert!(
            text.contains("Ping (ms)::UDP netlab:\n  Data points:"),
            "{text}"
        );
        assert!(
            text.contains("TCP upload::netlab:\n  Data points:"),
            "{text}"
        );
        assert!(
            !text.contains("ICMP:") && !text.contains("::ICMP"),
            "a UDP echo is never labelled ICMP: {text}"
        );
        // TITLE is Flent's label of the file: short, one line (`pfifo r1`).
        let s = &input.scenarios[i];
        assert!(
            text.contains(&format!(" - {} r{}:\n", s.arm, s.round)),
            "the file's label is `arm rN`: {text}"
        );
    }
}
