//! What the path did under the arms, said: summary.md's section on the
//! queue and the bottleneck (docs/method.md §14), and the caveats printed
//! beside the figures they qualify (below summary.md's table and beside
//! the report's comparison between arms), from each scenario's
//! [`PathSeen`](crate::path_seen::PathSeen).

use std::fmt::Write as _;

use netlab_results::bottleneck::{
    CORE_SATURATED_BUSY, GOODPUT_SHARE_MIN, HELD_QUEUE_MIN_S, HELD_QUEUE_MIN_SHARE,
};
use netlab_results::merge::index_ranges;
use netlab_results::queue_seen::LINK_HEADER;
use netlab_results::{Bottleneck, QueueSeen, Verdict};

use super::ScenarioFigures;
use crate::path_seen::{num, rate_text, thousands};

/// Per arm kind: the scenarios whose queue held aggregates, the largest
/// own maxpacket and the largest backlog ÷ qlen among them.
#[derive(Default)]
struct ArmAggregates {
    scenarios: Vec<u32>,
    max_packet: Option<u32>,
    aggregate_max: Option<f64>,
}

/// The aggregation caveat: every scenario whose queue held more than one
/// frame (MTU + link header), by arm, with the largest and what it costs
/// at the rate; `None` when no queue did.
pub(crate) fn aggregate_caveat(scenarios: &[ScenarioFigures]) -> Option<String> {
    use std::collections::BTreeMap;
    let mut worst: Option<(f64, &QueueSeen, &ScenarioFigures)> = None;
    let mut by_arm: BTreeMap<&str, ArmAggregates> = BTreeMap::new();
    for f in scenarios {
        for q in &f.path_seen.queue {
            if !q.held_aggregates(f.path_seen.mtu) {
                continue;
            }
            let a = by_arm.entry(f.arm.as_str()).or_default();
            if a.scenarios.last() != Some(&f.index) {
                a.scenarios.push(f.index);
            }
            a.max_packet = a.max_packet.max(q.max_packet_bytes);
            a.aggregate_max = match (a.aggregate_max, q.aggregate_max_bytes) {
                (Some(x), Some(y)) => Some(x.max(y)),
                (x, y) => x.or(y),
            };
            let largest = q.largest_bytes().unwrap_or(0.0);
            if worst.is_none_or(|(w, _, _)| largest > w) {
                worst = Some((largest, q, f));
            }
        }
    }
    let (largest, q, f) = worst?;
    let mut cost = String::new();
    if let (Some(t), Some(rate)) = (q.link_time(largest), q.rate_bps) {
        let _ = write!(
            cost,
            " ({} ms at {}",
            num(t.as_secs_f64() * 1e3),
            rate_text(rate)
        );
        if let Some(target) = f.path_seen.codel_target_ms {
            let _ = write!(cost, "; CoDel's target is {} ms", num(target));
        }
        cost.push(')');
    }
    let which: Vec<String> = by_arm
        .iter()
        .map(|(arm, a)| {
            let mut what = Vec::new();
            if let Some(m) = a.max_packet {
                what.push(format!("maxpacket up to {}", thousands(u64::from(m))));
            }
            if let Some(b) = a.aggregate_max {
                what.push(format!(
                    "backlog ÷ qlen up to {}",
                    thousands(b.round() as u64)
                ));
            }
            format!(
                "{arm} in scenarios {} ({})",
                index_ranges(&a.scenarios),
                what.join(", ")
            )
        })
        .collect();
    Some(format!(
        "the queue held aggregates of up to {} bytes{cost}, more than one {}-byte frame (MTU {} + {LINK_HEADER}): \
         the veths' GSO/GRO hand R's queue skbs of several segments, so a packet limit holds more bytes, a quantum is less \
         than one skb and one skb holds the link longer (docs/method.md §14.1). {}.",
        thousands(largest.round() as u64),
        f.path_seen.mtu + LINK_HEADER,
        f.path_seen.mtu,
        which.join("; ")
    ))
}

/// One direction's evidence in words.
fn evidence_text(d: &netlab_results::DirectionBottleneck) -> String {
    let mut parts = Vec::new();
    match (d.goodput_mbps, d.rate_mbps, d.goodput_share()) {
        (Some(g), Some(r), Some(share)) => parts.push(format!(
            "goodput {} of {} Mbit/s ({:.0} %)",
            crate::stats::fmt_num(g),
            crate::stats::fmt_num(r),
            share * 100.0
        )),
        (None, Some(r), _) => {
            parts.push(format!("no goodput at {} Mbit/s", crate::stats::fmt_num(r)))
        }
        _ => {}
    }
    parts.push(format!(
        "the TBF held ≥ {} ms in {} of {} samples",
        HELD_QUEUE_MIN_S * 1e3,
        d.tbf_samples_queued,
        d.tbf_samples
    ));
    if let Some(n) = d.arm_signals {
        parts.push(format!("the arm dropped or marked {n}"));
    }
    if let Some(n) = d.tbf_overlimits {
        parts.push(format!("TBF overlimits +{n}"));
    }
    parts.join(", ")
}

fn cpu_text(b: &Bottleneck) -> String {
    match &b.cpu {
        Some(c) => format!(
            "busiest CPU {:.0} % busy, netlab used {:.2} CPUs",
            c.busiest() * 100.0,
            c.netlab_cpus()
        ),
        None => "CPU not recorded".to_string(),
    }
}

/// The bottleneck caveats: one per scenario whose comparison needs a flag
/// (a direction not shaper-bound, or a saturated CPU).
pub(crate) fn bottleneck_caveats(scenarios: &[ScenarioFigures]) -> Vec<String> {
    let mut out = Vec::new();
    for f in scenarios {
        let Some(b) = &f.path_seen.bottleneck else {
            continue;
        };
        if !b.flags_comparison() {
            continue;
        }
        let point = if f.point_label.is_empty() || f.point_label == "default" {
            String::new()
        } else {
            format!(", point {}", f.point_label)
        };
        for d in b
            .directions
            .iter()
            .filter(|d| d.verdict != Verdict::Unshaped)
        {
            let head = format!(
                "scenario {} (round {}, {}{point}), {}",
                f.index, f.round, f.arm, d.direction
            );
            let what = if d.verdict == Verdict::ShaperBound {
                format!(
                    "shaper-bound, but a CPU was saturated (≥ {:.0} % busy) over the window: latency figures may include the machine's scheduling delay",
                    CORE_SATURATED_BUSY * 100.0
                )
            } else {
                d.verdict.text().to_string()
            };
            out.push(format!(
                "{head}: {what} — {}, {}{}. The comparison between arms at this point measures the path as much as the arms (docs/method.md §14.2).",
                evidence_text(d),
                cpu_text(b),
                if f.path_seen.recorded { "" } else { "; judged from the recorded counters" }
            ));
        }
    }
    out
}

/// Every caveat of this module, in the order they print.
pub(crate) fn caveats(scenarios: &[ScenarioFigures]) -> Vec<String> {
    aggregate_caveat(scenarios)
        .into_iter()
        .chain(bottleneck_caveats(scenarios))
        .collect()
}

fn opt_bytes(v: Option<f64>) -> String {
    v.map_or("–".into(), |b| thousands(b.round() as u64))
}

impl ScenarioFigures {
    /// summary.md's section: per scenario and direction, what the queue held
    /// and the verdict with its numbers.
    pub fn queue_section(scenarios: &[ScenarioFigures]) -> String {
        let mut s = String::new();
        if scenarios
            .iter()
            .all(|f| f.path_seen.queue.is_empty() && f.path_seen.bottleneck.is_none())
        {
            return s;
        }
        let _ = writeln!(
        s,
        "### The queue and the bottleneck (docs/method.md §14)\n\n\
         Largest packet: the arm's own `maxpacket` (fq_codel, codel; CAKE's `max_skblen`); aggregate: backlog bytes ÷ skbs \
         queued, over the window's samples that held one. Verdict: shaper-bound when goodput or the TBF's own output reached {:.0} % \
         of the rate; short of it, the CPU when one was ≥ {:.0} % busy over the window; else shaper-bound when the TBF held \
         ≥ {} ms in at least {:.0} % of the samples or its arm dropped or marked, and something other (veth, sender) when not. \
         A saturated CPU is flagged either way.\n",
        GOODPUT_SHARE_MIN * 100.0,
        CORE_SATURATED_BUSY * 100.0,
        HELD_QUEUE_MIN_S * 1e3,
        HELD_QUEUE_MIN_SHARE * 100.0
    );
        s.push_str("| # | arm | dir | largest packet B | aggregate max / median B | goodput ÷ rate | TBF sent ÷ rate | TBF queued samples | verdict | busiest CPU | netlab CPUs |\n");
        s.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for f in scenarios {
            let verdicts = f.path_seen.bottleneck.as_ref();
            for q in &f.path_seen.queue {
                let d =
                    verdicts.and_then(|b| b.directions.iter().find(|d| d.direction == q.direction));
                let cpu = verdicts.and_then(|b| b.cpu.as_ref());
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} / {} | {} | {} | {} | {} | {} | {} |",
                    f.index,
                    f.arm,
                    q.direction,
                    q.max_packet_bytes
                        .map_or("–".into(), |m| thousands(u64::from(m))),
                    opt_bytes(q.aggregate_max_bytes),
                    opt_bytes(q.aggregate_median_bytes),
                    d.and_then(|d| d.goodput_share())
                        .map_or("–".into(), |x| format!("{:.0} %", x * 100.0)),
                    d.and_then(|d| d.sent_share())
                        .map_or("–".into(), |x| format!("{:.0} %", x * 100.0)),
                    d.map_or("–".into(), |d| format!(
                        "{}/{}",
                        d.tbf_samples_queued, d.tbf_samples
                    )),
                    d.map_or("–", |d| d.verdict.text()),
                    cpu.map_or("–".into(), |c| format!("{:.0} %", c.busiest() * 100.0)),
                    cpu.map_or("–".into(), |c| format!("{:.2}", c.netlab_cpus())),
                );
            }
        }
        s
    }
}
