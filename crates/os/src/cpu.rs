//! CPU time as the kernel counts it: this process's user and system time
//! (`/proc/self/stat` fields 14 and 15, every thread of the process
//! together) and each CPU's busy and idle time (`/proc/stat`'s `cpuN`
//! lines), in clock ticks. Two snapshots around a window give the CPU a
//! run used in it (docs/method.md §14). The parsers are pure; [`snapshot`]
//! reads the files.

use std::time::Instant;

use crate::SysError;

/// The tick `/proc/stat` and `/proc/<pid>/stat` count in: `USER_HZ`,
/// 100 per second on every architecture netlab runs on (x86-64, arm64 and
/// user-mode-linux; what `sysconf(_SC_CLK_TCK)` returns there).
pub const USER_HZ: u64 = 100;

/// One CPU's time since boot, clock ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTicks {
    /// user + nice + system + irq + softirq + steal: time the CPU was not
    /// free for anything else (`guest` time is already inside `user`).
    pub busy: u64,
    /// idle + iowait.
    pub idle: u64,
}

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

/// The per-CPU lines of `/proc/stat` (`cpu0 …`, not the `cpu` total).
pub fn parse_cpu_lines(text: &str) -> Result<Vec<CpuTicks>, SysError> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(name) = words.next() else { continue };
        let Some(n) = name.strip_prefix("cpu") else {
            continue;
        };
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let v: Vec<u64> = words
            .map(|w| w.parse::<u64>())
            .collect::<Result<_, _>>()
            .map_err(|_| {
                SysError::malformed("/proc/stat", format!("{name}: a field is not a number"))
            })?;
        if v.len() < 7 {
            return Err(SysError::malformed(
                "/proc/stat",
                format!("{name}: {} fields, need at least 7", v.len()),
            ));
        }
        // user nice system idle iowait irq softirq [steal guest guest_nice]
        let steal = v.get(7).copied().unwrap_or(0);
        out.push(CpuTicks {
            busy: v[0] + v[1] + v[2] + v[5] + v[6] + steal,
            idle: v[3] + v[4],
        });
    }
    if out.is_empty() {
        return Err(SysError::malformed("/proc/stat", "no cpuN line"));
    }
    Ok(out)
}

/// Fields 14 and 15 (utime, stime) of a `/proc/<pid>/stat` text, clock
/// ticks. The command name may hold spaces, so fields are counted from the
/// last `)`.
pub fn parse_process_times(text: &str) -> Result<(u64, u64), SysError> {
    let bad = |reason: String| SysError::malformed("/proc/<pid>/stat", reason);
    let close = text
        .rfind(')')
        .ok_or_else(|| bad("no ')' after the command name".into()))?;
    let fields: Vec<&str> = text[close + 1..].split_whitespace().collect();
    // fields[0] is field 3
    let field = |n: usize| -> Result<u64, SysError> {
        fields
            .get(n - 3)
            .ok_or_else(|| bad(format!("{} fields, need field {n}", fields.len())))?
            .parse()
            .map_err(|_| bad(format!("field {n} is not a number")))
    };
    Ok((field(14)?, field(15)?))
}

/// Reads this process's and every CPU's time now.
pub fn snapshot() -> Result<CpuSnapshot, SysError> {
    let at = Instant::now();
    let me = std::fs::read_to_string("/proc/self/stat")
        .map_err(|e| SysError::io("reading /proc/self/stat", e))?;
    let stat =
        std::fs::read_to_string("/proc/stat").map_err(|e| SysError::io("reading /proc/stat", e))?;
    let (process_user, process_system) = parse_process_times(&me)?;
    Ok(CpuSnapshot {
        at,
        process_user,
        process_system,
        cpus: parse_cpu_lines(&stat)?,
        ticks_per_s: USER_HZ,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(parse_process_times(text).unwrap(), (731, 95));
        assert!(parse_process_times("4242 (x) S 1").is_err());
        let own = std::fs::read_to_string("/proc/self/stat").unwrap();
        parse_process_times(&own).unwrap();
        let s = snapshot().unwrap();
        assert!(!s.cpus.is_empty() && s.ticks_per_s > 0);
    }
}
