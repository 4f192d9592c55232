//! What `orchestrator merge` and `orchestrator report` cost as scenarios
//! grow (docs/scale.md §3). Builds shard folders
//! holding `--scenarios` synthetic scenarios, each a copy of the one real
//! scenario in the committed fixture
//! `fixtures/orchestrator/shard/results.json` (its plan index, round and
//! seed changed; a plan of that many rounds of its one arm), split over
//! `--shards` folders as `run --shard K/N` would, then runs the real
//! `orchestrator merge` on them (which writes results.json, summary.md and
//! the whole report: figures, index.html, one page per scenario, the Flent
//! files), then the real `orchestrator report` on the merged folder (the
//! whole folder rendered again from results.json). It prints each one's
//! wall time and peak RSS (getrusage of a child that runs that command
//! alone: the kernel's high-water mark, nothing missed between samples),
//! and the size of index.html and of the scenario pages.
//!
//! ```sh
//! cargo build --release -p orchestrator --bins --examples
//! target/release/examples/merge_bench --scenarios 1000 --shards 10
//! target/release/examples/merge_bench --scenarios 1000 --shards 10 --layout files
//! ```
//!
//! `--layout results` (default) writes each shard as a finished run leaves
//! it (every scenario inside its results.json); `--layout files` as a
//! killed run leaves it (a results.json without scenarios and one file per
//! scenario under `scenarios/`). The folders are made under `--dir`
//! (default a fresh folder in the temp dir) and removed at the end
//! (`--keep` keeps them).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

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

/// `v` pretty printed and indented by four spaces, as a scenario stands
/// inside results.json's array.
fn element(v: &Value) -> String {
    let text = serde_json::to_string_pretty(v).expect("serialises");
    let mut out = String::from("    ");
    out.push_str(&text.replace('\n', "\n    "));
    out
}

/// What one command cost: its exit, wall time and peak RSS.
struct Cost {
    ok: bool,
    code: Option<i32>,
    wall: std::time::Duration,
    peak_kb: u64,
}

/// Runs `bin ARGS` through this program again (`--peak-rss-of`), so that
/// the command is the only child whose getrusage high-water mark is read.
fn cost_of(bin: &Path, args: &[&std::ffi::OsStr]) -> Cost {
    let me = std::env::current_exe().expect("the bench's own path");
    let t = Instant::now();
    let out = Command::new(me)
        .arg("--peak-rss-of")
        .arg(bin)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", bin.display()));
    let wall = t.elapsed();
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.trim().parse::<i64>().ok())
    };
    let code = field("exit ").map(|c| c as i32);
    Cost {
        ok: code == Some(0),
        code,
        wall,
        peak_kb: field("peak_rss_kb ").unwrap_or(0) as u64,
    }
}

/// `--peak-rss-of CMD ARGS…`: runs CMD (its output to stderr) and prints
/// its exit code and peak RSS, kB.
fn peak_rss_of(cmd: &[String]) -> ! {
    let status = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status()
        .unwrap_or_else(|e| panic!("running {}: {e}", cmd[0]));
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    println!("exit {}", status.code().unwrap_or(-1));
    println!("peak_rss_kb {}", usage.max_rss());
    std::process::exit(0)
}

/// Bytes of the files under `dir` whose names end in `ext`, and their count.
fn sizes(dir: &Path, ext: &str) -> (u64, u64, usize) {
    let mut total = 0;
    let mut largest = 0;
    let mut n = 0;
    if let Ok(d) = std::fs::read_dir(dir) {
        for e in d.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                // The report's folders (docs/report.md, "The results folder").
                let (t, l, k) = sizes(&e.path(), ext);
                total += t;
                largest = largest.max(l);
                n += k;
            } else if e.file_name().to_string_lossy().ends_with(ext) {
                let len = e.metadata().map_or(0, |m| m.len());
                total += len;
                largest = largest.max(len);
                n += 1;
            }
        }
    }
    (total, largest, n)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--peak-rss-of") {
        peak_rss_of(&args[2..]);
    }
    let scenarios: u32 =
        arg(&args, "--scenarios").map_or(1000, |v| v.parse().expect("--scenarios N"));
    let shards: u32 = arg(&args, "--shards").map_or(10, |v| v.parse().expect("--shards N"));
    let layout = arg(&args, "--layout").unwrap_or_else(|| "results".into());
    assert!(
        scenarios >= 1 && shards >= 1 && shards <= scenarios,
        "1 ≤ shards ≤ scenarios"
    );
    assert!(
        layout == "results" || layout == "files",
        "--layout results|files"
    );
    let bin = std::env::current_exe()
        .ok()
        .and_then(|p| Some(p.parent()?.parent()?.join("orchestrator")))
        .unwrap_or_else(|| PathBuf::from("orchestrator"));
    let dir = arg(&args, "--dir").map_or_else(
        || std::env::temp_dir().join(format!("netlab-merge-bench-{}", std::process::id())),
        PathBuf::from,
    );
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/orchestrator/shard/results.json");
    let mut header: Value = serde_json::from_slice(&std::fs::read(&fixture).unwrap()).unwrap();
    let mut template = header["scenarios"][0].clone();
    // The synthetic scenarios name no packet file (the fixture's one
    // evidence pcapng, 956 bytes, is the real scenario's alone).
    if let Some(ecn) = template.get_mut("ecn").and_then(Value::as_object_mut) {
        ecn.remove("evidence_pcap");
        ecn.remove("headers_pcap");
    }
    let obj = header.as_object_mut().unwrap();
    obj.insert("scenarios".into(), Value::Array(Vec::new()));
    // A plan of `scenarios` rounds of the fixture's one arm; the merge
    // computes the hash of that experiment itself.
    obj.remove("experiment_hash");
    obj["experiment"]["rounds"] = Value::from(scenarios);
    let seed = header["experiment"]["seed"].as_u64().unwrap_or(1);
    let t0 = Instant::now();
    let mut input_bytes = 0u64;
    let mut dirs = Vec::new();
    for k in 1..=shards {
        let folder = dir.join(format!("shard-{k}-of-{shards}"));
        std::fs::create_dir_all(&folder).unwrap();
        let indices: Vec<u32> = (0..scenarios)
            .filter(|u| u % shards == k - 1)
            .map(|u| u + 1)
            .collect();
        let mut h = header.clone();
        h["shard"] = serde_json::json!({
            "k": k, "n": shards, "units_total": scenarios, "plan_indices": indices,
        });
        h["run_id"] = Value::from(format!("bench{k}"));
        let elements = indices.iter().map(|&i| {
            let mut s = template.clone();
            s["index"] = Value::from(i);
            s["round"] = Value::from(i);
            s["seed"] = Value::from(splitmix64(seed ^ u64::from(i)));
            (i, element(&s))
        });
        let head = serde_json::to_string_pretty(&h).unwrap();
        let key = "\n  \"scenarios\": [";
        let at = head.find(key).expect("a scenarios key") + key.len();
        let mut f =
            std::io::BufWriter::new(std::fs::File::create(folder.join("results.json")).unwrap());
        f.write_all(&head.as_bytes()[..at]).unwrap();
        if layout == "results" {
            for (n, (_, e)) in elements.enumerate() {
                f.write_all(if n == 0 { b"\n" } else { b",\n" }).unwrap();
                f.write_all(e.as_bytes()).unwrap();
            }
            f.write_all(b"\n  ").unwrap();
        } else {
            let sdir = folder.join("scenarios");
            std::fs::create_dir_all(&sdir).unwrap();
            for (i, e) in elements {
                let p = sdir.join(format!("{i:04}.json"));
                std::fs::write(&p, e.as_bytes()).unwrap();
                input_bytes += std::fs::metadata(&p).unwrap().len();
            }
        }
        f.write_all(&head.as_bytes()[at..]).unwrap();
        drop(f);
        input_bytes += std::fs::metadata(folder.join("results.json"))
            .unwrap()
            .len();
        dirs.push(folder);
    }
    let made = t0.elapsed();
    let out = dir.join("merged");
    let mut merge_args: Vec<&std::ffi::OsStr> = vec!["merge".as_ref(), out.as_os_str()];
    merge_args.extend(dirs.iter().map(|d| d.as_os_str()));
    let merge = cost_of(&bin, &merge_args);
    let merged = std::fs::metadata(out.join("results.json")).map_or(0, |m| m.len());
    println!(
        "merge_bench: {scenarios} scenarios in {shards} shard folder(s), layout {layout}, \
         template {} bytes per scenario (fixture), input {:.1} MB (made in {:.1} s)",
        element(&template).len(),
        input_bytes as f64 / 1e6,
        made.as_secs_f64()
    );
    println!(
        "merge_bench: orchestrator merge exit {:?}: wall {:.2} s ({:.2} ms per scenario), \
         peak RSS {:.1} MB, merged results.json {:.1} MB",
        merge.code,
        merge.wall.as_secs_f64(),
        merge.wall.as_secs_f64() * 1e3 / f64::from(scenarios),
        merge.peak_kb as f64 / 1024.0,
        merged as f64 / 1e6
    );
    let report = if merge.ok {
        let report = cost_of(&bin, &["report".as_ref(), out.as_os_str()]);
        println!(
            "merge_bench: orchestrator report exit {:?}: wall {:.2} s ({:.2} ms per scenario), \
             peak RSS {:.1} MB",
            report.code,
            report.wall.as_secs_f64(),
            report.wall.as_secs_f64() * 1e3 / f64::from(scenarios),
            report.peak_kb as f64 / 1024.0,
        );
        let index = std::fs::metadata(out.join("index.html")).map_or(0, |m| m.len());
        let (pages, largest, n) = sizes(&out.join("scenarios"), ".html");
        let (svgs, _, n_svg) = sizes(&out, ".svg");
        println!(
            "merge_bench: index.html {:.3} MB; {n} scenario pages, {:.1} MB in all, the largest {:.1} kB; \
             {n_svg} SVG files, {:.1} MB",
            index as f64 / 1e6,
            pages as f64 / 1e6,
            largest as f64 / 1e3,
            svgs as f64 / 1e6,
        );
        report.ok && n == scenarios as usize
    } else {
        false
    };
    if !args.iter().any(|a| a == "--keep") {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        println!("merge_bench: kept {}", dir.display());
    }
    if !merge.ok || !report {
        std::process::exit(1);
    }
}
