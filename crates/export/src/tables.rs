//! Flat tables for pandas and R (docs/usage.md, "Flat tables"), written
//! by the report beside sweep.csv, for every run:
//!
//! - `probes.csv`: one row per request of either probe (every request
//!   results.json logs), with what the probe logged of it and its fate
//!   (method §5.8) in results.json's own words;
//! - `flows.csv`: one row per flow of every scenario.
//!
//! Both start with sweep.csv's columns for the scenario (`scenario`,
//! `point`, `point_label`, each swept axis, `arm`, `arm_words`, `round`).
//! [`crate::render_into`] writes each file's header, then a scenario's rows
//! at a time, so nothing of the tables is held across scenarios
//! (docs/scale.md §3). A censored value is an empty cell with its bound in
//! the `_at_least` column beside it, as sweep.csv writes it; an absent
//! value is an empty cell, never "None"; numbers are written plainly
//! (Rust's shortest round-trip form, no exponent).
//!
//! ```
//! use netlab_export::tables::{flows_header, probes_header};
//! assert!(probes_header(&[]).starts_with("scenario,point,point_label,arm,arm_words,round,probe,"));
//! assert!(flows_header(&[]).contains(",flow,direction,cc,"));
//! ```

use std::collections::HashMap;

use netlab_results::fate::{Fate, LossCause, ProbeFates, RequestFate};

use crate::sweep_file::{axis_fields, axis_header, field};
use netlab_analysis::records::{Logged, ProbeOutcome, ProbePhase, Scenario};
use netlab_compare::sweep::SweepAxis;

/// probes.csv's columns after the scenario's.
pub(crate) const PROBE_COLUMNS: [&str; 13] = [
    "probe",
    "seq",
    "phase",
    "send_s",
    "outcome",
    "fate",
    "cause",
    "rtt_ms",
    "rtt_ms_at_least",
    "late_rtt_ms",
    "one_way_up_ms",
    "one_way_up_ms_at_least",
    "one_way_down_ms",
];

/// flows.csv's columns after the scenario's; the last nine are who got
/// the link (method §1.7, `netlab_results::shares`): the flow's RTT, its
/// host's goodput and share, both Jain indices and the host's three
/// models (docs/models.md, model 5; what `hosts-share-up.svg` draws).
pub(crate) const FLOW_COLUMNS: [&str; 20] = [
    "flow",
    "direction",
    "cc",
    "ecn",
    "goodput_mbps",
    "goodput_share",
    "retransmits",
    "start_s",
    "planned_start_s",
    "state",
    "error",
    "host",
    "host_goodput_mbps",
    "host_goodput_share",
    "jain_flows",
    "jain_hosts",
    "window_rtt_ms",
    "host_model_per_flow",
    "host_model_equal_host",
    "host_model_mathis",
];

/// A number as written: plain, and an empty cell when absent or not
/// finite.
fn num(v: Option<f64>) -> String {
    match v {
        Some(v) if v.is_finite() => format!("{v}"),
        _ => String::new(),
    }
}

fn phase(p: ProbePhase) -> &'static str {
    match p {
        ProbePhase::Baseline => "baseline",
        ProbePhase::Warmup => "warmup",
        ProbePhase::Loaded => "loaded",
        ProbePhase::Other => "other",
    }
}

/// A line of cells, quoted where needed.
fn line(cells: &[String]) -> String {
    let mut l = cells.iter().map(|c| field(c)).collect::<Vec<_>>().join(",");
    l.push('\n');
    l
}

/// The scenario's columns, as sweep.csv starts its rows.
fn lead_header(axes: &[SweepAxis]) -> Vec<String> {
    let mut h = vec!["scenario".to_string(), "point".into(), "point_label".into()];
    h.extend(axis_header(axes));
    h.extend(["arm", "arm_words", "round"].map(String::from));
    h
}

/// The cells of [`lead_header`] for `s`.
fn lead(s: &Scenario, axes: &[SweepAxis]) -> Vec<String> {
    let mut f = vec![
        s.index.to_string(),
        s.point.index.to_string(),
        s.point.label.clone(),
    ];
    f.extend(axis_fields(
        axes,
        &netlab_compare::sweep::axis_values(s, axes),
    ));
    f.extend([s.arm.clone(), s.arm_words.clone(), s.round.to_string()]);
    f
}

/// probes.csv's header line for a run whose sweep has `axes` (none
/// without a sweep: [`netlab_compare::sweep::SweepAxis::of_scenarios`]).
pub fn probes_header(axes: &[SweepAxis]) -> String {
    let mut h = lead_header(axes);
    h.extend(PROBE_COLUMNS.map(String::from));
    line(&h)
}

/// flows.csv's header line ([`probes_header`]).
pub fn flows_header(axes: &[SweepAxis]) -> String {
    let mut h = lead_header(axes);
    h.extend(FLOW_COLUMNS.map(String::from));
    line(&h)
}

/// A fate's word in results.json (`fate` of netlab-results'
/// [`Fate`]).
pub(crate) fn fate_word(f: &Fate) -> &'static str {
    match f {
        Fate::Replied { .. } => "replied",
        Fate::ReachedB { .. } => "reached_b",
        Fate::NeverReachedB { .. } => "never_reached_b",
        Fate::NotSent { .. } => "not_sent",
        Fate::Unresolved => "unresolved",
    }
}

/// Why a request's fate is what it is, where results.json says: for one
/// that never reached B the drop reason matched to the arm's counter in
/// results.json's words (`tail_drop`, `codel_drop`) or `unknown: NOTE`;
/// for one never sent, why.
fn cause(f: &Fate) -> String {
    match f {
        Fate::NeverReachedB {
            cause: LossCause::DroppedAtBottleneck { reason, .. },
        } => serde_json::to_value(reason)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default(),
        Fate::NeverReachedB {
            cause: LossCause::Unknown { note },
        } => format!("unknown: {note}"),
        Fate::NotSent { why } => why.clone(),
        _ => String::new(),
    }
}

/// The one-way A→B delay and the late reply's RTT a fate records.
fn fate_delays(f: &Fate) -> (Option<f64>, Option<f64>) {
    match f {
        Fate::Replied { one_way_ms, .. } => (*one_way_ms, None),
        Fate::ReachedB {
            one_way_ms,
            late_rtt_ms,
        } => (*one_way_ms, *late_rtt_ms),
        _ => (None, None),
    }
}

/// A probe's fates by sequence number.
fn by_seq(fates: Option<&ProbeFates>) -> HashMap<u32, &RequestFate> {
    fates
        .map(|f| f.requests.iter().map(|r| (r.seq, r)).collect())
        .unwrap_or_default()
}

/// One request's cells after the scenario's.
struct Request<'a> {
    probe: &'static str,
    seq: u32,
    phase: ProbePhase,
    send_s: Option<f64>,
    logged: Logged,
    outcome: ProbeOutcome,
    timeout_ms: f64,
    late_rtt_ms: Option<f64>,
    up_ms: Option<f64>,
    down_ms: Option<f64>,
    fate: Option<&'a RequestFate>,
    /// When B's echo of this probe closed, s since t0 (an unresolved
    /// request's bound), when recorded.
    closed_s: Option<f64>,
}

impl Request<'_> {
    fn cells(&self) -> Vec<String> {
        let fate = self.fate.map(|r| &r.fate);
        let (fate_up, fate_late) = fate.map_or((None, None), fate_delays);
        // An unresolved request is censored at its own bound, B's close
        // less its send (method §5.8), never at another's delay.
        let up_at_least = match (fate, self.closed_s, self.fate.and_then(|r| r.send_s)) {
            (Some(Fate::Unresolved), Some(c), Some(t)) => Some(netlab_analysis::own_bound_ms(c, t)),
            _ => None,
        };
        let (rtt, at_least) = match self.outcome {
            ProbeOutcome::Reply { rtt_ms } => (Some(rtt_ms), None),
            ProbeOutcome::Timeout => (None, Some(self.timeout_ms)),
            ProbeOutcome::NoInformation => (None, None),
        };
        vec![
            self.probe.to_string(),
            self.seq.to_string(),
            phase(self.phase).to_string(),
            num(self.send_s.or(self.fate.and_then(|r| r.send_s))),
            self.logged.as_str().to_string(),
            fate.map_or("", fate_word).to_string(),
            fate.map(cause).unwrap_or_default(),
            num(rtt),
            num(at_least),
            num(self.late_rtt_ms.or(fate_late)),
            num(self.up_ms.or(fate_up)),
            num(up_at_least),
            num(self.down_ms),
        ]
    }
}

/// probes.csv's rows of one scenario: every stop-and-wait request, then
/// every isochronous slot, each as results.json logs it.
pub fn probe_rows(s: &Scenario, axes: &[SweepAxis]) -> String {
    let lead = lead(s, axes);
    let mut out = String::new();
    let mut push = |r: Request<'_>| {
        let mut cells = lead.clone();
        cells.extend(r.cells());
        out.push_str(&line(&cells));
    };
    let fates = by_seq(s.fates.as_ref());
    for p in &s.probes {
        push(Request {
            probe: "stop_and_wait",
            seq: p.seq,
            phase: p.phase,
            send_s: Some(p.send_s),
            logged: p.logged,
            outcome: p.outcome,
            timeout_ms: s.probe_timeout_s * 1e3,
            late_rtt_ms: p.late_rtt_ms,
            up_ms: None,
            down_ms: None,
            fate: fates.get(&p.seq).copied(),
            closed_s: s.echo_closed_s,
        });
    }
    if let Some(iso) = &s.iso {
        let fates = by_seq(iso.fates.as_ref());
        for r in &iso.requests {
            push(Request {
                probe: "isochronous",
                seq: r.seq,
                phase: r.phase,
                send_s: r.send_s,
                logged: r.logged,
                outcome: r.outcome,
                timeout_ms: iso.timeout_s * 1e3,
                late_rtt_ms: r.late_rtt_ms,
                up_ms: r.up_ms,
                down_ms: r.down_ms,
                fate: fates.get(&r.seq).copied(),
                closed_s: iso.closed_s,
            });
        }
    }
    out
}

/// flows.csv's rows of one scenario: every flow, failed ones included.
/// The round's state (method §12.6, [`RoundState::of`](netlab_analysis::state::RoundState::of), as
/// sweep.csv gives it) is on the flow it is read from, the first.
pub fn flow_rows(s: &Scenario, axes: &[SweepAxis]) -> String {
    let lead = lead(s, axes);
    let state = netlab_analysis::state::RoundState::of(s)
        .ok()
        .map(|st| st.kind.short())
        .unwrap_or_default();
    // Each direction's flows' window goodput together: a flow's share is
    // of that (empty when a flow of the direction has none); its host's
    // share likewise, and Jain's index over the flows and the hosts.
    let inputs: Vec<netlab_results::shares::FlowGoodput<'_>> = s
        .flow_records
        .iter()
        .map(|f| netlab_results::shares::FlowGoodput {
            direction: &f.direction,
            host: f.host.as_deref().unwrap_or(""),
            goodput_mbps: f.goodput_mbps,
            rtt_ms: f.rtt_ms,
        })
        .collect();
    let shares = netlab_results::shares::of_flows(&inputs);
    let mut out = String::new();
    for (k, f) in s.flow_records.iter().enumerate() {
        let fs = shares.flows[k];
        let d = shares
            .directions
            .iter()
            .find(|d| d.direction == f.direction);
        let host = f.host.as_deref().unwrap_or("");
        let h = d.and_then(|d| d.hosts.iter().find(|h| h.host == host));
        let mut cells = lead.clone();
        cells.extend([
            f.number.to_string(),
            f.direction.clone(),
            f.cc.clone(),
            f.ecn.to_string(),
            num(f.goodput_mbps),
            num(fs.share),
            f.retransmits.map_or_else(String::new, |r| r.to_string()),
            num(Some(f.start_s())),
            num(Some(f.planned_start_s)),
            if k == 0 { state.clone() } else { String::new() },
            f.error.clone().unwrap_or_default(),
            f.host.clone().unwrap_or_default(),
            num(fs.host_goodput_mbps),
            num(fs.host_share),
            num(d.and_then(|d| d.jain_flows)),
            num(d.and_then(|d| d.jain_hosts)),
            num(f.rtt_ms),
            num(h.map(|h| h.model_per_flow)),
            num(h.map(|h| h.model_equal_host)),
            num(h.and_then(|h| h.model_mathis)),
        ]);
        out.push_str(&line(&cells));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_results::fate::DropReason;

    /// The words are results.json's own: what serde writes for each.
    #[test]
    fn fate_and_outcome_words_are_results_json_s() {
        let fates = [
            Fate::Replied {
                rtt_ms: 1.0,
                one_way_ms: None,
            },
            Fate::ReachedB {
                one_way_ms: None,
                late_rtt_ms: None,
            },
            Fate::NeverReachedB {
                cause: LossCause::Unknown { note: "n".into() },
            },
            Fate::NotSent { why: "w".into() },
            Fate::Unresolved,
        ];
        for f in &fates {
            let v = serde_json::to_value(f).unwrap();
            assert_eq!(v["fate"], fate_word(f), "{f:?}");
        }
        use netlab_probe::{IsoOutcome, RequestOutcome};
        let iso = [
            (IsoOutcome::Pending, Logged::Pending),
            (IsoOutcome::Reply, Logged::Reply),
            (IsoOutcome::Timeout, Logged::Timeout),
            (IsoOutcome::Missed, Logged::Missed),
            (
                IsoOutcome::SendError { error: "e".into() },
                Logged::SendError,
            ),
            (IsoOutcome::Abandoned, Logged::Abandoned),
        ];
        for (o, l) in iso {
            assert_eq!(serde_json::to_value(&o).unwrap()["kind"], l.as_str());
        }
        let sw = [
            (RequestOutcome::Pending, Logged::Pending),
            (RequestOutcome::Reply, Logged::Reply),
            (RequestOutcome::Timeout, Logged::Timeout),
            (
                RequestOutcome::SendError { error: "e".into() },
                Logged::SendError,
            ),
            (RequestOutcome::Abandoned, Logged::Abandoned),
        ];
        for (o, l) in sw {
            assert_eq!(serde_json::to_value(&o).unwrap()["kind"], l.as_str());
        }
        let dropped = Fate::NeverReachedB {
            cause: LossCause::DroppedAtBottleneck {
                qdisc: "pfifo".into(),
                reason: DropReason::TailDrop,
                interval_s: [1.0, 1.1],
                drops_in_interval: 3,
            },
        };
        assert_eq!(cause(&dropped), "tail_drop");
    }

    /// A timeout is censored (empty RTT, the bound beside it), a reply
    /// exact; no cell reads "None" and numbers carry no exponent.
    #[test]
    fn a_timeout_is_an_empty_rtt_with_its_bound_beside_it() {
        let input = netlab_analysis::testing::input(1);
        let s = &input.scenarios[0];
        let text = format!("{}{}", probes_header(&[]), probe_rows(s, &[]));
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
        let col = |n: &str| rows[0].iter().position(|h| *h == n).unwrap();
        let (rtt, bound, outcome) = (col("rtt_ms"), col("rtt_ms_at_least"), col("outcome"));
        assert_eq!(rows.len() - 1, s.probes.len());
        let timeouts: Vec<&Vec<&str>> = rows[1..]
            .iter()
            .filter(|r| r[outcome] == "timeout")
            .collect();
        assert!(!timeouts.is_empty());
        for r in timeouts {
            assert_eq!((r[rtt], r[bound]), ("", "1000"), "{r:?}");
        }
        for r in rows[1..].iter().filter(|r| r[outcome] == "reply") {
            assert!(
                r[bound].is_empty() && r[rtt].parse::<f64>().is_ok(),
                "{r:?}"
            );
        }
        assert!(rows.iter().all(|r| r.len() == rows[0].len()));
        assert!(!text.contains("None") && !text.contains("e-") && !text.contains("NaN"));
        assert_eq!(num(Some(1e-7)), "0.0000001");
        assert_eq!(num(Some(f64::NAN)), "");
    }
}
