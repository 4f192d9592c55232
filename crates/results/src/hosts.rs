//! The sender hosts of a scenario (docs/method.md §1.7), as recorded: each
//! host's name, namespace, address, R's interface toward it, the base RTT
//! asked for on its own link and the netem there as built and read back.
//! Absent (an empty list) for the seed's one sender and in results
//! written before hosts existed, which read unchanged.

use serde::{Deserialize, Serialize};

use crate::qdiscs::QdiscResult;

/// One sender host of a scenario.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostResult {
    /// Its `[[hosts]]` name.
    pub name: String,
    /// Its 1-based number in the topology (1: the seed's A).
    pub number: u16,
    /// Its namespace.
    pub netns: String,
    /// Its address.
    pub address: String,
    /// R's interface toward it (`r0` for host 1, `r<i>` after).
    pub router_dev: String,
    /// The base RTT asked for on its own link, s (`[[hosts]] base_rtt`).
    pub base_rtt_s: f64,
    /// The netem at the root of R's egress toward it, for hosts from 2 on
    /// when a delay is set there (host 1's link is R's `down` egress,
    /// recorded in the scenario's `qdiscs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<QdiscResult>,
}

impl HostResult {
    /// The delay of the netem at the root of R's egress toward this host
    /// as read back, s: its own `link`, or for host 1 the `down` egress
    /// among the scenario's `qdiscs`. `None` when there is none or it does
    /// not decode.
    pub fn link_delay_read_s(&self, qdiscs: &[QdiscResult]) -> Option<f64> {
        let q = match &self.link {
            Some(q) => q,
            None => qdiscs.iter().find(|q| q.dev == self.router_dev)?,
        };
        root_netem_delay_s(q)
    }

    /// This host's whole base RTT as the kernel holds it, s: the netem
    /// toward B (R's `up` egress, the path's half) plus the netem toward
    /// the host (the path's other half and the host's own). `None` when
    /// either is missing or does not decode; 0 each where no netem is.
    /// `qdiscs` are the scenario's.
    pub fn base_rtt_read_s(&self, qdiscs: &[QdiscResult]) -> Option<f64> {
        let up = match qdiscs.iter().find(|q| q.direction == "up") {
            Some(q) if q.after_config.iter().any(|r| r.kind == "netem") => root_netem_delay_s(q)?,
            _ => 0.0,
        };
        let back = if self.base_rtt_s > 0.0 || up > 0.0 {
            self.link_delay_read_s(qdiscs)?
        } else {
            0.0
        };
        Some(up + back)
    }
}

/// The delay of the netem among `q`'s qdiscs after configuration, s, from
/// its raw options (`TCA_NETEM_LATENCY64` when present).
pub fn root_netem_delay_s(q: &QdiscResult) -> Option<f64> {
    let hex = q.after_config.iter().find_map(|r| match &r.options {
        netlab_qdisc_model::QdiscOptions::Raw { hex, .. } if r.kind == "netem" => Some(hex),
        _ => None,
    })?;
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    netlab_qdisc_model::netem::decode_options(&bytes, &netlab_qdisc_model::Psched::default())
        .map(|rb| rb.delay_ns as f64 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScenarioResult;

    #[test]
    fn results_without_hosts_read_as_before_and_hosts_round_trip() {
        let s = ScenarioResult::default();
        let j = serde_json::to_value(&s).unwrap();
        assert!(j.get("hosts").is_none(), "nothing written for the seed");
        let back: ScenarioResult = serde_json::from_value(j).unwrap();
        assert!(back.hosts.is_empty());
        let f = serde_json::to_value(crate::FlowResult::default()).unwrap();
        assert!(f.get("host").is_none());
        let h = HostResult {
            name: "far".into(),
            number: 2,
            netns: "nl-7f3a-1-a2".into(),
            address: "10.21.2.2".into(),
            router_dev: "r2".into(),
            base_rtt_s: 0.04,
            link: None,
        };
        let with = ScenarioResult {
            hosts: vec![h.clone()],
            ..ScenarioResult::default()
        };
        let j = serde_json::to_string(&with).unwrap();
        let back: ScenarioResult = serde_json::from_str(&j).unwrap();
        assert_eq!(back.hosts, vec![h.clone()]);
        // No netem anywhere, nothing asked: a zero base RTT, read.
        let none = HostResult {
            base_rtt_s: 0.0,
            ..h.clone()
        };
        assert_eq!(none.base_rtt_read_s(&with.qdiscs), Some(0.0));
        // Asked for but not read back: unknown, not zero.
        assert_eq!(h.base_rtt_read_s(&with.qdiscs), None);
    }
}
