//! netlab-report: every run as pictures, numbers between arms with honest
//! uncertainty, and a Flent export — from results.json alone.
//!
//! [`read_results`] reads a results folder (or its results.json) of any
//! schema version through netlab-results, one scenario at a time, into the
//! report's own [`ReportInput`] (the samples it draws, [`input`]);
//! [`render`] recomputes every figure from the raw samples and writes the
//! SVG plots, `index.html` and one `.flent.gz` per scenario. Nothing is
//! written until everything has rendered, and each file is written under a
//! temporary name and renamed, so a failure never leaves a half-written
//! report.
//!
//! ```no_run
//! let input = netlab_report::read_results("results/20261130T193513Z".as_ref())?;
//! let files = netlab_report::render(&input, "results/20261130T193513Z".as_ref())?;
//! println!("{}", files.html.display());
//! # Ok::<(), netlab_report::ReportError>(())
//! ```
//!
//! The statistics ([`compare`], [`stats`]) are pure functions; the method is
//! described in docs/report.md and the Flent mapping in docs/flent.md.
//! summary.md, the run's text summary, is rendered here too ([`summary`],
//! pure). [`finish_folder`] takes a results folder from its results.json to
//! summary.md, the plots, index.html and the Flent files, caveats included,
//! in one call: the end of every `orchestrator` command that writes a
//! report ([`folder`]).

#![forbid(unsafe_code)]

pub mod compare;
pub mod delivery;
pub mod flent;
pub mod folder;
pub mod headline;
mod html;
pub mod input;
pub mod ladder;
pub mod model;
pub mod path_seen;
mod plot_headline;
pub mod plot_style;
pub mod plot_sweep;
mod plots;
mod plots_overview;
mod plots_run;
pub mod points;
pub mod predict;
pub mod readbacks;
mod sentence;
pub mod state;
pub mod summary;
pub mod sweep;
pub mod sweep_file;
pub mod sweep_headline;
pub mod sweep_model;

/// The shared statistics (Kaplan–Meier, the rank interval over rounds, the seeded bootstrap, medians),
/// netlab-stats under its old path.
pub use netlab_stats as stats;

use std::path::{Path, PathBuf};

use netlab_sys::atomic::{AtomicFile, Durability, FileError};

pub use folder::{finish_folder, FinishOptions, FinishedFolder};
pub use input::{input_from, ReportBuilder};
pub use model::ReportInput;

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
    /// One Flent data file per scenario.
    pub flent: Vec<PathBuf>,
    /// A sweep's data files (`sweep.csv`, `sweep.json`); none without a sweep.
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

/// The results.json of a results folder, or the path itself if it is a file.
pub fn results_path(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("results.json")
    } else {
        path.to_path_buf()
    }
}

/// Reads a results folder or a results.json, of any schema version
/// netlab-results reads, one scenario at a time, with the caveats
/// [`summary::caveats`] finds. A read error (the field's path named) comes
/// before a value the report cannot draw.
pub fn read_results(path: &Path) -> Result<ReportInput, ReportError> {
    let (header, builder) = folder::read(&results_path(path))?;
    builder.finish(&header)
}

/// Renders every file in memory (SVGs, index.html, .flent.gz, and for a
/// sweep sweep.csv and sweep.json), in a fixed
/// order; nothing touches the disk.
pub fn render_all(input: &ReportInput) -> Result<Vec<Rendered>, ReportError> {
    let stats = compare::analyse(input);
    let headline = headline::of(input, &stats);
    let mut svgs = plots::all(input, &stats, &headline)?;
    // A sweep's figures and the table behind them (docs/report.md, "Sweep
    // data"), written beside the figures so a reader can redraw them.
    let table = sweep::table(input);
    let mut data = Vec::new();
    if let Some(t) = &table {
        svgs.extend(plot_sweep::all(t)?);
        data.push(Rendered {
            name: "sweep.csv".into(),
            bytes: sweep_file::csv(t).into_bytes(),
        });
        data.push(Rendered {
            name: "sweep.json".into(),
            bytes: sweep_file::json(t).into_bytes(),
        });
    }
    let mut out: Vec<Rendered> = svgs
        .iter()
        .map(|p| Rendered {
            name: p.file.clone(),
            bytes: p.svg.clone().into_bytes(),
        })
        .collect();
    // A scenario Flent could not plot (no reply at all, a failed scenario)
    // gets no file; the page says why.
    let mut flent_files = Vec::new();
    let mut flent_skipped = Vec::new();
    for s in &input.scenarios {
        match flent::export_gz(input, s) {
            Ok(bytes) => flent_files.push(Rendered {
                name: flent::file_name(s),
                bytes,
            }),
            Err(e @ ReportError::Flent { .. }) => flent_skipped.push(e.to_string()),
            Err(e) => return Err(e),
        }
    }
    let names: Vec<String> = flent_files.iter().map(|f| f.name.clone()).collect();
    out.push(Rendered {
        name: "index.html".into(),
        bytes: html::page(input, &stats, &headline, &svgs, &names, &flent_skipped).into_bytes(),
    });
    out.extend(flent_files);
    out.extend(data);
    Ok(out)
}

/// Renders the report of `input` into `out_dir` (created if missing).
pub fn render(input: &ReportInput, out_dir: &Path) -> Result<ReportFiles, ReportError> {
    write_rendered(&render_all(input)?, out_dir)
}

/// Writes the files [`render_all`] rendered into `out_dir` (created if
/// missing): each under a temporary name first, then all renamed, so a
/// failed write leaves no report file behind.
pub fn write_rendered(files: &[Rendered], out_dir: &Path) -> Result<ReportFiles, ReportError> {
    std::fs::create_dir_all(out_dir).map_err(|source| ReportError::Io {
        what: "creating",
        path: out_dir.to_path_buf(),
        source,
    })?;
    let mut written = ReportFiles {
        svgs: Vec::new(),
        html: out_dir.join("index.html"),
        flent: Vec::new(),
        data: Vec::new(),
    };
    // The temporaries are removed when dropped.
    let mut tmps = Vec::with_capacity(files.len());
    for f in files {
        let mut tmp = AtomicFile::create(&out_dir.join(&f.name))?;
        std::io::Write::write_all(&mut tmp, &f.bytes).map_err(tmp.error("writing"))?;
        tmps.push(tmp);
    }
    for (f, tmp) in files.iter().zip(tmps) {
        tmp.commit(Durability::Unsynced)?;
        let dest = out_dir.join(&f.name);
        if f.name.ends_with(".svg") {
            written.svgs.push(dest);
        } else if f.name.ends_with(".flent.gz") {
            written.flent.push(dest);
        } else if f.name.starts_with("sweep.") {
            written.data.push(dest);
        }
    }
    Ok(written)
}
