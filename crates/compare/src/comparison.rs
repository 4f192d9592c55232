//! What a comparison of arms holds (method §12.3–§12.5): each figure per
//! arm and round with its counts ([`ArmFigure`], [`Value`]), each pair's
//! difference with its interval ([`Comparison`]) and the block of them
//! ([`Statistics`]). The types only: `compare` computes them from the
//! rounds, `sentence` says them.

use crate::window::Sampling;
use netlab_stats::{Bounded, CensoredQuantile};

/// Fewer rounds per arm than this: the interval is printed as not meaningful.
pub(crate) const MIN_ROUNDS: usize = 3;
/// 1 − the wanted confidence of the interval (the level reached is in each
/// [`Comparison`]: 3 vs 3 rounds allow 90 % at most).
pub(crate) const ALPHA: f64 = 0.05;

/// A figure compared between arms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Loaded-phase probe delay median: the one-way delay of the requests
    /// that reached B where every round has their fates
    /// ([`DelayBasis::OneWayDelivered`]), else the RTT with timeouts
    /// censored.
    LoadedP50,
    /// Loaded-phase probe delay, 95th percentile (as [`Figure::LoadedP50`]).
    LoadedP95,
    /// The share of loaded probe requests that never reached B, % (with
    /// fates only): loss compared apart from delay.
    Loss,
    /// Goodput over the measured window (one value per round: its bytes
    /// over the window, the mean of its 200 ms bins).
    Goodput,
    /// The arm's drops inside the measured window
    /// ([`Scenario::window_counts`]).
    Drops,
    /// Jain's index over the flows' bytes in the window (several flows only).
    Fairness,
}

impl Figure {
    /// Name in the report.
    pub fn name(&self) -> &'static str {
        match self {
            Figure::LoadedP50 => "loaded probe RTT p50",
            Figure::LoadedP95 => "loaded probe RTT p95",
            Figure::Loss => "loaded probe loss",
            Figure::Goodput => "goodput",
            Figure::Drops => "drops in the measured window (arm)",
            Figure::Fairness => "flow fairness (Jain)",
        }
    }

    /// Unit.
    pub fn unit(&self) -> &'static str {
        match self {
            Figure::LoadedP50 | Figure::LoadedP95 => "ms",
            Figure::Loss => "%",
            Figure::Goodput => "Mbit/s",
            Figure::Drops => "packets",
            Figure::Fairness => "",
        }
    }
}

/// What the delay figures measure ([`Statistics::delay`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayBasis {
    /// Every round carries its requests' fates: the one-way A→B delay of
    /// the requests that reached B, late ones at their exact delay; loss
    /// is [`Figure::Loss`] (method §5.8).
    OneWayDelivered,
    /// The probe's RTT with a timeout censored at the timeout (results
    /// without B's receive log, or the isochronous probe alone).
    RttCensored,
}

impl DelayBasis {
    /// A delay figure's name under this basis.
    pub fn name(&self, f: Figure) -> &'static str {
        match (self, f) {
            (DelayBasis::OneWayDelivered, Figure::LoadedP50) => {
                "loaded one-way delay p50 (delivered probes)"
            }
            (DelayBasis::OneWayDelivered, Figure::LoadedP95) => {
                "loaded one-way delay p95 (delivered probes)"
            }
            _ => f.name(),
        }
    }
}
/// A figure's value with the counts behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// Round (0 for the pooled value).
    pub round: u32,
    /// The value (a bound when it falls on the censored mass).
    pub value: CensoredQuantile,
    /// Samples behind it.
    pub samples: usize,
    /// Censored samples (probe timeouts) among them.
    pub timeouts: usize,
}

/// One figure of one arm.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmFigure {
    /// Arm kind.
    pub arm: String,
    /// Figure.
    pub figure: Figure,
    /// Per round, in round order.
    pub rounds: Vec<Value>,
    /// Pooled over every round.
    pub pooled: Value,
}

/// The difference `b − a` of one figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Figure.
    pub figure: Figure,
    /// Reference arm.
    pub a: String,
    /// Compared arm (the difference is `b − a`).
    pub b: String,
    /// What the delay figures measure.
    pub delay: DelayBasis,
    /// The Hodges–Lehmann estimate of the shift: the median of the
    /// pairwise differences between the rounds, the estimator the
    /// interval is built on (never a pooled difference).
    pub point: Bounded,
    /// Why no difference is claimed although the interval may exclude 0:
    /// a round's value is a known artefact (goodput above the payload
    /// ceiling), or the shift is under the measurement's resolution.
    pub not_claimed: Option<String>,
    /// The exact rank interval over the rounds' values
    /// ([`netlab_stats::shift_interval`]); endpoints may be bounds.
    pub interval: (Bounded, Bounded),
    /// The interval's confidence level (0.9 for 3 vs 3 rounds; 0 without
    /// rounds on both sides).
    pub level: f64,
    /// Rounds with a value behind the interval, `(a's, b's)`.
    pub interval_rounds: (usize, usize),
    /// Round pairs with both values on the censored mass (unknown).
    pub unknown_pairs: usize,
    /// Rounds per arm (the smaller of the two).
    pub rounds: usize,
    /// Rounds where `b` was lower / higher / undetermined or equal.
    pub b_lower: usize,
    /// Rounds where `b` was higher.
    pub b_higher: usize,
    /// Rounds compared (both arms present).
    pub rounds_compared: usize,
    /// The sentence.
    pub sentence: String,
    /// The probe and weights the delay figures come from (`None` when the
    /// rounds share none).
    pub sampling: Option<Sampling>,
}

impl Comparison {
    /// The claim the interval supports, if it excludes 0: `b` is lower
    /// (`Some((true, m))`) or higher (`Some((false, m))`) by at least `m`,
    /// the interval's bound nearest zero (method §12.5). `None` when the
    /// interval includes 0, is unknown, or comes from too few rounds.
    pub fn supported_shift(&self) -> Option<(bool, f64)> {
        if self.rounds < MIN_ROUNDS || self.not_claimed.is_some() {
            return None;
        }
        match self.interval {
            (_, Bounded::Value(x) | Bounded::AtMost(x)) if x < 0.0 => Some((true, -x)),
            (Bounded::Value(x) | Bounded::AtLeast(x), _) if x > 0.0 => Some((false, x)),
            _ => None,
        }
    }
}

/// Everything the comparison block shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Statistics {
    /// Arms in order of first appearance.
    pub arms: Vec<String>,
    /// Per arm and figure.
    pub figures: Vec<ArmFigure>,
    /// Per pair of arms and figure.
    pub comparisons: Vec<Comparison>,
    /// Scenarios left out because they failed.
    pub failed_scenarios: Vec<u32>,
    /// What the delay figures measure.
    pub delay: DelayBasis,
    /// Arms whose rounds fall into different standing states (method
    /// §12.6), each with its states (`1 cut: r2; 2 cuts: r3`): no pooled
    /// value is given for them.
    pub split: Vec<(String, String)>,
    /// The probe and weights the delay figures come from.
    pub sampling: Option<Sampling>,
}

/// A figure's name with, for a delay, the sampling it comes from: one
/// name for the comparisons and the figures table.
pub(crate) fn figure_name(delay: DelayBasis, figure: Figure, sampling: Option<Sampling>) -> String {
    let name = delay.name(figure);
    match (figure, sampling) {
        (Figure::LoadedP50 | Figure::LoadedP95, Some(s)) => {
            let how = match s {
                Sampling::Isochronous { .. } => "isochronous probe, time-uniform",
                Sampling::StopAndWaitTimeWeighted => "stop-and-wait probe, time-weighted",
                // The method's own figure, unchanged (method §12.11).
                Sampling::StopAndWaitPerRequest => return name.to_string(),
            };
            match name.strip_suffix(')') {
                Some(open) => format!("{open}; {how})"),
                None => format!("{name} ({how})"),
            }
        }
        (Figure::Loss, Some(Sampling::Isochronous { .. })) => "loaded isochronous slot loss".into(),
        _ => name.to_string(),
    }
}

impl Comparison {
    /// The figure's name with, for a delay, the sampling it comes from:
    /// `loaded one-way delay p50 (delivered; isochronous probe, time-uniform)`.
    pub fn figure_name(&self) -> String {
        figure_name(self.delay, self.figure, self.sampling)
    }

    /// Fewer rounds per arm than this: the interval is printed as not
    /// meaningful.
    pub const MIN_ROUNDS: usize = MIN_ROUNDS;
}

impl Statistics {
    /// How the intervals are computed, in one paragraph (index.html's
    /// comparison block; method §12.3).
    pub fn method_text() -> String {
        format!(
            "Differences are second arm − first arm; the point estimate is the Hodges–Lehmann shift, the median of \
             the pairwise differences between the two arms' rounds, the estimator the interval is built on. Intervals: exact, distribution-free \
             intervals for the shift between the arms' per-round values (Mann–Whitney inverted: order statistics \
             of the pairwise differences between rounds), at the highest level up to {:.0} % that the round counts \
             allow — 3 rounds against 3 allow 90 % at most, 4 against 4 97 %. A round is the unit: probes and 200 ms \
             bins inside a round are autocorrelated and are not resampled. A round's quantile on the censored mass \
             is a bound (≥), and so is every difference and endpoint it touches. A sentence's \"by at least\" is the \
             interval's endpoint nearest zero. With fewer than {MIN_ROUNDS} rounds per arm the interval is not meaningful.",
            (1.0 - ALPHA) * 100.0
        )
    }
}
