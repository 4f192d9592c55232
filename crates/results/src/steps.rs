//! What a run spends beside its timelines (docs/method.md §3.5): each
//! scenario's steps before t0 and after its timeline's end, and the run's
//! time between scenarios. A scenario's steps add up to its `elapsed_s`;
//! the scenarios' `elapsed_s` and the run's time between them add up to
//! its `wall_s`.

use serde::{Deserialize, Serialize};

/// How long each step of one scenario took, s, in the order they run.
/// Every instant of the scenario belongs to exactly one step (a step that
/// failed keeps the time up to its failure; a step never reached is 0),
/// so the six add up to the scenario's `elapsed_s`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioSteps {
    /// The namespaces registered, A–R–B built and read back, R's egresses
    /// configured and read back, the neighbours resolved, the caller's
    /// `path_ready`.
    pub setup_s: f64,
    /// The capture opened, every worker made ready (sinks, senders,
    /// probes, samplers), B's first receiver bound (t0).
    pub start_s: f64,
    /// From t0 until the walk reached the timeline's end (or the earlier
    /// end a hook asked for): the timeline itself, plus how late the walk
    /// woke for its end.
    pub timeline_s: f64,
    /// From the timeline's end until every worker was joined: the final
    /// readback, the receivers closed, the probes' and senders' ends, the
    /// capture drained, the samplers stopped.
    pub end_s: f64,
    /// The workers' outputs put into the result, the caller's
    /// `finished`, the evidence file, the bottleneck verdict.
    pub collect_s: f64,
    /// The namespaces deleted through the registry, with receipts.
    pub teardown_s: f64,
}

impl ScenarioSteps {
    /// The steps' names as results.json and the report write them, with
    /// their values, in order.
    pub fn named(&self) -> [(&'static str, f64); 6] {
        [
            ("setup", self.setup_s),
            ("start", self.start_s),
            ("timeline", self.timeline_s),
            ("end", self.end_s),
            ("collect", self.collect_s),
            ("teardown", self.teardown_s),
        ]
    }

    /// Everything but the timeline, s: what the scenario cost beyond it.
    pub fn beyond_timeline_s(&self) -> f64 {
        self.setup_s + self.start_s + self.end_s + self.collect_s + self.teardown_s
    }

    /// The steps of several scenarios added step by step.
    pub fn sum<'a>(steps: impl IntoIterator<Item = &'a ScenarioSteps>) -> ScenarioSteps {
        steps
            .into_iter()
            .fold(ScenarioSteps::default(), |a, s| ScenarioSteps {
                setup_s: a.setup_s + s.setup_s,
                start_s: a.start_s + s.start_s,
                timeline_s: a.timeline_s + s.timeline_s,
                end_s: a.end_s + s.end_s,
                collect_s: a.collect_s + s.collect_s,
                teardown_s: a.teardown_s + s.teardown_s,
            })
    }
}

/// The run's time outside its scenarios, s: from the run's start to the
/// first scenario, between each two, and from the last to the final
/// teardown. With the scenarios' `elapsed_s` it makes up `wall_s`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSteps {
    /// Outside any scenario, s, up to the last results.json written.
    pub between_s: f64,
    /// Of it, writing each scenario's file and rewriting results.json, s
    /// (up to the write before the last).
    pub write_s: f64,
}

impl std::iter::Sum for RunSteps {
    fn sum<I: Iterator<Item = RunSteps>>(iter: I) -> RunSteps {
        iter.fold(RunSteps::default(), |a, s| RunSteps {
            between_s: a.between_s + s.between_s,
            write_s: a.write_s + s.write_s,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_add_up_and_name_themselves_in_order() {
        let a = ScenarioSteps {
            setup_s: 0.1,
            start_s: 0.2,
            timeline_s: 12.0,
            end_s: 0.05,
            collect_s: 0.01,
            teardown_s: 0.02,
        };
        let s = ScenarioSteps::sum([&a, &a]);
        assert!((s.timeline_s - 24.0).abs() < 1e-9);
        assert!((s.beyond_timeline_s() - 0.76).abs() < 1e-9);
        let names: Vec<_> = a.named().iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            ["setup", "start", "timeline", "end", "collect", "teardown"]
        );
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<ScenarioSteps>(&json).unwrap(), a);
    }
}
