//! Plain figures of uncensored values: medians, Jain's fairness index, and
//! the compact number format every text of the report and summary uses.

/// Compact number: three significant digits or at most one decimal for ≥ 100.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// The median: the middle value of an odd count, the mean of the middle two
/// of an even one; `None` when empty. Sorts `v` in place.
pub fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The lower median: the middle value of an odd count, the lower of the
/// middle two of an even one (always a value that was observed); `None`
/// when empty. Sorts `v` in place.
pub fn lower_median(v: &mut [f64]) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| v[(v.len() - 1) / 2])
}

/// Jain's fairness index `(Σx)² / (n·Σx²)` of per-flow amounts: 1 when
/// every share is equal, 1/n when one flow takes everything; `None` for no
/// values or all zero.
pub fn jain_index(x: &[f64]) -> Option<f64> {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 == 0.0 {
        None
    } else {
        Some(s * s / (x.len() as f64 * s2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(lower_median(&mut [4.0, 1.0, 3.0, 2.0]), Some(2.0));
        assert_eq!(lower_median(&mut [5.0]), Some(5.0));
        assert_eq!(median(&mut []), None);
        assert_eq!(lower_median(&mut []), None);
        // Sorted in place: callers read the range afterwards.
        let mut v = vec![9.0, -1.0, 4.0];
        assert_eq!(lower_median(&mut v), Some(4.0));
        assert_eq!(v, [-1.0, 4.0, 9.0]);
    }

    #[test]
    fn compact_numbers() {
        assert_eq!(fmt_num(1234.4), "1234");
        assert_eq!(fmt_num(12.345), "12.3");
        assert_eq!(fmt_num(1.2345), "1.23");
        assert_eq!(fmt_num(0.12345), "0.123");
        assert_eq!(fmt_num(-480.0), "-480");
    }

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_a_hog() {
        assert_eq!(jain_index(&[1.0, 1.0]), Some(1.0));
        assert_eq!(jain_index(&[1.0, 0.0]), Some(0.5));
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
        assert!((jain_index(&[2.0, 2.0, 2.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((jain_index(&[4.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        // (1+3)² / (2·(1+9)) = 0.8
        assert!((jain_index(&[1.0, 3.0]).unwrap() - 0.8).abs() < 1e-12);
    }
}
