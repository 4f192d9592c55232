//! What `orchestrator plan` prints: the experiment's scenarios, each with
//! its plan index, its unit (a round at a sweep point — all of its arms
//! run on one machine, back to back), point, round, arm and seed, and with
//! a shard count the shard that runs it ([`Shard::owns`], the partition
//! `run --shard` runs); the header gives the experiment's content hash and
//! the netlab version, which `merge` and `run --resume` check.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::{unit_of, Experiment, Shard};

/// The plan as listed (`plan --json` prints it as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanListing {
    /// The experiment's name.
    pub experiment: String,
    /// Its content hash (SHA-256 of the canonical text, kernel left out).
    pub experiment_hash: String,
    /// This netlab's version.
    pub netlab_version: String,
    /// Units of work (rounds × sweep points).
    pub units: u32,
    /// The shard count asked for with `--shards`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    /// Every scenario, in plan order.
    pub scenarios: Vec<PlannedLine>,
}

/// One planned scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedLine {
    /// 1-based plan index (results keep it, whichever machine ran it).
    pub index: u32,
    /// 0-based unit: a round at a sweep point.
    pub unit: u32,
    /// 1-based sweep point.
    pub point_index: u32,
    /// The point's label.
    pub point: String,
    /// Round.
    pub round: u32,
    /// The arm in tc words.
    pub arm: String,
    /// The scenario's seed.
    pub seed: u64,
    /// With `--shards N`: the shard (K of N) that runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<u32>,
}

impl Shard {
    /// The shard of `n` that owns `unit` (`n` ≥ 1).
    pub fn owning(unit: u32, n: u32) -> Shard {
        (1..=n)
            .map(|k| Shard { k, n })
            .find(|s| s.owns(unit))
            .unwrap_or(Shard::WHOLE)
    }
}

impl PlanListing {
    /// The listing of `exp`, with each unit's shard when `shards` is given.
    pub fn of(exp: &Experiment, shards: Option<u32>) -> PlanListing {
        let scenarios = exp
            .plan()
            .scenarios
            .iter()
            .map(|s| {
                let unit = unit_of(s, exp.rounds);
                PlannedLine {
                    index: s.index,
                    unit,
                    point_index: s.point.index,
                    point: s.point.label(),
                    round: s.round,
                    arm: s.arm.words.clone(),
                    seed: s.seed,
                    shard: shards.map(|n| Shard::owning(unit, n).k),
                }
            })
            .collect();
        PlanListing {
            experiment: exp.name.clone(),
            experiment_hash: exp.content_hash(),
            netlab_version: env!("CARGO_PKG_VERSION").into(),
            units: exp.unit_count(),
            shards,
            scenarios,
        }
    }

    /// The listing as a Markdown table under a two-line header.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "experiment {} · hash {} · netlab {}",
            self.experiment, self.experiment_hash, self.netlab_version
        );
        let _ = writeln!(
            s,
            "{} scenario(s) in {} unit(s); a unit is a round at a sweep point, all of its arms on one machine",
            self.scenarios.len(),
            self.units
        );
        let shard_col = self.shards.is_some();
        s.push('\n');
        s.push_str("| plan index | unit | point | round | arm | seed |");
        s.push_str(if shard_col { " shard |\n" } else { "\n" });
        s.push_str("|---|---|---|---|---|---|");
        s.push_str(if shard_col { "---|\n" } else { "\n" });
        for p in &self.scenarios {
            let _ = write!(
                s,
                "| {} | {} | {} {} | {} | {} | {:#018x} |",
                p.index, p.unit, p.point_index, p.point, p.round, p.arm, p.seed
            );
            match (p.shard, self.shards) {
                (Some(k), Some(n)) => {
                    let _ = writeln!(s, " {k}/{n} |");
                }
                _ => s.push('\n'),
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_follows_the_plan_and_its_shards() {
        let exp = crate::parse(
            r#"
            name = "t"
            arms = ["pfifo", "fq_codel"]
            rounds = 2
            [sweep]
            rate = ["5mbit", "10mbit"]
            "#,
        )
        .unwrap();
        let l = PlanListing::of(&exp, Some(3));
        assert_eq!(l.units, 4);
        assert_eq!(l.scenarios.len(), 8);
        let units: Vec<u32> = l.scenarios.iter().map(|p| p.unit).collect();
        assert_eq!(units, [0, 0, 1, 1, 2, 2, 3, 3]);
        let shards: Vec<u32> = l.scenarios.iter().map(|p| p.shard.unwrap()).collect();
        assert_eq!(shards, [1, 1, 2, 2, 3, 3, 1, 1]);
        // The shard column agrees with what `run --shard` runs.
        for k in 1..=3 {
            let runs: Vec<u32> = exp
                .plan()
                .shard(Shard { k, n: 3 }, exp.rounds)
                .iter()
                .map(|s| s.index)
                .collect();
            let listed: Vec<u32> = l
                .scenarios
                .iter()
                .filter(|p| p.shard == Some(k))
                .map(|p| p.index)
                .collect();
            assert_eq!(runs, listed);
        }
        assert_eq!(PlanListing::of(&exp, None).scenarios[0].shard, None);
        let t = l.table();
        assert!(t.contains(&exp.content_hash()), "{t}");
        assert!(t.contains("| 3 | 1 | 1 rate=5mbit | 2 | pfifo |"), "{t}");
        assert!(t.ends_with(" 1/3 |\n"), "{t}");
    }

    #[test]
    fn each_unit_has_one_owning_shard() {
        for n in 1..=5 {
            for unit in 0..12 {
                let s = Shard::owning(unit, n);
                assert_eq!(s.n, n);
                assert!(s.owns(unit));
                assert_eq!((1..=n).filter(|&k| Shard { k, n }.owns(unit)).count(), 1);
            }
        }
    }
}
