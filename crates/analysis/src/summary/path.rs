//! The path's offloads and MTU as read back (method §1.6): one line of
//! summary.md's notes, e.g. `offloads: kernel (gso, tso on; gro, lro off
//! at every veth end) · MTU 1500`.

use netlab_results::ScenarioResult;
use netlab_topology::FeatureState;

/// What one scenario's veth ends read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VethsSeen {
    /// `[path] offloads` as the scenario's topology asked (`kernel`, `off`).
    pub offloads: String,
    /// Each veth end's aggregation state in words (`gso, tso on; gro off`).
    pub ends: Vec<(String, String)>,
    /// Each veth end's MTU as read back.
    pub mtus: Vec<u32>,
}

impl VethsSeen {
    /// From the topology's readback; `None` for scenarios recorded before
    /// netlab read the veths' features back.
    pub fn of(s: &ScenarioResult) -> Option<VethsSeen> {
        let t = s.topology.as_ref()?;
        let mut ends = Vec::new();
        let mut mtus = Vec::new();
        for ns in &t.readback.namespaces {
            for l in &ns.links {
                if let Some(f) = &l.offloads {
                    ends.push((l.name.clone(), state_words(f)));
                    mtus.extend(l.mtu);
                }
            }
        }
        (!ends.is_empty()).then(|| VethsSeen {
            offloads: t.spec.offloads.file_word().to_string(),
            ends,
            mtus,
        })
    }

    /// `kernel (gso, tso on; gro off at every veth end) · MTU 1500`.
    pub fn words(&self) -> String {
        let first = &self.ends[0].1;
        let state = if self.ends.iter().all(|(_, s)| s == first) {
            format!("{first} at every veth end")
        } else {
            self.ends
                .iter()
                .map(|(end, s)| format!("{end}: {s}"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let mut mtus = self.mtus.clone();
        mtus.sort_unstable();
        mtus.dedup();
        let mtu = match mtus.as_slice() {
            [one] => format!("MTU {one}"),
            many => format!(
                "MTUs {}",
                many.iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!("{} ({state}) · {mtu}", self.offloads)
    }
}

/// Whether a feature's name belongs to a group.
type Member = fn(&str) -> bool;

/// The aggregation groups named in the line, each with the features it
/// stands for.
const GROUPS: [(&str, Member); 5] = [
    ("gso", |n| n == "tx-generic-segmentation"),
    ("tso", |n| {
        n.starts_with("tx-tcp") && n.ends_with("-segmentation")
    }),
    ("gro", |n| n == "rx-gro"),
    ("lro", |n| n == "rx-lro"),
    ("udp gso", |n| n == "tx-udp-segmentation"),
];

/// `gso, tso on; gro, lro off`, or `every aggregation feature off`.
fn state_words(features: &[FeatureState]) -> String {
    if features.iter().all(|f| !f.active) {
        return "every aggregation feature off".to_string();
    }
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for (group, member) in GROUPS {
        let of: Vec<&FeatureState> = features.iter().filter(|f| member(&f.name)).collect();
        if of.is_empty() {
            continue;
        }
        if of.iter().any(|f| f.active) {
            on.push(group);
        } else {
            off.push(group);
        }
    }
    match (on.is_empty(), off.is_empty()) {
        (false, false) => format!("{} on; {} off", on.join(", "), off.join(", ")),
        (false, true) => format!("{} on", on.join(", ")),
        _ => format!("{} off; others on", off.join(", ")),
    }
}

impl VethsSeen {
    /// summary.md's line on the path's offloads and MTU, one clause per
    /// distinct state over the scenarios; `None` when none was read back.
    pub fn note(seen: &[Option<&VethsSeen>]) -> Option<String> {
        let mut clauses: Vec<String> = seen.iter().flatten().map(|p| p.words()).collect();
        if clauses.is_empty() {
            return None;
        }
        clauses.sort_unstable();
        clauses.dedup();
        Some(format!(
            "offloads: {} (read back over ethtool's netlink family; docs/method.md §1.6).",
            clauses.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, active: bool) -> FeatureState {
        FeatureState {
            name: name.into(),
            active,
            fixed: false,
        }
    }

    fn seen(offloads: &str, state: &[FeatureState], mtu: u32) -> VethsSeen {
        VethsSeen {
            offloads: offloads.into(),
            ends: ["a0", "r0", "r1", "b0"]
                .iter()
                .map(|e| (e.to_string(), state_words(state)))
                .collect(),
            mtus: vec![mtu; 4],
        }
    }

    #[test]
    fn the_line_names_what_is_on_and_off_at_every_end() {
        let kernel = [
            f("tx-generic-segmentation", true),
            f("tx-tcp-segmentation", true),
            f("tx-tcp6-segmentation", true),
            f("rx-gro", false),
            f("rx-lro", false),
        ];
        let off = [f("tx-tcp-segmentation", false), f("rx-gro", false)];
        let k = seen("kernel", &kernel, 1500);
        assert_eq!(
            VethsSeen::note(&[Some(&k), Some(&k), None]).unwrap(),
            "offloads: kernel (gso, tso on; gro, lro off at every veth end) · MTU 1500 \
             (read back over ethtool's netlink family; docs/method.md §1.6)."
        );
        let o = seen("off", &off, 9000);
        let both = VethsSeen::note(&[Some(&k), Some(&o)]).unwrap();
        assert!(
            both.contains(
                "kernel (gso, tso on; gro, lro off at every veth end) · MTU 1500; \
                           off (every aggregation feature off at every veth end) · MTU 9000"
            ),
            "{both}"
        );
        assert_eq!(VethsSeen::note(&[None, None]), None);
        // An end that differs is named.
        let mut mixed = seen("kernel", &kernel, 1500);
        mixed.ends[2].1 = state_words(&off);
        assert!(mixed.words().contains("r1: every aggregation feature off"));
    }
}
