//! The independent instruments (iperf3, irtt, tc, ss), run inside our own
//! namespaces with `ip netns exec` (which execs the tool in place, so the
//! child's pid is the tool's). Every child is bounded: waited for with a
//! deadline, then ended by its own pid (SIGTERM, then SIGKILL).

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::CrosscheckError;

/// A tool running in a namespace, owned by this process.
#[derive(Debug)]
pub struct ToolProcess {
    what: String,
    child: Child,
    reaped: bool,
}

/// What a finished tool printed.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    /// Exit code, `None` when it was ended by a signal (ours, at its bound).
    pub code: Option<i32>,
    /// Whether we had to end it.
    pub ended_by_us: bool,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
}

impl ToolProcess {
    /// Starts `args` inside namespace `ns` (`ip netns exec ns args…`), stdout
    /// and stderr piped. `what` names it in errors ("iperf3 server in B").
    pub fn spawn(what: &str, ns: &str, args: &[String]) -> Result<ToolProcess, CrosscheckError> {
        Self::spawn_with(what, ns, args, Stdio::null())
    }

    /// Like [`ToolProcess::spawn`], with a pipe to the tool's stdin for
    /// [`ToolProcess::send`] (a tool started early that waits for a word to act).
    pub fn spawn_piped(
        what: &str,
        ns: &str,
        args: &[String],
    ) -> Result<ToolProcess, CrosscheckError> {
        Self::spawn_with(what, ns, args, Stdio::piped())
    }

    /// Writes `bytes` to the tool's stdin (started with [`ToolProcess::spawn_piped`]).
    pub fn send(&mut self, bytes: &[u8]) -> Result<(), CrosscheckError> {
        let stdin = self
            .child
            .stdin
            .as_mut()
            .ok_or_else(|| CrosscheckError::tool(&self.what, "its stdin is not a pipe"))?;
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .map_err(|e| CrosscheckError::tool(&self.what, format!("writing to its stdin: {e}")))
    }

    fn spawn_with(
        what: &str,
        ns: &str,
        args: &[String],
        stdin: Stdio,
    ) -> Result<ToolProcess, CrosscheckError> {
        let child = Command::new("ip")
            .args(["netns", "exec", ns])
            .args(args)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                CrosscheckError::tool(
                    what,
                    format!("spawning `ip netns exec {ns} {}`: {e}", args.join(" ")),
                )
            })?;
        Ok(ToolProcess {
            what: what.to_owned(),
            child,
            reaped: false,
        })
    }

    /// Its pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether it has already exited.
    pub fn finished(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Waits until it exits or `limit` passes; then ends it (SIGTERM, 1 s,
    /// SIGKILL) and collects its output. Output pipes are read after exit,
    /// so tools must print less than a pipe buffer (64 KiB) or write a file.
    pub fn wait(mut self, limit: Duration) -> Result<ToolOutput, CrosscheckError> {
        let end = Instant::now() + limit;
        let mut ended_by_us = false;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(20)),
                Ok(None) => {
                    ended_by_us = true;
                    break self.end()?;
                }
                Err(e) => return Err(CrosscheckError::tool(&self.what, format!("waiting: {e}"))),
            }
        };
        self.reaped = true;
        let mut out = ToolOutput {
            code: status.code(),
            ended_by_us,
            ..ToolOutput::default()
        };
        if let Some(mut s) = self.child.stdout.take() {
            let _ = s.read_to_string(&mut out.stdout);
        }
        if let Some(mut s) = self.child.stderr.take() {
            let _ = s.read_to_string(&mut out.stderr);
        }
        Ok(out)
    }

    /// Ends our own child by pid: SIGTERM, up to 1 s, then SIGKILL.
    fn end(&mut self) -> Result<std::process::ExitStatus, CrosscheckError> {
        let pid = Pid::from_raw(self.child.id() as i32);
        let _ = kill(pid, Signal::SIGTERM);
        let grace = Instant::now() + Duration::from_secs(1);
        while Instant::now() < grace {
            if let Ok(Some(s)) = self.child.try_wait() {
                return Ok(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        self.child
            .wait()
            .map_err(|e| CrosscheckError::tool(&self.what, format!("reaping after SIGKILL: {e}")))
    }

    /// Ends it now (SIGTERM, then SIGKILL) and collects its output.
    pub fn stop(self) -> Result<ToolOutput, CrosscheckError> {
        self.wait(Duration::ZERO)
    }
}

impl Drop for ToolProcess {
    /// A tool left running by an early return is ended and reaped.
    fn drop(&mut self) {
        if !self.reaped {
            let _ = self.end();
        }
    }
}

/// Runs a short command in `ns` to completion (bounded by `limit`) and
/// returns stdout; a non-zero exit is an error with the stderr.
pub fn run_in(
    what: &str,
    ns: &str,
    args: &[String],
    limit: Duration,
) -> Result<String, CrosscheckError> {
    let out = ToolProcess::spawn(what, ns, args)?.wait(limit)?;
    if out.code == Some(0) {
        Ok(out.stdout)
    } else {
        Err(CrosscheckError::tool(
            what,
            format!(
                "`{}` exited {:?}{}: {}",
                args.join(" "),
                out.code,
                if out.ended_by_us {
                    " (ended at its time bound)"
                } else {
                    ""
                },
                out.stderr.trim()
            ),
        ))
    }
}

/// Owned argv from string slices.
pub fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

/// Waits (bounded by `limit`) until something in `ns` listens on `port`
/// (`udp`: a bound UDP socket; else a TCP listener), asking `ss`.
pub fn wait_listening(
    ns: &str,
    udp: bool,
    port: u16,
    limit: Duration,
) -> Result<(), CrosscheckError> {
    let end = Instant::now() + limit;
    let filter = format!("sport = :{port}");
    let args = if udp {
        argv(&["ss", "-Hun", "state", "unconnected", &filter])
    } else {
        argv(&["ss", "-Htn", "state", "listening", &filter])
    };
    let mut slow_asks = 0;
    loop {
        // One `ss` may itself wait for the CPU (in the guest's one vCPU,
        // beside two Python start-ups it took over 5 s): a call that ends
        // at its own bound is asked again, within the overall `limit`.
        let left = end.saturating_duration_since(Instant::now());
        let bound = left.clamp(Duration::from_secs(5), Duration::from_secs(30));
        let out = ToolProcess::spawn("ss (readiness)", ns, &args)?.wait(bound)?;
        match out.code {
            Some(0) if !out.stdout.trim().is_empty() => return Ok(()),
            Some(0) => {}
            None if out.ended_by_us => slow_asks += 1,
            code => {
                return Err(CrosscheckError::tool(
                    "ss (readiness)",
                    format!(
                        "`{}` exited {code:?}: {}",
                        args.join(" "),
                        out.stderr.trim()
                    ),
                ))
            }
        }
        if Instant::now() >= end {
            return Err(CrosscheckError::tool(
                "readiness",
                format!(
                    "nothing listens on {} port {port} in {ns} after {limit:?} ({slow_asks} ss call(s) ended at their {bound:?} bound)",
                    if udp { "UDP" } else { "TCP" }
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
