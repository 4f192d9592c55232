//! An arm is its tc words, not its kind (docs/report.md, "Arms"): two
//! settings of one qdisc (`pfifo limit 256` and `pfifo limit 64`) are two
//! arms in every output. [`ArmLabels`] gives each arm of a run the label
//! the report shows and groups by: its kind when no other arm of the run
//! has that kind (`fq_codel`), else its kind and the options that set it
//! apart from the run's other arms of that kind (`pfifo limit 64`).
//! [`ArmLabels::file_slug`] turns a label into the part of a file name that names it.
//!
//! ```
//! use netlab_analysis::ArmLabels;
//! let labels = ArmLabels::new([
//!     ("pfifo", "pfifo limit 256"),
//!     ("pfifo", "pfifo limit 64"),
//!     ("fq_codel", "fq_codel limit 256 target 5ms interval 100ms ecn"),
//! ]);
//! assert_eq!(labels.label("pfifo", "pfifo limit 64"), "pfifo limit 64");
//! assert_eq!(
//!     labels.label("fq_codel", "fq_codel limit 256 target 5ms interval 100ms ecn"),
//!     "fq_codel"
//! );
//! assert_eq!(ArmLabels::file_slug("pfifo limit 64"), "pfifo-limit-64");
//! ```

use netlab_experiment::{Experiment, ExperimentFile};

/// The label of every arm of a run, from the run's arms (kind, words).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArmLabels {
    /// (words, label), in the experiment's order.
    labels: Vec<(String, String)>,
}

impl ArmLabels {
    /// Labels for the arms `(kind, tc words)` of one run.
    pub fn new<'a>(arms: impl IntoIterator<Item = (&'a str, &'a str)>) -> ArmLabels {
        let mut unique: Vec<(&str, String)> = Vec::new();
        for (kind, words) in arms {
            let words = normal(words);
            if !unique.iter().any(|(_, w)| *w == words) {
                unique.push((kind, words));
            }
        }
        let arms = unique;
        let labels = arms
            .iter()
            .map(|(kind, words)| {
                let siblings: Vec<&str> = arms
                    .iter()
                    .filter(|(k, w)| k == kind && w != words)
                    .map(|(_, w)| w.as_str())
                    .collect();
                (words.clone(), label_among(kind, words, &siblings))
            })
            .collect();
        ArmLabels { labels }
    }

    /// Labels for the arms of the experiment a run recorded (none when it
    /// does not resolve: every arm is then labelled by its kind).
    pub fn of_experiment(f: &ExperimentFile) -> ArmLabels {
        match Experiment::from_file(f) {
            Ok(exp) => ArmLabels::new(exp.arms.iter().map(|a| (a.arm.kind(), a.words.as_str()))),
            Err(_) => ArmLabels::default(),
        }
    }

    /// The label of the arm `words` of kind `kind` (its kind when the run's
    /// experiment does not name these words).
    pub fn label(&self, kind: &str, words: &str) -> String {
        let words = normal(words);
        self.labels
            .iter()
            .find(|(w, _)| *w == words)
            .map_or_else(|| kind.to_string(), |(_, l)| l.clone())
    }
}

/// Words with single spaces.
fn normal(words: &str) -> String {
    words.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The options of tc words after the kind: a key with its value (`limit
/// 256`, `target 5ms`: a value starts with a digit) or a flag (`ecn`).
fn options(words: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words.split_whitespace().skip(1) {
        let value = w.starts_with(|c: char| c.is_ascii_digit());
        match out.last_mut() {
            Some(last) if value && !last.contains(' ') => {
                last.push(' ');
                last.push_str(w);
            }
            _ => out.push(w.to_string()),
        }
    }
    out
}

/// `kind` alone without siblings; else the kind and the options of
/// `words` that not every sibling has, in the words' order (the whole
/// words when that leaves none, as for an arm whose options only reorder
/// a sibling's).
fn label_among(kind: &str, words: &str, siblings: &[&str]) -> String {
    if siblings.is_empty() {
        return kind.to_string();
    }
    let theirs: Vec<Vec<String>> = siblings.iter().map(|s| options(s)).collect();
    let own: Vec<String> = options(words)
        .into_iter()
        .filter(|o| !theirs.iter().all(|t| t.contains(o)))
        .collect();
    let label = if own.is_empty() {
        // Every option of ours is a sibling's too: it is the sibling that
        // has more; say ours all, or that we have none.
        if options(words).is_empty() {
            format!("{kind} (defaults)")
        } else {
            words.to_string()
        }
    } else {
        format!("{kind} {}", own.join(" "))
    };
    label
}

impl ArmLabels {
    /// A label as it stands in a file name: letters, digits, `_` and `.`
    /// kept, every other run of characters one `-` (`pfifo limit 64` →
    /// `pfifo-limit-64`, `fq_codel (defaults)` → `fq_codel-defaults`).
    pub fn file_slug(label: &str) -> String {
        let mut out = String::new();
        for c in label.chars() {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                out.push(c);
            } else if !out.is_empty() && !out.ends_with('-') {
                out.push('-');
            }
        }
        while out.ends_with('-') {
            out.pop();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_arm_of_a_kind_is_labelled_by_its_kind() {
        let l = ArmLabels::new([
            ("pfifo", "pfifo limit 256"),
            ("fq_codel", "fq_codel limit 256 target 5ms"),
        ]);
        assert_eq!(l.label("pfifo", "pfifo  limit 256"), "pfifo");
        assert_eq!(
            l.label("fq_codel", "fq_codel limit 256 target 5ms"),
            "fq_codel"
        );
    }

    #[test]
    fn two_settings_of_one_kind_get_the_options_that_differ() {
        let a = "fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms ecn";
        let b = "fq_codel limit 256 memory_limit 1048576 target 2ms interval 100ms ecn";
        let c = "fq_codel limit 256 memory_limit 1048576 target 5ms interval 100ms";
        let l = ArmLabels::new([("fq_codel", a), ("fq_codel", b), ("fq_codel", c)]);
        // a has target 5ms (not b's) and ecn (not c's); so has b ecn.
        assert_eq!(l.label("fq_codel", a), "fq_codel target 5ms ecn");
        assert_eq!(l.label("fq_codel", b), "fq_codel target 2ms ecn");
        assert_eq!(l.label("fq_codel", c), "fq_codel target 5ms");
        let labels: Vec<String> = [a, b, c].iter().map(|w| l.label("fq_codel", w)).collect();
        for (i, x) in labels.iter().enumerate() {
            assert!(labels.iter().skip(i + 1).all(|y| y != x), "{labels:?}");
        }
    }

    #[test]
    fn an_arm_with_fewer_options_than_its_sibling_is_still_told_apart() {
        let l = ArmLabels::new([("pfifo", "pfifo"), ("pfifo", "pfifo limit 64")]);
        assert_eq!(l.label("pfifo", "pfifo"), "pfifo (defaults)");
        assert_eq!(l.label("pfifo", "pfifo limit 64"), "pfifo limit 64");
        let l = ArmLabels::new([("pie", "pie ecn"), ("pie", "pie ecn target 15ms")]);
        assert_eq!(l.label("pie", "pie ecn"), "pie ecn");
        assert_eq!(l.label("pie", "pie ecn target 15ms"), "pie target 15ms");
    }

    #[test]
    fn words_the_experiment_does_not_name_fall_back_to_the_kind() {
        assert_eq!(
            ArmLabels::default().label("cake", "cake bandwidth 5mbit"),
            "cake"
        );
    }

    #[test]
    fn slugs_are_file_name_safe() {
        assert_eq!(ArmLabels::file_slug("pfifo limit 256"), "pfifo-limit-256");
        assert_eq!(
            ArmLabels::file_slug("fq_codel target 2.5ms ecn"),
            "fq_codel-target-2.5ms-ecn"
        );
        assert_eq!(ArmLabels::file_slug("pfifo (defaults)"), "pfifo-defaults");
        assert_eq!(
            ArmLabels::file_slug("cake dual-srchost"),
            "cake-dual-srchost"
        );
    }
}
