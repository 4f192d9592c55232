//! The plain sentence of a comparison: it never claims more than the
//! numbers (an interval that includes 0 is "no clear difference", fewer than
//! three rounds make the interval "not meaningful", a bound stays a bound).

use crate::compare::{Comparison, BOOTSTRAP_REPLICATES, MIN_ROUNDS};
use crate::stats::{fmt_num, Bounded};

fn num(b: Bounded) -> String {
    match b {
        Bounded::Value(v) => fmt_num(v),
        Bounded::AtMost(v) => format!("≤ {}", fmt_num(v)),
        Bounded::AtLeast(v) => format!("≥ {}", fmt_num(v)),
        Bounded::Unknown => "?".into(),
    }
}

/// `fq_codel lower in 3 of 3 rounds` (or mixed, or none compared).
pub fn rounds_text(c: &Comparison) -> String {
    if c.rounds_compared == 0 {
        return "no round has both arms".into();
    }
    let (main, n, other, m) = if c.b_higher > c.b_lower {
        ("higher", c.b_higher, "lower", c.b_lower)
    } else {
        ("lower", c.b_lower, "higher", c.b_higher)
    };
    let mut s = format!("{} {main} in {n} of {} rounds", c.b, c.rounds_compared);
    if m > 0 {
        s.push_str(&format!(", {other} in {m}"));
    }
    let undetermined = c.rounds_compared - c.b_lower - c.b_higher;
    if undetermined > 0 {
        s.push_str(&format!(
            ", {undetermined} undetermined (equal, or both on the censored mass)"
        ));
    }
    s
}

/// The plain sentence of a comparison.
pub fn sentence(c: &Comparison) -> String {
    let unit = c.figure.unit();
    let u = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    let what = format!("{} ({} − {})", c.figure.name(), c.b, c.a);
    let rounds = rounds_text(c);
    if matches!(c.point, Bounded::Unknown) {
        return format!(
            "{what}: no difference can be computed (both arms at the censored mass or without data); {rounds}"
        );
    }
    let point = num(c.point);
    if c.rounds < MIN_ROUNDS {
        return format!(
            "{what}: difference {point}{u}; fewer than {MIN_ROUNDS} rounds: interval not meaningful; {rounds}"
        );
    }
    let (lo, hi) = c.interval;
    if matches!(lo, Bounded::Unknown) || matches!(hi, Bounded::Unknown) {
        return format!(
            "{what}: difference {point}{u}; interval not estimable ({} of {} resamples had both arms on the censored mass); {rounds}",
            c.unknown_resamples,
            BOOTSTRAP_REPLICATES
        );
    }
    let above = matches!(lo, Bounded::Value(x) | Bounded::AtLeast(x) if x > 0.0);
    let below = matches!(hi, Bounded::Value(x) | Bounded::AtMost(x) if x < 0.0);
    let iv = format!("[{}, {}]", num(lo), num(hi));
    if above || below {
        format!("{what}: difference {point}{u} {iv}, {rounds}")
    } else {
        format!("{what}: no clear difference: interval includes 0 ({point}{u} {iv}); {rounds}")
    }
}
