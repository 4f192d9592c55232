//! The `[sweep]` table resolved into the grid's axes, every value checked
//! as the key it sweeps is (`sweep.rate[1]` as `path.up.rate`).

use std::time::Duration;

use crate::check::{check_cc, err, offloads, rate};
use crate::file::SweepFile;
use crate::model::{check_path_mtu, set_arm_word, BUFFER_KINDS};
use crate::model::{ArmSpec, AxisValue, FlowSpec, PathSpec, ProbeSpec, Sweep, Timeline};
use crate::units::parse_duration;
use crate::ExperimentError;

fn nonempty<'a, T>(
    key: &str,
    v: &'a Option<Vec<T>>,
) -> Result<Option<&'a Vec<T>>, ExperimentError> {
    match v {
        Some(list) if list.is_empty() => Err(err(key, "an empty list: leave the key out instead")),
        Some(list) => Ok(Some(list)),
        None => Ok(None),
    }
}

pub(crate) fn resolve_sweep(
    s: &SweepFile,
    arms: &[ArmSpec],
    flows: &[FlowSpec],
    path: &PathSpec,
    probes: &[ProbeSpec],
    timeline: &Timeline,
) -> Result<Sweep, ExperimentError> {
    let mut axes = Vec::new();
    if let Some(list) = nonempty("sweep.rate", &s.rate)? {
        if path.up.is_none() {
            return Err(err(
                "sweep.rate",
                "the upload direction is unshaped (path.up.shaped = false)",
            ));
        }
        axes.push(
            list.iter()
                .enumerate()
                .map(|(i, r)| rate(&format!("sweep.rate[{i}]"), r).map(AxisValue::Rate))
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    if let Some(list) = nonempty("sweep.down_rate", &s.down_rate)? {
        if path.down.is_none() {
            return Err(err(
                "sweep.down_rate",
                "the download direction is unshaped (add [path.down])",
            ));
        }
        axes.push(
            list.iter()
                .enumerate()
                .map(|(i, r)| rate(&format!("sweep.down_rate[{i}]"), r).map(AxisValue::DownRate))
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    if let Some(list) = nonempty("sweep.base_rtt", &s.base_rtt)? {
        let mut axis = Vec::new();
        for (i, t) in list.iter().enumerate() {
            let key = format!("sweep.base_rtt[{i}]");
            let d = parse_duration(t, true).map_err(|e| err(&key, e))?;
            if d > Duration::from_secs(10) {
                return Err(err(key, "at most 10s"));
            }
            if d < path.jitter {
                return Err(err(key, "smaller than path.jitter"));
            }
            axis.push(AxisValue::BaseRtt(d));
        }
        axes.push(axis);
    }
    axes.extend(offload_and_mtu_axes(s, path)?);
    if let Some(list) = nonempty("sweep.flows", &s.flows)? {
        let mut axis = Vec::new();
        for (i, n) in list.iter().enumerate() {
            if *n == 0 || *n > 64 {
                return Err(err(format!("sweep.flows[{i}]"), "must be between 1 and 64"));
            }
            axis.push(AxisValue::Flows(*n));
        }
        axes.push(axis);
    }
    if let Some(list) = nonempty("sweep.cc", &s.cc)? {
        let mut axis = Vec::new();
        for (i, c) in list.iter().enumerate() {
            check_cc(&format!("sweep.cc[{i}]"), c)?;
            axis.push(AxisValue::Cc(c.clone()));
        }
        axes.push(axis);
    }
    axes.extend(flows_by_cc_axes(s, flows)?);
    axes.extend(crate::probes::probe_axes(s, probes, timeline)?);
    axes.extend(arm_word_axes(s, arms)?);
    axes.extend(buffer_axis(s, arms, path)?);
    Ok(Sweep { axes })
}

/// `sweep.buffer_bdp`: each depth positive and at most 1,000 BDPs, on a
/// shaped upload with a base RTT (the BDP needs both) and an arm whose
/// limit it sets.
fn buffer_axis(
    s: &SweepFile,
    arms: &[ArmSpec],
    path: &PathSpec,
) -> Result<Vec<Vec<AxisValue>>, ExperimentError> {
    let Some(list) = nonempty("sweep.buffer_bdp", &s.buffer_bdp)? else {
        return Ok(Vec::new());
    };
    if path.up.is_none() {
        return Err(err(
            "sweep.buffer_bdp",
            "the upload direction is unshaped: a BDP needs its rate",
        ));
    }
    let rtts_swept = s.base_rtt.as_ref().is_some_and(|l| !l.is_empty());
    if path.base_rtt.is_zero() && !rtts_swept {
        return Err(err(
            "sweep.buffer_bdp",
            "no base RTT (path.base_rtt or sweep.base_rtt): a BDP needs one",
        ));
    }
    if !arms.iter().any(|a| BUFFER_KINDS.contains(&a.arm.kind())) {
        return Err(err(
            "sweep.buffer_bdp",
            format!(
                "no arm whose limit it sets (kinds: {})",
                BUFFER_KINDS.join(", ")
            ),
        ));
    }
    let mut axis = Vec::new();
    for (i, x) in list.iter().enumerate() {
        if !(x.is_finite() && *x > 0.0 && *x <= 1000.0) {
            return Err(err(
                format!("sweep.buffer_bdp[{i}]"),
                "must be above 0 and at most 1000",
            ));
        }
        axis.push(AxisValue::BufferBdp(*x));
    }
    Ok(vec![axis])
}

/// `[sweep.flows_by_cc]`: one axis per congestion control, which some
/// declared flow must use, each count between 1 and 64.
fn flows_by_cc_axes(
    s: &SweepFile,
    flows: &[FlowSpec],
) -> Result<Vec<Vec<AxisValue>>, ExperimentError> {
    let mut axes = Vec::new();
    for (cc, list) in s.flows_by_cc.iter().flatten() {
        let key = format!("sweep.flows_by_cc.{cc}");
        if !flows.iter().any(|f| &f.cc == cc) {
            return Err(err(key, format!("no declared flow uses {cc:?}")));
        }
        if list.is_empty() {
            return Err(err(key, "an empty list: leave the key out instead"));
        }
        let mut axis = Vec::new();
        for (i, n) in list.iter().enumerate() {
            if *n == 0 || *n > 64 {
                return Err(err(format!("{key}[{i}]"), "must be between 1 and 64"));
            }
            axis.push(AxisValue::FlowsOfCc {
                cc: cc.clone(),
                n: *n,
            });
        }
        axes.push(axis);
    }
    Ok(axes)
}

/// The `[[sweep.arm]]` axes, in file order: each value set in every arm of
/// the kind and parsed as tc words.
fn arm_word_axes(s: &SweepFile, arms: &[ArmSpec]) -> Result<Vec<Vec<AxisValue>>, ExperimentError> {
    let mut axes = Vec::new();
    if let Some(list) = nonempty("sweep.arm", &s.arm)? {
        for (i, a) in list.iter().enumerate() {
            let key = format!("sweep.arm[{i}]");
            let matching: Vec<&ArmSpec> = arms.iter().filter(|x| x.arm.kind() == a.kind).collect();
            if matching.is_empty() {
                return Err(err(
                    format!("{key}.kind"),
                    format!("no arm of kind {:?}", a.kind),
                ));
            }
            if a.values.is_empty() {
                return Err(err(format!("{key}.values"), "an empty list"));
            }
            let mut axis = Vec::new();
            for (j, v) in a.values.iter().enumerate() {
                for arm in &matching {
                    let words = set_arm_word(&arm.words, &a.word, v);
                    ArmSpec::parse(&words)
                        .map_err(|e| err(format!("{key}.values[{j}]"), e.to_string()))?;
                }
                axis.push(AxisValue::ArmWord {
                    kind: a.kind.clone(),
                    word: a.word.clone(),
                    value: v.clone(),
                });
            }
            axes.push(axis);
        }
    }
    Ok(axes)
}

/// The `offloads` and `mtu` axes, each checked as its `[path]` key is.
fn offload_and_mtu_axes(
    s: &SweepFile,
    path: &PathSpec,
) -> Result<Vec<Vec<AxisValue>>, ExperimentError> {
    let mut axes = Vec::new();
    if let Some(list) = nonempty("sweep.offloads", &s.offloads)? {
        let mut axis = Vec::new();
        for (i, word) in list.iter().enumerate() {
            axis.push(AxisValue::Offloads(offloads(
                &format!("sweep.offloads[{i}]"),
                word,
            )?));
        }
        axes.push(axis);
    }
    if let Some(list) = nonempty("sweep.mtu", &s.mtu)? {
        let mut axis = Vec::new();
        for (i, m) in list.iter().enumerate() {
            check_path_mtu(&format!("sweep.mtu[{i}]"), *m, path)?;
            axis.push(AxisValue::Mtu(*m));
        }
        axes.push(axis);
    }
    Ok(axes)
}
