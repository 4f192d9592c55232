//! What one run needs: the resolved experiment and where and how to run
//! it. Built by the caller (the orchestrator validates its flags into
//! one); nothing here parses a command line.

use std::path::{Path, PathBuf};
use std::time::Duration;

use netlab_experiment::{Experiment, Shard};
use netlab_results::ShardRecord;

/// Name of the resolved experiment the host writes for the guest.
pub const GUEST_EXPERIMENT_FILE: &str = "experiment.toml";

/// The guest's memory when none is given.
pub const DEFAULT_GUEST_MEM: &str = "1G";

/// A run's configuration: the resolved experiment and the run's options.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionConfig {
    /// The experiment, resolved.
    pub exp: Experiment,
    /// Guest memory, as passed to the kernel (`1G`).
    pub guest_mem: String,
    /// Results folder.
    pub out: PathBuf,
    /// No progress display.
    pub quiet: bool,
    /// Running inside the guest.
    pub inside_guest: bool,
    /// Only this share of the plan (`--shard K/N`); `None`: all of it.
    pub shard: Option<Shard>,
    /// Continue the run already in `out` (`--resume`).
    pub resume: bool,
}

impl SessionConfig {
    /// A whole run of `exp` into `out`, on the kernel the experiment asks
    /// for, with progress, no shard, no resume.
    pub fn new(exp: Experiment, out: PathBuf) -> SessionConfig {
        SessionConfig {
            exp,
            guest_mem: DEFAULT_GUEST_MEM.into(),
            out,
            quiet: false,
            inside_guest: false,
            shard: None,
            resume: false,
        }
    }

    /// The plan's scenarios this run is for (its shard, or all), in plan order.
    pub fn planned(&self) -> Vec<netlab_experiment::ScenarioPlan> {
        let plan = self.exp.plan();
        match self.shard {
            Some(sh) => plan
                .shard(sh, self.exp.rounds)
                .into_iter()
                .cloned()
                .collect(),
            None => plan.scenarios,
        }
    }

    /// What results.json records of the shard, when one was asked for.
    pub fn shard_record(&self) -> Option<ShardRecord> {
        self.shard.map(|sh| ShardRecord {
            k: sh.k,
            n: sh.n,
            units_total: self.exp.unit_count(),
            plan_indices: self.planned().iter().map(|s| s.index).collect(),
        })
    }

    /// What the runner cannot do, refused before anything runs: more than
    /// one probe of a kind (the experiment refuses it too; the
    /// stop-and-wait and the isochronous probe run side by side), or a
    /// shard of a split into more shards than the plan has units.
    pub fn check_runnable(&self) -> Result<(), String> {
        for (i, p) in self.exp.probes.iter().enumerate() {
            if self.exp.probes[..i].iter().any(|q| q.kind == p.kind) {
                return Err(format!(
                    "probes[{i}]: the runner runs one {} probe per scenario",
                    p.kind.as_str()
                ));
            }
        }
        if let Some(sh) = self.shard {
            self.exp
                .check_shards(sh.n)
                .map_err(|e| format!("--shard {sh}: {e}"))?;
        }
        Ok(())
    }

    /// An upper bound on one scenario's wall time: setup and teardown steps
    /// (10 s each at most) plus the timeline and the capture deadline.
    pub fn scenario_deadline(&self) -> Duration {
        let tail = self
            .exp
            .capture
            .deadline
            .max(self.exp.timeline.end() + Duration::from_secs(3));
        tail + Duration::from_secs(40)
    }

    /// The computed deadline of the whole run.
    pub fn run_deadline(&self) -> Duration {
        self.scenario_deadline() * self.planned().len() as u32 + Duration::from_secs(60)
    }

    /// The `run` arguments that give the copy of this binary inside the
    /// guest this very run: the resolved experiment is a file in the
    /// results folder (written by the host), so no option stays behind.
    pub fn guest_argv(&self, experiment_file: &Path) -> Vec<String> {
        let SessionConfig {
            exp: _,
            guest_mem,
            out,
            quiet,
            inside_guest: _,
            shard,
            resume,
        } = self;
        let mut v: Vec<String> = vec![
            "run".into(),
            experiment_file.to_string_lossy().into_owned(),
            "--guest-mem".into(),
            guest_mem.clone(),
            "--out".into(),
            out.to_string_lossy().into_owned(),
        ];
        if *quiet {
            v.push("--quiet".into());
        }
        if let Some(sh) = shard {
            v.push("--shard".into());
            v.push(sh.to_string());
        }
        if *resume {
            v.push("--resume".into());
        }
        v.push("--inside-guest".into());
        v
    }

    /// Space the results folder needs: a scenario's raw samples take about
    /// 0.2 MB in results.json (written again now and then, through a
    /// temporary file) and as much again in its own file under `scenarios/`
    /// until the run ends, and its plots and Flent file about 0.3 MB; 8 MB
    /// per scenario and 32 MB besides leave room for dense probes and many
    /// flows. A headers pcapng adds its byte cap per scenario (method §7.7).
    pub fn out_space_needed(&self) -> u64 {
        out_space_needed(self.planned().len(), &self.exp.capture)
    }
}

fn out_space_needed(scenarios: usize, capture: &netlab_experiment::CaptureSpec) -> u64 {
    let pcap = match capture.pcap {
        netlab_experiment::PcapMode::Headers => capture.pcap_max_bytes,
        netlab_experiment::PcapMode::Off => 0,
    };
    ((32 + 8 * scenarios as u64) << 20).saturating_add(pcap.saturating_mul(scenarios as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_probes_of_one_kind_are_not_runnable() {
        let mut cfg = SessionConfig::new(Experiment::default(), "o".into());
        assert!(cfg.check_runnable().is_ok());
        // A second probe of the first one's kind, after the method's probes.
        cfg.exp.probes.push(cfg.exp.probes[0]);
        let e = cfg.check_runnable().unwrap_err();
        let second = format!("probes[{}]: the runner runs one", cfg.exp.probes.len() - 1);
        assert!(e.starts_with(&second), "{e}");
    }

    #[test]
    fn the_deadlines_and_the_space_grow_with_the_shard() {
        let mut cfg = SessionConfig::new(Experiment::default(), "o".into());
        let all = cfg.planned().len();
        assert_eq!(cfg.shard_record(), None);
        // The method's experiment: an 18 s timeline, a 25 s capture deadline.
        assert_eq!(cfg.scenario_deadline(), Duration::from_secs(25 + 40));
        assert_eq!(
            cfg.run_deadline(),
            cfg.scenario_deadline() * all as u32 + Duration::from_secs(60)
        );
        assert_eq!(cfg.out_space_needed(), (32 + 8 * all as u64) << 20);
        cfg.shard = Some(Shard { k: 1, n: 2 });
        let share = cfg.planned().len();
        assert!(share < all, "{share} of {all}");
        let rec = cfg.shard_record().unwrap();
        assert_eq!(rec.plan_indices.len(), share);
        assert_eq!((rec.k, rec.n), (1, 2));
        let argv = cfg.guest_argv(Path::new("/r/experiment.toml"));
        assert_eq!(&argv[..2], ["run", "/r/experiment.toml"]);
        assert!(argv.ends_with(&["--shard".into(), "1/2".into(), "--inside-guest".into()]));
    }
}
