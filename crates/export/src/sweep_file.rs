//! `sweep.csv` and `sweep.json`: a sweep's table ([`netlab_compare::sweep`]) as
//! files beside the report, for plotting in other tools (their columns,
//! units and censoring are documented in docs/report.md, "Sweep data").
//!
//! In sweep.csv a censorable metric has two columns: `<key>` holds the
//! value when it is exact and is empty when censored; `<key>_at_least`
//! holds the bound when the value is censored ("≥ the bound") and is
//! empty otherwise. So a value is never written where only a bound is
//! known. sweep.json is the same table as typed JSON
//! ([`netlab_compare::sweep::SweepTable`]): a metric is `{"value": x}`,
//! `{"at_least": x}` or `null`.

use std::fmt::Write as _;

use netlab_compare::sweep::{Measured, SweepAxis, SweepMetric, SweepTable};

/// A CSV field: quoted when it holds a comma, a quote or a line break.
pub(crate) fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A number in full precision (Rust's shortest round-trip form).
fn num(v: f64) -> String {
    format!("{v}")
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(String::new, |x| x.to_string())
}

/// The axes' columns: each axis' name (its value as the experiment file
/// writes it), then, for an axis in a unit, `<name>_<unit>` (the value in
/// that unit). sweep.csv, probes.csv and flows.csv share them.
pub(crate) fn axis_header(axes: &[SweepAxis]) -> Vec<String> {
    let mut h = Vec::new();
    for a in axes {
        h.push(a.name.clone());
        if let Some(suffix) = a.kind.column_suffix() {
            h.push(format!("{}_{suffix}", a.name));
        }
    }
    h
}

/// The cells of [`axis_header`] for a point whose values are `values`
/// (in `axes` order, [`netlab_compare::sweep::axis_values`]).
pub(crate) fn axis_fields(axes: &[SweepAxis], values: &[String]) -> Vec<String> {
    let mut f = Vec::new();
    for (a, v) in axes.iter().zip(values) {
        f.push(v.clone());
        if a.kind.column_suffix().is_some() {
            let x = a.values.iter().find(|x| &x.text == v).and_then(|x| x.x);
            f.push(opt(x.map(num)));
        }
    }
    f
}

/// The header of sweep.csv for `table`.
pub(crate) fn csv_header(table: &SweepTable) -> Vec<String> {
    let mut h = vec!["scenario".to_string(), "point".into(), "point_label".into()];
    h.extend(axis_header(&table.axes));
    h.extend(
        [
            "arm",
            "arm_words",
            "round",
            "state",
            "error",
            "rtt_requests",
            "rtt_timeouts",
            "iso_sent",
            "iso_delivered",
            "iso_dropped",
            "iso_lost_unknown",
            "iso_censored",
            "iso_censored_bound_min_ms",
            "iso_censored_bound_max_ms",
            "iso_no_record",
        ]
        .map(String::from),
    );
    for m in SweepMetric::ALL {
        h.push(m.key().into());
        if m.can_be_censored() {
            h.push(format!("{}_at_least", m.key()));
        }
    }
    if !table.models.is_empty() {
        h.extend(MODEL_COLUMNS.map(String::from));
    }
    h
}

/// The models' columns (only when the experiment names a model): each
/// scenario's inputs as read back, then each prediction
/// ([`netlab_compare::sweep::RowModel`]).
pub const MODEL_COLUMNS: [&str; 30] = [
    "model_rate_bps",
    "model_quantum_bytes",
    "model_packet_bytes",
    "model_packet_source",
    "model_fifo_limit_packets",
    "model_base_rtt_ms",
    "model_probe_interval_ms",
    "model_probe_frame_bytes",
    "model_bulk_flows",
    "model_fifo_bound_ms",
    "model_sparse_boundary_n",
    "model_sparse_round_ms",
    "model_sparse_regime",
    "model_sparse_iso_up_p50_ms",
    "model_sparse_iso_up_p50_upper_ms",
    "model_sparse_iso_up_p99_ms",
    "model_sparse_new_flows_per_probe_packet",
    "model_flows_rtt_ms",
    "model_law_packet_bytes",
    "model_law_window_packets",
    "model_law_signal_probability",
    "model_aqm_target_ms",
    "model_bbr_flows",
    "model_loss_based_flows",
    "model_buffer_bdp",
    "model_loss_based_share",
    "model_bbr_share",
    "model_bbr_share_first_half",
    "model_bbr_share_second_half",
    "model_bbr_converged",
];

/// A row's model columns, in [`MODEL_COLUMNS`] order.
fn model_fields(m: Option<&netlab_compare::sweep::RowModel>) -> Vec<String> {
    let Some(m) = m else {
        return vec![String::new(); MODEL_COLUMNS.len()];
    };
    vec![
        opt(m.rate_bps),
        opt(m.quantum_bytes),
        opt(m.packet_bytes),
        opt(m.packet_source.clone()),
        opt(m.fifo_limit_packets),
        num(m.base_rtt_ms),
        opt(m.probe_interval_ms.map(num)),
        opt(m.probe_frame_bytes),
        opt(m.bulk_flows),
        opt(m.fifo_bound_ms.map(num)),
        opt(m.sparse_boundary_n.map(num)),
        opt(m.sparse_round_ms.map(num)),
        opt(m.sparse_regime.clone()),
        opt(m.sparse_iso_up_p50_ms.map(num)),
        opt(m.sparse_iso_up_p50_upper_ms.map(num)),
        opt(m.sparse_iso_up_p99_ms.map(num)),
        opt(m.sparse_new_flows_per_probe_packet.map(num)),
        opt(m.flows_rtt_ms.map(num)),
        opt(m.law_packet_bytes.map(|b| b.to_string())),
        opt(m.law_window_packets.map(num)),
        opt(m.law_signal_probability.map(num)),
        opt(m.aqm_target_ms.map(num)),
        opt(m.bbr_flows.map(|n| n.to_string())),
        opt(m.loss_based_flows.map(|n| n.to_string())),
        opt(m.buffer_bdp.map(num)),
        opt(m.model_loss_based_share.map(num)),
        opt(m.model_bbr_share.map(num)),
        opt(m.bbr_share_halves.map(|h| num(h[0]))),
        opt(m.bbr_share_halves.map(|h| num(h[1]))),
        opt(m.bbr_converged),
    ]
}

/// sweep.csv: a header, then one row per scenario in execution order.
pub fn csv(table: &SweepTable) -> String {
    let mut out = csv_header(table)
        .iter()
        .map(|c| field(c))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for r in &table.rows {
        let mut f: Vec<String> = vec![
            r.scenario.to_string(),
            r.point.to_string(),
            r.point_label.clone(),
        ];
        f.extend(axis_fields(&table.axes, &r.axis_values));
        f.extend([
            r.arm.clone(),
            r.arm_words.clone(),
            r.round.to_string(),
            opt(r.state.clone()),
            opt(r.error.clone()),
            opt(r.rtt_requests.map(|c| c[0])),
            opt(r.rtt_requests.map(|c| c[1])),
            opt(r.iso_slots.map(|c| c.sent)),
            opt(r.iso_slots.map(|c| c.delivered)),
            opt(r.iso_slots.map(|c| c.dropped)),
            opt(r.iso_slots.map(|c| c.lost_unknown)),
            opt(r.iso_slots.map(|c| c.censored)),
            opt(r
                .iso_slots
                .and_then(|c| c.censored_bounds_ms)
                .map(|b| num(b[0]))),
            opt(r
                .iso_slots
                .and_then(|c| c.censored_bounds_ms)
                .map(|b| num(b[1]))),
            opt(r.iso_slots.map(|c| c.no_record)),
        ]);
        for m in SweepMetric::ALL {
            let v = r.metrics.get(m);
            f.push(match v {
                Some(Measured::Value(x)) => num(x),
                _ => String::new(),
            });
            if m.can_be_censored() {
                f.push(match v {
                    Some(Measured::AtLeast(x)) => num(x),
                    _ => String::new(),
                });
            }
        }
        if !table.models.is_empty() {
            f.extend(model_fields(r.model.as_ref()));
        }
        let line = f.iter().map(|c| field(c)).collect::<Vec<_>>().join(",");
        let _ = writeln!(out, "{line}");
    }
    out
}

/// sweep.json: the table as pretty JSON.
pub fn json(table: &SweepTable) -> String {
    let mut s = serde_json::to_string_pretty(table).expect("a sweep table serializes");
    s.push('\n');
    s
}

/// Reads sweep.json back (the format and version checked).
pub fn parse_table(text: &str) -> Result<SweepTable, String> {
    let t: SweepTable = serde_json::from_str(text).map_err(|e| format!("sweep.json: {e}"))?;
    if t.format != netlab_compare::sweep::SweepTable::FORMAT
        || t.version != netlab_compare::sweep::SweepTable::VERSION
    {
        return Err(format!(
            "sweep.json: format {} version {}, this netlab reads {} version {}",
            t.format,
            t.version,
            netlab_compare::sweep::SweepTable::FORMAT,
            netlab_compare::sweep::SweepTable::VERSION
        ));
    }
    Ok(t)
}
