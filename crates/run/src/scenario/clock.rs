//! The timeline of one scenario as a pure clock: given the time since t0 it
//! says what to do next. The runner does the waiting and the I/O; tests
//! drive the clock with made-up times.

use std::time::Duration;

use netlab_experiment::Timeline;

/// The phase a wait belongs to (for the progress display).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LivePhase {
    /// Probe only, before the load starts.
    Baseline,
    /// Load running, not yet measured.
    WarmUp,
    /// The measured window.
    Loaded,
}

impl LivePhase {
    /// As the progress line writes it.
    pub fn label(self) -> &'static str {
        match self {
            LivePhase::Baseline => "baseline",
            LivePhase::WarmUp => "warm-up",
            LivePhase::Loaded => "loaded",
        }
    }
}

/// What the runner does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Nothing until `until` (from t0); wait, at most a second at a time.
    Wait {
        /// When the next mark is due.
        until: Duration,
        /// The phase being waited through.
        phase: LivePhase,
    },
    /// The load phase begins (the baseline has ended): the caller's
    /// [`ScenarioHooks::load_start`](crate::ScenarioHooks::load_start) runs
    /// now, before any flow of the same instant starts.
    LoadStart,
    /// Start flow `i` (its start offset has come).
    StartFlow(usize),
    /// The measured window has ended: take the final qdisc readbacks now,
    /// before any socket closes.
    ReadFinal,
    /// The timeline is over: stop and join.
    Done,
}

/// The scenario's clock. Every event is returned exactly once and in order
/// (the load start first, then flow starts by time, then by index), even
/// when polled late.
#[derive(Debug, Clone)]
pub struct ScenarioClock {
    timeline: Timeline,
    /// Flow starts not yet returned, latest first (popped from the back).
    starts: Vec<(Duration, usize)>,
    load_started: bool,
    final_read: bool,
    /// An end earlier than the timeline's, set by a caller's hook
    /// ([`ScenarioClock::end_at`]).
    early_end: Option<Duration>,
}

impl ScenarioClock {
    /// A clock at t0; `flow_starts[i]` is flow i's start from t0.
    pub fn new(timeline: Timeline, flow_starts: &[Duration]) -> ScenarioClock {
        let mut starts: Vec<(Duration, usize)> = flow_starts
            .iter()
            .copied()
            .enumerate()
            .map(|(i, d)| (d, i))
            .collect();
        starts.sort();
        starts.reverse();
        ScenarioClock {
            timeline,
            starts,
            load_started: false,
            final_read: false,
            early_end: None,
        }
    }

    /// Ends the scenario at `at` (from t0) instead of the timeline's end,
    /// when that is earlier: the final readback is then due at `at`, and
    /// flows due at or after it never start. The earliest end asked for
    /// counts; an end at or past the timeline's changes nothing.
    pub fn end_at(&mut self, at: Duration) {
        if at < self.end() {
            self.early_end = Some(at);
        }
    }

    /// When the scenario ends (from t0): the timeline's end, or the
    /// earlier end a hook asked for.
    pub fn end(&self) -> Duration {
        let end = self.timeline.end();
        self.early_end.map_or(end, |e| e.min(end))
    }

    /// Whether a hook ended the scenario before its timeline's end.
    pub fn ended_early(&self) -> bool {
        self.early_end.is_some()
    }

    fn phase(&self, now: Duration) -> LivePhase {
        if now < self.timeline.load_start() {
            LivePhase::Baseline
        } else if now < self.timeline.window_start() {
            LivePhase::WarmUp
        } else {
            LivePhase::Loaded
        }
    }

    /// What to do at `now` (time since t0).
    pub fn poll(&mut self, now: Duration) -> Step {
        let end = self.end();
        if !self.load_started && self.timeline.load_start() <= now && !self.final_read {
            self.load_started = true;
            return Step::LoadStart;
        }
        if let Some(&(at, i)) = self.starts.last() {
            if at <= now && at < end {
                self.starts.pop();
                return Step::StartFlow(i);
            }
        }
        if self.final_read {
            return Step::Done;
        }
        if now >= end {
            self.final_read = true;
            self.starts.clear();
            return Step::ReadFinal;
        }
        let mut until = end;
        if let Some(&(at, _)) = self.starts.last() {
            until = until.min(at);
        }
        for mark in [self.timeline.load_start(), self.timeline.window_start()] {
            if mark > now {
                until = until.min(mark);
            }
        }
        Step::Wait {
            until,
            phase: self.phase(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: f64) -> Duration {
        Duration::from_secs_f64(v)
    }

    fn timeline() -> Timeline {
        Timeline {
            baseline: s(3.0),
            warmup: s(3.0),
            measure: s(12.0),
        }
    }

    #[test]
    fn on_time_the_marks_come_in_order() {
        let mut c = ScenarioClock::new(timeline(), &[s(3.0)]);
        let wait = |until, phase| Step::Wait {
            until: s(until),
            phase,
        };
        assert_eq!(c.poll(s(0.0)), wait(3.0, LivePhase::Baseline));
        assert_eq!(c.poll(s(2.9)), wait(3.0, LivePhase::Baseline));
        assert_eq!(c.poll(s(3.0)), Step::LoadStart);
        assert_eq!(c.poll(s(3.0)), Step::StartFlow(0));
        assert_eq!(c.poll(s(3.1)), wait(6.0, LivePhase::WarmUp));
        assert_eq!(c.poll(s(6.0)), wait(18.0, LivePhase::Loaded));
        assert_eq!(c.poll(s(17.99)), wait(18.0, LivePhase::Loaded));
        assert_eq!(c.poll(s(18.0)), Step::ReadFinal);
        assert_eq!(c.poll(s(18.0)), Step::Done);
        assert_eq!(c.poll(s(99.0)), Step::Done);
    }

    #[test]
    fn polled_late_no_event_is_skipped_or_repeated() {
        let mut c = ScenarioClock::new(timeline(), &[s(3.0), s(3.0), s(5.0)]);
        assert_eq!(c.poll(s(10.0)), Step::LoadStart);
        assert_eq!(c.poll(s(10.0)), Step::StartFlow(0));
        assert_eq!(c.poll(s(10.0)), Step::StartFlow(1));
        assert_eq!(c.poll(s(10.0)), Step::StartFlow(2));
        assert_eq!(c.poll(s(50.0)), Step::ReadFinal);
        assert_eq!(c.poll(s(50.0)), Step::Done);
    }

    #[test]
    fn staggered_starts_come_by_time_then_index() {
        let mut c = ScenarioClock::new(timeline(), &[s(5.0), s(3.0), s(3.0)]);
        assert_eq!(
            c.poll(s(0.0)),
            Step::Wait {
                until: s(3.0),
                phase: LivePhase::Baseline
            }
        );
        assert_eq!(c.poll(s(3.0)), Step::LoadStart);
        assert_eq!(c.poll(s(3.0)), Step::StartFlow(1));
        assert_eq!(c.poll(s(3.0)), Step::StartFlow(2));
        assert_eq!(
            c.poll(s(3.5)),
            Step::Wait {
                until: s(5.0),
                phase: LivePhase::WarmUp
            }
        );
        assert_eq!(c.poll(s(5.0)), Step::StartFlow(0));
    }

    #[test]
    fn a_zero_warmup_goes_straight_to_the_window() {
        let mut c = ScenarioClock::new(
            Timeline {
                baseline: s(1.0),
                warmup: Duration::ZERO,
                measure: s(2.0),
            },
            &[s(1.0)],
        );
        assert_eq!(c.poll(s(1.0)), Step::LoadStart);
        assert_eq!(c.poll(s(1.0)), Step::StartFlow(0));
        assert_eq!(
            c.poll(s(1.0)),
            Step::Wait {
                until: s(3.0),
                phase: LivePhase::Loaded
            }
        );
    }

    #[test]
    fn an_earlier_end_moves_the_final_readback_and_drops_later_flows() {
        let mut c = ScenarioClock::new(timeline(), &[s(3.0), s(9.0)]);
        assert_eq!(c.end(), s(18.0));
        // Past the timeline's end: nothing changes.
        c.end_at(s(20.0));
        assert!(!c.ended_early());
        assert_eq!(c.poll(s(3.0)), Step::LoadStart);
        assert_eq!(c.poll(s(3.0)), Step::StartFlow(0));
        // A hook learns at 3.2 s that its window ends at 8.5 s.
        c.end_at(s(8.5));
        c.end_at(s(12.0)); // later than the one asked for: ignored
        assert!(c.ended_early());
        assert_eq!(c.end(), s(8.5));
        assert_eq!(
            c.poll(s(3.2)),
            Step::Wait {
                until: s(6.0),
                phase: LivePhase::WarmUp
            }
        );
        assert_eq!(
            c.poll(s(6.0)),
            Step::Wait {
                until: s(8.5),
                phase: LivePhase::Loaded
            }
        );
        assert_eq!(c.poll(s(8.5)), Step::ReadFinal);
        // Flow 1 was due at 9 s, after the end: it never starts.
        assert_eq!(c.poll(s(9.0)), Step::Done);
        // An end inside the warm-up: the window mark is not waited for.
        let mut w = ScenarioClock::new(timeline(), &[]);
        assert_eq!(w.poll(s(3.0)), Step::LoadStart);
        w.end_at(s(4.0));
        assert_eq!(
            w.poll(s(3.5)),
            Step::Wait {
                until: s(4.0),
                phase: LivePhase::WarmUp
            }
        );
        assert_eq!(w.poll(s(4.0)), Step::ReadFinal);
        assert_eq!(w.poll(s(4.0)), Step::Done);
    }

    #[test]
    fn the_load_start_comes_once_even_when_the_flows_start_later() {
        let mut c = ScenarioClock::new(timeline(), &[s(4.0)]);
        assert_eq!(
            c.poll(s(0.0)),
            Step::Wait {
                until: s(3.0),
                phase: LivePhase::Baseline
            }
        );
        assert_eq!(c.poll(s(3.0)), Step::LoadStart);
        assert_eq!(
            c.poll(s(3.0)),
            Step::Wait {
                until: s(4.0),
                phase: LivePhase::WarmUp
            }
        );
        assert_eq!(c.poll(s(4.0)), Step::StartFlow(0));
        // Polled only after the end: the load start still comes first, once.
        let mut late = ScenarioClock::new(timeline(), &[s(3.0)]);
        assert_eq!(late.poll(s(30.0)), Step::LoadStart);
        assert_eq!(late.poll(s(30.0)), Step::StartFlow(0));
        assert_eq!(late.poll(s(30.0)), Step::ReadFinal);
        assert_eq!(late.poll(s(30.0)), Step::Done);
    }
}
