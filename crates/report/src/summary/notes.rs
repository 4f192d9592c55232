//! The general notes that qualify a run's figures, and the one rule that
//! says which belong to a run (summary.md, the report and results.json's
//! `notes` all ask [`notes_for`] / [`note_belongs`]).

/// The notes every summary carries (method §2, §5, §6, §7).
pub const NOTES: &[&str] = &[
    "TBF's own `limit` is NOT the effective queue bound here: the arm replaces TBF's default inner bfifo, so the child's limit bounds the queue (and the latency tc derives from TBF's limit does not apply).",
    "The arms differ in more than AQM: pfifo and fq_codel both have a 256-packet limit, which is not equal bytes or memory (skb/GSO sizes vary), and fq_codel adds flow queueing and a memory limit. This is not a single-variable AQM comparison.",
    "drops = the arm's (child 10:) drop counter; the TBF parent's drops are shown beside it. Parent and child counters can count the same packet: never sum them.",
    "overlimits (in results.json) counts shaping events, not loss.",
    "Probe timeouts are not loss: a timeout cannot tell a lost packet from more than 1 s of queueing. The headline and the table's p50/p95 count a timeout as '≥ 1000 ms' (censoring-aware); replies-only quantiles leave timeouts out and always travel with their counts.",
    "Loaded probe sends cover the load window minus its last second (no new request in the last 1 s), while goodput covers the whole window.",
    "The TCP RTT from the sender's tcp_info (results.json tcp_info[]) is not the UDP echo RTT: they are kept apart.",
    "ECN counts are evidence on the wire, not a one-to-one mark-to-window trace; CWR alone (RFC 3168 §6.1.2 allows it after any window reduction) is not proof of CE feedback.",
    "Final qdisc counters are read while traffic can still drain, parent then child, so they are not an atomic snapshot; counters cover warm-up and termination, goodput does not.",
    "Goodput counts bytes by the time B's application received them. After a loss, data that crossed the bottleneck earlier waits in B's out-of-order queue and is handed over in one burst once the hole is repaired, so a window's goodput can exceed the shaped rate (results.json keeps the per-200 ms series that shows it).",
    "Bytes the sender's socket accepted are local socket input, not delivered bytes; full stream delivery at close is not claimed.",
];

/// The general notes ([`NOTES`]) that belong to a run whose arms are of
/// these kinds (`pfifo`, `fq_codel`, …), by [`note_belongs`]: the one
/// rule for summary.md, the report and results.json's `notes`.
pub fn notes_for<'a>(arm_kinds: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let had: std::collections::BTreeSet<&str> = arm_kinds.into_iter().collect();
    NOTES
        .iter()
        .copied()
        .filter(|note| note_belongs(note, &had))
        .collect()
}

/// Whether a note belongs to a run whose arms had the kinds `had`: a note
/// that names an arm kind the run did not have (the fq_codel comparison
/// note in a pfifo-only run) does not.
pub fn note_belongs(note: &str, had: &std::collections::BTreeSet<&str>) -> bool {
    const KINDS: &[&str] = &["pfifo", "fq_codel", "cake", "fq_pie", "codel", "pie", "fq"];
    !KINDS.iter().any(|k| {
        note.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == *k)
            && !had.contains(k)
    })
}

/// Whether a note belongs to a run whose arms are these (in tc words,
/// `pfifo limit 256`): [`note_belongs`] on their kinds, and a note that
/// states the arms' limits (the 256-packet limit of the method's pair)
/// only when every arm has that limit.
pub fn note_fits_arms<'a>(note: &str, arm_words: impl IntoIterator<Item = &'a str>) -> bool {
    let words: Vec<&str> = arm_words.into_iter().collect();
    let kinds = words
        .iter()
        .filter_map(|w| w.split_whitespace().next())
        .collect();
    note_belongs(note, &kinds)
        && (!note.contains("256-packet limit")
            || words.iter().all(|w| {
                let t: Vec<&str> = w.split_whitespace().collect();
                t.windows(2).any(|p| p == ["limit", "256"])
            }))
}

/// The timeout note as it holds for a run whose every round records its
/// probe's fates (B's receive log, method §5.8): a timeout is then told
/// apart (a delay that reached B, a loss that never did, or unresolved),
/// so the note that "a timeout cannot tell a lost packet from queueing"
/// is false there and gives way to this one. Other notes, and any note of
/// a run without fates, are kept as they are.
pub fn note_for_fates(note: &str, every_round_has_fates: bool) -> String {
    if every_round_has_fates && note.starts_with("Probe timeouts are not loss") {
        "Probe timeouts are told apart by B's receive log (method §5.8): a request that reached B is a delay, at its exact one-way time even past the timeout; one that never did is a loss, with its cause; one B had not received when it stopped listening is unresolved, censored at its own bound. Only the method's RTT table counts a timeout as '≥ 1000 ms' (censoring-aware); replies-only quantiles leave timeouts out and always travel with their counts.".to_string()
    } else {
        note.to_string()
    }
}

/// A general note as it holds for the run's stop-and-wait probe
/// (`timeout_ms`: its timeout, None when it did not run): the notes about
/// its timeouts and its sends are left out when it did not run, and the
/// timeout they quote is the run's (they were written for the method's
/// 1 s).
pub fn note_for_probe(note: &str, timeout_ms: Option<f64>) -> Option<String> {
    let about_probe = note.starts_with("Probe timeouts") || note.starts_with("Loaded probe sends");
    match timeout_ms {
        None if about_probe => None,
        Some(t) if about_probe && (t - 1000.0).abs() > 1e-9 => {
            Some(note.replace("'≥ 1000 ms'", &format!("'≥ {t} ms'")).replace(
                "more than 1 s of queueing",
                &format!("more than {} s of queueing", t / 1000.0),
            ))
        }
        _ => Some(note.to_string()),
    }
}
