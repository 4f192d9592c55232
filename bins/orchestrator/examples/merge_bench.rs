//! What `orchestrator merge` costs as scenarios grow (issue 22,
//! docs/scale.md). Builds shard folders holding `--scenarios` synthetic
//! scenarios, each a copy of the one real scenario in the committed fixture
//! `fixtures/orchestrator/shard/results.json` (its plan index, round and
//! seed changed; a plan of that many rounds of its one arm), split over
//! `--shards` folders as `run --shard K/N` would, then runs the real
//! `orchestrator merge` on them and prints its wall time and peak RSS
//! (getrusage of the child: the kernel's high-water mark, nothing missed
//! between samples).
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
//! (default a fresh folder in the temp dir) and removed at the end.

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

fn main() {
    let args: Vec<String> = std::env::args().collect();
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
    let t = Instant::now();
    let status = Command::new(&bin)
        .arg("merge")
        .arg(&out)
        .args(&dirs)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status()
        .unwrap_or_else(|e| panic!("running {}: {e}", bin.display()));
    let wall = t.elapsed();
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
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
        status.code(),
        wall.as_secs_f64(),
        wall.as_secs_f64() * 1e3 / f64::from(scenarios),
        usage.max_rss() as f64 / 1024.0,
        merged as f64 / 1e6
    );
    let _ = std::fs::remove_dir_all(&dir);
    if !status.success() {
        std::process::exit(1);
    }
}
