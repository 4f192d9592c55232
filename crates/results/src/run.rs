//! The run as a whole: its header (tool, kernel, the experiment as run,
//! times, notes), where its scenarios ran, how it was stopped, sharded,
//! resumed or merged.

use netlab_experiment::ExperimentFile;
use serde::{Deserialize, Serialize};

use crate::ScenarioResult;

/// Version of the results.json shape; a change of shape bumps it.
pub const SCHEMA_VERSION: u32 = 4;

/// The whole results file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// Shape version.
    pub schema_version: u32,
    /// The tool that wrote it.
    pub tool: Tool,
    /// The kernel that ran the experiment.
    pub kernel: KernelInfo,
    /// The experiment as run, resolved (every default spelled out).
    pub experiment: ExperimentFile,
    /// Run id (namespace names carry it).
    pub run_id: String,
    /// Start, UTC (RFC 3339).
    pub started_utc: String,
    /// End, UTC (RFC 3339).
    pub finished_utc: String,
    /// Sum of the planned scenarios' timelines, s (the floor of the wall time).
    #[serde(default)]
    pub timeline_total_s: f64,
    /// Wall time of the scenarios so far, s.
    #[serde(default)]
    pub wall_s: f64,
    /// Scenarios in execution order.
    pub scenarios: Vec<ScenarioResult>,
    /// Notes that qualify the figures.
    pub notes: Vec<String>,
    /// Set when SIGINT/SIGTERM stopped the run: where and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interrupted>,
    /// The experiment's content hash (absent in older files,
    /// where [`Results::experiment_hash_or_computed`] computes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment_hash: Option<String>,
    /// The share of the plan this run ran (`run --shard K/N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardRecord>,
    /// Run ids of earlier attempts this folder was resumed from (`--resume`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed_from: Vec<String>,
    /// Set when `orchestrator merge` made this file from shard folders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<MergeRecord>,
    /// The run's time outside its scenarios (docs/method.md §3.5; absent
    /// in files written before schema 4, and in a merged file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<crate::RunSteps>,
}

/// The share of the plan one run ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRecord {
    /// Which shard (1-based).
    pub k: u32,
    /// Of how many.
    pub n: u32,
    /// Units (a round at a sweep point) in the whole plan.
    pub units_total: u32,
    /// The plan indices of this shard's scenarios, in plan order.
    pub plan_indices: Vec<u32>,
}

/// Where a merged results.json came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergeRecord {
    /// Each source folder, in the order given.
    pub sources: Vec<MergeSource>,
    /// Scenarios in the plan.
    pub planned: u32,
    /// Plan indices no source held complete (empty unless `--allow-partial`).
    pub missing: Vec<u32>,
}

/// One folder merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergeSource {
    /// The folder as given.
    pub folder: String,
    /// Its run id.
    pub run_id: String,
    /// Its shard, when it ran one.
    pub shard: Option<String>,
    /// Plan indices taken from it.
    pub plan_indices: Vec<u32>,
}

/// Where a signal stopped the run. The scenarios before `scenario` are
/// complete; `scenario` keeps its samples up to the stop, its error and its
/// cleanup receipts; none after it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interrupted {
    /// `SIGINT` or `SIGTERM`.
    pub signal: String,
    /// The scenario that was running (1-based), or none (between scenarios,
    /// or before the first one, e.g. while the guest booted).
    pub scenario: Option<u32>,
    /// The phase it was in (`baseline`, `warm-up`, `loaded`, `setup`,
    /// `between scenarios`, `before the first scenario`).
    pub phase: String,
    /// Seconds after the scenario's t0, when it had one.
    pub at_s: Option<f64>,
}

impl Results {
    /// The experiment's content hash: the recorded one, or computed from
    /// the experiment as run for files written before it was recorded.
    pub fn experiment_hash_or_computed(
        &self,
    ) -> Result<String, netlab_experiment::ExperimentError> {
        match &self.experiment_hash {
            Some(h) => Ok(h.clone()),
            None => Ok(self.experiment()?.content_hash()),
        }
    }

    /// The experiment as run, resolved again from its file form.
    pub fn experiment(
        &self,
    ) -> Result<netlab_experiment::Experiment, netlab_experiment::ExperimentError> {
        netlab_experiment::Experiment::from_file(&self.experiment)
    }
}

/// Tool name and version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// `netlab`.
    pub name: String,
    /// Crate version.
    pub version: String,
}

impl Tool {
    /// This build of netlab.
    pub fn this() -> Tool {
        Tool {
            name: "netlab".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// Which kernel ran, and how.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct KernelInfo {
    /// `host` or `uml`.
    pub mode: String,
    /// `uname -r` of the kernel that ran the experiment.
    pub release: String,
    /// Why this kernel was chosen (auto mode explains itself).
    pub chosen_because: String,
    /// The guest kernel's name (`uml`, `uml-6.12`); absent on the host and
    /// in files before schema 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Where the kernel came from (`user-mode-linux 6.1um4+b13`,
    /// `linux-source-6.12 6.12.118-1~deb12u1`), where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// SHA-256 of the kernel's whole configuration file, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_sha256: Option<String>,
    /// The compiler that built it, as its configuration names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiler: Option<String>,
}

impl KernelInfo {
    /// The kernel in one line: `uml-6.12 6.12.118 (linux-source-6.12
    /// 6.12.118-1~deb12u1; config sha256 1a2b3c4d5e6f; gcc …)`, what of it
    /// is known.
    pub fn describe(&self) -> String {
        let name = self.name.as_deref().unwrap_or(&self.mode);
        let mut facts = Vec::new();
        if let Some(s) = &self.source {
            facts.push(s.clone());
        }
        if let Some(h) = &self.config_sha256 {
            facts.push(format!("config sha256 {}", &h[..h.len().min(12)]));
        }
        if let Some(c) = &self.compiler {
            facts.push(c.clone());
        }
        if facts.is_empty() {
            format!("{name} {}", self.release)
        } else {
            format!("{name} {} ({})", self.release, facts.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_record_says_what_it_knows_and_older_ones_read() {
        // Schema 3 recorded mode, release and reason only.
        let old: KernelInfo = serde_json::from_str(
            r#"{"mode": "uml", "release": "6.1.176", "chosen_because": "--kernel uml"}"#,
        )
        .unwrap();
        assert_eq!(old.name, None);
        assert_eq!(old.describe(), "uml 6.1.176");
        let built = KernelInfo {
            mode: "uml".into(),
            release: "6.12.118".into(),
            chosen_because: "--kernel uml-6.12".into(),
            name: Some("uml-6.12".into()),
            source: Some("linux-source-6.12 6.12.118-1~deb12u1".into()),
            config_sha256: Some("f".repeat(64)),
            compiler: Some("gcc 12.2.0".into()),
        };
        assert_eq!(
            built.describe(),
            "uml-6.12 6.12.118 (linux-source-6.12 6.12.118-1~deb12u1; config sha256 ffffffffffff; gcc 12.2.0)"
        );
        let json = serde_json::to_string(&built).unwrap();
        assert_eq!(serde_json::from_str::<KernelInfo>(&json).unwrap(), built);
        // An unknown field stays out of the file.
        assert!(!serde_json::to_string(&old).unwrap().contains("compiler"));
    }
}
