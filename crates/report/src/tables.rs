//! Flat tables for pandas and R (docs/usage.md, "Flat tables"), written
//! beside results.json by every command that finishes a results folder:
//!
//! - `probes.csv`: one row per probe request of every scenario, both
//!   probes, each with its fate as results.json records it;
//! - `flows.csv`: one row per flow of every scenario.
//!
//! Rows are made one scenario at a time ([`Tables::push`]), so the tables
//! grow with the run's requests, never with its raw samples held
//! together. A censored value is an empty cell with its bound in the
//! `_at_least` column beside it, as sweep.csv writes it; no cell reads
//! "None".
//!
//! ```
//! let t = netlab_report::tables::Tables::new(&["rate".to_string()]);
//! assert!(t.probes_csv().starts_with("scenario,round,arm,arm_words,point,rate,probe,"));
//! ```

use netlab_probe::{IsoOutcome, Phase, RequestOutcome};
use netlab_results::fate::{Fate, LossCause};
use netlab_results::ScenarioResult;

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn num(v: Option<f64>) -> String {
    v.map_or_else(String::new, |v| format!("{v}"))
}

fn phase(p: Phase) -> &'static str {
    match p {
        Phase::Baseline => "baseline",
        Phase::Warmup => "warmup",
        Phase::Loaded => "loaded",
        _ => "other",
    }
}

/// The two tables of a run, filled one scenario at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct Tables {
    /// The sweep's axes (a column each), in the experiment's order.
    axes: Vec<String>,
    probes: String,
    flows: String,
    /// Rows written so far: (probes, flows).
    pub rows: (usize, usize),
}

/// probes.csv's columns after the scenario's own.
const PROBE_COLUMNS: &str = "probe,seq,phase,send_s,fate,cause,rtt_ms,rtt_ms_at_least,late_rtt_ms,one_way_up_ms,one_way_down_ms";
/// flows.csv's columns after the scenario's own.
const FLOW_COLUMNS: &str =
    "flow,direction,cc,ecn,goodput_mbps,retransmits_total,start_s,connect_s,state,error";

impl Tables {
    /// Empty tables of a run whose sweep has these axes (none without a
    /// sweep).
    pub fn new(axes: &[String]) -> Tables {
        let lead = |rest: &str| {
            let mut h = String::from("scenario,round,arm,arm_words,point");
            for a in axes {
                h.push(',');
                h.push_str(&field(a));
            }
            format!("{h},{rest}\n")
        };
        Tables {
            axes: axes.to_vec(),
            probes: lead(PROBE_COLUMNS),
            flows: lead(FLOW_COLUMNS),
            rows: (0, 0),
        }
    }

    /// The axes of a run's experiment (`rate`, `flows`), in its order.
    pub fn axes_of(f: &netlab_experiment::ExperimentFile) -> Vec<String> {
        netlab_experiment::Experiment::from_file(f)
            .map(|e| {
                e.sweep
                    .axes
                    .iter()
                    .filter_map(|a| a.first())
                    .map(|v| v.label().split('=').next().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The columns every row starts with.
    fn lead(&self, s: &ScenarioResult, label: &str) -> String {
        let mut l = format!(
            "{},{},{},{},{}",
            s.index,
            s.round,
            field(label),
            field(&s.arm_words),
            field(&s.point.label)
        );
        for a in &self.axes {
            let v = s
                .point
                .values
                .iter()
                .find_map(|v| v.strip_prefix(&format!("{a}=")))
                .unwrap_or("");
            l.push(',');
            l.push_str(&field(v));
        }
        l
    }

    /// Adds one scenario's rows; `label` is its arm's label
    /// ([`crate::arms`]) and `state` its round's state, if classified.
    pub fn push(&mut self, s: &ScenarioResult, label: &str, state: Option<&str>) {
        let lead = self.lead(s, label);
        if let Some(p) = s.probe() {
            let timeout_ms = p.config.timeout.as_secs_f64() * 1e3;
            match p.fates.as_ref() {
                Some(f) => {
                    for r in &f.requests {
                        let c = fate_cells(&r.fate, timeout_ms);
                        self.probe_row(
                            &lead,
                            "stop_and_wait",
                            r.seq,
                            r.phase,
                            r.send_s,
                            [c.fate, &c.cause],
                            [c.rtt, c.at_least, c.late, c.up, None],
                        );
                    }
                }
                None => {
                    for r in &p.requests {
                        let (fate, at_least) = match &r.outcome {
                            RequestOutcome::Reply => ("replied", None),
                            RequestOutcome::Timeout => ("timeout", Some(timeout_ms)),
                            RequestOutcome::SendError { .. } => ("send_error", None),
                            RequestOutcome::Abandoned => ("abandoned", None),
                            RequestOutcome::Pending => ("pending", None),
                        };
                        self.probe_row(
                            &lead,
                            "stop_and_wait",
                            r.seq,
                            r.phase,
                            Some(r.send_s),
                            [fate, ""],
                            [r.rtt_ms, at_least, r.late_rtt_ms, None, None],
                        );
                    }
                }
            }
        }
        if let Some(iso) = &s.iso_probe {
            let timeout_ms = iso.log.config.timeout.as_secs_f64() * 1e3;
            for r in &iso.log.requests {
                let (fate, at_least) = match &r.outcome {
                    IsoOutcome::Reply => ("replied", None),
                    IsoOutcome::Timeout if r.late_rtt_ms.is_some() => {
                        ("late_reply", Some(timeout_ms))
                    }
                    IsoOutcome::Timeout => ("no_reply", Some(timeout_ms)),
                    IsoOutcome::Missed => ("slot_missed", None),
                    IsoOutcome::SendError { .. } => ("send_error", None),
                    IsoOutcome::Pending => ("pending", None),
                    IsoOutcome::Abandoned => ("abandoned", None),
                };
                self.probe_row(
                    &lead,
                    "isochronous",
                    r.seq,
                    r.phase,
                    r.send_s,
                    [fate, ""],
                    [r.rtt_ms, at_least, r.late_rtt_ms, r.up_ms, r.down_ms],
                );
            }
        }
        for (k, f) in s.flows.iter().enumerate() {
            let tcp = f.tcp.as_ref();
            let retrans = f
                .tcp_info
                .iter()
                .rev()
                .find_map(|t| t.info.as_ref().map(|i| i.total_retrans));
            let row = format!(
                "{lead},{},{},{},{},{},{},{},{},{},{}\n",
                f.index + 1,
                field(&f.direction),
                field(&tcp.map_or_else(|| f.cc.clone(), |t| t.cc_readback.clone())),
                f.ecn,
                num(tcp.and_then(|t| t.goodput_mbps)),
                retrans.map_or_else(String::new, |r| r.to_string()),
                num(Some(f.start_s)),
                num(tcp.map(|t| t.connect_s)),
                // The round's state is its first flow's (method §12.6).
                field(if k == 0 { state.unwrap_or("") } else { "" }),
                field(f.error.as_deref().unwrap_or("")),
            );
            self.flows.push_str(&row);
            self.rows.1 += 1;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn probe_row(
        &mut self,
        lead: &str,
        probe: &str,
        seq: u32,
        p: Phase,
        send_s: Option<f64>,
        [fate, cause]: [&str; 2],
        [rtt, at_least, late, up, down]: [Option<f64>; 5],
    ) {
        self.probes.push_str(&format!(
            "{lead},{probe},{seq},{},{},{fate},{},{},{},{},{},{}\n",
            phase(p),
            num(send_s),
            field(cause),
            num(rtt),
            num(at_least),
            num(late),
            num(up),
            num(down),
        ));
        self.rows.0 += 1;
    }

    /// probes.csv's text.
    pub fn probes_csv(&self) -> &str {
        &self.probes
    }

    /// flows.csv's text.
    pub fn flows_csv(&self) -> &str {
        &self.flows
    }
}

/// A stop-and-wait request's cells from its fate.
struct FateCells {
    fate: &'static str,
    cause: String,
    rtt: Option<f64>,
    at_least: Option<f64>,
    late: Option<f64>,
    up: Option<f64>,
}

/// The cells of a request of fate `f`: the RTT, its bound when censored,
/// a late reply's RTT, the one-way delay.
fn fate_cells(f: &Fate, timeout_ms: f64) -> FateCells {
    let cells = |fate, cause: String| FateCells {
        fate,
        cause,
        rtt: None,
        at_least: None,
        late: None,
        up: None,
    };
    match f {
        Fate::Replied { rtt_ms, one_way_ms } => FateCells {
            rtt: Some(*rtt_ms),
            up: *one_way_ms,
            ..cells("replied", String::new())
        },
        Fate::ReachedB {
            one_way_ms,
            late_rtt_ms,
        } => FateCells {
            at_least: Some(timeout_ms),
            late: *late_rtt_ms,
            up: *one_way_ms,
            ..cells("reached_b_late", String::new())
        },
        Fate::NeverReachedB { cause } => {
            let c = match cause {
                LossCause::DroppedAtBottleneck { qdisc, reason, .. } => {
                    format!("{} ({qdisc})", reason.as_words())
                }
                LossCause::Unknown { note } => format!("cause unknown: {note}"),
            };
            cells("never_reached_b", c)
        }
        Fate::NotSent { why } => cells("not_sent", why.clone()),
        Fate::Unresolved => cells("unresolved", String::new()),
    }
}
