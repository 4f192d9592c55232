//! Flent round trip: Debian's `flent` loads every exported `.flent.gz` and
//! draws its plots and statistics with no error and non-empty output.
//! Skips when /usr/bin/flent is missing, fails under NETLAB_REQUIRE_PRIVILEGED=1
//! (CI installs flent).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{fixture_folder, fixture_json_of, rasterize, skip_for_missing, TempDir};

const FLENT: &str = "/usr/bin/flent";

fn have_flent(test: &str) -> bool {
    if Path::new(FLENT).exists() {
        return true;
    }
    skip_for_missing(test, FLENT, "flent");
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
    if !have_flent("flent_loads_plots_and_summarises_every_export") {
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
            text.contains(&format!(
                "{}:\n  Data points:",
                netlab_export::flent::ping_series()
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "{}:\n  Data points:",
                netlab_export::flent::upload_series()
            )),
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

/// The combined values Flent saved for one combination plot
/// (`--combine-save-dir`): each group's TITLE and its series' values.
fn combined(dir: &Path, plot: &str) -> Vec<(String, serde_json::Value)> {
    use std::io::Read as _;
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(plot))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let mut text = String::new();
            flate2::read::GzDecoder::new(std::fs::File::open(p).unwrap())
                .read_to_string(&mut text)
                .unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            (
                v["metadata"]["TITLE"].as_str().unwrap().to_string(),
                v["results"].clone(),
            )
        })
        .collect()
}

#[test]
fn flents_combination_plots_of_the_three_round_comparison() {
    if !have_flent("flents_combination_plots_of_the_three_round_comparison") {
        return;
    }
    let dir = fixture_folder("flent-combine");
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    assert_eq!(files.flent.len(), 6, "2 arms × 3 rounds");
    let out = TempDir::new("flent-combine-out");
    let save = out.path().join("combined");
    std::fs::create_dir_all(&save).unwrap();
    let mut paths: Vec<String> = files
        .flent
        .iter()
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    paths.sort();
    for plot in ["bar_combine", "box_combine", "ping_cdf", "totals"] {
        let svg = out.path().join(format!("{plot}.svg"));
        let mut args: Vec<&str> = vec!["-p", plot, "-o", svg.to_str().unwrap()];
        if plot.ends_with("_combine") {
            args.extend(["--combine-save-dir", save.to_str().unwrap()]);
        }
        for p in &paths {
            args.extend(["-i", p.as_str()]);
        }
        flent(&args, out.path());
        non_empty_svg(&svg);
    }
    let stats = netlab_compare::compare::analyse(&input);
    for plot in ["bar_combine", "box_combine"] {
        let groups = combined(&save, plot);
        // Every file its own group (one box, one bar), labelled arm-round.
        let mut titles: Vec<String> = groups.iter().map(|g| g.0.clone()).collect();
        titles.sort();
        let mut want: Vec<String> = input
            .scenarios
            .iter()
            .map(|s| format!("{}-r{} (n=1)", s.arm, s.round))
            .collect();
        want.sort();
        assert_eq!(titles, want, "{plot}: one labelled group per file");
        // Flent's mean goodput of each file over its cutoff is netlab's
        // window goodput of that round (the same bins; Flent's aligner may
        // leave the window's last bin out when it repeats the one before,
        // so within one bin in 50), and the six rank alike.
        let mut pairs: Vec<(String, f64, f64)> = Vec::new();
        for (title, results) in &groups {
            let f = stats
                .figures
                .iter()
                .find(|f| {
                    f.figure == netlab_compare::compare::Figure::Goodput
                        && title.starts_with(&format!("{}-", f.arm))
                })
                .unwrap();
            let round: u32 = title
                .rsplit_once("-r")
                .and_then(|(_, r)| r.split(' ').next())
                .and_then(|r| r.parse().ok())
                .unwrap();
            let netlab = f.rounds.iter().find(|r| r.round == round).unwrap();
            let netlab = match netlab.value {
                netlab_stats::CensoredQuantile::Value(v) => v,
                other => panic!("{other:?}"),
            };
            let flent = results["TCP upload sum"][0].as_f64().unwrap();
            assert!(
                (flent - netlab).abs() <= netlab * 0.021,
                "{plot} {title}: Flent {flent} vs netlab {netlab}"
            );
            pairs.push((title.clone(), flent, netlab));
        }
        let order = |i: usize| {
            let mut v: Vec<&(String, f64, f64)> = pairs.iter().collect();
            v.sort_by(|a, b| {
                if i == 1 {
                    a.1.total_cmp(&b.1)
                } else {
                    a.2.total_cmp(&b.2)
                }
            });
            v.iter().map(|p| p.0.clone()).collect::<Vec<_>>()
        };
        assert_eq!(
            order(1),
            order(2),
            "{plot}: Flent ranks the rounds' goodput as netlab does"
        );
        // Latency: every file whose unanswered requests have a known fate
        // ranks as netlab does. This fixture predates B's receive log:
        // its pfifo requests without reply are gaps of unknown
        // fate, so Flent's induced latency is over the answered few (a
        // survivor bias it cannot see) and is not compared; each file says
        // so in its metadata.
        for (s, f) in input.scenarios.iter().zip(&files.flent) {
            let v = flent_metadata(f);
            let timeouts = s
                .probes
                .iter()
                .filter(|p| p.outcome == netlab_analysis::records::ProbeOutcome::Timeout)
                .count();
            assert_eq!(
                v["NETLAB_PROBE_FATE_UNKNOWN"].as_u64().unwrap() as usize,
                timeouts,
                "{}",
                f.display()
            );
        }
    }
}

/// With B's receive log every request without a timely reply
/// has a known fate: late replies carry their real RTT and losses are
/// gaps, so Flent's combined latency ranks the arms as netlab's figures
/// do. On the default comparison recorded with it: every fq_codel round's
/// "Ping (ms) avg" below every pfifo round's, as netlab's loaded p50 of
/// each round says, and each file its own labelled group.
#[test]
fn flent_ranks_the_arms_latency_as_netlab_once_every_fate_is_known() {
    if !have_flent("flent_ranks_the_arms_latency_as_netlab_once_every_fate_is_known") {
        return;
    }
    let dir = TempDir::new("flent-fates");
    std::fs::write(
        dir.path().join("results.json"),
        fixture_json_of("run-uml-3rounds-fates"),
    )
    .unwrap();
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    assert_eq!(files.flent.len(), 6, "2 arms × 3 rounds");
    for f in &files.flent {
        let v = flent_metadata(f);
        assert_eq!(
            v["NETLAB_PROBE_FATE_UNKNOWN"].as_u64(),
            Some(0),
            "{}",
            f.display()
        );
    }
    let out = TempDir::new("flent-fates-out");
    let save = out.path().join("combined");
    std::fs::create_dir_all(&save).unwrap();
    let svg = out.path().join("bar_combine.svg");
    let mut args: Vec<String> = vec![
        "-p".into(),
        "bar_combine".into(),
        "-o".into(),
        svg.to_str().unwrap().into(),
        "--combine-save-dir".into(),
        save.to_str().unwrap().into(),
    ];
    for p in &files.flent {
        args.extend(["-i".to_string(), p.to_str().unwrap().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    flent(&args, out.path());
    non_empty_svg(&svg);
    // Flent's latency per file, by arm and round.
    let groups = combined(&save, "bar_combine");
    assert_eq!(groups.len(), 6, "one group per file");
    let flent_ms = |arm: &str, round: u32| -> f64 {
        let title = format!("{arm}-r{round} (n=1)");
        let g = groups
            .iter()
            .find(|g| g.0 == title)
            .unwrap_or_else(|| panic!("no group {title}"));
        g.1["Ping (ms) avg"][0].as_f64().unwrap()
    };
    // netlab's loaded p50 per round (a bound stays a bound).
    let stats = netlab_compare::compare::analyse(&input);
    let p50 = |arm: &str| {
        stats
            .figures
            .iter()
            .find(|f| f.figure == netlab_compare::compare::Figure::LoadedP50 && f.arm == arm)
            .unwrap()
            .rounds
            .clone()
    };
    use netlab_stats::CensoredQuantile::{AtLeast, Value};
    let mut pairs = 0;
    for fq in p50("fq_codel") {
        for pf in p50("pfifo") {
            // netlab's order, where the values decide it.
            let netlab_fq_lower = match (fq.value, pf.value) {
                (Value(a), Value(b)) | (Value(a), AtLeast(b)) => Some(a < b),
                (AtLeast(a), Value(b)) if a >= b => Some(false),
                _ => None,
            };
            let Some(netlab_fq_lower) = netlab_fq_lower else {
                continue;
            };
            pairs += 1;
            let (f, p) = (flent_ms("fq_codel", fq.round), flent_ms("pfifo", pf.round));
            assert_eq!(
                f < p,
                netlab_fq_lower,
                "fq_codel r{} ({f} ms in Flent) vs pfifo r{} ({p} ms): netlab says fq_codel lower: {netlab_fq_lower}",
                fq.round,
                pf.round
            );
        }
    }
    assert_eq!(pairs, 9, "every pair of rounds is ordered by netlab");
}

fn flent_metadata(path: &Path) -> serde_json::Value {
    use std::io::Read as _;
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["metadata"].clone()
}

/// A two-point, two-round sweep (the committed host sweep's points
/// rate=2mbit flows=1 and rate=20mbit flows=1): Flent's `bar_combine`
/// draws one bar per file, each labelled with its point and round, never
/// two points in one bar, and each file's EGRESS_INFO gives the rate its
/// scenario read back (docs/flent.md).
#[test]
fn flents_bars_of_a_sweep_are_one_per_point_and_round() {
    if !have_flent("flents_bars_of_a_sweep_are_one_per_point_and_round") {
        return;
    }
    let dir = TempDir::new("flent-sweep");
    std::fs::write(
        dir.path().join("results.json"),
        fixture_json_of("run-host-pfifo-sweep"),
    )
    .unwrap();
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    let wanted: Vec<&netlab_analysis::records::Scenario> = input
        .scenarios
        .iter()
        .filter(|s| s.point.label.ends_with("flows=1"))
        .collect();
    assert_eq!(wanted.len(), 4, "2 points × 2 rounds");
    let paths: Vec<String> = wanted
        .iter()
        .map(|s| {
            let p = files
                .flent
                .iter()
                .find(|p| {
                    p.file_name().unwrap().to_string_lossy()
                        == netlab_export::flent::data_file_name(s)
                })
                .unwrap();
            // EGRESS_INFO: the scenario's own rate, as read back.
            let meta = flent_metadata(p);
            let tbf = meta["EGRESS_INFO"]["qdiscs"][0]["params"]
                .as_str()
                .unwrap()
                .to_string();
            let rate = s.readbacks.rate_bps.expect("the TBF's rate read back");
            assert!(
                tbf.starts_with(&format!("tbf rate {rate} bit/s")),
                "scenario {}: {tbf}",
                s.index
            );
            assert!(meta["TITLE"].as_str().unwrap().contains(&s.point.label));
            p.to_str().unwrap().to_string()
        })
        .collect();
    let out = TempDir::new("flent-sweep-out");
    let save = out.path().join("combined");
    std::fs::create_dir_all(&save).unwrap();
    let svg = out.path().join("bar_combine.svg");
    let mut args: Vec<&str> = vec![
        "-p",
        "bar_combine",
        "-o",
        svg.to_str().unwrap(),
        "--combine-save-dir",
        save.to_str().unwrap(),
    ];
    for p in &paths {
        args.extend(["-i", p.as_str()]);
    }
    flent(&args, out.path());
    non_empty_svg(&svg);
    let groups = combined(&save, "bar_combine");
    let mut titles: Vec<String> = groups.iter().map(|g| g.0.clone()).collect();
    titles.sort();
    assert_eq!(titles.len(), 4, "one bar per file: {titles:?}");
    for t in &titles {
        assert!(t.ends_with("(n=1)"), "a bar pools files: {t}");
        assert!(t.contains("mbit"), "a bar without its point: {t}");
        assert!(
            t.contains("-r1") || t.contains("-r2"),
            "a bar without its round: {t}"
        );
    }
    titles.dedup();
    assert_eq!(titles.len(), 4, "two bars share a label");
}

/// A run whose only probe is isochronous (the committed sparse-flows run)
/// writes a Flent file per scenario, its probe written as Flent writes
/// irtt's data, and Flent summarises it.
#[test]
fn an_isochronous_only_run_writes_a_flent_file_flent_reads() {
    if !have_flent("an_isochronous_only_run_writes_a_flent_file_flent_reads") {
        return;
    }
    let dir = TempDir::new("flent-iso");
    std::fs::write(
        dir.path().join("results.json"),
        fixture_json_of("run-uml-sparse-flows"),
    )
    .unwrap();
    let input = netlab_report::read_results(dir.path()).unwrap();
    let files = netlab_report::render(&input, dir.path()).unwrap();
    assert_eq!(files.flent.len(), input.scenarios.len(), "one per scenario");
    let file = files.flent[0].to_str().unwrap().to_string();
    let out = TempDir::new("flent-iso-out");
    let stats = out.path().join("stats.txt");
    flent(
        &["-i", &file, "-f", "stats", "-o", stats.to_str().unwrap()],
        out.path(),
    );
    let text = std::fs::read_to_string(&stats).unwrap();
    let iso = netlab_export::flent::iso_series();
    assert!(text.contains(&format!("{iso}:\n  Data points:")), "{text}");
    let svg = out.path().join("ping.svg");
    flent(
        &["-i", &file, "-p", "ping", "-o", svg.to_str().unwrap()],
        out.path(),
    );
    non_empty_svg(&svg);
    // Each answered slot carries both one-way delays; a lost one has none.
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&files.flent[0]).unwrap()),
        &mut text,
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let raw = v["raw_values"][iso.as_str()].as_array().unwrap();
    assert!(raw
        .iter()
        .any(|p| p.get("owd_up").is_some() && p.get("owd_down").is_some()));
    assert!(raw
        .iter()
        .filter(|p| p.get("lost").is_some())
        .all(|p| p.get("val").is_none()));
}
