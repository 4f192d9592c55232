//! The summary's sender-host section (docs/method.md §1.7): per scenario
//! and direction, each host's flows, goodput and share of the link, and
//! Jain's index over the flows and over the hosts, from
//! `netlab_results::shares` (the numbers flows.csv gives).

use std::fmt::Write as _;

use netlab_analysis::summary::ScenarioFigures;

fn fmt3(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{v:.3}"))
}

/// One line per scenario and direction: each host's flows, goodput and
/// share, and both Jain indices. `None` when no scenario has hosts.
pub fn hosts_section(scenarios: &[ScenarioFigures]) -> Option<String> {
    if scenarios.iter().all(|s| s.host_shares.is_empty()) {
        return None;
    }
    let mut s = String::from(
        "Who got the link, per sender host (method §1.7; shares of the direction's window goodput beside the three models of docs/models.md, model 5; Jain's index over the flows and over the hosts):\n\n",
    );
    for sc in scenarios {
        for d in &sc.host_shares {
            let hosts: Vec<String> = d
                .hosts
                .iter()
                .map(|h| {
                    format!(
                        "{} ({} flow{}) {} Mbit/s, share {} (models: per flow {}, equal hosts {}, Mathis at the measured RTTs {})",
                        h.host,
                        h.flows,
                        if h.flows == 1 { "" } else { "s" },
                        fmt3(h.goodput_mbps),
                        fmt3(h.share),
                        fmt3(Some(h.model_per_flow)),
                        fmt3(Some(h.model_equal_host)),
                        fmt3(h.model_mathis)
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                "- scenario {} (round {}, {}) {}: {}; Jain over flows {}, over hosts {}",
                sc.index,
                sc.round,
                sc.arm,
                d.direction,
                hosts.join("; "),
                fmt3(d.jain_flows),
                fmt3(d.jain_hosts)
            );
        }
    }
    // The same shares by arm, each round beside the models (index.html
    // says them too: it carries this section word for word).
    s.push_str("\nWhere each arm lands against the models, round by round:\n\n");
    for sentence in netlab_analysis::hosts::arm_sentences(scenarios) {
        let _ = writeln!(s, "- {sentence}");
    }
    figure_sentence(&mut s, scenarios);
    Some(s)
}

/// Names the figure of each direction with several sender hosts
/// ([`netlab_figures::plot_hosts`]) and which dashed line is which model.
fn figure_sentence(s: &mut String, scenarios: &[ScenarioFigures]) {
    let directions = netlab_figures::plot_hosts::directions(scenarios);
    if directions.is_empty() {
        return;
    }
    // A sweep draws it point by point (`p01-hosts-share-up.svg`, …).
    let first = scenarios.first().map(|f| f.point_index);
    let sweep = scenarios.iter().any(|f| Some(f.point_index) != first);
    let files: Vec<String> = directions
        .iter()
        .map(|d| {
            let prefix = if sweep { "pNN-" } else { "" };
            format!("`{prefix}{}`", netlab_figures::plot_hosts::file_name(d))
        })
        .collect();
    let _ = writeln!(
        s,
        "\n{} draw{} these shares{}, a marker per host and round, beside the models dashed: {}.",
        files.join(" and "),
        if files.len() == 1 { "s" } else { "" },
        if sweep { " (one per sweep point)" } else { "" },
        netlab_figures::plot_hosts::model_key()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_results::shares::{of_flows, FlowGoodput};
    use netlab_results::{HostResult, ScenarioResult};

    #[test]
    fn each_host_gets_its_share_and_both_jain_indices() {
        let s = ScenarioResult {
            index: 1,
            round: 1,
            arm: "fq_codel".into(),
            ..ScenarioResult::default()
        };
        let mut fig = ScenarioFigures::of(&s);
        // Without [[hosts]] there is no section.
        assert!(fig.host_shares.is_empty());
        assert_eq!(hosts_section(std::slice::from_ref(&fig)), None);
        let f = |host| FlowGoodput {
            direction: "up",
            host,
            goodput_mbps: Some(1.0),
            rtt_ms: None,
        };
        let mut flows = vec![f("a1")];
        flows.extend((0..8).map(|_| f("a2")));
        fig.host_shares = of_flows(&flows).directions;
        let text = hosts_section(&[fig]).unwrap();
        assert!(
            text.contains("- scenario 1 (round 1, fq_codel) up: a1 (1 flow) 1.000 Mbit/s, share 0.111 (models: per flow 0.111, equal hosts 0.500, Mathis at the measured RTTs –); a2 (8 flows) 8.000 Mbit/s, share 0.889 (models: per flow 0.889, equal hosts 0.500, Mathis at the measured RTTs –); Jain over flows 1.000, over hosts 0.623"),
            "{text}"
        );
        assert!(
            text.contains("\n\nWhere each arm lands against the models, round by round:\n\n- fq_codel up: host a1 got 0.111 of the link (round 1); the equal host share is 0.500, per-flow FQ would give 0.111, Mathis at the measured RTTs not applicable (the window's drops were not read); host a2 got 0.889 of the link (round 1);"),
            "{text}"
        );
        // Two sender hosts up: the figure is named, with its key.
        assert!(
            text.ends_with("\n`hosts-share-up.svg` draws these shares, a marker per host and round, beside the models dashed: per-flow FQ dark grey, the equal host share light grey, Mathis at the measured RTTs magenta.\n"),
            "{text}"
        );
        // A scenario with hosts but no flow result yet: the hosts'
        // shares are computed from its flows (none here).
        let with = ScenarioResult {
            hosts: vec![HostResult::default()],
            ..s
        };
        assert!(ScenarioFigures::of(&with).host_shares.is_empty());
    }
}
