//! The delay over the measured window as the window's time saw it (method
//! §12.11): the probe whose samples stand for equal stretches of time, or
//! weights that make them.
//!
//! The stop-and-wait probe (method §5) sends its next request 200 ms after
//! the last reply, so it samples five times a second while the queue is
//! short and once a second while it is long: a quantile over its requests
//! over-weights the moments of low delay (the inspection paradox). The
//! isochronous probe (method §10) sends a slot every interval whatever is
//! outstanding, so each slot stands for the same time and its quantiles are
//! over the window's time. Where a run has no isochronous probe, each
//! stop-and-wait request is weighted by the time until the next request
//! left A (the last one by the time until it completed; none past the
//! span's end), which is the time its delay stood for.
//!
//! Every slot's fate stays apart (method §5.8): delivered slots are delays,
//! slots the arm dropped are losses, unresolved slots neither; only the
//! delivered ones enter the quantiles.
//!
//! ```
//! use netlab_compare::window::{Sampling, WindowDelay};
//! let path = concat!(env!("CARGO_MANIFEST_DIR"),
//!     "/../../fixtures/orchestrator/golden/results.json");
//! let results = netlab_results::Results::read(path.as_ref()).unwrap();
//! let input = netlab_analysis::input_from(&results).unwrap();
//! let s = &input.scenarios[0];
//! let span = s.measured_window.unwrap();
//! let w = WindowDelay::of_round(s, Sampling::of(&[s]).unwrap(), span).unwrap();
//! assert!(w.sent() > 0);
//! ```

use netlab_results::fate::{Fate, RequestFate};

use netlab_analysis::records::{ProbeOutcome, Scenario};
use netlab_analysis::ArmDelivery;
use netlab_stats::{fmt_num, weighted_censored_quantile, CensoredQuantile, Observation};

/// Which probe a window delay comes from, and how its samples are weighted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// The isochronous probe: a slot every `interval_ms` from t0, whatever
    /// is outstanding; every slot stands for the same time.
    Isochronous {
        /// Slot interval, ms.
        interval_ms: f64,
    },
    /// The stop-and-wait probe, each request weighted by the time until the
    /// next request left A (or the span's end): where every round has B's
    /// receive log, so a lost request is a loss and weighs nothing.
    StopAndWaitTimeWeighted,
    /// The stop-and-wait probe, each request counted once: results without
    /// B's receive log, where a timeout may be a loss or a delay and the
    /// second it waited cannot honestly be given to either. These
    /// quantiles over-weight the moments of low delay, and say so.
    StopAndWaitPerRequest,
}

impl Sampling {
    /// The sampling a set of rounds is read with: the isochronous probe
    /// when every round ran it, else the stop-and-wait probe, time-weighted,
    /// when every round ran that; `None` otherwise.
    pub fn of(rounds: &[&Scenario]) -> Option<Sampling> {
        if rounds.is_empty() {
            return None;
        }
        if let Some(iso) = rounds
            .iter()
            .map(|s| s.iso.as_ref())
            .collect::<Option<Vec<_>>>()
        {
            let interval_ms = iso[0].interval_ms;
            if iso.iter().all(|i| i.interval_ms == interval_ms) {
                return Some(Sampling::Isochronous { interval_ms });
            }
        }
        if !rounds.iter().all(|s| !s.probes.is_empty()) {
            return None;
        }
        let logged = rounds
            .iter()
            .all(|s| s.fates.as_ref().is_some_and(|f| f.shared_clock));
        Some(if logged {
            Sampling::StopAndWaitTimeWeighted
        } else {
            Sampling::StopAndWaitPerRequest
        })
    }

    /// `isochronous probe, a slot every 20 ms (time-uniform)`.
    pub fn words(&self) -> String {
        match self {
            Sampling::Isochronous { interval_ms } => format!(
                "the isochronous probe, a slot every {} ms whatever is outstanding (time-uniform)",
                // 20, not 20.0: the interval as it was asked for.
                (interval_ms * 1e3).round() / 1e3
            ),
            Sampling::StopAndWaitTimeWeighted => {
                "the stop-and-wait probe, each request weighted by the time until the next one left A (these results have no isochronous probe)".into()
            }
            Sampling::StopAndWaitPerRequest => {
                "the stop-and-wait probe, each request counted once: it waits out a long delay and samples a short one often, so these quantiles over-weight low delay (these results have neither an isochronous probe nor B's receive log, without which a timeout's second cannot be weighted as loss or delay)".into()
            }
        }
    }

    /// What one sample is called: `slots` or `requests`.
    pub fn noun(&self) -> &'static str {
        match self {
            Sampling::Isochronous { .. } => "slots",
            Sampling::StopAndWaitTimeWeighted | Sampling::StopAndWaitPerRequest => "requests",
        }
    }
}

/// What a window delay measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// The one-way A→B delay of every delivered sample (B's receive log on
    /// A's clock, method §5.8): losses apart.
    OneWay,
    /// The round-trip time, a sample without a reply within the timeout
    /// censored at the timeout (results without B's receive log: a loss
    /// and a delay past the timeout look alike).
    RttCensored,
}

/// The delay over a span of one round, or pooled over several rounds'
/// spans: weighted samples and every sample's fate.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowDelay {
    /// The probe and its weights.
    pub sampling: Sampling,
    /// What is measured.
    pub measure: Measure,
    /// The spans, s from t0, one per round pooled.
    pub spans: Vec<[f64; 2]>,
    /// The fates of the samples in the spans ([`Measure::OneWay`]; with
    /// [`Measure::RttCensored`] only `sent` and `replied` are counted, the
    /// rest are [`WindowDelay::timeouts`]).
    pub fates: ArmDelivery,
    /// Samples without a reply within the timeout ([`Measure::RttCensored`]).
    pub timeouts: u32,
    /// Every delivered (or, RTT, replied or censored) sample with the
    /// time it stands for, s.
    pub samples: Vec<(Observation, f64)>,
    /// The time the samples that never reached B stood for, s: the
    /// stretches the quantiles do not see.
    pub lost_s: f64,
}

/// A span's bounds contain `t`.
fn within(span: [f64; 2], t: f64) -> bool {
    t >= span[0] && t < span[1]
}

impl WindowDelay {
    /// The delay of round `s` over `span` (s from t0) with `sampling`:
    /// `None` when the round lacks that probe.
    pub fn of_round(s: &Scenario, sampling: Sampling, span: [f64; 2]) -> Option<WindowDelay> {
        let timeout_ms = match sampling {
            Sampling::Isochronous { .. } => s.iso.as_ref()?.timeout_s * 1e3,
            _ => s.probe_timeout_s * 1e3,
        };
        let fates = match sampling {
            Sampling::Isochronous { .. } => s.iso.as_ref()?.fates.as_ref(),
            Sampling::StopAndWaitTimeWeighted => s.fates.as_ref(),
            Sampling::StopAndWaitPerRequest => None,
        };
        let closed_s = match sampling {
            Sampling::Isochronous { .. } => s.iso.as_ref()?.closed_s,
            _ => s.echo_closed_s,
        };
        let measure = match fates {
            Some(f) if f.shared_clock => Measure::OneWay,
            _ => Measure::RttCensored,
        };
        let mut w = WindowDelay {
            sampling,
            measure,
            spans: vec![span],
            fates: ArmDelivery::empty(s, timeout_ms, sampling.noun()),
            timeouts: 0,
            samples: Vec::new(),
            lost_s: 0.0,
        };
        for (at, weight, seq, outcome) in timed(s, sampling, span)? {
            if !within(span, at) {
                continue;
            }
            match (measure, fates) {
                (Measure::OneWay, Some(f)) => {
                    let Some(r) = find(&f.requests, seq) else {
                        continue;
                    };
                    let mut one_way = Vec::new();
                    let lost = w.fates.lost();
                    w.fates.count(&r.fate, &mut one_way);
                    // An unresolved request is censored at its own bound,
                    // B's close less its send (method §5.8).
                    if let (Fate::Unresolved, Some(c), Some(t)) = (&r.fate, closed_s, r.send_s) {
                        w.fates
                            .censored_ms
                            .push(netlab_analysis::own_bound_ms(c, t));
                    }
                    if w.fates.lost() > lost {
                        w.lost_s += weight;
                    }
                    w.samples
                        .extend(one_way.into_iter().map(|v| (Observation::Exact(v), weight)));
                }
                _ => w.count_rtt(outcome, timeout_ms, weight),
            }
        }
        w.fates.censored_ms.sort_by(f64::total_cmp);
        w.fates.past_timeout = w
            .samples
            .iter()
            .filter(|(o, _)| matches!(o, Observation::Exact(v) if *v >= timeout_ms))
            .count() as u32;
        Some(w)
    }

    fn count_rtt(&mut self, o: ProbeOutcome, timeout_ms: f64, weight: f64) {
        match o {
            ProbeOutcome::Reply { rtt_ms } => {
                self.fates.sent += 1;
                self.fates.replied += 1;
                self.samples.push((Observation::Exact(rtt_ms), weight));
            }
            ProbeOutcome::Timeout => {
                self.fates.sent += 1;
                self.timeouts += 1;
                self.samples
                    .push((Observation::AtLeast(timeout_ms), weight));
            }
            ProbeOutcome::NoInformation => {}
        }
    }

    /// The window delay of each of `rounds` over its measured window,
    /// pooled: `None` without a common sampling, or when rounds measure
    /// differently (one-way in some, RTT in others).
    pub fn of_rounds(rounds: &[&Scenario]) -> Option<WindowDelay> {
        let sampling = Sampling::of(rounds)?;
        let each: Vec<WindowDelay> = rounds
            .iter()
            .map(|s| WindowDelay::of_round(s, sampling, s.window()))
            .collect::<Option<_>>()?;
        WindowDelay::pool(each)
    }

    /// Several windows as one: their samples and fates together. `None`
    /// when empty or when they measure differently.
    pub fn pool(each: Vec<WindowDelay>) -> Option<WindowDelay> {
        let mut it = each.into_iter();
        let mut out = it.next()?;
        for w in it {
            if w.measure != out.measure || w.sampling != out.sampling {
                return None;
            }
            out.spans.extend(w.spans);
            out.fates.add(&w.fates);
            out.timeouts += w.timeouts;
            out.samples.extend(w.samples);
            out.lost_s += w.lost_s;
        }
        Some(out)
    }

    /// Samples of the spans that left A (delivered, lost, unresolved;
    /// RTT: replied or timed out).
    pub fn sent(&self) -> u32 {
        self.fates.sent
    }

    /// The `p`-quantile of the delivered samples, time-weighted.
    pub fn quantile(&self, p: f64) -> CensoredQuantile {
        weighted_censored_quantile(&self.samples, p)
    }

    /// The time the samples in the quantiles stand for, s.
    pub fn weight_s(&self) -> f64 {
        self.samples.iter().map(|(_, w)| w).sum()
    }

    /// `one-way A→B over the window p50 4.14 ms, p95 12.9 ms, p99 13.4 ms
    /// (n = 1640 slots)`: the sampling is said once beside the lines
    /// ([`Sampling::words`]).
    pub fn delay_text(&self) -> String {
        let what = match self.measure {
            Measure::OneWay => "one-way A→B",
            Measure::RttCensored => "RTT",
        };
        if self.samples.is_empty() {
            return format!("no delivered {} in the window", self.sampling.noun());
        }
        let mut t = format!(
            "{what} over the window p50 {}, p95 {}, p99 {} (n = {} {}",
            self.quantile(0.5).text("ms"),
            self.quantile(0.95).text("ms"),
            self.quantile(0.99).text("ms"),
            self.samples.len(),
            self.sampling.noun(),
        );
        if self.sampling == Sampling::StopAndWaitTimeWeighted {
            t.push_str(&format!(", standing for {} s", fmt_num(self.weight_s())));
            if self.lost_s > 0.0 {
                t.push_str(&format!(
                    "; {} s behind requests that never reached B",
                    fmt_num(self.lost_s)
                ));
            }
        }
        match self.measure {
            Measure::OneWay if self.fates.past_timeout > 0 => t.push_str(&format!(
                "; {} past the {} ms timeout, exact from B's log",
                self.fates.past_timeout,
                fmt_num(self.fates.timeout_ms)
            )),
            Measure::RttCensored => t.push_str(&format!(
                "; {} of {} censored at {} ms: no B receive log in these results, so a loss and a delay past the timeout look alike",
                self.timeouts,
                self.fates.sent,
                fmt_num(self.fates.timeout_ms)
            )),
            _ => {}
        }
        t.push(')');
        t
    }

    /// The fates, then the delay: `8 of 1,650 loaded slots dropped by
    /// CoDel (…); one-way A→B p50 …`.
    pub fn text(&self) -> String {
        match self.measure {
            Measure::OneWay => format!("{}; {}", self.fates.loss_text(), self.delay_text()),
            Measure::RttCensored => self.delay_text(),
        }
    }
}

/// The request of `seq` among `requests` (in sequence order).
fn find(requests: &[RequestFate], seq: u32) -> Option<&RequestFate> {
    match requests.binary_search_by_key(&seq, |r| r.seq) {
        Ok(i) => Some(&requests[i]),
        Err(_) => requests.iter().find(|r| r.seq == seq),
    }
}

/// Every sample of round `s` with the time that places it in a span (the
/// isochronous slot's due time, the stop-and-wait request's send time),
/// the time it stands for, s, its sequence number and its outcome.
fn timed(
    s: &Scenario,
    sampling: Sampling,
    span: [f64; 2],
) -> Option<Vec<(f64, f64, u32, ProbeOutcome)>> {
    match sampling {
        Sampling::Isochronous { .. } => {
            let iso = s.iso.as_ref()?;
            let weight = iso.interval_ms / 1e3;
            Some(
                iso.requests
                    .iter()
                    .map(|r| (r.due_s, weight, r.seq, r.outcome))
                    .collect(),
            )
        }
        Sampling::StopAndWaitPerRequest => Some(
            s.probes
                .iter()
                .map(|p| (p.send_s, 1.0, p.seq, p.outcome))
                .collect(),
        ),
        Sampling::StopAndWaitTimeWeighted => {
            let mut sends: Vec<(f64, u32, ProbeOutcome)> = s
                .probes
                .iter()
                .map(|p| (p.send_s, p.seq, p.outcome))
                .filter(|(t, _, _)| t.is_finite())
                .collect();
            sends.sort_by(|a, b| a.0.total_cmp(&b.0));
            // The last request stands until it completed (its reply, or
            // its timeout): nothing after it says what the queue did.
            let mut out = Vec::with_capacity(sends.len());
            for (i, (t, seq, o)) in sends.iter().enumerate() {
                let completed = t + match o {
                    ProbeOutcome::Reply { rtt_ms } => rtt_ms / 1e3,
                    _ => s.probe_timeout_s,
                };
                let next = sends.get(i + 1).map_or(completed, |n| n.0);
                let weight = (next.min(span[1]) - t).max(0.0);
                out.push((*t, weight, *seq, *o));
            }
            Some(out)
        }
    }
}
