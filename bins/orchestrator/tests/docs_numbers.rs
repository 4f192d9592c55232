//! The numbers the docs state about the code are read from the code:
//! - every `schema_version N` docs/architecture.md states is the version
//!   netlab-results writes (`SCHEMA_VERSION`);
//! - every list of versions it gives beside `split` or `SPLIT_VERSIONS`
//!   is `SPLIT_VERSIONS`;
//! - the target count fuzz/README.md states ("There are N") is the number
//!   of `[[bin]]` targets in fuzz/Cargo.toml, and of files in
//!   fuzz/fuzz_targets/;
//! - the isochronous probe's frame and its share of the seed's rate that
//!   docs/method.md §10 states are the default probe's
//!   (`ProbeSpec::frame_bytes`, `ProbeSpec::max_rate_bps`).

mod tree;
use tree::{read, root};

/// The text with Markdown's emphasis and code marks dropped and every run
/// of whitespace (line breaks included) made one space, so a number reads
/// the same wherever the prose wraps.
fn plain(text: &str) -> String {
    text.replace(['*', '`'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The number right after `at` in `text`, if one starts there.
fn number_at(text: &str, at: usize) -> Option<u32> {
    let digits: String = text[at..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Every `schema_version N` in `text`: the N.
fn schema_versions(text: &str) -> Vec<u32> {
    let text = plain(text);
    text.match_indices("schema_version")
        .filter_map(|(i, w)| number_at(&text, i + w.len()))
        .collect()
}

/// A list of versions at the start of `s`: "versions 2 and 3",
/// "version 2 only", "versions 1, 2 and 3", "versions 2 or 3".
fn version_list(s: &str) -> Option<Vec<u32>> {
    let rest = s
        .strip_prefix("versions ")
        .or_else(|| s.strip_prefix("version "))?;
    let mut out = Vec::new();
    let mut want_number = true;
    for word in rest.split(' ') {
        let bare = word.trim_end_matches([',', ')', ';', '.', ':']);
        if want_number {
            let Ok(n) = bare.parse::<u32>() else { break };
            out.push(n);
            // "1, 2 and 3": a comma right after a number separates too.
            want_number = word.ends_with(',');
        } else if word == "and" || word == "or" {
            want_number = true;
        } else {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The largest char boundary of `s` at or below `i`.
fn boundary_below(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Every list of versions stated within a few words of `split` or
/// `SPLIT_VERSIONS` in `text` (before or after the name).
fn split_versions(text: &str) -> Vec<Vec<u32>> {
    const NEAR: usize = 40;
    let text = plain(text);
    let mut out = Vec::new();
    for name in ["split,", "split ", "SPLIT_VERSIONS"] {
        for (i, w) in text.match_indices(name) {
            // Only the word itself: not "splits", "Splitter" or "split_".
            let before_ok = text[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric() && c != '_');
            if !before_ok {
                continue;
            }
            let start = boundary_below(&text, i.saturating_sub(NEAR));
            let end = boundary_below(&text, (i + w.len() + NEAR).min(text.len()));
            let window = &text[start..end];
            for (j, _) in window.match_indices("version") {
                // Not the tail of `schema_version`.
                if window[..j].ends_with('_') {
                    continue;
                }
                // Read past the window's end: a list may run over it.
                if let Some(list) = version_list(&text[start + j..]) {
                    out.push(list);
                }
            }
        }
    }
    out
}

/// The target count fuzz/README.md states: the number after "There are".
fn stated_fuzz_targets(text: &str) -> Vec<u32> {
    let text = plain(text);
    text.match_indices("There are")
        .filter_map(|(i, w)| number_at(&text, i + w.len()))
        .collect()
}

#[test]
fn architecture_states_the_schema_version_the_code_writes() {
    let stated = schema_versions(&read("docs/architecture.md"));
    assert!(
        !stated.is_empty(),
        "docs/architecture.md states no schema_version"
    );
    for v in stated {
        assert_eq!(
            v,
            netlab_results::SCHEMA_VERSION,
            "docs/architecture.md states schema_version {v}; the code writes {}",
            netlab_results::SCHEMA_VERSION
        );
    }
}

#[test]
fn architecture_states_the_split_versions_of_the_code() {
    let stated = split_versions(&read("docs/architecture.md"));
    assert!(
        !stated.is_empty(),
        "docs/architecture.md states no versions beside `split`"
    );
    let code = netlab_results::split::SPLIT_VERSIONS.to_vec();
    for list in stated {
        assert_eq!(
            list, code,
            "docs/architecture.md states split versions {list:?}; SPLIT_VERSIONS is {code:?}"
        );
    }
}

#[test]
fn fuzz_readme_counts_the_targets_fuzz_builds() {
    let bins = read("fuzz/Cargo.toml")
        .lines()
        .filter(|l| l.trim() == "[[bin]]")
        .count();
    let files = std::fs::read_dir(root().join("fuzz/fuzz_targets"))
        .expect("fuzz/fuzz_targets")
        .filter(|e| {
            e.as_ref()
                .expect("fuzz target entry")
                .path()
                .extension()
                .is_some_and(|x| x == "rs")
        })
        .count();
    assert_eq!(
        bins, files,
        "fuzz/Cargo.toml's [[bin]]s against fuzz_targets/*.rs"
    );
    let stated = stated_fuzz_targets(&read("fuzz/README.md"));
    assert!(
        !stated.is_empty(),
        "fuzz/README.md states no target count (\"There are N\")"
    );
    for n in stated {
        assert_eq!(
            n as usize, bins,
            "fuzz/README.md states {n} targets; fuzz/Cargo.toml has {bins} [[bin]]s"
        );
    }
}

#[test]
fn method_states_the_isochronous_probes_share_of_the_link() {
    use netlab_experiment::{Experiment, ProbeKind, ProbeSpec};
    let text = plain(&read("docs/method.md"));
    let iso = ProbeSpec::isochronous();
    let rate = Experiment::default().path.up.unwrap().rate.bits_per_sec() as f64;
    let frame = format!("{} bytes on the wire", iso.frame_bytes());
    let kbit = format!("{} kbit/s", iso.max_rate_bps() / 1e3);
    let share = format!("{:.2} %", iso.max_rate_bps() / rate * 100.0);
    for stated in [&frame, &kbit, &share] {
        assert!(
            text.contains(stated.as_str()),
            "method.md §10 lacks {stated:?}"
        );
    }
    // Both probes of the seed stay under the warning's limit.
    let seed = Experiment::default();
    assert!(seed.probes.iter().any(|p| p.kind == ProbeKind::Isochronous));
    let all: f64 = seed.probes.iter().map(ProbeSpec::max_rate_bps).sum();
    assert!(all / rate < netlab_experiment::warnings::PROBE_SHARE_LIMIT);
}

#[test]
fn the_readers_find_what_they_should() {
    assert_eq!(
        schema_versions("`schema_version` **3** (written)\nschema_version\n2"),
        vec![3, 2]
    );
    assert_eq!(
        split_versions("resume copy scenarios with (`split`, versions 2 and 3), the"),
        vec![vec![2, 3]]
    );
    assert_eq!(
        split_versions("read through `split`, which takes versions 1, 2 and 3 (`SPLIT_VERSIONS`)"),
        vec![vec![1, 2, 3], vec![1, 2, 3]]
    );
    assert_eq!(split_versions("split, version 2 only"), vec![vec![2]]);
    assert!(split_versions("the Splitter reads version 2").is_empty());
    assert_eq!(
        stated_fuzz_targets("There are\n21, one file each"),
        vec![21]
    );
}
