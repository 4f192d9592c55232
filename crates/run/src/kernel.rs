//! Which kernel runs the experiment (method §9): the host's, or a
//! user-mode-linux guest booted for this run (Debian's package, `uml`, or
//! the 6.12 kernel netlab builds, `uml-6.12`). Decided from the
//! experiment's [`Requirements`] (qdisc kinds, netem, congestion controls)
//! before any change to the network; a refusal names what is missing and
//! how to get it. Inside the guest the congestion controls are checked
//! again (their modules were loaded at boot) before the first namespace.

use std::path::Path;

use netlab_experiment::{KernelChoice, Requirements};
use netlab_receipts::{Registry, SystemClock, DEFAULT_STATE_DIR};
use netlab_topology::naming::{netns_name, Role};
use netlab_topology::netns::Netns;
use netlab_topology::RunId;

/// Modules the guest loads besides the arms' own.
pub const BASE_MODULES: [&str; 2] = ["veth", "sch_tbf"];

/// Qdisc kinds compiled into every kernel's scheduler core.
pub const BUILTIN_KINDS: [&str; 3] = ["pfifo", "bfifo", "pfifo_fast"];

/// The sysctl where the running kernel lists its congestion controls.
pub const AVAILABLE_CCS: &str = "net.ipv4.tcp_available_congestion_control";

/// The decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelPlan {
    /// Run here, on the running kernel.
    Host {
        /// `uname -r`.
        release: String,
        /// Why.
        because: String,
    },
    /// Boot the guest and run the comparison inside it.
    Uml {
        /// The guest kernel's name (`uml`, `uml-6.12`).
        guest: String,
        /// The guest's release.
        release: String,
        /// Modules to load in the guest (dependencies are resolved by netlab-guest).
        modules: Vec<String>,
        /// Why.
        because: String,
    },
    /// This process already runs inside the guest.
    InsideGuest {
        /// `uname -r`.
        release: String,
    },
}

/// The qdisc kinds an experiment needs, as a list.
pub fn needed_kinds(req: &Requirements) -> Vec<String> {
    req.qdiscs.iter().cloned().collect()
}

/// Guest modules for the qdiscs (the congestion controls' are added by
/// [`KernelFacts::guest_cc_modules`]).
pub fn needed_modules(req: &Requirements) -> Vec<String> {
    let mut m: Vec<String> = BASE_MODULES.iter().map(|s| s.to_string()).collect();
    for kind in &req.qdiscs {
        // The fifos are part of the scheduler core (obj-y), never a module.
        if BUILTIN_KINDS.contains(&kind.as_str()) {
            continue;
        }
        let name = netlab_qdisc_model::module_for_kind(kind);
        if !m.contains(&name) {
            m.push(name);
        }
    }
    m
}

/// What [`decide`] needs to know about the machine, asked only when needed
/// (a `--kernel uml` run never probes the host's qdiscs).
pub trait KernelFacts {
    /// `uname -r` of the running kernel.
    fn host_release(&self) -> String;
    /// Which of `kinds` the host kernel lacks; `Err` if it cannot be probed.
    fn host_missing(&self, kinds: &[String]) -> Result<Vec<String>, String>;
    /// The congestion controls the running kernel offers now.
    fn host_ccs(&self) -> Result<Vec<String>, String>;
    /// The guest kernel's release if it is installed with every module in
    /// `modules`; `Err` says what is missing.
    fn guest_release(&self, modules: &[String]) -> Result<String, String>;
    /// The modules the guest loads for `ccs` (none for built-in ones);
    /// `Err` names the congestion controls the guest kernel does not have.
    fn guest_cc_modules(&self, ccs: &[String]) -> Result<Vec<String>, String>;
    /// The guest kernel's name (`uml`, `uml-6.12`).
    fn guest_name(&self) -> String {
        netlab_guest::kernels::DEBIAN_UML.into()
    }
}

/// The real machine: uname, a scratch owned namespace, and the guest
/// kernel named (`uml`, Debian's, unless an experiment chose another).
pub struct ThisMachine {
    /// The guest kernel's name.
    pub guest: &'static str,
}

impl ThisMachine {
    /// The machine with the guest `choice` names (Debian's for `auto`
    /// and `host`).
    pub fn for_choice(choice: KernelChoice) -> ThisMachine {
        ThisMachine {
            guest: choice
                .guest_name()
                .unwrap_or(netlab_guest::kernels::DEBIAN_UML),
        }
    }

    /// What the guest kernel has: its binary, release and modules.
    fn guest_availability(&self) -> Result<netlab_guest::Availability, String> {
        let k = netlab_guest::kernels::locate(self.guest).map_err(|e| e.to_string())?;
        Ok(netlab_guest::available_at(&k.kernel, &k.modules_root))
    }
}

/// Reads a `tcp_available_congestion_control`-style list.
pub fn parse_cc_list(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

impl KernelFacts for ThisMachine {
    fn host_release(&self) -> String {
        netlab_os::kernel_release().unwrap_or_else(|| "unknown".into())
    }

    /// Checked in a namespace of our own, registered (with a state file)
    /// before it exists, so a SIGKILL during the check leaves something
    /// `orchestrator cleanup` removes. Needs CAP_NET_ADMIN (checked first).
    fn host_missing(&self, kinds: &[String]) -> Result<Vec<String>, String> {
        netlab_topology::privilege::check_capabilities().map_err(|e| e.to_string())?;
        let refs: Vec<&str> = kinds.iter().map(String::as_str).collect();
        let run_id = RunId::random();
        let registry = Registry::with_state_dir(run_id.clone(), Path::new(DEFAULT_STATE_DIR))
            .map_err(|e| format!("creating the state file of the qdisc support check: {e}"))?;
        let name = netns_name(&run_id, "support", Role::R);
        let checked = registry
            .register_namespace(&name)
            .map_err(|e| format!("registering {name}: {e}"))
            .and_then(|_| {
                Netns::create(&name)
                    .map_err(|e| format!("creating {name} for the qdisc support check: {e}"))
            })
            .and_then(|ns| {
                netlab_qdisc::support::missing_kinds(&ns, &refs)
                    .map_err(|e| format!("checking the host kernel's qdiscs: {e}"))
            });
        let receipts = registry.teardown(&SystemClock);
        if let Some(bad) = receipts.iter().find(|r| !r.outcome.is_ok()) {
            return Err(format!(
                "removing the qdisc support check's namespace: {bad:?}"
            ));
        }
        checked
    }

    fn host_ccs(&self) -> Result<Vec<String>, String> {
        netlab_os::proc::read_sysctl(AVAILABLE_CCS)
            .map(|t| parse_cc_list(&t))
            .map_err(|e| format!("reading {AVAILABLE_CCS}: {e}"))
    }

    fn guest_release(&self, modules: &[String]) -> Result<String, String> {
        let avail = self.guest_availability()?;
        if let Some(problem) = &avail.problem {
            return Err(if self.guest == netlab_guest::kernels::DEBIAN_UML {
                format!("{problem}\n(user-mode-linux provides the pinned guest kernel: apt-get install -y user-mode-linux)")
            } else {
                format!("the guest kernel {}: {problem}", self.guest)
            });
        }
        let refs: Vec<&str> = modules.iter().map(String::as_str).collect();
        let check = avail.check_modules(&refs);
        if !check.missing.is_empty() {
            return Err(format!(
                "the guest kernel {} lacks module(s) {} in {}",
                avail.release.clone().unwrap_or_default(),
                check.missing.join(", "),
                avail
                    .modules_dir
                    .as_ref()
                    .map_or_else(|| "?".into(), |d| d.display().to_string())
            ));
        }
        Ok(avail.release.unwrap_or_else(|| "unknown".into()))
    }

    fn guest_name(&self) -> String {
        self.guest.into()
    }

    fn guest_cc_modules(&self, ccs: &[String]) -> Result<Vec<String>, String> {
        let avail = self.guest_availability()?;
        let builtin = avail
            .modules_dir
            .as_ref()
            .and_then(|d| std::fs::read_to_string(d.join("modules.builtin")).ok())
            .unwrap_or_default();
        let mut modules = Vec::new();
        let mut missing = Vec::new();
        for cc in ccs {
            let module = format!("tcp_{cc}");
            if cc == "reno"
                || builtin
                    .lines()
                    .any(|l| l.ends_with(&format!("/{module}.ko")))
            {
                continue;
            }
            if avail.check_modules(&[module.as_str()]).missing.is_empty() {
                modules.push(module);
            } else {
                missing.push(cc.clone());
            }
        }
        if missing.is_empty() {
            Ok(modules)
        } else {
            let dep = avail
                .modules_dir
                .as_ref()
                .and_then(|d| std::fs::read_to_string(d.join("modules.dep")).ok())
                .unwrap_or_default();
            let offered = guest_offered_ccs(&builtin, &dep).join(" ");
            Err(missing
                .iter()
                .map(|cc| {
                    format!(
                        "congestion control {cc} is not in the guest kernel {} (no built-in tcp_{cc}, no tcp_{cc}.ko; it offers {offered})",
                        avail.release.clone().unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"))
        }
    }
}

/// The congestion controls a guest kernel offers: reno, every built-in
/// `net/ipv4/tcp_<name>.ko` and every module of that name in
/// `modules.dep` (`tcp_diag` is sock_diag's, not a congestion control).
fn guest_offered_ccs(builtin: &str, modules_dep: &str) -> Vec<String> {
    let mut out = vec!["reno".to_string()];
    for line in builtin.lines().chain(modules_dep.lines()) {
        let path = line.split(':').next().unwrap_or("");
        let Some(name) = path
            .rsplit('/')
            .next()
            .and_then(|f| f.strip_prefix("tcp_"))
            .and_then(|f| f.strip_suffix(".ko"))
        else {
            continue;
        };
        if path.contains("net/ipv4/") && name != "diag" && !out.iter().any(|o| o == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// Congestion controls of `req` missing from `offered`.
fn missing_ccs(req: &Requirements, offered: &[String]) -> Vec<String> {
    req.ccs
        .iter()
        .filter(|c| !offered.contains(c))
        .cloned()
        .collect()
}

fn cc_message(missing: &[String], release: &str, offered: &[String]) -> String {
    missing
        .iter()
        .map(|cc| {
            format!(
                "congestion control {cc} is not available in this kernel ({release}; it offers {}): load tcp_{cc} or use --kernel uml",
                offered.join(" ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn uml_plan(
    req: &Requirements,
    facts: &dyn KernelFacts,
    because: String,
) -> Result<KernelPlan, String> {
    let mut modules = needed_modules(req);
    let ccs: Vec<String> = req.ccs.iter().cloned().collect();
    modules.extend(facts.guest_cc_modules(&ccs)?);
    let release = facts.guest_release(&modules)?;
    Ok(KernelPlan::Uml {
        guest: facts.guest_name(),
        release,
        modules,
        because,
    })
}

/// What the host lacks for `req` (qdiscs, then congestion controls), as
/// one refusal text; `Ok(())` when it has everything.
fn host_lacks(req: &Requirements, facts: &dyn KernelFacts) -> Result<(), String> {
    let missing = facts.host_missing(&needed_kinds(req))?;
    let mut why = Vec::new();
    if !missing.is_empty() {
        why.push(missing_message(&missing, &facts.host_release()));
    }
    let offered = facts.host_ccs()?;
    let ccs = missing_ccs(req, &offered);
    if !ccs.is_empty() {
        why.push(cc_message(&ccs, &facts.host_release(), &offered));
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(why.join("\n"))
    }
}

/// Decides where the experiment runs, on this machine. `Err` is a refusal
/// (exit 1), before any change to the network.
pub fn decide(
    req: &Requirements,
    choice: KernelChoice,
    inside_guest: bool,
) -> Result<KernelPlan, String> {
    decide_with(req, choice, inside_guest, &ThisMachine::for_choice(choice))
}

/// [`decide`] over given facts.
pub fn decide_with(
    req: &Requirements,
    choice: KernelChoice,
    inside_guest: bool,
    facts: &dyn KernelFacts,
) -> Result<KernelPlan, String> {
    if inside_guest {
        // The modules were loaded at boot: what the kernel offers now is final.
        let offered = facts.host_ccs()?;
        let ccs = missing_ccs(req, &offered);
        if !ccs.is_empty() {
            return Err(cc_message(&ccs, &facts.host_release(), &offered));
        }
        return Ok(KernelPlan::InsideGuest {
            release: facts.host_release(),
        });
    }
    match choice {
        KernelChoice::Host => {
            host_lacks(req, facts)?;
            Ok(KernelPlan::Host {
                release: facts.host_release(),
                because: "--kernel host".into(),
            })
        }
        KernelChoice::Uml | KernelChoice::Uml612 => {
            uml_plan(req, facts, format!("--kernel {}", choice.as_str()))
        }
        KernelChoice::Auto => match host_lacks(req, facts) {
            Ok(()) => Ok(KernelPlan::Host {
                release: facts.host_release(),
                because: format!(
                    "auto: the host kernel has {} and {}",
                    needed_kinds(req).join(", "),
                    req.ccs.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            }),
            Err(why) => uml_plan(req, facts, format!("auto: {why}"))
                .map_err(|e| format!("{why}\nand the guest kernel cannot be used: {e}")),
        },
    }
}

fn missing_message(missing: &[String], release: &str) -> String {
    missing
        .iter()
        .map(|k| {
            format!(
                "qdisc {k} is not available in this kernel ({release}): load {} or use --kernel uml",
                netlab_qdisc_model::module_for_kind(k)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The kernel a recorded run ran on (results.json's `kernel.mode`,
/// `name` and `release`), if this machine has it: the running kernel of
/// the same release, or the guest kernel of that name and release
/// (`rerun`). The refusal says which `--kernel` to pass instead.
pub fn recorded(mode: &str, name: Option<&str>, release: &str) -> Result<KernelChoice, String> {
    if let Some(built) = name.filter(|n| *n != netlab_guest::kernels::DEBIAN_UML) {
        let choice = KernelChoice::parse(built)
            .ok_or_else(|| format!("results.json records guest kernel {built:?}, which this netlab does not know: pass --kernel uml or --kernel host"))?;
        return match netlab_guest::kernels::locate(built) {
            Ok(k) if k.release.as_deref() == Some(release) => Ok(choice),
            Ok(k) => Err(format!(
                "the run was in guest kernel {built} {release}, the one built here is {}: pass --kernel {built} to rerun in it anyway (the diff will name the kernel)",
                k.release.as_deref().unwrap_or("?")
            )),
            Err(e) => Err(format!("the run was in guest kernel {built} {release}: {e}")),
        };
    }
    match mode {
        "host" => {
            let here = netlab_os::proc::kernel_release().unwrap_or_default();
            if here == release {
                Ok(KernelChoice::Host)
            } else {
                Err(format!(
                    "the run was on host kernel {release}, this machine runs {here}: pass --kernel host to rerun on it anyway (the diff will name the kernel), or --kernel uml"
                ))
            }
        }
        "uml" | "guest" => {
            let g = netlab_guest::available();
            match (&g.release, &g.problem) {
                (Some(r), None) if r == release => Ok(KernelChoice::Uml),
                (Some(r), None) => Err(format!(
                    "the run was in guest kernel {release}, the installed guest is {r}: pass --kernel uml to rerun in it anyway (the diff will name the kernel)"
                )),
                (_, Some(p)) => Err(format!(
                    "the run was in guest kernel {release}, which is not usable here ({p}): install it, or pass --kernel host"
                )),
                (None, None) => Err(format!(
                    "the run was in guest kernel {release}, whose release is unknown here: pass --kernel uml or --kernel host"
                )),
            }
        }
        other => Err(format!(
            "results.json records kernel mode {other:?}: pass --kernel host or --kernel uml"
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    #[test]
    fn an_unknown_recorded_mode_asks_for_a_kernel() {
        assert_eq!(
            recorded("bare-metal", None, "6.1.0"),
            Err(
                "results.json records kernel mode \"bare-metal\": pass --kernel host or --kernel uml"
                    .into()
            )
        );
        let here = netlab_os::proc::kernel_release().unwrap_or_default();
        assert_eq!(recorded("host", None, &here), Ok(KernelChoice::Host));
        let e = recorded("host", None, "0.0.0-never").unwrap_err();
        assert!(
            e.starts_with("the run was on host kernel 0.0.0-never, this machine runs "),
            "{e}"
        );
    }

    fn req(arms: &[&str], ccs: &[&str]) -> Requirements {
        let mut toml = String::from("arms = [");
        toml.push_str(
            &arms
                .iter()
                .map(|a| format!("{a:?}"))
                .collect::<Vec<_>>()
                .join(", "),
        );
        toml.push_str("]\n");
        for cc in ccs {
            toml.push_str(&format!("[[flows]]\ncc = {cc:?}\n"));
        }
        netlab_experiment::parse(&toml).unwrap().requirements()
    }

    /// A machine described by hand; records what was asked.
    struct Fake {
        missing: Result<Vec<&'static str>, &'static str>,
        ccs: Vec<&'static str>,
        guest: Result<&'static str, &'static str>,
        guest_ccs: Vec<&'static str>,
        asked: RefCell<Vec<String>>,
    }

    impl Fake {
        fn new(
            missing: Result<Vec<&'static str>, &'static str>,
            guest: Result<&'static str, &'static str>,
        ) -> Fake {
            Fake {
                missing,
                ccs: vec!["reno", "cubic", "bbr"],
                guest,
                guest_ccs: vec!["reno", "cubic"],
                asked: RefCell::new(Vec::new()),
            }
        }
    }

    impl KernelFacts for Fake {
        fn host_release(&self) -> String {
            "6.18.44".into()
        }
        fn host_missing(&self, kinds: &[String]) -> Result<Vec<String>, String> {
            self.asked
                .borrow_mut()
                .push(format!("host {}", kinds.join(",")));
            self.missing
                .clone()
                .map(|m| m.into_iter().map(String::from).collect())
                .map_err(String::from)
        }
        fn host_ccs(&self) -> Result<Vec<String>, String> {
            self.asked.borrow_mut().push("ccs".into());
            Ok(self.ccs.iter().map(|s| s.to_string()).collect())
        }
        fn guest_release(&self, modules: &[String]) -> Result<String, String> {
            self.asked
                .borrow_mut()
                .push(format!("guest {}", modules.join(",")));
            self.guest.map(String::from).map_err(String::from)
        }
        fn guest_cc_modules(&self, ccs: &[String]) -> Result<Vec<String>, String> {
            let mut m = Vec::new();
            for cc in ccs {
                if self.guest_ccs.contains(&cc.as_str()) {
                    continue;
                }
                if cc == "bbr" {
                    m.push("tcp_bbr".to_string());
                } else {
                    return Err(format!(
                        "congestion control {cc} is not in the guest kernel"
                    ));
                }
            }
            Ok(m)
        }
    }

    const FQ: &str = "fq_codel limit 256 ecn";

    #[test]
    fn auto_runs_on_the_host_when_it_has_every_kind_and_cc() {
        let f = Fake::new(Ok(vec![]), Err("never asked"));
        let plan = decide_with(
            &req(&["pfifo limit 256", FQ], &["reno"]),
            KernelChoice::Auto,
            false,
            &f,
        )
        .unwrap();
        assert_eq!(
            plan,
            KernelPlan::Host {
                release: "6.18.44".into(),
                because: "auto: the host kernel has fq_codel, pfifo, tbf and reno".into()
            }
        );
        assert_eq!(*f.asked.borrow(), ["host fq_codel,pfifo,tbf", "ccs"]);
    }

    #[test]
    fn auto_boots_the_guest_with_the_missing_kinds_modules() {
        let f = Fake::new(Ok(vec!["fq_codel"]), Ok("6.1.176"));
        let plan = decide_with(
            &req(&["pfifo limit 256", FQ], &["bbr"]),
            KernelChoice::Auto,
            false,
            &f,
        )
        .unwrap();
        let KernelPlan::Uml {
            release,
            modules,
            because,
            ..
        } = plan
        else {
            panic!("{plan:?}")
        };
        assert_eq!(release, "6.1.176");
        // pfifo is built in: never a module; bbr is a module in the guest.
        assert_eq!(modules, ["veth", "sch_tbf", "sch_fq_codel", "tcp_bbr"]);
        assert!(
            because.starts_with("auto: qdisc fq_codel is not available in this kernel (6.18.44)"),
            "{because}"
        );
    }

    #[test]
    fn a_delay_needs_netem_and_a_missing_cc_sends_auto_to_the_guest() {
        let r =
            netlab_experiment::parse("[path]\nbase_rtt = \"20ms\"\n[[flows]]\ncc = \"vegas\"\n")
                .unwrap()
                .requirements();
        assert!(r.qdiscs.contains("netem"));
        assert!(needed_modules(&r).contains(&"sch_netem".to_string()));
        let mut f = Fake::new(Ok(vec![]), Ok("6.1.176"));
        f.guest_ccs.push("vegas");
        let plan = decide_with(&r, KernelChoice::Auto, false, &f).unwrap();
        let KernelPlan::Uml { because, .. } = plan else {
            panic!("{plan:?}")
        };
        assert!(because.contains("congestion control vegas is not available in this kernel (6.18.44; it offers reno cubic bbr)"), "{because}");
    }

    #[test]
    fn a_cc_no_kernel_has_is_refused_naming_it() {
        let f = Fake::new(Ok(vec![]), Ok("6.1.176"));
        // The file refuses unknown names; compare's --cc only checks the
        // spelling, so the kernel check is what refuses this one.
        let mut r = req(&[FQ], &[]);
        r.ccs = ["nosuchcc".to_string()].into();
        let host = "congestion control nosuchcc is not available in this kernel \
                    (6.18.44; it offers reno cubic bbr): load tcp_nosuchcc or use --kernel uml";
        let e = decide_with(&r, KernelChoice::Auto, false, &f).unwrap_err();
        assert_eq!(
            e,
            format!(
                "{host}\nand the guest kernel cannot be used: \
                 congestion control nosuchcc is not in the guest kernel"
            )
        );
        let e = decide_with(&r, KernelChoice::Host, false, &f).unwrap_err();
        assert_eq!(e, host);
    }

    #[test]
    fn auto_refuses_when_neither_kernel_can_run_it() {
        let f = Fake::new(Ok(vec!["fq_codel"]), Err("no /usr/bin/linux.uml"));
        let e = decide_with(&req(&[FQ], &[]), KernelChoice::Auto, false, &f).unwrap_err();
        assert!(e.contains("qdisc fq_codel is not available"), "{e}");
        assert!(
            e.contains("and the guest kernel cannot be used: no /usr/bin/linux.uml"),
            "{e}"
        );
        // An unprobeable host falls back to the guest too.
        let f = Fake::new(Err("no CAP_NET_ADMIN"), Ok("6.1.176"));
        let plan = decide_with(&req(&[FQ], &[]), KernelChoice::Auto, false, &f).unwrap();
        assert!(
            matches!(plan, KernelPlan::Uml { ref because, .. } if because == "auto: no CAP_NET_ADMIN")
        );
    }

    #[test]
    fn an_explicit_kernel_is_never_swapped() {
        let f = Fake::new(Ok(vec!["fq_codel"]), Ok("6.1.176"));
        let e = decide_with(&req(&[FQ], &[]), KernelChoice::Host, false, &f).unwrap_err();
        assert!(e.contains("load sch_fq_codel or use --kernel uml"), "{e}");
        assert_eq!(*f.asked.borrow(), ["host fq_codel,tbf", "ccs"]);
        let f = Fake::new(Err("never asked"), Ok("6.1.176"));
        let plan =
            decide_with(&req(&["pfifo limit 10"], &[]), KernelChoice::Uml, false, &f).unwrap();
        assert_eq!(
            plan,
            KernelPlan::Uml {
                guest: "uml".into(),
                release: "6.1.176".into(),
                modules: vec!["veth".into(), "sch_tbf".into()],
                because: "--kernel uml".into()
            }
        );
        assert_eq!(*f.asked.borrow(), ["guest veth,sch_tbf"]);
        let plan = decide_with(&req(&["fq_pie"], &[]), KernelChoice::Uml612, false, &f).unwrap();
        assert!(
            matches!(plan, KernelPlan::Uml { ref because, ref modules, .. }
                if because == "--kernel uml-6.12" && modules.contains(&"sch_fq_pie".to_string())),
            "{plan:?}"
        );
    }

    #[test]
    fn inside_the_guest_only_the_ccs_are_checked_again() {
        let f = Fake::new(Err("never asked"), Err("never asked"));
        assert_eq!(
            decide_with(&req(&[FQ], &["cubic"]), KernelChoice::Uml, true, &f).unwrap(),
            KernelPlan::InsideGuest {
                release: "6.18.44".into()
            }
        );
        assert_eq!(*f.asked.borrow(), ["ccs"]);
        let e = decide_with(&req(&[FQ], &["vegas"]), KernelChoice::Uml, true, &f).unwrap_err();
        assert!(e.contains("congestion control vegas"), "{e}");
    }

    #[test]
    fn the_kernel_list_is_read_word_by_word() {
        assert_eq!(parse_cc_list("reno bbr cubic\n"), ["reno", "bbr", "cubic"]);
    }

    #[test]
    fn the_guest_offers_reno_and_its_tcp_modules() {
        let builtin =
            "kernel/net/ipv4/tcp_diag.ko\nkernel/net/ipv4/tcp_cubic.ko\nkernel/fs/ext4.ko\n";
        let dep = "kernel/net/ipv4/tcp_bbr.ko:\nkernel/net/ipv4/tcp_dctcp.ko:\nkernel/net/sched/sch_tbf.ko:\n";
        assert_eq!(
            guest_offered_ccs(builtin, dep),
            ["reno", "cubic", "bbr", "dctcp"]
        );
    }
}
