//! Where a scenario's time goes (docs/method.md §3.5): a pure timer that
//! gives every instant of the scenario to the step that was running, so
//! the steps add up to the scenario's `elapsed_s`. Time is passed in.

use std::time::{Duration, Instant};

use netlab_results::ScenarioSteps;

/// A step of one scenario, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScenarioStep {
    /// Namespaces, links, qdiscs, read-backs, neighbours.
    Setup,
    /// The capture and every worker made ready, up to t0.
    Start,
    /// t0 to the timeline's end.
    Timeline,
    /// The final readback, stop, close, drain: every worker joined.
    End,
    /// The outputs into the result.
    Collect,
    /// The namespaces deleted.
    Teardown,
}

/// The time spent in each [`ScenarioStep`] so far.
#[derive(Debug, Clone)]
pub struct StepTimer {
    current: ScenarioStep,
    since: Instant,
    spent: [Duration; 6],
}

impl StepTimer {
    /// A scenario whose setup began at `now`.
    pub fn new(now: Instant) -> StepTimer {
        StepTimer {
            current: ScenarioStep::Setup,
            since: now,
            spent: [Duration::ZERO; 6],
        }
    }

    /// The step running now.
    pub fn current(&self) -> ScenarioStep {
        self.current
    }

    /// `step` began at `at`: the running step's time ends there. An
    /// instant before the running step's own start counts as its start.
    pub fn enter(&mut self, step: ScenarioStep, at: Instant) {
        let at = at.max(self.since);
        self.spent[self.current as usize] += at - self.since;
        self.current = step;
        self.since = at;
    }

    /// Every step's time up to `now` (the running one's included), s.
    pub fn steps(&self, now: Instant) -> ScenarioSteps {
        let mut spent = self.spent;
        spent[self.current as usize] += now.saturating_duration_since(self.since);
        let s = |step: ScenarioStep| spent[step as usize].as_secs_f64();
        ScenarioSteps {
            setup_s: s(ScenarioStep::Setup),
            start_s: s(ScenarioStep::Start),
            timeline_s: s(ScenarioStep::Timeline),
            end_s: s(ScenarioStep::End),
            collect_s: s(ScenarioStep::Collect),
            teardown_s: s(ScenarioStep::Teardown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_instant_goes_to_the_step_that_ran_and_they_add_up() {
        let t = Instant::now();
        let ms = Duration::from_millis;
        let mut timer = StepTimer::new(t);
        timer.enter(ScenarioStep::Start, t + ms(80));
        // t0 came from a bind a moment before the runner saw it.
        timer.enter(ScenarioStep::Timeline, t + ms(150));
        timer.enter(ScenarioStep::End, t + ms(12_150));
        timer.enter(ScenarioStep::Collect, t + ms(12_200));
        timer.enter(ScenarioStep::Teardown, t + ms(12_210));
        let s = timer.steps(t + ms(12_240));
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(s.setup_s, 0.08) && close(s.start_s, 0.07));
        assert!(close(s.timeline_s, 12.0) && close(s.end_s, 0.05));
        assert!(close(s.collect_s, 0.01) && close(s.teardown_s, 0.03));
        assert!(close(s.timeline_s + s.beyond_timeline_s(), 12.24));
    }

    #[test]
    fn a_failed_scenario_keeps_its_time_in_the_step_that_failed() {
        let t = Instant::now();
        let ms = Duration::from_millis;
        let mut timer = StepTimer::new(t);
        // The setup failed at 30 ms; collection was skipped, teardown ran.
        timer.enter(ScenarioStep::Teardown, t + ms(30));
        let s = timer.steps(t + ms(40));
        assert!((s.setup_s - 0.03).abs() < 1e-9 && (s.teardown_s - 0.01).abs() < 1e-9);
        assert_eq!((s.start_s, s.timeline_s, s.end_s), (0.0, 0.0, 0.0));
        // An instant before the running step began counts as its start.
        let mut timer = StepTimer::new(t + ms(10));
        timer.enter(ScenarioStep::Start, t);
        assert_eq!(timer.current(), ScenarioStep::Start);
        assert_eq!(timer.steps(t + ms(10)).setup_s, 0.0);
    }
}
