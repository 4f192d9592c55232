//! `orchestrator report PATH [--models MODEL]…`: the folder rendered
//! again by [`netlab_run::finish::rerender`] (what every command that
//! writes a report says about it is `netlab_run::finish::said`), after
//! `--models` recorded a run's models where it names none
//! ([`netlab_results::models_record`]). Exit codes: 0 done; 1 the folder
//! cannot be rendered; 2 an unknown model, or a run's own models differ.

use std::path::Path;

use netlab_experiment::ModelKind;
use netlab_results::models_record::Recorded;

/// Entry point of `orchestrator report PATH` ([`netlab_run::finish::rerender`]);
/// returns the exit code.
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
    match netlab_run::finish::rerender(path) {
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
        let md = netlab_analysis::headline::Headline::of_input(&input).markdown();
        assert!(md.contains("1 cut (r1 r2 r4 r5 r6): p50 ≥ 1000 ms"), "{md}");
        assert!(md.contains("2 cuts (r3): p50 586 ms"), "{md}");
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
}
