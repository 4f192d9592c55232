//! `orchestrator report PATH [--models MODEL]…`, whole: its arguments
//! ([`ReportArgs`]), the models `--models` records in a run that names
//! none ([`netlab_results::models_record`]), then the folder rendered
//! again ([`rerender`], through `netlab_report::folder::finish_folder`),
//! and what it wrote said. Exit codes: 0 done; 1 the folder cannot be
//! rendered; 2 an unknown model, or a run's own models differ.

use std::path::{Path, PathBuf};

use clap::Args;
use netlab_experiment::ModelKind;
use netlab_report::folder::{self, FinishOptions};
use netlab_report::ReportError;
use netlab_results::models_record::Recorded;

/// `orchestrator report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A results folder, or its results.json.
    pub path: PathBuf,
    /// A model to draw beside the measurement (`fifo_bound`, `sparse_flow`, `aqm_law`, `bbr_share`; repeat for more) for a run whose results.json records none (written before `[report] models` existed): results.json records it (`experiment.report.models`, every other byte kept), so the next `report` draws it too. A run that records models keeps its own.
    #[arg(long = "models", value_name = "MODEL")]
    pub models: Vec<String>,
}

/// Entry point of `orchestrator report PATH`; returns the exit code.
pub fn main(path: &Path, models: &[String]) -> u8 {
    if !models.is_empty() {
        match record_models(path, models) {
            Ok(Some(said)) => println!("{said}"),
            Ok(None) => {}
            Err(e) => {
                eprintln!("orchestrator report: --models: {e}");
                return 2;
            }
        }
    }
    match rerender(path) {
        Ok(lines) => {
            for l in lines {
                println!("{l}");
            }
            0
        }
        Err(e) => {
            eprintln!("orchestrator report: {e}");
            1
        }
    }
}

/// Renders the results folder at `path` (or the folder of the
/// results.json `path` names) again, by
/// [`folder::finish_folder`] with [`FinishOptions::rerender`]: summary.md,
/// the plots, index.html, the scenario pages and the Flent files, nothing
/// written before everything was read, checked and rendered (a bad
/// results.json leaves the folder as it was): results.json of any schema
/// version, read one scenario at a time, as the steps that end `compare`,
/// `run` and `merge` read it. The run's final teardown steps are not in
/// results.json: a summary rendered again has no note about failed ones.
/// Gives what `orchestrator
/// report` prints: the files' counts with summary.md's path, then
/// index.html's path.
pub fn rerender(path: &Path) -> Result<[String; 2], ReportError> {
    let finished = folder::finish_folder(path, &FinishOptions::rerender(), &mut |_| {})?;
    let files = finished.summary.and(finished.report)?;
    Ok([
        format!(
            "report: {} plot(s), {} scenario page(s), {} Flent file(s), {}",
            files.svgs.len(),
            files.pages.len(),
            files.flent.len(),
            finished.summary_md.display()
        ),
        files.html.display().to_string(),
    ])
}

/// Records the models `words` name in the run at `path` when its
/// results.json names none ([`netlab_results::models_record`]); what to
/// print, or why not.
fn record_models(path: &Path, words: &[String]) -> Result<Option<String>, String> {
    let mut kinds: Vec<ModelKind> = Vec::new();
    for w in words {
        let m = ModelKind::parse(w).ok_or_else(|| {
            let known: Vec<&str> = ModelKind::ALL.iter().map(|m| m.as_str()).collect();
            format!("unknown model {w:?} (known: {})", known.join(", "))
        })?;
        if !kinds.contains(&m) {
            kinds.push(m);
        }
    }
    let file = netlab_report::results_path(path);
    match netlab_results::models_record::record_models(&file, &kinds) {
        Ok(Recorded::Already) => Ok(None),
        Ok(Recorded::Now) => {
            let names: Vec<&str> = kinds.iter().map(|m| m.as_str()).collect();
            Ok(Some(format!(
                "report: recorded the models {} in {} (it named none)",
                names.join(", "),
                file.display()
            )))
        }
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use netlab_report::summary;
    use netlab_results::Results;

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
        let input = netlab_analysis::input_from(&Results::parse(&json).unwrap()).unwrap();
        let states = netlab_analysis::state::ArmStates::of_input(&input);
        assert_eq!(states.len(), 1);
        let pfifo = &states[0];
        assert!(pfifo.disagree(), "{}", pfifo.text());
        let one = &pfifo.groups[0];
        assert_eq!(
            one.kind,
            netlab_analysis::state::StateKind::Overshoot { cuts: 1 }
        );
        assert_eq!(one.rounds, vec![1, 2, 4, 5, 6]);
        assert!((1000.0..1150.0).contains(&one.standing_rtt_ms), "{one:?}");
        assert!((400..=480).contains(&one.cwnd), "{one:?}");
        let two = &pfifo.groups[1];
        assert_eq!(
            two.kind,
            netlab_analysis::state::StateKind::Overshoot { cuts: 2 }
        );
        assert_eq!(two.rounds, vec![3]);
        assert!((500.0..650.0).contains(&two.standing_rtt_ms), "{two:?}");
        assert!(two.cwnd < one.cwnd * 6 / 10, "{two:?}");
        let md = netlab_compare::headline::Headline::of_input(&input).markdown();
        assert!(
            md.contains("1 cut (r1 r2 r4 r5 r6): RTT over the window p50 ≥ 1000 ms"),
            "{md}"
        );
        // Round 3's second cut came inside the window: two states, each
        // with its share of the window (method §12.11).
        assert!(
            md.contains("2 cuts, changed inside the window (r3): not one state: RTT p50 ≥ 1000 ms until 6.8 s, then 586 ms"),
            "{md}"
        );
        assert!(md.contains("rounds disagree; medians not pooled"), "{md}");
    }

    /// The folder the command finishes is the one the whole file, read at
    /// once, gives: the same summary.md and the same report input, for
    /// schema 1 (read whole) and schema 2 (streamed), and re-rendering
    /// changes no byte.
    #[test]
    fn a_finished_folder_is_what_the_whole_read_gives() {
        let dir = netlab_os::testing::Scratch::new("finish-same");
        let mut v2 = Results::read(&golden()).unwrap();
        let mut third = v2.scenarios[1].clone();
        third.index = 3;
        v2.scenarios.push(third);
        for (name, results) in [("v1", Results::read(&golden()).unwrap()), ("v2", v2)] {
            let folder = dir.0.join(name);
            std::fs::create_dir_all(&folder).unwrap();
            if name == "v1" {
                std::fs::copy(golden(), folder.join("results.json")).unwrap();
            } else {
                netlab_results::write_json_atomic(&folder.join("results.json"), &results).unwrap();
            }
            assert_eq!(main(&folder, &[]), 0);
            assert_eq!(
                std::fs::read_to_string(folder.join("summary.md")).unwrap(),
                summary::render(&results, 0)
            );
            let input = netlab_analysis::input_from(&results).unwrap();
            assert_eq!(input, netlab_report::read_results(&folder).unwrap());
            let html = std::fs::read(folder.join("index.html")).unwrap();
            let rendered = netlab_report::render_all(&input).unwrap();
            let page = rendered.iter().find(|f| f.name == "index.html").unwrap();
            assert_eq!(page.bytes, html);
        }
    }

    #[test]
    fn a_rerendered_folder_says_its_files_and_a_bad_one_is_left_as_it_was() {
        let dir = netlab_os::testing::Scratch::new("rerender");
        let (header, sc) = netlab_results::testing::golden_study(2);
        let folder = netlab_results::testing::shard_folder(&dir.0, "run", &header, &sc, 1);
        let [counts, html] = rerender(&folder).unwrap();
        let summary_md = folder.join("summary.md");
        assert!(summary_md.exists());
        assert!(
            counts.starts_with("report: ")
                && counts.ends_with(&format!("Flent file(s), {}", summary_md.display())),
            "{counts}"
        );
        assert_eq!(html, folder.join("index.html").display().to_string());
        let bad = dir.0.join("bad");
        std::fs::create_dir_all(&bad).unwrap();
        std::fs::write(bad.join("results.json"), "{").unwrap();
        assert!(rerender(&bad).is_err());
        assert_eq!(std::fs::read_dir(&bad).unwrap().count(), 1);
    }
}
