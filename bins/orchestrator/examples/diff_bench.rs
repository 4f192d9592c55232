//! What `orchestrator diff` costs on two large runs (docs/scale.md §3.1).
//! Builds two results folders of `--scenarios` synthetic scenarios each
//! (default 1000), as merge_bench.rs does: copies of the one real
//! scenario of the committed fixture `fixtures/orchestrator/shard/results.json`
//! (its plan index, round and seed changed; a plan of that many rounds of
//! its one arm). Run B's goodput is scaled by 0.9 and its kernel release
//! renamed, so the diff has a setup item and a change to say. Then, each
//! in a child process of its own so that each high-water mark is its own:
//!
//! - the baseline: reading one run (`RunDigest::read` of A's
//!   results.json), what any report of that run costs at least;
//! - the diff: reading both runs, diffing them and writing diff.md,
//!   diff.html, diff.json and every figure, as `orchestrator diff --out`
//!   does.
//!
//! Each child reads its wall time and its peak RSS (VmHWM in
//! /proc/self/status) and prints them; the bench prints both, the diff's
//! ratio to the baseline, and whether the targets (under 10 s, under
//! 100 MB peak RSS) are met. It is a measurement, not a timed test: it
//! exits 0 whether or not a target is met (1 only when the diff fails).
//!
//! ```sh
//! cargo build --release -p orchestrator --examples
//! target/release/examples/diff_bench --scenarios 1000
//! ```
//!
//! The folders are made under `--dir` (default a fresh folder in the temp
//! dir) and removed at the end (`--keep` keeps them).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use netlab_report::diff::{diff, RunDigest};
use serde_json::Value;

/// Wall time the diff of two 1000-scenario runs must stay under, s.
const TARGET_WALL_S: f64 = 10.0;
/// Peak RSS it must stay under, MB.
const TARGET_PEAK_MB: f64 = 100.0;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// SplitMix64, as the plan seeds scenarios (docs/method.md §11.7).
fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// This process' peak RSS so far, kB (VmHWM in /proc/self/status).
fn vm_hwm_kb() -> u64 {
    netlab_os::proc::MemoryUse::own().map_or(0, |m| m.peak_kb)
}

/// A results folder `dir` of `n` copies of the fixture's scenario; run B
/// (`b`) with its goodput scaled by 0.9 and another kernel release.
fn make_run(dir: &Path, n: u32, b: bool) -> u64 {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/orchestrator/shard/results.json");
    let mut header: Value = serde_json::from_slice(&std::fs::read(&fixture).unwrap()).unwrap();
    let mut template = header["scenarios"][0].clone();
    if let Some(ecn) = template.get_mut("ecn").and_then(Value::as_object_mut) {
        ecn.remove("evidence_pcap");
        ecn.remove("headers_pcap");
    }
    if b {
        if let Some(dirs) = template["directions"].as_array_mut() {
            for d in dirs {
                if let Some(g) = d["goodput_mbps"].as_f64() {
                    d["goodput_mbps"] = Value::from(g * 0.9);
                }
            }
        }
    }
    let obj = header.as_object_mut().unwrap();
    obj.insert("scenarios".into(), Value::Array(Vec::new()));
    obj.remove("experiment_hash");
    obj.remove("shard");
    obj["experiment"]["rounds"] = Value::from(n);
    obj["run_id"] = Value::from(if b { "benchB" } else { "benchA" });
    if b {
        let release = format!("{}-b", header["kernel"]["release"].as_str().unwrap_or(""));
        header["kernel"]["release"] = Value::from(release);
    }
    let seed = header["experiment"]["seed"].as_u64().unwrap_or(1);
    std::fs::create_dir_all(dir).unwrap();
    // The header in netlab's own key order (schema_version first), so the
    // file streams one scenario at a time as a run's results.json does.
    let typed: netlab_results::Results = serde_json::from_value(header).expect("a results header");
    let head = serde_json::to_string_pretty(&typed).unwrap();
    let key = "\n  \"scenarios\": [";
    let at = head.find(key).expect("a scenarios key") + key.len();
    let path = dir.join("results.json");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    f.write_all(&head.as_bytes()[..at]).unwrap();
    for i in 1..=n {
        let mut s = template.clone();
        s["index"] = Value::from(i);
        s["round"] = Value::from(i);
        s["seed"] = Value::from(splitmix64(seed ^ u64::from(i)));
        f.write_all(if i == 1 { b"\n" } else { b",\n" }).unwrap();
        serde_json::to_writer(&mut f, &s).unwrap();
    }
    f.write_all(b"\n  ").unwrap();
    f.write_all(&head.as_bytes()[at..]).unwrap();
    drop(f);
    std::fs::metadata(&path).unwrap().len()
}

/// `--child load A` or `--child diff A B OUT`: does it, then prints its
/// wall time and VmHWM.
fn child(args: &[String]) -> ! {
    let t = Instant::now();
    let said = match args[0].as_str() {
        "load" => {
            let a = RunDigest::read(Path::new(&args[1])).expect("run A reads");
            format!("scenarios {}", a.input.scenarios.len())
        }
        "diff" => {
            let a = RunDigest::read(Path::new(&args[1])).expect("run A reads");
            let b = RunDigest::read(Path::new(&args[2])).expect("run B reads");
            let d = diff(&a, &b, &[]).expect("the runs have an arm in common");
            drop((a, b));
            let out = Path::new(&args[3]);
            std::fs::create_dir_all(out).unwrap();
            std::fs::write(out.join("diff.md"), d.markdown()).unwrap();
            std::fs::write(out.join("diff.html"), d.html().unwrap()).unwrap();
            std::fs::write(
                out.join("diff.json"),
                serde_json::to_string_pretty(&d).unwrap(),
            )
            .unwrap();
            let figs = d.figures().unwrap();
            for (name, svg) in &figs {
                std::fs::write(out.join(name), svg).unwrap();
            }
            for l in d.headline() {
                eprintln!("diff_bench: headline: {l}");
            }
            format!("figures {}", figs.len())
        }
        other => panic!("--child {other}"),
    };
    println!("wall_s {}", t.elapsed().as_secs_f64());
    println!("vmhwm_kb {}", vm_hwm_kb());
    println!("{said}");
    std::process::exit(0)
}

/// What one child cost.
struct Cost {
    wall_s: f64,
    peak_kb: u64,
    said: String,
}

fn run_child(args: &[&std::ffi::OsStr]) -> Option<Cost> {
    let me = std::env::current_exe().expect("the bench's own path");
    let out = Command::new(me)
        .arg("--child")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .expect("running the bench's child");
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let field = |k: &str| text.lines().find_map(|l| l.strip_prefix(k)).map(str::trim);
    Some(Cost {
        wall_s: field("wall_s ")?.parse().ok()?,
        peak_kb: field("vmhwm_kb ")?.parse().ok()?,
        said: text.lines().last().unwrap_or("").to_string(),
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        child(&args[2..]);
    }
    let n: u32 = arg(&args, "--scenarios").map_or(1000, |v| v.parse().expect("--scenarios N"));
    assert!((1..=1000).contains(&n), "the plan caps rounds at 1000");
    let dir = arg(&args, "--dir").map_or_else(
        || std::env::temp_dir().join(format!("netlab-diff-bench-{}", std::process::id())),
        PathBuf::from,
    );
    let _ = std::fs::remove_dir_all(&dir);
    let t0 = Instant::now();
    let (a, b, out) = (dir.join("a"), dir.join("b"), dir.join("diff"));
    let bytes = make_run(&a, n, false) + make_run(&b, n, true);
    println!(
        "diff_bench: two runs of {n} scenarios, {:.1} MB of results.json in all (made in {:.1} s)",
        bytes as f64 / 1e6,
        t0.elapsed().as_secs_f64()
    );
    let base = run_child(&["load".as_ref(), a.as_os_str()]);
    let d = run_child(&[
        "diff".as_ref(),
        a.as_os_str(),
        b.as_os_str(),
        out.as_os_str(),
    ]);
    if let Some(base) = &base {
        println!(
            "diff_bench: baseline (reading run A alone, {}): wall {:.2} s, peak RSS {:.1} MB",
            base.said,
            base.wall_s,
            base.peak_kb as f64 / 1024.0
        );
    }
    let ok = match &d {
        Some(d) => {
            let mb = d.peak_kb as f64 / 1024.0;
            println!(
                "diff_bench: diff (reading both, diffing, writing diff.md, diff.html, diff.json and {}): \
                 wall {:.2} s, peak RSS {mb:.1} MB",
                d.said, d.wall_s
            );
            if let Some(base) = &base {
                println!(
                    "diff_bench: diff / baseline: wall {:.2}×, peak RSS {:.2}×",
                    d.wall_s / base.wall_s.max(1e-9),
                    d.peak_kb as f64 / (base.peak_kb as f64).max(1.0)
                );
            }
            let met = |yes: bool| if yes { "met" } else { "NOT met" };
            println!(
                "diff_bench: target wall < {TARGET_WALL_S} s: {}; target peak RSS < {TARGET_PEAK_MB} MB: {}",
                met(d.wall_s < TARGET_WALL_S),
                met(mb < TARGET_PEAK_MB)
            );
            true
        }
        None => {
            eprintln!("diff_bench: the diff failed");
            false
        }
    };
    if args.iter().any(|a| a == "--keep") {
        println!("diff_bench: kept {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    if !ok {
        std::process::exit(1);
    }
}
