//! The veths' offloads, inside each namespace: [`crate::ethtool`]'s
//! requests sent through a generic-netlink socket opened in the calling
//! thread's namespace (method §1.6).
//!
//! `off` is done in two passes over the four veth ends: first every end is
//! read and every aggregation feature that is on and fixed is refused
//! (naming the feature and the end) before anything is changed; then each
//! end's features that are on are turned off and read back, and one still
//! on is refused too.

use netlab_os::{NetlinkSocket, Protocol};

use crate::ethtool::{self, FeatureState, FeaturesReply};
use crate::netns::Netns;
use crate::TopologyError;

/// `ENOENT`: the controller knows no family of that name.
const ENOENT: i32 = 2;

/// A generic-netlink socket in one namespace with ethtool's family id.
#[derive(Debug)]
pub(crate) struct EthtoolSocket {
    sock: NetlinkSocket,
    family: u16,
    netns: String,
}

impl EthtoolSocket {
    /// Opens the socket in the calling thread's namespace (`netns` names
    /// it) and resolves ethtool's family; `None` when the kernel has none
    /// (built without `CONFIG_ETHTOOL_NETLINK`).
    pub(crate) fn open(netns: &str) -> Result<Option<EthtoolSocket>, TopologyError> {
        let sock = NetlinkSocket::open(Protocol::Generic, format!("netns {netns}"))?;
        let req = ethtool::get_family(
            ethtool::ETHTOOL_GENL_NAME,
            "resolving the ethtool generic-netlink family".to_owned(),
        );
        let answer = match sock.get(&req.to_bytes(0), &req.step) {
            Err(e) if e.errno() == Some(ENOENT) => return Ok(None),
            other => other?,
        };
        let family = ethtool::parse_family_id(&answer).map_err(|e| TopologyError::Decode {
            step: req.step.clone(),
            reason: e.to_string(),
        })?;
        Ok(Some(EthtoolSocket {
            sock,
            family,
            netns: netns.to_owned(),
        }))
    }

    /// The features of `dev`.
    pub(crate) fn features(&self, dev: &str) -> Result<FeaturesReply, TopologyError> {
        let req = ethtool::features_get(
            self.family,
            dev,
            format!("reading the features of {dev} (ETHTOOL_MSG_FEATURES_GET)"),
        );
        let answer = self.sock.get(&req.to_bytes(0), &req.step)?;
        ethtool::parse_features_reply(&answer).map_err(|e| TopologyError::Decode {
            step: format!("{} in netns {}", req.step, self.netns),
            reason: e.to_string(),
        })
    }

    /// Turns `names` off on `dev`.
    fn turn_off(&self, dev: &str, names: &[&str]) -> Result<(), TopologyError> {
        let req = ethtool::features_set(
            self.family,
            dev,
            names,
            format!(
                "turning {} off on {dev} (ETHTOOL_MSG_FEATURES_SET)",
                names.join(", ")
            ),
        );
        Ok(self.sock.ack(&req.to_bytes(0), &req.step)?)
    }
}

/// The aggregation features of `dev` that are on (active or wanted), or
/// the refusal naming the first one the kernel will not change.
pub(crate) fn to_turn_off(
    netns: &str,
    dev: &str,
    reply: &FeaturesReply,
) -> Result<Vec<String>, TopologyError> {
    let mut out = Vec::new();
    for name in reply.aggregation_features() {
        if !reply.active.contains(name) && !reply.wanted.contains(name) {
            continue;
        }
        if reply.is_fixed(name) {
            return Err(TopologyError::Offloads {
                netns: netns.to_owned(),
                link: dev.to_owned(),
                reason: format!(
                    "{name} is on and the kernel reports it fixed: offloads = \"off\" \
                     cannot be had on this kernel"
                ),
            });
        }
        out.push(name.to_owned());
    }
    Ok(out)
}

/// Turns every aggregation feature off on the veth ends `ends` (each a
/// namespace and its ends' names), refusing up front when one is fixed.
pub(crate) fn turn_off_everywhere(ends: &[(&Netns, &[&str])]) -> Result<(), TopologyError> {
    let no_family = |ns: &Netns| TopologyError::Offloads {
        netns: ns.name().to_owned(),
        link: "(every veth end)".to_owned(),
        reason: "the kernel has no ethtool generic-netlink family \
                 (CONFIG_ETHTOOL_NETLINK), so offloads cannot be set"
            .to_owned(),
    };
    // Pass 1: read every end, refuse before changing anything.
    let mut plans = Vec::new();
    for (ns, devs) in ends {
        let plan = ns.run(|| {
            let sock = EthtoolSocket::open(ns.name())?.ok_or_else(|| no_family(ns))?;
            let mut per_dev = Vec::new();
            for dev in devs.iter() {
                let reply = sock.features(dev)?;
                per_dev.push((dev.to_string(), to_turn_off(ns.name(), dev, &reply)?));
            }
            Ok::<_, TopologyError>((sock, per_dev))
        })??;
        plans.push((*ns, plan));
    }
    // Pass 2: change, read back, refuse what is still on.
    for (ns, (sock, per_dev)) in plans {
        for (dev, names) in per_dev {
            if !names.is_empty() {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                sock.turn_off(&dev, &names)?;
            }
            let after = sock.features(&dev)?;
            if let Some(on) = after.aggregation_states().into_iter().find(|f| f.active) {
                return Err(TopologyError::Offloads {
                    netns: ns.name().to_owned(),
                    link: dev,
                    reason: format!("{} is still on after it was turned off", on.name),
                });
            }
        }
    }
    Ok(())
}

/// The aggregation features of `dev`, read in the calling thread's
/// namespace through `sock` (`None`: the kernel has no ethtool family).
pub(crate) fn read_states(
    sock: Option<&EthtoolSocket>,
    dev: &str,
) -> Result<Option<Vec<FeatureState>>, TopologyError> {
    match sock {
        None => Ok(None),
        Some(s) => Ok(Some(s.features(dev)?.aggregation_states())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(active: &[&str], hw: &[&str]) -> FeaturesReply {
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        FeaturesReply {
            dev: "r1".into(),
            ifindex: 3,
            hw: set(hw),
            wanted: set(active),
            active: set(active),
            nochange: Default::default(),
        }
    }

    #[test]
    fn what_is_on_and_changeable_is_turned_off_and_a_fixed_one_refused() {
        let r = reply(
            &[
                "tx-tcp-segmentation",
                "tx-scatter-gather",
                "tx-gre-segmentation",
            ],
            &[
                "tx-tcp-segmentation",
                "tx-scatter-gather",
                "tx-gre-segmentation",
                "rx-gro",
            ],
        );
        // Only aggregation features that are on; scatter-gather stays.
        assert_eq!(
            to_turn_off("nl-x-1-r", "r1", &r).unwrap(),
            ["tx-gre-segmentation", "tx-tcp-segmentation"]
        );
        // On and not changeable: refused, naming the feature and the end.
        let fixed = reply(&["tx-tcp-segmentation", "rx-gro"], &["rx-gro"]);
        let e = to_turn_off("nl-x-1-r", "r1", &fixed)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("r1")
                && e.contains("nl-x-1-r")
                && e.contains("tx-tcp-segmentation")
                && e.contains("fixed"),
            "{e}"
        );
        // In the never-change set counts as fixed too.
        let mut never = reply(&["rx-gro"], &["rx-gro"]);
        never.nochange.insert("rx-gro".into());
        assert!(to_turn_off("n", "b0", &never)
            .unwrap_err()
            .to_string()
            .contains("rx-gro"));
        // Off and fixed (rx-lro on a veth) needs no change.
        assert!(to_turn_off("n", "b0", &reply(&[], &[])).unwrap().is_empty());
    }
}
