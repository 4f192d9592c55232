//! Kernel support check: which qdisc kinds can this kernel create?
//!
//! Runs in a namespace the caller created and registered (so a run killed
//! during the check leaves nothing its cleanup does not know): each kind is
//! tried as the root qdisc of that namespace's `lo` and removed again.

use netlab_topology::netns::Netns;

use crate::socket::{ifindex_in, release_or_unknown, QdiscSocket};
use crate::QdiscError;
use netlab_qdisc_model::{arm_request, bare_request, tbf_request};
use netlab_qdisc_model::{Arm, Handle, Psched, Tbf};

/// Returns the kinds in `kinds` this kernel cannot create (in the order
/// given), trying each on the `lo` of `ns` (a namespace the caller owns:
/// nothing else is touched, and each qdisc is deleted again).
pub fn missing_kinds(ns: &Netns, kinds: &[&str]) -> Result<Vec<String>, QdiscError> {
    let sock = QdiscSocket::open_in(ns)?;
    let lo = ifindex_in(ns, "lo")?;
    let mut missing = Vec::new();
    for (i, kind) in kinds.iter().enumerate() {
        let seq = 100 + i as u32;
        let root = Handle::new(1, 0);
        let req = match *kind {
            "tbf" => tbf_request(
                "lo",
                lo,
                root,
                Handle::ROOT,
                &Tbf::spec_default(),
                &Psched::MODERN,
                seq,
            )?,
            k => match Arm::parse(k) {
                Ok(arm) => arm_request("lo", lo, root, Handle::ROOT, &arm, seq)?,
                Err(_) => bare_request("lo", lo, root, Handle::ROOT, k, seq),
            },
        };
        match sock.apply(&req) {
            Ok(()) => {
                // Best effort: the caller's namespace is thrown away anyway.
                let _ = sock.delete(lo, Handle::ROOT);
            }
            Err(QdiscError::KindUnavailable { .. }) => missing.push(kind.to_string()),
            // Any other refusal (e.g. EINVAL for options) means the kind exists.
            Err(QdiscError::Refused { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(missing)
}

/// Like [`missing_kinds`], but fails with the first missing kind as
/// [`QdiscError::KindUnavailable`].
pub fn require_kinds(ns: &Netns, kinds: &[&str]) -> Result<(), QdiscError> {
    match missing_kinds(ns, kinds)?.into_iter().next() {
        None => Ok(()),
        Some(kind) => Err(unavailable(&kind)),
    }
}

/// The error for a kind this kernel lacks.
pub fn unavailable(kind: &str) -> QdiscError {
    QdiscError::KindUnavailable {
        kind: kind.to_string(),
        release: release_or_unknown(),
        module: netlab_qdisc_model::module_for_kind(kind),
        note: netlab_qdisc_model::absent_from_pinned_guest(kind).map(str::to_string),
    }
}
