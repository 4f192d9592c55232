//! A run's steps added up (docs/method.md §3.5): its planned timelines
//! and wall time from its header, and its scenarios' steps added one
//! scenario at a time, as its report states them.

use crate::steps::{RunSteps, ScenarioSteps};
use crate::{Results, ScenarioResult};

/// A run's steps added up: what its report states.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepSums {
    /// The planned timelines, s.
    pub timelines_s: f64,
    /// The run's wall time, s.
    pub wall_s: f64,
    /// The scenarios' steps, added step by step (scenarios that recorded them).
    pub scenarios: ScenarioSteps,
    /// How many scenarios recorded their steps.
    pub counted: usize,
    /// The run's time between scenarios, when recorded.
    pub run: Option<RunSteps>,
}

impl StepSums {
    /// Starts from a run's header (its times; its scenarios are added with
    /// [`StepSums::add`], one at a time).
    pub fn of_header(header: &Results) -> StepSums {
        StepSums {
            timelines_s: header.timeline_total_s,
            wall_s: header.wall_s,
            run: header.steps,
            ..StepSums::default()
        }
    }

    /// Adds one scenario's steps, if it recorded them.
    pub fn add(&mut self, s: &ScenarioResult) {
        if let Some(steps) = &s.steps {
            self.scenarios = ScenarioSteps::sum([&self.scenarios, steps]);
            self.counted += 1;
        }
    }

    /// Wall time over the planned timelines (0 before any wall time).
    pub fn ratio(&self) -> f64 {
        if self.timelines_s > 0.0 {
            self.wall_s / self.timelines_s
        } else {
            0.0
        }
    }
}
