//! The probes' interval and size, checked as the probes take them, in
//! `[[probes]]` and as sweep axes (`[sweep] isochronous_interval`,
//! `stop_and_wait_size`, …): a spacing of at least 1 ms (and, for the
//! isochronous probe, at most a million slots over the scenario), a size
//! from the probe's own fields (4 bytes for stop-and-wait, the 40-byte
//! stamped header for isochronous) up to the smallest MTU less the IPv4 and
//! UDP headers, so no probe is fragmented.

use std::time::Duration;

use crate::check::err;
use crate::file::SweepFile;
use crate::model::{
    AxisValue, ProbeKind, ProbeSpec, Sweep, Timeline, IPV4_UDP_HEADERS, MAX_ISO_SLOTS,
    MIN_PROBE_INTERVAL,
};
use crate::units::{format_duration, parse_duration};
use crate::ExperimentError;

/// Slots an isochronous probe of this spacing schedules over the timeline:
/// one every `interval` from t0, none due in the last `max(1 s, timeout)`
/// (what netlab-run configures).
pub fn iso_slots(timeline: &Timeline, interval: Duration, timeout: Duration) -> u64 {
    let quiet = timeout.max(Duration::from_secs(1));
    match timeline.end().checked_sub(quiet) {
        Some(span) if !interval.is_zero() => (span.as_nanos() / interval.as_nanos()) as u64 + 1,
        _ => 0,
    }
}

/// Checks one probe's spacing.
pub(crate) fn check_interval(
    key: &str,
    probe: &ProbeSpec,
    interval: Duration,
    timeline: &Timeline,
) -> Result<(), ExperimentError> {
    if interval < MIN_PROBE_INTERVAL {
        return Err(err(key, "must be at least 1ms"));
    }
    if probe.kind == ProbeKind::Isochronous {
        let slots = iso_slots(timeline, interval, probe.timeout);
        if slots > MAX_ISO_SLOTS {
            return Err(err(
                key,
                format!(
                    "{} over a {} scenario is {slots} requests; the isochronous probe \
                     schedules at most {MAX_ISO_SLOTS}",
                    format_duration(interval),
                    format_duration(timeline.end())
                ),
            ));
        }
    }
    Ok(())
}

/// Checks one probe's size against its own fields and the smallest MTU the
/// experiment runs with (`mtu_key` names where that MTU comes from).
pub(crate) fn check_size(
    key: &str,
    kind: ProbeKind,
    size: u32,
    mtu: u32,
    mtu_key: &str,
) -> Result<(), ExperimentError> {
    let min = ProbeSpec::min_size(kind);
    if size < min {
        let fields = match kind {
            ProbeKind::StopAndWait => "its 4-byte sequence number",
            ProbeKind::Isochronous => "its 40-byte stamped header",
        };
        return Err(err(
            key,
            format!(
                "{size} bytes is less than the {} probe's {fields} (at least {min})",
                kind.as_str()
            ),
        ));
    }
    let max = mtu.saturating_sub(IPV4_UDP_HEADERS);
    if size > max {
        return Err(err(
            key,
            format!(
                "{size} bytes of UDP payload + {IPV4_UDP_HEADERS} of IPv4 and UDP headers exceed \
                 {mtu_key} ({mtu}): the probe would be fragmented (at most {max})"
            ),
        ));
    }
    Ok(())
}

/// The probe axes of `[sweep]`, in the order of [`Sweep`]'s documentation;
/// each value is checked as its `[[probes]]` key is, except against the
/// MTU ([`check_sizes`] does that once the sweep is known).
pub(crate) fn probe_axes(
    s: &SweepFile,
    probes: &[ProbeSpec],
    timeline: &Timeline,
) -> Result<Vec<Vec<AxisValue>>, ExperimentError> {
    let mut axes = Vec::new();
    for (kind, intervals, sizes) in [
        (
            ProbeKind::StopAndWait,
            &s.stop_and_wait_interval,
            &s.stop_and_wait_size,
        ),
        (
            ProbeKind::Isochronous,
            &s.isochronous_interval,
            &s.isochronous_size,
        ),
    ] {
        let prefix = format!("sweep.{}", kind.axis_prefix());
        let probe = |key: &str| {
            probes.iter().find(|p| p.kind == kind).ok_or_else(|| {
                err(
                    key,
                    format!("no {} probe in [[probes]] to sweep", kind.as_str()),
                )
            })
        };
        if let Some(list) = intervals {
            let key = format!("{prefix}_interval");
            if list.is_empty() {
                return Err(err(key, "an empty list: leave the key out instead"));
            }
            let p = probe(&key)?;
            let mut axis = Vec::new();
            for (i, t) in list.iter().enumerate() {
                let key = format!("{key}[{i}]");
                let interval = parse_duration(t, false).map_err(|e| err(&key, e))?;
                check_interval(&key, p, interval, timeline)?;
                axis.push(AxisValue::ProbeInterval { kind, interval });
            }
            axes.push(axis);
        }
        if let Some(list) = sizes {
            let key = format!("{prefix}_size");
            if list.is_empty() {
                return Err(err(key, "an empty list: leave the key out instead"));
            }
            probe(&key)?;
            let mut axis = Vec::new();
            for (i, size) in list.iter().enumerate() {
                // The MTU bound comes in check_sizes; the lower one here.
                check_size(&format!("{key}[{i}]"), kind, *size, u32::MAX, "")?;
                axis.push(AxisValue::ProbeSize { kind, size: *size });
            }
            axes.push(axis);
        }
    }
    Ok(axes)
}

/// Checks every probe size the experiment sends (each probe's own and every
/// swept one) against the smallest MTU it runs with: `path.mtu`, or the
/// smallest of `sweep.mtu` when the MTU is swept.
pub(crate) fn check_sizes(
    probes: &[ProbeSpec],
    sweep: &Sweep,
    path_mtu: u32,
) -> Result<(), ExperimentError> {
    let swept_mtu = sweep
        .axes
        .iter()
        .flatten()
        .filter_map(|v| match v {
            AxisValue::Mtu(m) => Some(*m),
            _ => None,
        })
        .min();
    let (mtu, mtu_key) = match swept_mtu {
        Some(m) => (m, "the smallest MTU of sweep.mtu"),
        None => (path_mtu, "path.mtu"),
    };
    for (i, p) in probes.iter().enumerate() {
        check_size(&format!("probes[{i}].size"), p.kind, p.size, mtu, mtu_key)?;
    }
    for axis in &sweep.axes {
        for (i, v) in axis.iter().enumerate() {
            if let AxisValue::ProbeSize { kind, size } = v {
                let key = format!("sweep.{}_size[{i}]", kind.axis_prefix());
                check_size(&key, *kind, *size, mtu, mtu_key)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::{parse, AxisValue, ProbeKind};

    const BOTH: &str = "[[probes]]\nkind = \"stop-and-wait\"\n[[probes]]\nkind = \"isochronous\"\n";

    #[test]
    fn bad_intervals_and_sizes_are_refused_naming_the_key() {
        let iso = "[[probes]]\nkind = \"isochronous\"\n";
        let cases: Vec<(String, &str, &str)> = vec![
            ("[[probes]]\nsize = 3".into(), "probes[0].size", "4-byte sequence number"),
            (format!("{iso}size = 39"), "probes[0].size", "40-byte stamped header"),
            (
                format!("{iso}size = 1473"),
                "probes[0].size",
                "exceed path.mtu (1500)",
            ),
            (
                format!("{iso}interval = \"1ms\"\n[timeline]\nmeasure = \"20m\""),
                "probes[0].interval",
                "at most 1000000",
            ),
            (
                "[sweep]\nisochronous_interval = [\"20ms\"]".into(),
                "sweep.isochronous_interval",
                "no isochronous probe in [[probes]]",
            ),
            (
                format!("{iso}[sweep]\nstop_and_wait_size = [100]"),
                "sweep.stop_and_wait_size",
                "no stop-and-wait probe",
            ),
            (
                format!("{BOTH}[sweep]\nisochronous_interval = [\"10ms\", \"500us\"]"),
                "sweep.isochronous_interval[1]",
                "at least 1ms",
            ),
            (
                format!("{BOTH}[sweep]\nisochronous_interval = [\"10\"]"),
                "sweep.isochronous_interval[0]",
                "unit is required",
            ),
            (
                format!("{BOTH}[sweep]\nisochronous_interval = [\"1ms\"]\n[timeline]\nmeasure = \"20m\""),
                "sweep.isochronous_interval[0]",
                "at most 1000000",
            ),
            (
                format!("{BOTH}[sweep]\nstop_and_wait_interval = []"),
                "sweep.stop_and_wait_interval",
                "empty list",
            ),
            (
                format!("{BOTH}[sweep]\nstop_and_wait_size = [4, 2]"),
                "sweep.stop_and_wait_size[1]",
                "4-byte sequence number",
            ),
            (
                format!("{BOTH}[sweep]\nisochronous_size = [40, 1472, 1473]"),
                "sweep.isochronous_size[2]",
                "exceed path.mtu (1500): the probe would be fragmented (at most 1472)",
            ),
            (
                format!("{BOTH}size = 1000\n[sweep]\nmtu = [1500, 576]"),
                "probes[1].size",
                "the smallest MTU of sweep.mtu (576)",
            ),
            (
                format!("{BOTH}[sweep]\nisochronous_size = []"),
                "sweep.isochronous_size",
                "empty list",
            ),
        ];
        for (text, key, needle) in &cases {
            let e = parse(text).expect_err(text);
            assert_eq!(e.key(), *key, "{text:?} → {e}");
            assert!(e.to_string().contains(needle), "{text:?} → {e}");
        }
        // The bounds themselves are admitted.
        for ok in [
            format!("{BOTH}size = 1472"),
            "[[probes]]\nsize = 4".to_string(),
            format!(
                "{BOTH}[sweep]\nisochronous_interval = [\"1ms\"]\nstop_and_wait_size = [4, 1472]"
            ),
            format!("{BOTH}size = 548\n[sweep]\nmtu = [1500, 576]"),
        ] {
            parse(&ok).unwrap_or_else(|e| panic!("{ok:?}: {e}"));
        }
    }

    #[test]
    fn probe_axes_multiply_the_points_as_other_axes_do() {
        let exp = parse(&format!(
            "arms = [\"pfifo\", \"fq_codel\"]\nrounds = 2\n{BOTH}[sweep]\nflows = [2, 6]\n\
             isochronous_interval = [\"10ms\", \"20ms\", \"50ms\"]\nisochronous_size = [40, 200]\n\
             stop_and_wait_interval = [\"100ms\"]"
        ))
        .unwrap();
        let plan = exp.plan();
        // 2 flows × 1 × 3 × 2 points, × 2 rounds × 2 arms.
        assert_eq!(plan.points.len(), 12);
        assert_eq!(plan.scenarios.len(), 48);
        assert_eq!(
            plan.points[0].label(),
            "flows=2 stop_and_wait_interval=100ms isochronous_interval=10ms isochronous_size=40"
        );
        assert_eq!(
            plan.points[11].label(),
            "flows=6 stop_and_wait_interval=100ms isochronous_interval=50ms isochronous_size=200"
        );
        let ms = Duration::from_millis;
        for s in &plan.scenarios {
            let iso = s.probes.iter().find(|p| p.kind == ProbeKind::Isochronous);
            let saw = s.probes.iter().find(|p| p.kind == ProbeKind::StopAndWait);
            let (iso, saw) = (iso.unwrap(), saw.unwrap());
            let want_interval = s.point.values.iter().find_map(|v| match v {
                AxisValue::ProbeInterval {
                    kind: ProbeKind::Isochronous,
                    interval,
                } => Some(*interval),
                _ => None,
            });
            let want_size = s.point.values.iter().find_map(|v| match v {
                AxisValue::ProbeSize { size, .. } => Some(*size),
                _ => None,
            });
            assert_eq!(Some(iso.interval), want_interval, "{}", s.point.label());
            assert_eq!(Some(iso.size), want_size);
            assert_eq!((saw.interval, saw.size), (ms(100), 4), "only its own axis");
            assert_eq!(
                s.flows.len(),
                if s.point.label().contains("flows=2") {
                    2
                } else {
                    6
                }
            );
        }
        // Within a point, rounds and arms run the same probes.
        let third: Vec<Duration> = plan.scenarios[8..12]
            .iter()
            .map(|s| s.probes[1].interval)
            .collect();
        assert_eq!(third, [ms(20); 4]);
    }

    #[test]
    fn probe_axes_and_sizes_print_back_and_only_when_used() {
        let exp = parse(&format!(
            "{BOTH}size = 200\n[sweep]\nstop_and_wait_size = [4, 64]\nisochronous_interval = [\"5ms\", \"1500us\"]"
        ))
        .unwrap();
        let text = exp.to_toml();
        assert!(text.contains("stop_and_wait_size = [4, 64]"), "{text}");
        assert!(
            text.contains("isochronous_interval = [\"5ms\", \"1500us\"]"),
            "{text}"
        );
        assert_eq!(parse(&text).unwrap(), exp);
        // Without them the canonical text (the content hash) has no trace.
        let plain = parse(BOTH).unwrap().to_toml();
        assert!(!plain.lines().any(|l| l.starts_with("size")), "{plain}");
        for key in ["stop_and_wait_", "isochronous_", "[sweep]"] {
            assert!(!plain.contains(key), "{key} in {plain}");
        }
    }

    #[test]
    fn iso_slots_follow_the_runner_s_schedule() {
        let tl = crate::Timeline::default(); // 18 s
        let ms = Duration::from_millis;
        // 17 s of schedule (1 s quiet): slots at 0, 20 ms, …, 17 s.
        assert_eq!(super::iso_slots(&tl, ms(20), ms(1000)), 851);
        // A 2 s timeout makes the quiet end 2 s.
        assert_eq!(super::iso_slots(&tl, ms(20), ms(2000)), 801);
        assert_eq!(super::iso_slots(&tl, ms(1), ms(1000)), 17_001);
    }
}
