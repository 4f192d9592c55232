//! The plan: the ordered list of scenarios an experiment runs, each with
//! every parameter resolved. A pure function of the [`Experiment`], so the
//! order, the seeds and the grid are checked without root.
//!
//! Order: for each sweep point (the last axis varies fastest), for each
//! round, every arm in the order given — arms alternate within a round,
//! and nothing changes between rounds or depends on results.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::model::{
    set_arm_word, ArmSpec, AxisValue, CaptureSpec, Experiment, FlowSpec, PathSpec, ProbeSpec,
    Sweep, Timeline, AUTO_PORT_BASE, BUFFER_KINDS,
};

/// One point of the sweep grid (the only point when there is no sweep).
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// 1-based position in the grid.
    pub index: u32,
    /// The value of each axis at this point, in axis order.
    pub values: Vec<AxisValue>,
}

impl Point {
    /// `rate=5mbit base_rtt=20ms`, or `default` without a sweep.
    pub fn label(&self) -> String {
        if self.values.is_empty() {
            "default".to_string()
        } else {
            self.values
                .iter()
                .map(AxisValue::label)
                .collect::<Vec<_>>()
                .join(" ")
        }
    }
}

/// One scenario, every parameter resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioPlan {
    /// 1-based position in execution order.
    pub index: u32,
    /// The sweep point.
    pub point: Point,
    /// Round (1-based).
    pub round: u32,
    /// Index of the arm in the experiment's list.
    pub arm_index: usize,
    /// The arm, with any swept word applied.
    pub arm: ArmSpec,
    /// Phases.
    pub timeline: Timeline,
    /// Path at this point.
    pub path: PathSpec,
    /// Sender hosts (empty: the seed's one sender A).
    pub hosts: Vec<crate::hosts::HostSpec>,
    /// Flows at this point (copied, cc set, ports assigned).
    pub flows: Vec<FlowSpec>,
    /// Probes at this point (a swept interval or size set).
    pub probes: Vec<ProbeSpec>,
    /// tcp_info and qdisc sampling interval.
    pub sample_interval: Duration,
    /// ECN capture.
    pub capture: CaptureSpec,
    /// Seed of this scenario, from the experiment's seed; recorded with the
    /// results. netem in the pinned 6.1 kernel takes no seed
    /// (`TCA_NETEM_PRNG_SEED` came later), so jitter and loss, off by
    /// default, are not reproducible draw for draw.
    pub seed: u64,
}

/// What the kernel must offer for a plan to run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requirements {
    /// Qdisc kinds (`tbf`, the arms' kinds, `netem` when a delay is set,
    /// on the path or on a host's link).
    pub qdiscs: BTreeSet<String>,
    /// Congestion controls.
    pub ccs: BTreeSet<String>,
}

/// The whole plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The grid's points, in order.
    pub points: Vec<Point>,
    /// Scenarios in execution order.
    pub scenarios: Vec<ScenarioPlan>,
}

/// Number of points in a sweep grid (1 without a sweep).
pub fn point_count(sweep: &Sweep) -> usize {
    sweep.axes.iter().map(Vec::len).product()
}

/// The grid in order: the first axis varies slowest, the last fastest.
pub fn points(sweep: &Sweep) -> Vec<Point> {
    let mut out: Vec<Vec<AxisValue>> = vec![Vec::new()];
    for axis in &sweep.axes {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                axis.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(v.clone());
                    p
                })
            })
            .collect();
    }
    out.into_iter()
        .enumerate()
        .map(|(i, values)| Point {
            index: i as u32 + 1,
            values,
        })
        .collect()
}

/// The buffer of `bdp` BDPs of `path`'s upload rate and base RTT, in
/// frames of MTU + 14 bytes (at least 1), and in bytes.
pub fn buffer_of(bdp: f64, path: &PathSpec) -> Option<(u64, u64)> {
    let rate = path.up.as_ref()?.rate.bits_per_sec() as f64;
    let bytes = bdp * rate * path.base_rtt.as_secs_f64() / 8.0;
    let frame = f64::from(path.mtu) + 14.0;
    Some((
        ((bytes / frame).round() as u64).max(1),
        (bytes.round() as u64).max(1),
    ))
}

/// Sets the `limit` of every arm of a [`BUFFER_KINDS`] kind
/// to `bdp` BDPs of the point's path: packets, or bytes for bfifo.
fn set_buffer(arms: &mut [ArmSpec], bdp: f64, path: &PathSpec) {
    let Some((packets, bytes)) = buffer_of(bdp, path) else {
        return;
    };
    for a in arms
        .iter_mut()
        .filter(|a| BUFFER_KINDS.contains(&a.arm.kind()))
    {
        let value = if a.arm.kind() == "bfifo" {
            bytes.to_string()
        } else {
            packets.to_string()
        };
        // Every kind here takes `limit N`; a value its parser refuses
        // leaves the arm as declared.
        if let Ok(spec) = ArmSpec::parse(&set_arm_word(&a.words, "limit", &value)) {
            *a = spec;
        }
    }
}

// SplitMix64's mixer (netlab-stats' one implementation), so seeds are
// reproducible everywhere.
use netlab_stats::splitmix64;

/// One point's path, flows, arms and probes.
struct AtPoint {
    path: PathSpec,
    flows: Vec<FlowSpec>,
    arms: Vec<ArmSpec>,
    probes: Vec<ProbeSpec>,
}

/// Applies one point's values to the experiment's path, flows, arms and
/// probes.
fn at_point(exp: &Experiment, point: &Point) -> AtPoint {
    let mut path = exp.path.clone();
    let mut flows = exp.flows.clone();
    let mut arms = exp.arms.clone();
    let mut probes = exp.probes.clone();
    let mut copies = 1u32;
    let mut cc: Option<&str> = None;
    let mut copies_of_cc: BTreeMap<&str, u32> = BTreeMap::new();
    let mut buffer_bdp: Option<f64> = None;
    for v in &point.values {
        match v {
            AxisValue::Rate(r) => {
                if let Some(t) = path.up.as_mut() {
                    t.rate = *r;
                }
            }
            AxisValue::DownRate(r) => {
                if let Some(t) = path.down.as_mut() {
                    t.rate = *r;
                }
            }
            AxisValue::BaseRtt(d) => path.base_rtt = *d,
            AxisValue::Offloads(o) => path.offloads = *o,
            AxisValue::Mtu(m) => path.mtu = *m,
            AxisValue::Flows(n) => copies = *n,
            AxisValue::Cc(c) => cc = Some(c),
            AxisValue::ProbeInterval { kind, interval } => {
                for p in probes.iter_mut().filter(|p| p.kind == *kind) {
                    p.interval = *interval;
                }
            }
            AxisValue::ProbeSize { kind, size } => {
                for p in probes.iter_mut().filter(|p| p.kind == *kind) {
                    p.size = *size;
                }
            }
            AxisValue::BufferBdp(x) => buffer_bdp = Some(*x),
            AxisValue::FlowsOfCc { cc, n } => {
                copies_of_cc.insert(cc, *n);
            }
            AxisValue::ArmWord { kind, word, value } => {
                for a in arms.iter_mut().filter(|a| a.arm.kind() == kind) {
                    // Checked when the sweep was resolved.
                    if let Ok(spec) = ArmSpec::parse(&set_arm_word(&a.words, word, value)) {
                        *a = spec;
                    }
                }
            }
        }
    }
    if let Some(cc) = cc {
        for f in &mut flows {
            f.cc = cc.to_string();
        }
    }
    if let Some(x) = buffer_bdp {
        set_buffer(&mut arms, x, &path);
    }
    // Each declared flow's copies: the `flows` axis times its cc's
    // `flows_by_cc` count, made round by round as `flows` alone makes them.
    let total = |f: &FlowSpec| copies * copies_of_cc.get(f.cc.as_str()).copied().unwrap_or(1);
    let most = flows.iter().map(total).max().unwrap_or(1);
    if most > 1 {
        let mut used: BTreeSet<u16> = flows.iter().map(|f| f.port).collect();
        used.extend(exp.probes.iter().map(|p| p.port));
        let mut next = AUTO_PORT_BASE;
        let declared = flows.clone();
        for round in 1..most {
            for f in declared.iter().filter(|f| round < total(f)) {
                while used.contains(&next) {
                    next += 1;
                }
                let mut copy = f.clone();
                copy.port = next;
                used.insert(next);
                flows.push(copy);
            }
        }
    }
    AtPoint {
        path,
        flows,
        arms,
        probes,
    }
}

impl Experiment {
    /// The plan: every scenario in execution order.
    pub fn plan(&self) -> Plan {
        let points = points(&self.sweep);
        let mut scenarios = Vec::new();
        for point in &points {
            let at = at_point(self, point);
            for round in 1..=self.rounds {
                for (arm_index, arm) in at.arms.iter().enumerate() {
                    let index = scenarios.len() as u32 + 1;
                    scenarios.push(ScenarioPlan {
                        index,
                        point: point.clone(),
                        round,
                        arm_index,
                        arm: arm.clone(),
                        timeline: self.timeline,
                        path: at.path.clone(),
                        hosts: self.hosts.clone(),
                        flows: at.flows.clone(),
                        probes: at.probes.clone(),
                        sample_interval: self.sample_interval,
                        capture: self.capture,
                        seed: splitmix64(self.seed ^ u64::from(index)),
                    });
                }
            }
        }
        Plan { points, scenarios }
    }

    /// What the kernel must offer: qdisc kinds and congestion controls of
    /// every planned scenario.
    pub fn requirements(&self) -> Requirements {
        let mut req = Requirements::default();
        for s in self.plan().scenarios {
            if s.path.up.is_some() || s.path.down.is_some() {
                req.qdiscs.insert("tbf".to_string());
                req.qdiscs.insert(s.arm.arm.kind().to_string());
            }
            if s.path.needs_netem() || s.hosts.iter().any(|h| h.needs_netem()) {
                req.qdiscs.insert("netem".to_string());
            }
            req.ccs.extend(s.flows.iter().map(|f| f.cc.clone()));
        }
        req
    }
}

impl Plan {
    /// The sum of the scenarios' timelines (the floor of the run's wall time).
    pub fn timeline_total(&self) -> Duration {
        self.scenarios.iter().map(|s| s.timeline.end()).sum()
    }
}
