//! What the host-share models need of a round before they apply
//! (docs/models.md, model 5): a share settled across the measured window's
//! two halves, and for Mathis's model drops or marks inside the window.
//! Computed from one scenario's results; [`crate::hosts`] says the
//! sentences that compare each round with the models.

/// How far a host's share may move between the measured window's two
/// halves for the share to count as settled, the bound docs/models.md's
/// model 4 uses for BBR's share: outside it no equilibrium model is
/// compared with the round.
pub const SETTLED_WITHIN: f64 = 0.05;

/// What the host-share models need of a round to apply (docs/models.md,
/// model 5): a settled share (each host's share of its direction's bytes
/// in the window's two halves within [`SETTLED_WITHIN`]) for any of them,
/// and drops or marks in the window for Mathis's, whose rates come from a
/// loss rate.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostConditions {
    /// The arm's drops and ECN marks inside the measured window (`None`:
    /// not read: no sample of the arm at the window's start).
    pub window_signals: Option<u64>,
    /// Per direction and host, its share of the direction's delivered
    /// bytes in each half of the measured window.
    pub halves: Vec<(String, String, [f64; 2])>,
}

impl HostConditions {
    /// The halves of a scenario with `[[hosts]]` (none without), from its
    /// flows' 200 ms series, and the arm's drops and marks in its window.
    pub fn of(s: &netlab_results::ScenarioResult) -> HostConditions {
        let mut bytes: Vec<(String, String, [u64; 2])> = Vec::new();
        for f in &s.flows {
            let (Some(host), Some(t)) = (&f.host, &f.tcp) else {
                continue;
            };
            let [w0, w1] = t.window_s;
            let mid = (w0 + w1) / 2.0;
            let mut b = [0u64; 2];
            for (i, x) in t.series.iter().enumerate() {
                let at = i as f64 * t.series_bin_s;
                if (w0..mid).contains(&at) {
                    b[0] += x;
                } else if (mid..w1).contains(&at) {
                    b[1] += x;
                }
            }
            match bytes
                .iter_mut()
                .find(|(d, h, _)| *d == f.direction && h == host)
            {
                Some(e) => {
                    e.2[0] += b[0];
                    e.2[1] += b[1];
                }
                None => bytes.push((f.direction.clone(), host.clone(), b)),
            }
        }
        let total = |dir: &str, k: usize| -> u64 {
            bytes
                .iter()
                .filter(|(d, ..)| d == dir)
                .map(|e| e.2[k])
                .sum()
        };
        let halves = bytes
            .iter()
            .filter(|(d, ..)| total(d, 0) > 0 && total(d, 1) > 0)
            .map(|(d, h, b)| {
                let share = |k: usize| b[k] as f64 / total(d, k) as f64;
                (d.clone(), h.clone(), [share(0), share(1)])
            })
            .collect();
        HostConditions {
            window_signals: crate::queue_counts::window_signals(s),
            halves,
        }
    }

    /// Why the round's shares in `direction` had not settled (a host whose
    /// share moved more than [`SETTLED_WITHIN`] between the halves), or
    /// `None` when they had.
    pub fn unsettled(&self, direction: &str) -> Option<String> {
        let moved: Vec<String> = self
            .halves
            .iter()
            .filter(|(d, _, [a, b])| d == direction && (a - b).abs() > SETTLED_WITHIN)
            .map(|(_, h, [a, b])| format!("{h} {a:.3} → {b:.3}"))
            .collect();
        (!moved.is_empty()).then(|| moved.join(", "))
    }

    /// Why Mathis's share does not apply to the round, or `None` when it
    /// does: it needs a loss rate, so drops or marks in the window.
    pub fn no_mathis(&self) -> Option<&'static str> {
        match self.window_signals {
            Some(0) => Some("no drop or mark in the window"),
            None => Some("the window's drops were not read"),
            Some(_) => None,
        }
    }
}
