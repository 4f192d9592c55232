//! The scenario's path, before t0: A–R–B built and read back, R's
//! egresses configured (netem at the root for the base RTT, TBF + the arm
//! per shaped direction) and read back, each recorded in the result as it
//! was built; then, with netem on the path, the neighbours resolved so the
//! first probe request holds no ARP.

use netlab_qdisc::{ifindex_in, read_psched, QdiscSocket};
use netlab_qdisc_model::QdiscRequest;
use netlab_results::{
    HostResult, QdiscResult, ReadbackDump, RequestRecord, ScenarioResult, TopologyResult,
};
use netlab_topology::Topology;

use super::{enter, qdisc_step, topology_step, Runner};
use crate::scenario::egress::Egress;
use crate::scenario::error::ScenarioError;
use crate::setup::ScenarioSetup;

/// A–R–B, built and read back into `res.topology`.
pub(super) fn topology(
    plan: &ScenarioSetup,
    res: &mut ScenarioResult,
) -> Result<Topology, ScenarioError> {
    let topo = Topology::build(&plan.topology).map_err(topology_step("building the topology"))?;
    let readback = topo
        .readback()
        .map_err(topology_step("reading the topology back"))?;
    res.topology = Some(TopologyResult {
        spec: plan.topology.clone(),
        build_time_s: topo.build_time.as_secs_f64(),
        sysctls: topo.sysctls.clone(),
        readback,
    });
    Ok(topo)
}

/// A qdisc result for R's `dev` holding `requests` as results.json
/// records them: tc's words, the same from the host, the netlink bytes.
fn recorded(direction: &str, dev: &str, requests: &[QdiscRequest], topo: &Topology) -> QdiscResult {
    QdiscResult {
        direction: direction.to_string(),
        dev: dev.to_string(),
        requests: requests
            .iter()
            .map(|r| RequestRecord {
                tc_argv: r.tc_argv.clone(),
                tc_argv_from_host: r.tc_argv_in_netns(topo.r.name()),
                netlink_hex: r.netlink_hex.clone(),
            })
            .collect(),
        ..QdiscResult::default()
    }
}

/// R's egresses through `qsock`: netem at the root when the path has a
/// delay, TBF + arm for each shaped direction; each one's requests and
/// readback after configuration pushed to `res.qdiscs`.
pub(super) fn egresses(
    plan: &ScenarioSetup,
    topo: &Topology,
    qsock: &QdiscSocket,
    res: &mut ScenarioResult,
) -> Result<Vec<Egress>, ScenarioError> {
    let mut egresses = Vec::new();
    for e in &plan.egresses {
        let configure = |source| ScenarioError::Configure {
            dev: e.dev,
            netns: topo.r.name().to_string(),
            source: Box::new(source),
        };
        let ifindex = ifindex_in(&topo.r, e.dev).map_err(configure)?;
        let psched = read_psched();
        let requests = e.requests(ifindex, &psched).map_err(configure)?;
        let q = recorded(e.direction.as_str(), e.dev, &requests, topo);
        res.qdiscs.push(q);
        for r in &requests {
            qsock.apply(r).map_err(configure)?;
        }
        let after = qsock
            .readback(ifindex, None, &psched)
            .map_err(qdisc_step("qdisc readback after configuration"))?;
        let q = res.qdiscs.last_mut().expect("pushed above");
        q.after_config = after.records.clone();
        q.after_config_dump = Some(ReadbackDump::of(&after));
        egresses.push(Egress {
            slot: res.qdiscs.len() - 1,
            ifindex,
            psched,
        });
    }
    Ok(egresses)
}

/// The sender hosts' links (method §1.7): for each host from 2 on with
/// a delay, the netem at the root of R's egress toward it, applied and
/// read back; every host recorded in `res.hosts` (nothing without
/// `[[hosts]]`). Not sampled: netem only holds packets for their delay.
pub(super) fn host_links(
    plan: &ScenarioSetup,
    topo: &Topology,
    qsock: &QdiscSocket,
    res: &mut ScenarioResult,
) -> Result<(), ScenarioError> {
    for h in &plan.hosts {
        let dev = h.router_dev();
        let configure = |source| ScenarioError::HostLink {
            dev: dev.clone(),
            netns: topo.r.name().to_string(),
            source: Box::new(source),
        };
        let mut record = HostResult {
            name: h.name.clone(),
            number: h.host.number(),
            netns: plan.topology.host_netns_name(h.host),
            address: h.host.addr().to_string(),
            router_dev: dev.clone(),
            base_rtt_s: h.base_rtt.as_secs_f64(),
            link: None,
        };
        if h.netem.is_some() {
            let ifindex = ifindex_in(&topo.r, &dev).map_err(configure)?;
            let psched = read_psched();
            let requests = h.requests(ifindex, &psched).map_err(configure)?;
            let mut q = recorded("down", &dev, &requests, topo);
            for r in &requests {
                qsock.apply(r).map_err(configure)?;
            }
            let after = qsock
                .readback(ifindex, None, &psched)
                .map_err(qdisc_step("a host link's readback after configuration"))?;
            q.after_config = after.records.clone();
            q.after_config_dump = Some(ReadbackDump::of(&after));
            record.link = Some(q);
        }
        res.hosts.push(record);
    }
    Ok(())
}

impl Runner<'_, '_> {
    /// Before t0 every neighbour on the path is resolved, so no probe
    /// request or first segment waits for ARP: with netem the first packet
    /// each way would pay an extra RTT, and on any path a first ARP request
    /// that is lost (sent while a link was still coming up) is retried by
    /// the kernel only 1 s later. No answer is said, not fatal.
    pub(super) fn warm_up_neighbours(&self, topo: &Topology) -> Result<(), ScenarioError> {
        let plan = self.plan;
        let netem = plan.egresses.iter().any(|e| e.netem.is_some());
        let (bound, per_try) = (plan.warm_up_bound(), plan.warm_up_try());
        // Every host from 2 on resolves its own neighbours first (A's
        // below says how long it took).
        for ns in &topo.hosts {
            match ns.run(|| netlab_topology::warm_neighbours(bound, per_try)) {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => self.progress.say(&format!(
                    "{}: neighbour warm-up from {} got no answer within {bound:?} ({e})",
                    self.label,
                    ns.name()
                )),
                Err(e) => return Err(enter("A", "the neighbour warm-up")(e)),
            }
        }
        match topo.a.run(|| netlab_topology::warm_neighbours(bound, per_try)) {
            Ok(Ok((took, tries))) => {
                // Said when it is news: netem on the path, or a retry.
                if netem || tries > 1 {
                    self.progress.say(&format!(
                        "{}: neighbours resolved{} in {:.0} ms ({tries} datagram{})",
                        self.label,
                        if netem { " through netem" } else { "" },
                        took.as_secs_f64() * 1e3,
                        if tries == 1 { "" } else { "s" }
                    ))
                }
            }
            Ok(Err(e)) => self.progress.say(&format!(
                "{}: neighbour warm-up got no answer within {bound:?} ({e}); the first probe request may include ARP",
                self.label
            )),
            Err(e) => return Err(enter("A", "the neighbour warm-up")(e)),
        }
        Ok(())
    }
}
