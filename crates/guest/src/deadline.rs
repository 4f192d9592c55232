//! When to stop a guest (pure: elapsed time and the cancel flag are passed in).

use std::time::Duration;

/// Why a guest is being stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopReason {
    /// The deadline passed.
    Deadline,
    /// The kill handle was used.
    Cancelled,
}

/// What the wait loop must do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopAction {
    /// Nothing to do.
    None,
    /// SIGTERM the kernel process.
    Term(StopReason),
    /// SIGKILL the process group.
    Kill,
    /// The group survived SIGKILL for 5 s: stop waiting.
    GiveUp,
}

/// Deadline/cancel state machine (pure: elapsed time is passed in).
#[derive(Debug)]
pub(crate) struct Stopper {
    deadline: Duration,
    grace: Duration,
    term_at: Option<Duration>,
}

impl Stopper {
    pub(crate) fn new(deadline: Duration, grace: Duration) -> Self {
        Stopper {
            deadline,
            grace,
            term_at: None,
        }
    }

    pub(crate) fn step(&mut self, elapsed: Duration, cancelled: bool) -> StopAction {
        match self.term_at {
            None if cancelled => {
                self.term_at = Some(elapsed);
                StopAction::Term(StopReason::Cancelled)
            }
            None if elapsed >= self.deadline => {
                self.term_at = Some(elapsed);
                StopAction::Term(StopReason::Deadline)
            }
            None => StopAction::None,
            Some(t) if elapsed >= t + self.grace + Duration::from_secs(5) => StopAction::GiveUp,
            Some(t) if elapsed >= t + self.grace => StopAction::Kill,
            Some(_) => StopAction::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn stopper_deadline_then_kill_then_give_up() {
        let mut s = Stopper::new(S(1000), S(500));
        assert_eq!(s.step(S(999), false), StopAction::None);
        assert_eq!(
            s.step(S(1000), false),
            StopAction::Term(StopReason::Deadline)
        );
        assert_eq!(s.step(S(1200), false), StopAction::None);
        assert_eq!(s.step(S(1500), false), StopAction::Kill);
        assert_eq!(s.step(S(1600), true), StopAction::Kill);
        assert_eq!(s.step(S(6500), false), StopAction::GiveUp);
    }

    #[test]
    fn stopper_cancel_wins_before_deadline() {
        let mut s = Stopper::new(S(1000), S(500));
        assert_eq!(s.step(S(10), true), StopAction::Term(StopReason::Cancelled));
        assert_eq!(s.step(S(2000), false), StopAction::Kill);
    }
}
