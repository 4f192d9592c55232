//! Which kernel runs the experiment (SPEC §9): the host's, or the Debian
//! user-mode-linux kernel booted for this run. Decided before any change to
//! the network; a refusal names what is missing and how to get it.

use std::path::Path;

use netlab_receipts::{Registry, SystemClock, DEFAULT_STATE_DIR};
use netlab_topology::naming::{netns_name, Role};
use netlab_topology::netns::Netns;
use netlab_topology::RunId;

use crate::cli::KernelChoice;
use crate::config::CompareConfig;

/// Modules the guest loads besides the arms' own.
pub const BASE_MODULES: [&str; 2] = ["veth", "sch_tbf"];

/// Qdisc kinds compiled into every kernel's scheduler core.
pub const BUILTIN_KINDS: [&str; 3] = ["pfifo", "bfifo", "pfifo_fast"];

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

/// The qdisc kinds a configuration needs (TBF plus each arm).
pub fn needed_kinds(cfg: &CompareConfig) -> Vec<String> {
    let mut kinds = vec!["tbf".to_string()];
    for a in &cfg.arms {
        let k = a.kind().to_string();
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds
}

/// Guest modules a configuration needs.
pub fn needed_modules(cfg: &CompareConfig) -> Vec<String> {
    let mut m: Vec<String> = BASE_MODULES.iter().map(|s| s.to_string()).collect();
    for a in &cfg.arms {
        // The fifos are part of the scheduler core (obj-y), never a module.
        if BUILTIN_KINDS.contains(&a.kind()) {
            continue;
        }
        let name = a.module_name();
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
    /// The guest kernel's release if it is installed with every module in
    /// `modules`; `Err` says what is missing.
    fn guest_release(&self, modules: &[String]) -> Result<String, String>;
}

/// The real machine: uname, a scratch owned namespace, the installed guest.
pub struct ThisMachine;

impl KernelFacts for ThisMachine {
    fn host_release(&self) -> String {
        nix::sys::utsname::uname()
            .map(|u| u.release().to_string_lossy().into_owned())
            .unwrap_or_else(|_| "unknown".into())
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

    fn guest_release(&self, modules: &[String]) -> Result<String, String> {
        let avail = netlab_guest::available();
        if let Some(problem) = &avail.problem {
            return Err(format!(
                "{problem}\n(user-mode-linux provides the pinned guest kernel: apt-get install -y user-mode-linux)"
            ));
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
}

fn uml_plan(
    cfg: &CompareConfig,
    facts: &dyn KernelFacts,
    because: String,
) -> Result<KernelPlan, String> {
    let modules = needed_modules(cfg);
    let release = facts.guest_release(&modules)?;
    Ok(KernelPlan::Uml {
        release,
        modules,
        because,
    })
}

/// Decides where the comparison runs, on this machine. `Err` is a refusal
/// (exit 1), before any change to the network.
pub fn decide(cfg: &CompareConfig) -> Result<KernelPlan, String> {
    decide_with(cfg, &ThisMachine)
}

/// [`decide`] over given facts.
pub fn decide_with(cfg: &CompareConfig, facts: &dyn KernelFacts) -> Result<KernelPlan, String> {
    if cfg.inside_guest {
        return Ok(KernelPlan::InsideGuest {
            release: facts.host_release(),
        });
    }
    let kinds = needed_kinds(cfg);
    match cfg.kernel {
        KernelChoice::Host => {
            let missing = facts.host_missing(&kinds)?;
            if missing.is_empty() {
                Ok(KernelPlan::Host {
                    release: facts.host_release(),
                    because: "--kernel host".into(),
                })
            } else {
                Err(missing_message(&missing, &facts.host_release()))
            }
        }
        KernelChoice::Uml => uml_plan(cfg, facts, "--kernel uml".into()),
        KernelChoice::Auto => match facts.host_missing(&kinds) {
            Ok(missing) if missing.is_empty() => Ok(KernelPlan::Host {
                release: facts.host_release(),
                because: format!("auto: the host kernel has {}", kinds.join(", ")),
            }),
            other => {
                let why = match other {
                    Ok(missing) => missing_message(&missing, &facts.host_release()),
                    Err(e) => e,
                };
                uml_plan(cfg, facts, format!("auto: {why}"))
                    .map_err(|e| format!("{why}\nand the guest kernel cannot be used: {e}"))
            }
        },
    }
}

fn missing_message(missing: &[String], release: &str) -> String {
    missing
        .iter()
        .map(|k| {
            format!(
                "qdisc {k} is not available in this kernel ({release}): load {} or use --kernel uml",
                netlab_qdisc::module_for_kind(k)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::cli::CompareArgs;

    fn cfg(kernel: &str, arms: &[&str]) -> CompareConfig {
        use clap::Parser as _;
        let mut argv = vec!["orchestrator", "compare", "--kernel", kernel];
        for a in arms {
            argv.extend(["--arm", a]);
        }
        let crate::cli::Command::Compare(a) = crate::cli::Cli::parse_from(argv).command else {
            unreachable!()
        };
        let a: &CompareArgs = &a;
        CompareConfig::from_args(a, "t").unwrap()
    }

    /// A machine described by hand; records what was asked.
    struct Fake {
        missing: Result<Vec<&'static str>, &'static str>,
        guest: Result<&'static str, &'static str>,
        asked: RefCell<Vec<String>>,
    }

    impl Fake {
        fn new(
            missing: Result<Vec<&'static str>, &'static str>,
            guest: Result<&'static str, &'static str>,
        ) -> Fake {
            Fake {
                missing,
                guest,
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
        fn guest_release(&self, modules: &[String]) -> Result<String, String> {
            self.asked
                .borrow_mut()
                .push(format!("guest {}", modules.join(",")));
            self.guest.map(String::from).map_err(String::from)
        }
    }

    const FQ: &str = "fq_codel limit 256 ecn";

    #[test]
    fn auto_runs_on_the_host_when_it_has_every_kind() {
        let f = Fake::new(Ok(vec![]), Err("never asked"));
        let plan = decide_with(&cfg("auto", &["pfifo limit 256", FQ]), &f).unwrap();
        assert_eq!(
            plan,
            KernelPlan::Host {
                release: "6.18.44".into(),
                because: "auto: the host kernel has tbf, pfifo, fq_codel".into()
            }
        );
        assert_eq!(*f.asked.borrow(), ["host tbf,pfifo,fq_codel"]);
    }

    #[test]
    fn auto_boots_the_guest_with_the_missing_kinds_modules() {
        let f = Fake::new(Ok(vec!["fq_codel"]), Ok("6.1.176"));
        let plan = decide_with(&cfg("auto", &["pfifo limit 256", FQ]), &f).unwrap();
        let KernelPlan::Uml {
            release,
            modules,
            because,
        } = plan
        else {
            panic!("{plan:?}")
        };
        assert_eq!(release, "6.1.176");
        // pfifo is built in: never a module.
        assert_eq!(modules, ["veth", "sch_tbf", "sch_fq_codel"]);
        assert!(
            because.starts_with("auto: qdisc fq_codel is not available in this kernel (6.18.44)"),
            "{because}"
        );
    }

    #[test]
    fn auto_refuses_when_neither_kernel_can_run_it() {
        let f = Fake::new(Ok(vec!["fq_codel"]), Err("no /usr/bin/linux.uml"));
        let e = decide_with(&cfg("auto", &[FQ]), &f).unwrap_err();
        assert!(e.contains("qdisc fq_codel is not available"), "{e}");
        assert!(
            e.contains("and the guest kernel cannot be used: no /usr/bin/linux.uml"),
            "{e}"
        );
        // An unprobeable host falls back to the guest too.
        let f = Fake::new(Err("no CAP_NET_ADMIN"), Ok("6.1.176"));
        let plan = decide_with(&cfg("auto", &[FQ]), &f).unwrap();
        assert!(
            matches!(plan, KernelPlan::Uml { ref because, .. } if because == "auto: no CAP_NET_ADMIN")
        );
    }

    #[test]
    fn an_explicit_kernel_is_never_swapped() {
        let f = Fake::new(Ok(vec!["fq_codel"]), Ok("6.1.176"));
        let e = decide_with(&cfg("host", &[FQ]), &f).unwrap_err();
        assert!(e.contains("load sch_fq_codel or use --kernel uml"), "{e}");
        assert_eq!(*f.asked.borrow(), ["host tbf,fq_codel"]);
        let f = Fake::new(Err("never asked"), Ok("6.1.176"));
        let plan = decide_with(&cfg("uml", &["pfifo limit 10"]), &f).unwrap();
        assert_eq!(
            plan,
            KernelPlan::Uml {
                release: "6.1.176".into(),
                modules: vec!["veth".into(), "sch_tbf".into()],
                because: "--kernel uml".into()
            }
        );
        assert_eq!(*f.asked.borrow(), ["guest veth,sch_tbf"]);
    }

    #[test]
    fn inside_the_guest_nothing_is_probed() {
        let f = Fake::new(Err("never asked"), Err("never asked"));
        let mut c = cfg("uml", &[FQ]);
        c.inside_guest = true;
        assert_eq!(
            decide_with(&c, &f).unwrap(),
            KernelPlan::InsideGuest {
                release: "6.18.44".into()
            }
        );
        assert!(f.asked.borrow().is_empty());
    }
}
