//! Shards, resume and merge (method §11.9) and the cluster's submit,
//! failures and signals (docs/scale.md §4) against a real Slurm: Debian's
//! slurm-wlm and munge, configured by the test for one node on this machine. Everything lives in a
//! temporary folder of the test's own — slurm.conf, the munge key and
//! socket, state and spool folders, logs — and on ports of its own; munged,
//! slurmctld and slurmd run in the foreground as children of `timeout` (so
//! they end even if the test process dies), are stopped by pid (never by
//! name) and the folder removed when the test ends, failed or not. No file
//! outside that folder is written, which the tests check on the packages'
//! own folders.
//!
//! Root, the daemons and the sbatch scripts in `deploy/slurm/` are
//! required under NETLAB_REQUIRE_PRIVILEGED=1 (CI): a test that cannot run
//! fails instead of skipping.

mod support;

mod slurm_cluster;

use std::path::Path;
use std::time::{Duration, Instant};

use slurm_cluster::*;
use support::{host_state, namespaces_of, BIN};

/// Files under `dir`, relative, sorted (to show what a folder holds).
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// What the host and the packages' folders looked like, checked after.
struct Before {
    host: String,
    files: String,
    started: Instant,
}

impl Before {
    fn now() -> Before {
        Before {
            host: host_state(),
            files: system_files(),
            started: Instant::now(),
        }
    }

    fn check(self, test: &str) {
        assert_eq!(self.host, host_state(), "the host network state changed");
        assert_eq!(
            self.files,
            system_files(),
            "Slurm's or munge's system files changed"
        );
        eprintln!("{test}: {:.1}s", self.started.elapsed().as_secs_f64());
    }
}

/// A 4-scenario sweep (2 rates × pfifo and bfifo, host kernel, 1 s/1 s/2 s)
/// submitted by `netlab-submit.sh` as a 2-task array and the merge job
/// after it: the merged folder holds exactly the plan, byte for byte;
/// every job's output is under RESULTS/logs/, the experiment ran from its
/// copy in RESULTS, and the folder it was submitted from holds nothing.
#[test]
fn privileged_slurm_array_then_merge_job() {
    let test = "privileged_slurm_array_then_merge_job";
    if !require_slurm(test) {
        return;
    }
    let _one = ONE_CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let before = Before::now();
    {
        let c = Cluster::start("array");
        let exp = write_experiment(
            &c.dir,
            "name = \"slurm_sweep\"\nrounds = 1\nkernel = \"host\"\n\
             arms = [\"pfifo limit 256\", \"bfifo limit 64kb\"]\n\
             [timeline]\nbaseline = \"1s\"\nwarmup = \"1s\"\nmeasure = \"2s\"\n\
             [sweep]\nrate = [\"5mbit\", \"10mbit\"]\n",
        );
        assert_eq!(plan_indices(&exp), [1, 2, 3, 4]);
        let results = c.dir.join("results");
        let (e, r) = (exp.to_str().unwrap(), results.to_str().unwrap());
        // A broken file, and more shards than the plan's 2 units, are
        // refused at submit: exit 2, the parser's words, nothing queued
        // and no RESULTS made.
        let broken = c.dir.join("broken.toml");
        std::fs::write(&broken, "garbage = [\n").unwrap();
        let jobs_before = c.all_jobs();
        for (file, n, says) in [
            (broken.to_str().unwrap(), "2", "unclosed array"),
            (e, "3", "3 shards for 2 unit(s)"),
        ] {
            let never = c.dir.join("never");
            let o = c.try_submit(&[file, never.to_str().unwrap(), n], Shell::WithBin);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{err}");
            assert!(
                err.contains(says) && err.contains("nothing was submitted"),
                "{err}"
            );
            assert!(!never.exists(), "{} was made", never.display());
            assert_eq!(c.all_jobs(), jobs_before, "a job was queued");
        }
        let (array, merge, said) = c.submit(&results, &[e, r, "2"]);
        for what in [
            format!("array job {array} (tasks 1-2); merge job {merge}"),
            format!("--resubmit {r} K"),
            format!("re-merge:  sbatch --chdir={r} "),
            format!("squeue -j {array},{merge}"),
        ] {
            assert!(said.contains(&what), "{what:?} not in {said}");
        }
        c.wait_jobs(
            &[format!("{array}_1"), format!("{array}_2"), merge.clone()],
            Duration::from_secs(150),
            "COMPLETED",
        );
        check_merged(&results, &exp, 2);
        // All arms of a round ran on one machine, in one shard: each shard
        // holds both arms of one rate.
        for k in 1..=2u32 {
            let r = read_json(&results.join(format!("shard-{k}-of-2/results.json")));
            let idx: Vec<u64> = r["shard"]["plan_indices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(idx, [2 * u64::from(k) - 1, 2 * u64::from(k)]);
        }
        // Nothing in the folder it was submitted from; every log in RESULTS/logs.
        assert_eq!(files_under(&c.dir.join("checkout")), Vec::<String>::new());
        let logs = files_under(&results.join("logs"));
        for name in [
            format!("shard-1-job-{array}_1.out"),
            format!("shard-2-job-{array}_2.out"),
            format!("merge-{merge}.out"),
            "jobs.txt".to_string(),
        ] {
            assert!(logs.contains(&name), "{name} not in {logs:?}");
        }
        // The tasks ran the copy in RESULTS, the same bytes.
        let copy = results.join("experiment.toml");
        assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(&exp).unwrap());
        let task1 =
            std::fs::read_to_string(results.join(format!("logs/shard-1-job-{array}_1.out")))
                .unwrap();
        assert!(
            task1.contains(&format!(
                "netlab shard 1/2 of {} on {} (array job {array}, task 1; job id ",
                copy.display(),
                nix::unistd::gethostname().unwrap().to_string_lossy()
            )),
            "{task1}"
        );
        // What the jobs need from the submitting shell, recorded.
        let env = std::fs::read_to_string(results.join("netlab.env")).unwrap();
        assert!(env.starts_with(&format!("NETLAB_BIN={BIN}\n")), "{env}");
        assert!(env.contains("NETLAB_SUBMIT=/"), "{env}");
        // results.json's notes are the experiment's: no fq_codel note in a
        // pfifo/bfifo run (summary.md's rule).
        let merged = read_json(&results.join("merged/results.json"));
        let notes = merged["notes"].to_string();
        assert!(!notes.contains("256-packet"), "{notes}");
        assert!(notes.contains("TBF's own `limit`"), "{notes}");
        // The printed commands, pasted into a new login shell (no
        // NETLAB_BIN, no orchestrator on PATH): resubmitting a complete
        // shard, then merging again, rewrites nothing.
        let printed = |label: &str| -> String {
            let line = said
                .lines()
                .find_map(|l| l.strip_prefix(label))
                .unwrap_or_else(|| panic!("no {label} in {said}"));
            line.split("   #").next().unwrap().trim().to_string()
        };
        let merged_bytes = std::fs::read(results.join("merged/results.json")).unwrap();
        let shard1 = results.join("shard-1-of-2/results.json");
        let shard1_bytes = std::fs::read(&shard1).unwrap();
        let resubmit = printed("resubmit:").replace("K[,K...]", "1");
        let o = c.paste(&resubmit);
        assert!(o.status.success(), "{resubmit}: {o:?}");
        let (again, merge2) = c.last_jobs(&results);
        c.wait_jobs(
            &[format!("{again}_1"), merge2.clone()],
            Duration::from_secs(120),
            "COMPLETED",
        );
        let log = |name: String| {
            std::fs::read_to_string(results.join("logs").join(name)).unwrap_or_default()
        };
        let task = log(format!("shard-1-job-{again}_1.out"));
        assert!(
            task.contains("nothing left to run: nothing rewritten"),
            "{task}"
        );
        let remerged = log(format!("merge-{merge2}.out"));
        assert!(remerged.contains("already holds this merge"), "{remerged}");
        let o = c.paste(&printed("re-merge:"));
        let submitted = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{o:?}");
        let merge3 = submitted
            .trim()
            .rsplit(' ')
            .next()
            .unwrap_or_default()
            .to_string();
        c.wait_jobs(
            std::slice::from_ref(&merge3),
            Duration::from_secs(60),
            "COMPLETED",
        );
        assert!(
            log(format!("merge-{merge3}.out")).contains("already holds this merge"),
            "{}",
            log(format!("merge-{merge3}.out"))
        );
        assert_eq!(
            std::fs::read(&shard1).unwrap(),
            shard1_bytes,
            "shard 1 rewritten"
        );
        assert_eq!(
            std::fs::read(results.join("merged/results.json")).unwrap(),
            merged_bytes,
            "the merged result rewritten"
        );
        assert!(!results.join("merged.previous").exists());
        // A recorded orchestrator that does not run: --resubmit refuses it,
        // and a task submitted by hand fails in one line naming it, with
        // no cleanup line.
        let env_file = results.join("netlab.env");
        let missing = c.dir.join("gone/orchestrator");
        std::fs::write(&env_file, env.replace(BIN, missing.to_str().unwrap())).unwrap();
        let o = c.paste(&resubmit);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!(
                "NETLAB_BIN is '{}' (recorded in {})",
                missing.display(),
                env_file.display()
            )),
            "{err}"
        );
        let o = c
            .cmd("sbatch")
            .args(["--parsable", "--array=1", "--chdir"])
            .arg(&results)
            .arg(format!("--output={r}/logs/by-hand-%A_%a.out"))
            .arg(script("netlab-array.sbatch"))
            .args([copy.to_str().unwrap(), r, "2"])
            .env("SBATCH_TIMELIMIT", "4")
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        let job = String::from_utf8_lossy(&o.stdout).trim().to_string();
        c.wait_jobs(&[format!("{job}_1")], Duration::from_secs(60), "FAILED");
        let out = log(format!("by-hand-{job}_1.out"));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(
            lines[1].starts_with(&format!(
                "netlab shard 1/2: NETLAB_BIN, recorded in {}, is '{}', which does not run on ",
                env_file.display(),
                missing.display()
            )) && lines[1].ends_with("; nothing was run"),
            "{out}"
        );
        assert_eq!(
            std::fs::read(&shard1).unwrap(),
            shard1_bytes,
            "shard 1 rewritten"
        );
    }
    before.check(test);
}

/// Cancels shard 2's task mid-run (scancel, after its first scenario):
/// the merge (afterany) refuses with exit 1, naming shard 2 and the
/// command that submits it again; that command (`netlab-submit.sh
/// --resubmit`) resumes the folder, keeping the complete scenario byte
/// for byte, the messages name only shard 2's own scenarios (interrupted
/// and, under --quiet, resumed), and the new merge is complete with no
/// dependency edited by hand.
#[test]
fn privileged_slurm_scancel_then_resume_completes_the_merge() {
    let test = "privileged_slurm_scancel_then_resume_completes_the_merge";
    if !require_slurm(test) {
        return;
    }
    let _one = ONE_CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let before = Before::now();
    {
        let c = Cluster::start("resume");
        // 4 rounds of pfifo: 4 units, shard 2 of 2 runs plan indices 2 and 4.
        let exp = write_experiment(
            &c.dir,
            "name = \"slurm_resume\"\nrounds = 4\nkernel = \"host\"\n\
             arms = [\"pfifo limit 256\"]\n\
             [timeline]\nbaseline = \"1s\"\nwarmup = \"1s\"\nmeasure = \"2s\"\n",
        );
        let results = c.dir.join("results");
        let (e, r) = (exp.to_str().unwrap(), results.to_str().unwrap());
        let (array, first_merge, _) = c.submit(&results, &[e, r, "2"]);
        // Mid-run: its first scenario is kept, the second is running.
        let shard2 = results.join("shard-2-of-2");
        c.wait_for(Duration::from_secs(90), "shard 2's first scenario", |_| {
            shard2.join("scenarios/0002.json").exists()
        });
        let cancel = c.cmd("scancel").arg(format!("{array}_2")).status().unwrap();
        assert!(cancel.success());
        c.wait_jobs(
            &[format!("{array}_2")],
            Duration::from_secs(60),
            "CANCELLED",
        );
        let killed = read_json(&shard2.join("results.json"));
        assert_eq!(
            killed["interrupted"]["signal"], "SIGTERM",
            "{}",
            killed["interrupted"]
        );
        let kept = scenario_bytes(&shard2.join("results.json"));
        assert!(kept.contains_key(&2), "{:?}", kept.keys());
        // Its message names its own scenarios only (never scenario 1).
        let log = |name: String| {
            std::fs::read_to_string(results.join("logs").join(name)).unwrap_or_default()
        };
        let stopped = log(format!("shard-2-job-{array}_2.out"));
        assert!(
            stopped.contains("Scenario 2 is complete; scenario 4 keeps its samples"),
            "{stopped}"
        );
        assert!(!stopped.contains("Scenario 1 "), "{stopped}");
        // The merge (afterany) ran once both tasks had ended and refused,
        // naming shard 2 and the command that submits it again.
        c.wait_jobs(
            std::slice::from_ref(&first_merge),
            Duration::from_secs(60),
            "FAILED",
        );
        let refused = log(format!("merge-{first_merge}.out"));
        assert!(refused.contains("missing shards: 2 of 2"), "{refused}");
        assert!(
            refused.contains(&format!("netlab-submit.sh --resubmit {r} 2\n")),
            "{refused}"
        );
        assert!(!results.join("merged/results.json").exists());
        // That command, pasted into a new login shell (no NETLAB_BIN): the
        // task resumes its folder, a new merge follows, both running the
        // orchestrator recorded at submit.
        let command = refused
            .lines()
            .find(|l| l.contains("--resubmit"))
            .unwrap()
            .trim();
        let o = c.paste(command);
        assert!(o.status.success(), "{command}: {o:?}");
        let (again, merge) = c.last_jobs(&results);
        c.wait_jobs(
            &[format!("{array}_1"), format!("{again}_2"), merge],
            Duration::from_secs(150),
            "COMPLETED",
        );
        let out = log(format!("shard-2-job-{again}_2.out"));
        assert!(out.contains("--resume"), "{out}");
        // Said by netlab itself, under --quiet, in one line of its own.
        let run_id = killed["run_id"].as_str().unwrap();
        assert!(
            out.contains(&format!(
                "netlab: resuming {} (shard 2/2, 2 scenario(s)): scenario 2 complete, kept from run {run_id}; scenario 4 to run\n",
                shard2.display()
            )),
            "{out}"
        );
        let resumed = read_json(&shard2.join("results.json"));
        assert_eq!(resumed["resumed_from"][0], killed["run_id"]);
        assert!(resumed["interrupted"].is_null());
        assert_eq!(
            scenario_bytes(&shard2.join("results.json"))[&2],
            kept[&2],
            "the complete scenario was not kept as it was"
        );
        check_merged(&results, &exp, 2);
    }
    before.check(test);
}

/// Whether a task's log shows the dead run `run_id` cleaned ("run ID
/// (…): Cleaned", from `orchestrator cleanup`) before netlab ran.
fn cleaned_before_run(log: &str, run_id: &str) -> bool {
    let lines: Vec<&str> = log.lines().collect();
    let cleaned = lines
        .iter()
        .position(|l| l.starts_with(&format!("run {run_id} (")) && l.ends_with("Cleaned"));
    let ran = lines
        .iter()
        .position(|l| l.starts_with("netlab: resuming") || l.starts_with("results: "));
    match (cleaned, ran) {
        (Some(c), Some(r)) => c < r,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// SIGKILLs shard 1's netlab process (by the pid in its run's state file)
/// in the middle of its second scenario: the task fails and its three
/// namespaces stay, until the next task on the node (shard 2: one node,
/// `--exclusive`, so the tasks run one after the other) removes them
/// before it runs (the cleanup of dead runs). Shard 1, resubmitted while
/// shard 2 runs, replaces the pending merge by one after both, resumes
/// its folder, and that merge is complete.
#[test]
fn privileged_slurm_sigkill_then_resubmit_cleans_and_completes() {
    let test = "privileged_slurm_sigkill_then_resubmit_cleans_and_completes";
    if !require_slurm(test) {
        return;
    }
    let _one = ONE_CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let before = Before::now();
    {
        let c = Cluster::start("sigkill");
        // 4 rounds of pfifo: shard 1 of 2 runs plan indices 1 and 3.
        let exp = write_experiment(
            &c.dir,
            "name = \"slurm_sigkill\"\nrounds = 4\nkernel = \"host\"\n\
             arms = [\"pfifo limit 256\"]\n\
             [timeline]\nbaseline = \"1s\"\nwarmup = \"1s\"\nmeasure = \"3s\"\n",
        );
        let results = c.dir.join("results");
        let (e, r) = (exp.to_str().unwrap(), results.to_str().unwrap());
        let (array, first_merge, _) = c.submit(&results, &[e, r, "2"]);
        let shard1 = results.join("shard-1-of-2");
        c.wait_for(Duration::from_secs(90), "shard 1's first scenario", |_| {
            shard1.join("results.json").exists()
        });
        let run_id = read_json(&shard1.join("results.json"))["run_id"]
            .as_str()
            .unwrap()
            .to_string();
        // Its first scenario's namespaces went before results.json was
        // written: the three there now are its second scenario's, which
        // runs (A, R and B built; then into its timeline).
        c.wait_for(Duration::from_secs(30), "scenario 3's namespaces", |_| {
            namespaces_of(&run_id).len() == 3
        });
        std::thread::sleep(Duration::from_millis(1500));
        let state = read_json(&Path::new("/run/netlab").join(format!("{run_id}.json")));
        let pid = state["owner"]["pid"].as_i64().unwrap() as i32;
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        // Nothing removes them while the killed task is the node's last.
        let left = namespaces_of(&run_id);
        assert_eq!(left.len(), 3, "{left:?}");
        c.wait_jobs(&[format!("{array}_1")], Duration::from_secs(60), "FAILED");
        // The next task on the node (shard 2: one node and `--exclusive`,
        // so the tasks run one after the other) removes them before it
        // runs. Resubmitted while it runs, shard 1 waits for the node, and
        // the merge still pending is replaced by one after both.
        c.wait_for(Duration::from_secs(60), "shard 2 to start", |c| {
            c.state(&format!("{array}_2"))
                .is_some_and(|s| s == "RUNNING" || s == "COMPLETED")
        });
        let pending = c.state(&first_merge).as_deref() == Some("PENDING");
        let (again, merge, said) = c.submit(&results, &["--resubmit", r, "1"]);
        eprintln!("{test}: resubmitted while the first merge was pending: {pending}");
        if pending {
            assert!(
                said.contains(&format!("cancelled the pending merge job {first_merge}")),
                "{said}"
            );
            assert!(
                said.contains(&format!("merge job {merge} after {array}:{again}")),
                "{said}"
            );
        }
        c.wait_jobs(
            &[format!("{array}_2"), format!("{again}_1"), merge],
            Duration::from_secs(150),
            "COMPLETED",
        );
        let first = c.state(&first_merge);
        assert!(
            matches!(first.as_deref(), Some("CANCELLED") | Some("FAILED")),
            "{first:?}"
        );
        let log = |name: String| {
            std::fs::read_to_string(results.join("logs").join(name)).unwrap_or_default()
        };
        // Shard 2's log, or (had shard 2 run before shard 1) the
        // resubmitted task's, shows the dead run removed before it ran.
        let next = log(format!("shard-2-job-{array}_2.out"));
        let out = log(format!("shard-1-job-{again}_1.out"));
        assert!(out.contains("netlab: resuming"), "{out}");
        assert!(
            cleaned_before_run(&next, &run_id) || cleaned_before_run(&out, &run_id),
            "{next}\n{out}"
        );
        assert!(
            namespaces_of(&run_id).is_empty(),
            "{:?}",
            namespaces_of(&run_id)
        );
        assert!(!Path::new("/run/netlab")
            .join(format!("{run_id}.json"))
            .exists());
        check_merged(&results, &exp, 2);
    }
    before.check(test);
}
