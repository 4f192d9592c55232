//! A single-node Slurm of the test's own and what the
//! Slurm tests check with it: every file in a temporary folder, daemons
//! stopped by pid, the packages' own folders untouched.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::support::{namespaces_of, BIN};
use netlab_topology::testing::require_privileged;
use serde_json::Value;

/// The shell a submit runs from.
#[derive(Debug, Clone, Copy)]
pub enum Shell {
    /// NETLAB_BIN names the orchestrator under test.
    WithBin,
    /// A new login shell: no NETLAB_BIN, and no orchestrator on PATH.
    Login,
}

/// One cluster at a time: both tests use the host's name as their node.
pub static ONE_CLUSTER: Mutex<()> = Mutex::new(());

const DAEMONS: [&str; 3] = [
    "/usr/sbin/munged",
    "/usr/sbin/slurmctld",
    "/usr/sbin/slurmd",
];
const CLIENTS: [&str; 4] = ["sbatch", "scontrol", "scancel", "sinfo"];

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `true` when this test can run; otherwise skips, or panics under
/// NETLAB_REQUIRE_PRIVILEGED=1.
pub fn require_slurm(test: &str) -> bool {
    if !require_privileged(test) {
        return false;
    }
    let mut missing: Vec<String> = DAEMONS
        .iter()
        .filter(|p| !Path::new(p).exists())
        .map(|p| p.to_string())
        .collect();
    for c in CLIENTS {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {c}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            missing.push(c.to_string());
        }
    }
    if missing.is_empty() {
        return true;
    }
    let why = format!(
        "{test}: Slurm is not installed ({} missing; apt-get install -y slurm-wlm munge)",
        missing.join(", ")
    );
    if std::env::var("NETLAB_REQUIRE_PRIVILEGED").as_deref() == Ok("1") {
        panic!("{why}");
    }
    eprintln!("skipping {why}");
    netlab_os::testing::record_skip(netlab_os::testing::Skip::Tool, test, &why);
    false
}

/// Names, sizes and modification times under the packages' own folders:
/// the tests' Slurm must leave them as they were.
pub fn system_files() -> String {
    fn walk(p: &Path, out: &mut String, depth: u32) {
        let Ok(md) = std::fs::symlink_metadata(p) else {
            return;
        };
        let mtime = md
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        out.push_str(&format!("{} {} {mtime}\n", p.display(), md.len()));
        if md.is_dir() && depth < 4 {
            if let Ok(rd) = std::fs::read_dir(p) {
                let mut names: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
                names.sort();
                for n in names {
                    walk(&n, out, depth + 1);
                }
            }
        }
    }
    let mut s = String::new();
    for p in [
        "/etc/slurm",
        "/etc/munge",
        "/var/log/slurm",
        "/var/log/munge",
        "/var/lib/munge",
        "/var/lib/slurm",
        "/var/spool/slurmd",
        "/var/spool/slurmctld",
        "/run/munge",
        "/run/slurm",
    ] {
        walk(Path::new(p), &mut s, 0);
    }
    s
}

/// Two free TCP ports near a number derived from this process.
fn free_ports() -> (u16, u16) {
    let base = 47000 + (std::process::id() % 400) as u16 * 2;
    for p in (base..base + 400).step_by(2) {
        let a = std::net::TcpListener::bind(("0.0.0.0", p));
        let b = std::net::TcpListener::bind(("0.0.0.0", p + 1));
        if a.is_ok() && b.is_ok() {
            return (p, p + 1);
        }
    }
    panic!("no two free ports from {base}");
}

/// A single-node Slurm of the test's own.
pub struct Cluster {
    pub dir: PathBuf,
    pub conf: PathBuf,
    daemons: Vec<(&'static str, Child)>,
}

impl Cluster {
    pub fn start(tag: &str) -> Cluster {
        let dir = std::env::temp_dir().join(format!("netlab-slurm-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["key", "sock", "state", "spool", "results"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |p: &Path, m: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        // munged: the key folder private, the socket's folder reachable.
        mode(&dir, 0o755);
        mode(&dir.join("key"), 0o700);
        mode(&dir.join("sock"), 0o755);
        let key = dir.join("key/munge.key");
        let mut bytes = vec![0u8; 1024];
        getrandom::fill(&mut bytes).unwrap();
        std::fs::write(&key, &bytes).unwrap();
        mode(&key, 0o400);
        let host = nix::unistd::gethostname()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let host = host.split('.').next().unwrap().to_string();
        // The node as slurmd sees it (CPUs, sockets, memory).
        let c = Command::new("slurmd")
            .arg("-C")
            .output()
            .expect("slurmd -C");
        let node_line = String::from_utf8_lossy(&c.stdout)
            .lines()
            .find(|l| l.starts_with("NodeName="))
            .expect("slurmd -C prints NodeName=")
            .to_string();
        let node_rest = node_line.split_once(' ').map_or("", |(_, r)| r).to_string();
        let (ctld_port, slurmd_port) = free_ports();
        let d = dir.display();
        let conf = dir.join("slurm.conf");
        std::fs::write(dir.join("plugstack.conf"), "").unwrap();
        std::fs::write(
            &conf,
            format!(
                "ClusterName=netlabtest\n\
                 SlurmctldHost={host}(127.0.0.1)\n\
                 SlurmctldPort={ctld_port}\n\
                 SlurmdPort={slurmd_port}\n\
                 AuthType=auth/munge\n\
                 AuthInfo=socket={d}/sock/munge.sock\n\
                 CredType=cred/munge\n\
                 SlurmUser=root\n\
                 SlurmdUser=root\n\
                 StateSaveLocation={d}/state\n\
                 SlurmdSpoolDir={d}/spool\n\
                 SlurmctldPidFile={d}/slurmctld.pid\n\
                 SlurmdPidFile={d}/slurmd.pid\n\
                 SlurmctldLogFile={d}/slurmctld.log\n\
                 SlurmdLogFile={d}/slurmd.log\n\
                 PlugStackConfig={d}/plugstack.conf\n\
                 ProctrackType=proctrack/linuxproc\n\
                 TaskPlugin=task/none\n\
                 JobAcctGatherType=jobacct_gather/none\n\
                 AccountingStorageType=accounting_storage/none\n\
                 MpiDefault=none\n\
                 ReturnToService=2\n\
                 KillWait=15\n\
                 MinJobAge=600\n\
                 NodeName={host} NodeAddr=127.0.0.1 {node_rest} State=UNKNOWN\n\
                 PartitionName=netlabtest Nodes={host} Default=YES MaxTime=30 State=UP\n"
            ),
        )
        .unwrap();
        let mut cluster = Cluster {
            dir: dir.clone(),
            conf: conf.clone(),
            daemons: Vec::new(),
        };
        let confs = conf.to_string_lossy().into_owned();
        let sock = format!("{d}/sock/munge.sock");
        let spawn = |name: &'static str, args: Vec<String>| {
            let log = std::fs::File::create(dir.join(format!("{name}.out"))).unwrap();
            // `timeout` bounds the daemon even if this test process dies.
            let child = Command::new("timeout")
                .args(["-k", "10", "600"])
                .args(&args)
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap_or_else(|e| panic!("starting {name}: {e}"));
            (name, child)
        };
        cluster.daemons.push(spawn(
            "munged",
            vec![
                "/usr/sbin/munged".into(),
                "-F".into(),
                format!("--key-file={}", key.display()),
                format!("--socket={sock}"),
                format!("--pid-file={d}/key/munged.pid"),
                format!("--log-file={d}/key/munged.log"),
                format!("--seed-file={d}/key/munged.seed"),
            ],
        ));
        cluster.wait_for(Duration::from_secs(10), "munged's socket", |c| {
            c.dir.join("sock/munge.sock").exists()
        });
        cluster.daemons.push(spawn(
            "slurmctld",
            vec![
                "/usr/sbin/slurmctld".into(),
                "-D".into(),
                "-i".into(),
                "-f".into(),
                confs.clone(),
            ],
        ));
        cluster.daemons.push(spawn(
            "slurmd",
            vec!["/usr/sbin/slurmd".into(), "-D".into(), "-f".into(), confs],
        ));
        cluster.wait_for(Duration::from_secs(40), "the node to be idle", |c| {
            let o = c.cmd("sinfo").args(["-h", "-o", "%t"]).output();
            o.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
        });
        cluster
    }

    /// A Slurm client command talking to this cluster.
    pub fn cmd(&self, prog: &str) -> Command {
        let mut c = Command::new(prog);
        c.env("SLURM_CONF", &self.conf).stdin(Stdio::null());
        c
    }

    /// Polls `ok` every 250 ms until it holds or `limit` passes (then panics
    /// with the daemons' logs).
    pub fn wait_for(&self, limit: Duration, what: &str, ok: impl Fn(&Cluster) -> bool) {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if ok(self) {
                return;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!("waited {limit:?} for {what}\n{}", self.logs());
    }

    pub fn logs(&self) -> String {
        let mut s = String::new();
        let mut names: Vec<PathBuf> = [self.dir.clone(), self.dir.join("results/logs")]
            .iter()
            .flat_map(|dir| {
                std::fs::read_dir(dir)
                    .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
                    .unwrap_or_else(|_| Vec::new())
            })
            .collect();
        names.sort();
        for p in names
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x == "out" || x == "log"))
        {
            let t = std::fs::read_to_string(p).unwrap_or_default();
            let tail: Vec<&str> = t.lines().rev().take(25).collect();
            s.push_str(&format!("== {}\n", p.display()));
            for l in tail.iter().rev() {
                s.push_str(l);
                s.push('\n');
            }
        }
        s
    }

    /// `deploy/slurm/netlab-submit.sh ARGS`, run from a folder of its own
    /// (`checkout`, standing for the user's checkout, which must stay
    /// empty) with every job's limit at 4 minutes and NETLAB_BIN naming
    /// the orchestrator: the array and merge job ids it recorded last in
    /// RESULTS/logs/jobs.txt, and its stdout.
    pub fn submit(&self, results: &Path, args: &[&str]) -> (String, String, String) {
        let o = self.try_submit(args, Shell::WithBin);
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "netlab-submit.sh {args:?}: {stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (array, merge) = self.last_jobs(results);
        (array, merge, stdout)
    }

    /// `netlab-submit.sh ARGS` from the `checkout` folder, in `shell`.
    pub fn try_submit(&self, args: &[&str], shell: Shell) -> std::process::Output {
        let mut c = self.in_shell(&script("netlab-submit.sh"), shell);
        c.args(args).output().expect("netlab-submit.sh")
    }

    /// A command line netlab printed (`bash -c LINE`), pasted into a new
    /// login shell: no NETLAB_BIN, a plain PATH (no orchestrator on it),
    /// only this cluster's SLURM_CONF and the job limit added.
    pub fn paste(&self, line: &str) -> std::process::Output {
        let mut c = self.in_shell("bash", Shell::Login);
        c.arg("-c").arg(line).output().expect("bash")
    }

    fn in_shell(&self, prog: &str, shell: Shell) -> Command {
        let checkout = self.dir.join("checkout");
        std::fs::create_dir_all(&checkout).unwrap();
        let mut c = self.cmd(prog);
        match shell {
            Shell::WithBin => {
                c.env("NETLAB_BIN", BIN);
            }
            Shell::Login => {
                c.env_clear()
                    .env("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin")
                    .env("HOME", &self.dir)
                    .env("SLURM_CONF", &self.conf);
            }
        }
        c.env("SBATCH_TIMELIMIT", "4").current_dir(&checkout);
        c
    }

    /// The array and merge job ids recorded last in RESULTS/logs/jobs.txt.
    pub fn last_jobs(&self, results: &Path) -> (String, String) {
        let jobs = std::fs::read_to_string(results.join("logs/jobs.txt")).unwrap();
        let last = |what: &str| {
            jobs.lines()
                .filter_map(|l| l.strip_prefix(&format!("{what} ")))
                .next_back()
                .and_then(|l| l.split_whitespace().next())
                .unwrap_or_else(|| panic!("no {what} job in {jobs}"))
                .to_string()
        };
        (last("array"), last("merge"))
    }

    /// Every job the cluster knows (queued, running or ended), by id.
    pub fn all_jobs(&self) -> String {
        let o = self
            .cmd("scontrol")
            .args(["show", "job", "-o"])
            .output()
            .expect("scontrol");
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The state of job `id` (`1`, `1_2`), e.g. `RUNNING`, `COMPLETED`.
    pub fn state(&self, id: &str) -> Option<String> {
        let o = self
            .cmd("scontrol")
            .args(["show", "job", "-o", id])
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        // An array shows one line per task; ask for the one named.
        let line = text.lines().find(|l| {
            let (job, task) = id.split_once('_').unwrap_or((id, ""));
            if task.is_empty() {
                l.contains(&format!("JobId={job} "))
            } else {
                l.contains(&format!("ArrayJobId={job} "))
                    && l.contains(&format!("ArrayTaskId={task} "))
            }
        })?;
        line.split_whitespace()
            .find_map(|w| w.strip_prefix("JobState="))
            .map(str::to_string)
    }

    /// Waits until every job in `ids` has ended; panics on a deadline or
    /// on an end other than `expect`.
    pub fn wait_jobs(&self, ids: &[String], limit: Duration, expect: &str) {
        let deadline = Instant::now() + limit;
        loop {
            let states: Vec<Option<String>> = ids.iter().map(|i| self.state(i)).collect();
            let ended = |s: &Option<String>| {
                s.as_deref().is_some_and(|s| {
                    !matches!(
                        s,
                        "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING" | "SUSPENDED"
                    )
                })
            };
            if states.iter().all(ended) {
                for (id, s) in ids.iter().zip(&states) {
                    assert_eq!(
                        s.as_deref(),
                        Some(expect),
                        "job {id} ended {s:?}\n{}",
                        self.logs()
                    );
                }
                return;
            }
            assert!(
                Instant::now() < deadline,
                "jobs {ids:?} still {states:?} after {limit:?}\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Our jobs first (their runs tear down what they own on SIGTERM),
        // bounded; then the daemons, by pid, newest first.
        let _ = self.cmd("scancel").args(["--user", "root"]).status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            let o = self.cmd("squeue").args(["-h", "-o", "%i"]).output();
            if o.map_or(true, |o| {
                String::from_utf8_lossy(&o.stdout).trim().is_empty()
            }) {
                break;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        while let Some((_, mut child)) = self.daemons.pop() {
            let pid = nix::unistd::Pid::from_raw(child.id() as i32);
            // `timeout` passes SIGTERM on to its daemon.
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
            let deadline = Instant::now() + Duration::from_secs(15);
            loop {
                if child.try_wait().ok().flatten().is_some() {
                    break;
                }
                if Instant::now() > deadline {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Each scenario of a pretty results.json as its exact bytes, by plan
/// index: the elements of the top-level `scenarios` array, found by their
/// four-space indentation (netlab's writer; JSON strings hold no raw
/// newline, so a line starting `    {` or `    }` can only be one).
pub fn scenario_bytes(path: &Path) -> BTreeMap<u64, String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = BTreeMap::new();
    let mut inside = false;
    let mut current: Option<String> = None;
    for line in text.split_inclusive('\n') {
        if !inside {
            inside = line == "  \"scenarios\": [\n";
            continue;
        }
        if line.starts_with("  ]") {
            break;
        }
        if line == "    {\n" {
            current = Some(String::new());
        }
        if let Some(c) = current.as_mut() {
            if line.starts_with("    }") {
                // The element's last line, without the array's comma.
                c.push_str("    }");
                let c = current.take().unwrap();
                let v: Value = serde_json::from_str(&c).expect("an element parses");
                out.insert(v["index"].as_u64().unwrap(), c);
            } else {
                c.push_str(line);
            }
        }
    }
    out
}

/// The plan's indices, from `orchestrator plan --json`.
pub fn plan_indices(exp: &Path) -> Vec<u64> {
    let o = Command::new(BIN)
        .args(["plan", "--json", exp.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["index"].as_u64().unwrap())
        .collect()
}

pub fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .unwrap()
}

/// The merged folder holds exactly the plan's scenarios, each byte for
/// byte as its shard wrote it, and its summary and report.
pub fn check_merged(results: &Path, exp: &Path, shards: u32) {
    let merged = results.join("merged");
    let got = scenario_bytes(&merged.join("results.json"));
    assert_eq!(got.keys().copied().collect::<Vec<_>>(), plan_indices(exp));
    let mut from_shards = BTreeMap::new();
    for k in 1..=shards {
        let dir = results.join(format!("shard-{k}-of-{shards}"));
        let r = read_json(&dir.join("results.json"));
        assert_eq!(r["shard"]["k"], k);
        for (i, bytes) in scenario_bytes(&dir.join("results.json")) {
            assert!(from_shards.insert(i, bytes).is_none(), "index {i} twice");
        }
        // Its runs left no namespace behind.
        let run_id = r["run_id"].as_str().unwrap();
        assert!(
            namespaces_of(run_id).is_empty(),
            "{:?}",
            namespaces_of(run_id)
        );
    }
    assert_eq!(
        got, from_shards,
        "merged scenarios differ from their shards' bytes"
    );
    // Each scenario's packet files came along, byte for byte.
    let mut packet_files = 0;
    for k in 1..=shards {
        let dir = results.join(format!("shard-{k}-of-{shards}"));
        let r = read_json(&dir.join("results.json"));
        for s in r["scenarios"].as_array().unwrap() {
            for key in ["evidence_pcap", "headers_pcap"] {
                if let Some(f) = s["ecn"][key]["file"].as_str() {
                    packet_files += 1;
                    assert_eq!(
                        std::fs::read(merged.join(f)).unwrap_or_default(),
                        std::fs::read(dir.join(f)).unwrap(),
                        "{f}"
                    );
                }
            }
        }
    }
    assert!(packet_files >= got.len(), "{packet_files} packet files");
    let r = read_json(&merged.join("results.json"));
    assert_eq!(r["merged"]["missing"], serde_json::json!([]));
    for s in r["scenarios"].as_array().unwrap() {
        let on = &s["ran_on"];
        assert!(
            on["hostname"].is_string() && on["kernel_release"].is_string(),
            "{on}"
        );
        assert!(s["error"].is_null(), "scenario failed: {}", s["error"]);
    }
    let md = std::fs::read_to_string(merged.join("summary.md")).unwrap();
    assert!(md.contains("Merged by `orchestrator merge`"), "{md}");
    assert!(merged.join("index.html").exists());
}

pub fn write_experiment(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("experiment.toml");
    std::fs::write(&p, text).unwrap();
    p
}

pub fn script(name: &str) -> String {
    repo()
        .join("deploy/slurm")
        .join(name)
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}
