//! Splitting a plan over machines. The unit of work is a
//! *round at a sweep point*: every arm of that round, back to back, in the
//! plan's order, on one machine, because a comparison between arms is only
//! fair inside one machine. Units are numbered in plan order; shard `K` of
//! `N` takes the units `u` with `u mod N = K − 1` (round robin, so the
//! points of a sweep spread over the shards and no shard gets all the slow
//! ones). The same `K/N` always gives the same scenarios.

use std::fmt;

use crate::plan::{Plan, ScenarioPlan};
use crate::Experiment;

/// One shard of a run: `k` of `n`, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// Which shard (1 ≤ k ≤ n).
    pub k: u32,
    /// Of how many.
    pub n: u32,
}

/// Why a `K/N` text is not a shard.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not of the form `K/N`.
    #[error("{0:?} is not K/N (e.g. 2/8)")]
    Shape(String),
    /// K or N is not a whole number.
    #[error("{text:?}: {part:?} is not a whole number")]
    NotANumber {
        /// The whole text.
        text: String,
        /// The offending part.
        part: String,
    },
    /// N is zero.
    #[error("{0:?}: the number of shards N must be at least 1")]
    NoShards(String),
    /// K is outside 1..=N.
    #[error("{text:?}: shard K must be between 1 and N = {n} (shards are numbered from 1)")]
    OutOfRange {
        /// The whole text.
        text: String,
        /// N.
        n: u32,
    },
}

impl Shard {
    /// The whole run as one shard.
    pub const WHOLE: Shard = Shard { k: 1, n: 1 };

    /// Parses `K/N` (`3/8`).
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let (k, n) = text
            .split_once('/')
            .ok_or_else(|| ShardError::Shape(text.to_string()))?;
        let num = |part: &str| {
            let p = part.trim();
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ShardError::NotANumber {
                    text: text.to_string(),
                    part: part.to_string(),
                });
            }
            p.parse::<u32>().map_err(|_| ShardError::NotANumber {
                text: text.to_string(),
                part: part.to_string(),
            })
        };
        let (k, n) = (num(k)?, num(n)?);
        if n == 0 {
            return Err(ShardError::NoShards(text.to_string()));
        }
        if k == 0 || k > n {
            return Err(ShardError::OutOfRange {
                text: text.to_string(),
                n,
            });
        }
        Ok(Shard { k, n })
    }

    /// Whether unit `unit` (0-based, plan order) belongs to this shard.
    pub fn owns(&self, unit: u32) -> bool {
        unit % self.n == self.k - 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// The unit (0-based, plan order) a scenario belongs to: its round at its
/// sweep point.
pub fn unit_of(s: &ScenarioPlan, rounds: u32) -> u32 {
    (s.point.index - 1) * rounds + (s.round - 1)
}

impl Experiment {
    /// The experiment's content hash: SHA-256 of its canonical text
    /// ([`Experiment::to_toml`]) with the kernel choice left out (which
    /// kernel runs it does not change the plan; the kernel that ran is
    /// recorded with every scenario), and the models too (`[report]`: what
    /// the report draws beside the measurement, not what runs).
    pub fn content_hash(&self) -> String {
        let mut canonical = self.clone();
        canonical.kernel = crate::KernelChoice::Auto;
        canonical.models.clear();
        crate::hash::sha256_hex(canonical.to_toml().as_bytes())
    }

    /// Number of units (rounds × sweep points).
    pub fn unit_count(&self) -> u32 {
        crate::plan::point_count(&self.sweep) as u32 * self.rounds
    }

    /// Refuses a split into more shards than the plan has units: every arm
    /// of a round runs in one shard, so shards past the unit count would
    /// run nothing (and a merge would wait for them).
    pub fn check_shards(&self, n: u32) -> Result<(), String> {
        let units = self.unit_count();
        if n > units {
            return Err(format!(
                "{n} shards for {units} unit(s) (rounds × sweep points; every arm of a round runs in one shard): \
                 shard(s) {}–{n} would run nothing; use at most {units}",
                units + 1
            ));
        }
        Ok(())
    }
}

impl Plan {
    /// The scenarios of `shard`, in plan order (indices unchanged).
    pub fn shard(&self, shard: Shard, rounds: u32) -> Vec<&ScenarioPlan> {
        self.scenarios
            .iter()
            .filter(|s| shard.owns(unit_of(s, rounds)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_bad_ones_say_why() {
        assert_eq!(Shard::parse("3/8"), Ok(Shard { k: 3, n: 8 }));
        assert_eq!(Shard::parse("1/1"), Ok(Shard::WHOLE));
        let e = |t: &str| Shard::parse(t).unwrap_err().to_string();
        assert!(e("3/2").contains("between 1 and N = 2"), "{}", e("3/2"));
        assert!(e("0/0").contains("at least 1"), "{}", e("0/0"));
        assert!(e("0/4").contains("numbered from 1"), "{}", e("0/4"));
        assert!(
            e("x/4").contains("\"x\" is not a whole number"),
            "{}",
            e("x/4")
        );
        assert!(e("1/-2").contains("not a whole number"), "{}", e("1/-2"));
        assert!(e("2").contains("not K/N"), "{}", e("2"));
        assert!(e("1/99999999999").contains("not a whole number"));
        assert_eq!(Shard { k: 2, n: 5 }.to_string(), "2/5");
    }

    /// Every scenario is in exactly one shard, whole units stay together
    /// (all arms of a round at a point), indices keep the plan's, and the
    /// same K/N always gives the same scenarios.
    #[test]
    fn shards_partition_the_plan_by_whole_units() {
        let exp = crate::parse(
            r#"
            arms = ["pfifo", "fq_codel", "codel"]
            rounds = 3
            [sweep]
            rate = ["5mbit", "10mbit"]
            "#,
        )
        .unwrap();
        let plan = exp.plan();
        assert_eq!(exp.unit_count(), 6);
        assert!(exp.check_shards(6).is_ok());
        let e = exp.check_shards(7).unwrap_err();
        assert!(
            e.contains("7 shards for 6 unit(s)") && e.ends_with("use at most 6"),
            "{e}"
        );
        for n in 1..=8u32 {
            let mut seen = Vec::new();
            for k in 1..=n {
                let shard = Shard { k, n };
                let mine = plan.shard(shard, exp.rounds);
                assert_eq!(mine, plan.shard(shard, exp.rounds));
                for s in &mine {
                    // The whole unit is in this shard, arms in order.
                    let unit: Vec<u32> = plan
                        .scenarios
                        .iter()
                        .filter(|o| o.point.index == s.point.index && o.round == s.round)
                        .map(|o| o.index)
                        .collect();
                    assert!(unit.iter().all(|i| mine.iter().any(|m| m.index == *i)));
                }
                seen.extend(mine.iter().map(|s| s.index));
            }
            seen.sort_unstable();
            let all: Vec<u32> = plan.scenarios.iter().map(|s| s.index).collect();
            assert_eq!(seen, all, "n = {n}");
        }
        // Round robin over units: 2 shards of 6 units take 3 each, and the
        // first shard has both points.
        let first = plan.shard(Shard { k: 1, n: 2 }, exp.rounds);
        assert_eq!(first.len(), 9);
        let idx: Vec<u32> = first.iter().map(|s| s.index).collect();
        assert_eq!(idx, [1, 2, 3, 7, 8, 9, 13, 14, 15]);
        assert!(first.iter().any(|s| s.point.index == 2));
    }

    #[test]
    fn the_content_hash_follows_the_experiment_not_the_text() {
        let a = crate::parse("rounds = 2\n").unwrap();
        let b = crate::parse("# a comment\nrounds = 2\nseed = 1\nkernel = \"host\"\n").unwrap();
        let c = crate::parse("rounds = 3\n").unwrap();
        assert_eq!(a.content_hash(), b.content_hash());
        assert_ne!(a.content_hash(), c.content_hash());
        assert_eq!(a.content_hash().len(), 64);
        // What results.json keeps reads back to the same hash.
        let back = Experiment::from_file(&a.to_file()).unwrap();
        assert_eq!(back.content_hash(), a.content_hash());
    }
}
