//! The CPU a scenario's measured window used (docs/method.md §14.2): a
//! snapshot of this process's and every CPU's time when the window starts
//! and another when it ends (the final readback). A run in the guest reads
//! the guest's own `/proc`, so its one vCPU is the CPU judged. A snapshot
//! that cannot be read leaves the CPU out of the verdict (never the
//! scenario).

use netlab_os::cpu::{snapshot, CpuSnapshot};
use netlab_results::CpuUse;

/// The two snapshots of one window.
#[derive(Debug, Default)]
pub struct CpuMarks {
    start: Option<CpuSnapshot>,
    end: Option<CpuSnapshot>,
}

impl CpuMarks {
    /// At the window's start (once; later calls keep the first).
    pub fn window_started(&mut self) {
        if self.start.is_none() {
            self.start = snapshot().ok();
        }
    }

    /// At the window's end: only after a start, once.
    pub fn window_ended(&mut self) {
        if self.start.is_some() && self.end.is_none() {
            self.end = snapshot().ok();
        }
    }

    /// The CPU used between the two, when both were read.
    pub fn used(&self) -> Option<CpuUse> {
        Some(CpuUse::between(self.start.as_ref()?, self.end.as_ref()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_end_without_a_start_is_no_window() {
        let mut m = CpuMarks::default();
        m.window_ended();
        assert!(m.used().is_none());
        m.window_started();
        let busy = std::time::Instant::now();
        while busy.elapsed() < std::time::Duration::from_millis(30) {
            std::hint::black_box(0u64);
        }
        m.window_ended();
        let used = m.used().unwrap();
        assert!(used.span_s >= 0.03, "{used:?}");
        assert!(!used.cpu_busy.is_empty());
    }
}
