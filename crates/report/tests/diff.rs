//! `netlab_report::diff` on committed runs (docs/report.md, "Two runs"):
//! the setup item by item, each arm's metrics over one run's rounds
//! against the other's with the verdict's statistics, and what only one
//! run has.

mod common;

use std::path::Path;

use common::{fixture_json_of, TempDir};
use netlab_report::diff::{diff, ChangeGate, DiffError, RunDigest};

fn digest(run: &str) -> (TempDir, RunDigest) {
    let dir = TempDir::new(run);
    std::fs::write(dir.path().join("results.json"), fixture_json_of(run)).unwrap();
    let d = RunDigest::read(dir.path()).unwrap_or_else(|e| panic!("{run}: {e}"));
    (dir, d)
}

#[test]
fn a_run_against_itself_changes_nothing() {
    let (_a, a) = digest("run-uml-3rounds-fates");
    let (_b, b) = digest("run-uml-3rounds-fates");
    let d = diff(&a, &b, &[]).unwrap();
    assert!(d.setup_differs.is_empty(), "{:?}", d.setup_differs);
    assert_eq!(d.pairs.len(), 2, "pfifo and fq_codel");
    assert!(d.only_a.is_empty() && d.only_b.is_empty());
    for p in &d.pairs {
        for m in &p.metrics {
            assert_eq!(m.change, None, "{}", m.sentence);
            assert_eq!(m.a_rounds, m.b_rounds);
        }
    }
    assert!(d
        .headline()
        .iter()
        .any(|l| l == "no detectable change in any metric of any arm both runs have"));
}

/// Paired across arms, the diff of a run with itself is the run's own
/// verdict: fq_codel (B) against pfifo (A), worked out in the run's
/// summary.md (fq_codel lower by at least 435 ms over the window, its
/// requests weighted by time, method §12.11; 90 % over 3 vs 3).
#[test]
fn a_pair_across_arms_gives_the_runs_own_verdict() {
    let (_a, a) = digest("run-uml-3rounds-fates");
    let (_b, b) = digest("run-uml-3rounds-fates");
    let pfifo = "pfifo limit 256";
    let fq = "fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn";
    let d = diff(&a, &b, &[(pfifo.into(), fq.into())]).unwrap();
    let p = d.pairs.iter().find(|p| p.arm_a == pfifo).unwrap();
    assert_eq!(p.arm_b, fq);
    let p50 = p.metrics.iter().find(|m| m.key == "p50").unwrap();
    let (higher, by) = p50.change.expect("the interval excludes 0");
    assert!(!higher, "{}", p50.sentence);
    // The run's verdict: "by at least 435 ms"; the diff's bound is the
    // interval's endpoint nearest zero, inside the interval.
    assert!((434.0..436.0).contains(&by), "{}", p50.sentence);
    assert!((p50.level - 0.9).abs() < 1e-9);
    assert!(
        p50.sentence.contains("B lower than A by at least"),
        "{}",
        p50.sentence
    );
    // fq_codel is also paired with itself (same words in both runs).
    assert!(d.pairs.iter().any(|p| p.arm_a == fq && p.arm_b == fq));
    // A gate fails past the change's bound only: the p50 claim's bound is
    // 434–436 ms; no other claim of p50 is made.
    let gate = |t: &str| vec![ChangeGate::parse(t).unwrap()];
    let past = d.beyond(&gate("p50:300"));
    assert_eq!(past.len(), 1, "{past:?}");
    assert!(
        past[0].starts_with(&format!(
            "p50 changed beyond 300 in {pfifo} (loaded one-way delay p50"
        )) && past[0].contains("B lower than A by at least 435 ms"),
        "{}",
        past[0]
    );
    assert!(d.beyond(&gate("p50:440")).is_empty());
    assert_eq!(d.beyond(&gate("p50")).len(), 1, "threshold 0: any claim");
}

#[test]
fn a_change_gate_takes_its_words_and_refuses_the_rest() {
    let g = ChangeGate::parse("p95:2.5").unwrap();
    assert_eq!((g.metric.as_str(), g.threshold), ("p95", 2.5));
    let g = ChangeGate::parse("loss").unwrap();
    assert_eq!((g.metric.as_str(), g.threshold), ("loss", 0.0));
    for (bad, why) in [
        (
            "p99",
            "unknown metric \"p99\": one of p50, p95, loss, goodput, drops",
        ),
        ("p95:-1", "the threshold must be a finite number ≥ 0"),
        ("drops:inf", "the threshold must be a finite number ≥ 0"),
    ] {
        assert_eq!(ChangeGate::parse(bad).unwrap_err(), why, "{bad}");
    }
    assert!(ChangeGate::parse("p95:x")
        .unwrap_err()
        .starts_with("threshold \"x\": "));
}

#[test]
fn the_kernel_ab_runs_differ_in_the_kernel_alone() {
    // experiments/kernel_ab_quick.toml in the 6.1 guest, rerun in the 6.12
    // guest (fixtures/report/README.md, run-uml-kernel-ab-*).
    let (_a, a) = digest("run-uml-kernel-ab-6.1");
    let (_b, b) = digest("run-uml-kernel-ab-6.12");
    let d = diff(&a, &b, &[]).unwrap();
    let keys: Vec<&str> = d.setup_differs.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(keys, ["kernel"], "{:?}", d.setup_differs);
    assert!(d.setup_differs[0]
        .a
        .starts_with("uml 6.1.176 (user-mode-linux "));
    assert!(d.setup_differs[0]
        .b
        .starts_with("uml-6.12 6.12.118 (linux-source-6.12 "));
    assert_eq!(d.same_experiment, Some(true));
    assert_eq!(d.pairs.len(), 2, "pfifo and fq_codel on both kernels");
}

#[test]
fn another_kernel_is_one_setup_row() {
    // The same run as if B had run in the 6.12 guest: its results.json
    // names the kernel, its source, configuration and compiler, and each
    // scenario's ran_on gives the guest's release.
    let (_a, a) = digest("run-uml-3rounds-fates");
    let (_b, mut b) = digest("run-uml-3rounds-fates");
    b.header.experiment.kernel = Some("uml-6.12".into());
    b.header.kernel = netlab_results::KernelInfo {
        mode: "uml".into(),
        release: "6.12.118".into(),
        chosen_because: "--kernel uml-6.12".into(),
        name: Some("uml-6.12".into()),
        source: Some("linux-source-6.12 6.12.118-1~deb12u1".into()),
        config_sha256: Some("0123456789ab".repeat(5) + "cdef"),
        compiler: Some("gcc (Debian 12.2.0-14+deb12u1) 12.2.0".into()),
    };
    for f in &mut b.figures {
        if let Some(m) = &mut f.machine {
            m.kernel = "6.12.118".into();
        }
    }
    let d = diff(&a, &b, &[]).unwrap();
    let keys: Vec<&str> = d.setup_differs.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(keys, ["kernel"], "{:?}", d.setup_differs);
    let row = &d.setup_differs[0];
    assert_eq!(row.a, "uml 6.1.176");
    assert_eq!(
        row.b,
        "uml-6.12 6.12.118 (linux-source-6.12 6.12.118-1~deb12u1; config sha256 0123456789ab; \
         gcc (Debian 12.2.0-14+deb12u1) 12.2.0)"
    );
    assert!(row
        .explains
        .as_deref()
        .is_some_and(|e| e.contains("method §9.2")));
    assert_eq!(
        d.same_experiment,
        Some(true),
        "the kernel is not part of the experiment's hash"
    );
}

#[test]
fn two_runs_that_differ_in_known_keys_name_them_and_list_the_unshared_arm() {
    // A host pfifo run (6 rounds, receive buffer at max, kernel 6.18)
    // against the guest's pfifo and fq_codel run (3 rounds, uml 6.1).
    let (_a, a) = digest("run-host-pfifo-6rounds");
    let (_b, b) = digest("run-uml-3rounds-fates");
    let d = diff(&a, &b, &[]).unwrap();
    let key = |k: &str| d.setup_differs.iter().find(|s| s.key == k);
    // The kernel is one row, whatever of it differs.
    let kernel = key("kernel").expect("the kernel differs");
    assert!(kernel.a.starts_with("host 6.18"), "{kernel:?}");
    assert!(kernel.b.starts_with("uml 6.1.176"), "{kernel:?}");
    assert!(kernel.explains.is_some());
    assert!(key("kernel.mode").is_none() && key("kernel.release").is_none());
    assert!(key("experiment.rounds").is_some());
    assert_eq!(d.pairs.len(), 1, "pfifo limit 256 in both");
    assert_eq!(
        d.only_b,
        ["fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn"]
    );
    // Every claimed change lies inside its own interval.
    for m in &d.pairs[0].metrics {
        if let Some((_, by)) = m.change {
            assert!(by > 0.0, "{}", m.sentence);
        }
    }
    let md = d.markdown();
    assert!(
        md.contains("## Setup") && md.contains("## What moved"),
        "{md}"
    );
    assert!(md.contains("- only in B: fq_codel"), "{md}");
    let json = serde_json::to_string(&d).unwrap();
    assert!(json.contains("\"setup_differs\""));
    let html = d.html().unwrap();
    assert!(html.contains("What moved"), "{html}");
    // The pair's figure: both runs on one axis, A solid, B dashed.
    let figs = d.figures().unwrap();
    assert_eq!(figs.len(), 2, "the delay CDF and the goodput per round");
    assert_eq!(figs[0].0, "diff-01-cdf.svg");
    assert_eq!(figs[1].0, "diff-01-goodput.svg");
    // B's dashes are short polylines of their own.
    assert!(figs[0].1.matches("<polyline").count() > 10, "B is dashed");
    assert!(
        html.contains("<figure id=\"diff-01-cdf.svg\"><svg"),
        "the figure is inline"
    );
}

#[test]
fn runs_of_every_schema_netlab_reads_are_compared() {
    // The v1 golden file against today's golden file.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/orchestrator");
    let a = RunDigest::read(&root.join("schema_v1/results.json")).expect("schema 1");
    let b = RunDigest::read(&root.join("golden/results.json")).expect("golden");
    let d = diff(&a, &b, &[]).expect("both have pfifo and fq_codel");
    let pairs: Vec<(&str, &str, &str, (usize, usize))> = d
        .pairs
        .iter()
        .map(|p| {
            (
                p.arm_a.as_str(),
                p.arm_b.as_str(),
                p.point.as_str(),
                p.rounds,
            )
        })
        .collect();
    let fq = "fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn";
    assert_eq!(
        pairs,
        [
            ("pfifo limit 256", "pfifo limit 256", "default", (1, 1)),
            (fq, fq, "default", (1, 1)),
        ]
    );
}

#[test]
fn runs_with_nothing_in_common_or_a_bad_pair_are_refused() {
    let (_a, a) = digest("run-host-pfifo-6rounds");
    let (_b, b) = digest("run-uml-sparse-flows");
    match diff(&a, &b, &[]) {
        Err(DiffError::NothingInCommon { .. }) => {}
        other => panic!("{other:?}"),
    }
    match diff(&a, &a, &[("pie".into(), "pfifo limit 256".into())]) {
        Err(DiffError::BadPair(..)) => {}
        other => panic!("{other:?}"),
    }
}

/// The committed sweep with every round's goodput halved: run B of the
/// sweep figures' tests (docs/usage.md, "Two runs").
fn halved_goodput_sweep() -> (TempDir, RunDigest) {
    let mut v: serde_json::Value =
        serde_json::from_slice(&fixture_json_of("run-host-pfifo-sweep")).unwrap();
    for s in v["scenarios"].as_array_mut().unwrap() {
        for d in s["directions"].as_array_mut().unwrap() {
            let g = d["goodput_mbps"].as_f64().unwrap();
            d["goodput_mbps"] = serde_json::json!(g / 2.0);
        }
    }
    let dir = TempDir::new("sweep-halved");
    std::fs::write(
        dir.path().join("results.json"),
        serde_json::to_vec(&v).unwrap(),
    )
    .unwrap();
    let d = RunDigest::read(dir.path()).unwrap();
    (dir, d)
}

/// The figures of a diff written as `orchestrator diff --out` writes them.
fn write_figures(d: &netlab_report::diff::RunDiff, out: &Path) -> Vec<(String, String)> {
    let figs = d.figures().unwrap();
    for (name, svg) in &figs {
        std::fs::write(out.join(name), svg).unwrap();
    }
    std::fs::write(out.join("diff.md"), d.markdown()).unwrap();
    std::fs::write(out.join("diff.html"), d.html().unwrap()).unwrap();
    figs
}

/// An SVG's text, each element's words joined by one space (a legend
/// entry or title may wrap over several elements).
fn svg_text(svg: &str) -> String {
    let mut out = Vec::new();
    for part in svg.split("<text").skip(1) {
        let body = part.split_once('>').map_or("", |x| x.1);
        let body = body.split("</text>").next().unwrap_or("");
        out.extend(body.split_whitespace().map(str::to_string));
    }
    out.join(" ").replace("&apos;", "'")
}

/// `fill="#RRGGBB"` of the run's first arm, as its report colours it.
const PFIFO_RED: &str = "#C83C28";

#[test]
fn a_sweep_diff_draws_each_metric_against_each_axis_with_both_runs() {
    let (_a, a) = digest("run-host-pfifo-sweep");
    let (_b, b) = halved_goodput_sweep();
    let d = diff(&a, &b, &[]).unwrap();
    assert_eq!(d.pairs.len(), 4, "one arm at 4 points");
    let sw = d.sweep.as_ref().expect("both runs swept");
    assert!(sw.one_way, "both runs carry fates");
    let out = TempDir::new("sweep-diff-out");
    let figs = write_figures(&d, out.path());
    if std::env::var_os("NETLAB_KEEP_DIFF").is_some() {
        for (n, svg) in &figs {
            std::fs::write(std::env::temp_dir().join(n), svg).unwrap();
        }
    }
    let md = std::fs::read_to_string(out.path().join("diff.md")).unwrap();
    let html = std::fs::read_to_string(out.path().join("diff.html")).unwrap();
    for metric in ["delay-p50", "delay-p99", "goodput", "loss"] {
        for axis in ["rate", "flows"] {
            let f = format!("diff-sweep-{metric}-vs-{axis}.svg");
            assert!(out.path().join(&f).is_file(), "{f} not written");
            assert!(md.contains(&format!("]({f})")), "diff.md links {f}");
            assert!(
                html.contains(&format!("href=\"{f}\"")),
                "diff.html links {f}"
            );
            let svg = &figs.iter().find(|x| x.0 == f).unwrap().1;
            // Both runs in the arm's colour: A's summaries filled, B's
            // rings; 2 points per panel, 2 panels.
            let text = svg_text(svg);
            assert!(
                text.contains("pfifo run A: mean of the rounds (fewer than 3) (solid, ●)"),
                "{f}: {text}"
            );
            assert!(
                text.contains("pfifo run B: mean of the rounds (fewer than 3) (dashed, ○)"),
                "{f}: {text}"
            );
            let filled = svg.matches(&format!("fill=\"{PFIFO_RED}\"")).count();
            assert!(filled >= 4, "{f}: A's 4 summaries ({filled})");
            let rings = svg
                .lines()
                .filter(|l| {
                    l.contains("<circle") && l.contains(PFIFO_RED) && l.contains("fill=\"none\"")
                })
                .count();
            assert!(rings >= 4, "{f}: B's 4 summaries ({rings})");
            assert!(text.contains("range of the point's rounds"), "{f}");
        }
    }
    // Halved goodput: B's line lies below A's, so the goodput figure's y
    // axis spans both (≈ 0.65 to 19.1 Mbit/s: drawn log).
    let g = d.changes("goodput");
    assert!(g.is_empty(), "2 vs 2 rounds claim no change");
    // Each pair's goodput per round, both runs on one axis.
    for k in 1..=4 {
        let f = format!("diff-{k:02}-goodput.svg");
        assert!(out.path().join(&f).is_file(), "{f} not written");
        assert!(md.contains(&format!("]({f})")), "diff.md links {f}");
        let svg = &figs.iter().find(|x| x.0 == f).unwrap().1;
        let text = svg_text(svg);
        assert!(
            text.contains("A: 2 rounds") && text.contains("B: 2 rounds"),
            "{f}: {text}"
        );
        assert!(
            text.contains("(mean "),
            "{f}: fewer than 3 rounds: their mean"
        );
    }
}

/// The sweep fixture with its second round's scenarios left out.
fn sweep_round_one_only() -> (TempDir, RunDigest) {
    let mut run: serde_json::Value =
        serde_json::from_slice(&fixture_json_of("run-host-pfifo-sweep")).unwrap();
    let scenarios = run["scenarios"].as_array_mut().unwrap();
    scenarios.retain(|s| s["round"] == 1);
    assert_eq!(scenarios.len(), 4, "one scenario per point");
    let dir = TempDir::new("sweep-round-1");
    std::fs::write(
        dir.path().join("results.json"),
        serde_json::to_vec(&run).unwrap(),
    )
    .unwrap();
    let d = RunDigest::read(dir.path()).unwrap();
    (dir, d)
}

#[test]
fn a_sweep_diff_draws_each_runs_own_rounds_per_point() {
    let (_a, a) = digest("run-host-pfifo-sweep");
    let (_b, b) = sweep_round_one_only();
    let d = diff(&a, &b, &[]).unwrap();
    let sw = d.sweep.as_ref().unwrap();
    let p = sw.panels(netlab_report::diff::DiffMetric::Goodput, 0);
    assert_eq!(p.len(), 2, "one panel per flows value");
    for panel in &p {
        assert_eq!(panel.series.len(), 2, "A and B");
        let (sa, sb) = (&panel.series[0], &panel.series[1]);
        assert_eq!((sa.run, sb.run), (0, 1));
        assert_eq!(sa.points.len(), sb.points.len(), "the same points");
        for (pa, pb) in sa.points.iter().zip(&sb.points) {
            assert_eq!(pa.x, pb.x);
            // A: this point's 2 rounds; B: round 1 alone, A's first.
            assert_eq!(pa.summary.rounds.len(), 2, "A's 2 rounds");
            assert_eq!(pb.summary.rounds, pa.summary.rounds[..1], "B: round 1");
        }
    }
    // A run without a sweep has no sweep figures.
    let (_c, c) = digest("run-uml-3rounds-fates");
    let d = diff(&c, &c, &[]).unwrap();
    assert!(d.sweep.is_none());
    assert!(d.figure_files().iter().all(|(f, _)| !f.contains("sweep")));
    let figs = d.figures().unwrap();
    let g = figs.iter().find(|x| x.0 == "diff-01-goodput.svg").unwrap();
    let text = svg_text(&g.1);
    assert!(
        text.contains("A: 3 rounds, median"),
        "3 rounds: the median: {text}"
    );
}

/// A shard folder of `header`'s run holding `scenarios`, as `run --shard
/// K/2` leaves it (results.json and one file per scenario).
fn shard(
    dir: &Path,
    header: &netlab_results::Results,
    scenarios: &[netlab_results::ScenarioResult],
    k: u32,
) -> std::path::PathBuf {
    let out = dir.join(format!("shard-{k}"));
    std::fs::create_dir_all(&out).unwrap();
    let mut files = netlab_results::ScenarioFiles::create(&out).unwrap();
    for s in scenarios {
        files.push(s.clone()).unwrap();
    }
    let h = netlab_results::Results {
        shard: Some(netlab_results::ShardRecord {
            k,
            n: 2,
            units_total: 2,
            plan_indices: scenarios.iter().map(|s| s.index).collect(),
        }),
        run_id: format!("shard{k}"),
        started_utc: format!("2026-12-0{}T10:00:00.000Z", 3 + k),
        finished_utc: format!("2026-12-0{}T10:01:00.000Z", 3 + k),
        scenarios: Vec::new(),
        ..header.clone()
    };
    files.write_results(&h, &out.join("results.json")).unwrap();
    out
}

/// The committed sweep, split into two shards by the results crate's own
/// store (the second shard's scenarios as if another machine ran them)
/// and merged by `orchestrator merge`'s library (crates/results/src/merge.rs),
/// diffed against the run as one machine ran it: the same experiment,
/// and nothing moved; the setup differs in the machine alone, and the
/// run lines in their ids and times (docs/usage.md, "Two runs").
#[test]
fn a_merged_run_is_the_same_experiment_as_the_one_run_apart_from_machine_and_times() {
    let dir = TempDir::new("merged-vs-one");
    let one = dir.path().join("one");
    std::fs::create_dir_all(&one).unwrap();
    std::fs::write(
        one.join("results.json"),
        fixture_json_of("run-host-pfifo-sweep"),
    )
    .unwrap();
    let whole = netlab_results::Results::read(&one.join("results.json")).unwrap();
    assert_eq!(whole.scenarios.len(), 8);
    let mut second = whole.scenarios[4..].to_vec();
    for s in &mut second {
        let r = s.ran_on.as_mut().expect("the fixture says where it ran");
        r.hostname = "node2".into();
        r.cpu_model = "Other CPU".into();
        r.started_utc = "2026-12-05T10:00:00.000Z".into();
    }
    let header = netlab_results::Results {
        scenarios: Vec::new(),
        ..whole.clone()
    };
    let s1 = shard(dir.path(), &header, &whole.scenarios[..4], 1);
    let s2 = shard(dir.path(), &header, &second, 2);
    let merged = dir.path().join("merged");
    let mut quiet = |_: String| {};
    let m = netlab_results::merge::check_folders(&merged, &[s1, s2], false, &mut quiet)
        .unwrap()
        .write(&mut quiet)
        .unwrap();
    m.files.remove_files().unwrap();

    let a = RunDigest::read(&one).unwrap();
    let b = RunDigest::read(&merged).unwrap();
    let d = diff(&a, &b, &[]).unwrap();
    assert_eq!(d.same_experiment, Some(true));
    assert!(d
        .headline()
        .iter()
        .any(|l| l == "the same experiment (content hash)"));
    // The setup: the machine, and nothing else.
    let keys: Vec<&str> = d.setup_differs.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(keys, ["machine.cpu"], "{:?}", d.setup_differs);
    assert_eq!(d.setup_differs[0].a, "AMD EPYC");
    assert_eq!(d.setup_differs[0].b, "AMD EPYC | Other CPU");
    // The runs: one, and one merged from both shards, at other times.
    assert!(
        d.runs[0].starts_with("run 7d6d8c, 2026-12-03T07:16:01"),
        "{}",
        d.runs[0]
    );
    assert!(
        d.runs[1].contains("2026-12-04T10:00:00.000Z – 2026-12-05T10:01:00.000Z")
            && d.runs[1].ends_with("merged from 2 folder(s) (shards 1/2, 2/2)"),
        "{}",
        d.runs[1]
    );
    let md = d.markdown();
    assert!(md.contains("merged from 2 folder(s)"), "{md}");
    // Every arm and point in both, every round the same.
    assert_eq!(d.pairs.len(), 4);
    assert!(d.only_a.is_empty() && d.only_b.is_empty());
    for p in &d.pairs {
        assert_eq!(p.rounds, (2, 2));
        for m in &p.metrics {
            assert_eq!(m.a_rounds, m.b_rounds, "{}", m.sentence);
            assert_eq!(m.change, None, "{}", m.sentence);
        }
    }
    assert!(d
        .headline()
        .iter()
        .any(|l| l == "no detectable change in any metric of any arm both runs have"));
}

/// A gate cannot pass by accident: a metric `--fail-on-change` names that
/// the diff could not compute (the loss, when run A has no fates) or that
/// no round could move (fewer than 3 rounds a run) is named as unchecked,
/// with why, and `orchestrator diff` exits 2 on it.
#[test]
fn a_gate_on_a_metric_that_cannot_be_computed_is_unchecked_and_says_why() {
    let (_a, a) = digest("run-uml-3rounds");
    let (_b, b) = digest("run-uml-3rounds-fates");
    let d = diff(&a, &b, &[]).unwrap();
    assert_eq!(d.fates, [false, true]);
    let loss = ChangeGate::parse("loss").unwrap();
    assert!(d.beyond(std::slice::from_ref(&loss)).is_empty());
    let why = d.unchecked(&[loss]);
    assert_eq!(why.len(), 2, "one line per arm: {why:?}");
    for w in &why {
        assert!(
            w.starts_with("--fail-on-change loss cannot be checked for "),
            "{w}"
        );
        assert!(w.contains("run A has none"), "{w}");
    }
    // Goodput is computed in both and 3 rounds a run can move it: checked.
    assert!(d
        .unchecked(&[ChangeGate::parse("goodput").unwrap()])
        .is_empty());
    // Two rounds a run: no change can ever be claimed, so the gate is
    // unchecked, never passed.
    let (_g, g) = digest("run-uml-rtt-fairness-quick");
    let two = diff(&g, &g, &[]).unwrap();
    let why = two.unchecked(&[ChangeGate::parse("goodput").unwrap()]);
    assert!(!why.is_empty());
    assert!(
        why.iter()
            .all(|w| w.contains("2 vs 2 rounds: with fewer than 3 a run no change can be claimed")),
        "{why:?}"
    );
}

/// diff-01-cdf.svg compares like with like: run A without fates and run B
/// with them are both drawn as round trips (never A's RTT against B's
/// one-way delay on one axis).
#[test]
fn the_cdf_draws_one_quantity_for_both_runs() {
    let (_a, a) = digest("run-uml-3rounds");
    let (_b, b) = digest("run-uml-3rounds-fates");
    let d = diff(&a, &b, &[]).unwrap();
    for p in &d.pairs {
        assert_eq!(p.delays[0].axis, p.delays[1].axis, "{}", p.arm_a);
        assert_eq!(p.delays[0].axis, "probe RTT");
    }
    let (_c, c) = digest("run-uml-3rounds-fates");
    let same = diff(&b, &c, &[]).unwrap();
    assert!(same
        .pairs
        .iter()
        .all(|p| p.delays[0].axis == "one-way A→B delay"));
}

/// A run diffed against itself is named as one run; each pair's states
/// are said once per run (not "A — A: …"); diff.json's numbers are
/// numbers with a bound flag, in a versioned shape.
#[test]
fn a_run_against_itself_is_named_and_diff_json_holds_numbers() {
    let (_a, a) = digest("run-uml-3rounds");
    let (_b, b) = digest("run-uml-3rounds-fates");
    let d = diff(&a, &a, &[]).unwrap();
    assert!(d.same_run);
    assert!(
        d.headline()[0].starts_with("A and B are one run (run "),
        "{:?}",
        d.headline()
    );
    let md = d.markdown();
    assert!(!md.contains("A — A:") && !md.contains("B — B:"), "{md}");
    assert!(md.contains("States: A — 1 round ≈ "), "{md}");
    let other = diff(&a, &b, &[]).unwrap();
    assert!(!other.same_run);
    assert!(!other.headline()[0].starts_with("A and B are one run"));
    let json: serde_json::Value = serde_json::to_value(&other).unwrap();
    assert_eq!(json["format"], "netlab-diff");
    assert_eq!(json["version"], 2);
    let m = &json["pairs"][0]["metrics"][0];
    assert_eq!(m["key"], "p50");
    // pfifo's RTT p50 in run A: every round at the timeout, a bound.
    assert_eq!(m["a_rounds"][0]["value"], 1000.0);
    assert_eq!(m["a_rounds"][0]["bound"], "at_least");
    assert!(m["shift"]["value"].is_number(), "{m}");
    assert!(m["shift"]["bound"].is_string(), "{m}");
    for v in json["pairs"][0]["metrics"].as_array().unwrap() {
        for k in ["a_rounds", "b_rounds"] {
            for x in v[k].as_array().unwrap() {
                assert!(x["value"].is_number() || x["bound"] == "unknown", "{x}");
            }
        }
    }
}
