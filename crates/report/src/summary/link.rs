//! summary.md's section on a moving bottleneck (method §15.5–§15.6,
//! docs/models.md model 6): per scenario, each drop with a FIFO's delay
//! beside its bound at the new rate or an AQM's recovery time, the TBF's
//! sent bytes against the schedule, and the changes' lateness; over a
//! trace, each round's use of the link and its p95 one-way delay.

use std::fmt::Write as _;

use netlab_analysis::link::{DropFigures, LinkFigures};
use netlab_analysis::summary::ScenarioFigures;

/// A FIFO's delay after a drop is read as at its bound within this share.
pub const FIFO_BOUND_TOLERANCE: f64 = 0.2;

fn rate(bps: Option<u64>) -> String {
    match bps {
        None => "an outage".to_string(),
        Some(b) => format!("{} Mbit/s", netlab_stats::describe::fmt_num(b as f64 / 1e6)),
    }
}

fn no_reply(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(
            "; {n} request(s) without a reply (tail drops below a bound shorter than the timeout)"
        )
    }
}

/// Why a FIFO's delay stayed below its bound, when it did and the
/// isochronous probe ran: its requests hold places in the packet-counted
/// queue, so a full queue delays less (method §15.6); the median beside
/// that figure. Empty otherwise.
fn why_below(f: &netlab_analysis::link::FifoAfterDrop) -> String {
    let (Some(m), Some(full), Some(places)) = (f.measured_ms, f.full_with_probe_ms, f.probe_places)
    else {
        return String::new();
    };
    if m >= (1.0 - FIFO_BOUND_TOLERANCE) * f.bound_ms {
        return String::new();
    }
    let r = m / full;
    let verdict = if (r - 1.0).abs() <= FIFO_BOUND_TOLERANCE {
        "within 20 % of it".to_string()
    } else if r < 1.0 {
        format!("{:.0} % below it", 100.0 * (1.0 - r))
    } else {
        format!("{:.0} % above it", 100.0 * (r - 1.0))
    };
    format!(
        ". Why below: the isochronous probe's requests hold places in this packet-counted \
         queue as frames do, so when full it holds about {places:.0} requests and delays \
         {full:.0} ms, not {:.0} ms (method §15.6); the median is {verdict}",
        f.bound_ms
    )
}

/// What happened after one drop, in words.
pub fn after_drop(d: &DropFigures) -> String {
    if let Some(f) = d.fifo {
        return match (f.measured_ms, f.ratio()) {
            (Some(m), Some(r)) => {
                let verdict = if (r - 1.0).abs() <= FIFO_BOUND_TOLERANCE {
                    "within 20 % of".to_string()
                } else if r < 1.0 {
                    format!("{:.0} % below", 100.0 * (1.0 - r))
                } else {
                    format!("{:.0} % above", 100.0 * (r - 1.0))
                };
                let p95 = f
                    .p95_ms
                    .map(|p| format!(" (p95 {p:.0} ms, {:.0} % of it)", 100.0 * p / f.bound_ms))
                    .unwrap_or_default();
                format!(
                    "FIFO queueing delay {m:.0} ms (median over the step's second half), {verdict} \
                     its bound {:.0} ms at the new rate{p95}{}{}",
                    f.bound_ms,
                    no_reply(f.no_reply),
                    why_below(&f)
                )
            }
            _ => format!(
                "FIFO bound {:.0} ms at the new rate; no probe request of the step's second half \
                 reached B in time{}",
                f.bound_ms,
                no_reply(f.no_reply)
            ),
        };
    }
    if let Some(r) = d.aqm {
        let drops = if r.no_reply > 0 {
            format!(
                "; {} request(s) of the step without a reply (drops, not delays)",
                r.no_reply
            )
        } else {
            String::new()
        };
        return match r.recovered_after_s {
            Some(t) => format!(
                "peak {:.0} ms at +{:.1} s; back under {:.1} ms (base + target + one frame) after \
                 {t:.1} s{drops}",
                r.peak_ms, r.peak_after_s, r.threshold_ms
            ),
            None => format!(
                "peak {:.0} ms at +{:.1} s; not back under {:.1} ms (base + target + one frame) \
                 within the step's {:.1} s: ≥ {:.1} s{drops}",
                r.peak_ms, r.peak_after_s, r.threshold_ms, r.observed_s, r.observed_s
            ),
        };
    }
    "–".to_string()
}

fn tracking(l: &LinkFigures) -> String {
    if l.bins_backlogged == 0 {
        return "no backlogged 1 s bin".to_string();
    }
    let (off, late) = l.untracked_late;
    let late = if late > 0 {
        format!("; {late} of the {off} off had the driver's readings over 150 ms apart (the machine late)")
    } else {
        String::new()
    };
    // A bin with a change may send the burst that change refilled beyond
    // its offer (method §15.5): the verdict allows it, the largest gap is
    // against the offer alone, so both are said.
    format!(
        "{}/{} backlogged 1 s bins within 5 % of the offer and its refilled bursts{}{late}",
        l.bins_tracking,
        l.bins_backlogged,
        l.worst_deviation
            .map(|w| format!(" (largest gap to the offer alone {:.1} %)", 100.0 * w))
            .unwrap_or_default()
    )
}

/// The section, when a scenario's rate moved.
pub fn link_section(scenarios: &[ScenarioFigures]) -> Option<String> {
    let with: Vec<(&ScenarioFigures, &LinkFigures)> = scenarios
        .iter()
        .filter_map(|s| s.link.as_ref().map(|l| (s, l)))
        .collect();
    if with.is_empty() {
        return None;
    }
    let mut out = String::from(
        "When the rate moved (method §15; docs/models.md, model 6). After each drop: a FIFO's \
         one-way queueing delay beside its bound at the new rate (limit × 1,514 B ÷ rate), or an \
         AQM's peak and recovery time (until, after its highest bin, the probe's one-way delay in \
         100 ms bins stays under the baseline's one-way delay + the arm's target + one frame's \
         time at the new rate for one 100 ms interval). A FIFO's median sits below its bound \
         when the flow's window cuts drain the queue between losses (a loss-based sawtooth spans \
         the buffer); its p95 says how near the top of each cycle comes to the limit. The TBF's sent bytes are held against what the schedule \
         offered per 1 s bin (+ the burst each change refills); lateness is each change's ACK \
         time − its planned time.\n\n",
    );
    out.push_str("| Scenario | round | arm | point | drop at | to | after the drop | TBF sent vs schedule | lateness p50/p99/max ms |\n");
    out.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for (s, l) in &with {
        let late = l.lateness_ms.map_or("–".to_string(), |(a, b, c, n)| {
            format!("{a:.2} / {b:.2} / {c:.2} ({n})")
        });
        let not_applied = if l.changes_not_applied > 0 {
            format!(", {} not applied", l.changes_not_applied)
        } else {
            String::new()
        };
        if l.drops.is_empty() {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | – | – | – | {} | {late}{not_applied} |",
                s.index,
                s.round,
                s.arm,
                s.point_label,
                tracking(l)
            );
        }
        // A trace has hundreds of drops: its table rows are its rounds.
        for d in l
            .drops
            .iter()
            .take(if l.trace.is_some() { 0 } else { usize::MAX })
        {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {:.2} s | {} | {} | {} | {late}{not_applied} |",
                s.index,
                s.round,
                s.arm,
                s.point_label,
                d.drop.at_s,
                rate(d.drop.to_bps),
                after_drop(d),
                tracking(l)
            );
        }
    }
    let traced: Vec<_> = with
        .iter()
        .filter_map(|(s, l)| l.trace.map(|t| (s, l, t)))
        .collect();
    if !traced.is_empty() {
        out.push_str(
            "\nOver the trace, per round (the throughput–delay plane): the link's use (bytes \
             delivered to the receivers over the measured window ÷ the bytes the trace offered \
             at the TBF in it; payload against frames, so 100 % is out of reach by the headers, \
             1448 of 1514 B) and the probe's one-way p95 (\"≥\": it falls on a request that \
             timed out).\n\n| Scenario | round | arm | use | one-way p95 ms | TBF sent vs schedule |\n|---|---|---|---|---|---|\n",
        );
        for (s, l, t) in traced {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.1} % | {}{:.1} | {} |",
                s.index,
                s.round,
                s.arm,
                100.0 * t.utilisation,
                if t.p95_censored { "≥ " } else { "" },
                t.p95_ms,
                tracking(l)
            );
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_analysis::link::{FifoAfterDrop, Recovery};
    use netlab_analysis::link_series::RateDrop;

    fn figures(arm: &str, drops: Vec<DropFigures>) -> ScenarioFigures {
        let mut f = ScenarioFigures::of(&netlab_results::ScenarioResult {
            index: 1,
            round: 2,
            arm: arm.into(),
            ..Default::default()
        });
        f.link = Some(LinkFigures {
            drops,
            bins_backlogged: 10,
            bins_tracking: 9,
            worst_deviation: Some(0.065),
            untracked_late: (1, 1),
            lateness_ms: Some((0.3, 1.2, 1.2, 2)),
            changes_not_applied: 0,
            trace: None,
        });
        f
    }

    const DROP: RateDrop = RateDrop {
        at_s: 5.0,
        from_bps: Some(10_000_000),
        to_bps: Some(2_000_000),
        until_s: Some(9.0),
    };

    fn fifo_below(measured_ms: f64, full_with_probe_ms: Option<f64>) -> FifoAfterDrop {
        FifoAfterDrop {
            drop: DROP,
            bound_ms: 775.0,
            measured_ms: Some(measured_ms),
            p95_ms: Some(600.0),
            no_reply: 0,
            full_with_probe_ms,
            probe_places: full_with_probe_ms.map(|f| f / 20.0),
        }
    }

    #[test]
    fn a_fifo_below_its_bound_is_set_beside_the_queue_the_probe_shares() {
        let said = |f| {
            after_drop(&DropFigures {
                drop: DROP,
                fifo: Some(f),
                aqm: None,
            })
        };
        let shared = said(fifo_below(501.0, Some(603.0)));
        assert!(shared.contains("35 % below its bound 775 ms"), "{shared}");
        assert!(
            shared.contains("holds about 30 requests and delays 603 ms, not 775 ms"),
            "{shared}"
        );
        assert!(
            shared.contains("the median is within 20 % of it"),
            "{shared}"
        );
        let far = said(fifo_below(300.0, Some(603.0)));
        assert!(far.contains("the median is 50 % below it"), "{far}");
        // Without the probe, or at the bound, there is nothing to add.
        assert!(!said(fifo_below(501.0, None)).contains("Why below"));
        assert!(!said(fifo_below(700.0, Some(603.0))).contains("Why below"));
    }

    #[test]
    fn a_fifo_and_an_aqm_are_said_each_in_its_terms() {
        let fifo = figures(
            "pfifo",
            vec![DropFigures {
                drop: DROP,
                fifo: Some(FifoAfterDrop {
                    drop: DROP,
                    bound_ms: 775.0,
                    measured_ms: Some(508.0),
                    p95_ms: Some(700.0),
                    no_reply: 3,
                    full_with_probe_ms: None,
                    probe_places: None,
                }),
                aqm: None,
            }],
        );
        let aqm = figures(
            "codel",
            vec![DropFigures {
                drop: DROP,
                fifo: None,
                aqm: Some(Recovery {
                    drop: DROP,
                    threshold_ms: 21.1,
                    peak_ms: 80.0,
                    peak_after_s: 0.3,
                    no_reply: 4,
                    recovered_after_s: None,
                    observed_s: 4.0,
                }),
            }],
        );
        let s = link_section(&[fifo, aqm]).unwrap();
        assert!(s.contains("FIFO queueing delay 508 ms"), "{s}");
        assert!(
            s.contains("34 % below its bound 775 ms at the new rate (p95 700 ms, 90 % of it)"),
            "{s}"
        );
        assert!(s.contains("3 request(s) without a reply"), "{s}");
        // Without the probe's figure no reason is given.
        assert!(!s.contains("Why below"), "{s}");
        assert!(s.contains("not back under 21.1 ms"), "{s}");
        assert!(
            s.contains("≥ 4.0 s; 4 request(s) of the step without a reply"),
            "{s}"
        );
        assert!(s.contains("peak 80 ms at +0.3 s"), "{s}");
        assert!(
            s.contains(
                "9/10 backlogged 1 s bins within 5 % of the offer and its refilled bursts (largest gap to the offer alone 6.5 %)"
            ),
            "{s}"
        );
        assert!(s.contains("0.30 / 1.20 / 1.20 (2)"), "{s}");
        assert!(link_section(&[ScenarioFigures::of(&Default::default())]).is_none());
    }
}
