//! Where each arm lands against the host-share models (docs/models.md,
//! model 5; method §1.7): one sentence per arm and direction, giving each
//! host's measured share of the link round by round (rounds are not
//! pooled) beside the equal host share, the per-flow FQ share and the
//! Mathis ratio at the measured RTTs, and which model each round sits
//! nearest, by how much. summary.md and index.html both say these
//! sentences.

use netlab_results::shares::{DirectionShares, HostShare};

use crate::host_conditions::{HostConditions, SETTLED_WITHIN};
use crate::summary::ScenarioFigures;

fn fmt3(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{v:.3}"))
}

/// "a, b and c" from a list of already formatted items.
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// One sentence per arm and direction, arms and hosts in the order they
/// first appear; empty when no scenario has hosts.
pub fn arm_sentences(scenarios: &[ScenarioFigures]) -> Vec<String> {
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for sc in scenarios {
        for d in &sc.host_shares {
            let key = (sc.arm.as_str(), d.direction.as_str());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys.into_iter()
        .map(|(arm, direction)| arm_sentence(scenarios, arm, direction))
        .collect()
}

/// One round of an arm in one direction: its shares and whether the
/// models apply to it.
type RoundShares<'a> = (u32, &'a DirectionShares, &'a HostConditions);

/// The sentence for one arm and direction.
fn arm_sentence(scenarios: &[ScenarioFigures], arm: &str, direction: &str) -> String {
    // (round, host share, conditions) per scenario of this arm, in run order.
    let rounds: Vec<RoundShares<'_>> = scenarios
        .iter()
        .filter(|sc| sc.arm == arm)
        .flat_map(|sc| {
            sc.host_shares
                .iter()
                .filter(|d| d.direction == direction)
                .map(move |d| (sc.round, d, &sc.host_conditions))
        })
        .collect();
    let mut hosts: Vec<&str> = Vec::new();
    for (_, d, _) in &rounds {
        for h in &d.hosts {
            if !hosts.contains(&h.host.as_str()) {
                hosts.push(&h.host);
            }
        }
    }
    let parts: Vec<String> = hosts
        .iter()
        .map(|host| {
            let per_round: Vec<_> = rounds
                .iter()
                .filter_map(|(r, d, c)| {
                    d.hosts.iter().find(|h| h.host == *host).map(|h| (*r, h, *c))
                })
                .collect();
            let shares: Vec<String> = per_round.iter().map(|(_, h, _)| fmt3(h.share)).collect();
            let why: Vec<Option<&str>> = per_round.iter().map(|(_, _, c)| c.no_mathis()).collect();
            let mathis: Vec<String> = match why.first() {
                // Not applicable in every round, for one reason: said once.
                Some(Some(w)) if why.iter().all(|x| x == &Some(*w)) => {
                    vec![format!("not applicable ({w})")]
                }
                _ => per_round
                    .iter()
                    .map(|(_, h, c)| match c.no_mathis() {
                        Some(w) => format!("not applicable ({w})"),
                        None => fmt3(h.model_mathis),
                    })
                    .collect(),
            };
            let numbers: Vec<String> = per_round.iter().map(|(r, ..)| r.to_string()).collect();
            let first = per_round.first().map(|(_, h, _)| *h);
            format!(
                "host {host} got {} of the link (round{} {}); the equal host share is {}, per-flow FQ would give {}, Mathis at the measured RTTs {}",
                and_list(&shares),
                if numbers.len() == 1 { "" } else { "s" },
                numbers.join(", "),
                fmt3(first.map(|h| h.model_equal_host)),
                fmt3(first.map(|h| h.model_per_flow)),
                and_list(&mathis)
            )
        })
        .collect();
    format!(
        "{arm} {direction}: {}. {}",
        parts.join("; "),
        nearest_clause(&rounds, direction)
    )
}

/// A host's value under one model (`None`: the model has none for it).
type ModelOf = fn(&HostShare) -> Option<f64>;

/// Why a model does not apply to a round (`None`: it does).
type ModelCondition = fn(&HostConditions) -> Option<&'static str>;

/// The three models, by the words a sentence names them with, each
/// host's value under it, and why it does not apply to a round (`None`:
/// it does).
const MODELS: [(&str, ModelOf, ModelCondition); 3] = [
    ("per-flow FQ", |h| Some(h.model_per_flow), |_| None),
    (
        "the equal host share",
        |h| Some(h.model_equal_host),
        |_| None,
    ),
    (
        "Mathis at the measured RTTs",
        |h| h.model_mathis,
        HostConditions::no_mathis,
    ),
];

/// How far a round's shares sit from one model: the largest gap of any
/// host's share to its value under the model (`None` when a host has no
/// share or no value under it).
fn gap(d: &DirectionShares, model: ModelOf) -> Option<f64> {
    d.hosts.iter().try_fold(0.0_f64, |worst, h| {
        Some(worst.max((h.share? - model(h)?).abs()))
    })
}

/// How far the arm's rounds sit from each model, and which is nearest:
/// "Largest gap of a host's share to each model over the rounds: per-flow
/// FQ 0.003, the equal host share 0.389, Mathis at the measured RTTs 0.002
/// (nearest: Mathis at the measured RTTs; why: docs/models.md, model 5)."
/// A gap is the largest of any host's share to its value under the model,
/// over every round it applies to. No threshold calls a share "on" a
/// model: every gap is printed. Models whose gaps lie within the
/// measurement's resolution of the smallest (1 % of the rate, as a share
/// 0.010; method §12.9) are named nearest together: the measurement
/// cannot rank them. A round whose shares had not settled (a host's share
/// moved more than [`SETTLED_WITHIN`] between the window's halves) is
/// compared with no model, and a model whose conditions fail in a settled
/// round (Mathis's without drops) is not compared: the clause says why.
fn nearest_clause(all: &[RoundShares<'_>], direction: &str) -> String {
    let unsettled: Vec<String> = all
        .iter()
        .filter_map(|(r, _, c)| {
            c.unsettled(direction)
                .map(|why| format!("round {r}: {why}"))
        })
        .collect();
    let rounds: Vec<&RoundShares<'_>> = all
        .iter()
        .filter(|(_, _, c)| c.unsettled(direction).is_none())
        .collect();
    let settled_words = format!(
        "a share that moved more than {SETTLED_WITHIN:.2} between the measured window's halves had not settled"
    );
    if rounds.is_empty() {
        return format!(
            "No model is compared: not applicable, no round's share had settled ({}; {settled_words}; docs/models.md, model 5).",
            unsettled.join("; ")
        );
    }
    let applies: Vec<Result<(), String>> = MODELS
        .iter()
        .map(|(_, _, cond)| {
            let why: Vec<String> = rounds
                .iter()
                .filter_map(|(r, _, c)| cond(c).map(|w| format!("round {r}: {w}")))
                .collect();
            if why.is_empty() {
                Ok(())
            } else {
                Err(why.join("; "))
            }
        })
        .collect();
    let worst: Vec<Option<f64>> = MODELS
        .iter()
        .zip(&applies)
        .map(|((_, m, _), ok)| {
            ok.as_ref().ok()?;
            rounds
                .iter()
                .try_fold(0.0_f64, |w, (_, d, _)| Some(w.max(gap(d, *m)?)))
        })
        .collect();
    let gaps: Vec<String> = MODELS
        .iter()
        .zip(&worst)
        .zip(&applies)
        .map(|(((name, ..), g), ok)| match ok {
            Ok(()) => format!("{name} {}", fmt3(*g)),
            Err(why) => format!("{name} not applicable ({why})"),
        })
        .collect();
    let best = worst.iter().flatten().copied().reduce(f64::min);
    // A share is a ratio of two goodputs, each good to the measurement's
    // resolution (1 % of the rate, method §12.9), so gaps closer than that
    // cannot rank their models.
    let resolution = crate::records::GOODPUT_RESOLUTION;
    let near: Vec<usize> = (0..MODELS.len())
        .filter(|&i| matches!((worst[i], best), (Some(g), Some(b)) if g <= b + resolution))
        .collect();
    let names: Vec<String> = near.iter().map(|&i| MODELS[i].0.to_string()).collect();
    // Models that give every host of every round the same value (to the
    // printed three decimals) are one prediction here.
    let alike = near.windows(2).all(|w| {
        rounds.iter().all(|(_, d, _)| {
            d.hosts
                .iter()
                .all(|h| fmt3((MODELS[w[0]].1)(h)) == fmt3((MODELS[w[1]].1)(h)))
        })
    });
    let nearest = match names.len() {
        0 => "none: a host has no share".to_string(),
        1 => names[0].clone(),
        _ if alike => format!("{} (alike here)", and_list(&names)),
        _ => format!(
            "{} (gaps within {resolution:.3} of each other, the measurement's resolution: \
             method §12.9)",
            and_list(&names)
        ),
    };
    let over = if unsettled.is_empty() {
        "the rounds".to_string()
    } else {
        format!(
            "the settled rounds (not applicable to {}: {settled_words})",
            unsettled.join("; ")
        )
    };
    format!(
        "Largest gap of a host's share to each model over {over}: {} \
         (nearest: {nearest}; why: docs/models.md, model 5).",
        gaps.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    fn fig(round: u32, arm: &str, a1: f64, a2_each: f64) -> ScenarioFigures {
        let mut flows = vec![("a1", a1, None)];
        flows.extend((0..8).map(|_| ("a2", a2_each, None)));
        crate::testing::host_figures(round, arm, &flows)
    }

    #[test]
    fn one_sentence_per_arm_with_each_round_and_the_models() {
        assert!(arm_sentences(&[]).is_empty());
        // Round 1: a1 4.4 of 4.4 + 8 × 0.6 = 9.2 → 0.478; a2 4.8/9.2 →
        // 0.522. Round 2: a1 4.0 of 4.0 + 8 × 0.6 = 8.8 → 0.455; a2
        // 4.8/8.8 → 0.545. Models: equal hosts 1/2; per flow 1/9 = 0.111
        // for a1, 8/9 = 0.889 for a2; no RTTs, so no Mathis ratio.
        let figs = [
            fig(1, "cake dual-srchost", 4.4, 0.6),
            fig(2, "cake dual-srchost", 4.0, 0.6),
        ];
        assert_eq!(
            arm_sentences(&figs),
            vec![
                "cake dual-srchost up: host a1 got 0.478 and 0.455 of the link (rounds 1, 2); the equal host share is 0.500, per-flow FQ would give 0.111, Mathis at the measured RTTs – and –; host a2 got 0.522 and 0.545 of the link (rounds 1, 2); the equal host share is 0.500, per-flow FQ would give 0.889, Mathis at the measured RTTs – and –. \
                 Largest gap of a host's share to each model over the rounds: per-flow FQ 0.367, \
                 the equal host share 0.045, Mathis at the measured RTTs – (nearest: the equal host share; \
                 why: docs/models.md, model 5)."
                    .to_string()
            ]
        );
    }

    #[test]
    fn every_models_largest_gap_is_said_and_the_nearest_named() {
        // near at 20 ms, far at 40 ms, one flow each: Mathis gives near
        // (1/20) / (1/20 + 1/40) = 0.667; per-flow FQ and the equal host
        // share both give 0.5. Round 1: near 0.778, 0.111 from Mathis,
        // 0.278 from 0.5. Round 2: near 0.560, 0.060 from 0.5, 0.107 from
        // Mathis. Over both rounds Mathis's largest gap (0.111) is the
        // smallest; round 2 alone sits nearer the other two, which print
        // alike and are named together.
        let fig = |round, near, far| {
            crate::testing::host_figures(
                round,
                "pfifo",
                &[("near", near, Some(20.0)), ("far", far, Some(40.0))],
            )
        };
        let tail = |figs: &[ScenarioFigures]| {
            let s = arm_sentences(figs);
            assert_eq!(s.len(), 1);
            s[0].split(". Largest gap").nth(1).unwrap().to_string()
        };
        assert_eq!(
            tail(&[fig(1, 7.78, 2.22), fig(2, 5.6, 4.4)]),
            " of a host's share to each model over the rounds: per-flow FQ 0.278, the equal \
             host share 0.278, Mathis at the measured RTTs 0.111 (nearest: Mathis at the \
             measured RTTs; why: docs/models.md, model 5)."
        );
        assert_eq!(
            tail(&[fig(2, 5.6, 4.4)]),
            " of a host's share to each model over the rounds: per-flow FQ 0.060, the equal \
             host share 0.060, Mathis at the measured RTTs 0.107 (nearest: per-flow FQ and \
             the equal host share (alike here); why: docs/models.md, model 5)."
        );
    }
}
