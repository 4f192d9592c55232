//! The run's end as netlab writes it: [`ReportHooks`], the [`RunHooks`]
//! `orchestrator compare`, `run` and `rerun` pass to their [`Session`]
//! (and an embedder may too): the notes of results.json, the scenarios read
//! back fed to a [`ReportBuilder`], the folder finished from it by
//! [`netlab_report::folder::finish_from`] (summary.md, then the report),
//! and the table printed at the end. [`said`] is what every command that
//! writes a report says about it.
//!
//! [`Session`]: crate::Session

use std::path::Path;

use netlab_analysis::ReportBuilder;
use netlab_report::folder::{self, FinishOptions};
use netlab_report::{summary, ReportError, ReportFiles};
use netlab_results::{Interrupted, Results, ScenarioResult};

use crate::RunHooks;

/// Summary.md, the report and the table at the end of a run.
pub struct ReportHooks {
    /// The program named in messages (`orchestrator`).
    program: String,
    /// The command that ran (`compare`, `run`, …), named when the report
    /// fails.
    command: String,
    /// Called after each scenario is written (the orchestrator gives its
    /// freed heap back there).
    scenario_written: Option<fn()>,
    /// The scenarios read back after the run.
    digest: Option<ReportBuilder>,
    /// What [`RunHooks::print`] prints, computed by [`RunHooks::write`].
    printed: Vec<String>,
}

impl ReportHooks {
    /// Hooks whose messages say `program` and, when the report fails,
    /// `program command`.
    pub fn new(program: &str, command: &str) -> ReportHooks {
        ReportHooks {
            program: program.into(),
            command: command.into(),
            scenario_written: None,
            digest: None,
            printed: Vec::new(),
        }
    }

    /// Calls `f` after each scenario is written.
    pub fn on_scenario_written(mut self, f: fn()) -> ReportHooks {
        self.scenario_written = Some(f);
        self
    }
}

impl RunHooks for ReportHooks {
    /// The general notes of the experiment's arms, by the rule summary.md
    /// and the report use ([`summary::notes_for`]).
    fn notes(&self, exp: &netlab_experiment::Experiment) -> Vec<String> {
        let kinds: Vec<&str> = exp
            .plan()
            .scenarios
            .iter()
            .map(|s| s.arm.arm.kind())
            .collect();
        summary::notes_for(kinds)
            .into_iter()
            .map(String::from)
            .collect()
    }

    fn scenario_written(&mut self) {
        if let Some(f) = self.scenario_written {
            f();
        }
    }

    fn scenario_read_back(&mut self, header: &Results, scenario: &ScenarioResult) {
        self.digest
            .get_or_insert_with(|| ReportBuilder::new(&header.experiment))
            .push(scenario);
    }

    /// summary.md and the report from the scenarios read back one at a
    /// time; summary.md stands whatever the report does.
    fn write(&mut self, header: &Results, failed_receipts: usize, out: &Path) -> bool {
        let program = &self.program;
        let digest = self
            .digest
            .take()
            .unwrap_or_else(|| ReportBuilder::new(&header.experiment));
        let options = FinishOptions::run_end(failed_receipts);
        let finished = match folder::finish_from(digest, header, out, &options, &mut |_| {}) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{program}: finishing {}: {e}", out.display());
                return false;
            }
        };
        let mut ok = true;
        if let Err(e) = &finished.summary {
            eprintln!("{program}: writing summary.md: {e}");
            ok = false;
        }
        if !said(&format!("{program} {}", self.command), &finished.report) {
            ok = false;
        }
        self.printed = finished.table;
        ok
    }

    fn print(&mut self) {
        for line in &self.printed {
            println!("{line}");
        }
    }

    fn interrupted_banner(&self, interrupted: &Interrupted, kept: &[u32]) -> String {
        summary::interrupted_banner(interrupted, kept).replace("**", "")
    }

    fn unstarted(&mut self, header: &Results, out: &Path) {
        if let Err(e) = folder::write_unstarted_summary(header, out) {
            eprintln!("{}: writing summary.md: {e}", self.program);
        }
    }
}

/// Says how the report at the end of a run or merge went (results.json and
/// summary.md are written before it and kept whatever it does), naming
/// `who` (`orchestrator merge`) when it failed; false then (the command
/// exits 1).
pub fn said(who: &str, report: &Result<ReportFiles, ReportError>) -> bool {
    match report {
        Ok(files) => {
            println!("report: {}", files.html.display());
            true
        }
        Err(e) => {
            eprintln!("{who}: the report failed (results.json and summary.md are kept): {e}");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// results.json's notes follow summary.md's rule: the
    /// fq_codel note only where an fq_codel arm runs.
    #[test]
    fn results_json_notes_are_the_experiments_own() {
        let fq_note = "pfifo and fq_codel both have a 256-packet limit";
        let of = |arms: &str| {
            let exp =
                netlab_experiment::parse(&format!("name = \"n\"\nrounds = 1\narms = [{arms}]\n"))
                    .unwrap();
            ReportHooks::new("orchestrator", "run").notes(&exp)
        };
        let fifo = of("\"pfifo limit 256\", \"bfifo limit 64kb\"");
        assert!(!fifo.iter().any(|n| n.contains(fq_note)), "{fifo:?}");
        assert!(fifo.iter().any(|n| n.contains("TBF's own `limit`")));
        let method = of("\"pfifo limit 256\", \"fq_codel\"");
        assert!(method.iter().any(|n| n.contains(fq_note)), "{method:?}");
        assert_eq!(method.len(), summary::NOTES.len());
    }

    /// The report failing is said, and the command is failed.
    #[test]
    fn a_failed_report_is_said_and_fails_the_command() {
        let failed: Result<ReportFiles, ReportError> = Err(ReportError::UnsupportedSchema {
            found: 9,
            supported: vec![1, 2, 3],
        });
        assert!(!said("orchestrator merge", &failed));
    }
}
