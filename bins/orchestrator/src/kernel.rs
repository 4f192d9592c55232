//! Which kernel runs the experiment (SPEC §9): the host's, or the Debian
//! user-mode-linux kernel booted for this run. Decided before any change to
//! the network; a refusal names what is missing and how to get it.

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

fn host_release() -> String {
    nix::sys::utsname::uname()
        .map(|u| u.release().to_string_lossy().into_owned())
        .unwrap_or_else(|_| "unknown".into())
}

/// What the host kernel lacks among `kinds`, probed in a scratch owned
/// namespace. Needs CAP_NET_ADMIN (checked first).
fn host_missing(kinds: &[String]) -> Result<Vec<String>, String> {
    netlab_topology::privilege::check_capabilities().map_err(|e| e.to_string())?;
    let refs: Vec<&str> = kinds.iter().map(String::as_str).collect();
    // The check runs in a namespace the caller owns. decide() runs before
    // the run's registry exists, so this one is a scratch namespace deleted
    // on drop; registering it belongs to the orchestrator's restructuring.
    let ns = netlab_topology::netns::ScratchNetns::new("qsupport")
        .map_err(|e| format!("creating a namespace for the qdisc support check: {e}"))?;
    netlab_qdisc::support::missing_kinds(&ns, &refs)
        .map_err(|e| format!("checking the host kernel's qdiscs: {e}"))
}

fn uml_plan(cfg: &CompareConfig, because: String) -> Result<KernelPlan, String> {
    let avail = netlab_guest::available();
    if let Some(problem) = &avail.problem {
        return Err(format!(
            "{problem}\n(user-mode-linux provides the pinned guest kernel: apt-get install -y user-mode-linux)"
        ));
    }
    let modules = needed_modules(cfg);
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
    Ok(KernelPlan::Uml {
        release: avail.release.unwrap_or_else(|| "unknown".into()),
        modules,
        because,
    })
}

/// Decides where the comparison runs. `Err` is a refusal (exit 1), before any
/// change to the network.
pub fn decide(cfg: &CompareConfig) -> Result<KernelPlan, String> {
    if cfg.inside_guest {
        return Ok(KernelPlan::InsideGuest {
            release: host_release(),
        });
    }
    let kinds = needed_kinds(cfg);
    match cfg.kernel {
        KernelChoice::Host => {
            let missing = host_missing(&kinds)?;
            if missing.is_empty() {
                Ok(KernelPlan::Host {
                    release: host_release(),
                    because: "--kernel host".into(),
                })
            } else {
                Err(missing_message(&missing))
            }
        }
        KernelChoice::Uml => uml_plan(cfg, "--kernel uml".into()),
        KernelChoice::Auto => {
            let host = host_missing(&kinds);
            match host {
                Ok(missing) if missing.is_empty() => Ok(KernelPlan::Host {
                    release: host_release(),
                    because: format!("auto: the host kernel has {}", kinds.join(", ")),
                }),
                other => {
                    let why = match other {
                        Ok(missing) => missing_message(&missing),
                        Err(e) => e,
                    };
                    uml_plan(cfg, format!("auto: {why}"))
                        .map_err(|e| format!("{why}\nand the guest kernel cannot be used: {e}"))
                }
            }
        }
    }
}

fn missing_message(missing: &[String]) -> String {
    let release = host_release();
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
