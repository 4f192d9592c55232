//! The notes a sweep figure carries in its legend, so a reader sees beside
//! the figure what it leaves out and why: the isochronous slots that were
//! dropped or censored rather than delivered (method §5.8), and the points
//! where model 4 draws no line because BBR's share had not settled
//! (docs/models.md, model 4).

use netlab_compare::sweep::{SweepMetric, SweepTable};

/// The notes of the figure of `metric` (none for most metrics).
pub fn notes(table: &SweepTable, metric: SweepMetric) -> Vec<String> {
    match metric {
        SweepMetric::IsoUpP50 | SweepMetric::IsoUpP99 => slot_notes(table),
        SweepMetric::BbrShare => bbr_notes(table),
        _ => Vec::new(),
    }
}

/// At most this many points are listed; the rest are in sweep.csv.
const SHOWN: usize = 6;

/// What became of the isochronous slots where not every one was
/// delivered, per point and arm over its rounds (method §5.8): the
/// figure's delays are the delivered slots' only, so it says beside them
/// how many were dropped and how many are censored at their own bounds.
fn slot_notes(table: &SweepTable) -> Vec<String> {
    let mut groups: Vec<(u32, &str, &str, netlab_analysis::SlotCounts)> = Vec::new();
    for r in &table.rows {
        let Some(c) = &r.iso_slots else { continue };
        match groups.iter_mut().find(|g| g.0 == r.point && g.2 == r.arm) {
            Some(g) => g.3.add(c),
            None => groups.push((r.point, &r.point_label, &r.arm, *c)),
        }
    }
    let short: Vec<String> = groups
        .iter()
        .filter(|g| g.3.delivered < g.3.sent)
        .map(|(_, label, arm, c)| format!("{label}, {arm}: {}", c.text()))
        .collect();
    if short.is_empty() {
        return short;
    }
    let mut notes = vec![
        "delays over delivered slots only; a dropped slot is a loss, an unresolved one censored at its own bound (sweep.csv's iso_* columns):".to_string(),
    ];
    notes.extend(short.iter().take(SHOWN).cloned());
    if short.len() > SHOWN {
        notes.push(format!(
            "… and {} more points, in sweep.csv",
            short.len() - SHOWN
        ));
    }
    notes
}

/// Where model 4's line stops: every point and arm whose rounds' BBR
/// share moved more than the model's bound between the window's halves,
/// with the halves.
fn bbr_notes(table: &SweepTable) -> Vec<String> {
    let mut groups: Vec<(u32, &str, &str, Vec<String>)> = Vec::new();
    for r in table.rows.iter().filter(|r| r.error.is_none()) {
        let Some(m) = &r.model else { continue };
        if m.bbr_converged != Some(false) || m.model_bbr_share.is_none() {
            continue;
        }
        let moved = m
            .bbr_share_halves
            .map(|[a, b]| format!("r{} {a:.3} → {b:.3}", r.round))
            .unwrap_or_default();
        match groups.iter_mut().find(|g| g.0 == r.point && g.2 == r.arm) {
            Some(g) => g.3.push(moved),
            None => groups.push((r.point, &r.point_label, &r.arm, vec![moved])),
        }
    }
    if groups.is_empty() {
        return Vec::new();
    }
    let mut notes = vec![
        "where the model's line stops: not applicable, BBR's share had not settled (its share in the measured window's two halves more than 0.05 apart; docs/models.md, model 4):".to_string(),
    ];
    notes.extend(
        groups
            .iter()
            .take(SHOWN)
            .map(|(_, label, arm, moved)| format!("{label}, {arm}: {}", moved.join(", "))),
    );
    if groups.len() > SHOWN {
        notes.push(format!(
            "… and {} more points, in sweep.csv",
            groups.len() - SHOWN
        ));
    }
    notes
}
