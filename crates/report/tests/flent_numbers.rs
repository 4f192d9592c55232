//! Flent's own numbers of our files (Debian's `flent` 2.1): over Flent's
//! window (`--data-cutoff DELAY,-DELAY`, the metadata the export writes),
//! Flent's mean goodput is netlab's goodput within 2 %, and a round whose
//! loaded probes all timed out never has a lower mean or median latency in
//! Flent than a round with replies. Flent's combined plots (`box_combine`,
//! `ellipsis_combine`, `all_scaled`) and `totals`, `ping_cdf`, `tcp_rtt` run
//! on the files without an error and draw something.
//! Skips when /usr/bin/flent is missing, fails under
//! NETLAB_REQUIRE_PRIVILEGED=1 (CI installs flent).

mod common;

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{fixture_folder, rasterize, required, TempDir};

const FLENT: &str = "/usr/bin/flent";

/// Runs flent with a deadline; returns stdout+stderr after checking it
/// succeeded without a traceback.
fn flent(args: &[&str], home: &Path) -> String {
    let out_file = home.join("flent.out");
    let mut child = Command::new(FLENT)
        .args(args)
        .env("HOME", home)
        .env("MPLCONFIGDIR", home)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_file).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn flent");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait flent") {
            break st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("flent {args:?} ran past 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let text = format!(
        "{}{err}",
        std::fs::read_to_string(&out_file).unwrap_or_default()
    );
    assert!(status.success(), "flent {args:?} failed: {text}");
    assert!(!text.contains("Traceback"), "flent {args:?}: {text}");
    assert!(!text.contains("ERROR"), "flent {args:?}: {text}");
    text
}

/// A value of `-f stats` output: `key:` (e.g. `Mean:`) in the block of
/// `series`.
fn stat(text: &str, series: &str, key: &str) -> Option<f64> {
    let start = text.find(&format!("\n {series}:\n"))? + series.len() + 4;
    text[start..]
        .lines()
        .take_while(|l| l.starts_with("  "))
        .find_map(|l| {
            l.trim()
                .strip_prefix(key)?
                .split_whitespace()
                .next()?
                .parse::<f64>()
                .ok()
        })
}

fn metadata(file: &Path) -> serde_json::Value {
    let gz = std::fs::read(file).unwrap();
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut json)
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    v["metadata"].clone()
}

fn non_blank(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(bytes.len() > 1000, "{} is nearly empty", path.display());
    let ink = rasterize(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(ink > 0.01, "{} renders blank", path.display());
}

#[test]
fn flents_own_numbers_agree_with_ours_and_never_favour_a_censored_round() {
    if !Path::new(FLENT).exists() {
        assert!(
            !required(),
            "{FLENT} is missing and NETLAB_REQUIRE_PRIVILEGED=1: install Debian's flent package"
        );
        eprintln!("skipping: {FLENT} is not installed");
        return;
    }
    let dir = fixture_folder("flent-numbers");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    let stats = netlab_report::compare::analyse(&input);
    let home = TempDir::new("flent-home");
    let ping = netlab_report::flent::ping_series();
    let upload = netlab_report::flent::upload_series();

    // (file, all loaded probes censored, Flent's ping mean, Flent's ping median)
    let mut latency: Vec<(String, bool, f64, f64)> = Vec::new();
    for s in &input.scenarios {
        let file = dir.path().join(netlab_report::flent::file_name(s));
        assert!(files.flent.contains(&file), "{} written", file.display());
        let meta = metadata(&file);
        let delay = meta["DELAY"].as_f64().unwrap();
        assert_eq!(meta["TITLE"], format!("{} r{}", s.arm, s.round));
        let cutoff = format!("--data-cutoff={delay},-{delay}");
        let text = flent(
            &["-i", file.to_str().unwrap(), "-f", "stats", &cutoff],
            home.path(),
        );
        // Goodput: Flent's mean over its window against netlab's.
        let flent_mean = stat(&text, &upload, "Mean:")
            .unwrap_or_else(|| panic!("no upload mean in Flent's stats: {text}"));
        let ours = stats
            .figures
            .iter()
            .find(|f| f.arm == s.arm && f.figure == netlab_report::compare::Figure::Goodput)
            .and_then(|f| f.rounds.iter().find(|r| r.round == s.round))
            .map(|r| match r.value {
                netlab_report::stats::CensoredQuantile::Value(v) => v,
                other => panic!("goodput {other:?}"),
            })
            .unwrap();
        eprintln!(
            "{}: Flent goodput {flent_mean:.4} Mbit/s, netlab {ours:.4}",
            file.display()
        );
        assert!(
            (flent_mean - ours).abs() <= 0.02 * ours,
            "{}: Flent's mean goodput {flent_mean} vs netlab's {ours}: {text}",
            file.display()
        );
        let mean = stat(&text, &ping, "Mean:").unwrap_or_else(|| panic!("ping mean: {text}"));
        let median = stat(&text, &ping, "Median:").unwrap();
        let all_censored = s
            .loaded_probes()
            .all(|p| p.outcome == netlab_report::model::ProbeOutcome::Timeout);
        latency.push((file.display().to_string(), all_censored, mean, median));
    }
    eprintln!("{latency:#?}");
    let censored: Vec<_> = latency.iter().filter(|l| l.1).collect();
    assert!(
        !censored.is_empty(),
        "the fixture has a round whose loaded probes all timed out"
    );
    for c in &censored {
        for o in latency.iter().filter(|l| !l.1) {
            assert!(
                c.2 >= o.2 && c.3 >= o.3,
                "Flent ranks censored {} (mean {}, median {}) below {} (mean {}, median {})",
                c.0,
                c.2,
                c.3,
                o.0,
                o.2,
                o.3
            );
        }
    }

    // Flent's plots of our files, one and all: no error, something drawn.
    let all: Vec<&str> = files.flent.iter().map(|f| f.to_str().unwrap()).collect();
    let first = all[0];
    for plot in ["totals", "ping_cdf", "tcp_rtt", "all_scaled"] {
        let svg = home.path().join(format!("{plot}.svg"));
        flent(
            &["-i", first, "-p", plot, "-o", svg.to_str().unwrap()],
            home.path(),
        );
        non_blank(&svg);
    }
    for plot in ["box_combine", "ellipsis_combine"] {
        let svg = home.path().join(format!("{plot}.svg"));
        let mut args = vec!["-p", plot, "-o", svg.to_str().unwrap()];
        for f in &all {
            args.extend(["-i", f]);
        }
        flent(&args, home.path());
        non_blank(&svg);
    }
}
