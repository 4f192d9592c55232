//! What the orchestrator adds to a [`netlab_run::Session`]: the notes of
//! results.json, the heap given back between scenarios, and the run's end:
//! the scenarios read back fed to a [`ReportBuilder`], the folder finished
//! from it by [`netlab_report::folder::finish_from`] (summary.md, then the
//! report), and the table on stdout.

use std::path::Path;

use netlab_analysis::ReportBuilder;
use netlab_report::folder::{self, FinishOptions};
use netlab_report::summary;
use netlab_results::{Interrupted, Results, ScenarioResult};
use netlab_run::RunHooks;

/// The orchestrator's [`RunHooks`].
#[derive(Default)]
pub struct Finish {
    /// The scenarios read back after the run.
    digest: Option<ReportBuilder>,
    /// What [`RunHooks::print`] prints, computed by [`RunHooks::write`].
    printed: Vec<String>,
}

impl RunHooks for Finish {
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

    /// What the scenario's threads freed goes back to the system, so the
    /// next scenario starts where this one did.
    fn scenario_written(&mut self) {
        crate::heap::release_free_heap();
    }

    fn scenario_read_back(&mut self, header: &Results, scenario: &ScenarioResult) {
        self.digest
            .get_or_insert_with(|| ReportBuilder::new(&header.experiment))
            .push(scenario);
    }

    /// summary.md and the report from the scenarios read back one at a
    /// time; summary.md stands whatever the report does.
    fn write(&mut self, header: &Results, failed_receipts: usize, out: &Path) -> bool {
        let digest = self
            .digest
            .take()
            .unwrap_or_else(|| ReportBuilder::new(&header.experiment));
        let options = FinishOptions::run_end(failed_receipts);
        let finished = match folder::finish_from(digest, header, out, &options, &mut |_| {}) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("orchestrator: finishing {}: {e}", out.display());
                return false;
            }
        };
        let mut ok = true;
        if let Err(e) = &finished.summary {
            eprintln!("orchestrator: writing summary.md: {e}");
            ok = false;
        }
        if !crate::report::said(&finished.report) {
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
            eprintln!("orchestrator: writing summary.md: {e}");
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
            Finish::default().notes(&exp)
        };
        let fifo = of("\"pfifo limit 256\", \"bfifo limit 64kb\"");
        assert!(!fifo.iter().any(|n| n.contains(fq_note)), "{fifo:?}");
        assert!(fifo.iter().any(|n| n.contains("TBF's own `limit`")));
        let method = of("\"pfifo limit 256\", \"fq_codel\"");
        assert!(method.iter().any(|n| n.contains(fq_note)), "{method:?}");
        assert_eq!(method.len(), summary::NOTES.len());
    }
}
