//! FQ-CoDel's sparse-flow boundary in the guest kernel (the model
//! is docs/models.md's model 2): a two-point sweep of
//! experiments/sparse_flows_quick.toml, N = 4 bulk uploads (one round over
//! them, W ≈ 9.8 ms, is shorter than the probe's T = 20 ms) and N = 12
//! (W ≈ 29.2 ms, between T and 2T). The model says every probe packet of
//! the first point is served from `new_flows` and about every other one of
//! the second, which waits about W − T ≈ 9.3 ms; this test checks the
//! qdisc's own counter and the probe's one-way delays fall on those sides.
//! The only test in its file, so no other guest shares the machine with
//! its window.

use std::time::Duration;

use netlab_experiment::file::TimelineFile;
use serde_json::Value;

mod support;

use support::*;

/// The window's bounds in s from t0: baseline + warm-up, plus measure.
const WINDOW: (f64, f64) = (4.0, 10.0);

/// How late a sender may connect after its mark, s: a release is a
/// channel message to a waiting thread.
const MAX_START_LAG_S: f64 = 0.5;

/// A one-way delay past this waited for more than a bulk packet or two
/// (one 1,514-byte packet at 5 Mbit/s is 2.4 ms).
const WAITED_MS: f64 = 6.0;

/// fq_codel's `new_flow_count` in the sample nearest `t` (s from t0).
fn new_flow_count_at(samples: &[Value], t: f64) -> (f64, u64) {
    let s = samples
        .iter()
        .min_by(|a, b| {
            let da = (a["t_s"].as_f64().unwrap() - t).abs();
            let db = (b["t_s"].as_f64().unwrap() - t).abs();
            da.total_cmp(&db)
        })
        .expect("qdisc samples");
    let n = s["records"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|r| {
            (r["xstats"]["type"] == "fq_codel").then(|| r["xstats"]["new_flow_count"].as_u64())
        })
        .flatten()
        .unwrap_or_else(|| panic!("no fq_codel xstats in the sample at {t} s: {s}"));
    (s["t_s"].as_f64().unwrap(), n)
}

/// (bulk flows, new_flow_count per probe packet sent in the window, the
/// share of the window's probe packets whose one-way A→B delay passed
/// `WAITED_MS`) of one scenario.
fn point(s: &Value) -> Result<(usize, f64, f64), String> {
    assert!(
        s["error"].is_null(),
        "scenario {}: {}",
        s["index"],
        s["error"]
    );
    let flows = s["flows"].as_array().unwrap().len();
    // Every sender connects at its mark: it was made ready before t0 (a
    // sender made at its mark took 0.2-1 s a flow in the guest, and twelve
    // planned at 1 s started up to 3.8 s after t0 on a quiet machine; made
    // ready, 24 connected 3-18 ms after it).
    let lags: Vec<f64> = s["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["tcp"]["start_s"].as_f64().unwrap() - f["start_s"].as_f64().unwrap())
        .collect();
    let late = lags.iter().copied().fold(0.0_f64, f64::max);
    eprintln!("N = {flows}: each sender connected this long after its mark, s: {lags:.3?}");
    if late > MAX_START_LAG_S {
        return Err(format!(
            "N = {flows}: a sender started {late:.2} s after its mark"
        ));
    }
    let up = s["qdiscs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["direction"] == "up")
        .expect("the upload's qdisc");
    let samples = up["samples"].as_array().unwrap();
    let (t_a, n_a) = new_flow_count_at(samples, WINDOW.0);
    let (t_b, n_b) = new_flow_count_at(samples, WINDOW.1);
    // The most flow queues fq_codel listed at once in the window: N + 1
    // in most runs, N when the probe shares a bulk flow's queue (their
    // 5-tuples hashed to one of the 1,024 buckets: about N/1024 per
    // scenario), and N too in 2 of 14 sparse_flows_quick scenarios whose
    // probe behaved as the model says (the 100 ms samples fall in step
    // with the 20 ms probe). A shared queue is never empty, so the probe
    // is never a new flow and waits behind the bulk flow's packets (one
    // attempt here read 0.0 new flows per probe packet and 100 % waiting
    // at N = 12, before this count was printed).
    let listed = samples
        .iter()
        .filter(|smp| smp["t_s"].as_f64().is_some_and(|t| (t_a..t_b).contains(&t)))
        .flat_map(|smp| smp["records"].as_array().unwrap().iter())
        .filter(|r| r["xstats"]["type"] == "fq_codel")
        .filter_map(|r| {
            Some(r["xstats"]["new_flows_len"].as_u64()? + r["xstats"]["old_flows_len"].as_u64()?)
        })
        .max()
        .unwrap_or(0);
    eprintln!("N = {flows}: at most {listed} flow queues listed at once in the window");
    let iso = &s["iso_probe"];
    let in_window: Vec<&Value> = iso["log"]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| {
            q["send_s"]
                .as_f64()
                .is_some_and(|t| (t_a..t_b).contains(&t))
        })
        .collect();
    let sent = in_window.len();
    // 300 slots; a guest starved of CPU misses some (one CI run sent 180).
    if sent < 150 {
        return Err(format!(
            "{sent} probe packets sent between {t_a} and {t_b} s (300 slots)"
        ));
    }
    // A packet that never arrived waited too (none did in any run here).
    let waited = in_window
        .iter()
        .filter(|q| q["up_ms"].as_f64().is_none_or(|d| d > WAITED_MS))
        .count();
    let per_packet = (n_b - n_a) as f64 / sent as f64;
    // A sparse probe is listed only for the instant its packet waits, so
    // the count says something only when it never was a new flow.
    if per_packet < 0.1 && listed <= flows as u64 {
        return Err(format!(
            "N = {flows}: {per_packet:.3} new flows per probe packet and at most {listed} flow queues listed at once: \
             as if the probe shared a bulk flow's queue (a hash collision)"
        ));
    }
    Ok((flows, per_packet, waited as f64 / sent as f64))
}

/// Runs the two points once and says whether each falls on the model's
/// side: `Err` names the one that did not.
fn run_two_points(attempt: u32) -> Result<(), String> {
    let out = OutDir::new(&format!("sparse{attempt}"));
    let mut f = experiment_file("sparse_flows_quick");
    f.rounds = Some(1);
    f.timeline = Some(TimelineFile {
        baseline: Some("1s".into()),
        warmup: Some("3s".into()),
        measure: Some("6s".into()),
    });
    f.sweep.as_mut().unwrap().flows = Some(vec![4, 12]);
    run_experiment(&out, &f, Duration::from_secs(240))?;
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.0.join("results.json")).unwrap())
            .unwrap();
    let scenarios = r["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 2);
    let (few, many) = (point(&scenarios[0])?, point(&scenarios[1])?);
    eprintln!(
        "attempt {attempt}: N, new_flow_count per probe packet, share waited > {WAITED_MS} ms: {few:?} {many:?}"
    );
    assert_eq!((few.0, many.0), (4, 12));
    // Below N* (8.3) every probe packet starts a new flow (measured 1.00
    // in sparse_flows_quick); at N = 12 about every other one does
    // (measured 0.50). The counter also counts a bulk flow that emptied
    // and came back: a guest starved of CPU by a busy host read 1.05 at
    // N = 4, and a quiet one 0.74 at N = 12 (with 46 % of the probe's
    // packets waiting), so N = 12 is checked against N = 4.
    // Sparse: a packet waits for about one bulk packet's transmission, so
    // hardly any waits past 6 ms (the quick run's p99 was 3.0-3.4 ms, and
    // 0 of 351 waited; 2-7 % did beside three busy builds here). Beyond
    // N*: about half wait W - T = 9.3 ms more (the quick run's p50 was 3.1
    // and 7.2 ms, its p99 9.7-10.0 ms).
    let checks = [
        (
            few.1 > 0.9 && few.1 < 1.25,
            "N = 4: new flows per probe packet",
        ),
        (
            many.1 > 0.3 && many.1 < few.1 - 0.2,
            "N = 12: new flows per probe packet",
        ),
        (few.2 < 0.15, "N = 4: share waited"),
        (many.2 > 0.25, "N = 12: share waited"),
    ];
    match checks.iter().find(|(ok, _)| !ok) {
        None => Ok(()),
        Some((_, what)) => Err(format!("{what} off the model's side: {few:?} {many:?}")),
    }
}

/// One attempt more when the first falls off or a run fails: in one CI
/// run of 2 the guest was starved of CPU (N = 4 read 1.17 new flows per
/// probe packet and 22 % of its packets waiting; the same run's rrul test
/// saw an 80 ms baseline p95), and once here the twelve senders started
/// so late (3.3 to 11.7 s after t0, where 1.1 to 3.8 s was usual before
/// the senders were made ready before t0) that the last three found their
/// receivers closed. A model that is wrong fails both attempts.
#[test]
fn guest_sparse_flow_boundary_falls_where_the_model_puts_it() {
    guest_with_retry(
        "guest_sparse_flow_boundary_falls_where_the_model_puts_it",
        &["veth", "sch_tbf", "sch_fq_codel"],
        run_two_points,
    );
}
