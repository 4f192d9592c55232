//! `[[hosts]]`: the sender hosts behind R (docs/method.md §1.7), each
//! with a name the flows and probes refer to and its own base RTT; and
//! the checks of the flows' and probes' `host` keys.
//!
//! Without `[[hosts]]` the experiment has the seed's one sender A, and a
//! flow or probe may not name a host. With it, host `hosts[i]` is sender
//! host `i + 1` of the topology (`hosts[0]` is A, with the seed's names
//! and addresses), and every flow and probe runs from `hosts[0]` unless
//! it names another.
//!
//! ```
//! let exp = netlab_experiment::parse(r#"
//!     [[hosts]]
//!     name = "near"
//!     base_rtt = "10ms"
//!     [[hosts]]
//!     name = "far"
//!     base_rtt = "40ms"
//!     [[flows]]
//!     host = "near"
//!     [[flows]]
//!     host = "far"
//! "#).unwrap();
//! assert_eq!(exp.flows[1].host, 1);
//! assert_eq!(exp.hosts[1].name, "far");
//! assert!(netlab_experiment::parse("[[flows]]\nhost = \"x\"\n").is_err());
//! ```

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::check::err;
use crate::units::{format_duration, parse_duration};
use crate::ExperimentError;

/// The most sender hosts an experiment may declare: the topology's
/// address plan gives host 1 the seed's A and hosts 2 to 254 one /24 each
/// in 10.21.0.0/16 (netlab-topology's `MAX_SENDER_HOSTS`; the same,
/// tested in netlab-run).
pub const MAX_HOSTS: usize = 254;

/// Longest host name.
pub const MAX_HOST_NAME: usize = 24;

/// `[[hosts]]` as written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostFile {
    /// The name flows and probes refer to (`host = "near"`).
    pub name: Option<String>,
    /// Round-trip delay netem adds on this host's own link, outside the
    /// measured queue (default 0: none).
    pub base_rtt: Option<String>,
}

/// One sender host, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSpec {
    /// Its name, unique in the experiment.
    pub name: String,
    /// Round-trip delay on its own link (zero: no netem there). Adds to
    /// the path-wide `[path] base_rtt`, which keeps its meaning.
    pub base_rtt: Duration,
}

impl HostSpec {
    /// Whether this host's link needs netem.
    pub fn needs_netem(&self) -> bool {
        !self.base_rtt.is_zero()
    }
}

/// Checks `[[hosts]]`: at least one, at most [`MAX_HOSTS`], each named
/// once with `[a-z0-9_]`, each base RTT a duration (zero allowed).
pub(crate) fn resolve_hosts(list: &[HostFile]) -> Result<Vec<HostSpec>, ExperimentError> {
    if list.is_empty() {
        return Err(err(
            "hosts",
            "at least one host is needed (leave [[hosts]] out for the seed's one sender)",
        ));
    }
    if list.len() > MAX_HOSTS {
        return Err(err(
            "hosts",
            format!(
                "{} hosts declared; the address plan allows at most {MAX_HOSTS} \
                 (host 1 is 10.20.1.2, hosts 2 on take 10.21.<i>.0/24: docs/method.md §1.7)",
                list.len()
            ),
        ));
    }
    let mut hosts: Vec<HostSpec> = Vec::with_capacity(list.len());
    for (i, h) in list.iter().enumerate() {
        let key = |k: &str| format!("hosts[{i}].{k}");
        let Some(name) = h.name.clone() else {
            return Err(err(key("name"), "every host needs a name"));
        };
        check_name(&key("name"), &name)?;
        if let Some(j) = hosts.iter().position(|o| o.name == name) {
            return Err(err(
                key("name"),
                format!("{name:?} is already hosts[{j}]'s name"),
            ));
        }
        let base_rtt = match &h.base_rtt {
            None => Duration::ZERO,
            Some(t) => parse_duration(t, true).map_err(|e| err(key("base_rtt"), e))?,
        };
        hosts.push(HostSpec { name, base_rtt });
    }
    Ok(hosts)
}

fn check_name(key: &str, name: &str) -> Result<(), ExperimentError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_HOST_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(err(
            key,
            format!("{name:?}: 1 to {MAX_HOST_NAME} characters of a-z, 0-9 and _"),
        ))
    }
}

/// The index into `hosts` of the host a flow or probe names (`None`: the
/// first). Naming a host without `[[hosts]]`, or one not declared, is
/// refused at `key`.
pub(crate) fn host_index(
    key: &str,
    named: Option<&str>,
    hosts: &[HostSpec],
) -> Result<usize, ExperimentError> {
    let Some(name) = named else { return Ok(0) };
    if hosts.is_empty() {
        return Err(err(
            key,
            format!("{name:?}: no [[hosts]] are declared (the seed's one sender has no name)"),
        ));
    }
    hosts.iter().position(|h| h.name == name).ok_or_else(|| {
        let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
        err(
            key,
            format!("no host {name:?} (declared: {})", names.join(", ")),
        )
    })
}

/// The file form of resolved hosts (`None` without `[[hosts]]`, so the
/// canonical text and the content hash of an experiment without hosts are
/// what they were before hosts existed).
pub(crate) fn hosts_file(hosts: &[HostSpec]) -> Option<Vec<HostFile>> {
    (!hosts.is_empty()).then(|| {
        hosts
            .iter()
            .map(|h| HostFile {
                name: Some(h.name.clone()),
                base_rtt: Some(format_duration(h.base_rtt)),
            })
            .collect()
    })
}

/// The name a flow or probe at host `index` is printed with (`None`
/// without `[[hosts]]`).
pub(crate) fn host_name(hosts: &[HostSpec], index: usize) -> Option<String> {
    hosts.get(index).map(|h| h.name.clone())
}

#[cfg(test)]
mod tests {
    use crate::{parse, ExperimentError};

    fn refusal(toml: &str) -> (String, String) {
        match parse(toml).unwrap_err() {
            ExperimentError::Key { key, reason } | ExperimentError::Syntax { key, reason } => {
                (key, reason)
            }
            other => panic!("{other:?}"),
        }
    }

    const TWO: &str = "[[hosts]]\nname = \"near\"\nbase_rtt = \"10ms\"\n\
                       [[hosts]]\nname = \"far\"\nbase_rtt = \"40ms\"\n";

    #[test]
    fn flows_and_probes_run_from_the_host_they_name_or_the_first() {
        let exp = parse(&format!(
            "{TWO}[[flows]]\n[[flows]]\nhost = \"far\"\ndirection = \"down\"\n\
             [[probes]]\nhost = \"far\"\n"
        ))
        .unwrap();
        assert_eq!(exp.hosts.len(), 2);
        assert_eq!(exp.hosts[0].base_rtt, std::time::Duration::from_millis(10));
        assert!(exp.hosts[1].needs_netem());
        assert_eq!((exp.flows[0].host, exp.flows[1].host), (0, 1));
        assert_eq!(exp.probes[0].host, 1);
        // Each host's flows and probes reach every scenario of the plan.
        let plan = exp.plan();
        assert_eq!(plan.scenarios[0].hosts, exp.hosts);
        assert_eq!(plan.scenarios[0].flows[1].host, 1);
        // A per-host base RTT needs netem, which only the guest has.
        assert!(exp.requirements().qdiscs.contains("netem"));
        // The printed form names each flow's host and reads back the same.
        let text = exp.to_toml();
        assert!(text.contains("[[hosts]]") && text.contains("host = \"far\""));
        assert_eq!(parse(&text).unwrap(), exp);
    }

    #[test]
    fn without_hosts_nothing_is_printed_and_nothing_named() {
        let exp = parse("").unwrap();
        assert!(exp.hosts.is_empty());
        assert_eq!(exp.flows[0].host, 0);
        let text = exp.to_toml();
        assert!(!text.contains("host"), "{text}");
        // Zero base RTT on every host adds no netem.
        let exp = parse("[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"b\"\n").unwrap();
        assert!(!exp.requirements().qdiscs.contains("netem"));
    }

    #[test]
    fn a_flow_naming_an_unknown_host_is_refused_at_its_key() {
        let (key, reason) = refusal(&format!("{TWO}[[flows]]\n[[flows]]\nhost = \"mid\"\n"));
        assert_eq!(key, "flows[1].host");
        assert!(
            reason.contains("\"mid\"") && reason.contains("near, far"),
            "{reason}"
        );
        let (key, reason) = refusal("[[flows]]\nhost = \"near\"\n");
        assert_eq!(key, "flows[0].host");
        assert!(reason.contains("no [[hosts]]"), "{reason}");
        let (key, _) = refusal(&format!("{TWO}[[probes]]\nhost = \"x\"\n"));
        assert_eq!(key, "probes[0].host");
    }

    #[test]
    fn two_hosts_with_one_name_are_refused() {
        let (key, reason) = refusal("[[hosts]]\nname = \"a\"\n[[hosts]]\nname = \"a\"\n");
        assert_eq!(key, "hosts[1].name");
        assert!(reason.contains("already hosts[0]"), "{reason}");
    }

    #[test]
    fn more_hosts_than_the_address_plan_allows_are_refused() {
        let many: String = (0..=super::MAX_HOSTS)
            .map(|i| format!("[[hosts]]\nname = \"h{i}\"\n"))
            .collect();
        let (key, reason) = refusal(&many);
        assert_eq!(key, "hosts");
        assert!(
            reason.contains("255 hosts") && reason.contains("254"),
            "{reason}"
        );
        let just: String = (0..super::MAX_HOSTS)
            .map(|i| format!("[[hosts]]\nname = \"h{i}\"\n"))
            .collect();
        assert_eq!(parse(&just).unwrap().hosts.len(), 254);
    }

    #[test]
    fn a_download_bottleneck_takes_one_host() {
        let (key, _) = refusal(&format!("{TWO}[path.down]\nrate = \"5mbit\"\n"));
        assert_eq!(key, "path.down");
        assert!(parse("[[hosts]]\nname = \"a\"\n[path.down]\nrate = \"5mbit\"\n").is_ok());
    }

    #[test]
    fn bad_host_entries_name_their_key() {
        assert_eq!(refusal("hosts = []\n").0, "hosts");
        assert_eq!(
            refusal("[[hosts]]\nbase_rtt = \"5ms\"\n").0,
            "hosts[0].name"
        );
        assert_eq!(refusal("[[hosts]]\nname = \"Near\"\n").0, "hosts[0].name");
        assert_eq!(
            refusal("[[hosts]]\nname = \"a\"\nbase_rtt = \"fast\"\n").0,
            "hosts[0].base_rtt"
        );
        let (key, _) = refusal("[[hosts]]\nname = \"a\"\nrtt = \"5ms\"\n");
        assert!(key.starts_with("hosts"), "{key}");
    }
}
