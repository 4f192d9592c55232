//! CPU time as the kernel counts it: this process's user and system time
//! (`/proc/self/stat` fields 14 and 15, every thread of the process
//! together) and each CPU's busy and idle time (`/proc/stat`'s `cpuN`
//! lines), in clock ticks. Two snapshots around a window give the CPU a
//! run used in it (docs/method.md §14). The files are read and parsed by
//! [`crate::proc`]; [`snapshot`] takes one.

use std::time::Instant;

use crate::proc::CpuTicks;
use crate::SysError;

/// The tick `/proc/stat` and `/proc/<pid>/stat` count in: `USER_HZ`,
/// 100 per second on every architecture netlab runs on (x86-64, arm64 and
/// user-mode-linux; what `sysconf(_SC_CLK_TCK)` returns there).
pub const USER_HZ: u64 = 100;

/// CPU time at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuSnapshot {
    /// When it was read.
    pub at: Instant,
    /// This process's user time (all threads), clock ticks.
    pub process_user: u64,
    /// This process's system time (all threads), clock ticks.
    pub process_system: u64,
    /// Every online CPU, in `/proc/stat` order (`cpu0`, `cpu1`, …).
    pub cpus: Vec<CpuTicks>,
    /// Clock ticks per second ([`USER_HZ`]).
    pub ticks_per_s: u64,
}

/// Reads this process's and every CPU's time now.
pub fn snapshot() -> Result<CpuSnapshot, SysError> {
    let at = Instant::now();
    let me = crate::proc::own_stat()?;
    Ok(CpuSnapshot {
        at,
        process_user: me.utime,
        process_system: me.stime,
        cpus: crate::proc::cpu_lines()?,
        ticks_per_s: USER_HZ,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proc::{parse_cpu_lines, parse_proc_stat};

    /// A real /proc/stat of a 2-CPU host (6.18), cut after the cpu lines.
    const STAT: &str = "cpu  1000 20 300 5000 40 0 60 0 0 0\n\
        cpu0 600 10 200 2000 20 0 50 7 0 0\n\
        cpu1 400 10 100 3000 20 0 10 0 0 0\n\
        intr 123 0 0\nctxt 999\n";

    #[test]
    fn per_cpu_lines_add_up_busy_and_idle() {
        let c = parse_cpu_lines(STAT).unwrap();
        assert_eq!(
            c,
            vec![
                CpuTicks {
                    busy: 600 + 10 + 200 + 50 + 7,
                    idle: 2020
                },
                CpuTicks {
                    busy: 400 + 10 + 100 + 10,
                    idle: 3020
                },
            ]
        );
        // A user-mode-linux guest's /proc/stat: one CPU.
        let guest = "cpu  5 0 6 100 0 0 1 0 0 0\ncpu0 5 0 6 100 0 0 1 0 0 0\n";
        assert_eq!(parse_cpu_lines(guest).unwrap().len(), 1);
        assert!(parse_cpu_lines("cpu  1 2 3\nintr 0\n").is_err());
        assert!(parse_cpu_lines("cpu0 1 2 x 4 5 6 7\n").is_err());
    }

    #[test]
    fn process_times_are_fields_14_and_15() {
        let text = "4242 (orchestr a)tor) S 1 4242 4242 0 -1 4194560 100 0 0 0 \
                    731 95 0 0 20 0 9 0 555 0 0";
        let p = parse_proc_stat(text).unwrap();
        assert_eq!((p.utime, p.stime, p.start_time), (731, 95, 555));
        assert!(parse_proc_stat("4242 (x) S 1").is_err());
        crate::proc::own_stat().unwrap();
        let s = snapshot().unwrap();
        assert!(!s.cpus.is_empty() && s.ticks_per_s > 0);
    }
}
