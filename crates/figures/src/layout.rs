//! Where each file of a results folder goes, so a person finds the answer
//! first (docs/report.md, "The results folder"): the top holds what is
//! about the whole run (index.html, summary.md, results.json, the CSVs,
//! sweep.json, the headline figure and who got the link
//! (`hosts-share-*`)), at most 20 entries whatever the run's size;
//! everything else is in a folder:
//!
//! - `scenarios/sNN/`: a scenario's page (`index.html`) and its four plots
//!   (`sNN-probe-rtt.svg`, …), NN its index zero-padded to 2;
//! - `sweep/`: a sweep's figures, each metric against each axis
//!   (`sweep-METRIC-vs-AXIS.svg`; two axes and a dozen metrics would
//!   crowd the top);
//! - `points/pNN/`: a sweep point's figures over its own rounds
//!   (`pNN-km-cdf-loaded.svg`, …);
//! - `figures/`: the run's other figures (the delay CDF, the overviews of
//!   each pair of arms, the goodput–delay scatter);
//! - `flent/`: one Flent data file per scenario;
//! - `pcap/`: the packet files (written by the run, not the report).
//!
//! Every file keeps its `sNN-`/`pNN-` prefix inside its folder, so a file
//! copied out of the folder still says whose it is. Every page and test
//! names a path through these functions.

/// The folder of each scenario's page and plots.
pub const SCENARIOS_DIR: &str = "scenarios";
/// The folder of a sweep's figures, each metric against each axis.
pub const SWEEP_DIR: &str = "sweep";
/// The folder of a sweep's per-point figures.
pub const POINTS_DIR: &str = "points";
/// The folder of the run's figures other than the headline's and the
/// sweep's.
pub const FIGURES_DIR: &str = "figures";
/// The folder of the Flent data files.
pub const FLENT_DIR: &str = "flent";

/// A scenario's folder: `scenarios/s03`.
pub fn scenario_dir(index: u32) -> String {
    format!("{SCENARIOS_DIR}/s{index:02}")
}

/// A scenario's page: `scenarios/s03/index.html`.
pub fn scenario_page(index: u32) -> String {
    format!("{}/index.html", scenario_dir(index))
}

/// One of a scenario's plots: `scenarios/s03/s03-goodput.svg` for `kind`
/// `goodput`.
pub fn scenario_plot(index: u32, kind: &str) -> String {
    format!("{}/s{index:02}-{kind}.svg", scenario_dir(index))
}

/// A sweep point's figure `name` (a run-level figure's file name):
/// `points/p02/p02-km-cdf-loaded.svg`.
pub fn point_figure(point: u32, name: &str) -> String {
    format!("{POINTS_DIR}/p{point:02}/p{point:02}-{name}")
}

/// A sweep figure `name`: `sweep/sweep-drops-vs-flows.svg`.
pub fn sweep_figure(name: &str) -> String {
    format!("{SWEEP_DIR}/{name}")
}

/// A run-level figure other than the headline's and the sweep's:
/// `figures/km-cdf-loaded.svg`.
pub fn run_figure(name: &str) -> String {
    format!("{FIGURES_DIR}/{name}")
}

/// A Flent data file `name`: `flent/s01-round1-pfifo.flent.gz`.
pub fn flent_file(name: &str) -> String {
    format!("{FLENT_DIR}/{name}")
}

/// The way from the page at `page` (a path in the results folder) back to
/// the folder's top: `""` from index.html, `../../` from
/// `scenarios/s03/index.html`.
pub fn up_from(page: &str) -> String {
    "../".repeat(page.matches('/').count())
}

/// A path's last part, the file's own name (`s03-goodput.svg`): the id of
/// its figure on a page.
pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_is_under_its_folder_with_its_own_prefix() {
        assert_eq!(scenario_page(3), "scenarios/s03/index.html");
        assert_eq!(scenario_plot(12, "qdisc"), "scenarios/s12/s12-qdisc.svg");
        assert_eq!(
            point_figure(2, "km-cdf-loaded.svg"),
            "points/p02/p02-km-cdf-loaded.svg"
        );
        assert_eq!(
            sweep_figure("sweep-drops-vs-flows.svg"),
            "sweep/sweep-drops-vs-flows.svg"
        );
        assert_eq!(
            run_figure("scatter-goodput-delay.svg"),
            "figures/scatter-goodput-delay.svg"
        );
        assert_eq!(
            flent_file("s01-round1-pfifo.flent.gz"),
            "flent/s01-round1-pfifo.flent.gz"
        );
        assert_eq!(up_from("index.html"), "");
        assert_eq!(up_from(&scenario_page(3)), "../../");
        assert_eq!(base_name(&scenario_plot(3, "goodput")), "s03-goodput.svg");
        assert_eq!(base_name("index.html"), "index.html");
    }
}
