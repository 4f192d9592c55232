//! Warnings from the configuration alone, before anything runs (method
//! §2.5): what the chosen path, arms, flows and probes will do to
//! the measurement that a reader of the results would otherwise discover
//! only in them. Each [`Warning`] says what and why, with numbers, and its
//! fix. A pure function of the experiment and of what the links carry
//! ([`LinkAssumptions`]); `orchestrator plan`, `compare` and `run` print
//! them first.
//!
//! ```
//! use netlab_experiment::warnings::{warnings, WarningKind};
//! let exp = netlab_experiment::Experiment::default();
//! // The seed's path with the kernel's offloads: GSO aggregates may reach
//! // the arm, so the FIFO may hold more than the probe's timeout.
//! let w = warnings(&exp);
//! assert!(w.iter().any(|w| w.kind == WarningKind::ProbeTimeoutBelowFifoDrain && !w.certain));
//! assert!(w.iter().any(|w| w.kind == WarningKind::NotEctProbeBesideEcnFlows));
//! ```

use std::fmt;
use std::time::Duration;

use netlab_qdisc_model::{Arm, Tbf};

use crate::model::{Direction, Experiment, FlowSpec, Offloads, ProbeSpec};
use crate::plan::ScenarioPlan;

/// Ethernet header bytes a qdisc counts on top of the IP packet.
pub const ETH_HEADER: u32 = 14;
/// The largest GSO/GRO aggregate the kernel builds (64 KiB).
pub const GSO_MAX: u32 = 65_536;
/// veth's default `txqueuelen`: a pfifo or bfifo without `limit` takes it.
pub const VETH_TXQUEUELEN: u32 = 1000;

/// What the links carry: their MTU and whether aggregates are possible.
/// The seed's path is [`LinkAssumptions::default`] (MTU 1500, the kernel's
/// offloads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkAssumptions {
    /// IP MTU of every link.
    pub mtu: u32,
    /// Offload state of the veths.
    pub offloads: Offloads,
}

impl Default for LinkAssumptions {
    fn default() -> Self {
        LinkAssumptions {
            mtu: 1500,
            offloads: Offloads::Kernel,
        }
    }
}

impl LinkAssumptions {
    /// What a scenario's path says of its links (`[path] mtu`,
    /// `[path] offloads`): the kernel's offloads may hand the arm GSO/GRO
    /// aggregates (fq_codel's `maxpacket` read 3,028–6,056 B on a
    /// 1,500-byte MTU); with them off, every skb is one packet.
    pub fn of(path: &crate::PathSpec) -> Self {
        LinkAssumptions {
            mtu: path.mtu,
            offloads: path.offloads,
        }
    }

    /// One full-sized packet as the qdisc counts it: MTU + 14 (1514 B).
    pub fn packet_bytes(&self) -> u32 {
        self.mtu + ETH_HEADER
    }

    /// The largest skb that can reach the arm below `tbf`: one packet with
    /// offloads off; with them on, an aggregate up to 64 KiB, but TBF
    /// segments (or drops) any skb longer than its burst before the child
    /// sees it (`tbf_enqueue`: `qdisc_pkt_len(skb) > q->max_size` →
    /// `tbf_segment`), so at most the burst. `None` with offloads off.
    pub fn largest_aggregate(&self, tbf: &Tbf) -> Option<u32> {
        match self.offloads {
            Offloads::Off => None,
            Offloads::Kernel => {
                let burst = u32::try_from(tbf.burst.0).unwrap_or(u32::MAX);
                let agg = GSO_MAX.min(burst);
                (agg > self.packet_bytes()).then_some(agg)
            }
        }
    }
}

/// Which check a warning comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WarningKind {
    /// The probe's timeout is shorter than a FIFO arm's full queue takes
    /// to drain: loaded probes time out although their requests arrive.
    ProbeTimeoutBelowFifoDrain,
    /// One packet (or aggregate) holds the link longer than the AQM's
    /// target: the AQM sees a standing queue it cannot remove.
    PacketLongerThanTarget,
    /// TBF's `limit` does not bound the queue: the arm replaced TBF's
    /// default inner bfifo.
    TbfLimitReplaced,
    /// A Not-ECT probe beside ECN flows under a marking AQM: the probe's
    /// packets are dropped where the flows' are marked.
    NotEctProbeBesideEcnFlows,
    /// The stop-and-wait probe's request cap (`max_requests`) is reached
    /// before its schedule ends at this point's spacing: the loaded phase
    /// gets fewer requests, or none (a short swept interval does this).
    ProbeCapBeforeScheduleEnd,
    /// A moving rate's changes each refill TBF's bucket to its burst: a
    /// backlogged bottleneck passes up to a burst more than the schedule
    /// offers at every change (docs/method.md §15.3).
    RateChangeRefillsBucket,
    /// DCTCP flows behind an arm that does not mark CE above a fixed
    /// threshold (docs/method.md §16.2).
    DctcpWithoutEcnThreshold,
    /// The probes take more than [`PROBE_SHARE_LIMIT`] of the upload
    /// shaper's rate: they load the queue they measure.
    ProbeShareOfRate,
}

/// The share of the upload rate the probes may take before a warning
/// (docs/method.md §10: the seed's take 0.7 %).
pub const PROBE_SHARE_LIMIT: f64 = 0.01;

/// One warning: what, with numbers, and the fix.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// The check.
    pub kind: WarningKind,
    /// The bottleneck it concerns (`None`: not one direction's).
    pub direction: Option<Direction>,
    /// The arm in tc words (empty when the warning is no arm's).
    pub arm: String,
    /// The sweep point's label (empty without a sweep).
    pub point: String,
    /// True when it holds for full-sized packets; false when it holds only
    /// if aggregates reach the arm (offloads on: a possibility).
    pub certain: bool,
    /// What will happen and why.
    pub text: String,
    /// What to change.
    pub fix: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = self
            .direction
            .map(|d| format!(" ({})", d.as_str()))
            .unwrap_or_default();
        let at = if self.point.is_empty() {
            String::new()
        } else {
            format!(" at {}", self.point)
        };
        let head = format!("{}{dir}{at}", self.arm);
        let head = head.trim_start();
        let sep = if head.is_empty() { "" } else { ": " };
        write!(f, "warning: {head}{sep}{}\n  fix: {}", self.text, self.fix)
    }
}

/// Warnings of one cause said once ([`grouped`]): which arms (and sweep
/// points) it concerns, one of them in words as the example, and its fix,
/// or that none is needed.
#[derive(Debug, Clone, PartialEq)]
pub struct WarningGroup {
    /// The check.
    pub kind: WarningKind,
    /// The arms it concerns, in tc words, in plan order (empty: no arm's).
    pub arms: Vec<String>,
    /// The sweep points it concerns (empty without a sweep).
    pub points: Vec<String>,
    /// Whether it holds for full-sized packets at every arm it concerns.
    pub certain: bool,
    /// The first warning of the cause, whose numbers the others share in
    /// kind (their own in `warnings`).
    pub example: Warning,
    /// Every warning of the cause.
    pub warnings: Vec<Warning>,
}

/// The warnings grouped by cause, in the order their causes first appear:
/// `plan` says each cause once, not once per arm and point.
pub fn grouped(ws: &[Warning]) -> Vec<WarningGroup> {
    let mut out: Vec<WarningGroup> = Vec::new();
    for w in ws {
        let g = match out.iter_mut().find(|g| g.kind == w.kind) {
            Some(g) => g,
            None => {
                out.push(WarningGroup {
                    kind: w.kind,
                    arms: Vec::new(),
                    points: Vec::new(),
                    certain: true,
                    example: w.clone(),
                    warnings: Vec::new(),
                });
                out.last_mut().expect("just pushed")
            }
        };
        if !w.arm.is_empty() && !g.arms.contains(&w.arm) {
            g.arms.push(w.arm.clone());
        }
        if !w.point.is_empty() && !g.points.contains(&w.point) {
            g.points.push(w.point.clone());
        }
        g.certain &= w.certain;
        g.warnings.push(w.clone());
    }
    out
}

impl fmt::Display for WarningGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut about = Vec::new();
        if self.arms.len() > 1 {
            about.push(format!(
                "{} arms: {}",
                self.arms.len(),
                self.arms.join(" | ")
            ));
        }
        if self.points.len() > 1 {
            about.push(format!(
                "{} points: {}",
                self.points.len(),
                self.points.join(", ")
            ));
        }
        if self.arms.len() <= 1 && self.points.len() <= 1 {
            return write!(f, "{}", self.example);
        }
        let example = self.example.to_string();
        let example = example
            .trim_start_matches("warning: ")
            .split("\n  fix: ")
            .next()
            .unwrap_or("");
        write!(
            f,
            "warning: {}; for {example}\n  fix: {}",
            about.join("; "),
            self.example.fix
        )
    }
}

fn ms(d: f64) -> String {
    if d >= 10.0 {
        format!("{d:.0} ms")
    } else {
        format!("{d:.1} ms")
    }
}

/// Link time of `bytes` at `tbf`'s rate, ms.
fn link_ms(bytes: f64, tbf: &Tbf) -> f64 {
    bytes * 8.0 / tbf.rate.bits_per_sec().max(1) as f64 * 1e3
}

/// Every warning the experiment's plan gives, once per sweep point, arm and
/// direction, in plan order.
pub fn warnings(exp: &Experiment) -> Vec<Warning> {
    let mut out: Vec<Warning> = Vec::new();
    for s in exp.plan().scenarios.iter().filter(|s| s.round == 1) {
        for w in scenario_warnings(s, &LinkAssumptions::of(&s.path)) {
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// The warnings of one planned scenario.
pub fn scenario_warnings(s: &ScenarioPlan, link: &LinkAssumptions) -> Vec<Warning> {
    let point = if s.point.values.is_empty() {
        String::new()
    } else {
        s.point.label()
    };
    let mut out = Vec::new();
    for dir in [Direction::Up, Direction::Down] {
        let Some(tbf) = s.path.shaper(dir) else {
            continue;
        };
        // A moving rate drains the queue slowest at its lowest rate.
        let slowest = s.path.schedule(dir).and_then(|x| x.slowest());
        let tbf = &Tbf {
            rate: slowest.map_or(tbf.rate, |r| r.min(tbf.rate)),
            ..*tbf
        };
        let mut push = |kind, certain, text: String, fix: String| {
            out.push(Warning {
                kind,
                direction: Some(dir),
                arm: s.arm.words.clone(),
                point: point.clone(),
                certain,
                text,
                fix,
            })
        };
        // A queue fills only where a flow sends its data: the drain and
        // target checks need one in this direction.
        let loaded = s.flows.iter().any(|f| f.direction == dir);
        for p in s.probes.iter().filter(|_| loaded) {
            if let Some((certain, text, fix)) = fifo_drain(&s.arm.arm, tbf, p, link) {
                push(WarningKind::ProbeTimeoutBelowFifoDrain, certain, text, fix);
            }
        }
        let target = loaded
            .then(|| link_time_vs_target(&s.arm.arm, tbf, link))
            .flatten();
        if let Some((certain, text, fix)) = target {
            push(WarningKind::PacketLongerThanTarget, certain, text, fix);
        }
        let (text, fix) = tbf_limit_replaced(&s.arm.arm, tbf);
        push(WarningKind::TbfLimitReplaced, true, text, fix);
        if let Some((text, fix)) = s
            .path
            .schedule(dir)
            .and_then(|x| crate::link::refill_warning(x, tbf, s.timeline.end()))
        {
            push(WarningKind::RateChangeRefillsBucket, true, text, fix);
        }
        let dctcp = s
            .flows
            .iter()
            .filter(|f| f.direction == dir && f.cc == "dctcp")
            .count();
        if let Some((text, fix)) = crate::dctcp::dctcp_warning(&s.arm.arm, dctcp) {
            push(WarningKind::DctcpWithoutEcnThreshold, true, text, fix);
        }
        if dir == Direction::Up {
            if let Some((text, fix)) = probe_share(&s.probes, tbf) {
                push(WarningKind::ProbeShareOfRate, true, text, fix);
            }
        }
        let ecn_flows: Vec<&FlowSpec> = s.flows.iter().filter(|f| f.ecn).collect();
        if !ecn_flows.is_empty() && !s.probes.is_empty() && marks(&s.arm.arm) {
            let (text, fix) = not_ect_probe(&s.arm.arm, ecn_flows.len(), &s.probes);
            push(WarningKind::NotEctProbeBesideEcnFlows, true, text, fix);
        }
    }
    if let Some((certain, text, fix)) = probe_cap(s) {
        out.push(Warning {
            kind: WarningKind::ProbeCapBeforeScheduleEnd,
            direction: None,
            // The point's probe, whatever the arm: said once per point.
            arm: String::new(),
            point: point.clone(),
            certain,
            text,
            fix,
        });
    }
    // The probe and the flows meet at every marking arm: say it once.
    let mut seen = false;
    out.retain(|w| {
        if w.kind != WarningKind::NotEctProbeBesideEcnFlows {
            return true;
        }
        let keep = !seen;
        seen = true;
        keep
    });
    out
}

/// The probes' share of the upload shaper's rate, when it is above
/// [`PROBE_SHARE_LIMIT`]: each probe at its most, one frame per interval.
fn probe_share(probes: &[ProbeSpec], tbf: &Tbf) -> Option<(String, String)> {
    let rate = tbf.rate.bits_per_sec() as f64;
    let bps: f64 = probes.iter().map(ProbeSpec::max_rate_bps).sum();
    let share = bps / rate.max(1.0);
    if share <= PROBE_SHARE_LIMIT {
        return None;
    }
    let each: Vec<String> = probes
        .iter()
        .map(|p| {
            format!(
                "the {} probe's {} B frames every {}",
                p.kind.as_str(),
                p.frame_bytes(),
                crate::units::format_duration(p.interval)
            )
        })
        .collect();
    // An isochronous interval that keeps the probes under half the limit.
    let interval = probes
        .iter()
        .find(|p| p.kind == crate::ProbeKind::Isochronous)
        .map_or_else(
            || "1s".to_string(),
            |p| {
                let need = f64::from(p.frame_bytes()) * 8.0 / (0.5 * PROBE_SHARE_LIMIT * rate);
                format!("{:.0}ms", (need * 1e3).ceil())
            },
        );
    Some((
        format!(
            "{} take up to {:.1} kbit/s, {:.1} % of {}: the probes load the queue they measure",
            each.join(" and "),
            bps / 1e3,
            share * 100.0,
            tbf.rate
        ),
        format!(
            "keep them under {:.0} % of the rate ([[probes]] interval, e.g. \"{interval}\" for the isochronous probe here)",
            PROBE_SHARE_LIMIT * 100.0,
        ),
    ))
}

/// FIFO queue capacity in skbs (pfifo) or bytes (bfifo); `None` for
/// other arms.
enum FifoLimit {
    Packets(u32),
    Bytes(u64),
}

fn fifo_limit(arm: &Arm, link: &LinkAssumptions) -> Option<FifoLimit> {
    match arm {
        Arm::Pfifo(p) => Some(FifoLimit::Packets(p.limit.unwrap_or(VETH_TXQUEUELEN))),
        Arm::Bfifo(b) => Some(FifoLimit::Bytes(
            b.limit
                .map_or(u64::from(VETH_TXQUEUELEN) * u64::from(link.mtu), |s| s.0),
        )),
        _ => None,
    }
}

fn fifo_drain(
    arm: &Arm,
    tbf: &Tbf,
    probe: &ProbeSpec,
    link: &LinkAssumptions,
) -> Option<(bool, String, String)> {
    let timeout_ms = probe.timeout.as_secs_f64() * 1e3;
    let pkt = link.packet_bytes();
    let (full_ms, agg) = match fifo_limit(arm, link)? {
        FifoLimit::Bytes(b) => (link_ms(b as f64, tbf), None),
        FifoLimit::Packets(n) => (
            link_ms(f64::from(n) * f64::from(pkt), tbf),
            link.largest_aggregate(tbf).map(|a| {
                (
                    n,
                    a,
                    link_ms(f64::from(n) * f64::from(a), tbf),
                    link_ms(f64::from(n) * 2.0 * f64::from(pkt), tbf),
                )
            }),
        ),
    };
    let timeout = format!(
        "the {} probe's timeout {}",
        probe.kind.as_str(),
        ms(timeout_ms)
    );
    let fix_timeout = format!(
        "set the probe's timeout above the queue's drain time ([[probes]] timeout = \"{}s\")",
        ((full_ms.max(agg.map_or(0.0, |a| a.3)) / 1e3) * 1.5)
            .ceil()
            .max(2.0)
    );
    if full_ms > timeout_ms {
        return Some((
            true,
            format!(
                "a full queue holds {} at {} ({}), longer than {timeout}: \
                 loaded requests that arrive after it are written as timeouts \"≥ {}\"",
                ms(full_ms),
                tbf.rate,
                match fifo_limit(arm, link)? {
                    FifoLimit::Packets(n) => format!("{n} × {pkt} B"),
                    FifoLimit::Bytes(b) => format!("{b} B"),
                },
                ms(timeout_ms),
            ),
            format!("{fix_timeout}, or a smaller limit"),
        ));
    }
    let (n, a, agg_ms, two_ms) = agg?;
    (agg_ms > timeout_ms).then(|| {
        (
            false,
            format!(
                "with full-sized {pkt} B packets a full queue holds {} at {}, under {timeout}; \
                 but pfifo's limit counts skbs, and with offloads \"kernel\" an skb may be a GSO \
                 aggregate (up to {a} B here: 64 KiB, cut to TBF's burst): {n} of them may hold up \
                 to {}, and {n} aggregates of 2 segments (as measured, docs/method.md §1.6) {}",
                ms(full_ms),
                tbf.rate,
                ms(agg_ms),
                ms(two_ms)
            ),
            format!(
                "{fix_timeout}, or bound the queue in bytes (bfifo limit {}), or switch offloads off",
                u64::from(n) * u64::from(pkt)
            ),
        )
    })
}

/// The AQM's target delay, where it has one the packets can exceed. CAKE
/// raises its own target to 1.5 MTU times at its rate (`cake_set_rate`),
/// so it is left out.
fn target(arm: &Arm) -> Option<Duration> {
    let ms = Duration::from_millis;
    match arm {
        Arm::FqCodel(a) => Some(a.target.unwrap_or(ms(5))),
        Arm::Codel(a) => Some(a.target.unwrap_or(ms(5))),
        Arm::Pie(a) => Some(a.target.unwrap_or(ms(15))),
        Arm::FqPie(a) => Some(a.target.unwrap_or(ms(15))),
        _ => None,
    }
}

fn link_time_vs_target(
    arm: &Arm,
    tbf: &Tbf,
    link: &LinkAssumptions,
) -> Option<(bool, String, String)> {
    let target_ms = target(arm)?.as_secs_f64() * 1e3;
    let pkt = link.packet_bytes();
    let one = link_ms(f64::from(pkt), tbf);
    let kind = arm.kind();
    if one > target_ms {
        return Some((
            true,
            format!(
                "one {pkt} B packet holds the link {} at {}, longer than {kind}'s target {}: \
                 every packet's sojourn exceeds the target, so {kind} sees a standing queue it \
                 cannot remove and drops or marks without end",
                ms(one),
                tbf.rate,
                ms(target_ms)
            ),
            format!(
                "set target to at least 1.5 × the link time (target {}ms, CAKE's own rule), or a \
                 higher rate",
                (one * 1.5).ceil()
            ),
        ));
    }
    let agg = link.largest_aggregate(tbf)?;
    let agg_ms = link_ms(f64::from(agg), tbf);
    (agg_ms > target_ms).then(|| {
        (
            false,
            format!(
                "a {pkt} B packet holds the link {} at {}, under {kind}'s target {}; but with \
                 offloads \"kernel\" a GSO aggregate of up to {agg} B may reach it ({}; fq_codel's \
                 maxpacket read 6,056 B = 9.7 ms at 5 Mbit/s, docs/method.md §14.1), and its sojourn alone exceeds the target",
                ms(one),
                tbf.rate,
                ms(target_ms),
                ms(agg_ms)
            ),
            "switch offloads off, so the queue holds single packets, or read the arm's maxpacket \
             in results.json before trusting its target"
                .into(),
        )
    })
}

fn tbf_limit_replaced(arm: &Arm, tbf: &Tbf) -> (String, String) {
    let bound = match arm {
        Arm::Pfifo(p) => format!(
            "pfifo's limit ({} skbs)",
            p.limit.unwrap_or(VETH_TXQUEUELEN)
        ),
        Arm::Bfifo(b) => format!(
            "bfifo's limit ({})",
            b.limit
                .map_or("txqueuelen × MTU bytes".into(), |s| s.to_string())
        ),
        other => format!("{}'s own limits", other.kind()),
    };
    (
        format!(
            "TBF's limit {} does not bound the queue: tbf_change (net/sched/sch_tbf.c) makes a \
             default bfifo of that limit only while TBF has no child, grafting the arm at parent \
             1:1 destroys it, and TBF's enqueue has no limit of its own (it only segments or drops \
             an skb longer than its burst {}); {bound} bounds the queue",
            tbf.limit, tbf.burst
        ),
        "none needed: the arm's own limit bounds the queue; read TBF's limit (and the latency \
         tc derives from it) as unused"
            .into(),
    )
}

/// Whether the arm marks ECT packets with CE (where it would drop them).
fn marks(arm: &Arm) -> bool {
    match arm {
        // fq_codel's ecn is on unless `noecn`; codel's, pie's and fq_pie's
        // are off unless `ecn`; CAKE always marks.
        Arm::FqCodel(a) => a.ecn != Some(false),
        Arm::Codel(a) => a.ecn == Some(true),
        Arm::Pie(a) => a.ecn == Some(true),
        Arm::FqPie(a) => a.ecn == Some(true),
        Arm::Cake(_) => true,
        _ => false,
    }
}

/// The stop-and-wait probe sends at most `max_requests`, one every
/// `interval` at the soonest (later when a reply takes longer), the last no
/// later than 1 s before the end (netlab-run's `quiet_before_end`). When
/// the cap is smaller than the schedule, it may end the probe early; it
/// certainly does before the load when the baseline alone, where replies
/// take about the base RTT, holds the capped requests.
fn probe_cap(s: &ScenarioPlan) -> Option<(bool, String, String)> {
    let p = s
        .probes
        .iter()
        .find(|p| p.kind == crate::model::ProbeKind::StopAndWait)?;
    let cap = p.max_requests?;
    let tl = &s.timeline;
    let last_send = tl.end().checked_sub(Duration::from_secs(1))?;
    let schedule = (last_send.as_nanos() / p.interval.as_nanos().max(1)) as u64 + 1;
    if u64::from(cap) >= schedule {
        return None;
    }
    let spent = p.interval.as_secs_f64() * f64::from(cap - 1);
    let idle_spacing = p.interval.max(s.path.base_rtt).as_secs_f64();
    let certain = idle_spacing * f64::from(cap - 1) < tl.load_start().as_secs_f64();
    let (window, end) = (tl.window_start().as_secs_f64(), tl.end().as_secs_f64());
    Some((
        certain,
        format!(
            "the stop-and-wait probe sends at most max_requests = {cap} requests: one every {}, \
             they are spent {spent:.2} s after t0 when replies come within the spacing, before \
             its schedule ends ({schedule} requests to {:.0} s), so the measured window \
             ({window:.0}–{end:.0} s) gets fewer loaded requests{}",
            crate::units::format_duration(p.interval),
            last_send.as_secs_f64(),
            if certain {
                ", none at all: the baseline alone spends them"
            } else {
                ", or none"
            }
        ),
        format!(
            "raise [[probes]] max_requests to {schedule} (the schedule's requests) or use a \
             longer interval"
        ),
    ))
}

fn not_ect_probe(arm: &Arm, ecn_flows: usize, probes: &[ProbeSpec]) -> (String, String) {
    let kinds: Vec<&str> = probes.iter().map(|p| p.kind.as_str()).collect();
    (
        format!(
            "the {} probe's UDP packets are Not-ECT while {ecn_flows} flow(s) negotiate ECN: \
             where {} marks the flows' packets (CE) it drops the probe's, so a probe request \
             without reply under this arm may be a drop, not a delay (docs/method.md §5.8: fq_codel dropped \
             3–7 requests per round beside one ECN Reno flow)",
            kinds.join(" and "),
            arm.kind()
        ),
        "read probe timeouts under this arm as possible drops (results.json records each \
         request's fate), or run the flows without ECN ([[flows]] ecn = false) or the arm with \
         noecn, so the flows and the probe are treated alike"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ArmSpec;

    #[test]
    fn a_short_swept_interval_spends_the_probe_s_cap_before_the_window() {
        let exp = crate::parse("[sweep]\nstop_and_wait_interval = [\"10ms\", \"50ms\", \"200ms\"]")
            .unwrap();
        let caps: Vec<Warning> = warnings(&exp)
            .into_iter()
            .filter(|w| w.kind == WarningKind::ProbeCapBeforeScheduleEnd)
            .collect();
        // Once per point (not per arm), and not at the method's 200 ms:
        // 100 requests × 200 ms outlast the 17 s schedule.
        let points: Vec<&str> = caps.iter().map(|w| w.point.as_str()).collect();
        assert_eq!(
            points,
            ["stop_and_wait_interval=10ms", "stop_and_wait_interval=50ms"]
        );
        // 99 × 10 ms = 0.99 s: spent in the 3 s baseline, certainly.
        assert!(caps[0].certain, "{}", caps[0]);
        assert!(caps[0].text.contains("none at all"), "{}", caps[0]);
        assert!(caps[0].fix.contains("max_requests to 1701"), "{}", caps[0]);
        // 99 × 50 ms = 4.95 s: past the baseline, inside the warm-up.
        assert!(!caps[1].certain, "{}", caps[1]);
        assert!(
            caps[1].text.contains("spent 4.95 s after t0"),
            "{}",
            caps[1]
        );
        assert!(caps[1].fix.contains("max_requests to 341"), "{}", caps[1]);
        assert!(
            caps[1]
                .to_string()
                .starts_with("warning: at stop_and_wait_interval=50ms: the stop-and-wait probe"),
            "{}",
            caps[1]
        );
        // A cap as large as the schedule says nothing.
        let raised = crate::parse(
            "[[probes]]\nmax_requests = 1701\n[sweep]\nstop_and_wait_interval = [\"10ms\"]",
        )
        .unwrap();
        assert!(!warnings(&raised)
            .iter()
            .any(|w| w.kind == WarningKind::ProbeCapBeforeScheduleEnd));
    }

    fn exp_with(arms: &[&str]) -> Experiment {
        Experiment {
            arms: arms.iter().map(|w| ArmSpec::parse(w).unwrap()).collect(),
            rounds: 1,
            ..Experiment::default()
        }
    }

    fn kinds(w: &[Warning], arm: &str) -> Vec<(WarningKind, bool)> {
        w.iter()
            .filter(|w| w.arm.starts_with(arm))
            .map(|w| (w.kind, w.certain))
            .collect()
    }

    /// The experiment with `[path] offloads = "off"`.
    fn off(mut exp: Experiment) -> Experiment {
        exp.path.offloads = Offloads::Off;
        exp
    }

    #[test]
    fn the_seed_warns_what_is_true_of_it() {
        // pfifo 256 × 1514 B at 5 Mbit/s = 620 ms < 1 s: no timeout warning
        // with offloads off, a possible one with the kernel's offloads.
        let exp = Experiment::default();
        let off = warnings(&off(exp.clone()));
        assert_eq!(
            kinds(&off, "pfifo"),
            vec![(WarningKind::TbfLimitReplaced, true)]
        );
        // fq_codel: 1514 B = 2.4 ms < 5 ms; ECN flow beside the probe.
        assert_eq!(
            kinds(&off, "fq_codel"),
            vec![
                (WarningKind::TbfLimitReplaced, true),
                (WarningKind::NotEctProbeBesideEcnFlows, true)
            ]
        );
        let on = warnings(&exp);
        // One for each probe: both wait 1 s.
        assert_eq!(
            kinds(&on, "pfifo"),
            vec![
                (WarningKind::ProbeTimeoutBelowFifoDrain, false),
                (WarningKind::ProbeTimeoutBelowFifoDrain, false),
                (WarningKind::TbfLimitReplaced, true)
            ]
        );
        assert!(
            on[1].text.contains("the isochronous probe's timeout"),
            "{}",
            on[1]
        );
        // The seed's probes take 0.7 % of 5 Mbit/s: no share warning.
        assert!(!on.iter().any(|w| w.kind == WarningKind::ProbeShareOfRate));
        let t = &on[0];
        assert!(t.text.contains("holds 620 ms at 5mbit"), "{t}");
        // 256 aggregates of TBF's 16 KiB burst: 256 × 16384 × 8 / 5e6 s.
        assert!(t.text.contains("up to 6711 ms"), "{t}");
        assert!(
            t.text
                .contains("2 segments (as measured, docs/method.md §1.6) 1240 ms"),
            "{t}"
        );
        assert!(t.fix.contains("timeout = \"2s\""), "{}", t.fix);
        assert_eq!(
            kinds(&on, "fq_codel"),
            vec![
                (WarningKind::PacketLongerThanTarget, false),
                (WarningKind::TbfLimitReplaced, true),
                (WarningKind::NotEctProbeBesideEcnFlows, true)
            ]
        );
        let a = on
            .iter()
            .find(|w| w.kind == WarningKind::PacketLongerThanTarget)
            .unwrap();
        assert!(a.text.contains("holds the link 2.4 ms at 5mbit"), "{a}");
        assert!(a.text.contains("up to 16384 B may reach it (26 ms"), "{a}");
    }

    #[test]
    fn a_deep_fifo_exceeds_the_timeout_for_full_sized_packets() {
        // 1000 × 1514 B at 5 Mbit/s = 2.42 s > 1 s.
        let w = warnings(&off(exp_with(&["pfifo limit 1000"])));
        let t = &w[0];
        assert_eq!(
            (t.kind, t.certain),
            (WarningKind::ProbeTimeoutBelowFifoDrain, true)
        );
        assert!(
            t.text.contains("holds 2422 ms at 5mbit (1000 × 1514 B)"),
            "{t}"
        );
        assert!(t.fix.contains("timeout = \"4s\""), "{}", t.fix);
        // bfifo counts bytes: 1 MB at 5 Mbit/s = 1.6 s, aggregates or not.
        let w = warnings(&exp_with(&["bfifo limit 1000000"]));
        assert_eq!(w[0].kind, WarningKind::ProbeTimeoutBelowFifoDrain);
        assert!(w[0].certain);
        assert!(w[0].text.contains("1600 ms"), "{}", w[0]);
        // A short one does not warn.
        let w = warnings(&exp_with(&["bfifo limit 100000"]));
        assert!(w
            .iter()
            .all(|w| w.kind != WarningKind::ProbeTimeoutBelowFifoDrain));
    }

    #[test]
    fn a_packet_longer_than_the_target_at_a_low_rate() {
        // 1514 B at 1 Mbit/s = 12.1 ms > 5 ms.
        let mut exp = exp_with(&["fq_codel"]);
        exp.path.up.as_mut().unwrap().rate = netlab_qdisc_model::Rate(1_000_000);
        let w = warnings(&off(exp.clone()));
        let t = w
            .iter()
            .find(|w| w.kind == WarningKind::PacketLongerThanTarget)
            .expect("target warning");
        assert!(t.certain);
        assert!(
            t.text
                .contains("holds the link 12 ms at 1mbit, longer than fq_codel's target 5.0 ms"),
            "{t}"
        );
        assert!(t.fix.contains("target 19ms"), "{}", t.fix);
        // pie's target is 15 ms: no warning; cake raises its own.
        for arm in ["pie", "cake"] {
            let mut e = exp_with(&[arm]);
            e.path.up = exp.path.up;
            assert!(warnings(&off(e.clone()))
                .iter()
                .all(|w| w.kind != WarningKind::PacketLongerThanTarget));
        }
    }

    #[test]
    fn the_tbf_limit_warning_names_the_arms_bound() {
        let w = warnings(&off(exp_with(&["pfifo limit 64"])));
        let t = w
            .iter()
            .find(|w| w.kind == WarningKind::TbfLimitReplaced)
            .unwrap();
        assert!(
            t.text
                .starts_with("TBF's limit 64kb does not bound the queue"),
            "{t}"
        );
        assert!(
            t.text.ends_with("pfifo's limit (64 skbs) bounds the queue"),
            "{t}"
        );
        assert_eq!(t.direction, Some(Direction::Up));
        // A shaped direction without a flow: only TBF's limit.
        let mut e = exp_with(&["pfifo limit 1000"]);
        e.path.down = e.path.up;
        let w = warnings(&off(e.clone()));
        let down: Vec<_> = w
            .iter()
            .filter(|w| w.direction == Some(Direction::Down))
            .map(|w| w.kind)
            .collect();
        assert_eq!(down, vec![WarningKind::TbfLimitReplaced]);
        assert!(w.iter().any(|w| w.direction == Some(Direction::Up)
            && w.kind == WarningKind::ProbeTimeoutBelowFifoDrain));
        // An unshaped path has no TBF and no warning.
        let mut e = exp_with(&["pfifo limit 64"]);
        e.path.up = None;
        assert!(warnings(&off(e.clone())).is_empty());
    }

    #[test]
    fn a_not_ect_probe_beside_ecn_flows_only_under_a_marking_arm() {
        let has = |arms: &[&str], ecn: bool| {
            let mut e = exp_with(arms);
            e.flows.iter_mut().for_each(|f| f.ecn = ecn);
            warnings(&off(e.clone()))
                .iter()
                .any(|w| w.kind == WarningKind::NotEctProbeBesideEcnFlows)
        };
        assert!(has(&["fq_codel"], true));
        assert!(has(&["cake"], true));
        assert!(has(&["codel ecn"], true));
        assert!(!has(&["codel"], true), "codel marks only with ecn");
        assert!(!has(&["fq_codel noecn"], true));
        assert!(!has(&["fq_codel"], false), "no ECN flow");
        assert!(!has(&["pfifo"], true), "a FIFO never marks");
        let mut e = exp_with(&["fq_codel"]);
        e.probes.clear();
        assert!(warnings(&off(e.clone()))
            .iter()
            .all(|w| w.kind != WarningKind::NotEctProbeBesideEcnFlows));
    }

    /// `plan` says each cause once: the seed's TBF limit, replaced under
    /// both arms, is one warning naming both, and says no fix is needed.
    #[test]
    fn one_warning_per_cause_names_its_arms_and_its_fix() {
        let exp = Experiment::default();
        let groups = grouped(&warnings(&exp));
        let kinds: Vec<WarningKind> = groups.iter().map(|g| g.kind).collect();
        let mut unique = kinds.clone();
        unique.dedup();
        assert_eq!(kinds, unique, "one group per cause");
        let tbf = groups
            .iter()
            .find(|g| g.kind == WarningKind::TbfLimitReplaced)
            .unwrap();
        assert_eq!(tbf.arms.len(), 2);
        let text = tbf.to_string();
        assert!(
            text.starts_with("warning: 2 arms: pfifo limit 256 | fq_codel"),
            "{text}"
        );
        assert!(text.contains("\n  fix: none needed: "), "{text}");
        // A cause of one arm reads as its warning.
        let drain = groups
            .iter()
            .find(|g| g.kind == WarningKind::ProbeTimeoutBelowFifoDrain)
            .unwrap();
        assert_eq!(drain.to_string(), drain.example.to_string());
    }

    #[test]
    fn probes_above_one_percent_of_the_rate_are_said() {
        let iso = ProbeSpec::isochronous();
        // 40 B + 28 + 14 = 82 B every 20 ms: 32.8 kbit/s.
        assert_eq!(iso.frame_bytes(), 82);
        assert!((iso.max_rate_bps() - 32_800.0).abs() < 1e-6);
        let at = |rate: &str| Tbf {
            rate: netlab_qdisc_model::Rate::parse(rate).unwrap(),
            ..crate::model::default_tbf()
        };
        let probes = [ProbeSpec::stop_and_wait(), iso];
        assert!(probe_share(&probes, &at("5mbit")).is_none());
        let (text, fix) = probe_share(&probes, &at("1mbit")).unwrap();
        assert!(text.contains("3.5 % of 1mbit"), "{text}");
        assert!(
            text.contains("the isochronous probe's 82 B frames every 20ms"),
            "{text}"
        );
        assert!(fix.contains("\"132ms\""), "{fix}");
    }
}
