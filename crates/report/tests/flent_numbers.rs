//! Flent's own numbers of our files (Debian's `flent` 2.1): over Flent's
//! window (`--data-cutoff DELAY,-DELAY`, the metadata the export writes),
//! Flent's mean goodput is netlab's goodput within 2 %; a round whose
//! loaded requests were all unanswered (gaps) has no Flent latency at all,
//! and the rounds with replies rank by Flent's mean and median as netlab's
//! verdict ranks the arms. Flent's combined plots (`box_combine`,
//! `ellipsis_combine`, `all_scaled`) and `totals`, `ping_cdf`, `tcp_rtt` run
//! on the files without an error and draw something.
//! Skips when /usr/bin/flent is missing, fails under
//! NETLAB_REQUIRE_PRIVILEGED=1 (CI installs flent).

mod common;

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{fixture_folder, rasterize, skip_for_missing, TempDir};

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
fn flents_own_numbers_agree_with_ours_and_rank_the_arms_as_netlab_does() {
    if !Path::new(FLENT).exists() {
        skip_for_missing(
            "flents_own_numbers_agree_with_ours_and_rank_the_arms_as_netlab_does",
            FLENT,
            "flent",
        );
        return;
    }
    let dir = fixture_folder("flent-numbers");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    let stats = netlab_compare::compare::analyse(&input);
    let home = TempDir::new("flent-home");
    let ping = netlab_export::flent::ping_series();
    let upload = netlab_export::flent::upload_series();

    // (arm, file, Flent's ping mean, Flent's ping median) of the rounds
    // with a loaded reply; rounds without one are counted.
    let mut latency: Vec<(String, String, f64, f64)> = Vec::new();
    let mut censored = 0;
    for s in &input.scenarios {
        let file = dir.path().join(netlab_report::flent_path(s));
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
            .find(|f| f.arm == s.arm && f.figure == netlab_compare::compare::Figure::Goodput)
            .and_then(|f| f.rounds.iter().find(|r| r.round == s.round))
            .map(|r| match r.value {
                netlab_stats::CensoredQuantile::Value(v) => v,
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
        let all_censored = s
            .loaded_probes()
            .all(|p| p.outcome == netlab_analysis::records::ProbeOutcome::Timeout);
        if all_censored {
            // Every loaded request unanswered: gaps, so Flent has no number
            // for the window (it does not invent one from the baseline).
            assert!(
                stat(&text, &ping, "Mean:").is_none(),
                "{}: a round without a loaded reply has no Flent mean: {text}",
                file.display()
            );
            censored += 1;
            continue;
        }
        let mean = stat(&text, &ping, "Mean:").unwrap_or_else(|| panic!("ping mean: {text}"));
        let median = stat(&text, &ping, "Median:").unwrap();
        latency.push((s.arm.clone(), file.display().to_string(), mean, median));
    }
    eprintln!("{latency:#?}");
    assert!(
        censored > 0,
        "the fixture has a round whose loaded probes all timed out"
    );
    // The arms rank as netlab's verdict ranks them (fq_codel's loaded median
    // lower): every round of the higher arm that has replies has Flent mean
    // and median latency above every round of the lower arm.
    let p50 = stats
        .comparisons
        .iter()
        .find(|c| c.figure == netlab_compare::compare::Figure::LoadedP50)
        .unwrap();
    let (lower, _) = p50.supported_shift().expect("netlab's verdict excludes 0");
    assert!(lower, "fixture: {} lower than {}", p50.b, p50.a);
    for hi in latency.iter().filter(|l| l.0 == p50.a) {
        for lo in latency.iter().filter(|l| l.0 == p50.b) {
            assert!(
                hi.2 > lo.2 && hi.3 > lo.3,
                "Flent ranks {} (mean {}, median {}) at or below {} (mean {}, median {})",
                hi.1,
                hi.2,
                hi.3,
                lo.1,
                lo.2,
                lo.3
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
