//! One way to finish a results folder (docs/architecture.md, the report crate): from its results.json to
//! summary.md, the SVG figures, index.html, one page (`scenarios/sNN/index.html`)
//! and one `.flent.gz` per scenario, with the caveats beside the figures they qualify in both
//! summary.md and the page. `orchestrator report PATH` is [`finish_folder`];
//! a program that embeds this crate gets the same files from the same call.
//!
//! results.json (any schema version) is read one scenario at a time into a
//! [`ReportBuilder`]: each scenario's summary figures and the samples the
//! report draws, never the raw data of two scenarios together. summary.md
//! is rendered from the figures ([`summary::render_figures`]), the report
//! from the samples ([`crate::render_into`], scenario by scenario); both
//! carry the caveats
//! [`ScenarioFigures::caveats`](netlab_analysis::summary::ScenarioFigures::caveats) finds ([`finish_from`]).
//!
//! A run (`compare`, `run`) and a merge hold the scenarios results.json
//! holds in their scenario files, and read those back one at a time anyway;
//! they feed the builder from them and finish with [`finish_from`], the
//! same steps without reading results.json again (which took a merge of
//! 100 scenarios 2–3 times as long as the scenario files: docs/scale.md
//! §3).
//!
//! ```no_run
//! use netlab_report::folder::{finish_folder, FinishOptions};
//! let done = finish_folder(
//!     "results/20261130T193513Z".as_ref(),
//!     &FinishOptions::rerender(),
//!     &mut |_| {},
//! )?;
//! println!("{}", done.report?.html.display());
//! # Ok::<(), netlab_report::ReportError>(())
//! ```

use std::path::{Path, PathBuf};

use netlab_results::Results;

use crate::output::Staged;
use crate::summary;
use crate::{ReportBuilder, ReportError, ReportFiles, ReportInput};
use netlab_analysis::summary::{ScenarioFigures, SummaryRow};

/// What a folder is finished for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinishOptions {
    /// Steps of the run's final teardown that failed: they happen after the
    /// last scenario and are not kept in results.json, so only the run
    /// itself knows them (a note in summary.md and the table; 0 when a
    /// folder is rendered again).
    pub failed_teardown_steps: usize,
    /// What is written when the report cannot be built.
    pub when_report_fails: WhenReportFails,
}

impl FinishOptions {
    /// The end of a run (`compare`, `run`) or of a merge: summary.md stands
    /// whatever the report does.
    pub fn run_end(failed_teardown_steps: usize) -> FinishOptions {
        FinishOptions {
            failed_teardown_steps,
            when_report_fails: WhenReportFails::KeepSummary,
        }
    }

    /// A folder rendered again (`report PATH`): all or nothing.
    pub fn rerender() -> FinishOptions {
        FinishOptions {
            failed_teardown_steps: 0,
            when_report_fails: WhenReportFails::WriteNothing,
        }
    }
}

/// What a folder keeps when its report cannot be built (a value the report
/// cannot draw, a plot that fails).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenReportFails {
    /// summary.md is written first and stands: the end of a run, whose
    /// table must survive a report that fails. The report is rendered
    /// after it, and its error returned in [`FinishedFolder::report`].
    KeepSummary,
    /// Nothing is written until everything has rendered, so a refused
    /// folder stays as it was: a folder rendered again.
    WriteNothing,
}

/// A step of [`finish_folder`] that has just ended (a merge marks the time
/// and memory of each, docs/scale.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishStep {
    /// The scenarios were read and summary.md written (or its write
    /// failed).
    SummaryWritten,
    /// The report's files were written (or the report failed).
    ReportWritten,
}

/// What [`finish_folder`] wrote.
#[derive(Debug)]
pub struct FinishedFolder {
    /// summary.md's path.
    pub summary_md: PathBuf,
    /// summary.md written, or why not.
    pub summary: Result<(), ReportError>,
    /// The report's files (plots, index.html, Flent files), or why there
    /// are none.
    pub report: Result<ReportFiles, ReportError>,
    /// What a run prints at its end, one block per item: the table, the
    /// sections, the baseline list and each note beyond summary.md's
    /// general ones (`note: …`).
    pub table: Vec<String>,
}

/// Finishes the results folder at `path` (or the folder of the results.json
/// `path` names): summary.md, the plots, index.html and the Flent files,
/// the scenarios' pages, from results.json alone. `on_step` hears each
/// step's end.
///
/// An `Err` is a results.json that cannot be read (the field's path named)
/// or, with [`WhenReportFails::WriteNothing`], a report that cannot be
/// built: nothing was written. Otherwise what was written, and what could
/// not be, is in the [`FinishedFolder`].
pub fn finish_folder(
    path: &Path,
    options: &FinishOptions,
    on_step: &mut dyn FnMut(FinishStep),
) -> Result<FinishedFolder, ReportError> {
    let file = crate::results_path(path);
    let out_dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (header, builder) = read(&file)?;
    finish_from(builder, &header, &out_dir, options, on_step)
}

/// Finishes the results folder `out_dir` from its scenarios, already fed
/// to `builder` one at a time in execution order (the scenarios its
/// results.json holds), and `header`, results.json without its scenarios:
/// summary.md, then the report, as [`finish_folder`] says.
pub fn finish_from(
    builder: ReportBuilder,
    header: &Results,
    out_dir: &Path,
    options: &FinishOptions,
    on_step: &mut dyn FnMut(FinishStep),
) -> Result<FinishedFolder, ReportError> {
    let (figures, input) = builder.finish_with_figures(header);
    let md = summary::render_figures(
        header,
        &figures,
        summary::headline_of(input.as_ref()).as_deref(),
        options.failed_teardown_steps,
    );
    // The table is all the figures are needed for from here: they go
    // before the report renders (memory, docs/scale.md §3).
    let table = table(&figures, options.failed_teardown_steps);
    drop(figures);
    let input = input.map_err(ReportError::from);
    let report = match options.when_report_fails {
        WhenReportFails::WriteNothing => {
            Report::Rendered(input.and_then(|input| crate::render_staged(&input, out_dir))?)
        }
        WhenReportFails::KeepSummary => Report::ToRender(Box::new(input)),
    };
    let summary_md = out_dir.join("summary.md");
    let summary = netlab_os::atomic::write(&summary_md, md.as_bytes()).map_err(ReportError::from);
    on_step(FinishStep::SummaryWritten);
    let report = report.write(out_dir);
    on_step(FinishStep::ReportWritten);
    Ok(FinishedFolder {
        summary_md,
        summary,
        report,
        table,
    })
}

/// Reads the results.json at `file` (any version): its header (with no
/// scenarios) and its scenarios digested one at a time. A read error (the
/// field's path named) comes before a value the report cannot draw.
pub(crate) fn read(file: &Path) -> Result<(Results, ReportBuilder), ReportError> {
    let mut builder = None;
    let header = netlab_results::stream::read_each(file, |experiment, s| {
        builder
            .get_or_insert_with(|| ReportBuilder::new(experiment))
            .push(s)
    })?;
    let builder = builder.unwrap_or_else(|| ReportBuilder::new(&header.experiment));
    Ok((header, builder))
}

/// summary.md of a run none of whose scenarios started (a signal before a
/// guest run began): the header and the empty table, and no report, since
/// there is nothing to draw. `results` is the results.json just written.
pub fn write_unstarted_summary(results: &Results, out_dir: &Path) -> Result<PathBuf, ReportError> {
    let path = out_dir.join("summary.md");
    netlab_os::atomic::write(&path, summary::render(results, 0).as_bytes())?;
    Ok(path)
}

/// The report, rendered already into its staging folder (nothing may be
/// put in place unless it all renders) or still to render (after
/// summary.md). Either way its files are written one scenario at a time
/// ([`crate::render_into`]), never held together.
enum Report {
    Rendered(Staged),
    ToRender(Box<Result<ReportInput, ReportError>>),
}

impl Report {
    fn write(self, out_dir: &Path) -> Result<ReportFiles, ReportError> {
        match self {
            Report::Rendered(staged) => staged.commit(),
            Report::ToRender(input) => (*input).and_then(|input| crate::render(&input, out_dir)),
        }
    }
}

/// What a run prints at its end ([`FinishedFolder::table`]).
fn table(figures: &[ScenarioFigures], failed_teardown_steps: usize) -> Vec<String> {
    let rows: Vec<SummaryRow> = figures.iter().map(|f| f.row.clone()).collect();
    std::iter::once(summary::table(&rows))
        .chain(summary::sections(figures))
        .chain(std::iter::once(summary::baseline_list(&rows)))
        .chain(
            summary::extra_notes(figures, failed_teardown_steps)
                .iter()
                .map(|n| format!("note: {n}")),
        )
        .collect()
}
