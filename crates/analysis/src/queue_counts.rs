//! The arm's queue as results.json recorded it, reduced to the report's
//! samples: its backlog and counters over time, its counters at the end of
//! the measured window, and the drops and marks inside that window.

use netlab_qdisc_model::{QdiscRecord, QdiscXstats, ARM_HANDLE};
use netlab_results::{QdiscResult, ScenarioResult};

use crate::records::{BacklogSample, FinalCounters};

/// The arm's drops and ECN marks inside a scenario's measured window, as
/// [`Scenario::window_counts`] counts them (`None` when they cannot be
/// read), straight from its results.
pub(crate) fn window_signals(s: &ScenarioResult) -> Option<u64> {
    let q = s.qdisc_of("up").or_else(|| s.qdiscs.first());
    let window = s
        .flows
        .iter()
        .find_map(|f| f.tcp.as_ref().map(|t| t.window_s));
    let samples = q.map(qdisc_samples).unwrap_or_default();
    crate::records::window_counts(window, &samples, &final_counters(s, q))
        .map(|w| w.drops + w.marks.unwrap_or(0))
}

/// The arm's backlog and counters over time.
pub(crate) fn qdisc_samples(q: &QdiscResult) -> Vec<BacklogSample> {
    q.samples
        .iter()
        .filter_map(|q| {
            let r = q.records.iter().find(|r| r.handle == ARM_HANDLE)?;
            let st = r.stats?;
            Some(BacklogSample {
                t_s: q.t_s?,
                backlog_bytes: u64::from(st.backlog_bytes),
                backlog_packets: u64::from(st.backlog_packets),
                drops: u64::from(st.drops),
                ecn_marks: r.xstats.as_ref().and_then(ecn_marks),
                packets: st.packets,
            })
        })
        .collect()
}

/// Counters at the end of the measured window: `q`'s final readback and
/// the marks seen on the wire.
pub(crate) fn final_counters(s: &ScenarioResult, q: Option<&QdiscResult>) -> FinalCounters {
    let fin = q.map(|q| q.at_window_end.as_slice()).unwrap_or_default();
    let arm_final = arm_record(fin);
    FinalCounters {
        taken_s: q.and_then(|q| q.final_taken_s),
        arm_drops: arm_final
            .and_then(|r| r.stats)
            .map(|st| u64::from(st.drops)),
        tbf_drops: fin
            .iter()
            .find(|r| r.kind == "tbf")
            .and_then(|r| r.stats)
            .map(|st| u64::from(st.drops)),
        ecn_marks: arm_final
            .and_then(|r| r.xstats.as_ref())
            .and_then(ecn_marks),
        arm_packets: arm_final.and_then(|r| r.stats).map(|st| st.packets),
        wire_ce_ece_cwr: s.ecn.as_ref().map(|e| {
            let c = &e.evidence.counts;
            (c.ce, c.ece, c.cwr)
        }),
    }
}

/// The arm's record: the qdisc at the arm's handle (`10:`), whether TBF is
/// the root or hangs below a netem delay.
fn arm_record(records: &[QdiscRecord]) -> Option<&QdiscRecord> {
    records.iter().find(|r| r.handle == ARM_HANDLE)
}

/// The arm's cumulative ECN marks, for the kinds that count them under that
/// name (the same kinds results.json's `ecn_mark` key carries).
fn ecn_marks(x: &QdiscXstats) -> Option<u64> {
    match x {
        QdiscXstats::FqCodel(x) => Some(u64::from(x.ecn_mark)),
        QdiscXstats::Codel(x) => Some(u64::from(x.ecn_mark)),
        QdiscXstats::Pie(x) => Some(u64::from(x.ecn_mark)),
        QdiscXstats::FqPie(x) => Some(u64::from(x.ecn_mark)),
        QdiscXstats::Fq(_) | QdiscXstats::Cake(_) | QdiscXstats::Raw { .. } => None,
    }
}
