//! Run ids and the names of the namespaces we own.
//!
//! Every namespace netlab creates is called `nl-<runid>-<rest>`, where
//! `<runid>` is lowercase hex. A topology's namespaces are
//! `nl-<runid>-<scenario>-{a,r,b}`. [`OwnedName::parse`] recognises those
//! names; cleanup uses it so that it never touches a foreign namespace.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::TopologyError;

/// Prefix of every namespace netlab owns.
pub const PREFIX: &str = "nl-";

/// Number of hex digits in a freshly generated [`RunId`].
pub const RUN_ID_HEX_LEN: usize = 6;

/// A short random identifier of one run (lowercase hex, 4 to 8 digits).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RunId(String);

impl RunId {
    /// A fresh random run id ([`RUN_ID_HEX_LEN`] hex digits), from the
    /// kernel's random bytes (getrandom) mixed with the pid and the clock.
    pub fn random() -> RunId {
        let mut bytes = [0u8; 8];
        let mut x = match getrandom::fill(&mut bytes) {
            Ok(()) => u64::from_le_bytes(bytes),
            Err(_) => 0x9e37_79b9_7f4a_7c15,
        };
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        x ^= nanos.rotate_left(17) ^ u64::from(std::process::id()).rotate_left(40);
        x ^= COUNTER.fetch_add(0x2545_f491_4f6c_dd1d, std::sync::atomic::Ordering::Relaxed);
        // SplitMix64's mixer (netlab-stats), so the low digits mix every input
        x = netlab_stats::splitmix64(x);
        RunId(format!(
            "{:0width$x}",
            x & ((1u64 << (4 * RUN_ID_HEX_LEN)) - 1),
            width = RUN_ID_HEX_LEN
        ))
    }

    /// Validates a run id given as text.
    pub fn parse(s: &str) -> Result<RunId, TopologyError> {
        if !(4..=8).contains(&s.len()) {
            return Err(TopologyError::InvalidName {
                name: s.to_owned(),
                reason: "a run id has 4 to 8 hex digits",
            });
        }
        if !s
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(TopologyError::InvalidName {
                name: s.to_owned(),
                reason: "a run id is lowercase hex",
            });
        }
        Ok(RunId(s.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for RunId {
    type Error = TopologyError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        RunId::parse(&s)
    }
}

impl From<RunId> for String {
    fn from(r: RunId) -> String {
        r.0
    }
}

/// The role of a namespace in the A–R–B topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A, the sender.
    A,
    /// R, the router.
    R,
    /// B, the receiver.
    B,
}

impl Role {
    /// All three roles in build order.
    pub const ALL: [Role; 3] = [Role::A, Role::R, Role::B];

    /// The one-letter suffix.
    pub fn suffix(self) -> &'static str {
        match self {
            Role::A => "a",
            Role::R => "r",
            Role::B => "b",
        }
    }
}

/// Checks that a scenario label (or scratch tag) can be part of a name:
/// 1 to 24 characters out of `[a-z0-9_]`. Hyphens are not allowed so the
/// role suffix stays unambiguous.
pub fn validate_label(label: &str) -> Result<(), TopologyError> {
    if label.is_empty() || label.len() > 24 {
        return Err(TopologyError::InvalidName {
            name: label.to_owned(),
            reason: "a scenario label has 1 to 24 characters",
        });
    }
    if !label
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        return Err(TopologyError::InvalidName {
            name: label.to_owned(),
            reason: "a scenario label uses only a-z, 0-9 and _",
        });
    }
    Ok(())
}

/// Turns any text into a valid label (lowercase, other characters become `_`,
/// cut to 24 characters, `x` if empty).
pub fn sanitize_label(text: &str) -> String {
    let mut s: String = text
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '_'
            }
        })
        .take(24)
        .collect();
    if s.is_empty() {
        s.push('x');
    }
    s
}

/// The namespace name of `role` in scenario `scenario` of run `run`:
/// `nl-<run>-<scenario>-<a|r|b>`.
pub fn netns_name(run: &RunId, scenario: &str, role: Role) -> String {
    format!("{PREFIX}{run}-{scenario}-{}", role.suffix())
}

/// A namespace name that we recognise as ours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnedName {
    /// The run that created it.
    pub run_id: RunId,
    /// The scenario label (or scratch tag).
    pub label: String,
    /// The topology role, if the name ends in `-a`, `-r` or `-b`, or in
    /// `-a<i>` (sender host `i`, method §1.7: role A).
    pub role: Option<Role>,
    /// The sender host's number when the name ends in `-a<i>` (2 to
    /// [`crate::MAX_SENDER_HOSTS`]); `None` for every other name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<u16>,
}

impl OwnedName {
    /// Recognises `nl-<runid>-<label>[-<a|r|b|a<i>>]`; anything else (a
    /// foreign namespace) gives `None`.
    pub fn parse(name: &str) -> Option<OwnedName> {
        let rest = name.strip_prefix(PREFIX)?;
        let (run, rest) = rest.split_once('-')?;
        let run_id = RunId::parse(run).ok()?;
        let mut host = None;
        let (label, role) = match rest.rsplit_once('-') {
            Some((label, "a")) => (label, Some(Role::A)),
            Some((label, "r")) => (label, Some(Role::R)),
            Some((label, "b")) => (label, Some(Role::B)),
            Some((label, suffix)) => {
                host = Some(host_number(suffix)?);
                (label, Some(Role::A))
            }
            None => (rest, None),
        };
        validate_label(label).ok()?;
        Some(OwnedName {
            run_id,
            label: label.to_owned(),
            role,
            host,
        })
    }

    /// True if `name` is one of ours and belongs to run `run`.
    pub fn belongs_to(name: &str, run: &RunId) -> bool {
        OwnedName::parse(name).is_some_and(|n| &n.run_id == run)
    }
}

/// The host number of a suffix `a<i>`: decimal without a leading zero,
/// 2 to [`crate::MAX_SENDER_HOSTS`] (host 1 is plain `a`).
fn host_number(suffix: &str) -> Option<u16> {
    let digits = suffix.strip_prefix('a')?;
    if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u16 = digits.parse().ok()?;
    (2..=crate::MAX_SENDER_HOSTS).contains(&n).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fuzz smoke's input: a sender host's name is ours, with its
    /// number, and rebuilds from its parts as the topology names it.
    #[test]
    fn a_sender_hosts_name_rebuilds_from_its_parts() {
        let n = OwnedName::parse("nl-accd-02o-a11").unwrap();
        assert_eq!(
            (n.run_id.to_string(), n.label.as_str(), n.role, n.host),
            ("accd".to_string(), "02o", Some(Role::A), Some(11))
        );
        let host = crate::SenderHost::new(11).unwrap();
        assert_eq!(
            format!("{PREFIX}{}-{}-{}", n.run_id, n.label, host.suffix()),
            "nl-accd-02o-a11"
        );
        assert_eq!(OwnedName::parse("nl-accd-02o-a011"), None);
        assert_eq!(OwnedName::parse("nl-accd-02o-a1"), None);
    }

    #[test]
    fn random_run_ids_are_valid_and_differ() {
        let ids: std::collections::HashSet<_> = (0..200).map(|_| RunId::random()).collect();
        assert!(ids.len() >= 199, "too many collisions: {}", ids.len());
        for id in &ids {
            assert_eq!(id.as_str().len(), RUN_ID_HEX_LEN);
            RunId::parse(id.as_str()).unwrap();
        }
    }

    #[test]
    fn run_id_parse_rejects_bad_text() {
        assert!(RunId::parse("7f3a").is_ok());
        assert!(RunId::parse("7F3A").is_err());
        assert!(RunId::parse("7f3").is_err());
        assert!(RunId::parse("7f3a00000").is_err());
        assert!(RunId::parse("7g3a").is_err());
    }

    #[test]
    fn names_of_a_topology() {
        let run = RunId::parse("7f3a").unwrap();
        assert_eq!(netns_name(&run, "1", Role::A), "nl-7f3a-1-a");
        assert_eq!(netns_name(&run, "pfifo_2", Role::R), "nl-7f3a-pfifo_2-r");
        assert_eq!(netns_name(&run, "1", Role::B), "nl-7f3a-1-b");
    }

    #[test]
    fn parser_recognises_ours_only() {
        let n = OwnedName::parse("nl-7f3a-1-a").unwrap();
        assert_eq!(n.run_id.as_str(), "7f3a");
        assert_eq!(n.label, "1");
        assert_eq!(n.role, Some(Role::A));
        let n = OwnedName::parse("nl-00ff12-scratch_x").unwrap();
        assert_eq!(n.role, None);
        assert_eq!(n.label, "scratch_x");
        for foreign in [
            "blue",
            "nl-",
            "nl-7f3a",
            "nl-7f3a-",
            "nl-zz12-1-a",
            "nl-7f3a-1-c",
            "nl-7f3a-1-a-extra",
            "xnl-7f3a-1-a",
            "nl-7f3a-Upper-a",
            "nl-7f3a-1/../x-a",
        ] {
            assert_eq!(OwnedName::parse(foreign), None, "{foreign}");
        }
        let n = OwnedName::parse("nl-7f3a-1-a12").unwrap();
        assert_eq!(
            (n.role, n.host, n.label.as_str()),
            (Some(Role::A), Some(12), "1")
        );
        for foreign in [
            "nl-7f3a-1-a1",
            "nl-7f3a-1-a02",
            "nl-7f3a-1-a255",
            "nl-7f3a-1-a2x",
            "nl-7f3a-1-b2",
        ] {
            assert_eq!(OwnedName::parse(foreign), None, "{foreign}");
        }
        let run = RunId::parse("7f3a").unwrap();
        assert!(OwnedName::belongs_to("nl-7f3a-1-a2", &run));
        assert!(OwnedName::belongs_to("nl-7f3a-1-r", &run));
        assert!(!OwnedName::belongs_to("nl-7f3b-1-r", &run));
    }

    #[test]
    fn labels() {
        assert!(validate_label("fq_codel1").is_ok());
        assert!(validate_label("").is_err());
        assert!(validate_label("a-b").is_err());
        assert_eq!(sanitize_label("Two Topos-1"), "two_topos_1");
        assert_eq!(sanitize_label(""), "x");
    }

    #[test]
    fn run_id_serde_validates() {
        let r: RunId = serde_json::from_str("\"abcd12\"").unwrap();
        assert_eq!(serde_json::to_string(&r).unwrap(), "\"abcd12\"");
        assert!(serde_json::from_str::<RunId>("\"XYZ\"").is_err());
    }
}
