//! `orchestrator report PATH`, and the report every `compare` run ends with.
//!
//! results.json is read through netlab-results (any schema version, the
//! schema version first, then every field with its path named on error),
//! one scenario at a time ([`netlab_results::stream::read_each`]). Each
//! scenario is reduced to what the summary and the report use (a
//! [`RunDigest`]: [`netlab_report::summary::ScenarioFigures`] and the
//! report's samples, by [`ReportBuilder`], straight from the typed fields,
//! so a renamed field fails to compile), and rendered by `netlab-report`
//! (plots, index.html, one `.flent.gz` per scenario); summary.md is
//! re-written from the same figures
//! ([`netlab_report::summary::render_figures`]). A `compare` run feeds the
//! same digest from its scenario files.
//!
//! Nothing is written before everything has been read, checked and
//! rendered: a bad results.json leaves the folder as it was.

use std::path::{Path, PathBuf};

use netlab_experiment::ExperimentFile;
use netlab_report::summary::{self, ScenarioFigures};
use netlab_report::{ReportBuilder, ReportError, ReportFiles, ReportInput};
use netlab_results::{Results, ScenarioResult};

/// Entry point of `orchestrator report PATH`; returns the exit code.
pub fn main(path: &Path) -> u8 {
    match run(path) {
        Ok((files, summary_md)) => {
            println!(
                "report: {} plot(s), {} Flent file(s), {}",
                files.svgs.len(),
                files.flent.len(),
                summary_md.display()
            );
            println!("{}", files.html.display());
            0
        }
        Err(e) => {
            eprintln!("orchestrator report: {e}");
            1
        }
    }
}

/// Reads, converts and renders; writes summary.md last. results.json is
/// read one scenario at a time ([`read_digest`]).
fn run(path: &Path) -> Result<(ReportFiles, PathBuf), ReportError> {
    let file = netlab_report::results_path(path);
    let out_dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (header, digest) = read_digest(&file)?;
    // The page and the table are both computed before anything is written.
    // The run's final teardown steps are not in results.json: a summary
    // re-rendered here has no note about failed ones.
    let figures = digest.figures().to_vec();
    let input = digest.report_input(&header)?;
    let md = summary::render_figures(
        &header,
        &figures,
        summary::headline_of(Ok(&input)).as_deref(),
        0,
    );
    let files = netlab_report::render(&input, &out_dir)?;
    let summary_path = out_dir.join("summary.md");
    netlab_sys::atomic::write(&summary_path, md.as_bytes())?;
    Ok((files, summary_path))
}

/// Reads the results.json at `file` (any version): its header (with no
/// scenarios) and the digest of its scenarios, read one at a time.
pub fn read_digest(file: &Path) -> Result<(Results, RunDigest), ReportError> {
    let mut digest = None;
    let header = netlab_results::stream::read_each(file, |experiment, s| {
        digest
            .get_or_insert_with(|| RunDigest::new(experiment))
            .push(s)
    })?;
    let digest = digest.unwrap_or_else(|| RunDigest::new(&header.experiment));
    Ok((header, digest))
}

/// What a run's summary.md and report are computed from, fed one scenario
/// at a time in execution order: each scenario's summary figures and the
/// samples the report draws, never its whole raw data (receiver logs,
/// readback dumps, tcp_info records). A report that cannot be built (a
/// value it cannot draw) keeps its first error; the summary's figures are
/// kept regardless.
pub struct RunDigest {
    figures: Vec<ScenarioFigures>,
    report: Result<ReportBuilder, ReportError>,
}

impl RunDigest {
    /// The digest of a run of `experiment`, with no scenario yet.
    pub fn new(experiment: &ExperimentFile) -> RunDigest {
        RunDigest {
            figures: Vec::new(),
            report: ReportBuilder::new(experiment),
        }
    }

    /// Adds the next scenario.
    pub fn push(&mut self, s: &ScenarioResult) {
        self.figures.push(ScenarioFigures::of(s));
        if let Ok(b) = &mut self.report {
            if let Err(e) = b.push(s) {
                self.report = Err(e);
            }
        }
    }

    /// Every scenario's summary figures so far.
    pub fn figures(&self) -> &[ScenarioFigures] {
        &self.figures
    }

    /// The report's input for the run `header` describes (its own
    /// `scenarios` are not read).
    pub fn report_input(self, header: &Results) -> Result<ReportInput, ReportError> {
        let caveats = summary::caveats(header, &self.figures);
        let mut input = self.report?.finish(header)?;
        input.caveats = caveats;
        Ok(input)
    }
}

/// The end of a `compare` run: renders the report beside results.json and
/// summary.md (already written, and never touched here); a failure is
/// printed and returns false (the run then exits 1).
pub fn after_run(input: Result<ReportInput, ReportError>, out_dir: &Path) -> bool {
    match input.and_then(|input| netlab_report::render(&input, out_dir)) {
        Ok(files) => {
            println!("report: {}", files.html.display());
            true
        }
        Err(e) => {
            eprintln!("orchestrator compare: the report failed (results.json and summary.md are kept): {e}");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/orchestrator/golden/results.json")
    }

    /// A real host run (schema 2): six pfifo rounds, five settled after one
    /// window cut, one after two (fixtures/report/README.md). The state
    /// classifier tells them apart from each round's own tcp_info, and the
    /// headline says the rounds disagree instead of pooling them.
    #[test]
    fn the_host_fixtures_rounds_fall_into_two_states_and_the_headline_says_so() {
        use std::io::Read as _;
        let gz = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/report/run-host-pfifo-6rounds/results.json.gz"),
        )
        .unwrap();
        let mut json = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut json)
            .unwrap();
        let input = netlab_report::input_from(&Results::parse(&json).unwrap()).unwrap();
        let states = netlab_report::state::of_input(&input);
        assert_eq!(states.len(), 1);
        let pfifo = &states[0];
        assert!(pfifo.disagree(), "{}", pfifo.text());
        let one = &pfifo.groups[0];
        assert_eq!(
            one.kind,
            netlab_report::state::StateKind::Overshoot { cuts: 1 }
        );
        assert_eq!(one.rounds, vec![1, 2, 4, 5, 6]);
        assert!((1000.0..1150.0).contains(&one.standing_rtt_ms), "{one:?}");
        assert!((400..=480).contains(&one.cwnd), "{one:?}");
        let two = &pfifo.groups[1];
        assert_eq!(
            two.kind,
            netlab_report::state::StateKind::Overshoot { cuts: 2 }
        );
        assert_eq!(two.rounds, vec![3]);
        assert!((500.0..650.0).contains(&two.standing_rtt_ms), "{two:?}");
        assert!(two.cwnd < one.cwnd * 6 / 10, "{two:?}");
        let md = netlab_report::headline::of_input(&input).markdown();
        assert!(md.contains("1 cut (r1 r2 r4 r5 r6): p50 ≥ 1000 ms"), "{md}");
        assert!(md.contains("2 cuts (r3): p50 586 ms"), "{md}");
        assert!(md.contains("rounds disagree; medians not pooled"), "{md}");
    }

    /// The run's digest (summary figures and report samples, fed one
    /// scenario at a time) gives what the whole file read at once gives:
    /// the same summary.md and the same report input as netlab-report's
    /// own reading, for schema 1 (read whole) and schema 2 (streamed).
    #[test]
    fn the_digest_gives_what_the_whole_read_gives() {
        let dir = netlab_sys::testing::Scratch::new("digest-same");
        let mut v2 = Results::read(&golden()).unwrap();
        let mut third = v2.scenarios[1].clone();
        third.index = 3;
        v2.scenarios.push(third);
        let v2_path = dir.0.join("results.json");
        netlab_results::write_json_atomic(&v2_path, &v2).unwrap();
        for path in [golden(), v2_path] {
            let whole = Results::read(&path).unwrap();
            let (header, digest) = read_digest(&path).unwrap();
            assert_eq!(
                Results {
                    scenarios: Vec::new(),
                    ..whole.clone()
                },
                header
            );
            let figures = digest.figures().to_vec();
            let input = digest.report_input(&header).unwrap();
            assert_eq!(
                summary::render_figures(
                    &header,
                    &figures,
                    summary::headline_of(Ok(&input)).as_deref(),
                    0
                ),
                summary::render(&whole, 0)
            );
            assert_eq!(input, netlab_report::read_results(&path).unwrap());
            assert_eq!(input, netlab_report::input_from(&whole).unwrap());
        }
    }
}
