//! Flent export: one `.flent.gz` per scenario (Flent data format 4) that
//! Flent's own plotting loads. The mapping is documented in docs/flent.md.
//!
//! Test name `rrul_var` with one stream per flow (`bidir_streams`, the
//! flows' labels `flow 1`, `flow 2`, …): its series are per-stream globs
//! (`TCP upload::flow 1`, `TCP download::flow 2`), so each of netlab's
//! flows has its own series, and Flent's own `TCP upload sum` adds them.
//! The stop-and-wait probe is `Ping (ms)::UDP stop-and-wait`; the
//! isochronous probe is `Ping (ms)::UDP isochronous`, written as Flent
//! writes irtt's data (each reply's RTT with `owd_up` and `owd_down`, a
//! lost packet `lost: true` and a gap). The ICMP ping of that test did not
//! run and is absent. A late reply is written at its real RTT; a request
//! never answered is a gap (`null`), counted in the metadata. Each file is
//! titled by its arm, sweep point and round, so Flent's combined plots
//! never pool two points or two arms.

use std::io::Write as _;

use netlab_utc::{format_rfc3339_micros, parse_rfc3339};
use serde_json::{json, Map, Value};

use crate::FlentError;
use netlab_analysis::records::{ProbeOutcome, Scenario};
use netlab_analysis::ReportInput;

/// Flent test whose series netlab fills.
pub(crate) const TEST_NAME: &str = "rrul_var";
/// Flent's data file format version written.
pub(crate) const FILE_FORMAT: u32 = 4;

/// `s01-round1-pfifo.flent.gz` (netlab-report puts it under `flent/`).
pub fn data_file_name(s: &Scenario) -> String {
    format!(
        "s{:02}-round{}-{}.flent.gz",
        s.index,
        s.round,
        netlab_analysis::ArmLabels::file_slug(&s.arm)
    )
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The scenario's sweep point as a title says it (`flows=16`), empty
/// without a sweep.
fn point_words(s: &Scenario) -> Option<&str> {
    let l = s.point.label.as_str();
    (!l.is_empty() && l != "default").then_some(l)
}

/// The file's TITLE: arm, sweep point and round (`fq_codel flows=16 r2`),
/// unique in the run.
pub(crate) fn title(s: &Scenario) -> String {
    match point_words(s) {
        Some(p) => format!("{} {p} r{}", s.arm, s.round),
        None => format!("{} r{}", s.arm, s.round),
    }
}

/// The file's `DATA_FILENAME`: Flent's combination plots (`box_combine`,
/// `bar_combine`) group files by it, after stripping the names' common
/// prefix and any standalone number. `netlab-<run>-pfifo-flows=2-r1.flent.gz`
/// leaves `pfifo-flows=2-r1`: one group, one box and one label per file
/// (arm, point and round), never two points in one.
pub(crate) fn combine_name(input: &ReportInput, s: &Scenario) -> String {
    let point = point_words(s).map_or_else(String::new, |p| format!("-{}", sanitize(p)));
    format!(
        "netlab-{}-{}{point}-r{}.flent.gz",
        sanitize(&input.run_id),
        netlab_analysis::ArmLabels::file_slug(&s.arm),
        s.round
    )
}

/// Name of flow `k`'s series (1-based, the figures' numbering), by its
/// direction: `TCP upload::flow 1`, `TCP download::flow 2`.
pub(crate) fn flow_series(direction: &str, k: usize) -> String {
    let dir = if direction == "down" {
        "download"
    } else {
        "upload"
    };
    format!("TCP {dir}::flow {k}")
}

/// Name of the first flow's upload series: with one flow, the upload's
/// goodput (Flent's own `TCP upload sum` adds every upload flow's).
pub fn upload_series() -> String {
    flow_series("up", 1)
}

/// Name of the stop-and-wait UDP echo series.
pub fn ping_series() -> String {
    "Ping (ms)::UDP stop-and-wait".into()
}

/// Name of the isochronous probe's series.
pub fn iso_series() -> String {
    "Ping (ms)::UDP isochronous".into()
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// Flent's own runners (its `TimeseriesAggregator`) interpolate each series
/// onto the step grid: at step `x`, linearly between the last raw point at
/// or before `x` and the first after it, when that next point is within
/// five steps (half a step before the first point); past the last point its
/// value once. `raw` is `(t, value)` in time order, `t` in s from t0.
pub(crate) fn align_like_flent(
    raw: &[(f64, f64)],
    x_values: &[f64],
    step: f64,
) -> Vec<Option<f64>> {
    let mut out: Vec<Option<f64>> = Vec::with_capacity(x_values.len());
    for &x in x_values {
        // Flent compares with the last value appended, None included.
        let last_out = out.last().copied().flatten();
        let mut max_dist = step * 5.0;
        let next = raw.iter().position(|(t, _)| *t > x);
        let (prev, (t_next, v_next), last) = match next {
            Some(0) => {
                max_dist = step * 0.5;
                (None, raw[0], false)
            }
            Some(i) => (Some(raw[i - 1]), raw[i], false),
            None => match raw.last() {
                Some(&p) => (None, p, true),
                None => {
                    out.push(None);
                    continue;
                }
            },
        };
        let v = if (x - t_next).abs() <= max_dist {
            match prev {
                None if last && (last_out == Some(round6(v_next)) || last_out.is_none()) => None,
                None => Some(v_next),
                Some((t_prev, v_prev)) => {
                    Some(v_prev + (v_next - v_prev) / (t_next - t_prev) * (x - t_prev))
                }
            }
        } else {
            None
        };
        out.push(v.map(round6));
    }
    out
}

/// Flent's window for a scenario: `(DELAY, TOTAL_LENGTH)` such that Flent's
/// cutoff `(DELAY, −DELAY)` on the step grid, which includes both ends,
/// selects exactly the bins netlab's goodput averages (the 200 ms bins
/// wholly inside the measured window `[w0, w1]`, whose values stand at their
/// ends `w0 + step … w1`): DELAY = w0 + step/2, TOTAL_LENGTH = w0 + w1 + step.
pub(crate) fn window_metadata(window: [f64; 2], step: f64) -> (f64, f64) {
    let delay = window[0] + step / 2.0;
    (round6(delay), round6(window[0] + window[1] + step))
}

/// The Flent data of one scenario, as JSON.
pub(crate) fn export(input: &ReportInput, s: &Scenario) -> Result<Value, FlentError> {
    let err = |message: String| FlentError {
        scenario: s.index,
        message,
    };
    let t0_text = s.t0_utc.as_deref().unwrap_or(&input.started_utc);
    let t0 = parse_rfc3339(t0_text)
        .ok_or_else(|| err(format!("t0 {t0_text:?} is not an RFC 3339 UTC time")))?;
    let step = s.bin_s().unwrap_or(0.2);
    let total = s.phases.end_s.max(step);
    let n = (total / step).round() as usize + 1;
    let x_values: Vec<f64> = (0..n).map(|i| round6(i as f64 * step)).collect();

    let flows = flows(s, t0, step, &x_values);
    let (ping, unanswered) = ping(s, t0, step, &x_values);
    let iso = iso(s, t0, step, &x_values);
    // Flent plots an empty series as a 0-byte image without an error:
    // refuse to write a file with no probe value or no flow at all.
    let has_value = |x: &Series| x.raw.iter().any(|v| v.get("val").is_some());
    if !has_value(&ping) && !iso.as_ref().is_some_and(has_value) {
        return Err(err(
            "no probe reply at all: Flent would draw an empty ping plot".into(),
        ));
    }
    if flows.iter().all(|(_, f)| f.bins == 0) {
        return Err(err(
            "no delivered-bytes series: Flent would draw an empty throughput plot".into(),
        ));
    }

    let mut results = Map::new();
    let mut raw = Map::new();
    for (name, f) in flows {
        results.insert(name.clone(), json!(f.aligned));
        raw.insert(name, Value::Array(f.raw));
    }
    if !s.probes.is_empty() {
        results.insert(ping_series(), json!(ping.aligned));
        raw.insert(ping_series(), Value::Array(ping.raw));
    }
    if let Some(iso) = iso {
        results.insert(iso_series(), json!(iso.aligned));
        raw.insert(iso_series(), Value::Array(iso.raw));
    }
    Ok(json!({
        "metadata": metadata(input, s, t0, step, unanswered),
        "version": FILE_FORMAT,
        "x_values": x_values,
        "results": results,
        "raw_values": raw,
    }))
}

/// One series of the file: its raw points in time order and its values
/// aligned on the step grid as Flent's runners align them.
struct Series {
    raw: Vec<Value>,
    aligned: Vec<Option<f64>>,
    /// Delivered-bytes bins behind it (the upload only).
    bins: usize,
}

/// Each flow's series, named by [`flow_series`]: delivered Mbit/s per
/// bin (at the bin's end); the first flow's carries the sender's tcp_info
/// samples under Flent's socket-stats keys (the report keeps the first
/// flow's).
fn flows(s: &Scenario, t0: f64, step: f64, x_values: &[f64]) -> Vec<(String, Series)> {
    s.flows
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let mut raw: Vec<(f64, Value)> = Vec::new();
            let mut points: Vec<(f64, f64)> = Vec::new();
            for (i, b) in f.bytes.iter().enumerate() {
                let mbps = *b as f64 * 8.0 / step / 1e6;
                let t = (i + 1) as f64 * step;
                points.push((t, mbps));
                raw.push((t, json!({ "t": round6(t0 + t), "val": round6(mbps) })));
            }
            let aligned = align_like_flent(&points, x_values, step);
            if k == 0 {
                for ti in &s.tcp_info {
                    let mut m = Map::new();
                    m.insert("t".into(), json!(round6(t0 + ti.t_s)));
                    m.insert("tcp_rtt".into(), json!(round6(ti.rtt_ms)));
                    m.insert("tcp_rtt_var".into(), json!(round6(ti.rttvar_ms)));
                    m.insert("tcp_cwnd".into(), json!(ti.cwnd));
                    if let Some(r) = ti.delivery_rate_bps {
                        m.insert("tcp_delivery_rate".into(), json!(round6(r / 1e6)));
                    }
                    if let Some(r) = ti.pacing_rate_bps {
                        m.insert("tcp_pacing_rate".into(), json!(round6(r / 1e6)));
                    }
                    raw.push((ti.t_s, Value::Object(m)));
                }
            }
            raw.sort_by(|a, b| a.0.total_cmp(&b.0));
            (
                flow_series(&f.direction, k + 1),
                Series {
                    raw: raw.into_iter().map(|x| x.1).collect(),
                    aligned,
                    bins: f.bytes.len(),
                },
            )
        })
        .collect()
}

/// The isochronous probe as Flent writes irtt's data: each answered slot
/// at its reply's arrival with its RTT (`val`), `owd_up` and `owd_down`
/// where A and B share a clock, a reply after the timeout at its real RTT
/// (`late: true`); a slot never answered is `lost: true` at its send, with
/// no value, and a gap on the step grid over its wait.
fn iso(s: &Scenario, t0: f64, step: f64, x_values: &[f64]) -> Option<Series> {
    let iso = s.iso.as_ref()?;
    let mut raw: Vec<(f64, Value)> = Vec::new();
    let mut gaps: Vec<(f64, f64)> = Vec::new();
    for r in &iso.requests {
        let Some(sent) = r.send_s else { continue };
        let rtt = match (r.outcome, r.late_rtt_ms) {
            (ProbeOutcome::Reply { rtt_ms }, _) => Some((rtt_ms, false)),
            (ProbeOutcome::Timeout, Some(late)) => Some((late, true)),
            _ => None,
        };
        match rtt {
            Some((rtt_ms, late)) => {
                let t = sent + rtt_ms / 1000.0;
                let mut v = json!({ "t": round6(t0 + t), "val": round6(rtt_ms), "seq": r.seq });
                if let Some(u) = r.up_ms {
                    v["owd_up"] = json!(round6(u));
                }
                if let Some(d) = r.down_ms {
                    v["owd_down"] = json!(round6(d));
                }
                if late {
                    v["late"] = json!(true);
                }
                raw.push((t, v));
            }
            None if matches!(r.outcome, ProbeOutcome::Timeout) => {
                raw.push((
                    sent,
                    json!({ "t": round6(t0 + sent), "seq": r.seq, "lost": true }),
                ));
                gaps.push((sent, sent + iso.timeout_s));
            }
            None => {}
        }
    }
    raw.sort_by(|a, b| a.0.total_cmp(&b.0));
    let aligned = aligned_with_gaps(&raw, &gaps, x_values, step);
    Some(Series {
        raw: raw.into_iter().map(|x| x.1).collect(),
        aligned,
        bins: 0,
    })
}

/// What became of the probe's requests that got no reply within the
/// timeout, as the file counts them (metadata `NETLAB_PROBE_*`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Unanswered {
    /// Written at their real RTT: the reply came after the timeout.
    pub late_replies: u32,
    /// B received the request (its one-way delay is in results.json) but
    /// no reply ever came back: a gap.
    pub reached_b_no_reply: u32,
    /// B never received the request (dropped or lost): a gap.
    pub never_reached_b: u32,
    /// No reply and no record of B's side (results from before probe fates
    /// were recorded, or a fate unresolved at the end): a gap.
    pub fate_unknown: u32,
}

impl Unanswered {
    /// Requests written as gaps (`null`).
    pub fn gaps(&self) -> u32 {
        self.reached_b_no_reply + self.never_reached_b + self.fate_unknown
    }
}

/// UDP echo: a reply at its reply time with its RTT. A request whose reply
/// came after the timeout (B's log and A's late receive) is
/// written at its real RTT, `late: true`. A request never answered is a
/// gap, as Flent's own ping runners leave a lost ping: no raw point, and
/// `null` on the step grid over its wait (send to send + timeout), so
/// Flent never draws a line through it. Their counts go in the metadata.
fn ping(s: &Scenario, t0: f64, step: f64, x_values: &[f64]) -> (Series, Unanswered) {
    use netlab_results::fate::Fate;
    let fates: std::collections::HashMap<u32, &Fate> = s
        .fates
        .iter()
        .flat_map(|f| f.requests.iter().map(|r| (r.seq, &r.fate)))
        .collect();
    let mut raw: Vec<(f64, Value)> = Vec::new();
    let mut gaps: Vec<(f64, f64)> = Vec::new();
    let mut count = Unanswered::default();
    for p in &s.probes {
        match p.outcome {
            ProbeOutcome::Reply { rtt_ms } => {
                let t = p.send_s + rtt_ms / 1000.0;
                raw.push((
                    t,
                    json!({ "t": round6(t0 + t), "val": round6(rtt_ms), "seq": p.seq }),
                ));
            }
            ProbeOutcome::Timeout => {
                let gap = (p.send_s, p.send_s + s.probe_timeout_s);
                match fates.get(&p.seq) {
                    Some(Fate::ReachedB {
                        late_rtt_ms: Some(rtt_ms),
                        one_way_ms,
                    }) => {
                        count.late_replies += 1;
                        let t = p.send_s + rtt_ms / 1000.0;
                        let mut v = json!({ "t": round6(t0 + t), "val": round6(*rtt_ms),
                                            "seq": p.seq, "late": true });
                        if let Some(d) = one_way_ms {
                            v["one_way_ms"] = json!(round6(*d));
                        }
                        raw.push((t, v));
                    }
                    Some(Fate::ReachedB { .. }) => {
                        count.reached_b_no_reply += 1;
                        gaps.push(gap);
                    }
                    Some(Fate::NeverReachedB { .. }) => {
                        count.never_reached_b += 1;
                        gaps.push(gap);
                    }
                    _ => {
                        count.fate_unknown += 1;
                        gaps.push(gap);
                    }
                }
            }
            ProbeOutcome::NoInformation => {}
        }
    }
    raw.sort_by(|a, b| a.0.total_cmp(&b.0));
    let aligned = aligned_with_gaps(&raw, &gaps, x_values, step);
    (
        Series {
            aligned,
            raw: raw.into_iter().map(|x| x.1).collect(),
            bins: 0,
        },
        count,
    )
}

/// A probe series on the step grid: its raw values aligned as Flent's
/// runners align them ([`align_like_flent`]), then `null` at every step
/// inside an unanswered request's wait (`gaps`, s from t0), so Flent never
/// draws a line through it.
fn aligned_with_gaps(
    raw: &[(f64, Value)],
    gaps: &[(f64, f64)],
    x_values: &[f64],
    step: f64,
) -> Vec<Option<f64>> {
    let points: Vec<(f64, f64)> = raw
        .iter()
        .filter_map(|(t, v)| v.get("val").and_then(Value::as_f64).map(|x| (*t, x)))
        .collect();
    let mut aligned = align_like_flent(&points, x_values, step);
    for (x, v) in x_values.iter().zip(aligned.iter_mut()) {
        if gaps.iter().any(|(a, b)| *x > *a && *x <= *b) {
            *v = None;
        }
    }
    aligned
}

/// The file's metadata: Flent's own keys (the window as DELAY and
/// TOTAL_LENGTH, see [`window_metadata`]), then netlab's.
fn metadata(input: &ReportInput, s: &Scenario, t0: f64, step: f64, u: Unanswered) -> Value {
    let window = s.measured_window.unwrap_or(s.phases.loaded);
    let (delay, total_length) = window_metadata(window, step);
    // Flent uses TITLE as the file's label in legends and combined plots:
    // short, on one line, and unique in the run (arm, point, round).
    let title = title(s);
    // One stream per flow, then one per probe, so that each series has
    // its test's data set (and its units) in Flent.
    let mut labels: Vec<String> = (1..=s.flows.len()).map(|k| format!("flow {k}")).collect();
    if !s.probes.is_empty() {
        labels.push("stop-and-wait".into());
    }
    if s.iso.is_some() {
        labels.push("isochronous".into());
    }
    let mut series_meta = Map::new();
    for (k, f) in s.flows.iter().enumerate() {
        series_meta.insert(
            flow_series(&f.direction, k + 1),
            json!({ "UNITS": "Mbits/s", "RUNNER": "netlab TCP sender, its receiver's delivered bytes" }),
        );
    }
    if !s.probes.is_empty() {
        series_meta.insert(
            ping_series(),
            json!({ "UNITS": "ms", "RUNNER": "netlab stop-and-wait UDP echo" }),
        );
    }
    if s.iso.is_some() {
        series_meta.insert(
            iso_series(),
            json!({ "UNITS": "ms", "RUNNER": "netlab isochronous UDP probe (irtt-like: owd_up, owd_down, lost)" }),
        );
    }
    let t0s = format_rfc3339_micros(t0);
    json!({
        "NAME": TEST_NAME,
        "TITLE": title,
        "DATA_FILENAME": combine_name(input, s),
        "NOTE": note(input, s, step, window, u),
        "TIME": t0s,
        "T0": t0s,
        "LENGTH": round6(window[1] - window[0]),
        "TOTAL_LENGTH": total_length,
        "DELAY": delay,
        "STEP_SIZE": round6(step),
        "HOST": "10.20.2.2",
        "HOSTS": ["10.20.2.2"],
        "LOCAL_HOST": "netlab-A",
        "IP_VERSION": 4,
        "FLENT_VERSION": format!("{} (netlab-report, Flent data format {FILE_FORMAT})", input.tool),
        "TEST_PARAMETERS": { "bidir_streams": labels.len().to_string(), "labels": labels.join(",") },
        "NETLAB_ARM": s.arm_words,
        "NETLAB_ROUND": s.round,
        "NETLAB_SCENARIO": s.index,
        "NETLAB_PROBE": "UDP echo (netlab-probe), not ICMP",
        "NETLAB_PROBE_TIMEOUT_S": s.probe_timeout_s,
        "NETLAB_PROBE_UNANSWERED": u.gaps(),
        "NETLAB_PROBE_LATE_REPLIES": u.late_replies,
        "NETLAB_PROBE_REACHED_B_NO_REPLY": u.reached_b_no_reply,
        "NETLAB_PROBE_NEVER_REACHED_B": u.never_reached_b,
        "NETLAB_PROBE_FATE_UNKNOWN": u.fate_unknown,
        "KERNEL_NAME": "Linux",
        "KERNEL_RELEASE": input.kernel.release,
        "EGRESS_INFO": egress_info(input, s),
        "NETLAB_MEASURED_WINDOW_S": s.measured_window,
        "SERIES_META": series_meta,
    })
}

/// The NOTE: what the file is, how each series was made, how timeouts are
/// written and what the window is.
fn note(input: &ReportInput, s: &Scenario, step: f64, window: [f64; 2], u: Unanswered) -> String {
    let timeout_ms = round6(s.probe_timeout_s * 1000.0);
    let flows: Vec<String> = s
        .flows
        .iter()
        .enumerate()
        .map(|(k, f)| format!("'{}'", flow_series(&f.direction, k + 1)))
        .collect();
    let mut t = format!(
        "netlab scenario {} (round {}{}, {}), run {}: {} TCP flow{} ({}; bytes delivered to the receiving application per {:.0} ms, Mbit/s, at each bin's end; \
         the first flow's tcp_* keys are its sender's tcp_info over sock_diag). Written by {} from results.json (schema {}), not by a Flent run (test {TEST_NAME}, one stream per flow). ",
        s.index,
        s.round,
        point_words(s).map_or_else(String::new, |p| format!(", point {p}")),
        s.arm_words,
        input.run_id,
        s.flows.len(),
        if s.flows.len() == 1 { "" } else { "s" },
        flows.join(", "),
        step * 1000.0,
        input.tool,
        input.schema_version,
    );
    if !s.probes.is_empty() {
        t.push_str(&format!(
            "'{}' is netlab's stop-and-wait UDP echo probe (not ICMP): {} requests got no reply within {} ms: {} replied late and are written at their real RTT (late: true); \
             {} were never answered and are gaps (null), as Flent's ping runners leave a lost ping ({} reached B, whose one-way delays are in results.json; {} never reached B; {} without a record of B's side). \
             Flent's means and quantiles of this series are over the answered requests only. ",
            ping_series(),
            u.late_replies + u.gaps(),
            timeout_ms,
            u.late_replies,
            u.gaps(),
            u.reached_b_no_reply,
            u.never_reached_b,
            u.fate_unknown,
        ));
    }
    if let Some(iso) = &s.iso {
        t.push_str(&format!(
            "'{}' is netlab's isochronous probe (a request every {} ms), written as Flent writes irtt's: owd_up and owd_down per reply, a packet without a reply lost: true and a gap. ",
            iso_series(),
            round6(iso.interval_ms),
        ));
    }
    t.push_str(&format!(
        "No ICMP ping ran. DELAY and TOTAL_LENGTH are set so that Flent's cutoff (DELAY, -DELAY) is netlab's measured window {:.1}–{:.1} s after T0 (the data ends at {:.1} s: TOTAL_LENGTH runs past it by the window's start, so a time-series axis does too). Kernel {}.",
        window[0],
        window[1],
        s.phases.end_s,
        input.kernel.described,
    ));
    t
}

/// Flent's EGRESS_INFO (what its metadata viewer shows of the egress):
/// the bottleneck's qdiscs in tc words, TBF at the root and the arm as its
/// child (method §2).
fn egress_info(input: &ReportInput, s: &Scenario) -> Value {
    // The run's "bottleneck" line: `TBF rate 5mbit burst 16kb limit 64kb`.
    // The scenario's own read-back rate (a sweep's point sets its own),
    // with the run's burst and limit.
    let configured = input
        .config
        .iter()
        .find(|(k, _)| k == "bottleneck")
        .map_or_else(|| "tbf".to_string(), |(_, v)| v.clone());
    let tbf = match s.readbacks.rate_bps {
        Some(rate) => {
            let rest = configured
                .split_once(" burst ")
                .map_or_else(String::new, |(_, r)| format!(" burst {r}"));
            let rest = rest.split(", rate swept").next().unwrap_or("").to_string();
            format!("tbf rate {rate} bit/s{rest} (rate read back)")
        }
        None => configured,
    };
    json!({
        "iface": "R's egress toward B (netlab's bottleneck)",
        "qdiscs": [
            { "name": "tbf", "id": "1:", "parent": "root", "params": tbf },
            { "name": s.arm, "id": "10:", "parent": "1:1", "params": s.arm_words },
        ],
        "tc": format!("{tbf} (root 1:) → {} (parent 1:1 handle 10:)", s.arm_words),
    })
}

/// The gzipped file bytes (deterministic: no name, mtime 0).
pub fn export_gz(input: &ReportInput, s: &Scenario) -> Result<Vec<u8>, FlentError> {
    let v = export(input, s)?;
    let text = serde_json::to_vec_pretty(&v).map_err(|e| FlentError {
        scenario: s.index,
        message: format!("serializing: {e}"),
    })?;
    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::default());
    gz.write_all(&text)
        .and_then(|_| gz.try_finish())
        .map_err(|e| FlentError {
            scenario: s.index,
            message: format!("gzip: {e}"),
        })?;
    gz.finish().map_err(|e| FlentError {
        scenario: s.index,
        message: format!("gzip: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use netlab_analysis::records::*;

    fn input(probes: Vec<ProbeSample>) -> (ReportInput, Scenario) {
        let s = Scenario {
            index: 1,
            round: 1,
            arm: "pfifo".into(),
            kind: "pfifo".into(),
            arm_words: "pfifo limit 256".into(),
            cc: Some("reno".into()),
            t0_utc: Some("2026-11-30T19:35:34.260Z".into()),
            phases: Phases {
                baseline: [0.0, 2.0],
                loaded: [4.0, 10.0],
                end_s: 10.0,
            },
            probe_timeout_s: 1.0,
            probes,
            flows: vec![FlowSeries {
                label: "flow 1".into(),
                direction: "up".into(),
                cc: "cubic".into(),
                bin_s: 0.2,
                bytes: vec![125_000; 50],
            }],
            flow_records: Vec::new(),
            measured_window: Some([4.0, 10.0]),
            tcp_info: vec![SenderSample {
                t_s: 2.2,
                rtt_ms: 12.5,
                rttvar_ms: 1.0,
                cwnd: 10,
                ssthresh: None,
                delivery_rate_bps: Some(4e6),
                pacing_rate_bps: None,
            }],
            qdisc: vec![],
            final_counters: FinalCounters::default(),
            error: None,
            packet_files: Vec::new(),
            fates: None,
            echo_closed_s: None,
            ecn_flow: false,
            point: PointText::default(),
            directions: Vec::new(),
            iso: None,
            readbacks: Default::default(),
            link: None,
        };
        let i = ReportInput {
            schema_version: 1,
            tool: "netlab 0.1.0".into(),
            run_id: "r".into(),
            started_utc: "2026-11-30T19:35:00Z".into(),
            finished_utc: String::new(),
            kernel: KernelText::default(),
            config: vec![],
            bottleneck_bps: None,
            scenarios: vec![s.clone()],
            notes: vec![],
            caveats: vec![],
            scope: None,
            models: vec![],
            figures: Vec::new(),
            steps: Default::default(),
        };
        (i, s)
    }

    fn probe(seq: u32, send_s: f64, outcome: ProbeOutcome) -> ProbeSample {
        ProbeSample {
            seq,
            send_s,
            phase: ProbePhase::Loaded,
            outcome,
            logged: match outcome {
                ProbeOutcome::Reply { .. } => netlab_analysis::records::Logged::Reply,
                ProbeOutcome::Timeout => netlab_analysis::records::Logged::Timeout,
                ProbeOutcome::NoInformation => netlab_analysis::records::Logged::Abandoned,
            },
            late_rtt_ms: None,
        }
    }

    #[test]
    fn series_keys_times_and_timeouts() {
        let (i, s) = input(vec![
            probe(0, 4.0, ProbeOutcome::Reply { rtt_ms: 500.0 }),
            probe(1, 4.2, ProbeOutcome::Timeout),
        ]);
        let v = export(&i, &s).unwrap();
        let t0 = parse_rfc3339("2026-11-30T19:35:34.260Z").unwrap();
        assert_eq!(v["metadata"]["NETLAB_PROBE_UNANSWERED"], 1);
        assert_eq!(v["metadata"]["NETLAB_PROBE_FATE_UNKNOWN"], 1);
        assert_eq!(
            v["metadata"]["EGRESS_INFO"]["qdiscs"][1]["params"],
            "pfifo limit 256"
        );
        assert_eq!(v["metadata"]["NAME"], TEST_NAME);
        assert_eq!(v["metadata"]["T0"], "2026-11-30T19:35:34.260000Z");
        // The reply (4.5 s) only: the request never answered is a gap.
        let ping = v["raw_values"][ping_series()].as_array().unwrap();
        assert_eq!(ping.len(), 1);
        assert!((ping[0]["t"].as_f64().unwrap() - (t0 + 4.5)).abs() < 1e-5);
        assert_eq!(ping[0]["val"], 500.0);
        // Flent's window is the measured window [4, 10] on the 0.2 s grid.
        assert_eq!(v["metadata"]["DELAY"], 4.1);
        assert_eq!(v["metadata"]["TOTAL_LENGTH"], 14.2);
        assert_eq!(v["metadata"]["LENGTH"], 6.0);
        assert_eq!(v["metadata"]["TITLE"], "pfifo r1");
        // results: interpolated onto the grid as Flent's runners do.
        let r = v["results"][ping_series()].as_array().unwrap();
        // x = 4.4 … 5.2 lie in the unanswered request's wait (4.2, 5.2]:
        // null, never a value interpolated through it.
        assert!(
            r[22].is_null() && r[24].is_null() && r[26].is_null(),
            "{:?}",
            &r[20..28]
        );
        assert!(r[30].is_null());
        let up = v["raw_values"][upload_series()].as_array().unwrap();
        let tcp = up.iter().find(|r| r.get("tcp_rtt").is_some()).unwrap();
        assert_eq!(tcp["tcp_rtt"], 12.5);
        assert_eq!(tcp["tcp_cwnd"], 10);
        assert_eq!(tcp["tcp_delivery_rate"], 4.0);
        assert!(tcp.get("tcp_pacing_rate").is_none());
        for part in ["raw_values", "results"] {
            let keys: Vec<&String> = v[part].as_object().unwrap().keys().collect();
            assert!(
                keys.iter().all(|k| !k.contains("ICMP")),
                "no ICMP series: {keys:?}"
            );
        }
        assert_eq!(v["x_values"].as_array().unwrap().len(), 51);
    }

    #[test]
    fn late_replies_are_real_values_and_unanswered_requests_gaps() {
        use netlab_results::fate::{Fate, LossCause, ProbeFates, RequestFate};
        let (i, mut s) = input(vec![
            probe(0, 4.0, ProbeOutcome::Reply { rtt_ms: 5.0 }),
            probe(1, 4.2, ProbeOutcome::Timeout),
            probe(2, 5.4, ProbeOutcome::Timeout),
            probe(3, 6.6, ProbeOutcome::Timeout),
            probe(4, 7.8, ProbeOutcome::Reply { rtt_ms: 6.0 }),
        ]);
        let req = |seq, fate| RequestFate {
            seq,
            send_s: None,
            phase: netlab_probe::Phase::Loaded,
            fate,
        };
        s.fates = Some(ProbeFates {
            shared_clock: true,
            drops_matched: true,
            requests: vec![
                req(
                    1,
                    Fate::ReachedB {
                        one_way_ms: Some(1100.0),
                        late_rtt_ms: Some(1102.5),
                    },
                ),
                req(
                    2,
                    Fate::ReachedB {
                        one_way_ms: Some(900.0),
                        late_rtt_ms: None,
                    },
                ),
                req(
                    3,
                    Fate::NeverReachedB {
                        cause: LossCause::Unknown { note: "x".into() },
                    },
                ),
            ],
            phases: vec![],
        });
        let v = export(&i, &s).unwrap();
        let m = &v["metadata"];
        assert_eq!(m["NETLAB_PROBE_LATE_REPLIES"], 1);
        assert_eq!(m["NETLAB_PROBE_REACHED_B_NO_REPLY"], 1);
        assert_eq!(m["NETLAB_PROBE_NEVER_REACHED_B"], 1);
        assert_eq!(m["NETLAB_PROBE_UNANSWERED"], 2);
        assert_eq!(m["NETLAB_PROBE_FATE_UNKNOWN"], 0);
        let ping = v["raw_values"][ping_series()].as_array().unwrap();
        let vals: Vec<f64> = ping.iter().map(|p| p["val"].as_f64().unwrap()).collect();
        assert_eq!(
            vals,
            vec![5.0, 1102.5, 6.0],
            "late reply at its real RTT, no bound"
        );
        assert_eq!(ping[1]["late"], true);
        assert_eq!(ping[1]["one_way_ms"], 1100.0);
        let r = v["results"][ping_series()].as_array().unwrap();
        // Request 2's wait (5.4, 6.4] and 3's (6.6, 7.6]: null on the grid.
        for k in [28, 30, 32, 34, 36, 38] {
            assert!(r[k].is_null(), "x = {}: {:?}", k as f64 * 0.2, r[k]);
        }
    }

    #[test]
    fn alignment_follows_flents_aggregator() {
        let x: Vec<f64> = (0..10).map(|i| i as f64 * 0.2).collect();
        let raw = [(0.4, 10.0), (0.8, 20.0)];
        let a = align_like_flent(&raw, &x, 0.2);
        // before the first point: only within half a step; exact hits are
        // the points; in between linear; after the last, once.
        assert_eq!(
            a,
            vec![
                None,
                None,
                Some(10.0),
                Some(15.0),
                Some(20.0),
                None,
                None,
                None,
                None,
                None
            ]
        );
        let gap = [(0.0, 1.0), (1.8, 2.0)];
        let a = align_like_flent(&gap, &x, 0.2);
        // more than five steps (1 s) from the next point: no value, even
        // on a point of its own
        assert_eq!((a[0], a[3]), (None, None));
        assert_eq!(a[4], Some(1.444444)); // 0.8: 1 s before the next
        assert_eq!(a[5], Some(1.555556));
    }

    #[test]
    fn the_window_metadata_selects_exactly_the_goodput_bins() {
        let (delay, total) = window_metadata([6.0, 18.0], 0.2);
        assert_eq!((delay, total), (6.1, 24.2));
        // Flent's cutoff keeps x in [DELAY, TOTAL − DELAY]: the bins ending
        // at 6.2 … 18.0, 60 of them.
        let x: Vec<f64> = (0..=100).map(|i| round6(i as f64 * 0.2)).collect();
        let kept: Vec<f64> = x
            .iter()
            .copied()
            .filter(|t| *t >= delay && *t <= total - delay)
            .collect();
        assert_eq!(kept.len(), 60);
        assert_eq!((kept[0], kept[59]), (6.2, 18.0));
    }

    #[test]
    fn no_reply_at_all_is_refused_not_an_empty_plot() {
        let (i, s) = input(vec![probe(0, 4.0, ProbeOutcome::Timeout)]);
        let e = export(&i, &s).unwrap_err().to_string();
        assert!(e.contains("no probe reply"), "{e}");
        assert!(e.contains("empty"), "{e}");
        let (i, s) = input(vec![]);
        assert!(export(&i, &s).is_err());
    }
}
