//! A moving bottleneck on the scenario clock (method §15.4): for each
//! egress whose TBF follows a rate schedule, netlab-qdisc's rate driver,
//! started as soon as t0 is known with its socket in R and the changes
//! the schedule makes before the timeline's end; at the end, what each
//! did goes to `res.links`, with the sent bytes per bin beside the
//! schedule (`netlab_results::link_bins`). The runner calls
//! [`LinkDrivers::start`] and [`LinkDrivers::finish`] around the
//! timeline's walk, nothing else.

use std::time::{Duration, Instant};

use netlab_experiment::RateStep;
use netlab_qdisc::rate_driver::{PlannedChange, RateDriver, RateDriverConfig, TbfTarget};
use netlab_qdisc_model::fifo_child_limit;
use netlab_results::{link_bins, LinkResult, ScenarioResult};
use netlab_topology::Topology;

use super::egress::Egress;
use super::error::ScenarioError;
use crate::setup::{EgressSetup, ScenarioSetup};

/// How often a driver reads the TBF's counters between changes.
pub const READING_EVERY: Duration = Duration::from_millis(100);

/// The running drivers, one per moving egress.
pub struct LinkDrivers {
    running: Vec<(usize, LinkResult, RateDriver)>,
}

/// The changes a schedule makes before `end`, as the driver takes them.
pub fn planned_changes(steps: &[RateStep]) -> Vec<PlannedChange> {
    steps
        .iter()
        .map(|c| PlannedChange {
            at: c.at,
            rate: c.tbf_rate(),
            outage: c.rate.is_none(),
        })
        .collect()
}

impl LinkDrivers {
    /// Starts a driver for every egress of `plan` with a schedule; each
    /// FIFO arm's limit as read back after configuration is what its
    /// changes carry.
    pub fn start(
        plan: &ScenarioSetup,
        topo: &Topology,
        egresses: &[Egress],
        res: &ScenarioResult,
        t0: Instant,
    ) -> Result<LinkDrivers, ScenarioError> {
        let mut running = Vec::new();
        for ((i, setup), e) in plan.egresses.iter().enumerate().zip(egresses) {
            let (Some(schedule), Some((tbf, _))) = (&setup.schedule, &setup.bottleneck) else {
                continue;
            };
            let fifo_limit = res.qdiscs[e.slot]
                .after_config
                .iter()
                .find(|r| r.handle == setup.arm_handle())
                .and_then(fifo_child_limit);
            let target = target(setup, e, *tbf, fifo_limit);
            let end = plan.timeline.end();
            let driver = RateDriver::start(
                &topo.r,
                target,
                planned_changes(&schedule.changes(end)),
                RateDriverConfig {
                    origin: t0,
                    deadline: t0 + end,
                    reading_every: READING_EVERY,
                },
            )
            .map_err(|source| ScenarioError::Qdisc {
                step: "starting the rate driver",
                source: Box::new(source),
            })?;
            let record = LinkResult {
                direction: setup.direction.as_str().to_string(),
                dev: setup.dev.to_string(),
                burst_bytes: tbf.burst.0,
                rate_at_t0: schedule.initial().tbf_rate(),
                outage_at_t0: schedule.initial().rate.is_none(),
                fifo_limit_carried: fifo_limit,
                log: netlab_qdisc_model::RateLog::default(),
                bins: Vec::new(),
            };
            running.push((i, record, driver));
        }
        Ok(LinkDrivers { running })
    }

    /// Stops every driver and records what it did in `res.links`, with
    /// its bins over the timeline.
    pub fn finish(
        self,
        plan: &ScenarioSetup,
        res: &mut ScenarioResult,
    ) -> Result<(), ScenarioError> {
        let mut failed = None;
        for (i, mut record, driver) in self.running {
            match driver.stop() {
                Ok(log) => {
                    if let Some(schedule) = &plan.egresses[i].schedule {
                        record.bins =
                            link_bins(schedule, &log, record.burst_bytes, plan.timeline.end());
                    }
                    record.log = log;
                    res.links.push(record);
                }
                Err(source) => {
                    failed = Some(ScenarioError::Qdisc {
                        step: "the rate driver",
                        source: Box::new(source),
                    })
                }
            }
        }
        failed.map_or(Ok(()), Err)
    }
}

fn target(
    setup: &EgressSetup,
    e: &Egress,
    tbf: netlab_qdisc_model::Tbf,
    fifo_limit: Option<u32>,
) -> TbfTarget {
    TbfTarget {
        dev: setup.dev.to_string(),
        ifindex: e.ifindex,
        handle: setup.tbf_handle(),
        parent: setup.tbf_parent(),
        tbf,
        child: setup.arm_handle(),
        fifo_limit,
        psched: e.psched,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_qdisc_model::Rate;

    #[test]
    fn an_outage_is_planned_at_the_hold_rate() {
        let p = planned_changes(&[
            RateStep {
                at: Duration::from_secs(1),
                rate: None,
            },
            RateStep {
                at: Duration::from_secs(2),
                rate: Some(Rate(1_000_000)),
            },
        ]);
        assert_eq!(
            (p[0].rate, p[0].outage),
            (netlab_experiment::HOLD_RATE, true)
        );
        assert_eq!((p[1].rate, p[1].outage), (Rate(1_000_000), false));
    }
}
