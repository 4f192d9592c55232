//! The answer first: per arm, baseline → loaded probe latency (p50, p95,
//! a bound where it lies on the censored mass), goodput, censored/total,
//! drops or marks, and the rounds' states ([`netlab_analysis::state`]); with two or
//! more arms, the difference with its rank interval over rounds and a one-line
//! verdict that says when an arm's rounds disagree. The same [`Headline`]
//! heads summary.md ([`Headline::markdown`]) and index.html.

use crate::compare::{Comparison, Figure, Statistics};
use crate::window::{Measure, Sampling, WindowDelay};
use netlab_analysis::records::{ProbePhase, Scenario};
use netlab_analysis::state::{self, ArmStates, WindowPart};
use netlab_analysis::ArmDelivery;
use netlab_analysis::ReportInput;
use netlab_stats::{censored_quantile, fmt_num, CensoredQuantile, Observation};

/// The loaded probe latency of the rounds of one state.
#[derive(Debug, Clone, PartialEq)]
pub struct StateLatency {
    /// `1 cut`.
    pub state: String,
    /// Its rounds.
    pub rounds: Vec<u32>,
    /// Loaded p50 over those rounds' requests (KM, timeouts censored).
    pub p50: CensoredQuantile,
    /// Loaded p95.
    pub p95: CensoredQuantile,
    /// Loaded requests with RTT information over those rounds, and how
    /// many got no reply within the timeout.
    pub requests: [usize; 2],
    /// Delay and loss apart over those rounds, when they carry fates.
    pub delivery: Option<ArmDelivery>,
    /// Each of those rounds' goodput, Mbit/s.
    pub goodputs: Vec<(u32, f64)>,
    /// The delay over those rounds' measured windows (method §12.11).
    pub window: Option<WindowDelay>,
    /// A round whose state changed inside the window: each part of its
    /// window with the probe's delay over it (empty otherwise).
    pub parts: Vec<(WindowPart, Option<WindowDelay>)>,
}

impl StateLatency {
    /// `3 cuts (r1)`, or `3 cuts, changed inside the window (r1)`.
    fn label(&self) -> String {
        format!("{} ({})", self.state, rounds_list(&self.rounds))
    }

    /// The delay part of its line: the window's delay, and for a round
    /// whose state changed inside the window, each part's median with its
    /// share of the window (never one figure for the whole window first).
    fn window_text(&self) -> Option<String> {
        let w = self.window.as_ref()?;
        if self.parts.is_empty() {
            return Some(w.text());
        }
        let what = match w.measure {
            Measure::OneWay => "one-way A→B p50",
            Measure::RttCensored => "RTT p50",
        };
        let values: Vec<(f64, String)> = self
            .parts
            .iter()
            .map(|(p, d)| {
                let v = match d.as_ref().map(|d| d.quantile(0.5)) {
                    None | Some(CensoredQuantile::NoData) => "no sample".to_string(),
                    Some(q) => q.text("ms"),
                };
                (p.to_s, v)
            })
            .collect();
        let shares: Vec<f64> = self.parts.iter().map(|(p, _)| p.share).collect();
        let loss = match w.measure {
            Measure::OneWay => format!("{}; ", w.fates.loss_text()),
            Measure::RttCensored => String::new(),
        };
        Some(format!(
            "{loss}not one state: {what} {} ({} of the window, split at the sender's window cuts)",
            state::parts_text(&values),
            state::shares_text(&shares),
        ))
    }
}

/// One arm's headline.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmHeadline {
    /// Arm kind.
    pub arm: String,
    /// Rounds that completed.
    pub rounds: usize,
    /// Baseline probe p50 over every round (KM).
    pub baseline_p50: CensoredQuantile,
    /// Loaded probe p50 pooled over every round (KM, timeouts censored).
    pub loaded_p50: CensoredQuantile,
    /// Loaded probe p95.
    pub loaded_p95: CensoredQuantile,
    /// Loaded requests with RTT information, and how many timed out.
    pub loaded_requests: usize,
    /// Loaded requests without a reply within the timeout.
    pub loaded_timeouts: usize,
    /// The probe timeout, ms.
    pub timeout_ms: f64,
    /// The probe its RTT figures come from (`stop-and-wait`, or
    /// `isochronous` when only it ran).
    pub probe: Option<&'static str>,
    /// Goodput over the rounds (docs/report.md, "Rounds": the mean of
    /// fewer than three, shown with each round; the median with the range
    /// from three on), Mbit/s.
    pub goodput: Option<netlab_stats::RoundsSummary>,
    /// The arm's drops per round inside the measured window.
    pub drops: Vec<u64>,
    /// The arm's ECN marks per round inside the measured window, where it
    /// counts them.
    pub marks: Vec<u64>,
    /// The arm's drops per round over the whole run (since the arm was
    /// configured: slow start's overshoot included).
    pub drops_total: Vec<u64>,
    /// The rounds' states.
    pub states: ArmStates,
    /// Loaded latency per state, when the rounds disagree.
    pub by_state: Vec<StateLatency>,
    /// Delay and loss apart (method §5.8): every round's request fates,
    /// when B's receive log is in the results.
    pub delivery: Option<ArmDelivery>,
    /// The delay over the measured window, pooled over the rounds (method
    /// §12.11): the isochronous probe's when every round ran it, else the
    /// stop-and-wait probe's, time-weighted. The headline's delay.
    pub window: Option<WindowDelay>,
}

/// The headline of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Headline {
    /// One per arm, in order of first appearance.
    pub arms: Vec<ArmHeadline>,
    /// The comparisons of loaded p50, p95 and goodput between each pair
    /// of arms (their sentences).
    pub comparisons: Vec<String>,
    /// One line per pair of arms whose rounds give a verdict (method
    /// §12.5: at least 3 rounds per arm, none going the other way).
    pub verdicts: Vec<String>,
    /// What the rounds show for each pair of arms that gets no verdict
    /// (fewer than 3 rounds, or rounds that go both ways): never bold.
    pub readings: Vec<String>,
    /// A sweep's points, each with its own headline over its own rounds
    /// (the fields above are then empty: nothing is pooled across points).
    pub points: Vec<PointHeadline>,
    /// A sweep: what changes along each axis, one sentence per axis, arm
    /// and value of the other axes ([`crate::sweep_headline::along`]).
    pub along: Vec<String>,
    /// A sweep whose experiment names models: where each model and the
    /// measurement agree and part ([`crate::sweep::SweepTable::model_sentences`]).
    pub models: Vec<String>,
    /// The figures per arm, pooled and per round
    /// ([`Statistics::figures_table`]), when the arms have any.
    pub figures: Option<netlab_analysis::Table>,
}

/// One point of a sweep and its headline.
#[derive(Debug, Clone, PartialEq)]
pub struct PointHeadline {
    /// 1-based position in the grid.
    pub index: u32,
    /// `rate=5mbit flows=2`.
    pub label: String,
    /// The headline of this point's rounds alone.
    pub headline: Headline,
}

/// The RTT observations of the probe that ran ([`Scenario::rtt_probe`]).
fn obs(s: &Scenario, phase: ProbePhase) -> Vec<Observation> {
    s.rtt_observations(phase)
}

/// Every round's value of a figure of one arm, summarised as the rounds
/// are (never one round for several).
fn over_rounds(st: &Statistics, arm: &str, f: Figure) -> Option<netlab_stats::RoundsSummary> {
    let fig = st.figures.iter().find(|x| x.arm == arm && x.figure == f)?;
    let obs: Vec<Observation> = fig
        .rounds
        .iter()
        .filter_map(|v| match v.value {
            CensoredQuantile::Value(x) => Some(Observation::Exact(x)),
            CensoredQuantile::AtLeast(x) => Some(Observation::AtLeast(x)),
            CensoredQuantile::NoData => None,
        })
        .collect();
    netlab_stats::summarise(&obs)
}

/// `0.31 ms`, `≥ 1000 ms`, `no data`.
fn q(v: &CensoredQuantile, unit: &str) -> String {
    v.text(unit)
}

fn range(v: &[u64]) -> String {
    match (v.iter().min(), v.iter().max()) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a}–{b}"),
        _ => "no data".into(),
    }
}

impl Headline {
    /// The headline of a run, computing its statistics
    /// ([`crate::compare::analyse`]) on the way.
    pub fn of_input(input: &ReportInput) -> Headline {
        Headline::of(input, &crate::compare::analyse(input))
    }

    /// The headline of a run from its input and its statistics
    /// ([`crate::compare::analyse`]). A sweep's is one headline per point,
    /// each over that point's rounds and statistics alone, and the sentences
    /// of what changes along each axis (`st` is then not read).
    pub fn of(input: &ReportInput, st: &Statistics) -> Headline {
        if !input.is_sweep() {
            return of_point(input, st);
        }
        let points = input
            .points()
            .map(|p| PointHeadline {
                index: p.index,
                label: p.label,
                headline: of_point(&p.input, &crate::compare::analyse(&p.input)),
            })
            .collect();
        let table = crate::sweep::SweepTable::of(input);
        Headline {
            arms: Vec::new(),
            comparisons: Vec::new(),
            verdicts: Vec::new(),
            readings: Vec::new(),
            points,
            along: table
                .as_ref()
                .map(crate::sweep_headline::along)
                .unwrap_or_default(),
            models: table
                .as_ref()
                .map(crate::sweep::SweepTable::model_sentences)
                .unwrap_or_default(),
            figures: None,
        }
    }
}

/// The headline of the scenarios of one point (the whole run without a
/// sweep).
pub(crate) fn of_point(input: &ReportInput, st: &Statistics) -> Headline {
    let states = state::ArmStates::of_input(input);
    let mut arms = Vec::new();
    for arm in &st.arms {
        let ok: Vec<&Scenario> = input
            .scenarios
            .iter()
            .filter(|s| &s.arm == arm && s.error.is_none())
            .collect();
        let all = |phase| -> Vec<Observation> { ok.iter().flat_map(|s| obs(s, phase)).collect() };
        let loaded = all(ProbePhase::Loaded);
        let arm_states = states
            .iter()
            .find(|a| &a.arm == arm)
            .cloned()
            .unwrap_or_else(|| state::group_rounds(arm, &[]));
        let by_state = by_state(&ok, &arm_states);
        arms.push(ArmHeadline {
            arm: arm.clone(),
            rounds: ok.len(),
            baseline_p50: censored_quantile(&all(ProbePhase::Baseline), 0.5),
            loaded_p50: censored_quantile(&loaded, 0.5),
            loaded_p95: censored_quantile(&loaded, 0.95),
            loaded_requests: loaded.len(),
            loaded_timeouts: loaded
                .iter()
                .filter(|o| matches!(o, Observation::AtLeast(_)))
                .count(),
            timeout_ms: ok
                .first()
                .map_or(1000.0, |s| match (s.rtt_probe(), &s.iso) {
                    (Some("isochronous"), Some(iso)) => iso.timeout_s * 1000.0,
                    _ => s.probe_timeout_s * 1000.0,
                }),
            probe: ok.first().and_then(|s| s.rtt_probe()),
            goodput: over_rounds(st, arm, Figure::Goodput),
            drops: ok
                .iter()
                .filter_map(|s| s.window_counts().map(|w| w.drops))
                .collect(),
            marks: ok
                .iter()
                .filter_map(|s| s.window_counts().and_then(|w| w.marks))
                .collect(),
            drops_total: ok
                .iter()
                .filter_map(|s| s.final_counters.arm_drops)
                .collect(),
            states: arm_states,
            by_state,
            delivery: ArmDelivery::of(&ok),
            window: WindowDelay::of_rounds(&ok),
        });
    }
    let wanted = [
        Figure::LoadedP50,
        Figure::LoadedP95,
        Figure::Loss,
        Figure::Goodput,
    ];
    let comparisons = st
        .comparisons
        .iter()
        .filter(|c| wanted.contains(&c.figure))
        .map(|c| c.sentence.clone())
        .collect();
    let (mut verdicts, mut readings) = (Vec::new(), Vec::new());
    for c in st
        .comparisons
        .iter()
        .filter(|c| c.figure == Figure::LoadedP50)
    {
        // A reading says what a verdict would qualify, the same way.
        match crate::sentence::reading_clause(c) {
            Some(r) => readings.push(qualified(r, c, &arms)),
            None => verdicts.push(qualified(crate::sentence::verdict_clause(c), c, &arms)),
        }
    }
    Headline {
        arms,
        comparisons,
        verdicts,
        readings,
        points: Vec::new(),
        along: Vec::new(),
        models: Vec::new(),
        figures: (!st.figures.is_empty()).then(|| st.figures_table()),
    }
}

/// Each state's figures over its own rounds, when an arm's rounds fall
/// into several (method §12.6: no pooled figure then).
fn by_state(ok: &[&Scenario], states: &ArmStates) -> Vec<StateLatency> {
    if !states.split() {
        return Vec::new();
    }
    let sampling = Sampling::of(ok);
    states
        .groups
        .iter()
        .map(|g| {
            let mine: Vec<&Scenario> = ok
                .iter()
                .copied()
                .filter(|s| g.rounds.contains(&s.round))
                .collect();
            let o: Vec<Observation> = mine
                .iter()
                .flat_map(|s| obs(s, ProbePhase::Loaded))
                .collect();
            let parts = match (sampling, mine.first()) {
                (Some(sampling), Some(s)) if g.changed() => g
                    .parts
                    .iter()
                    .map(|p| (*p, WindowDelay::of_round(s, sampling, [p.from_s, p.to_s])))
                    .collect(),
                _ => Vec::new(),
            };
            StateLatency {
                state: g.label(),
                rounds: g.rounds.clone(),
                window: sampling.and_then(|_| WindowDelay::of_rounds(&mine)),
                parts,
                p50: censored_quantile(&o, 0.5),
                p95: censored_quantile(&o, 0.95),
                requests: [
                    o.len(),
                    o.iter()
                        .filter(|x| matches!(x, Observation::AtLeast(_)))
                        .count(),
                ],
                delivery: ArmDelivery::of(&mine),
                goodputs: mine
                    .iter()
                    .filter_map(|s| s.window_goodput().map(|g| (s.round, g)))
                    .collect(),
            }
        })
        .collect()
}

/// A verdict's or a reading's line `v` with what qualifies it: which
/// arms' rounds fall into different states, and which rounds changed
/// state inside the window.
fn qualified(mut v: String, c: &Comparison, arms: &[ArmHeadline]) -> String {
    let mine = || arms.iter().filter(|a| a.arm == c.a || a.arm == c.b);
    let split: Vec<String> = mine()
        .filter(|a| a.states.disagree())
        .map(|a| {
            let mut kinds: Vec<state::StateKind> = a.states.groups.iter().map(|g| g.kind).collect();
            kinds.sort();
            kinds.dedup();
            format!(
                "{}'s rounds fall into {} states ({})",
                a.arm,
                kinds.len(),
                a.states
                    .groups
                    .iter()
                    .map(|g| format!("{}: {}", g.label(), rounds_list(&g.rounds)))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        })
        .collect();
    if !split.is_empty() {
        v.push_str(&format!(
            ". Rounds disagree: {}, so a pooled median describes none of them",
            split.join(", ")
        ));
    }
    // A round whose state changed inside the window enters the interval
    // with its whole window's median: the verdict rests on it, and says so.
    let changed: Vec<String> = mine()
        .flat_map(|a| {
            a.states
                .groups
                .iter()
                .filter(|g| g.changed())
                .map(move |g| {
                    format!(
                        "{} {} (at {})",
                        a.arm,
                        rounds_list(&g.rounds),
                        g.change_times()
                    )
                })
        })
        .collect();
    if !changed.is_empty() {
        v.push_str(&format!(
            ". It rests on rounds whose state changed inside the measured window — {} — each counted with its whole window's median, which describes neither part (their parts are in the lines above)",
            changed.join(", ")
        ));
    }
    v
}

impl ArmHeadline {
    /// The latency part: `baseline p50 0.31 ms → loaded p50 1045 ms, p95
    /// ≥ 1000 ms`, or per state when the rounds disagree.
    pub fn latency_text(&self) -> String {
        let probe = match self.probe {
            Some("isochronous") => "isochronous probe RTT",
            _ => "probe RTT",
        };
        let base = format!("{probe} baseline p50 {}", q(&self.baseline_p50, "ms"));
        if self.by_state.is_empty() {
            format!(
                "{base} → loaded p50 {}, p95 {}",
                q(&self.loaded_p50, "ms"),
                q(&self.loaded_p95, "ms")
            )
        } else {
            let parts: Vec<String> = self
                .by_state
                .iter()
                .map(|s| {
                    format!(
                        "{} ({}): p50 {}, p95 {}",
                        s.state,
                        s.rounds
                            .iter()
                            .map(|r| format!("r{r}"))
                            .collect::<Vec<_>>()
                            .join(" "),
                        q(&s.p50, "ms"),
                        q(&s.p95, "ms")
                    )
                })
                .collect();
            format!("{base} → loaded, by state: {}", parts.join("; "))
        }
    }

    /// The arm's probe figures for the headline: the delay over the
    /// measured window as its time saw it (method §12.11) — the
    /// isochronous probe's, or the stop-and-wait probe's time-weighted —
    /// with every sample's fate apart; by state when the rounds disagree,
    /// and by part for a round whose state changed inside the window.
    /// Without either probe's window (no common sampling), the loss and
    /// delay of the stop-and-wait probe's requests (method §5.8), or its
    /// RTT with censoring, saying why.
    pub fn probe_text(&self) -> String {
        // The RTT view (results without B's receive log) keeps the
        // baseline beside the loaded figures, as the method's table does.
        let baseline = match &self.window {
            Some(w) if w.measure == Measure::RttCensored => format!(
                "probe RTT baseline p50 {} → loaded ",
                q(&self.baseline_p50, "ms")
            ),
            _ => String::new(),
        };
        format!("{baseline}{}", self.probe_figures())
    }

    /// [`ArmHeadline::probe_text`] without the baseline.
    fn probe_figures(&self) -> String {
        if !self.by_state.is_empty() {
            let parts: Vec<String> = self
                .by_state
                .iter()
                .filter_map(|s| {
                    let text = match s.window_text() {
                        Some(t) => t,
                        None => s.delivery.as_ref()?.text(),
                    };
                    Some(format!("{}: {text}", s.label()))
                })
                .collect();
            if parts.len() == self.by_state.len() {
                return format!("by state, not pooled: {}", parts.join("; "));
            }
        }
        if let Some(w) = &self.window {
            return w.text();
        }
        match &self.delivery {
            Some(d) => d.text(),
            None if self.probe == Some("isochronous") => format!(
                "{} (RTT of the isochronous probe, the only probe that ran; timeouts censored at {} ms, a late reply's request stays censored)",
                self.latency_text(),
                fmt_num(self.timeout_ms)
            ),
            None => format!(
                "{} (RTT, timeouts censored at {} ms: no B receive log in these results, so a loss and a delay past the timeout look alike)",
                self.latency_text(),
                fmt_num(self.timeout_ms)
            ),
        }
    }

    /// The stop-and-wait probe's own figures, labelled with their sampling,
    /// when the headline's delay is another view of the window: its
    /// requests counted as they came (the seed's way, which over-weights
    /// the moments of low delay).
    pub fn stop_and_wait_text(&self) -> Option<String> {
        let w = self.window.as_ref()?;
        let d = self.delivery.as_ref()?;
        let why = match w.sampling {
            Sampling::Isochronous { .. } => "the headline's delay is the isochronous probe's",
            Sampling::StopAndWaitTimeWeighted => {
                "the headline's delay weights these requests by time"
            }
            // The headline's delay is these requests, counted once.
            Sampling::StopAndWaitPerRequest => return None,
        };
        Some(format!(
            "Stop-and-wait probe, each loaded request counted once (one request outstanding: it samples less often while the queue is long, so these figures over-weight low delay; {why}): {}",
            d.text()
        ))
    }

    /// The rest: goodput, censored/total (only without fates: with them
    /// the loss is said in [`ArmHeadline::probe_text`]), drops or marks.
    pub fn load_text(&self) -> String {
        let loss_said = self.delivery.is_some()
            || self
                .window
                .as_ref()
                .is_some_and(|w| w.measure == Measure::OneWay);
        let censored = if loss_said {
            String::new()
        } else {
            format!(
                "{} of {} loaded probes censored (no reply within {} ms); ",
                self.loaded_timeouts,
                self.loaded_requests,
                fmt_num(self.timeout_ms)
            )
        };
        let goodput = if self.by_state.is_empty() {
            self.goodput.as_ref().map_or_else(
                || "no data".to_string(),
                |g| format!("{} Mbit/s", g.text(fmt_num)),
            )
        } else {
            // Rounds in different states: each round's goodput, with its state.
            let rounds: Vec<String> = self
                .by_state
                .iter()
                .flat_map(|s| {
                    s.goodputs
                        .iter()
                        .map(|(r, g)| format!("r{r} {} Mbit/s ({})", fmt_num(*g), s.state))
                })
                .collect();
            rounds.join(", ")
        };
        let mut t = format!(
            "goodput {goodput}; {censored}drops {} per round in the measured window (whole run {})",
            range(&self.drops),
            range(&self.drops_total)
        );
        if !self.marks.is_empty() && self.marks.iter().any(|m| *m > 0) {
            t.push_str(&format!(
                ", ECN marks {} per round in the window",
                range(&self.marks)
            ));
        }
        t
    }
}

/// `r1 r3`.
fn rounds_list(rounds: &[u32]) -> String {
    rounds
        .iter()
        .map(|r| format!("r{r}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Headline {
    /// A reading's sentence as both outputs print it: `What the rounds
    /// show (no verdict): …`.
    pub fn reading_text(r: &str) -> String {
        format!("What the rounds show: {r}")
    }

    /// The heading of the method's RTT table (method §9).
    pub const METHOD_RTT_HEADING: &str = "The method's probe RTT (docs/method.md §9)";

    /// How the method's RTT table samples the window (method §12.11).
    pub const METHOD_RTT_SAMPLING: &str = "the stop-and-wait probe, each request counted once (one request outstanding: it samples a long queue less often than a short one, so these quantiles over-weight low delay)";

    /// The method's RTT view beside the fates (method §9): per arm the
    /// stop-and-wait RTT with a timeout counted as "≥ timeout", so a seed
    /// reader finds its columns. Only when the headline's own lines say
    /// delay and loss apart (every arm has fates); otherwise those lines
    /// are this view already.
    pub fn method_rtt_table(&self) -> Option<netlab_analysis::Table> {
        if self.arms.is_empty() || self.arms.iter().any(|a| a.delivery.is_none()) {
            return None;
        }
        // Where a timeout was a loss, the table says so beside it.
        let timeouts = |n: usize, d: Option<&ArmDelivery>| match d {
            Some(d) if d.lost() > 0 => format!(
                "{n} ({} of them never reached B: losses, not delays)",
                d.lost()
            ),
            _ => n.to_string(),
        };
        let mut rows = Vec::new();
        for a in &self.arms {
            if a.by_state.is_empty() {
                rows.push(vec![
                    a.arm.clone(),
                    q(&a.baseline_p50, "ms"),
                    q(&a.loaded_p50, "ms"),
                    q(&a.loaded_p95, "ms"),
                    a.loaded_requests.to_string(),
                    timeouts(a.loaded_timeouts, a.delivery.as_ref()),
                ]);
                continue;
            }
            // Rounds in different states: a row per state, none pooled.
            for st in &a.by_state {
                rows.push(vec![
                    format!("{} ({}: {})", a.arm, st.state, rounds_list(&st.rounds)),
                    q(&a.baseline_p50, "ms"),
                    q(&st.p50, "ms"),
                    q(&st.p95, "ms"),
                    st.requests[0].to_string(),
                    timeouts(st.requests[1], st.delivery.as_ref()),
                ]);
            }
        }
        Some(netlab_analysis::Table {
            intro: format!(
                "{}: {}; round-trip times with a timeout counted as ≥ the timeout (a lost request and one delayed past the timeout look alike here); quantiles over every loaded request, censoring-aware; an arm whose rounds fall into different states has a row per state, none pooled.",
                Headline::METHOD_RTT_HEADING,
                Headline::METHOD_RTT_SAMPLING
            ),
            header: [
                "arm",
                "baseline p50",
                "loaded p50",
                "loaded p95",
                "loaded requests",
                "timeouts",
            ]
            .map(String::from)
            .to_vec(),
            rows,
            note: String::new(),
        })
    }

    /// The headline as Markdown (summary.md's first section); a sweep's
    /// says what changes along each axis, then each point's own.
    pub fn markdown(&self) -> String {
        let mut s = String::from("## Headline\n\n");
        if !self.points.is_empty() {
            s.push_str("Along each swept axis (each point's own rounds: every round and their mean below 3 rounds, the median and range from 3 on; sweep.csv has every round):\n\n");
            for a in &self.along {
                s.push_str(&format!("- {a}\n"));
            }
            if !self.models.is_empty() {
                s.push_str("\nThe models beside the measurement (docs/models.md; the dashed lines of the sweep figures):\n\n");
                for m in &self.models {
                    s.push_str(&format!("- {m}\n"));
                }
            }
            for p in &self.points {
                s.push_str(&format!(
                    "\n### Point {}: {}\n\n{}",
                    p.index,
                    p.label,
                    p.headline.arms_markdown()
                ));
            }
            return s;
        }
        s.push_str(&self.arms_markdown());
        s
    }

    /// Which probe the arms' delays come from and over what, said once
    /// above them (method §12.11): `Delay over each round's measured window
    /// (6–18 s): the isochronous probe, …`.
    pub fn delay_note(&self) -> Option<String> {
        let w = self.arms.iter().find_map(|a| {
            a.window
                .as_ref()
                .or_else(|| a.by_state.iter().find_map(|s| s.window.as_ref()))
        })?;
        let span = w.spans.first()?;
        let what = match w.measure {
            Measure::OneWay => "one-way A→B delay of every delivered sample; losses and unresolved samples counted apart",
            Measure::RttCensored => "round-trip time, a timeout censored at the timeout",
        };
        let secs = |t: f64| format!("{}", (t * 100.0).round() / 100.0);
        Some(format!(
            "Delay over each round's measured window ({}–{} s), from {}: the {what} (docs/method.md §12.11).",
            secs(span[0]),
            secs(span[1]),
            w.sampling.words()
        ))
    }

    /// The arms' lines, the method's RTT table and the verdicts.
    fn arms_markdown(&self) -> String {
        let mut s = String::new();
        if let Some(n) = self.delay_note() {
            s.push_str(&format!("{n}\n\n"));
        }
        for a in &self.arms {
            s.push_str(&format!(
                "- **{}** ({} round{}): {}; {}.\n",
                a.arm,
                a.rounds,
                if a.rounds == 1 { "" } else { "s" },
                a.probe_text(),
                a.load_text(),
            ));
            if let Some(sw) = a.stop_and_wait_text() {
                s.push_str(&format!("  {sw}.\n"));
            }
            s.push_str(&format!(
                "  State per round (sender tcp_info): {}\n",
                a.states.text()
            ));
        }
        if let Some(t) = self.method_rtt_table() {
            s.push('\n');
            s.push_str(&t.markdown());
        }
        if !self.verdicts.is_empty() || !self.readings.is_empty() {
            s.push('\n');
            for v in &self.verdicts {
                s.push_str(&format!("**Verdict:** {v}.\n\n"));
            }
            for r in &self.readings {
                s.push_str(&format!("{}.\n\n", Headline::reading_text(r)));
            }
            for c in &self.comparisons {
                s.push_str(&format!("- {c}\n"));
            }
        }
        if let Some(t) = &self.figures {
            s.push('\n');
            s.push_str(&t.markdown());
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> ReportInput {
        let results = netlab_analysis::testing::fixture_results("run-uml-3rounds");
        netlab_analysis::input_from(&results).unwrap()
    }

    #[test]
    fn the_fixture_headline_names_each_arm_and_pfifos_split_rounds() {
        let input = fixture();
        let st = crate::compare::analyse(&input);
        let h = Headline::of(&input, &st);
        assert_eq!(h.arms.len(), 2);
        let pfifo = &h.arms[0];
        assert_eq!(pfifo.arm, "pfifo");
        // Round 2 settles after one cut before the window; round 1's one
        // cut falls 0.6 s into its window (the 2 s warm-up was short), and
        // round 3 is cut again inside the window (cwnd 508 → 255): each of
        // those is a group of its own, with its parts (method §12.6).
        assert!(pfifo.states.disagree(), "{}", pfifo.states.text());
        assert_eq!(pfifo.states.groups[0].rounds, vec![2]);
        assert!(pfifo.states.groups[1..].iter().all(|g| g.changed()));
        assert_eq!(pfifo.by_state.len(), 3);
        let fq = &h.arms[1];
        // fq_codel is no FIFO: the classifier is silent and says why.
        assert!(fq.states.groups.is_empty(), "{}", fq.states.text());
        assert!(
            fq.states
                .text()
                .contains("not classified: the state model holds for a loss-based flow in a FIFO"),
            "{}",
            fq.states.text()
        );
        let md = h.markdown();
        assert!(
            md.starts_with("## Headline\n\nDelay over each round's measured window (4–14 s), from the stop-and-wait probe, each request counted once"),
            "{md}"
        );
        assert!(
            md.contains("- **pfifo** (3 rounds): probe RTT baseline p50 0.490 ms → loaded by state, not pooled: 1 cut (r2): RTT over the window p50 ≥ 1000 ms"),
            "{md}"
        );
        assert!(md.contains("rounds disagree; medians not pooled"), "{md}");
        assert!(
            md.contains("**Verdict:** fq_codel has the lower loaded median than pfifo"),
            "{md}"
        );
        assert!(md.contains("pfifo's rounds fall into 2 states"), "{md}");
        assert!(
            md.contains("It rests on rounds whose state changed inside the measured window — pfifo r1 (at 4.6 s), pfifo r3 (at 4.7 and 11.7 s)"),
            "{md}"
        );
        assert_eq!(h.comparisons.len(), 3);
    }
}
