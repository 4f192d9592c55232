//! Kernel support probe: which qdisc kinds can this kernel create?
//!
//! Runs in a scratch namespace of its own (deleted afterwards): each kind
//! is tried as the root qdisc of that namespace's `lo`, so nothing else is
//! touched.

use netlab_topology::netns::{Netns, ScratchNetns};

use crate::request::{arm_request, bare_request, delete_request_bytes, tbf_request};
use crate::sys::{ifindex_in, kernel_release, QdiscSocket};
use crate::{Arm, Handle, Psched, QdiscError, Tbf};

/// Returns the kinds in `kinds` this kernel cannot create (in the order
/// given). Uses a scratch `nl-` namespace that is deleted before returning.
pub fn missing_kinds(kinds: &[&str]) -> Result<Vec<String>, QdiscError> {
    let scratch = ScratchNetns::new("qprobe").map_err(|source| QdiscError::Netns {
        step: "creating a scratch netns for the qdisc probe".into(),
        source,
    })?;
    missing_kinds_in(scratch.netns(), kinds)
}

/// Like [`missing_kinds`], but fails with the first missing kind as
/// [`QdiscError::KindUnavailable`] ("qdisc fq_codel is not available in
/// this kernel (6.x): load sch_fq_codel or use --kernel uml").
pub fn require_kinds(kinds: &[&str]) -> Result<(), QdiscError> {
    match missing_kinds(kinds)?.into_iter().next() {
        None => Ok(()),
        Some(kind) => Err(unavailable(&kind)),
    }
}

/// The error for a kind this kernel lacks.
pub fn unavailable(kind: &str) -> QdiscError {
    QdiscError::KindUnavailable {
        kind: kind.to_string(),
        release: kernel_release(),
        module: crate::arm::module_for_kind(kind),
    }
}

/// Probes inside an existing namespace the caller owns (uses its `lo`,
/// and removes each probe qdisc again).
pub fn missing_kinds_in(ns: &Netns, kinds: &[&str]) -> Result<Vec<String>, QdiscError> {
    let sock = QdiscSocket::open_in(ns)?;
    let lo = ifindex_in(ns, "lo")?;
    let mut missing = Vec::new();
    for (i, kind) in kinds.iter().enumerate() {
        let seq = 100 + 2 * i as u32;
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
                let del = delete_request_bytes(lo, Handle::ROOT, seq + 1);
                // Best effort: the probe namespace is thrown away anyway.
                let _ = sock.transact(&del, seq + 1, "deleting the probe qdisc");
            }
            Err(QdiscError::KindUnavailable { .. }) => missing.push(kind.to_string()),
            // Any other refusal (e.g. EINVAL for options) means the kind exists.
            Err(QdiscError::Refused { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(missing)
}
