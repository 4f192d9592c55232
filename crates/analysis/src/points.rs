//! A sweep's points apart (docs/report.md, "Pooling in a sweep"): the headline, the verdict, the
//! comparison between arms and the per-arm figures pool the rounds of one
//! point and never rounds of different points, so a sweep's report is
//! computed point by point on the scenarios of each
//! ([`ReportInput::points`]).

use crate::records::Scenario;
use crate::ReportInput;

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

impl ReportInput {
    /// Whether the run swept at least one axis (its scenarios carry point
    /// values).
    pub fn is_sweep(&self) -> bool {
        self.scenarios.iter().any(|s| !s.point.values.is_empty())
    }

    /// The run's points, in order of first appearance (the grid's order):
    /// index and label.
    pub fn point_labels(&self) -> Vec<(u32, String)> {
        let input = self;
        let mut out: Vec<(u32, String)> = Vec::new();
        for s in &input.scenarios {
            if !out.iter().any(|(i, _)| *i == s.point.index) {
                out.push((s.point.index, s.point.label.clone()));
            }
        }
        out
    }

    /// The run's input split by point, points in the order of
    /// [`ReportInput::point_labels`], the
    /// scenarios in their order. Lazy: each point's copy is made when it is
    /// reached, so a sweep holds at most one point's copy beside the run.
    pub fn points(&self) -> impl Iterator<Item = PointInput> + '_ {
        let input = self;
        input.point_labels().into_iter().map(move |(index, label)| {
            let scenarios: Vec<_> = input
                .scenarios
                .iter()
                .filter(|s| s.point.index == index)
                .cloned()
                .collect();
            // A rate axis sets this point's bottleneck (the goodput figures
            // draw it).
            let rate = scenarios.first().and_then(Scenario::point_rate);
            let header = input.clone_header();
            PointInput {
                index,
                input: ReportInput {
                    bottleneck_bps: rate.or(header.bottleneck_bps),
                    scope: Some(format!("point {index} ({label})")),
                    scenarios,
                    ..header
                },
                label,
            }
        })
    }

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
            models: self.models.clone(),
            figures: self.figures.clone(),
            steps: self.steps,
        }
    }
}

impl Scenario {
    /// The bottleneck rate, bit/s, a scenario's point sets (a `rate` axis);
    /// None when no axis sets it (the run's own rate then applies).
    pub fn point_rate(&self) -> Option<u64> {
        self.point
            .values
            .iter()
            .find_map(|v| v.strip_prefix("rate="))
            .and_then(|r| netlab_qdisc_model::Rate::parse(r).ok())
            .map(|r| r.bits_per_sec())
    }
}
