//! Figures per arm (per round and pooled, with their counts) and the
//! difference between each pair of arms with an exact, distribution-free
//! interval over the rounds' own values (method §12.3: a round is the unit;
//! probes and 200 ms bins inside a round are autocorrelated and are never
//! resampled), censoring kept, plus a plain sentence that never claims
//! more than that interval.

use crate::window::{Measure, Sampling, WindowDelay};
use netlab_analysis::records::Scenario;
use netlab_analysis::ReportInput;
use netlab_stats::{
    hodges_lehmann, jain_index, quantile_difference, shift_interval, weighted_censored_quantile,
    Bounded, CensoredQuantile, Observation,
};

use crate::comparison::{figure_name, ALPHA};
pub use crate::comparison::{ArmFigure, Comparison, DelayBasis, Figure, Statistics, Value};
use netlab_analysis::records::GOODPUT_RESOLUTION;

/// The data one round contributes to a figure.
#[derive(Debug, Clone, PartialEq)]
enum Unit {
    /// Probe observations with the time each stands for (the window's
    /// sampling, method §12.11); the statistic is a weighted censored
    /// quantile. The last field counts the round's loaded requests without
    /// a reply within the timeout (delivered late, lost or unresolved),
    /// whatever the delay basis.
    Probes(Vec<(Observation, f64)>, f64, usize),
    /// A share of counts, %: pooled, the ratio of the summed counts (never
    /// a mean of the rounds' shares).
    Share {
        /// Requests counted (lost).
        part: usize,
        /// Of these many (sent).
        of: usize,
    },
    /// One value per round (window goodput, a counter, an index), with the
    /// samples behind it (goodput: its 200 ms bins).
    Scalar { value: f64, samples: usize },
}

impl Unit {
    fn len(&self) -> usize {
        match self {
            Unit::Probes(o, ..) => o.len(),
            Unit::Share { of, .. } => *of,
            Unit::Scalar { samples, .. } => *samples,
        }
    }
}

/// The window delay of a round with `sampling` (method §12.11): its
/// weighted samples, or none when the round lacks that probe.
fn window_of(s: &Scenario, sampling: Option<Sampling>) -> Option<WindowDelay> {
    WindowDelay::of_round(s, sampling?, s.window())
}

impl DelayBasis {
    /// The delay basis of the window delays (method §12.11) of `ok` with
    /// `sampling`: one-way delivered when every round's window is.
    pub fn of_window(ok: &[&Scenario], sampling: Option<Sampling>) -> DelayBasis {
        let all = !ok.is_empty()
            && ok
                .iter()
                .all(|s| window_of(s, sampling).is_some_and(|w| w.measure == Measure::OneWay));
        if all {
            DelayBasis::OneWayDelivered
        } else {
            DelayBasis::RttCensored
        }
    }

    /// The stop-and-wait probe's basis (its own figures and CDF): one-way
    /// delivered when every scenario that ran has its stop-and-wait
    /// requests' fates with one-way delays.
    pub fn of(ok: &[&Scenario]) -> DelayBasis {
        let all = !ok.is_empty()
            && ok.iter().all(|s| {
                !s.probes.is_empty()
                    && s.delivered_one_way(netlab_analysis::records::ProbePhase::Loaded)
                        .is_some()
            });
        if all {
            DelayBasis::OneWayDelivered
        } else {
            DelayBasis::RttCensored
        }
    }
}

fn fairness(s: &Scenario) -> Option<f64> {
    let (Some([w0, w1]), Some(bin)) = (s.measured_window, s.bin_s()) else {
        return None;
    };
    let per_flow: Vec<f64> = s
        .flows
        .iter()
        .map(|f| {
            f.bytes
                .iter()
                .enumerate()
                .filter(|(i, _)| *i as f64 * bin >= w0 - 1e-9 && (*i + 1) as f64 * bin <= w1 + 1e-9)
                .map(|(_, b)| *b as f64)
                .sum()
        })
        .collect();
    jain_index(&per_flow)
}

fn unit(s: &Scenario, f: Figure, sampling: Option<Sampling>) -> Option<Unit> {
    let one = |value: f64| Unit::Scalar { value, samples: 1 };
    match f {
        Figure::LoadedP50 | Figure::LoadedP95 => {
            let w = window_of(s, sampling)?;
            let p = if f == Figure::LoadedP50 { 0.5 } else { 0.95 };
            let timeouts = window_timeouts(&w);
            Some(Unit::Probes(w.samples, p, timeouts))
        }
        Figure::Loss => window_of(s, sampling)
            .filter(|w| w.measure == Measure::OneWay && w.sent() > 0)
            .map(|w| Unit::Share {
                part: w.fates.lost() as usize,
                of: w.sent() as usize,
            }),
        Figure::Goodput => s.window_goodput().map(|value| Unit::Scalar {
            value,
            samples: s.goodput_bins().len(),
        }),
        Figure::Drops => s.window_counts().map(|w| one(w.drops as f64)),
        Figure::Fairness => fairness(s).map(one),
    }
}

/// A round's window requests without a reply within the timeout: with
/// fates, those that reached B late or never, lost or unresolved; without,
/// the RTT's censored ones.
fn window_timeouts(w: &WindowDelay) -> usize {
    match w.measure {
        Measure::OneWay => (w.fates.reached_late + w.fates.lost() + w.fates.unresolved) as usize,
        Measure::RttCensored => w.timeouts as usize,
    }
}

/// The statistic over pooled units: a censored quantile over every round's
/// probes, a share of the summed counts, or the mean of the rounds' values.
fn statistic(units: &[&Unit]) -> CensoredQuantile {
    match units.first() {
        None => CensoredQuantile::NoData,
        Some(Unit::Probes(_, p, _)) => {
            let all: Vec<(Observation, f64)> = units
                .iter()
                .flat_map(|u| match u {
                    Unit::Probes(o, ..) => o.clone(),
                    _ => Vec::new(),
                })
                .collect();
            weighted_censored_quantile(&all, *p)
        }
        Some(Unit::Share { .. }) => {
            let (part, of) = units.iter().fold((0, 0), |(p, n), u| match u {
                Unit::Share { part, of } => (p + part, n + of),
                _ => (p, n),
            });
            if of == 0 {
                CensoredQuantile::NoData
            } else {
                CensoredQuantile::Value(100.0 * part as f64 / of as f64)
            }
        }
        Some(Unit::Scalar { .. }) => {
            let all: Vec<f64> = units
                .iter()
                .filter_map(|u| match u {
                    Unit::Scalar { value, .. } => Some(*value),
                    _ => None,
                })
                .collect();
            if all.is_empty() {
                CensoredQuantile::NoData
            } else {
                CensoredQuantile::Value(all.iter().sum::<f64>() / all.len() as f64)
            }
        }
    }
}

fn timeouts(u: &Unit) -> usize {
    match u {
        Unit::Probes(_, _, t) => *t,
        _ => 0,
    }
}

/// Computes every figure and comparison of a run.
pub fn analyse(input: &ReportInput) -> Statistics {
    let ok: Vec<&Scenario> = input
        .scenarios
        .iter()
        .filter(|s| s.error.is_none())
        .collect();
    let failed_scenarios = input
        .scenarios
        .iter()
        .filter(|s| s.error.is_some())
        .map(|s| s.index)
        .collect();
    let mut arms: Vec<String> = Vec::new();
    for s in &input.scenarios {
        if !arms.contains(&s.arm) {
            arms.push(s.arm.clone());
        }
    }
    let several_flows = ok.iter().any(|s| s.flows.len() > 1);
    let sampling = Sampling::of(&ok);
    let delay = DelayBasis::of_window(&ok, sampling);
    let mut list = vec![Figure::LoadedP50, Figure::LoadedP95];
    if delay == DelayBasis::OneWayDelivered {
        list.push(Figure::Loss);
    }
    list.extend([Figure::Goodput, Figure::Drops]);
    if several_flows {
        list.push(Figure::Fairness);
    }
    let units_of = |arm: &str, f: Figure| -> Vec<(u32, Unit)> {
        ok.iter()
            .filter(|s| s.arm == arm)
            .filter_map(|s| unit(s, f, sampling).map(|u| (s.round, u)))
            .collect()
    };
    let mut figures = Vec::new();
    for arm in &arms {
        for &f in &list {
            figures.push(arm_figure(arm, f, &units_of(arm, f)));
        }
    }
    let mut comparisons = Vec::new();
    for i in 0..arms.len() {
        for j in i + 1..arms.len() {
            for &f in &list {
                let ua = units_of(&arms[i], f);
                let ub = units_of(&arms[j], f);
                let mut c = compare(&arms[i], &arms[j], f, delay, &ua, &ub);
                c.sampling = sampling;
                c.not_claimed = not_claimed(&c, &ok, &arms[i], &arms[j], &ua, &ub);
                c.sentence = crate::sentence::sentence(&c);
                comparisons.push(c);
            }
        }
    }
    // Nothing pooled where the rounds disagree or a round's window held
    // more than one state (method §12.6).
    let split = netlab_analysis::state::ArmStates::of_input(input)
        .into_iter()
        .filter(|a| a.split())
        .map(|a| {
            let groups: Vec<String> = a
                .groups
                .iter()
                .map(|g| {
                    let r: Vec<String> = g.rounds.iter().map(|r| format!("r{r}")).collect();
                    format!("{}: {}", g.label(), r.join(" "))
                })
                .collect();
            (a.arm, groups.join("; "))
        })
        .collect();
    Statistics {
        arms,
        figures,
        comparisons,
        failed_scenarios,
        delay,
        split,
        sampling,
    }
}

impl Statistics {
    /// The figures per arm, pooled and per round, with their counts: one
    /// table index.html and summary.md both print. A delay figure says
    /// what it measures (one-way or round trip); an arm whose rounds
    /// disagree gets no pooled value (method §12.6); a pooled share is the
    /// ratio of the counts.
    pub fn figures_table(&self) -> netlab_analysis::Table {
        let mut rows = Vec::new();
        for f in &self.figures {
            let unit = f.figure.unit();
            let share = f.figure == Figure::Loss;
            let value = |v: &Value| -> String {
                if share {
                    let lost = (v.value_of_share() * v.samples as f64 / 100.0).round();
                    format!("{lost:.0}/{} = {}", v.samples, v.value.text(unit))
                } else {
                    match v.value {
                        // An index (Jain's) to three decimals.
                        CensoredQuantile::Value(x) if unit.is_empty() => format!("{x:.3}"),
                        other => other.text(unit),
                    }
                }
            };
            let split = self.split.iter().find(|(a, _)| *a == f.arm);
            let pooled = match split {
                Some((_, states)) => format!("not pooled: not one state ({states})"),
                None => value(&f.pooled),
            };
            let rounds: Vec<String> = f
                .rounds
                .iter()
                .map(|r| {
                    if share {
                        format!("r{}: {}", r.round, value(r))
                    } else if !matches!(f.figure, Figure::LoadedP50 | Figure::LoadedP95) {
                        format!("r{}: {} ({})", r.round, value(r), r.samples)
                    } else {
                        format!("r{}: {} ({}, {})", r.round, value(r), r.samples, r.timeouts)
                    }
                })
                .collect();
            let n = match f.figure {
                Figure::LoadedP50 | Figure::LoadedP95 => {
                    format!("{} ({})", f.pooled.samples, f.pooled.timeouts)
                }
                Figure::Loss => format!(
                    "{} sent, {:.0} lost",
                    f.pooled.samples,
                    (f.pooled.value_of_share() * f.pooled.samples as f64 / 100.0).round()
                ),
                _ => f.pooled.samples.to_string(),
            };
            rows.push(vec![
                figure_name(self.delay, f.figure, self.sampling),
                f.arm.clone(),
                pooled,
                n,
                rounds.join("; "),
            ]);
        }
        let (delay_n, intro) = match self.delay {
            DelayBasis::OneWayDelivered => (
                "a one-way delay's n counts the delivered requests",
                "Each figure per arm, pooled over its rounds and per round, with its counts. The delays are one-way A→B over the delivered requests (method §5.8), not round trips.",
            ),
            DelayBasis::RttCensored => (
                "a delay's n counts every loaded request with RTT information",
                "Each figure per arm, pooled over its rounds and per round, with its counts; the delays are round trips with a timeout censored at the timeout (method §5.6).",
            ),
        };
        netlab_analysis::Table {
            intro: intro.into(),
            header: ["figure", "arm", "pooled", "n (timeouts)", "per round: value (n, timeouts)"]
                .map(String::from)
                .to_vec(),
            rows,
            note: format!(
                "n: the samples behind a value ({delay_n}; a loss's, the requests sent; a goodput's, its 200 ms bins); timeouts, beside a delay's n: the loaded requests without a reply within the timeout, delivered late or not at all. A pooled delay is a quantile over every round's samples and a pooled loss the ratio of the summed counts; an arm not in one state over the window (rounds that disagree, or a round whose state changed inside it) has none."
            ),
        }
    }
}

impl Value {
    /// The value of a share, %, or 0.
    fn value_of_share(&self) -> f64 {
        match self.value {
            CensoredQuantile::Value(v) => v,
            _ => 0.0,
        }
    }
}

/// Why a goodput comparison claims nothing (method §12.9): a round above
/// the link's payload ceiling (the window caught a loss repair's burst, as
/// the report's note on goodput says), or a shift under the resolution.
fn not_claimed(
    c: &Comparison,
    ok: &[&Scenario],
    a: &str,
    b: &str,
    ua: &[(u32, Unit)],
    ub: &[(u32, Unit)],
) -> Option<String> {
    if c.figure != Figure::Goodput {
        return None;
    }
    let mut above = Vec::new();
    for s in ok.iter().filter(|s| s.arm == a || s.arm == b) {
        // The ceiling is the upload shaper's: a download's goodput is not
        // held to it.
        if s.directions.first().is_some_and(|d| d.direction != "up") {
            continue;
        }
        let (Some(g), Some(ceiling)) = (s.window_goodput(), s.payload_ceiling_mbps()) else {
            continue;
        };
        // One segment more or less at the window's edges is the window,
        // not a burst: above the ceiling means by more than that.
        let mtu = f64::from(
            s.readbacks
                .mtu
                .unwrap_or(netlab_results::queue_seen::DEFAULT_MTU),
        );
        let edge = s.measured_window.map_or(0.0, |[w0, w1]| {
            (mtu - 52.0) * 8.0 / (w1 - w0).max(1e-9) / 1e6
        });
        if g > ceiling + edge {
            above.push(format!("{} r{} {g:.3}", s.arm, s.round));
        }
    }
    let ceiling = ok.iter().find_map(|s| s.payload_ceiling_mbps());
    if let (false, Some(ceiling)) = (above.is_empty(), ceiling) {
        return Some(format!(
            "{} above the link's payload ceiling of {ceiling:.2} Mbit/s (bytes that crossed the bottleneck before the window were delivered inside it: a loss repair's burst, or the window's edges), so the goodputs are not compared",
            above.join(", ")
        ));
    }
    let rate = ok
        .iter()
        .find_map(|s| s.readbacks.rate_bps)
        .map(|r| r as f64 / 1e6)?;
    let resolution = GOODPUT_RESOLUTION * rate;
    let spread = ua
        .iter()
        .chain(ub)
        .filter_map(|(_, u)| match u {
            Unit::Scalar { value, .. } => Some(*value),
            Unit::Probes(..) | Unit::Share { .. } => None,
        })
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    match c.point {
        Bounded::Value(d) if d.abs() < resolution && spread.1 - spread.0 < 2.0 * resolution => {
            Some(format!(
                "every round within {:.3} Mbit/s of the others, under the measurement's resolution ({:.0} % of the {} Mbit/s rate, {resolution:.3} Mbit/s)",
                spread.1 - spread.0,
                GOODPUT_RESOLUTION * 100.0,
                netlab_stats::fmt_num(rate)
            ))
        }
        _ => None,
    }
}

fn arm_figure(arm: &str, f: Figure, units: &[(u32, Unit)]) -> ArmFigure {
    let rounds = units
        .iter()
        .map(|(r, u)| Value {
            round: *r,
            value: statistic(&[u]),
            samples: u.len(),
            timeouts: timeouts(u),
        })
        .collect();
    let refs: Vec<&Unit> = units.iter().map(|(_, u)| u).collect();
    ArmFigure {
        arm: arm.into(),
        figure: f,
        rounds,
        pooled: Value {
            round: 0,
            value: statistic(&refs),
            samples: units.iter().map(|(_, u)| u.len()).sum(),
            timeouts: units.iter().map(|(_, u)| timeouts(u)).sum(),
        },
    }
}

fn compare(
    a: &str,
    b: &str,
    f: Figure,
    delay: DelayBasis,
    ua: &[(u32, Unit)],
    ub: &[(u32, Unit)],
) -> Comparison {
    let per_round = |u: &[(u32, Unit)]| -> Vec<CensoredQuantile> {
        u.iter().map(|(_, x)| statistic(&[x])).collect()
    };
    let point = hodges_lehmann(&per_round(ua), &per_round(ub));
    let iv = shift_interval(&per_round(ua), &per_round(ub), 1.0 - ALPHA);
    let (mut lower, mut higher, mut compared) = (0, 0, 0);
    for (r, u) in ua {
        if let Some((_, v)) = ub.iter().find(|(rb, _)| rb == r) {
            compared += 1;
            match quantile_difference(statistic(&[u]), statistic(&[v])) {
                Bounded::Value(d) if d < 0.0 => lower += 1,
                Bounded::Value(d) if d > 0.0 => higher += 1,
                Bounded::AtMost(d) if d < 0.0 => lower += 1,
                Bounded::AtLeast(d) if d > 0.0 => higher += 1,
                _ => {}
            }
        }
    }
    let mut c = Comparison {
        figure: f,
        a: a.into(),
        b: b.into(),
        delay,
        point,
        not_claimed: None,
        interval: (iv.low, iv.high),
        level: iv.level,
        interval_rounds: iv.rounds,
        unknown_pairs: iv.unknown_pairs,
        rounds: ua.len().min(ub.len()),
        b_lower: lower,
        b_higher: higher,
        rounds_compared: compared,
        sentence: String::new(),
        sampling: None,
    };
    c.sentence = crate::sentence::sentence(&c);
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_analysis::testing::{input, scenario};

    fn find(st: &Statistics, f: Figure) -> &Comparison {
        st.comparisons.iter().find(|c| c.figure == f).unwrap()
    }

    #[test]
    fn the_interval_is_over_the_rounds_values_at_the_level_they_allow() {
        let st = analyse(&input(3));
        let p50 = find(&st, Figure::LoadedP50);
        // 3 vs 3 rounds: the extreme pairwise differences, at 90 %.
        assert!((p50.level - 0.9).abs() < 1e-12, "{p50:?}");
        assert_eq!(p50.interval_rounds, (3, 3));
        // pfifo's per-round medians are 506, 507, 508 ms (the 5th of 10
        // requests, 2 timed out); fq_codel's 4.8 ms in every round.
        let (Bounded::Value(lo), Bounded::Value(hi)) = p50.interval else {
            panic!("{p50:?}")
        };
        assert!((lo - (4.8 - 508.0)).abs() < 1e-9, "{lo}");
        assert!((hi - (4.8 - 506.0)).abs() < 1e-9, "{hi}");
        // The magnitude is the endpoint nearest zero, not the point.
        assert!(
            p50.sentence.contains(
                "fq_codel lower by at least 501 ms (shift estimate -502 ms; 90 % interval [-504, -501] \
                 over 3 vs 3 rounds; 3 vs 3 rounds allow no more than 90 %)"
            ),
            "{}",
            p50.sentence
        );
    }

    #[test]
    fn a_clear_difference_says_so_with_rounds() {
        let st = analyse(&input(3));
        let p50 = find(&st, Figure::LoadedP50);
        assert!(
            matches!(p50.point, Bounded::Value(d) if d < -400.0),
            "{p50:?}"
        );
        assert_eq!((p50.b_lower, p50.rounds_compared), (3, 3));
        assert!(
            p50.sentence.contains("fq_codel lower by at least"),
            "{}",
            p50.sentence
        );
        assert!(
            p50.sentence.contains("fq_codel lower in 3 of 3 rounds"),
            "{}",
            p50.sentence
        );
        // pfifo's p95 falls on the censored mass (3 of 10 timed out in each
        // round): the difference is only a bound, and says so.
        let p95 = find(&st, Figure::LoadedP95);
        assert!(matches!(p95.point, Bounded::AtMost(_)), "{p95:?}");
        assert!(p95.sentence.contains("≤ "), "{}", p95.sentence);
        let pf = st
            .figures
            .iter()
            .find(|f| f.arm == "pfifo" && f.figure == Figure::LoadedP95)
            .unwrap();
        assert_eq!(pf.pooled.value, CensoredQuantile::AtLeast(1000.0));
        assert_eq!((pf.pooled.samples, pf.pooled.timeouts), (30, 6));
        // Equal goodput: no clear difference.
        let g = find(&st, Figure::Goodput);
        assert_eq!(g.point, Bounded::Value(0.0));
        assert!(
            g.sentence
                .contains("no clear difference: interval includes 0"),
            "{}",
            g.sentence
        );
    }

    #[test]
    fn fewer_than_three_rounds_is_not_meaningful() {
        let st = analyse(&input(2));
        let sentences: Vec<&str> = st.comparisons.iter().map(|c| c.sentence.as_str()).collect();
        assert_eq!(
            sentences,
            [
                "loaded probe RTT p50 (fq_codel − pfifo): shift estimate -502 ms; \
                 fewer than 3 rounds: interval not meaningful; fq_codel lower in 2 of 2 rounds",
                "loaded probe RTT p95 (fq_codel − pfifo): shift estimate ≤ -993 ms; \
                 fewer than 3 rounds: interval not meaningful; fq_codel lower in 2 of 2 rounds",
                "goodput (fq_codel − pfifo): shift estimate 0.000 Mbit/s; \
                 fewer than 3 rounds: interval not meaningful; fq_codel lower in 0 of 2 rounds, \
                 2 undetermined (equal, or both on the censored mass)",
                "drops in the measured window (arm) (fq_codel − pfifo): shift estimate \
                 -97.5 packets; fewer than 3 rounds: interval not meaningful; \
                 fq_codel lower in 2 of 2 rounds",
            ]
        );
    }

    #[test]
    fn fairness_appears_with_several_flows() {
        let mut inp = input(3);
        for s in &mut inp.scenarios {
            let mut second = s.flows[0].clone();
            second.label = "flow 2".into();
            // pfifo: the second flow gets a third of the first's bytes.
            if s.arm == "pfifo" {
                second.bytes.iter_mut().for_each(|b| *b /= 3);
            }
            s.flows.push(second);
        }
        let st = analyse(&inp);
        let f = st
            .figures
            .iter()
            .find(|f| f.arm == "pfifo" && f.figure == Figure::Fairness)
            .expect("fairness figure");
        // Jain of (3, 1): 16 / (2 · 10) = 0.8.
        assert!(matches!(f.pooled.value, CensoredQuantile::Value(v) if (v - 0.8).abs() < 1e-4));
        let c = find(&st, Figure::Fairness);
        assert!(
            matches!(c.point, Bounded::Value(d) if (d - 0.2).abs() < 1e-4),
            "{c:?}"
        );
        assert_eq!(c.b_higher, 3);
        assert!(
            c.sentence.contains("fq_codel higher in 3 of 3 rounds"),
            "{}",
            c.sentence
        );
    }

    #[test]
    fn goodput_is_compared_over_the_rounds_own_window_goodputs() {
        // Bursty delivery (bins of 0 and 2× the rate, as B's application
        // sees after a repaired loss) around steady per-round goodputs of
        // 4.78–5.12 Mbit/s: the interval is over the six rounds' values,
        // never over the bins.
        let mut inp = input(3);
        let per_round = [4.78, 5.12, 4.95, 4.80, 4.90, 5.02];
        for (s, g) in inp.scenarios.iter_mut().zip(per_round) {
            let mean_bytes = g * 1e6 * 0.2 / 8.0;
            s.flows[0].bytes = (0..50)
                .map(|i| {
                    if i % 2 == 0 {
                        0
                    } else {
                        (2.0 * mean_bytes) as u64
                    }
                })
                .collect();
        }
        let st = analyse(&inp);
        for f in st.figures.iter().filter(|f| f.figure == Figure::Goodput) {
            for r in &f.rounds {
                let CensoredQuantile::Value(v) = r.value else {
                    panic!()
                };
                assert!((4.7..5.2).contains(&v), "{v}");
                assert_eq!(r.samples, 30, "the round's bins behind its value");
            }
        }
        let g = find(&st, Figure::Goodput);
        let (Bounded::Value(lo), Bounded::Value(hi)) = g.interval else {
            panic!("{g:?}")
        };
        // pfifo 4.78, 4.95, 4.90; fq_codel 5.12, 4.80, 5.02.
        assert!((lo - (4.80 - 4.95)).abs() < 1e-6, "{lo}");
        assert!((hi - (5.12 - 4.78)).abs() < 1e-6, "{hi}");
        assert!(g.sentence.contains("no clear difference"), "{}", g.sentence);
    }

    #[test]
    fn goodput_uses_bins_inside_the_window() {
        let s = scenario(1, 1, "pfifo", &[], 0);
        let bins = s.goodput_bins();
        assert_eq!(bins.len(), 30);
        assert!(bins.iter().all(|g| (*g - 5.0).abs() < 1e-9));
        assert!((s.window_goodput().unwrap() - 5.0).abs() < 1e-9);
    }
}
