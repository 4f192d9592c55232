//! What the orchestrator adds to a [`netlab_run::Session`]: the notes of
//! results.json, the heap given back between scenarios, and the run's end
//! (summary.md, the report, the table on stdout). Every call into the
//! summary a run makes is here.

use std::path::Path;

use netlab_results::{Interrupted, Results, ScenarioResult};
use netlab_run::RunHooks;

use crate::report::RunDigest;
use netlab_report::summary;

/// The orchestrator's [`RunHooks`].
#[derive(Default)]
pub struct Finish {
    /// The scenarios read back after the run.
    digest: Option<RunDigest>,
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
            .get_or_insert_with(|| RunDigest::new(&header.experiment))
            .push(scenario);
    }

    /// summary.md and the report from the scenarios read back one at a time.
    fn write(&mut self, header: &Results, failed_receipts: usize, out: &Path) -> bool {
        let digest = self
            .digest
            .take()
            .unwrap_or_else(|| RunDigest::new(&header.experiment));
        let figures = digest.figures().to_vec();
        let input = digest.report_input(header);
        let rows: Vec<summary::SummaryRow> = figures.iter().map(|f| f.row.clone()).collect();
        let extra = summary::extra_notes(&figures, failed_receipts);
        let sections = summary::sections(&figures);
        let md = summary::render_figures(
            header,
            &figures,
            summary::headline_of(input.as_ref()).as_deref(),
            failed_receipts,
        );
        let mut ok = true;
        if let Err(e) = netlab_sys::atomic::write(&out.join("summary.md"), md.as_bytes()) {
            eprintln!("orchestrator: writing summary.md: {e}");
            ok = false;
        }
        if !crate::report::after_run(input, out) {
            ok = false;
        }
        self.printed = std::iter::once(summary::table(&rows))
            .chain(sections)
            .chain(std::iter::once(summary::baseline_list(&rows)))
            .chain(extra.iter().map(|n| format!("note: {n}")))
            .collect();
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
        let md = summary::render(header, 0);
        if let Err(e) = netlab_sys::atomic::write(&out.join("summary.md"), md.as_bytes()) {
            eprintln!("orchestrator: writing summary.md: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// results.json's notes follow summary.md's rule (issue 33): the
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
