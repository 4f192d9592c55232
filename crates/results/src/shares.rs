//! Who got the link (docs/method.md §1.7): each flow's share of its
//! direction's goodput, each sender host's goodput and share, and Jain's
//! index over the flows and over the hosts. One definition, which
//! flows.csv and summary.md both call.
//!
//! A share needs every flow of its direction to have a goodput: one
//! missing makes the direction's total unknown, and every share in it is
//! absent rather than too large. Without `[[hosts]]` every flow is from the
//! one sender, which is then the only host.
//!
//! Beside each host's measured share, its three models (docs/models.md,
//! model 5): the per-flow share of per-flow FQ (its flows ÷ the
//! direction's), the equal host share CAKE's host modes aim at (1 ÷ the
//! hosts), and Mathis's share with the flows' measured RTTs (each flow's
//! rate ∝ 1 / RTT at one drop probability: the host's Σ 1/RTT over the
//! direction's).
//!
//! ```
//! use netlab_results::shares::{of_flows, FlowGoodput};
//! let f = |host: &'static str, g| FlowGoodput { direction: "up", host, goodput_mbps: Some(g), rtt_ms: None };
//! // Host a with 1 flow, host b with 3, each flow 1 Mbit/s.
//! let s = of_flows(&[f("a", 1.0), f("b", 1.0), f("b", 1.0), f("b", 1.0)]);
//! assert_eq!(s.flows[0].share, Some(0.25));
//! assert_eq!(s.flows[0].host_share, Some(0.25));
//! assert_eq!(s.directions[0].jain_flows, Some(1.0));
//! // (1+3)² / (2·(1+9)) = 0.8
//! assert!((s.directions[0].jain_hosts.unwrap() - 0.8).abs() < 1e-12);
//! ```

/// What a flow's shares are computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowGoodput<'a> {
    /// `up` or `down`.
    pub direction: &'a str,
    /// Its sender host's name (`""` without `[[hosts]]`).
    pub host: &'a str,
    /// Goodput over the measured window, Mbit/s (method §4.3).
    pub goodput_mbps: Option<f64>,
    /// Its measured RTT over the window, ms ([`window_rtt_ms`]).
    pub rtt_ms: Option<f64>,
}

/// One flow's shares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowShare {
    /// Its goodput ÷ its direction's.
    pub share: Option<f64>,
    /// Its host's goodput in its direction, Mbit/s.
    pub host_goodput_mbps: Option<f64>,
    /// Its host's goodput ÷ its direction's.
    pub host_share: Option<f64>,
}

/// One host's goodput in one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct HostShare {
    /// The host's name.
    pub host: String,
    /// How many of the direction's flows it has.
    pub flows: usize,
    /// The sum of their goodputs, Mbit/s (`None` if one has none).
    pub goodput_mbps: Option<f64>,
    /// That ÷ the direction's.
    pub share: Option<f64>,
    /// Per-flow FQ's share: its flows ÷ the direction's.
    pub model_per_flow: f64,
    /// The equal host share: 1 ÷ the direction's hosts.
    pub model_equal_host: f64,
    /// Mathis's share with the measured RTTs: Σ 1/RTT of its flows ÷ the
    /// direction's (`None` when a flow has no RTT).
    pub model_mathis: Option<f64>,
}

/// One direction's flows and hosts together.
#[derive(Debug, Clone, PartialEq)]
pub struct DirectionShares {
    /// `up` or `down`.
    pub direction: String,
    /// Each host with a flow in it, in order of its first flow.
    pub hosts: Vec<HostShare>,
    /// Jain's index over the flows' goodputs.
    pub jain_flows: Option<f64>,
    /// Jain's index over the hosts' goodputs.
    pub jain_hosts: Option<f64>,
}

/// The shares of a scenario's flows.
#[derive(Debug, Clone, PartialEq)]
pub struct Shares {
    /// One per flow, in flow order.
    pub flows: Vec<FlowShare>,
    /// One per direction with a flow, in order of its first flow.
    pub directions: Vec<DirectionShares>,
}

/// The shares of `flows` (in flow order).
pub fn of_flows(flows: &[FlowGoodput<'_>]) -> Shares {
    let mut directions: Vec<DirectionShares> = Vec::new();
    for f in flows {
        if !directions.iter().any(|d| d.direction == f.direction) {
            directions.push(direction(flows, f.direction));
        }
    }
    let flows = flows
        .iter()
        .map(|f| {
            let d = directions
                .iter()
                .find(|d| d.direction == f.direction)
                .expect("every flow's direction is listed");
            let h = d
                .hosts
                .iter()
                .find(|h| h.host == f.host)
                .expect("every flow's host is listed");
            let total = total(d);
            FlowShare {
                share: f.goodput_mbps.zip(total).map(|(g, t)| g / t),
                host_goodput_mbps: h.goodput_mbps,
                host_share: h.share,
            }
        })
        .collect();
    Shares { flows, directions }
}

fn total(d: &DirectionShares) -> Option<f64> {
    let mut sum = 0.0;
    for h in &d.hosts {
        sum += h.goodput_mbps?;
    }
    (sum > 0.0).then_some(sum)
}

fn direction(flows: &[FlowGoodput<'_>], dir: &str) -> DirectionShares {
    let of: Vec<&FlowGoodput<'_>> = flows.iter().filter(|f| f.direction == dir).collect();
    let mut hosts: Vec<HostShare> = Vec::new();
    for f in &of {
        match hosts.iter_mut().find(|h| h.host == f.host) {
            Some(h) => {
                h.flows += 1;
                h.goodput_mbps = h.goodput_mbps.zip(f.goodput_mbps).map(|(a, b)| a + b);
            }
            None => hosts.push(HostShare {
                host: f.host.to_string(),
                flows: 1,
                goodput_mbps: f.goodput_mbps,
                share: None,
                model_per_flow: 0.0,
                model_equal_host: 0.0,
                model_mathis: None,
            }),
        }
    }
    let mut d = DirectionShares {
        direction: dir.to_string(),
        jain_flows: of
            .iter()
            .map(|f| f.goodput_mbps)
            .collect::<Option<Vec<f64>>>()
            .as_deref()
            .and_then(netlab_stats::jain_index),
        jain_hosts: hosts
            .iter()
            .map(|h| h.goodput_mbps)
            .collect::<Option<Vec<f64>>>()
            .as_deref()
            .and_then(netlab_stats::jain_index),
        hosts,
    };
    let t = total(&d);
    let inverse_rtt = |host: Option<&str>| -> Option<f64> {
        of.iter()
            .filter(|f| host.is_none_or(|h| f.host == h))
            .map(|f| f.rtt_ms.filter(|r| *r > 0.0).map(|r| 1.0 / r))
            .sum()
    };
    let all = inverse_rtt(None);
    let (n, hn) = (of.len() as f64, d.hosts.len() as f64);
    for h in &mut d.hosts {
        h.share = h.goodput_mbps.zip(t).map(|(g, t)| g / t);
        h.model_per_flow = h.flows as f64 / n;
        h.model_equal_host = 1.0 / hn;
        h.model_mathis = inverse_rtt(Some(&h.host)).zip(all).map(|(x, a)| x / a);
    }
    d
}

/// The shares of a scenario's recorded flows, each flow's host its
/// `[[hosts]]` name (`""` without).
pub fn of_scenario(s: &crate::ScenarioResult) -> Shares {
    let inputs: Vec<FlowGoodput<'_>> = s
        .flows
        .iter()
        .map(|f| FlowGoodput {
            direction: &f.direction,
            host: f.host.as_deref().unwrap_or(""),
            goodput_mbps: f.tcp.as_ref().and_then(|t| t.goodput_mbps),
            rtt_ms: window_rtt_ms(f),
        })
        .collect();
    of_flows(&inputs)
}

/// A flow's measured RTT, ms: the median of its sender's smoothed RTT
/// (tcp_info's `rtt_us`) over the samples that end inside its measured
/// window; `None` without one.
pub fn window_rtt_ms(f: &crate::FlowResult) -> Option<f64> {
    let [from, to] = f.tcp.as_ref()?.window_s;
    let mut rtts: Vec<f64> = f
        .tcp_info
        .iter()
        .filter(|t| (from..=to).contains(&t.end_s))
        .filter_map(|t| t.info.as_ref())
        .map(|i| f64::from(i.rtt_us) / 1e3)
        .collect();
    netlab_stats::median(&mut rtts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(direction: &'static str, host: &'static str, g: Option<f64>) -> FlowGoodput<'static> {
        FlowGoodput {
            direction,
            host,
            goodput_mbps: g,
            rtt_ms: None,
        }
    }

    #[test]
    fn the_models_per_host() {
        // near at 24 ms, far at 49 ms (fq_codel, rtt_fairness_quick):
        // Mathis gives near 49/(24+49) of the link.
        let s = of_flows(&[
            FlowGoodput {
                rtt_ms: Some(24.0),
                ..f("up", "near", Some(5.3))
            },
            FlowGoodput {
                rtt_ms: Some(49.0),
                ..f("up", "far", Some(4.1))
            },
        ]);
        let near = &s.directions[0].hosts[0];
        assert!((near.model_mathis.unwrap() - 49.0 / 73.0).abs() < 1e-12);
        assert_eq!((near.model_per_flow, near.model_equal_host), (0.5, 0.5));
        // 1 flow against 8: per flow 1/9, per host 1/2; no RTT, no Mathis.
        let mut flows = vec![f("up", "a1", Some(1.0))];
        flows.extend((0..8).map(|_| f("up", "a2", Some(1.0))));
        let a1 = of_flows(&flows).directions[0].hosts[0].clone();
        assert!((a1.model_per_flow - 1.0 / 9.0).abs() < 1e-12);
        assert_eq!((a1.model_equal_host, a1.model_mathis), (0.5, None));
    }

    #[test]
    fn one_flow_against_eight_fair_per_flow_is_a_ninth_per_host() {
        let mut flows = vec![f("up", "a1", Some(1.0))];
        flows.extend((0..8).map(|_| f("up", "a2", Some(1.0))));
        let s = of_flows(&flows);
        let d = &s.directions[0];
        assert_eq!(d.hosts.len(), 2);
        assert_eq!((d.hosts[0].flows, d.hosts[1].flows), (1, 8));
        assert!((d.hosts[0].share.unwrap() - 1.0 / 9.0).abs() < 1e-12);
        assert_eq!(d.jain_flows, Some(1.0));
        // (1+8)² / (2·(1+64)) = 81/130
        assert!((d.jain_hosts.unwrap() - 81.0 / 130.0).abs() < 1e-12);
        assert!((s.flows[3].host_share.unwrap() - 8.0 / 9.0).abs() < 1e-12);
        assert_eq!(s.flows[3].host_goodput_mbps, Some(8.0));
    }

    #[test]
    fn directions_are_apart_and_a_missing_goodput_leaves_its_direction_unknown() {
        let s = of_flows(&[
            f("up", "", Some(3.0)),
            f("down", "", Some(1.0)),
            f("up", "", Some(1.0)),
            f("down", "", None),
        ]);
        assert_eq!(s.directions.len(), 2);
        assert_eq!(s.flows[0].share, Some(0.75));
        assert_eq!(s.flows[2].share, Some(0.25));
        // Without [[hosts]] the one sender holds the whole direction.
        assert_eq!(s.flows[0].host_share, Some(1.0));
        assert_eq!(s.directions[0].jain_hosts, Some(1.0));
        // One flow without a goodput: no share in its direction.
        assert_eq!((s.flows[1].share, s.flows[3].share), (None, None));
        assert_eq!(s.directions[1].jain_flows, None);
        assert_eq!(s.flows[1].host_share, None);
        assert!(of_flows(&[]).directions.is_empty());
    }
}
