//! netlab-report: every run as pictures, pages and files, from
//! results.json alone; the figures themselves are netlab-analysis'.
//!
//! [`read_results`] reads a results folder (or its results.json) of any
//! schema version through netlab-results, one scenario at a time, into
//! netlab-analysis' `ReportInput`; [`render`] draws and writes it: the
//! SVG plots (one style, [`plot_style`]), `index.html`, one page per
//! scenario (`scenarios/sNN/index.html`), one `.flent.gz` per scenario
//! (`flent/`, [`flent`]), where [`layout`] puts each, and the flat tables `probes.csv` and `flows.csv`
//! ([`tables`]). Each scenario's plots are rendered, written and dropped
//! before the next scenario's ([`render_into`]), so the report's memory
//! does not grow with its scenarios' plots; the files go to a staging
//! folder and are renamed into place only once everything has rendered
//! ([`output::Staged`]), so a failure never leaves a half-written report.
//!
//! ```
//! // A real one-round guest run's folder (fixtures/orchestrator/golden).
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/orchestrator/golden");
//! let input = netlab_report::read_results(dir.as_ref())?;
//! // Every file in memory; `render(&input, dir)` writes them instead.
//! let files = netlab_report::render_all(&input)?;
//! let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
//! assert!(names.contains(&"index.html"));
//! assert!(names.contains(&"scenarios/s01/index.html"));
//! assert!(names.iter().any(|n| n.ends_with(".svg")));
//! # Ok::<(), netlab_report::ReportError>(())
//! ```
//!
//! summary.md, the run's text summary, is rendered here too ([`summary`],
//! pure). [`folder::finish_folder`] takes a results folder from its
//! results.json to summary.md, the plots, index.html and the Flent files,
//! caveats included, in one call: the end of every `orchestrator` command
//! that writes a report ([`folder`]). [`diff`] sets two runs side by side.
//! The method is described in docs/report.md and the Flent mapping in
//! docs/flent.md; scripts/public-items.sh counts this crate's public
//! surface.

#![forbid(unsafe_code)]

pub mod diff;
pub mod folder;
mod html;
mod markdown;
pub mod output;
mod scenario_page;
pub mod summary;

use std::path::{Path, PathBuf};

use netlab_os::atomic::FileError;

use netlab_export::{flent, sweep_file, tables};
use netlab_figures::{drawn, layout, plot_sweep};
use output::{RenderTarget, Staged};

/// A scenario's Flent data file in the results folder:
/// `flent/s01-round1-pfifo.flent.gz`.
pub fn flent_path(s: &netlab_analysis::records::Scenario) -> String {
    netlab_figures::layout::flent_file(&flent::data_file_name(s))
}

/// Text as index.html escapes it ([`markdown`]'s escaping, for tests that
/// look for summary.md's words on the page).
pub fn html_text(s: &str) -> String {
    markdown::esc(s)
}

use netlab_analysis::ReportBuilder;
use netlab_analysis::ReportInput;

/// Everything that can go wrong while reading results or writing a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file could not be read or written.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done (`reading`, `writing`).
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A field of results.json is missing, has the wrong type or an invalid value.
    #[error("results.json: field {path}: {message}")]
    Field {
        /// Path of the field (`scenarios[2].probe.requests[5].send_s`).
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// results.json was written by a newer (or unknown) netlab.
    #[error("results.json has schema_version {found}, which this netlab cannot read (it reads {supported:?}); use the netlab version that wrote it, or a newer one")]
    UnsupportedSchema {
        /// The version found.
        found: u32,
        /// Versions this reader understands.
        supported: Vec<u32>,
    },
    /// A plot could not be drawn.
    #[error("plot {plot}: {message}")]
    Plot {
        /// The plot's file name.
        plot: String,
        /// The drawing error.
        message: String,
    },
    /// The Flent export could not be built.
    #[error("flent export of scenario {scenario}: {message}")]
    Flent {
        /// Scenario index.
        scenario: u32,
        /// What failed.
        message: String,
    },
}

impl From<netlab_figures::PlotError> for ReportError {
    fn from(e: netlab_figures::PlotError) -> ReportError {
        ReportError::Plot {
            plot: e.plot,
            message: e.message,
        }
    }
}

impl From<netlab_export::FlentError> for ReportError {
    fn from(e: netlab_export::FlentError) -> ReportError {
        ReportError::Flent {
            scenario: e.scenario,
            message: e.message,
        }
    }
}

impl From<netlab_results::ReadError> for ReportError {
    fn from(e: netlab_results::ReadError) -> ReportError {
        use netlab_results::ReadError as R;
        match e {
            R::Io { what, path, source } => ReportError::Io { what, path, source },
            R::Field { path, message } => ReportError::Field { path, message },
            R::UnsupportedSchema { found, supported } => {
                ReportError::UnsupportedSchema { found, supported }
            }
        }
    }
}

impl From<netlab_analysis::InputError> for ReportError {
    fn from(e: netlab_analysis::InputError) -> ReportError {
        ReportError::Field {
            path: e.path,
            message: e.message,
        }
    }
}

impl From<FileError> for ReportError {
    fn from(e: FileError) -> ReportError {
        ReportError::Io {
            what: e.what,
            path: e.path,
            source: e.source,
        }
    }
}

/// The files a report wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportFiles {
    /// The SVG plots.
    pub svgs: Vec<PathBuf>,
    /// The page.
    pub html: PathBuf,
    /// One page per scenario (`scenarios/sNN/index.html`), in execution order.
    pub pages: Vec<PathBuf>,
    /// One Flent data file per scenario.
    pub flent: Vec<PathBuf>,
    /// The data files: probes.csv and flows.csv, and a sweep's
    /// `sweep.csv` and `sweep.json`.
    pub data: Vec<PathBuf>,
}

/// A rendered file, not yet written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// File name inside the output folder.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// The results.json of a results folder (its `results.json.gz` when only
/// that is there: [`netlab_results::file_in`]), or the path itself if it
/// is a file.
pub fn results_path(path: &Path) -> PathBuf {
    if path.is_dir() {
        netlab_results::file_in(path)
    } else {
        path.to_path_buf()
    }
}

/// Reads a results folder or a results.json, of any schema version
/// netlab-results reads, one scenario at a time, with the caveats
/// [`ScenarioFigures::caveats`](netlab_analysis::summary::ScenarioFigures::caveats) finds. A read error (the field's path named) comes
/// before a value the report cannot draw.
pub fn read_results(path: &Path) -> Result<ReportInput, ReportError> {
    let file = results_path(path);
    let (header, builder) = folder::read(&file)?;
    Ok(builder.finish(&header)?)
}

/// Renders every file in memory (SVGs, index.html, the scenarios' pages,
/// .flent.gz, probes.csv and flows.csv, and for a sweep sweep.csv and
/// sweep.json), in the order of
/// [`render_into`]; nothing touches the disk. Holds every file at once:
/// for a run of many scenarios, [`render`] writes them as they come.
pub fn render_all(input: &ReportInput) -> Result<Vec<Rendered>, ReportError> {
    let mut out = Vec::new();
    render_into(input, &mut out)?;
    Ok(out)
}

/// Renders every file of the report of `input` into `sink`, each as soon
/// as it is rendered, in a fixed order: the run's plots (a sweep's figures
/// among them), the headers of probes.csv and flows.csv, then scenario by
/// scenario its four plots, its Flent file, its page
/// (`scenarios/sNN/index.html`) and its rows of probes.csv and flows.csv
/// ([`RenderTarget::append`]), then index.html and a sweep's data files. A
/// scenario's plots and rows are dropped once written: what is held
/// across scenarios is the input, the statistics and the run's plots,
/// never the scenarios' plots or rows (docs/scale.md §3).
pub fn render_into(input: &ReportInput, sink: &mut dyn RenderTarget) -> Result<(), ReportError> {
    let stats = netlab_compare::compare::analyse(input);
    let headline = netlab_compare::headline::Headline::of(input, &stats);
    let mut plots = drawn::all(input, &stats, &headline)?;
    // A sweep's figures and the table behind them (docs/report.md, "Sweep
    // data"), written beside the figures so a reader can redraw them.
    let table = netlab_compare::sweep::SweepTable::of(input);
    if let Some(t) = &table {
        plots.extend(plot_sweep::all(t)?);
    }
    for p in &plots {
        sink.put(&p.file, p.svg.as_bytes())?;
    }
    // probes.csv and flows.csv (docs/usage.md, "Flat tables"): their
    // headers now, each scenario's rows after its page, so no scenario's
    // rows are held past it.
    let axes = table.as_ref().map_or(&[][..], |t| &t.axes[..]);
    sink.put("probes.csv", tables::probes_header(axes).as_bytes())?;
    sink.put("flows.csv", tables::flows_header(axes).as_bytes())?;
    // A scenario Flent could not plot (no reply at all, a failed scenario)
    // gets no file; its page and index.html say why.
    let mut flent_written = 0;
    let mut flent_skipped = Vec::new();
    for (i, s) in input.scenarios.iter().enumerate() {
        let around = scenario_page::Neighbours {
            previous: i.checked_sub(1).map(|j| &input.scenarios[j]),
            next: input.scenarios.get(i + 1),
        };
        let rate = s.point_rate().or(input.bottleneck_bps);
        let own = drawn::scenario_plots(s, rate)?;
        for p in &own {
            sink.put(&p.file, p.svg.as_bytes())?;
        }
        let name = flent_path(s);
        let flent = match flent::export_gz(input, s) {
            Ok(bytes) => {
                sink.put(&name, &bytes)?;
                flent_written += 1;
                Ok(name)
            }
            Err(e) => {
                flent_skipped.push(e.to_string());
                Err(e.to_string())
            }
        };
        let flent = flent.as_deref().map_err(String::as_str);
        let page = scenario_page::page(input, s, &own, flent, around);
        sink.put(&layout::scenario_page(s.index), page.as_bytes())?;
        sink.append("probes.csv", tables::probe_rows(s, axes).as_bytes())?;
        sink.append("flows.csv", tables::flow_rows(s, axes).as_bytes())?;
    }
    let page = html::page(
        input,
        &stats,
        &headline,
        &plots,
        flent_written,
        &flent_skipped,
    );
    sink.put("index.html", page.as_bytes())?;
    if let Some(t) = &table {
        sink.put("sweep.csv", sweep_file::csv(t).as_bytes())?;
        sink.put("sweep.json", sweep_file::json(t).as_bytes())?;
    }
    Ok(())
}

/// Renders the report of `input` into a staging folder of `out_dir`
/// (created if missing), file by file; [`Staged::commit`] puts it in place.
pub fn render_staged(input: &ReportInput, out_dir: &Path) -> Result<Staged, ReportError> {
    let mut staged = Staged::new(out_dir)?;
    let missing = |f: &netlab_analysis::records::PacketFile| !out_dir.join(&f.file).exists();
    if input
        .scenarios
        .iter()
        .any(|s| s.packet_files.iter().any(missing))
    {
        // A folder re-rendered from its results.json alone: its pages
        // name the packet files it lacks without linking them.
        let mut input = input.clone();
        for f in input
            .scenarios
            .iter_mut()
            .flat_map(|s| s.packet_files.iter_mut())
        {
            f.present = !missing(f);
        }
        render_into(&input, &mut staged)?;
    } else {
        render_into(input, &mut staged)?;
    }
    Ok(staged)
}

/// Renders the report of `input` into `out_dir` (created if missing): all
/// of it or, on an error, nothing.
pub fn render(input: &ReportInput, out_dir: &Path) -> Result<ReportFiles, ReportError> {
    render_staged(input, out_dir)?.commit()
}

/// Writes files [`render_all`] rendered into `out_dir` (created if
/// missing), through a staging folder: all of them or, on an error, none.
pub fn write_rendered(files: &[Rendered], out_dir: &Path) -> Result<ReportFiles, ReportError> {
    let mut staged = Staged::new(out_dir)?;
    for f in files {
        staged.put(&f.name, &f.bytes)?;
    }
    staged.commit()
}
