//! A bottleneck whose rate moves: `[path.up]`'s (or `[path.down]`'s)
//! `rate_schedule`, or a recorded `trace` turned into a rate per
//! `trace_bin` (docs/method.md §15). The schedule is a value: its steps
//! from t0, an optional repetition, and where it came from;
//! [`RateSchedule::changes`] lists the changes a scenario of a given
//! length makes, and [`RateSchedule::offered_bytes`] the capacity it
//! offers over any interval, the figure the TBF's sent bytes are held
//! against.
//!
//! An outage (a trace bin without an opportunity, or a rate of `0` in a
//! schedule) is a step without a rate. TBF takes no zero rate: the runner
//! holds the queue with [`HOLD_RATE`], the smallest rate the kernel takes
//! (docs/method.md §15.3 says what that costs).

use std::path::{Path, PathBuf};
use std::time::Duration;

use netlab_qdisc_model::Rate;
use sha2::{Digest, Sha256};

use crate::check::err;
use crate::file::ShaperFile;
use crate::trace::{Trace, MIN_TRACE_BIN};
use crate::units::{format_duration, parse_duration};
use crate::ExperimentError;

/// The rate an outage is held at: 8 bit/s, one byte a second, the
/// smallest rate TBF takes (its rate is whole bytes per second).
pub const HOLD_RATE: Rate = Rate(8);

/// The default bin a trace is turned into rates over.
pub const DEFAULT_TRACE_BIN: Duration = Duration::from_millis(100);

/// Most steps one schedule (one period of a trace) may hold.
pub const MAX_STEPS: usize = 100_000;

/// From `at` (from t0, or from the period's start when the schedule
/// repeats) the bottleneck runs at `rate`; `None` is an outage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateStep {
    /// When the step begins.
    pub at: Duration,
    /// The rate; `None`: no capacity at all (held at [`HOLD_RATE`]).
    pub rate: Option<Rate>,
}

impl RateStep {
    /// The rate the TBF is given for this step.
    pub fn tbf_rate(&self) -> Rate {
        self.rate.unwrap_or(HOLD_RATE)
    }
}

/// Where a trace-made schedule came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceOrigin {
    /// The trace file as resolved (absolute when it was read).
    pub path: String,
    /// The bin its rates are computed over.
    pub bin: Duration,
    /// SHA-256 of the file's bytes, lowercase hex.
    pub sha256: String,
}

/// A direction's rate over the scenario's time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateSchedule {
    /// The steps, the first at 0, times strictly increasing.
    pub steps: Vec<RateStep>,
    /// The steps repeat with this period (a trace's period); `None`: the
    /// last step lasts to the end.
    pub repeat_every: Option<Duration>,
    /// The trace the steps were made from, if any.
    pub trace: Option<TraceOrigin>,
}

impl RateSchedule {
    /// The rate at t0.
    pub fn initial(&self) -> RateStep {
        self.steps[0]
    }

    /// The step in force at `t` from t0.
    pub fn at(&self, t: Duration) -> RateStep {
        let local = match self.repeat_every {
            Some(p) if !p.is_zero() => Duration::from_nanos((t.as_nanos() % p.as_nanos()) as u64),
            _ => t,
        };
        let i = self.steps.partition_point(|s| s.at <= local);
        self.steps[i.saturating_sub(1)]
    }

    /// Every change after t0 and before `end`, as times from t0: the steps
    /// of each repetition, a step whose rate equals the one before left
    /// out (it changes nothing).
    pub fn changes(&self, end: Duration) -> Vec<RateStep> {
        let mut out = Vec::new();
        let mut current = self.initial().rate;
        let mut base = Duration::ZERO;
        loop {
            for s in &self.steps {
                let at = base + s.at;
                if at >= end {
                    return out;
                }
                if at > Duration::ZERO && s.rate != current {
                    out.push(RateStep { at, rate: s.rate });
                }
                current = s.rate;
            }
            match self.repeat_every {
                Some(p) if !p.is_zero() => base += p,
                _ => return out,
            }
        }
    }

    /// The bytes the schedule offers between `from` and `to` (from t0): its
    /// rate integrated over the interval, an outage offering none.
    pub fn offered_bytes(&self, from: Duration, to: Duration) -> f64 {
        if to <= from {
            return 0.0;
        }
        let mut total = 0.0;
        let mut t = from;
        let mut rate = self.at(from).rate;
        for c in self.changes(to) {
            if c.at <= from {
                continue;
            }
            total += bytes_over(rate, c.at - t);
            t = c.at;
            rate = c.rate;
        }
        total + bytes_over(rate, to - t)
    }

    /// The fewest bytes per second any step offers (an outage: 0).
    pub fn lowest(&self) -> Option<Rate> {
        self.steps.iter().map(|s| s.rate).min().flatten()
    }

    /// The lowest rate of a step that has one (outages left out).
    pub fn slowest(&self) -> Option<Rate> {
        self.steps.iter().filter_map(|s| s.rate).min()
    }

    /// The most bytes per second any step offers.
    pub fn highest(&self) -> Option<Rate> {
        self.steps.iter().filter_map(|s| s.rate).max()
    }
}

fn bytes_over(rate: Option<Rate>, d: Duration) -> f64 {
    rate.map_or(0.0, |r| r.bits_per_sec() as f64 / 8.0 * d.as_secs_f64())
}

/// What a scenario of length `end` pays for its changes (docs/method.md
/// §15.3): `tbf_change` sets the bucket's tokens to a full burst, so each
/// change lets up to `burst` bytes through beyond the schedule while the
/// queue is backlogged. `None` when that is under 1 % of what the
/// schedule offers.
pub(crate) fn refill_warning(
    s: &RateSchedule,
    tbf: &netlab_qdisc_model::Tbf,
    end: Duration,
) -> Option<(String, String)> {
    let changes = s.changes(end).len();
    let offered = s.offered_bytes(Duration::ZERO, end);
    let extra = changes as f64 * tbf.burst.0 as f64;
    if changes == 0 || offered <= 0.0 || extra < 0.01 * offered {
        return None;
    }
    let outages = s.steps.iter().any(|x| x.rate.is_none());
    let text = format!(
        "{changes} rate changes in {}: each refills TBF's bucket to its burst ({}), so a \
         backlogged queue may pass up to {:.0} kB ({:.1} % of the {:.0} kB the schedule offers) \
         beyond the schedule{}",
        format_duration(end),
        tbf.burst,
        extra / 1e3,
        100.0 * extra / offered,
        offered / 1e3,
        if outages {
            "; an outage is held at 8 bit/s and its first change refills the bucket too, \
             so up to one burst leaves as it starts"
        } else {
            ""
        }
    );
    let fix = "a smaller burst (at least one 1514-byte frame), fewer changes (a longer \
               trace_bin); the report sets the TBF's sent bytes beside the schedule per bin"
        .to_string();
    Some((text, fix))
}

/// The schedule a `[path.up]`/`[path.down]` table asks for, if any.
/// `key` is `path.up` or `path.down`; `base` is the folder a relative
/// trace path is read from (`None`: the current folder).
pub(crate) fn resolve_schedule(
    key: &str,
    s: &ShaperFile,
    base: Option<&Path>,
) -> Result<Option<RateSchedule>, ExperimentError> {
    if s.trace_bin.is_some() && s.trace.is_none() {
        return Err(err(format!("{key}.trace_bin"), "needs a trace"));
    }
    if s.trace_sha256.is_some() && s.trace.is_none() {
        return Err(err(format!("{key}.trace_sha256"), "needs a trace"));
    }
    match (&s.rate_schedule, &s.trace) {
        (None, None) => {
            if s.repeat_every.is_some() {
                return Err(err(format!("{key}.repeat_every"), "needs a rate_schedule"));
            }
            Ok(None)
        }
        (Some(steps), None) => {
            let steps = parse_steps(key, steps)?;
            let repeat_every = repeat(key, s, &steps)?;
            Ok(Some(RateSchedule {
                steps,
                repeat_every,
                trace: None,
            }))
        }
        (None, Some(path)) => {
            if s.repeat_every.is_some() {
                return Err(err(
                    format!("{key}.repeat_every"),
                    "a trace repeats with its own period (its last timestamp)",
                ));
            }
            read_trace(key, path, s, base).map(Some)
        }
        (Some(steps), Some(path)) => {
            // netlab's printed form of a trace: its rates, so results.json
            // reads back on a machine without the file.
            let Some(sha256) = &s.trace_sha256 else {
                return Err(err(
                    format!("{key}.rate_schedule"),
                    "give a rate_schedule or a trace, not both",
                ));
            };
            let steps = parse_steps(key, steps)?;
            let repeat_every = repeat(key, s, &steps)?;
            Ok(Some(RateSchedule {
                steps,
                repeat_every,
                trace: Some(TraceOrigin {
                    path: path.clone(),
                    bin: trace_bin(key, s)?,
                    sha256: sha256.clone(),
                }),
            }))
        }
    }
}

fn trace_bin(key: &str, s: &ShaperFile) -> Result<Duration, ExperimentError> {
    let Some(text) = &s.trace_bin else {
        return Ok(DEFAULT_TRACE_BIN);
    };
    let k = format!("{key}.trace_bin");
    let bin = parse_duration(text, false).map_err(|e| err(&k, e))?;
    if bin < MIN_TRACE_BIN || bin.subsec_nanos() % 1_000_000 != 0 {
        return Err(err(
            k,
            format!(
                "{text:?}: a whole number of milliseconds, at least {}",
                format_duration(MIN_TRACE_BIN)
            ),
        ));
    }
    Ok(bin)
}

fn repeat(
    key: &str,
    s: &ShaperFile,
    steps: &[RateStep],
) -> Result<Option<Duration>, ExperimentError> {
    let Some(text) = &s.repeat_every else {
        return Ok(None);
    };
    let k = format!("{key}.repeat_every");
    let p = parse_duration(text, false).map_err(|e| err(&k, e))?;
    let last = steps.last().map_or(Duration::ZERO, |x| x.at);
    if p <= last {
        return Err(err(
            k,
            format!("{text:?} must be longer than the last step's time"),
        ));
    }
    Ok(Some(p))
}

/// `[["0s", "10mbit"], ["8s", "2mbit"], ...]`: the first at 0s, times
/// strictly increasing, each rate one TBF takes or `0` (an outage).
fn parse_steps(key: &str, raw: &[[String; 2]]) -> Result<Vec<RateStep>, ExperimentError> {
    let k = format!("{key}.rate_schedule");
    if raw.is_empty() {
        return Err(err(k, "at least one [time, rate] step is needed"));
    }
    if raw.len() > MAX_STEPS {
        return Err(err(k, format!("{} steps; at most {MAX_STEPS}", raw.len())));
    }
    let mut steps: Vec<RateStep> = Vec::with_capacity(raw.len());
    for (i, [at, rate]) in raw.iter().enumerate() {
        let ki = format!("{k}[{i}]");
        let at = parse_duration(at, true).map_err(|e| err(&ki, e))?;
        if i == 0 && !at.is_zero() {
            return Err(err(ki, "the first step is at \"0s\" (t0)"));
        }
        if let Some(prev) = steps.last() {
            if at <= prev.at {
                return Err(err(
                    ki,
                    format!(
                        "{} is not after the step before ({})",
                        format_duration(at),
                        format_duration(prev.at)
                    ),
                ));
            }
        }
        let rate = parse_rate(&ki, rate)?;
        steps.push(RateStep { at, rate });
    }
    Ok(steps)
}

/// A schedule's rate: `0` (or `0bit`) is an outage; anything else is a
/// rate TBF takes (at least 8 bit/s, whole bytes per second).
fn parse_rate(key: &str, text: &str) -> Result<Option<Rate>, ExperimentError> {
    let t = text.trim();
    if t == "0" || t == "0bit" {
        return Ok(None);
    }
    let r = Rate::parse(t).map_err(|e| err(key, e.to_string()))?;
    if r.bytes_per_sec() == 0 {
        return Err(err(
            key,
            format!(
                "{text:?}: TBF takes no rate under 8bit (whole bytes per second); 0 is an outage"
            ),
        ));
    }
    Ok(Some(r))
}

/// What a schedule must agree with beyond its own table: a step after the
/// scenario's end would never run (refused; a repeating schedule is cut
/// at the end instead), and a swept rate of the same direction would set
/// the rate the schedule sets.
/// `up` and `down` are the path's schedules, `end` the scenario's end.
pub(crate) fn check_against(
    [up, down]: [&Option<RateSchedule>; 2],
    end: Duration,
    sweep: Option<&crate::file::SweepFile>,
) -> Result<(), ExperimentError> {
    for (dir, schedule, swept) in [
        (
            "up",
            up,
            sweep.and_then(|s| s.rate.as_ref()).map(|_| "sweep.rate"),
        ),
        (
            "down",
            down,
            sweep
                .and_then(|s| s.down_rate.as_ref())
                .map(|_| "sweep.down_rate"),
        ),
    ] {
        let Some(s) = schedule else { continue };
        if let Some(key) = swept {
            return Err(err(
                key,
                format!("path.{dir} has a rate schedule, which sets its rate over time"),
            ));
        }
        if s.repeat_every.is_none() {
            if let Some((i, late)) = s.steps.iter().enumerate().find(|(_, x)| x.at >= end) {
                return Err(err(
                    format!("path.{dir}.rate_schedule[{i}]"),
                    format!(
                        "{} is not before the scenario's end ({}: baseline + warmup + measure)",
                        format_duration(late.at),
                        format_duration(end)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Reads and converts a trace; a refusal names the file and the line.
fn read_trace(
    key: &str,
    path: &str,
    s: &ShaperFile,
    base: Option<&Path>,
) -> Result<RateSchedule, ExperimentError> {
    let k = format!("{key}.trace");
    let bin = trace_bin(key, s)?;
    let full: PathBuf = match base {
        Some(b) if Path::new(path).is_relative() => b.join(path),
        _ => PathBuf::from(path),
    };
    let bytes =
        std::fs::read(&full).map_err(|e| err(&k, format!("reading {}: {e}", full.display())))?;
    let sha256 = hex::encode(Sha256::digest(&bytes));
    if let Some(want) = &s.trace_sha256 {
        if *want != sha256 {
            return Err(err(
                format!("{key}.trace_sha256"),
                format!("{} has SHA-256 {sha256}, not {want}", full.display()),
            ));
        }
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| err(&k, format!("{}: not UTF-8 text", full.display())))?;
    let trace = Trace::parse(&text).map_err(|e| err(&k, format!("{}: {e}", full.display())))?;
    let bins = trace.bins(bin);
    if bins.len() > MAX_STEPS {
        return Err(err(
            &k,
            format!(
                "{}: {} bins of {} in one period; at most {MAX_STEPS}",
                full.display(),
                bins.len(),
                format_duration(bin)
            ),
        ));
    }
    let steps = bins
        .iter()
        .map(|b| RateStep {
            at: b.start,
            rate: b.rate,
        })
        .collect();
    let path = std::path::absolute(&full).unwrap_or(full);
    Ok(RateSchedule {
        steps,
        repeat_every: Some(trace.period()),
        trace: Some(TraceOrigin {
            path: path.display().to_string(),
            bin,
            sha256,
        }),
    })
}

/// The keys of a schedule in the file form (what `--print-experiment`
/// prints): the steps, the repetition, and for a trace its file, bin and
/// hash, so the printed form reads back without the file.
pub(crate) fn print_schedule(s: &RateSchedule, out: &mut ShaperFile) {
    out.rate_schedule = Some(
        s.steps
            .iter()
            .map(|x| {
                [
                    format_duration(x.at),
                    x.rate.map_or_else(|| "0".to_string(), |r| r.to_string()),
                ]
            })
            .collect(),
    );
    out.repeat_every = s.repeat_every.map(format_duration);
    if let Some(t) = &s.trace {
        out.trace = Some(t.path.clone());
        out.trace_bin = Some(format_duration(t.bin));
        out.trace_sha256 = Some(t.sha256.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn step(at: u64, rate: Option<u64>) -> RateStep {
        RateStep {
            at: ms(at),
            rate: rate.map(Rate),
        }
    }

    fn file(steps: &[(&str, &str)]) -> ShaperFile {
        ShaperFile {
            rate_schedule: Some(
                steps
                    .iter()
                    .map(|(a, b)| [a.to_string(), b.to_string()])
                    .collect(),
            ),
            ..ShaperFile::default()
        }
    }

    #[test]
    fn a_schedule_parses_and_lists_its_changes() {
        let s = resolve_schedule(
            "path.up",
            &file(&[("0s", "10mbit"), ("8s", "2mbit"), ("14s", "10mbit")]),
            None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(s.initial(), step(0, Some(10_000_000)));
        let c = s.changes(Duration::from_secs(20));
        assert_eq!(
            c,
            vec![step(8000, Some(2_000_000)), step(14000, Some(10_000_000))]
        );
        // A scenario that ends before the second change makes only the first.
        assert_eq!(s.changes(Duration::from_secs(14)).len(), 1);
        assert_eq!(s.at(ms(9000)).rate, Some(Rate(2_000_000)));
        // 8 s at 10 Mbit/s + 2 s at 2 Mbit/s.
        let offered = s.offered_bytes(Duration::ZERO, Duration::from_secs(10));
        assert!((offered - (10e6 + 0.5e6)).abs() < 1e-6, "{offered}");
        assert_eq!(s.offered_bytes(ms(9000), ms(10000)), 250_000.0);
    }

    #[test]
    fn a_repeating_schedule_wraps_and_skips_steps_that_change_nothing() {
        let mut f = file(&[("0s", "10mbit"), ("1s", "0"), ("2s", "10mbit")]);
        f.repeat_every = Some("2500ms".into());
        let s = resolve_schedule("path.up", &f, None).unwrap().unwrap();
        let c = s.changes(Duration::from_secs(6));
        // 2.5 s: the period restarts at 10mbit, which it already is.
        assert_eq!(
            c,
            vec![
                step(1000, None),
                step(2000, Some(10_000_000)),
                step(3500, None),
                step(4500, Some(10_000_000)),
            ]
        );
        assert_eq!(s.at(ms(3600)).rate, None);
        assert_eq!(s.at(ms(3600)).tbf_rate(), HOLD_RATE);
        // An outage offers nothing.
        assert_eq!(s.offered_bytes(ms(1000), ms(2000)), 0.0);
        assert_eq!(s.lowest(), None);
        assert_eq!(s.highest(), Some(Rate(10_000_000)));
    }

    #[test]
    fn schedules_the_path_cannot_take_are_refused_naming_the_step() {
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);
        let cases: &[Case<'_>] = &[
            (&[("1s", "10mbit")], "rate_schedule[0]", "first step"),
            (
                &[("0s", "10mbit"), ("0s", "2mbit")],
                "rate_schedule[1]",
                "not after",
            ),
            (
                &[("0s", "10mbit"), ("2s", "1bit")],
                "rate_schedule[1]",
                "under 8bit",
            ),
            (
                &[("0s", "10mbit"), ("2s", "fast")],
                "rate_schedule[1]",
                "rate",
            ),
            (&[("0s", "-1mbit")], "rate_schedule[0]", ""),
            (&[("soon", "10mbit")], "rate_schedule[0]", "not a number"),
            (&[], "rate_schedule", "at least one"),
        ];
        for (steps, key, says) in cases {
            let e = resolve_schedule("path.up", &file(steps), None).unwrap_err();
            assert_eq!(e.key(), format!("path.up.{key}"), "{steps:?}: {e}");
            assert!(e.to_string().contains(says), "{steps:?}: {e}");
        }
        let mut f = file(&[("0s", "10mbit"), ("2s", "5mbit")]);
        f.repeat_every = Some("2s".into());
        assert_eq!(
            resolve_schedule("path.up", &f, None).unwrap_err().key(),
            "path.up.repeat_every"
        );
        let f = ShaperFile {
            trace_bin: Some("50ms".into()),
            ..ShaperFile::default()
        };
        assert_eq!(
            resolve_schedule("path.up", &f, None).unwrap_err().key(),
            "path.up.trace_bin"
        );
    }

    #[test]
    fn a_trace_becomes_rates_per_bin_and_prints_back_without_its_file() {
        let dir = std::env::temp_dir().join(format!("netlab-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // 200 ms period: 2 packets in the first 100 ms, none in the second.
        std::fs::write(dir.join("t.trace"), "0\n40\n200\n").unwrap();
        let f = ShaperFile {
            trace: Some("t.trace".into()),
            ..ShaperFile::default()
        };
        let s = resolve_schedule("path.up", &f, Some(&dir))
            .unwrap()
            .unwrap();
        // 0 and 200 (the next period's 0) and 40: 3 × 1514 B in 100 ms.
        assert_eq!(s.steps, vec![step(0, Some(363_360)), step(100, None)]);
        assert_eq!(s.repeat_every, Some(ms(200)));
        let origin = s.trace.clone().unwrap();
        assert!(origin.path.ends_with("t.trace") && Path::new(&origin.path).is_absolute());
        assert_eq!(origin.sha256.len(), 64);
        // The printed form reads back the same, the file gone.
        let mut printed = ShaperFile::default();
        print_schedule(&s, &mut printed);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            resolve_schedule("path.up", &printed, None)
                .unwrap()
                .unwrap(),
            s
        );
        // A malformed trace is refused naming the file and the line.
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("bad.trace"), "0\n10\nten\n").unwrap();
        let f = ShaperFile {
            trace: Some("bad.trace".into()),
            ..ShaperFile::default()
        };
        let e = resolve_schedule("path.up", &f, Some(&dir)).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(e.key(), "path.up.trace");
        assert!(e.to_string().contains("bad.trace: line 3:"), "{e}");
    }

    #[test]
    fn an_experiment_with_a_schedule_prints_back_and_checks_its_neighbours() {
        let text = r#"
            [timeline]
            baseline = "2s"
            warmup = "2s"
            measure = "16s"
            [path.up]
            rate_schedule = [["0s", "10mbit"], ["8s", "2mbit"], ["14s", "10mbit"]]
        "#;
        let exp = crate::parse(text).unwrap();
        assert_eq!(exp.path.up.unwrap().rate, Rate(10_000_000));
        assert_eq!(exp.path.up_schedule.as_ref().unwrap().steps.len(), 3);
        assert_eq!(crate::parse(&exp.to_toml()).unwrap(), exp);
        // The content hash of a file without a schedule is unchanged: the
        // keys are not printed.
        assert!(!crate::Experiment::default()
            .to_toml()
            .contains("rate_schedule"));
        let refused = |extra: &str, key: &str| {
            let e = crate::parse(&format!("{text}{extra}")).unwrap_err();
            assert_eq!(e.key(), key, "{e}");
        };
        refused("rate = \"5mbit\"\n", "path.up.rate");
        refused("[sweep]\nrate = [\"5mbit\"]\n", "sweep.rate");
        let late = text.replace("[\"14s\", \"10mbit\"]", "[\"20s\", \"10mbit\"]");
        let e = crate::parse(&late).unwrap_err();
        assert_eq!(e.key(), "path.up.rate_schedule[2]");
        assert!(e.to_string().contains("scenario's end (20s"), "{e}");
        let unshaped = "[path.up]\nshaped = false\nrate_schedule = [[\"0s\", \"1mbit\"]]\n";
        assert_eq!(crate::parse(unshaped).unwrap_err().key(), "path.up");
    }

    #[test]
    fn frequent_changes_warn_that_each_refills_the_bucket() {
        let kinds = |text: &str| -> Vec<crate::WarningKind> {
            crate::warnings(&crate::parse(text).unwrap())
                .into_iter()
                .map(|w| w.kind)
                .collect()
        };
        let step = "[path.up]\nrate_schedule = [[\"0s\", \"10mbit\"], [\"8s\", \"2mbit\"]]\n";
        assert!(!kinds(step).contains(&crate::WarningKind::RateChangeRefillsBucket));
        let flapping = "[path.up]\nrate_schedule = [[\"0s\", \"1mbit\"], [\"100ms\", \"0\"]]\n\
                        repeat_every = \"200ms\"\n";
        let w = crate::warnings(&crate::parse(flapping).unwrap());
        let refill = w
            .iter()
            .find(|w| w.kind == crate::WarningKind::RateChangeRefillsBucket)
            .expect("a change every 100 ms with a 16kb burst");
        assert!(
            refill.text.contains("an outage is held at 8 bit/s"),
            "{}",
            refill.text
        );
    }
}
