//! Where each arm lands against the host-share models (docs/models.md,
//! model 5; method §1.7): one sentence per arm and direction, giving each
//! host's measured share of the link round by round (rounds are not
//! pooled) beside the equal host share, the per-flow FQ share and the
//! Mathis ratio at the measured RTTs. summary.md and index.html both say
//! these sentences.

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

/// The sentence for one arm and direction.
fn arm_sentence(scenarios: &[ScenarioFigures], arm: &str, direction: &str) -> String {
    // (round, host share) per scenario of this arm, in run order.
    let rounds: Vec<(u32, &netlab_results::shares::DirectionShares)> = scenarios
        .iter()
        .filter(|sc| sc.arm == arm)
        .flat_map(|sc| {
            sc.host_shares
                .iter()
                .filter(|d| d.direction == direction)
                .map(move |d| (sc.round, d))
        })
        .collect();
    let mut hosts: Vec<&str> = Vec::new();
    for (_, d) in &rounds {
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
                .filter_map(|(r, d)| d.hosts.iter().find(|h| h.host == *host).map(|h| (*r, h)))
                .collect();
            let shares: Vec<String> = per_round.iter().map(|(_, h)| fmt3(h.share)).collect();
            let mathis: Vec<String> = per_round
                .iter()
                .map(|(_, h)| fmt3(h.model_mathis))
                .collect();
            let numbers: Vec<String> = per_round.iter().map(|(r, _)| r.to_string()).collect();
            let first = per_round.first().map(|(_, h)| *h);
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
    format!("{arm} {direction}: {}.", parts.join("; "))
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
                "cake dual-srchost up: host a1 got 0.478 and 0.455 of the link (rounds 1, 2); the equal host share is 0.500, per-flow FQ would give 0.111, Mathis at the measured RTTs – and –; host a2 got 0.522 and 0.545 of the link (rounds 1, 2); the equal host share is 0.500, per-flow FQ would give 0.889, Mathis at the measured RTTs – and –."
                    .to_string()
            ]
        );
    }
}
