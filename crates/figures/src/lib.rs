//! netlab-figures: every figure of a netlab report drawn as SVG, in one
//! style that prints legibly.
//!
//! The modules are layered from the numbers on an axis up to the figures
//! a folder gets:
//!
//! - [`plot_scale`]: tick labels and a sweep figure's value scales;
//! - [`plot_style`]: the print rule for type (every figure keeps its
//!   smallest text at 8 pt when printed 8.5 cm wide), titles, markers,
//!   axes; [`plot_legend`]: the legend below the plot and labels that
//!   never overprint;
//! - [`plots`] and [`plots_run`]: the shared pieces, each scenario's four
//!   figures and the run's delay CDFs;
//! - one module per figure ([`plot_headline`], [`plots_overview`],
//!   [`plot_iso_delivered`], [`plot_hosts`], [`plot_link`],
//!   [`plot_sweep`]);
//! - [`drawn`]: which figures a results folder gets, in order.
//!
//! [`layout`] says where each file of a results folder goes, so every
//! figure is named by its path there. Everything here is a pure function
//! of netlab-analysis' figures: it returns SVG text, and netlab-report
//! writes it beside the pages that show it (docs/report.md, "One figure
//! style").

#![forbid(unsafe_code)]

pub mod drawn;
pub mod layout;
pub mod plot_headline;
pub mod plot_hosts;
pub mod plot_iso_delivered;
pub mod plot_legend;
pub mod plot_link;
pub mod plot_scale;
pub mod plot_style;
pub mod plot_sweep;
pub mod plot_sweep_notes;
pub mod plots;
pub mod plots_overview;
pub mod plots_run;

/// A figure that could not be drawn: its file and what the drawing
/// library said.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("plot {plot}: {message}")]
pub struct PlotError {
    /// The plot's file name.
    pub plot: String,
    /// The drawing error.
    pub message: String,
}
