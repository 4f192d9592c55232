//! The cross-check's markdown page: one table per pairing, per-round values side by
//! side, then per-load summaries (pure).

use std::fmt::Write as _;

use netlab_probe::PhaseStats;
use netlab_stats::{lower_median, median};

use crate::consistency;
use crate::record::ScenarioRecord;
use crate::CrosscheckRun;

fn f(v: Option<f64>, prec: usize) -> String {
    v.map_or("–".into(), |x| format!("{x:.prec$}"))
}
fn u<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("–".into(), |x| x.to_string())
}

fn counts(s: Option<&PhaseStats>) -> String {
    s.map_or("–".into(), |s| {
        format!("{}/{}/{}", s.sent, s.ok, s.timeouts)
    })
}

/// Lower median and range of the present values.
fn med_range(mut v: Vec<f64>, prec: usize) -> String {
    v.retain(|x| x.is_finite());
    let Some(m) = lower_median(&mut v) else {
        return "–".into();
    };
    format!("{m:.prec$} [{:.prec$}–{:.prec$}]", v[0], v[v.len() - 1])
}

/// Whether netlab's probe and irtt agree in one scenario (pairing 2, the
/// fixed rules of docs/method.md §13.2, "Method choices"): on a fifo arm (`censoring`) the share of requests beyond
/// the timeout must match within one request (netlab's timeouts vs irtt's
/// share × netlab's sent); on other arms p50 and p95 of the successes must
/// be within max(1 ms, 5 %).
pub fn probes_agree(nl: &PhaseStats, ir: &PhaseStats, censoring: bool) -> Option<bool> {
    if nl.sent == 0 || ir.sent == 0 {
        return None;
    }
    if censoring {
        let ir_share = f64::from(ir.timeouts) / f64::from(ir.sent);
        Some((f64::from(nl.timeouts) - ir_share * f64::from(nl.sent)).abs() <= 1.0)
    } else {
        let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= f64::max(1.0, 0.05 * a.max(b)),
            _ => false,
        };
        Some(close(nl.p50_ms, ir.p50_ms) && close(nl.p95_ms, ir.p95_ms))
    }
}

/// Which of netlab's probes a pairing-2 table compares with irtt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    /// The method's stop-and-wait probe.
    StopAndWait,
    /// The isochronous probe, on a fixed grid like irtt.
    Isochronous,
}

impl Probe {
    fn of(self, s: &ScenarioRecord) -> (&[netlab_probe::ProbeRequest], Option<&PhaseStats>) {
        match self {
            Probe::StopAndWait => (&s.probe, s.probe_loaded.as_ref()),
            Probe::Isochronous => (&s.iso, s.iso_loaded.as_ref()),
        }
    }
}

/// Pairing 2 (or 2b): one of netlab's probes vs irtt, per scenario, then
/// pooled per arm and the idle offset.
fn probe_pairing(out: &mut String, run: &CrosscheckRun, which: Probe) {
    let c = &run.config;
    match which {
        Probe::StopAndWait => {
            out.push_str("## 2. Probe: netlab vs irtt, in the same scenario\n\n");
            out.push_str("Loaded phase (send time in the window). irtt's round trips are ranked with netlab's rules: a reply ≥ the timeout or none counts as a timeout. Agree (the fixed rules, docs/method.md §13.2): on pfifo, netlab's timeouts within one request of irtt's share beyond the timeout × netlab's sent; on fq_codel, p50 and p95 of the successes within max(1 ms, 5 %). netlab's probe keeps one request outstanding (a timeout delays the next send), irtt sends every 200 ms regardless, so their counts differ under a > 1 s queue. ");
        }
        Probe::Isochronous => {
            out.push_str(
                "## 2b. Probe: netlab's isochronous probe vs irtt, in the same scenario\n\n",
            );
            out.push_str("Both send on a fixed grid at the same spacing whatever the replies, so their shares of timeouts should match as well as their RTTs. Same rules and ranking as in 2. ");
        }
    }
    let _ = write!(out, "Consistent (sampling noise): a seeded bootstrap ({} resamples per probe) of netlab − irtt for the censoring-aware p50 and p95 over all loaded requests (a timeout is \"≥ timeout\"); 95 % intervals; consistent when neither excludes 0, – when both quantiles fall on the censored mass.\n\n", crate::consistency::REPLICATES);
    out.push_str("| round | arm | load | netlab sent/ok/timeouts | irtt sent/ok/beyond | netlab p50 / p95 (ms) | irtt p50 / p95 (ms) | netlab p95 censored | irtt p95 censored | agree | netlab − irtt p50, 95 % | p95, 95 % | consistent |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let mut agree = (0, 0);
    let mut consistent = (0, 0);
    let timeout_ms = c.probe_timeout_s * 1e3;
    let mut pooled: Vec<PooledProbes> = Vec::new();
    for s in run
        .scenarios
        .iter()
        .filter(|s| s.irtt_loaded.is_some() && which.of(s).1.is_some())
    {
        let (reqs, nl) = which.of(s);
        let ir = s.irtt_loaded.as_ref();
        let a = nl
            .zip(ir)
            .and_then(|(a, b)| probes_agree(a, b, is_fifo(&s.arm)));
        agree.1 += u32::from(a.is_some());
        agree.0 += u32::from(a == Some(true));
        let cons = consistency::consistency(
            &consistency::loaded_observations(reqs, timeout_ms),
            &consistency::loaded_observations(&s.irtt, timeout_ms),
            u64::from(s.index),
        );
        consistent.1 += u32::from(cons.consistent.is_some());
        consistent.0 += u32::from(cons.consistent == Some(true));
        match pooled.iter_mut().find(|(arm, _, _)| arm == &s.arm) {
            Some((_, n, i)) => {
                n.extend_from_slice(reqs);
                i.extend_from_slice(&s.irtt);
            }
            None => pooled.push((s.arm.clone(), reqs.to_vec(), s.irtt.clone())),
        }
        let cen = |p: Option<&PhaseStats>| {
            p.and_then(|p| p.p95_censored)
                .map_or("–".into(), |c| c.to_string())
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} / {} | {} / {} | {} | {} | {} | {} | {} | {} |",
            s.round,
            s.arm,
            s.load_label,
            counts(nl),
            counts(ir),
            f(nl.and_then(|p| p.p50_ms), 1),
            f(nl.and_then(|p| p.p95_ms), 1),
            f(ir.and_then(|p| p.p50_ms), 1),
            f(ir.and_then(|p| p.p95_ms), 1),
            cen(nl),
            cen(ir),
            yes(a),
            consistency::interval_text(cons.p50),
            consistency::interval_text(cons.p95),
            yes(cons.consistent),
        );
    }
    let _ = writeln!(
        out,
        "\nAgree (the fixed rules) in {} of {} scenarios; consistent within sampling noise in {} of {}.\n",
        agree.0, agree.1, consistent.0, consistent.1
    );
    pooled_rows(out, &pooled, c.probe_timeout_s);
    if let Some(offset) = baseline_offset(run, which) {
        let _ = writeln!(
            out,
            "Idle path (baseline phase), irtt − netlab p50 of the successes: median {} ms [{}–{}] over scenarios: the two instruments' own overhead, present before any queue.\n",
            offset.0, offset.1, offset.2
        );
    }
}

/// One arm's loaded requests over its scenarios: netlab's, then irtt's.
type PooledProbes = (
    String,
    Vec<netlab_probe::ProbeRequest>,
    Vec<netlab_probe::ProbeRequest>,
);
/// Each arm's loaded requests pooled over its scenarios, netlab's beside
/// irtt's (nothing when no scenario had both).
fn pooled_rows(out: &mut String, pooled: &[PooledProbes], timeout_s: f64) {
    if pooled.is_empty() {
        return;
    }
    out.push_str("Pooled over the scenarios (loaded phase):\n\n| arm | netlab sent/ok/timeouts | netlab p50 / p95 (ms) | irtt sent/ok/beyond | irtt p50 / p95 (ms) |\n|---|---|---|---|---|\n");
    let timeout = std::time::Duration::from_secs_f64(timeout_s);
    for (arm, n, i) in pooled {
        let ns = netlab_probe::phase_stats(n, netlab_probe::Phase::Loaded, timeout);
        let is = netlab_probe::phase_stats(i, netlab_probe::Phase::Loaded, timeout);
        let _ = writeln!(
            out,
            "| {arm} | {} | {} / {} | {} | {} / {} |",
            counts(Some(&ns)),
            f(ns.p50_ms, 1),
            f(ns.p95_ms, 1),
            counts(Some(&is)),
            f(is.p50_ms, 1),
            f(is.p95_ms, 1),
        );
    }
    out.push('\n');
}

/// Median and range over scenarios of irtt's baseline p50 minus netlab's
/// (successes only), formatted to 0.01 ms.
fn baseline_offset(run: &CrosscheckRun, which: Probe) -> Option<(String, String, String)> {
    let base = |reqs: &[netlab_probe::ProbeRequest]| {
        let mut v: Vec<f64> = reqs
            .iter()
            .filter(|r| r.phase == netlab_probe::Phase::Baseline)
            .filter_map(|r| r.rtt_ms)
            .collect();
        lower_median(&mut v)
    };
    let mut d: Vec<f64> = run
        .scenarios
        .iter()
        .filter_map(|s| Some(base(&s.irtt)? - base(which.of(s).0)?))
        .collect();
    let m = lower_median(&mut d)?;
    Some((
        format!("{m:.2}"),
        format!("{:.2}", d[0]),
        format!("{:.2}", d[d.len() - 1]),
    ))
}

/// The deep/shallow split (ms) of a `pfifo` arm of this cross-check, from
/// its limit and the TBF rate; `None` for any other arm.
fn fifo_split_ms(c: &crate::CrosscheckConfig, words: &str) -> Option<f64> {
    let tbf = netlab_qdisc_model::Tbf::parse(&c.tbf).ok()?;
    match netlab_qdisc_model::Arm::parse(words).ok()? {
        netlab_qdisc_model::Arm::Pfifo(p) => Some(crate::states::split_ms(
            p.limit?,
            tbf.rate.bytes_per_sec() as f64,
        )),
        _ => None,
    }
}

/// Whether an arm kind is a plain fifo (where censoring is compared).
pub fn is_fifo(kind: &str) -> bool {
    matches!(kind, "pfifo" | "bfifo")
}

fn yes(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "yes",
        Some(false) => "**no**",
        None => "–",
    }
}

fn load_table(out: &mut String, rows: &[&ScenarioRecord]) {
    out.push_str("| round | load | goodput own (Mbit/s) | goodput B tcp_info | probe sent/ok/timeouts | p50 (ms) | p95 (ms) | p95 censored | drops in window | reductions (before window) | retrans | mean backlog (skbs) | standing delay (ms) | skb in queue (B) | skb sent (B) | cwnd max | TCP RTT mean (ms) | TCP RTT median (ms) | B's first rcv_rtt (ms) | rwnd-limited (ms) |\n");
    out.push_str(
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let m = &r.metrics;
        let p = r.probe_loaded.as_ref();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |{}",
            r.round,
            r.load_label,
            f(r.goodput_mbps, 2),
            f(r.goodput_b_tcpinfo_mbps, 2),
            counts(p),
            f(p.and_then(|p| p.p50_ms), 1),
            f(p.and_then(|p| p.p95_ms), 1),
            p.and_then(|p| p.p95_censored).map_or("–".into(), |c| c.to_string()),
            u(m.drops_window),
            u(m.reductions),
            u(m.reductions_before_window),
            u(m.total_retrans),
            f(m.backlog_packets_mean, 1),
            f(m.backlog_delay_ms, 0),
            f(m.skb_in_queue_bytes, 0),
            f(m.skb_sent_bytes, 0),
            u(m.cwnd_max),
            f(m.tcp_rtt_mean_ms, 0),
            f(m.tcp_rtt_median_ms, 0),
            f(m.rcv_rtt_first_ms, 1),
            f(m.rwnd_limited_ms, 0),
            r.error.as_ref().map_or(String::new(), |e| format!(" error: {e}")),
        );
    }
}

fn load_summary(out: &mut String, rows: &[&ScenarioRecord], labels: &[String]) {
    out.push_str("\nMedian [min–max] over rounds:\n\n| load | n | goodput own | p50 (ms) | p95 (ms) | drops in window | reductions | before window | retrans | mean backlog (skbs) | standing delay (ms) | skb in queue (B) | cwnd max |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for l in labels {
        let rs: Vec<&&ScenarioRecord> = rows
            .iter()
            .filter(|r| &r.load_label == l && r.error.is_none())
            .collect();
        let col = |g: &dyn Fn(&ScenarioRecord) -> Option<f64>, prec| {
            med_range(rs.iter().filter_map(|r| g(r)).collect(), prec)
        };
        let _ = writeln!(
            out,
            "| {l} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            rs.len(),
            col(&|r| r.goodput_mbps, 2),
            col(&|r| r.probe_loaded.as_ref().and_then(|p| p.p50_ms), 1),
            col(&|r| r.probe_loaded.as_ref().and_then(|p| p.p95_ms), 1),
            col(&|r| r.metrics.drops_window.map(|x| x as f64), 0),
            col(&|r| r.metrics.reductions.map(f64::from), 0),
            col(&|r| r.metrics.reductions_before_window.map(f64::from), 0),
            col(&|r| r.metrics.total_retrans.map(f64::from), 0),
            col(&|r| r.metrics.backlog_packets_mean, 1),
            col(&|r| r.metrics.backlog_delay_ms, 0),
            col(&|r| r.metrics.skb_in_queue_bytes, 0),
            col(&|r| r.metrics.cwnd_max.map(f64::from), 0),
        );
    }
}

/// The standing states of a tail-drop arm's rounds, per load (method
/// §13.5): how many rounds landed deep and shallow, Fisher's exact test
/// between the first load (netlab's) and each other, and how many of each
/// load's rounds land within ±20 % of iperf3's median RTT and ±30 % of its
/// median drops.
fn states_section(out: &mut String, rows: &[&ScenarioRecord], labels: &[String], split: f64) {
    use crate::states::{fisher_two_sided, standing_state, StandingState};
    let per_load: Vec<(&String, Vec<&&ScenarioRecord>)> = labels
        .iter()
        .map(|l| {
            let rs = rows
                .iter()
                .filter(|r| &r.load_label == l && r.error.is_none())
                .filter(|r| r.metrics.tcp_rtt_median_ms.is_some())
                .collect();
            (l, rs)
        })
        .collect();
    let count = |rs: &[&&ScenarioRecord]| {
        let deep = rs
            .iter()
            .filter(|r| {
                standing_state(r.metrics.tcp_rtt_median_ms.unwrap_or(0.0), split)
                    == StandingState::Deep
            })
            .count() as u32;
        (deep, rs.len() as u32 - deep)
    };
    let _ = writeln!(
        out,
        "
Standing state per round (method §13.5): **deep** when the sender's median tcp_info RTT over the window exceeds {split:.0} ms (1.5 × what the queue holds in single-segment skbs: it holds multi-segment skbs), **shallow** otherwise. p: Fisher's exact test, two-sided, against the first load's counts.

| load | rounds | deep | shallow | RTT medians (ms) | p vs {} |
|---|---|---|---|---|---|",
        labels.first().map_or("–", |s| s.as_str())
    );
    let reference = per_load.first().map(|(_, rs)| count(rs));
    for (l, rs) in &per_load {
        let (deep, shallow) = count(rs);
        let p = reference.map_or("–".to_string(), |(d0, s0)| {
            format!("{:.3}", fisher_two_sided(d0, s0, deep, shallow))
        });
        let rtts: Vec<String> = rs
            .iter()
            .map(|r| format!("{:.0}", r.metrics.tcp_rtt_median_ms.unwrap_or(0.0)))
            .collect();
        let _ = writeln!(
            out,
            "| {l} | {} | {deep} | {shallow} | {} | {p} |",
            rs.len(),
            rtts.join(", ")
        );
    }
    iperf3_agreement(out, &per_load);
}

/// How many of each load's rounds land within ±20 % of iperf3's median RTT
/// and ±30 % of its median drops (nothing without an iperf3 load).
fn iperf3_agreement(out: &mut String, per_load: &[(&String, Vec<&&ScenarioRecord>)]) {
    let Some((_, iperf)) = per_load.iter().find(|(l, _)| l.starts_with("iperf3")) else {
        return;
    };
    let (Some(rtt_ref), Some(drops_ref)) = (
        median(
            &mut iperf
                .iter()
                .filter_map(|r| r.metrics.tcp_rtt_median_ms)
                .collect::<Vec<_>>(),
        ),
        median(
            &mut iperf
                .iter()
                .filter_map(|r| r.metrics.drops.map(|d| d as f64))
                .collect::<Vec<_>>(),
        ),
    ) else {
        return;
    };
    let _ = writeln!(
        out,
        "
Against iperf3's medians (RTT {rtt_ref:.0} ms, arm drops {drops_ref:.0}): rounds within ±20 % of its RTT and within ±30 % of its drops. iperf3's own row is the rule's ceiling: when iperf3's rounds split between states, not even iperf3 meets it.

| load | rounds | RTT within ±20 % | drops within ±30 % |
|---|---|---|---|"
    );
    for (l, rs) in per_load {
        let rtt_ok = rs
            .iter()
            .filter(|r| {
                r.metrics
                    .tcp_rtt_median_ms
                    .is_some_and(|x| (x - rtt_ref).abs() <= 0.2 * rtt_ref)
            })
            .count();
        let drops_ok = rs
            .iter()
            .filter(|r| {
                r.metrics
                    .drops
                    .is_some_and(|d| (d as f64 - drops_ref).abs() <= 0.3 * drops_ref)
            })
            .count();
        let itself = if l.starts_with("iperf3") {
            " (itself)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "| {l}{itself} | {} | {rtt_ok} | {drops_ok} |",
            rs.len()
        );
    }
}

/// What the header says of the veths' offloads: what was asked and what
/// the scenarios read back.
fn offloads_said(run: &CrosscheckRun) -> String {
    let asked = match run.config.offloads {
        netlab_topology::Offloads::Kernel => "veth offloads as the kernel leaves them",
        netlab_topology::Offloads::Off => "veth offloads (GSO, TSO, GRO, LRO, UDP) off",
    };
    let read: Vec<bool> = run
        .scenarios
        .iter()
        .filter_map(|s| s.offloads_off)
        .collect();
    if read.is_empty() {
        return format!("{asked} (not read back)");
    }
    let off = read.iter().filter(|o| **o).count();
    format!(
        "{asked} (read back: every aggregation feature off on all four veth ends in {off} of {} scenarios)",
        read.len()
    )
}

/// Section 3: each scenario's readback beside tc's and ss's at the same
/// moment, and how many agree.
fn readbacks_section(out: &mut String, run: &CrosscheckRun) {
    out.push_str("## 3. Readbacks: netlab vs tc and ss at the same moment\n\n");
    out.push_str("netlab's tcp_info, then `ss -tinm`, then tcp_info again; then netlab's readback, `tc -s -d -j qdisc show` and netlab's again (the flow first: it ends with its tool, the qdisc stays). Agree: tc's counters between the two readbacks (backlog within their range ± 64 KiB); ss's mss equal and its cumulative counters (retransmissions, bytes_acked) between the two samples. cwnd, ssthresh and RTT are gauges that move within the bracket (a process spawn in the guest takes 50–300 ms), so they are shown, not judged.\n\n");
    out.push_str("| round | arm | load | t (s) | tc bytes / packets / drops | netlab before → after | tc backlog (B/skbs) | qdisc agrees | ss cwnd / ssthresh / retrans / rtt | tcp_info before → after (cwnd, retrans, rtt ms) | bracket (ms) | tcp agrees |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let (mut qa, mut ta) = ((0, 0), (0, 0));
    for s in &run.scenarios {
        let Some(c) = &s.readback else { continue };
        let q = c.qdisc_agrees();
        let t = c.tcp_agrees();
        qa.1 += u32::from(q.is_some());
        qa.0 += u32::from(q == Some(true));
        ta.1 += u32::from(t.is_some());
        ta.0 += u32::from(t == Some(true));
        let tcpi = |x: &Option<netlab_tcpload::TcpSample>| {
            x.as_ref()
                .and_then(|s| s.record.info.as_ref())
                .map_or("–".into(), |i| {
                    format!(
                        "{}, {}, {:.1}",
                        i.cwnd,
                        i.total_retrans,
                        f64::from(i.rtt_us) / 1e3
                    )
                })
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {} → {} | {} | {} |",
            s.round,
            s.arm,
            s.load_label,
            c.t_s,
            c.tc.as_ref().map_or("–".into(), |t| format!(
                "{} / {} / {}",
                t.bytes, t.packets, t.drops
            )),
            match (c.qdisc_before, c.qdisc_after) {
                (Some(b), Some(a)) => format!(
                    "{}/{}/{} → {}/{}/{}",
                    b.bytes, b.packets, b.drops, a.bytes, a.packets, a.drops
                ),
                _ => "–".into(),
            },
            c.tc.as_ref()
                .map_or("–".into(), |t| format!("{}/{}", t.backlog, t.qlen)),
            yes(q),
            c.ss.as_ref().map_or("–".into(), |s| format!(
                "{} / {} / {} / {}",
                u(s.cwnd),
                u(s.ssthresh),
                u(s.total_retrans),
                f(s.rtt_ms, 1)
            )),
            tcpi(&c.tcp_before),
            tcpi(&c.tcp_after),
            match (&c.tcp_before, &c.tcp_after) {
                (Some(b), Some(a)) => format!("{:.0}", (a.end_s - b.start_s) * 1e3),
                _ => "–".into(),
            },
            yes(t),
        );
    }
    let _ = writeln!(
        out,
        "\nqdisc counters agree in {} of {}; tcp_info agrees with ss in {} of {}.\n",
        qa.0, qa.1, ta.0, ta.1
    );
}

/// Renders the whole page.
pub fn page(run: &CrosscheckRun) -> String {
    let mut out = String::new();
    let c = &run.config;
    let _ = writeln!(out, "# netlab cross-check\n");
    let _ = writeln!(
        out,
        "Kernel {}, started {}, {} round(s), {} scenario(s) in {:.0} s ({} failed). TBF `{}`; arms {}; congestion control {}; timeline: baseline {} s, load {} s, window [{}, {}) s; both probes every {} ms, censored at {} ms; receive buffers of A and B: {}; {}. Loads per round in alternating order.\n",
        run.kernel,
        run.started_utc,
        c.rounds,
        run.scenarios.len(),
        run.elapsed_s,
        run.scenarios.iter().filter(|s| s.error.is_some()).count(),
        c.tbf,
        c.arms.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", "),
        c.cc,
        c.timeline.baseline_s,
        c.timeline.load_s,
        c.timeline.window_start().as_secs_f64(),
        c.timeline.end().as_secs_f64(),
        c.probe_interval_s * 1e3,
        c.probe_timeout_s * 1e3,
        match c.receive_buffer {
            netlab_topology::ReceiveBuffer::StartAtMax => "tcp_rmem's default raised to its max (method §1.3)",
            netlab_topology::ReceiveBuffer::Kernel => "the kernel's tcp_rmem",
        },
        offloads_said(run),
    );
    let labels: Vec<String> = c.loads.iter().map(|l| l.label()).collect();
    let mut arms: Vec<(String, String)> = Vec::new();
    for s in &run.scenarios {
        if !arms.iter().any(|(w, _)| w == &s.arm_words) {
            arms.push((s.arm_words.clone(), s.arm.clone()));
        }
    }

    out.push_str("## 1. Load: netlab vs iperf3 (the same netlab probe)\n\n");
    out.push_str("Goodput own: netlab by post-recv timestamps of validated blocks, iperf3 by its server's 200 ms intervals. B tcp_info: `bytes_received` of B's socket over the window (same method for both). Reductions: changes of ssthresh in the sender's 200 ms tcp_info samples (sock_diag in A, the same sampler for both flows). Backlog, standing delay (backlog bytes at the TBF rate) and skb sizes: the arm qdisc sampled every 200 ms over the window; skb in queue = Σ backlog bytes / Σ backlog skbs; skb sent = Δbytes / Δpackets.\n\n");
    for (words, kind) in &arms {
        let rows: Vec<&ScenarioRecord> = run
            .scenarios
            .iter()
            .filter(|s| &s.arm_words == words)
            .collect();
        let _ = writeln!(out, "### {kind} (`{words}`)\n");
        load_table(&mut out, &rows);
        load_summary(&mut out, &rows, &labels);
        if let Some(split) = fifo_split_ms(c, words) {
            states_section(&mut out, &rows, &labels, split);
        }
        out.push('\n');
    }

    probe_pairing(&mut out, run, Probe::StopAndWait);
    if run.scenarios.iter().any(|s| s.iso_loaded.is_some()) {
        probe_pairing(&mut out, run, Probe::Isochronous);
    }

    readbacks_section(&mut out, run);
    let errs: Vec<String> = run
        .scenarios
        .iter()
        .filter_map(|s| {
            s.error
                .as_ref()
                .map(|e| format!("- scenario {} ({}, {}): {e}", s.index, s.arm, s.load_label))
        })
        .collect();
    if !errs.is_empty() {
        out.push_str("## Failures\n\n");
        out.push_str(&errs.join("\n"));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_probe::Phase;

    fn stats(sent: u32, timeouts: u32, p50: f64, p95: f64) -> PhaseStats {
        PhaseStats {
            phase: Phase::Loaded,
            sent,
            ok: sent - timeouts,
            timeouts,
            send_errors: 0,
            abandoned: 0,
            p50_ms: Some(p50),
            p95_ms: Some(p95),
            p50_censored: None,
            p95_censored: None,
        }
    }

    #[test]
    fn probe_agreement_rules() {
        assert_eq!(
            probes_agree(&stats(50, 0, 4.0, 10.0), &stats(55, 0, 4.8, 10.4), false),
            Some(true)
        );
        assert_eq!(
            probes_agree(&stats(50, 0, 4.0, 10.0), &stats(55, 0, 5.1, 10.4), false),
            Some(false)
        );
        assert_eq!(
            probes_agree(
                &stats(50, 0, 400.0, 900.0),
                &stats(55, 0, 419.0, 940.0),
                false
            ),
            Some(true)
        );
        // censoring: 5 of 50 vs 12 of 110 (5.45 expected) -> within one request
        assert_eq!(
            probes_agree(&stats(50, 5, 1.0, 1.0), &stats(110, 12, 1.0, 1.0), true),
            Some(true)
        );
        assert_eq!(
            probes_agree(&stats(50, 9, 1.0, 1.0), &stats(110, 12, 1.0, 1.0), true),
            Some(false)
        );
        assert_eq!(
            probes_agree(&stats(0, 0, 1.0, 1.0), &stats(110, 12, 1.0, 1.0), true),
            None
        );
    }

    fn round(load: &str, rtt: f64, drops: u64) -> ScenarioRecord {
        let mut r = ScenarioRecord {
            load_label: load.into(),
            ..Default::default()
        };
        r.metrics.tcp_rtt_median_ms = Some(rtt);
        r.metrics.drops = Some(drops);
        r
    }

    #[test]
    fn the_agreement_table_shows_iperf3_against_itself() {
        // iperf3's ten host rounds of the "host10" evidence run: split 5/5
        // between the states, so its own median sits between them and no
        // round is within ±20 % of it.
        let iperf = [
            (533.5, 215),
            (623.1, 234),
            (1023.1, 227),
            (1173.5, 260),
            (1042.5, 259),
            (1064.3, 239),
            (603.7, 273),
            (1129.9, 249),
            (582.0, 200),
            (589.7, 248),
        ];
        let mut rows: Vec<ScenarioRecord> =
            iperf.iter().map(|&(r, d)| round("iperf3", r, d)).collect();
        rows.push(round("netlab", 1050.0, 240));
        rows.push(round("netlab", 510.0, 330));
        let refs: Vec<&ScenarioRecord> = rows.iter().collect();
        let labels = vec!["netlab".to_string(), "iperf3".to_string()];
        let mut out = String::new();
        states_section(&mut out, &refs, &labels, 930.0);
        assert!(out.contains("| iperf3 | 10 | 5 | 5 |"), "{out}");
        // median RTT 823 ms: [658, 987] holds none of iperf3's rounds
        assert!(out.contains("| iperf3 (itself) | 10 | 0 | 10 |"), "{out}");
        assert!(out.contains("| netlab | 2 | 0 | 1 |"), "{out}");
    }

    #[test]
    fn median_and_range() {
        assert_eq!(med_range(vec![3.0, 1.0, 2.0, 10.0], 0), "2 [1–10]");
        assert_eq!(med_range(vec![], 1), "–");
    }
}
