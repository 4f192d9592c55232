//! The steady state of one round's loss-based flow, from its own tcp_info
//! samples, and how the rounds of one arm fall into states (method §12.6,
//! item 4; method §12.6).
//!
//! Under a deep FIFO a Reno or CUBIC flow overshoots in slow start, has its
//! window cut, and settles in one of several metastable standing states:
//! one cut can leave cwnd ≈ 430 segments and ≈ 1040 ms standing, two cuts
//! cwnd ≈ 216 and ≈ 520 ms. Rounds of one arm can therefore differ by 2×,
//! and a median pooled over them describes none of them. [`RoundState::classify`] says
//! which state a round is in; [`group_rounds`] says whether an arm's
//! rounds agree.
//!
//! ```
//! use netlab_analysis::records::SenderSample;
//! use netlab_analysis::state::{RoundState, StateKind};
//! let s = |t: f64, cwnd: u32, rtt_ms: f64, ssthresh: Option<u32>| SenderSample {
//!     t_s: t, rtt_ms, rttvar_ms: 0.0, cwnd, ssthresh,
//!     delivery_rate_bps: None, pacing_rate_bps: None,
//! };
//! let samples = [
//!     s(0.0, 10, 1.0, None), s(1.0, 800, 900.0, None),
//!     s(1.2, 400, 1200.0, Some(400)), s(2.0, 400, 1040.0, Some(400)),
//!     s(3.0, 401, 1040.0, Some(400)), s(4.0, 402, 1041.0, Some(400)),
//! ];
//! let st = RoundState::classify(&samples, [1.5, 4.5]).unwrap();
//! assert_eq!(st.kind, StateKind::Overshoot { cuts: 1 });
//! assert_eq!(st.standing_rtt_ms, 1040.0);
//! ```

use netlab_tcpload::tcp_info::INFINITE_SSTHRESH;

use crate::records::SenderSample;
use crate::stats::median;

/// A fall of cwnd below this share of its running peak is a window cut
/// (used when the samples carry no ssthresh).
pub(crate) const CUT_SHARE: f64 = 0.75;

/// From this many cuts on, the window is held by drops or marks (an AQM's
/// regime), not by the overshoot's aftermath.
pub(crate) const REGULATED_CUTS: u32 = 5;

/// Fewer settled samples than this in the window: the standing RTT is
/// taken over the whole window instead (and said so).
pub(crate) const MIN_SETTLED_SAMPLES: usize = 3;

/// What a round's flow settled into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StateKind {
    /// The window was never cut before the end of the measured window:
    /// slow start never overshot (receiver- or sender-limited).
    NoCut,
    /// `cuts` window cuts (1 to [`REGULATED_CUTS`] − 1) since the
    /// slow-start overshoot, then a standing queue.
    Overshoot {
        /// Window cuts from the slow-start exit to the window's end.
        cuts: u32,
    },
    /// [`REGULATED_CUTS`] or more cuts: the window is held by drops or
    /// marks throughout.
    Regulated,
}

impl StateKind {
    /// `1 cut`, `2 cuts`, `no cut`, `≥ 5 cuts`.
    pub fn short(&self) -> String {
        match self {
            StateKind::NoCut => "no cut".into(),
            StateKind::Overshoot { cuts: 1 } => "1 cut".into(),
            StateKind::Overshoot { cuts } => format!("{cuts} cuts"),
            StateKind::Regulated => format!("≥ {REGULATED_CUTS} cuts"),
        }
    }
}

/// One round's state.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundState {
    /// The state.
    pub kind: StateKind,
    /// Window cuts from the slow-start exit to the end of the measured window.
    pub cuts: u32,
    /// Cuts whose start lies inside the measured window.
    pub cuts_in_window: u32,
    /// Median tcp_info RTT over the settled samples, ms.
    pub standing_rtt_ms: f64,
    /// Median cwnd over the same samples, segments.
    pub cwnd: u32,
    /// Start of the settled samples (the last cut's trough, or the window's
    /// start), s from t0.
    pub settled_from_s: f64,
    /// Samples the standing figures are the median of.
    pub samples: usize,
    /// False when the last cut left too few samples in the window, so the
    /// figures are over the whole window.
    pub settled: bool,
    /// The window's stretches between the cuts inside it, in time order:
    /// empty when no cut falls inside the window (one state throughout),
    /// else one more than those cuts (method §12.6: a round whose state
    /// changes inside the window is not one state).
    pub parts: Vec<WindowPart>,
}

/// A stretch of a round's measured window between window cuts (or the
/// window's edges), with its own tcp_info level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowPart {
    /// Start, s from t0 (the window's start or a cut's first sample).
    pub from_s: f64,
    /// End, s from t0 (the next cut's first sample or the window's end).
    pub to_s: f64,
    /// Its share of the window's time.
    pub share: f64,
    /// Median tcp_info RTT over its samples, ms.
    pub rtt_ms: f64,
    /// Median cwnd over the same samples, segments.
    pub cwnd: u32,
    /// Samples in it.
    pub samples: usize,
}

/// `52 % / 7 % / 41 %`: each part's share of the window, whole percent.
pub fn shares_text(shares: &[f64]) -> String {
    shares
        .iter()
        .map(|x| format!("{:.0} %", x * 100.0))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// `≈ 1140 ms until 12.2 s, ≈ 437 ms until 13.0 s, then ≈ 356 ms`: each
/// part's value and where it ended, from `(to_s, text)` in time order.
pub fn parts_text(parts: &[(f64, String)]) -> String {
    let n = parts.len();
    parts
        .iter()
        .enumerate()
        .map(|(i, (to, v))| {
            if i + 1 == n {
                if n == 1 {
                    v.clone()
                } else {
                    format!("then {v}")
                }
            } else {
                format!("{v} until {to:.1} s")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl WindowPart {
    /// `≈ 1140 ms until 12.2 s, then ≈ 356 ms (52 % / 48 % of the
    /// window)`: each part's tcp_info RTT and share.
    pub fn rtt_text(parts: &[WindowPart]) -> String {
        let values: Vec<(f64, String)> = parts
            .iter()
            .map(|p| (p.to_s, format!("≈ {} ms", crate::stats::fmt_num(p.rtt_ms))))
            .collect();
        let shares: Vec<f64> = parts.iter().map(|p| p.share).collect();
        format!(
            "{} ({} of the window)",
            parts_text(&values),
            shares_text(&shares)
        )
    }

    /// The parts of `window` split at `cuts` (their first samples, inside
    /// the window), each with the medians of `samples` in it; a stretch
    /// without a sample joins the next.
    fn split(window: [f64; 2], cuts: &[f64], samples: &[&SenderSample]) -> Vec<WindowPart> {
        let mut edges = vec![window[0]];
        edges.extend(cuts.iter().copied());
        edges.push(window[1]);
        let span = (window[1] - window[0]).max(f64::MIN_POSITIVE);
        let mut out: Vec<WindowPart> = Vec::new();
        let mut from = window[0];
        for to in edges.into_iter().skip(1) {
            let inside: Vec<&&SenderSample> = samples
                .iter()
                .filter(|x| x.t_s >= from && x.t_s < to)
                .collect();
            let mut rtts: Vec<f64> = inside.iter().map(|x| x.rtt_ms).collect();
            let mut cwnds: Vec<f64> = inside.iter().map(|x| f64::from(x.cwnd)).collect();
            let (Some(rtt_ms), Some(cwnd)) = (median(&mut rtts), median(&mut cwnds)) else {
                continue; // no sample: the stretch joins the next part
            };
            out.push(WindowPart {
                from_s: from,
                to_s: to,
                share: (to - from) / span,
                rtt_ms,
                cwnd: cwnd.round() as u32,
                samples: inside.len(),
            });
            from = to;
        }
        if let Some(last) = out.last_mut() {
            // A trailing stretch without a sample belongs to the last part.
            last.to_s = window[1];
            last.share = (last.to_s - last.from_s) / span;
        }
        out
    }
}

impl RoundState {
    /// `1 cut after the slow-start overshoot, ≈ 1045 ms standing (cwnd ≈ 431)`.
    pub fn text(&self) -> String {
        let rtt = crate::stats::fmt_num(self.standing_rtt_ms);
        let mut t = match self.kind {
            StateKind::NoCut => {
                format!("no window cut (slow start never overshot), ≈ {rtt} ms")
            }
            StateKind::Overshoot { .. } => format!(
                "{} after the slow-start overshoot, ≈ {rtt} ms standing (cwnd ≈ {})",
                self.kind.short(),
                self.cwnd
            ),
            StateKind::Regulated => format!(
                "window held by drops or marks ({} cuts), ≈ {rtt} ms",
                self.cuts
            ),
        };
        if self.changed_in_window() {
            return format!(
                "{}, changed inside the window: {}",
                self.kind.short(),
                self.parts_text()
            );
        }
        if !self.settled {
            t.push_str(", not settled in the window");
        } else if self.cuts_in_window > 0 && matches!(self.kind, StateKind::Overshoot { .. }) {
            t.push_str(&format!(", {} inside the window", self.cuts_in_window));
        }
        t
    }

    /// The window holds more than one state: a cut of the overshoot's
    /// aftermath falls inside it (method §12.6).
    pub fn changed_in_window(&self) -> bool {
        self.parts.len() > 1
    }

    /// `≈ 1140 ms until 12.2 s, then ≈ 356 ms (52 % / 48 % of the
    /// window)`, from the tcp_info RTT of each part.
    pub fn parts_text(&self) -> String {
        WindowPart::rtt_text(&self.parts)
    }
}

/// One window cut: when it started and when cwnd stopped falling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cut {
    /// First sample showing the cut, s from t0.
    pub at_s: f64,
    /// First sample where cwnd stopped falling (the trough), s from t0.
    pub trough_s: f64,
}

/// The window cuts in a series of samples (in time order). With ssthresh
/// (every sample after the first loss carries a finite one) a cut is a new
/// ssthresh value, as Reno and CUBIC set one at every reduction; without
/// it a cut is cwnd falling below [`CUT_SHARE`] of its peak since the last
/// cut's trough. Either way the cut lasts until cwnd stops falling.
pub(crate) fn cuts(samples: &[SenderSample]) -> Vec<Cut> {
    let with_ssthresh = samples.iter().any(|s| s.ssthresh.is_some());
    let mut out: Vec<Cut> = Vec::new();
    let mut open: Option<usize> = None; // index into out of a cut still falling
    let mut last_ssthresh = INFINITE_SSTHRESH;
    let mut peak = 0u32;
    let mut prev_cwnd: Option<u32> = None;
    for s in samples {
        if let (Some(k), Some(p)) = (open, prev_cwnd) {
            if s.cwnd >= p {
                out[k].trough_s = s.t_s;
                open = None;
                peak = s.cwnd;
            }
        }
        let is_cut = if with_ssthresh {
            let th = s.ssthresh.unwrap_or(INFINITE_SSTHRESH);
            let new = th != INFINITE_SSTHRESH && th != last_ssthresh;
            last_ssthresh = th;
            new
        } else {
            open.is_none() && peak > 0 && f64::from(s.cwnd) < CUT_SHARE * f64::from(peak)
        };
        if is_cut {
            if let Some(k) = open {
                // A new reduction while the last one still falls: its trough
                // is here, the new one starts.
                out[k].trough_s = s.t_s;
            }
            out.push(Cut {
                at_s: s.t_s,
                trough_s: s.t_s,
            });
            open = Some(out.len() - 1);
        }
        if open.is_none() {
            peak = peak.max(s.cwnd);
        }
        prev_cwnd = Some(s.cwnd);
    }
    if let Some(k) = open {
        out[k].trough_s = samples.last().map_or(out[k].at_s, |s| s.t_s);
    }
    out
}

impl RoundState {
    /// The state of one round from its sender's tcp_info samples (time order)
    /// and its measured window `[start, end)`, s from t0. `None` when no sample
    /// lies in the window.
    ///
    /// Cuts are counted from the slow-start exit (the first cut) to the
    /// window's end. The standing RTT and cwnd are medians over the window's
    /// samples from the last cut's trough on (the state the round settled in);
    /// when fewer than [`MIN_SETTLED_SAMPLES`] remain, or the window is held by
    /// drops or marks, over the whole window.
    pub fn classify(samples: &[SenderSample], window: [f64; 2]) -> Option<RoundState> {
        let in_window = |t: f64| t >= window[0] && t < window[1];
        let upto: Vec<SenderSample> = samples
            .iter()
            .copied()
            .filter(|s| s.t_s < window[1])
            .collect();
        let window_samples: Vec<&SenderSample> = upto.iter().filter(|s| in_window(s.t_s)).collect();
        if window_samples.is_empty() {
            return None;
        }
        let found = cuts(&upto);
        let n = found.len() as u32;
        let kind = match n {
            0 => StateKind::NoCut,
            n if n >= REGULATED_CUTS => StateKind::Regulated,
            cuts => StateKind::Overshoot { cuts },
        };
        let from = match (kind, found.last()) {
            (StateKind::Overshoot { .. }, Some(c)) => c.trough_s.max(window[0]),
            _ => window[0],
        };
        let mut settled: Vec<&&SenderSample> =
            window_samples.iter().filter(|s| s.t_s >= from).collect();
        let ok = settled.len() >= MIN_SETTLED_SAMPLES;
        if !ok {
            settled = window_samples.iter().collect();
        }
        let mut rtts: Vec<f64> = settled.iter().map(|s| s.rtt_ms).collect();
        let mut cwnds: Vec<f64> = settled.iter().map(|s| f64::from(s.cwnd)).collect();
        // Under an AQM's regime a cut is the window's ordinary life, not a
        // change of state: only the overshoot's cuts split the window.
        let inside: Vec<f64> = found
            .iter()
            .map(|c| c.at_s)
            .filter(|t| in_window(*t) && *t > window[0])
            .collect();
        let parts = match kind {
            StateKind::Overshoot { .. } if !inside.is_empty() => {
                WindowPart::split(window, &inside, &window_samples)
            }
            _ => Vec::new(),
        };
        Some(RoundState {
            kind,
            cuts: n,
            cuts_in_window: found.iter().filter(|c| in_window(c.at_s)).count() as u32,
            standing_rtt_ms: median(&mut rtts)?,
            cwnd: median(&mut cwnds)?.round() as u32,
            settled_from_s: if ok { from } else { window[0] },
            samples: settled.len(),
            settled: ok,
            parts,
        })
    }
}

/// Whether a congestion control is loss-based (its state is classified).
pub(crate) fn loss_based(cc: &str) -> bool {
    matches!(
        cc,
        "reno" | "cubic" | "highspeed" | "htcp" | "scalable" | "westwood" | "bic"
    )
}

/// The rounds of one arm in one state.
#[derive(Debug, Clone, PartialEq)]
pub struct StateGroup {
    /// The state.
    pub kind: StateKind,
    /// Rounds in it, ascending.
    pub rounds: Vec<u32>,
    /// Median of the rounds' standing RTTs, ms.
    pub standing_rtt_ms: f64,
    /// Median of the rounds' cwnd levels, segments.
    pub cwnd: u32,
    /// The round's parts when its state changed inside the window (a group
    /// of that one round: such a round is never pooled with another);
    /// empty otherwise.
    pub parts: Vec<WindowPart>,
}

impl StateGroup {
    /// Its one round's state changed inside the window.
    pub fn changed(&self) -> bool {
        self.parts.len() > 1
    }

    /// `3 cuts`, or `3 cuts, changed inside the window`.
    pub fn label(&self) -> String {
        if self.changed() {
            format!("{}, changed inside the window", self.kind.short())
        } else {
            self.kind.short()
        }
    }

    /// Where the window changed: `12.2 and 13.0 s`.
    pub fn change_times(&self) -> String {
        let t: Vec<String> = self
            .parts
            .iter()
            .skip(1)
            .map(|p| format!("{:.1}", p.from_s))
            .collect();
        match t.len() {
            0 => String::new(),
            1 => format!("{} s", t[0]),
            n => format!("{} and {} s", t[..n - 1].join(", "), t[n - 1]),
        }
    }
}

/// How one arm's rounds fall into states.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmStates {
    /// Arm kind.
    pub arm: String,
    /// One group per state, most rounds first (then fewer cuts first).
    pub groups: Vec<StateGroup>,
    /// Rounds that could not be classified, with why.
    pub unclassified: Vec<(u32, String)>,
}

impl ArmStates {
    /// Every arm's states, arms in order of first appearance.
    pub fn of_input(input: &crate::ReportInput) -> Vec<ArmStates> {
        let mut arms: Vec<&str> = Vec::new();
        for s in &input.scenarios {
            if !arms.contains(&s.arm.as_str()) {
                arms.push(&s.arm);
            }
        }
        arms.iter()
            .map(|arm| {
                let rounds: Vec<(u32, Result<RoundState, String>)> = input
                    .scenarios
                    .iter()
                    .filter(|s| s.arm == *arm)
                    .map(|s| (s.round, RoundState::of(s)))
                    .collect();
                group_rounds(arm, &rounds)
            })
            .collect()
    }

    /// The rounds fall into more than one state (rounds that changed
    /// inside the window are groups of their own, but count by the state
    /// they reached: [`ArmStates::changed`] says they changed).
    pub fn disagree(&self) -> bool {
        self.groups.iter().any(|g| g.kind != self.groups[0].kind)
    }

    /// A round's state changed inside the window.
    pub fn changed(&self) -> bool {
        self.groups.iter().any(StateGroup::changed)
    }

    /// Each figure is given by state (nothing pooled): the rounds disagree,
    /// or a round's window holds more than one state.
    pub fn split(&self) -> bool {
        self.disagree() || self.changed()
    }

    /// `pfifo: 2 rounds ≈ 1045 ms (1 cut), 1 round ≈ 660 ms (2 cuts) —
    /// rounds disagree; medians not pooled`.
    pub fn text(&self) -> String {
        let mut parts: Vec<String> = self
            .groups
            .iter()
            .map(|g| {
                let n = g.rounds.len();
                if g.changed() {
                    return format!(
                        "round {} changed inside the window ({}): {}",
                        g.rounds.first().copied().unwrap_or(0),
                        g.kind.short(),
                        WindowPart::rtt_text(&g.parts)
                    );
                }
                format!(
                    "{n} round{} ≈ {} ms ({}{})",
                    if n == 1 { "" } else { "s" },
                    crate::stats::fmt_num(g.standing_rtt_ms),
                    g.kind.short(),
                    match g.kind {
                        StateKind::Overshoot { .. } => format!(", cwnd ≈ {}", g.cwnd),
                        _ => String::new(),
                    }
                )
            })
            .collect();
        let why: Vec<&str> = self.unclassified.iter().map(|(_, w)| w.as_str()).collect();
        if self.groups.is_empty() && !why.is_empty() && why.iter().all(|w| *w == why[0]) {
            // One reason for every round (an AQM arm): said once.
            parts.push(why[0].to_string());
        } else if !self.unclassified.is_empty() {
            let rounds: Vec<String> = self
                .unclassified
                .iter()
                .map(|(r, why)| format!("round {r}: {why}"))
                .collect();
            parts.push(format!("not classified ({})", rounds.join("; ")));
        }
        let mut t = format!("{}: {}", self.arm, parts.join(", "));
        if self.disagree() {
            t.push_str(" — rounds disagree; medians not pooled");
        } else if self.changed() {
            t.push_str(" — not one state over the window; nothing pooled");
        } else if self.groups.len() == 1 && self.groups[0].rounds.len() > 1 {
            t.push_str(" — rounds agree");
        }
        t
    }
}

/// Groups one arm's per-round states (`(round, state or why not)`).
pub fn group_rounds(arm: &str, rounds: &[(u32, Result<RoundState, String>)]) -> ArmStates {
    // A round whose state changed inside the window is a group of its own
    // (keyed by its round): it is never pooled, with one-state rounds or
    // with another changed round.
    type Key = (StateKind, Option<u32>);
    let mut groups: Vec<(Key, Vec<(u32, RoundState)>)> = Vec::new();
    let mut unclassified = Vec::new();
    for (r, st) in rounds {
        match st {
            Ok(st) => {
                let key = (st.kind, st.changed_in_window().then_some(*r));
                match groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => v.push((*r, st.clone())),
                    None => groups.push((key, vec![(*r, st.clone())])),
                }
            }
            Err(why) => unclassified.push((*r, why.clone())),
        }
    }
    let mut groups: Vec<StateGroup> = groups
        .into_iter()
        .map(|((kind, changed), v)| {
            let mut rounds: Vec<u32> = v.iter().map(|(r, _)| *r).collect();
            rounds.sort_unstable();
            let mut rtts: Vec<f64> = v.iter().map(|(_, s)| s.standing_rtt_ms).collect();
            let mut cwnds: Vec<f64> = v.iter().map(|(_, s)| f64::from(s.cwnd)).collect();
            StateGroup {
                kind,
                rounds,
                standing_rtt_ms: median(&mut rtts).unwrap_or(f64::NAN),
                cwnd: median(&mut cwnds).unwrap_or(0.0).round() as u32,
                parts: match changed {
                    Some(_) => v[0].1.parts.clone(),
                    None => Vec::new(),
                },
            }
        })
        .collect();
    // Most rounds first, then one-state groups before changed ones, then
    // fewer cuts first.
    groups.sort_by(|a, b| {
        b.rounds
            .len()
            .cmp(&a.rounds.len())
            .then(a.changed().cmp(&b.changed()))
            .then(a.kind.cmp(&b.kind))
            .then(a.rounds.cmp(&b.rounds))
    });
    ArmStates {
        arm: arm.to_string(),
        groups,
        unclassified,
    }
}

/// Whether the state model holds for an arm of this kind: a FIFO-like
/// queue, where a loss-based flow's window is cut only by tail drops, a
/// few times a round (method §12.6). Under an AQM the window is held by
/// hundreds or thousands of drops or marks a round, and a count of cuts
/// means nothing.
pub(crate) fn fifo_like(kind: &str) -> bool {
    matches!(kind, "pfifo" | "bfifo" | "pfifo_fast" | "pfifo_head_drop")
}

/// Why the classifier is silent for an arm of `kind`, if it is.
pub(crate) fn silent_for(kind: &str) -> Option<String> {
    (!fifo_like(kind)).then(|| {
        format!("not classified: the state model holds for a loss-based flow in a FIFO (method §12.6), and {kind} regulates the window by drops or marks")
    })
}

impl RoundState {
    /// The state of one scenario of a report, or why there is none.
    pub fn of(s: &crate::records::Scenario) -> Result<RoundState, String> {
        if let Some(why) = silent_for(&s.kind) {
            return Err(why);
        }
        if let Some(cc) = &s.cc {
            if !loss_based(cc) {
                return Err(format!("{cc} is not loss-based"));
            }
        }
        if s.error.is_some() {
            return Err("the scenario failed".into());
        }
        let window = s.measured_window.unwrap_or(s.phases.loaded);
        RoundState::classify(&s.tcp_info, window)
            .ok_or_else(|| "no tcp_info sample in the window".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t_s: f64, cwnd: u32, rtt_ms: f64, ssthresh: Option<u32>) -> SenderSample {
        SenderSample {
            t_s,
            rtt_ms,
            rttvar_ms: 0.0,
            cwnd,
            ssthresh,
            delivery_rate_bps: None,
            pacing_rate_bps: None,
        }
    }

    /// Slow start to `peak` by 2 s, then halvings at the given times (each
    /// falling over three samples), cwnd growing by one segment a second
    /// between them; RTT proportional to cwnd (a standing queue at 5 Mbit/s
    /// with 1448-byte segments: cwnd × 2.3 ms).
    fn series(peak: u32, cuts_at: &[f64], end: f64, with_ssthresh: bool) -> Vec<SenderSample> {
        let mut out = Vec::new();
        let mut t = 0.0;
        let mut cwnd = 10.0f64;
        let mut th: Option<u32> = None;
        let mut falling: Option<(f64, f64)> = None; // (target, step)
        let mut next = 0;
        while t < end {
            if next < cuts_at.len() && t >= cuts_at[next] - 1e-9 {
                let target = (cwnd / 2.0).floor();
                th = Some(target as u32);
                falling = Some((target, (cwnd - target) / 3.0));
                next += 1;
            }
            if let Some((target, step)) = falling {
                cwnd = (cwnd - step).max(target);
                if cwnd <= target {
                    falling = None;
                }
            } else if th.is_none() {
                cwnd = (cwnd * 1.6).min(f64::from(peak));
            } else {
                cwnd += 0.2;
            }
            out.push(s(
                t,
                cwnd as u32,
                cwnd.floor() * 2.3,
                if with_ssthresh {
                    Some(th.unwrap_or(INFINITE_SSTHRESH))
                } else {
                    None
                },
            ));
            t += 0.2;
        }
        out
    }

    #[test]
    fn one_cut_and_two_cuts_are_told_apart_with_and_without_ssthresh() {
        for with in [true, false] {
            let one = RoundState::classify(&series(860, &[2.0], 18.0, with), [6.0, 18.0]).unwrap();
            assert_eq!(
                one.kind,
                StateKind::Overshoot { cuts: 1 },
                "ssthresh {with}"
            );
            assert_eq!(one.cuts_in_window, 0);
            // 430 after the cut, + 1 segment a second: median ≈ 439.
            assert!((433..=445).contains(&one.cwnd), "{one:?}");
            assert!((one.standing_rtt_ms - 1010.0).abs() < 15.0, "{one:?}");
            assert!(one.settled);
            let two =
                RoundState::classify(&series(860, &[2.0, 4.0], 18.0, with), [6.0, 18.0]).unwrap();
            assert_eq!(
                two.kind,
                StateKind::Overshoot { cuts: 2 },
                "ssthresh {with}"
            );
            assert!((216..=230).contains(&two.cwnd), "{two:?}");
            assert!(two.standing_rtt_ms < one.standing_rtt_ms * 0.55);
        }
    }

    #[test]
    fn a_cut_inside_the_window_splits_it_into_parts_with_their_shares() {
        let st = RoundState::classify(&series(860, &[2.0, 10.0], 18.0, true), [6.0, 18.0]).unwrap();
        assert_eq!(st.kind, StateKind::Overshoot { cuts: 2 });
        assert_eq!(st.cuts_in_window, 1);
        assert!(st.settled_from_s >= 10.0, "{st:?}");
        assert!(st.cwnd < 230, "{st:?}");
        // Two states in one window: each part apart, with its share.
        assert!(st.changed_in_window());
        let [a, b] = st.parts[..] else {
            panic!("{:?}", st.parts)
        };
        assert_eq!((a.from_s, b.to_s), (6.0, 18.0));
        assert!(
            (a.to_s - 10.0).abs() < 1e-9 && a.to_s == b.from_s,
            "{a:?} {b:?}"
        );
        assert!((a.share - 4.0 / 12.0).abs() < 1e-9 && (b.share - 8.0 / 12.0).abs() < 1e-9);
        assert!(a.rtt_ms > 900.0 && b.rtt_ms < 600.0, "{a:?} {b:?}");
        let t = st.text();
        assert!(
            t.starts_with("2 cuts, changed inside the window: ≈ 1"),
            "{t}"
        );
        assert!(t.contains(" ms until 10.0 s, then ≈ "), "{t}");
        assert!(t.ends_with("(33 % / 67 % of the window)"), "{t}");
        // Cuts before the window leave it one state.
        let before =
            RoundState::classify(&series(860, &[2.0, 4.0], 18.0, true), [6.0, 18.0]).unwrap();
        assert!(!before.changed_in_window() && before.parts.is_empty());
    }

    #[test]
    fn a_round_that_changed_is_never_pooled() {
        let one = RoundState::classify(&series(860, &[2.0, 4.0], 18.0, true), [6.0, 18.0]).unwrap();
        let changed =
            RoundState::classify(&series(860, &[2.0, 10.0], 18.0, true), [6.0, 18.0]).unwrap();
        let again =
            RoundState::classify(&series(860, &[2.0, 12.0], 18.0, true), [6.0, 18.0]).unwrap();
        // All three have 2 cuts; only the first is one state over its window.
        let arm = group_rounds("pfifo", &[(1, Ok(one)), (2, Ok(changed)), (3, Ok(again))]);
        assert_eq!(arm.groups.len(), 3, "{}", arm.text());
        assert_eq!(arm.groups[0].rounds, vec![1]);
        assert!(!arm.groups[0].changed());
        assert!(arm.groups[1].changed() && arm.groups[2].changed());
        assert_eq!(arm.groups[1].change_times(), "10.0 s");
        assert!(arm.split());
        let t = arm.text();
        assert!(
            t.contains("round 2 changed inside the window (2 cuts): ≈ "),
            "{t}"
        );
        // All three reached 2 cuts: they agree on the state, but two
        // changed inside the window, so nothing is pooled.
        assert!(!arm.disagree());
        assert!(
            t.ends_with("not one state over the window; nothing pooled"),
            "{t}"
        );
        // One round alone that changed: nothing to pool, still split.
        let alone = group_rounds(
            "pfifo",
            &[(
                1,
                RoundState::classify(&series(860, &[2.0, 10.0], 18.0, true), [6.0, 18.0])
                    .ok_or_else(String::new),
            )],
        );
        assert!(!alone.disagree() && alone.changed() && alone.split());
        assert!(alone
            .text()
            .ends_with("not one state over the window; nothing pooled"));
    }

    #[test]
    fn a_cut_just_before_the_window_end_leaves_the_state_unsettled() {
        let st = RoundState::classify(&series(860, &[2.0, 17.7], 18.0, true), [6.0, 18.0]).unwrap();
        assert_eq!(st.kind, StateKind::Overshoot { cuts: 2 });
        assert!(!st.settled);
        assert_eq!(st.settled_from_s, 6.0);
        // The cut is inside the window (its first sample at 17.8 s): the
        // last 0.2 s are a part of their
        // own, said with its share rather than folded into one state.
        assert!(st.changed_in_window());
        let t = st.text();
        assert!(t.contains(" ms until 17.8 s, then ≈ "), "{t}");
        // Without the late cut the same round is one state throughout.
        let early =
            RoundState::classify(&series(860, &[2.0, 17.7], 18.0, true), [6.0, 17.6]).unwrap();
        assert!(!early.changed_in_window() && early.settled);
    }

    #[test]
    fn no_cut_and_many_cuts() {
        let flat: Vec<_> = (0..50)
            .map(|i| s(i as f64 * 0.2, 40, 30.0, Some(INFINITE_SSTHRESH)))
            .collect();
        let st = RoundState::classify(&flat, [2.0, 10.0]).unwrap();
        assert_eq!(st.kind, StateKind::NoCut);
        assert_eq!(st.standing_rtt_ms, 30.0);
        // An AQM: a new ssthresh every few samples.
        let aqm: Vec<_> = (0..60)
            .map(|i| {
                let th = 5 + (i / 3) % 4;
                s(
                    i as f64 * 0.2,
                    th + (i % 3),
                    20.0 + (i % 3) as f64,
                    Some(th),
                )
            })
            .collect();
        let st = RoundState::classify(&aqm, [2.0, 12.0]).unwrap();
        assert_eq!(st.kind, StateKind::Regulated);
        assert!(st.cuts >= REGULATED_CUTS);
        assert_eq!(st.settled_from_s, 2.0);
        assert!(RoundState::classify(&aqm, [20.0, 30.0]).is_none());
    }

    #[test]
    fn rounds_in_two_states_disagree_and_say_so() {
        let one = RoundState::classify(&series(860, &[2.0], 18.0, true), [6.0, 18.0]).unwrap();
        let two = RoundState::classify(&series(860, &[2.0, 4.0], 18.0, true), [6.0, 18.0]).unwrap();
        let arm = group_rounds(
            "pfifo",
            &[
                (1, Ok(one.clone())),
                (2, Ok(two)),
                (3, Ok(one.clone())),
                (4, Err("no tcp_info sample in the window".into())),
            ],
        );
        assert!(arm.disagree());
        assert_eq!(arm.groups[0].rounds, vec![1, 3]);
        assert_eq!(arm.groups[1].rounds, vec![2]);
        let t = arm.text();
        assert!(
            t.starts_with("pfifo: 2 rounds ≈ 1010 ms (1 cut, cwnd ≈ 439)"),
            "{t}"
        );
        assert!(t.contains("1 round ≈ 511 ms (2 cuts, cwnd ≈ 222)"), "{t}");
        assert!(
            t.contains("round 4: no tcp_info sample in the window"),
            "{t}"
        );
        assert!(t.ends_with("rounds disagree; medians not pooled"), "{t}");
        let agree = group_rounds("pfifo", &[(1, Ok(one.clone())), (2, Ok(one))]);
        assert!(!agree.disagree());
        assert!(agree.text().ends_with("rounds agree"));
    }

    #[test]
    fn only_loss_based_flows_are_classified() {
        assert!(loss_based("reno") && loss_based("cubic"));
        assert!(!loss_based("bbr") && !loss_based("vegas"));
    }
}
