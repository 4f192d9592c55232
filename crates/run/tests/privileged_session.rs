//! A `Session` on the host kernel with hooks (needs root: namespaces,
//! qdiscs; skipped without unless `NETLAB_REQUIRE_PRIVILEGED=1`): the
//! hooks are called in order while the path stands, a failing hook fails
//! its scenario and still sees `finished`, and results.json is written
//! as the orchestrator writes it.

use std::path::Path;
use std::time::Instant;

use netlab_os::testing::{require_privileged, Scratch};
use netlab_results::{Results, ScenarioResult};
use netlab_run::{
    HookError, RunHooks, RunOutcome, ScenarioHooks, ScenarioView, Session, SessionConfig,
};
use netlab_topology::netns;

/// What a hook saw: which hook, the scenario, whether t0 was set, whether
/// B's namespace existed, and (at the load start) whether the baseline
/// had passed.
#[derive(Debug, Clone, PartialEq)]
struct Call {
    hook: &'static str,
    scenario: u32,
    t0: bool,
    b_exists: bool,
    after_baseline: bool,
}

#[derive(Default)]
struct Recorder {
    calls: Vec<Call>,
    fail_path_ready: bool,
}

impl Recorder {
    fn note(&mut self, hook: &'static str, v: &ScenarioView<'_>) {
        let after_baseline =
            v.t0.is_some_and(|t0| Instant::now() - t0 >= v.timeline().load_start());
        self.calls.push(Call {
            hook,
            scenario: v.setup.index,
            t0: v.t0.is_some(),
            b_exists: netns::exists(v.b().name()),
            after_baseline,
        });
    }
}

impl ScenarioHooks for Recorder {
    fn path_ready(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        self.note("path_ready", view);
        if self.fail_path_ready {
            return Err(HookError::new("refused by the test"));
        }
        Ok(())
    }

    fn started(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        self.note("started", view);
        Ok(())
    }

    fn load_start(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        self.note("load_start", view);
        Ok(())
    }

    fn finished(&mut self, view: &ScenarioView<'_>) -> Result<(), HookError> {
        self.note("finished", view);
        Ok(())
    }
}

#[derive(Default)]
struct Ends {
    read_back: Vec<u32>,
    written: bool,
}

impl RunHooks for Ends {
    fn notes(&self, _exp: &netlab_experiment::Experiment) -> Vec<String> {
        vec!["a note from the caller".into()]
    }

    fn scenario_read_back(&mut self, _header: &Results, scenario: &ScenarioResult) {
        self.read_back.push(scenario.index);
    }

    fn write(&mut self, header: &Results, _failed_receipts: usize, out: &Path) -> bool {
        self.written = header.scenarios.is_empty() && out.join("results.json").is_file();
        true
    }
}

fn config(toml: &str, out: &Path) -> SessionConfig {
    let exp = netlab_experiment::parse(toml).unwrap();
    let mut cfg = SessionConfig::new(exp, out.to_path_buf());
    cfg.quiet = true;
    cfg
}

fn call(hook: &'static str, scenario: u32, t0: bool, after_baseline: bool) -> Call {
    Call {
        hook,
        scenario,
        t0,
        b_exists: true,
        after_baseline,
    }
}

#[test]
fn privileged_session_calls_the_hooks_in_order_and_a_failing_hook_fails_its_scenario() {
    if !require_privileged("privileged_session_calls_the_hooks_in_order") {
        return;
    }
    let dir = Scratch::new("run-session");
    let two = "name = \"hooks\"\nrounds = 1\nkernel = \"host\"\n\
               arms = [\"pfifo limit 256\", \"bfifo limit 64kb\"]\n\
               [timeline]\nbaseline = \"1s\"\nwarmup = \"1s\"\nmeasure = \"1s\"\n";
    let (mut hooks, mut ends) = (Recorder::default(), Ends::default());
    let out = dir.0.join("ok");
    let outcome = Session::new(config(two, &out))
        .with_scenario_hooks(&mut hooks)
        .with_run_hooks(&mut ends)
        .run();
    assert_eq!(outcome, Ok(RunOutcome::Complete));
    assert_eq!(
        hooks.calls,
        [
            call("path_ready", 1, false, false),
            call("started", 1, true, false),
            call("load_start", 1, true, true),
            call("finished", 1, true, true),
            call("path_ready", 2, false, false),
            call("started", 2, true, false),
            call("load_start", 2, true, true),
            call("finished", 2, true, true),
        ]
    );
    assert_eq!(ends.read_back, [1, 2]);
    assert!(ends.written);
    let results = Results::read(&out.join("results.json")).unwrap();
    assert_eq!(results.notes, ["a note from the caller"]);
    assert_eq!(results.scenarios.len(), 2);
    assert!(results.scenarios.iter().all(|s| s.error.is_none()));
    assert!(!out.join("scenarios/0001.json").exists());

    // A hook that fails fails its scenario; `finished` still runs while
    // the namespaces stand, and they are deleted after it.
    let one = "name = \"hooks\"\nrounds = 1\nkernel = \"host\"\narms = [\"pfifo limit 256\"]\n\
               [timeline]\nbaseline = \"1s\"\nwarmup = \"1s\"\nmeasure = \"1s\"\n";
    let mut failing = Recorder {
        fail_path_ready: true,
        ..Recorder::default()
    };
    let out = dir.0.join("failed");
    let outcome = Session::new(config(one, &out))
        .with_scenario_hooks(&mut failing)
        .run();
    assert_eq!(outcome, Ok(RunOutcome::Failed));
    assert_eq!(
        failing.calls,
        [
            call("path_ready", 1, false, false),
            call("finished", 1, false, false)
        ]
    );
    let results = Results::read(&out.join("results.json")).unwrap();
    let s = &results.scenarios[0];
    assert_eq!(
        s.error.as_deref(),
        Some("path ready hook: refused by the test")
    );
    assert!(s.namespaces.iter().all(|n| !netns::exists(n)), "{s:?}");
}
