//! A sweep's points apart (issue 31): the headline, the verdict, the
//! comparison between arms and the per-arm figures pool the rounds of one
//! point and never rounds of different points, so a sweep's report is
//! computed point by point on the scenarios of each ([`split`]).

use crate::model::ReportInput;

/// Whether the run swept at least one axis (its scenarios carry point
/// values).
pub fn is_sweep(input: &ReportInput) -> bool {
    input.scenarios.iter().any(|s| !s.point.values.is_empty())
}

/// One point's part of a run: its grid index and label, and the run's
/// input holding only that point's scenarios.
#[derive(Debug, Clone, PartialEq)]
pub struct PointInput {
    /// 1-based position in the grid.
    pub index: u32,
    /// `rate=5mbit flows=2`.
    pub label: String,
    /// The run's input with this point's scenarios alone.
    pub input: ReportInput,
}

/// The run's input split by point, points in order of first appearance
/// (the grid's order); the scenarios keep their order.
pub fn split(input: &ReportInput) -> Vec<PointInput> {
    let header = ReportInput {
        scenarios: Vec::new(),
        ..input.clone_header()
    };
    let mut out: Vec<PointInput> = Vec::new();
    for s in &input.scenarios {
        let i = match out.iter().position(|p| p.index == s.point.index) {
            Some(i) => i,
            None => {
                // A rate axis sets this point's bottleneck (the goodput
                // figures draw it).
                let rate = s
                    .point
                    .values
                    .iter()
                    .find_map(|v| v.strip_prefix("rate="))
                    .and_then(|r| netlab_qdisc::Rate::parse(r).ok())
                    .map(|r| r.bits_per_sec());
                out.push(PointInput {
                    index: s.point.index,
                    label: s.point.label.clone(),
                    input: ReportInput {
                        bottleneck_bps: rate.or(header.bottleneck_bps),
                        scope: Some(format!("point {} ({})", s.point.index, s.point.label)),
                        ..header.clone()
                    },
                });
                out.len() - 1
            }
        };
        out[i].input.scenarios.push(s.clone());
    }
    out
}

impl ReportInput {
    /// The input without its scenarios (the run's header).
    pub fn clone_header(&self) -> ReportInput {
        ReportInput {
            schema_version: self.schema_version,
            tool: self.tool.clone(),
            run_id: self.run_id.clone(),
            started_utc: self.started_utc.clone(),
            finished_utc: self.finished_utc.clone(),
            kernel: self.kernel.clone(),
            config: self.config.clone(),
            bottleneck_bps: self.bottleneck_bps,
            scenarios: Vec::new(),
            notes: self.notes.clone(),
            caveats: self.caveats.clone(),
            scope: self.scope.clone(),
        }
    }
}
