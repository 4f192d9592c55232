//! Where netlab reads `/proc`: `/proc/<pid>/stat` and process identity (a
//! pid together with its start time, so a pid the kernel has since given to
//! another process is never mistaken for the one recorded); the fields of
//! `/proc/<pid>/status` (memory, capabilities); open file descriptors; the
//! CPU model; each CPU's time in `/proc/stat`; sysctl files under
//! `/proc/sys`; and the running kernel's release, the one place netlab
//! reads it. Every parse of a `/proc` file's text is here, pure over the
//! text, with a thin reader beside it; [`crate::cpu`] and
//! [`crate::privilege`] compute from what these return.

use std::io;

use serde::{Deserialize, Serialize};

use crate::SysError;

/// The running kernel's release as `uname -r` prints it
/// (`/proc/sys/kernel/osrelease`); `None` when it cannot be read.
pub fn kernel_release() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The value of `key` (`VmHWM`, `CapEff`, …) in the text of
/// `/proc/<pid>/status`, trimmed: `VmHWM:\t  1234 kB` gives `1234 kB`.
pub fn status_field<'a>(status: &'a str, key: &str) -> Option<&'a str> {
    status.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k == key).then_some(v.trim())
    })
}

/// A `/proc/<pid>/status` field in kB (`VmHWM`, `VmRSS`).
pub fn status_kb(status: &str, key: &str) -> Option<u64> {
    status_field(status, key)?
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// A process's memory, from `/proc/<pid>/status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryUse {
    /// `VmHWM`: the peak resident set so far, kB.
    pub peak_kb: u64,
    /// `VmRSS`: the resident set now, kB.
    pub resident_kb: u64,
}

impl MemoryUse {
    /// Parses the text of `/proc/<pid>/status`.
    pub fn parse(status: &str) -> Option<MemoryUse> {
        Some(MemoryUse {
            peak_kb: status_kb(status, "VmHWM")?,
            resident_kb: status_kb(status, "VmRSS")?,
        })
    }

    /// Process `pid`'s memory now (`None`: gone, or off Linux).
    pub fn of(pid: u32) -> Option<MemoryUse> {
        MemoryUse::parse(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
    }

    /// This process's memory now (`None` off Linux).
    pub fn own() -> Option<MemoryUse> {
        MemoryUse::parse(&std::fs::read_to_string("/proc/self/status").ok()?)
    }
}

/// Whether `/proc/<pid>` exists: some process (or zombie) has the pid.
pub fn pid_exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Process `pid`'s arguments (`/proc/<pid>/cmdline`, NUL-separated), each
/// as bytes; empty when it cannot be read (gone, or a kernel thread).
pub fn cmdline(pid: i32) -> Vec<Vec<u8>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    raw.split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// How many file descriptors process `pid` has open (`None`: gone).
pub fn open_fds(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

/// How many file descriptors this process has open.
pub fn own_open_fds() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/fd").ok()?.count())
}

/// The first `model name` of the text of `/proc/cpuinfo`.
pub fn parse_cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == "model name").then(|| v.trim().to_string())
    })
}

/// This machine's CPU model (`/proc/cpuinfo`'s first `model name`).
pub fn cpu_model() -> Option<String> {
    parse_cpu_model(&std::fs::read_to_string("/proc/cpuinfo").ok()?)
}

/// What `/proc/<pid>/stat` says about a process (the fields netlab uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// Field 1: the pid.
    pub pid: i32,
    /// Field 3: the state letter (`R`, `S`, `Z`, ...).
    pub state: char,
    /// Field 4: the parent pid.
    pub ppid: i32,
    /// Field 5: the process group.
    pub pgrp: i32,
    /// Field 14: user time of every thread together, clock ticks.
    pub utime: u64,
    /// Field 15: system time of every thread together, clock ticks.
    pub stime: u64,
    /// Field 22: start time, clock ticks after boot.
    pub start_time: u64,
}

impl ProcStat {
    /// A zombie (`Z`) or dead (`X`) process: it runs no more.
    pub fn is_dead(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

/// Parses the text of `/proc/<pid>/stat`. The command name (field 2) may
/// contain spaces and parentheses, so the fields after it are counted from
/// the last `)`.
pub fn parse_proc_stat(text: &str) -> Result<ProcStat, SysError> {
    let bad = |reason: &str| SysError::malformed("/proc/<pid>/stat", reason.to_owned());
    let open = text
        .find('(')
        .ok_or_else(|| bad("no '(' before the command name"))?;
    let close = text
        .rfind(')')
        .ok_or_else(|| bad("no ')' after the command name"))?;
    let pid = text[..open]
        .trim()
        .parse()
        .map_err(|_| bad("field 1 (pid) is not a number"))?;
    let fields: Vec<&str> = text[close + 1..].split_whitespace().collect();
    // fields[0] is field 3 (state); field n is fields[n - 3]
    let field = |n: usize| {
        fields.get(n - 3).copied().ok_or_else(|| {
            bad(&format!(
                "{} fields after the command name, need field {n}",
                fields.len()
            ))
        })
    };
    let number = |n: usize, name: &str| {
        field(n)?
            .parse::<i64>()
            .map_err(|_| bad(&format!("field {n} ({name}) is not a number")))
    };
    let state = field(3)?.chars().next().unwrap_or('?');
    let ppid = number(4, "ppid")? as i32;
    let pgrp = number(5, "pgrp")? as i32;
    let ticks = |n: usize, name: &str| {
        field(n)?
            .parse::<u64>()
            .map_err(|_| bad(&format!("field {n} ({name}) is not a number")))
    };
    let utime = ticks(14, "utime")?;
    let stime = ticks(15, "stime")?;
    let start_time = field(22)?
        .parse()
        .map_err(|_| bad("field 22 (starttime) is not a number"))?;
    Ok(ProcStat {
        pid,
        state,
        ppid,
        pgrp,
        utime,
        stime,
        start_time,
    })
}

/// One CPU's time since boot, clock ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTicks {
    /// user + nice + system + irq + softirq + steal: time the CPU was not
    /// free for anything else (`guest` time is already inside `user`).
    pub busy: u64,
    /// idle + iowait.
    pub idle: u64,
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

/// Reads `/proc/stat`'s per-CPU lines now.
pub fn cpu_lines() -> Result<Vec<CpuTicks>, SysError> {
    let stat =
        std::fs::read_to_string("/proc/stat").map_err(|e| SysError::io("reading /proc/stat", e))?;
    parse_cpu_lines(&stat)
}

/// Reads this process's `/proc/self/stat`.
pub fn own_stat() -> Result<ProcStat, SysError> {
    let me = std::fs::read_to_string("/proc/self/stat")
        .map_err(|e| SysError::io("reading /proc/self/stat", e))?;
    parse_proc_stat(&me)
}

/// The `CapEff` mask in the text of `/proc/<pid>/status`.
pub fn parse_cap_eff(status: &str) -> Result<u64, SysError> {
    let v = status_field(status, "CapEff")
        .ok_or_else(|| SysError::malformed("/proc/self/status", "no CapEff line"))?;
    u64::from_str_radix(v, 16)
        .map_err(|_| SysError::malformed("/proc/self/status", format!("CapEff {v:?} is not hex")))
}

/// This process's effective capability mask (`CapEff` of
/// `/proc/self/status`).
pub fn own_cap_eff() -> Result<u64, SysError> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| SysError::io("reading /proc/self/status", e))?;
    parse_cap_eff(&status)
}

/// Path of a sysctl under `/proc/sys` (`net.ipv4.ip_forward` →
/// `/proc/sys/net/ipv4/ip_forward`).
pub fn sysctl_path(key: &str) -> String {
    format!("/proc/sys/{}", key.replace('.', "/"))
}

/// Reads a sysctl, trimmed, as the calling thread's namespaces see it.
pub fn read_sysctl(key: &str) -> io::Result<String> {
    Ok(std::fs::read_to_string(sysctl_path(key))?.trim().to_owned())
}

/// Writes a sysctl as the calling thread's namespaces see it.
pub fn write_sysctl(key: &str, value: &str) -> io::Result<()> {
    std::fs::write(sysctl_path(key), format!("{value}\n"))
}

/// The text of `/proc/net/psched` (the kernel's packet-scheduler clock
/// factors, parsed by the TBF model, `netlab_qdisc_model::Psched`).
pub fn psched_text() -> io::Result<String> {
    std::fs::read_to_string("/proc/net/psched")
}

/// `ESRCH`, "no such process" (3 on every Linux architecture): a read of
/// `/proc/<pid>/stat` races the process's exit. A constant, so reading
/// `/proc` needs no nix (the crate without its `net` feature).
const ESRCH: i32 = 3;

/// Reads `/proc/<pid>/stat`; `Ok(None)` if there is no such process.
pub fn proc_stat(pid: i32) -> Result<Option<ProcStat>, SysError> {
    if pid <= 0 {
        return Ok(None);
    }
    let path = format!("/proc/{pid}/stat");
    match std::fs::read_to_string(&path) {
        Ok(text) => parse_proc_stat(&text).map(Some),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.raw_os_error() == Some(ESRCH) => Ok(None),
        Err(e) => Err(SysError::io(format!("reading {path}"), e)),
    }
}

/// A process, identified by pid and start time (field 22 of
/// `/proc/<pid>/stat`, clock ticks after boot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProcessIdentity {
    /// Process id.
    pub pid: i32,
    /// Start time in clock ticks after boot.
    pub start_time: u64,
}

impl ProcessIdentity {
    /// The identity of the running process `pid`.
    pub fn of(pid: i32) -> Result<ProcessIdentity, SysError> {
        match proc_stat(pid)? {
            Some(s) => Ok(ProcessIdentity {
                pid,
                start_time: s.start_time,
            }),
            None => Err(SysError::NoSuchProcess { pid }),
        }
    }

    /// The identity of this process.
    pub fn own() -> Result<ProcessIdentity, SysError> {
        ProcessIdentity::of(std::process::id() as i32)
    }

    /// Whether this process still runs as the one identified.
    pub fn liveness(&self) -> Liveness {
        match proc_stat(self.pid) {
            Ok(Some(s)) if s.start_time != self.start_time => Liveness::Reused {
                start_time: s.start_time,
            },
            Ok(Some(s)) if s.is_dead() => Liveness::Gone,
            Ok(Some(_)) => Liveness::Alive,
            Ok(None) => Liveness::Gone,
            Err(e) => Liveness::Unknown {
                reason: e.to_string(),
            },
        }
    }
}

impl std::fmt::Display for ProcessIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pid {} (start time {})", self.pid, self.start_time)
    }
}

/// Whether a recorded process still runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Liveness {
    /// Running (or stopped), same start time.
    Alive,
    /// No such process, or a zombie.
    Gone,
    /// The pid now belongs to another process, started at `start_time`.
    Reused {
        /// The other process's start time.
        start_time: u64,
    },
    /// `/proc` could not be read: nothing can be concluded (treat as alive,
    /// so nothing is assumed dead wrongly).
    Unknown {
        /// Why.
        reason: String,
    },
}

/// Live (not zombie) processes whose process group is `pgid`.
pub fn live_process_group(pgid: i32) -> Vec<ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if let Ok(Some(s)) = proc_stat(pid) {
            if s.pgrp == pgid && !s.is_dead() {
                out.push(s);
            }
        }
    }
    out.sort_by_key(|s| s.pid);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn status_fields_and_memory_read_from_their_text() {
        let status = "Name:\tx\nVmPeak:\t 9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t     567 kB\nCapEff:\t000001ffffffffff\n";
        assert_eq!(status_field(status, "CapEff"), Some("000001ffffffffff"));
        assert_eq!(status_field(status, "Vm"), None);
        assert_eq!(status_kb(status, "VmHWM"), Some(1234));
        assert_eq!(
            MemoryUse::parse(status),
            Some(MemoryUse {
                peak_kb: 1234,
                resident_kb: 567
            })
        );
        assert_eq!(MemoryUse::parse("Name:\tx\n"), None);
        let own = MemoryUse::own().unwrap();
        assert!(
            own.peak_kb >= own.resident_kb && own.resident_kb > 0,
            "{own:?}"
        );
        assert!(own_open_fds().unwrap() >= 3);
        assert!(pid_exists(std::process::id()));
        let me = cmdline(std::process::id() as i32);
        assert!(!me.is_empty() && !me[0].is_empty(), "{me:?}");
        let cpuinfo = "processor\t: 0\nmodel name\t: Test CPU @ 2GHz\n\nprocessor\t: 1\nmodel name\t: other\n";
        assert_eq!(parse_cpu_model(cpuinfo).as_deref(), Some("Test CPU @ 2GHz"));
    }

    use super::*;

    #[test]
    fn parses_stat_with_odd_comm() {
        let text = "4242 (we ird) (x)) S 1 4243 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615\n";
        let s = parse_proc_stat(text).unwrap();
        assert_eq!(
            s,
            ProcStat {
                pid: 4242,
                state: 'S',
                ppid: 1,
                pgrp: 4243,
                utime: 1,
                stime: 2,
                start_time: 987_654
            }
        );
        let s =
            parse_proc_stat("7 (a) b) c) Z 0 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0").unwrap();
        assert_eq!((s.state, s.start_time), ('Z', 5));
        assert!(s.is_dead());
        // a comm of ")" alone and one with newline-free spaces
        let s = parse_proc_stat("8 ()) R 1 8 8 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 6 0 0").unwrap();
        assert_eq!(s.start_time, 6);
    }

    #[test]
    fn short_or_garbled_stat_is_an_error_naming_the_field() {
        let reason = |text: &str| match parse_proc_stat(text).unwrap_err() {
            SysError::Malformed { what, reason } => {
                assert_eq!(what, "/proc/<pid>/stat");
                reason
            }
            other => panic!("{text:?}: not Malformed: {other:?}"),
        };
        assert_eq!(
            reason("12 (x) S 1"),
            "2 fields after the command name, need field 5"
        );
        assert_eq!(reason("garbage"), "no '(' before the command name");
        assert_eq!(reason("x (a) S 1 2 3"), "field 1 (pid) is not a number");
        assert_eq!(
            reason("9 (a) S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 notanumber"),
            "field 22 (starttime) is not a number"
        );
        // every truncation of a real line is an error, never a panic
        let real = std::fs::read_to_string("/proc/self/stat").unwrap();
        for cut in 0..real.len() {
            if real.is_char_boundary(cut) {
                let _ = parse_proc_stat(&real[..cut]);
            }
        }
    }

    #[test]
    fn own_identity_is_alive_and_a_changed_start_time_is_reuse() {
        let me = ProcessIdentity::own().unwrap();
        assert_eq!(me.pid, std::process::id() as i32);
        assert_eq!(me.liveness(), Liveness::Alive);
        let other = ProcessIdentity {
            pid: me.pid,
            start_time: me.start_time + 1,
        };
        assert_eq!(
            other.liveness(),
            Liveness::Reused {
                start_time: me.start_time
            }
        );
        // above the kernel's hard pid limit: cannot exist
        let gone = ProcessIdentity {
            pid: 4_194_305,
            start_time: 1,
        };
        assert_eq!(gone.liveness(), Liveness::Gone);
        assert!(matches!(
            ProcessIdentity::of(4_194_305),
            Err(SysError::NoSuchProcess { .. })
        ));
        assert_eq!(proc_stat(0).unwrap(), None);
        assert_eq!(
            serde_json::to_string(&me).unwrap(),
            format!(r#"{{"pid":{},"start_time":{}}}"#, me.pid, me.start_time)
        );
    }

    #[test]
    fn own_process_group_is_listed() {
        let me = proc_stat(std::process::id() as i32).unwrap().unwrap();
        let group = live_process_group(me.pgrp);
        assert!(group.iter().any(|s| s.pid == me.pid));
        assert!(group.iter().all(|s| s.pgrp == me.pgrp));
    }
}
