//! The numbers on a figure's axes: tick labels ([`tick`], and
//! [`tick_label`] with as many decimals as a scale's spacing needs) and the
//! value scales of the sweep figures ([`Scale`]: logarithmic or linear,
//! [`y_scale`], [`x_scale`]). The bottom of the figures' modules: it draws
//! nothing and imports none of them.

use netlab_compare::sweep::SweepAxis;

/// A tick label: whole numbers without decimals (`1000`, not `1000.0`),
/// others with the fewest decimals that show them (`0.5`, `0.05`).
pub fn tick(v: &f64) -> String {
    let v = *v;
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else if (v * 10.0 - (v * 10.0).round()).abs() < 1e-6 {
        format!("{v:.1}")
    } else if (v * 100.0 - (v * 100.0).round()).abs() < 1e-6 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// A value axis: logarithmic or linear, its range (drawn units) and ticks.
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    /// Logarithmic.
    pub log: bool,
    /// Range in drawn units (log10 of the value when logarithmic).
    pub range: (f64, f64),
    /// Ticks in drawn units.
    pub ticks: Vec<f64>,
}

impl Scale {
    /// A value in drawn units.
    pub fn to(&self, v: f64) -> f64 {
        if self.log {
            v.log10()
        } else {
            v
        }
    }

    /// A drawn unit back to a value.
    pub fn from(&self, t: f64) -> f64 {
        if self.log {
            10f64.powf(t)
        } else {
            t
        }
    }
}

/// A scale as a plotters coordinate: drawn units mapped linearly, its
/// own ticks (a value axis, or the sweep's values on x).
impl plotters::coord::ranged1d::Ranged for Scale {
    type ValueType = f64;
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let (a, b) = self.range;
        let t = if b > a { (v - a) / (b - a) } else { 0.5 };
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.0..self.range.1
    }
}

/// The y scale for values `levels` (values and bounds): logarithmic when
/// they are all positive and span 10× or more (docs/report.md, "Sweep figures").
pub fn y_scale(levels: &[f64]) -> Scale {
    let lo = levels.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = levels.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        return Scale {
            log: false,
            range: (0.0, 1.0),
            ticks: vec![0.0, 0.5, 1.0],
        };
    }
    if lo > 0.0 && hi / lo >= 10.0 {
        let (a, b) = ((lo / 1.4).log10(), (hi * 1.4).log10());
        let mut ticks = Vec::new();
        for k in a.floor() as i32..=b.ceil() as i32 {
            for m in [1.0, 2.0, 5.0] {
                let t = (m * 10f64.powi(k)).log10();
                if t >= a && t <= b {
                    ticks.push(t);
                }
            }
        }
        if ticks.len() > 8 {
            ticks.retain(|t| (t - t.round()).abs() < 1e-9);
        }
        return Scale {
            log: true,
            range: (a, b),
            ticks,
        };
    }
    // Levels a few ulps apart are one level: a span below the values'
    // precision gives a step that adding to a tick does not change (two
    // goodputs of 4.755232 Mbit/s one ulp apart once made the tick loop
    // run until the guest's OOM killer ended the run).
    let span = if hi - lo > hi.abs().max(lo.abs()) * 1e-9 {
        hi - lo
    } else {
        (hi.abs() * 0.2).max(1.0)
    };
    // The range never narrows below what the measurement resolves: at
    // least 5 % of the values' size, centred on them (a Jain's index of
    // 0.999–1 drawn across the whole axis looked like a cliff).
    let least = MIN_SPAN_SHARE * hi.abs().max(lo.abs());
    let pad = ((least - span) / 2.0).max(0.0);
    let mut a = lo - 0.1 * span - pad;
    let b = hi + 0.1 * span + pad;
    if lo >= 0.0 && a < 0.0 {
        a = 0.0;
    }
    let raw = (b - a) / 5.0;
    if !raw.is_finite() {
        // Levels near f64's limits: no round ticks, only the ends.
        return Scale {
            log: false,
            range: (a, b),
            ticks: vec![a, b],
        };
    }
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    // Each tick from its own index (a tick added to the last would gather
    // rounding error), and never more than the span holds.
    let first = (a / step).ceil();
    let count = ((b + 1e-9) / step).floor() - first + 1.0;
    let ticks = (0..count.clamp(0.0, MAX_TICKS as f64) as usize)
        .map(|k| (first + k as f64) * step)
        .collect();
    Scale {
        log: false,
        range: (a, b),
        ticks,
    }
}

/// The narrowest linear y range, as a share of the values' size.
pub const MIN_SPAN_SHARE: f64 = 0.05;

/// A tick label with as many decimals as the ticks' spacing needs, so
/// adjacent labels always differ (`4.70`, `4.75`, not `4.755`, `4.755`).
pub fn tick_label(scale: &Scale, t: f64) -> String {
    let v = scale.from(t);
    if scale.log || scale.ticks.len() < 2 {
        return tick(&v);
    }
    let step = scale
        .ticks
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(f64::INFINITY, f64::min);
    if !(step.is_finite() && step > 0.0) {
        return tick(&v);
    }
    let decimals = (-step.log10().floor()).clamp(0.0, 12.0) as usize;
    // A step of 0.25 needs two decimals, not one.
    let decimals = (decimals..=12)
        .find(|d| {
            let k = 10f64.powi(*d as i32);
            ((step * k) - (step * k).round()).abs() < 1e-6
        })
        .unwrap_or(decimals);
    format!("{v:.decimals$}")
}

/// The most ticks a linear y axis gets (a span of 5 steps, plus its ends
/// and rounding, gives 5 to 7).
const MAX_TICKS: usize = 12;

/// The x scale of an axis: its values' positions (numbers, or indices for
/// words), logarithmic where they span 10× or more ([`SweepAxis::is_log`]);
/// a tick at every value (at most 8, evenly thinned).
pub fn x_scale(axis: &SweepAxis) -> Scale {
    let log = axis.is_log();
    let pos: Vec<f64> = axis
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let x = v.x.unwrap_or(i as f64);
            if log {
                x.log10()
            } else {
                x
            }
        })
        .collect();
    let lo = pos.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = pos.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pad = if hi > lo { (hi - lo) * 0.08 } else { 0.5 };
    let step = pos.len().div_ceil(8).max(1);
    let ticks = pos.iter().copied().step_by(step).collect();
    Scale {
        log,
        range: (lo - pad, hi + pad),
        ticks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrow_spread_keeps_five_percent_and_its_labels_differ() {
        // The goodputs and Jain's indices the review found drawn as cliffs.
        for levels in [
            vec![4.7537, 4.7552, 4.7549],
            vec![0.999, 1.0, 0.9995],
            vec![0.0021, 0.00212],
            vec![250.0, 251.0],
        ] {
            let s = y_scale(&levels);
            let hi = levels.iter().copied().fold(f64::MIN, f64::max);
            assert!(
                s.range.1 - s.range.0 >= MIN_SPAN_SHARE * hi - 1e-12,
                "{levels:?}: {s:?}"
            );
            let labels: Vec<String> = s.ticks.iter().map(|t| tick_label(&s, *t)).collect();
            assert!(labels.len() >= 2, "{levels:?}: {labels:?}");
            for w in labels.windows(2) {
                assert_ne!(w[0], w[1], "{levels:?}: {labels:?}");
            }
        }
    }

    #[test]
    fn levels_an_ulp_apart_get_a_few_ticks_not_a_loop() {
        // The levels of the run whose report the guest's OOM killer ended.
        let s = y_scale(&[4.755232, 4.7552319999999995]);
        assert!(!s.log);
        assert!((2..=MAX_TICKS).contains(&s.ticks.len()), "{s:?}");
        assert!(s.range.0 < 4.755232 && s.range.1 > 4.755232, "{s:?}");
        // One ulp apart at every magnitude, equal, near f64's limits.
        for v in [
            1e-300_f64, 1e-9, 0.5, 1.0, 7.3, 1e6, 1e15, 1e300, -2.5, -1e12,
        ] {
            for levels in [[v, v], [v, f64::from_bits(v.to_bits() + 1)]] {
                let s = y_scale(&levels);
                assert!(s.ticks.len() <= MAX_TICKS, "{levels:?}: {s:?}");
                assert!(s.range.0 <= v && v <= s.range.1, "{levels:?}: {s:?}");
            }
        }
        let s = y_scale(&[-1e308, 1e308]);
        assert!(s.ticks.len() <= MAX_TICKS, "{s:?}");
        // An ordinary span keeps its round ticks.
        let s = y_scale(&[0.5, 1.0]);
        let near = |x: f64, y: f64| (x - y).abs() < 1e-12;
        assert!(near(s.range.0, 0.45) && near(s.range.1, 1.05), "{s:?}");
        assert_eq!(s.ticks.len(), 3, "{s:?}");
        assert!(
            s.ticks
                .iter()
                .zip([0.6, 0.8, 1.0])
                .all(|(t, w)| near(*t, w)),
            "{s:?}"
        );
    }

    #[test]
    fn any_finite_levels_get_a_bounded_scale_that_holds_them() {
        // Seeded sets of 1-6 levels: a magnitude from 1e-300 to 1e300,
        // either sign, and neighbours 0-4 ulps, a little, or far apart.
        let mut rng = netlab_stats::SplitMix64::new(31);
        for _ in 0..20_000 {
            let exp = rng.below(601) as i32 - 300;
            let sign = if rng.below(4) == 0 { -1.0 } else { 1.0 };
            let base = sign * 10f64.powi(exp) * (1.0 + rng.below(1000) as f64 / 100.0);
            let levels: Vec<f64> = (0..1 + rng.below(6))
                .map(|_| match rng.below(3) {
                    0 => f64::from_bits(base.to_bits() + rng.below(5) as u64),
                    1 => base * (1.0 + rng.below(100) as f64 * 1e-6),
                    _ => base * rng.below(50) as f64,
                })
                .filter(|v| v.is_finite())
                .collect();
            let s = y_scale(&levels);
            assert!(s.ticks.len() <= MAX_TICKS, "{levels:?}: {s:?}");
            let (a, b) = s.range;
            assert!(
                a.is_finite() && b.is_finite() && a <= b,
                "{levels:?}: {s:?}"
            );
            for v in &levels {
                let v = if s.log { v.log10() } else { *v };
                assert!(a <= v && v <= b, "{levels:?}: {s:?}");
            }
        }
    }
}
