//! The plain sentences of a comparison: they never claim more than the
//! interval (method §12.5). An interval that includes 0 is "no clear
//! difference"; one that excludes it gives the magnitude of its endpoint
//! nearest zero ("lower by at least 384 ms"), never the point estimate;
//! the level is the one the round counts reached (3 vs 3 rounds: 90 %);
//! fewer than three rounds make the interval "not meaningful"; a bound
//! stays a bound.

use crate::comparison::{Comparison, ALPHA, MIN_ROUNDS};
use netlab_stats::{fmt_num, Bounded};

fn num(b: Bounded) -> String {
    match b {
        Bounded::Value(v) => fmt_num(v),
        Bounded::AtMost(v) => format!("≤ {}", fmt_num(v)),
        Bounded::AtLeast(v) => format!("≥ {}", fmt_num(v)),
        Bounded::Unknown => "?".into(),
    }
}

/// An interval endpoint at [`fmt_num`]'s precision, rounded outward (the
/// lower endpoint down, the upper up), so the printed interval contains the
/// computed one and agrees with "by at least".
fn endpoint_text(b: Bounded, upper: bool) -> String {
    let out = |v: f64| {
        let a = v.abs();
        let decimals: i32 = if a >= 100.0 {
            0
        } else if a >= 10.0 {
            1
        } else if a >= 1.0 {
            2
        } else {
            3
        };
        let scale = 10f64.powi(decimals);
        let r = if upper {
            (v * scale - 1e-9).ceil() / scale
        } else {
            (v * scale + 1e-9).floor() / scale
        };
        format!("{:.*}", decimals as usize, r)
    };
    match b {
        Bounded::Value(v) => out(v),
        Bounded::AtMost(v) => format!("≤ {}", out(v)),
        Bounded::AtLeast(v) => format!("≥ {}", out(v)),
        Bounded::Unknown => "?".into(),
    }
}

/// The size of a point difference: `588`, `≥ 993` (a bound stays one).
fn magnitude(b: Bounded) -> String {
    match b {
        Bounded::Value(v) => fmt_num(v.abs()),
        Bounded::AtMost(v) | Bounded::AtLeast(v) => format!("≥ {}", fmt_num(v.abs())),
        Bounded::Unknown => "?".into(),
    }
}

/// `90 %` (one decimal when the level is not whole: `97.1 %`).
pub(crate) fn level_text(level: f64) -> String {
    let pct = level * 100.0;
    if (pct - pct.round()).abs() < 0.05 {
        format!("{:.0} %", pct)
    } else {
        format!("{:.1} %", pct)
    }
}

/// `90 % interval [-503, -501] over 3 vs 3 rounds` (`iv` and `tail` may
/// be empty), then, when the level falls short of the wanted 95 %, why:
/// `; 3 vs 3 rounds allow no more than 90 %`.
fn level_phrase(c: &Comparison, iv: &str, tail: &str) -> String {
    let (m, n) = c.interval_rounds;
    let mut s = format!(
        "{} interval{iv} over {m} vs {n} rounds{tail}",
        level_text(c.level)
    );
    if c.level < 1.0 - ALPHA - 1e-9 {
        s.push_str(&format!(
            "; {m} vs {n} rounds allow no more than {}",
            level_text(c.level)
        ));
    }
    s
}

/// A magnitude the interval guarantees, rounded toward zero at
/// [`fmt_num`]'s precision, so the text never claims more than the bound
/// (384.6 is "384.6"… or "384", never "385").
pub(crate) fn at_least_text(v: f64) -> String {
    let a = v.abs();
    let decimals = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        3
    };
    let scale = 10f64.powi(decimals);
    // A hair of slack so 501.2 stays 501.2 through the binary fraction.
    let t = ((a * scale) + 1e-9).floor() / scale;
    format!("{:.*}", decimals as usize, t.copysign(v))
}

/// `fq_codel lower in 3 of 3 rounds` (or mixed, or none compared).
pub(crate) fn rounds_text(c: &Comparison) -> String {
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
pub(crate) fn sentence(c: &Comparison) -> String {
    let unit = c.figure.unit();
    let u = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    let what = format!("{} ({} − {})", c.figure_name(), c.b, c.a);
    let rounds = rounds_text(c);
    if matches!(c.point, Bounded::Unknown) {
        return format!(
            "{what}: no difference can be computed (both arms at the censored mass or without data); {rounds}"
        );
    }
    let point = num(c.point);
    if let Some(why) = &c.not_claimed {
        return format!(
            "{what}: no difference claimed: {why} (shift estimate {point}{u}); {rounds}"
        );
    }
    if c.rounds < MIN_ROUNDS {
        return format!(
            "{what}: shift estimate {point}{u}; fewer than {MIN_ROUNDS} rounds: interval not meaningful; {rounds}"
        );
    }
    let (lo, hi) = c.interval;
    if matches!(lo, Bounded::Unknown) && matches!(hi, Bounded::Unknown) {
        let (m, n) = c.interval_rounds;
        return format!(
            "{what}: shift estimate {point}{u}; interval not estimable ({} of {} round pairs had both arms on the censored mass); {rounds}",
            c.unknown_pairs,
            m * n
        );
    }
    let iv = format!(
        "[{}, {}]",
        endpoint_text(lo, false),
        endpoint_text(hi, true)
    );
    match c.supported_shift() {
        Some((lower, by)) => format!(
            "{what}: {} {} by at least {}{u} (shift estimate {point}{u}; {}); {rounds}",
            c.b,
            if lower { "lower" } else { "higher" },
            at_least_text(by),
            level_phrase(c, &format!(" {iv}"), "")
        ),
        None => format!(
            "{what}: no clear difference: interval includes 0 ({point}{u}; {}); {rounds}",
            level_phrase(c, &format!(" {iv}"), "")
        ),
    }
}

/// The headline's verdict on the loaded median (without the rounds'
/// states, which the headline adds): which arm is lower and by at least
/// how much the interval allows.
/// What the rounds show where they give no verdict (method §12.5): fewer
/// than [`MIN_ROUNDS`] rounds per arm, or rounds that go both ways. `None`
/// when a verdict may be given ([`verdict_clause`]).
pub(crate) fn reading_clause(c: &Comparison) -> Option<String> {
    let both_ways = c.b_lower > 0 && c.b_higher > 0;
    if c.rounds >= MIN_ROUNDS && !both_ways {
        return None;
    }
    let median = match c.delay {
        crate::comparison::DelayBasis::OneWayDelivered => {
            "loaded one-way median (delivered probes)"
        }
        crate::comparison::DelayBasis::RttCensored => "loaded median",
    };
    let why = match (c.rounds < MIN_ROUNDS, both_ways) {
        (true, true) => format!(
            "{} round{} per arm (fewer than {MIN_ROUNDS} give no interval), and the rounds go both ways",
            c.rounds,
            if c.rounds == 1 { "" } else { "s" }
        ),
        (true, false) => format!(
            "{} round{} per arm (fewer than {MIN_ROUNDS} give no interval)",
            c.rounds,
            if c.rounds == 1 { "" } else { "s" }
        ),
        _ => "the rounds go both ways".to_string(),
    };
    let point = match c.point {
        Bounded::Unknown => String::new(),
        p => format!("; shift estimate {} ms", signed(p)),
    };
    Some(format!(
        "{} vs {}, {median}: no verdict, {why}: {}{point}",
        c.b,
        c.a,
        rounds_text(c)
    ))
}

/// A shift as a signed number, a bound with its sign (`≤ -995`).
fn signed(b: Bounded) -> String {
    match b {
        Bounded::Value(v) => fmt_num(v),
        Bounded::AtMost(v) => format!("≤ {}", fmt_num(v)),
        Bounded::AtLeast(v) => format!("≥ {}", fmt_num(v)),
        Bounded::Unknown => "?".into(),
    }
}

pub(crate) fn verdict_clause(c: &Comparison) -> String {
    let rounds = rounds_text(c);
    let median = match (c.delay, c.sampling) {
        (
            crate::comparison::DelayBasis::OneWayDelivered,
            Some(crate::window::Sampling::Isochronous { .. }),
        ) => "window one-way median (isochronous probe, delivered slots)",
        (
            crate::comparison::DelayBasis::OneWayDelivered,
            Some(crate::window::Sampling::StopAndWaitTimeWeighted),
        ) => "window one-way median (stop-and-wait probe, delivered requests, time-weighted)",
        (crate::comparison::DelayBasis::OneWayDelivered, None) => {
            "loaded one-way median (delivered probes)"
        }
        (
            crate::comparison::DelayBasis::RttCensored,
            Some(crate::window::Sampling::Isochronous { .. }),
        ) => "window RTT median (isochronous probe)",
        (
            crate::comparison::DelayBasis::RttCensored,
            Some(crate::window::Sampling::StopAndWaitTimeWeighted),
        ) => "window RTT median (stop-and-wait probe, time-weighted)",
        (
            crate::comparison::DelayBasis::RttCensored,
            Some(crate::window::Sampling::StopAndWaitPerRequest),
        ) => "loaded median",
        (
            crate::comparison::DelayBasis::OneWayDelivered,
            Some(crate::window::Sampling::StopAndWaitPerRequest),
        ) => "loaded one-way median (delivered probes)",
        (crate::comparison::DelayBasis::RttCensored, None) => "loaded median",
    };
    if matches!(c.point, Bounded::Unknown) {
        return format!(
            "{} vs {}: the {median}s cannot be compared (both on the censored mass or without data)",
            c.b, c.a
        );
    }
    if c.rounds < MIN_ROUNDS {
        let lower = matches!(c.point, Bounded::Value(x) | Bounded::AtMost(x) if x < 0.0);
        return format!(
            "{}'s {median} is {} than {}'s, shift estimate {} ms, from fewer than {MIN_ROUNDS} rounds (no interval); {rounds}",
            c.b,
            if lower { "lower" } else { "higher" },
            c.a,
            magnitude(c.point),
        );
    }
    match c.supported_shift() {
        Some((lower, by)) => format!(
            "{} has the {} {median} than {}, by at least {} ms (the {}); {rounds}",
            c.b,
            if lower { "lower" } else { "higher" },
            c.a,
            at_least_text(by),
            level_phrase(c, "", " excludes 0")
        ),
        None => format!(
            "{} vs {}: no clear difference in the {median} (the {}); {rounds}",
            c.b,
            c.a,
            level_phrase(c, "", " includes 0")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Figure;

    /// The seed's guest run (method §12.5): a run whose loaded-median difference
    /// was "≤ -995 ms" with the interval "[≤ -993, -384]", which the old
    /// verdict wrote as "lower … by ≥ 995 ms (95 % interval excludes 0)".
    fn issue_case() -> Comparison {
        Comparison {
            figure: Figure::LoadedP50,
            a: "pfifo".into(),
            b: "fq_codel".into(),
            delay: crate::comparison::DelayBasis::RttCensored,
            sampling: None,
            point: Bounded::AtMost(-995.0),
            not_claimed: None,
            interval: (Bounded::AtMost(-993.0), Bounded::Value(-384.0)),
            level: 0.9,
            interval_rounds: (3, 3),
            unknown_pairs: 0,
            rounds: 3,
            b_lower: 3,
            b_higher: 0,
            rounds_compared: 3,
            sentence: String::new(),
        }
    }

    #[test]
    fn the_magnitude_is_the_interval_bound_nearest_zero() {
        let c = issue_case();
        assert_eq!(c.supported_shift(), Some((true, 384.0)));
        let v = verdict_clause(&c);
        assert_eq!(
            v,
            "fq_codel has the lower loaded median than pfifo, by at least 384 ms (the 90 % interval \
             over 3 vs 3 rounds excludes 0; 3 vs 3 rounds allow no more than 90 %); fq_codel lower \
             in 3 of 3 rounds"
        );
        assert!(!v.contains("995"), "{v}");
        let s = sentence(&c);
        assert!(
            s.contains("fq_codel lower by at least 384 ms (shift estimate ≤ -995 ms; 90 % interval [≤ -993, -384]"),
            "{s}"
        );
        // Mirrored: higher by at least the lower endpoint.
        let mut up = c.clone();
        up.point = Bounded::AtLeast(995.0);
        up.interval = (Bounded::AtLeast(384.6), Bounded::AtLeast(993.0));
        up.level = 0.971;
        assert_eq!(up.supported_shift(), Some((false, 384.6)));
        let v = verdict_clause(&up);
        assert!(v.contains("higher loaded median than pfifo, by at least 384 ms (the 97.1 % interval over 3 vs 3 rounds excludes 0)"), "{v}");
        assert!(!v.contains("allow no more"), "{v}");
    }

    #[test]
    fn an_interval_that_touches_zero_or_is_unknown_claims_nothing() {
        let mut c = issue_case();
        c.interval = (Bounded::AtMost(-993.0), Bounded::Value(12.0));
        assert_eq!(c.supported_shift(), None);
        assert!(verdict_clause(&c)
            .contains("no clear difference in the loaded median (the 90 % interval"));
        assert!(sentence(&c).contains("no clear difference: interval includes 0"));
        // An upper endpoint only known as "≥ x" never supports "lower".
        c.interval = (Bounded::AtMost(-993.0), Bounded::AtLeast(-400.0));
        assert_eq!(c.supported_shift(), None);
        c.interval = (Bounded::Unknown, Bounded::Unknown);
        c.unknown_pairs = 9;
        assert!(sentence(&c).contains("interval not estimable (9 of 9 round pairs"));
        // Two rounds: no interval, whatever it says.
        let mut c = issue_case();
        c.rounds = 2;
        assert_eq!(c.supported_shift(), None);
        assert!(verdict_clause(&c)
            .contains("shift estimate ≥ 995 ms, from fewer than 3 rounds (no interval)"));
    }

    #[test]
    fn interval_endpoints_round_outward() {
        assert_eq!(endpoint_text(Bounded::AtMost(-985.68), true), "≤ -985");
        assert_eq!(endpoint_text(Bounded::AtMost(-995.38), false), "≤ -996");
        assert_eq!(endpoint_text(Bounded::Value(-0.8681), false), "-0.869");
        assert_eq!(endpoint_text(Bounded::Value(0.3501), true), "0.351");
        assert_eq!(endpoint_text(Bounded::Value(-384.0), true), "-384");
    }

    #[test]
    fn at_least_rounds_toward_zero() {
        assert_eq!(at_least_text(384.9), "384");
        assert_eq!(at_least_text(501.2), "501");
        assert_eq!(at_least_text(12.39), "12.3");
        assert_eq!(at_least_text(0.0996), "0.099");
        assert_eq!(at_least_text(-0.1509), "-0.150");
        assert_eq!(at_least_text(2.0), "2.00");
    }
}
