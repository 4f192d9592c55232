//! The timeline of one scenario as a pure clock: given the time since t0 it
//! says what to do next. The runner does the waiting and the I/O; tests
//! drive the clock with made-up times.

use std::time::Duration;

use crate::config::Timeline;

/// The phase a wait belongs to (for the progress display).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LivePhase {
    /// Probe only, before the sender starts.
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
    /// Start the sender (the baseline mark).
    StartSender,
    /// The measured window has ended: take the final qdisc readback now,
    /// before any socket closes.
    ReadFinal,
    /// The timeline is over: stop and join.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    SenderStart,
    WindowStart,
    End,
    Over,
}

/// The scenario's clock. Every event is returned exactly once and in order,
/// even when polled late.
#[derive(Debug, Clone)]
pub struct ScenarioClock {
    timeline: Timeline,
    next: Mark,
}

impl ScenarioClock {
    /// A clock at t0.
    pub fn new(timeline: Timeline) -> ScenarioClock {
        ScenarioClock {
            timeline,
            next: Mark::SenderStart,
        }
    }

    /// What to do at `now` (time since t0).
    pub fn poll(&mut self, now: Duration) -> Step {
        let tl = &self.timeline;
        match self.next {
            Mark::SenderStart if now >= tl.sender_start() => {
                self.next = Mark::WindowStart;
                Step::StartSender
            }
            Mark::SenderStart => Step::Wait {
                until: tl.sender_start(),
                phase: LivePhase::Baseline,
            },
            Mark::WindowStart if now >= tl.window_start() => {
                self.next = Mark::End;
                self.poll(now)
            }
            Mark::WindowStart => Step::Wait {
                until: tl.window_start(),
                phase: LivePhase::WarmUp,
            },
            Mark::End if now >= tl.end() => {
                self.next = Mark::Over;
                Step::ReadFinal
            }
            Mark::End => Step::Wait {
                until: tl.end(),
                phase: LivePhase::Loaded,
            },
            Mark::Over => Step::Done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: f64) -> Duration {
        Duration::from_secs_f64(v)
    }

    fn clock() -> ScenarioClock {
        ScenarioClock::new(Timeline {
            baseline: s(3.0),
            warmup: s(3.0),
            measure: s(12.0),
        })
    }

    #[test]
    fn on_time_the_marks_come_in_order() {
        let mut c = clock();
        let wait = |until, phase| Step::Wait {
            until: s(until),
            phase,
        };
        assert_eq!(c.poll(s(0.0)), wait(3.0, LivePhase::Baseline));
        assert_eq!(c.poll(s(2.9)), wait(3.0, LivePhase::Baseline));
        assert_eq!(c.poll(s(3.0)), Step::StartSender);
        assert_eq!(c.poll(s(3.1)), wait(6.0, LivePhase::WarmUp));
        assert_eq!(c.poll(s(6.0)), wait(18.0, LivePhase::Loaded));
        assert_eq!(c.poll(s(17.99)), wait(18.0, LivePhase::Loaded));
        assert_eq!(c.poll(s(18.0)), Step::ReadFinal);
        assert_eq!(c.poll(s(18.0)), Step::Done);
        assert_eq!(c.poll(s(99.0)), Step::Done);
    }

    #[test]
    fn polled_late_no_event_is_skipped_or_repeated() {
        let mut c = clock();
        assert_eq!(c.poll(s(50.0)), Step::StartSender);
        assert_eq!(c.poll(s(50.0)), Step::ReadFinal);
        assert_eq!(c.poll(s(50.0)), Step::Done);
    }

    #[test]
    fn a_zero_warmup_goes_straight_to_the_window() {
        let mut c = ScenarioClock::new(Timeline {
            baseline: s(1.0),
            warmup: Duration::ZERO,
            measure: s(2.0),
        });
        assert_eq!(c.poll(s(1.0)), Step::StartSender);
        assert_eq!(
            c.poll(s(1.0)),
            Step::Wait {
                until: s(3.0),
                phase: LivePhase::Loaded
            }
        );
    }
}
