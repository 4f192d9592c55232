//! DCTCP needs a queue that marks CE above a shallow, fixed threshold
//! (RFC 8257 §3.1: "mark ... if the queue occupancy is greater than K"):
//! its window falls in proportion to the share of marked packets, which is
//! only meaningful against such a step. The kernel's qdiscs that mark that
//! way are fq_codel, codel and fq with `ce_threshold` (a sojourn-time
//! step, `codel_should_drop`'s `ce_threshold` branch) and RED with
//! `ecn` and a small `min`; a plain AQM's marks come from its own control
//! law, and a FIFO marks nothing, so DCTCP behind either is not the DCTCP
//! of its paper (docs/method.md §16.2). [`dctcp_warning`] says so before
//! a run.

use netlab_qdisc_model::Arm;

/// The congestion control the receiver's listener of a flow of `cc` must
/// run, when the namespace's default will not do: DCTCP sends its SYN
/// ECT (`tcp_ca_needs_ecn`), and `tcp_ecn_create_request` grants ECN to an
/// ECT SYN only when the listener's congestion control needs ECN too, so a
/// DCTCP flow to an ordinary listener falls back to `dctcp-reno`.
pub fn listener_cc(cc: &str) -> Option<&'static str> {
    (cc == "dctcp").then_some("dctcp")
}

/// The arm's CE threshold, if it marks on a fixed step.
pub fn ce_threshold(arm: &Arm) -> Option<std::time::Duration> {
    match arm {
        Arm::FqCodel(a) => a.ce_threshold,
        Arm::Codel(a) => a.ce_threshold,
        Arm::Fq(a) => a.ce_threshold,
        _ => None,
    }
}

/// The warning for `dctcp_flows` DCTCP flows behind `arm`, unless the arm
/// marks on a fixed threshold: (what, fix).
pub(crate) fn dctcp_warning(arm: &Arm, dctcp_flows: usize) -> Option<(String, String)> {
    if dctcp_flows == 0 || ce_threshold(arm).is_some() {
        return None;
    }
    let why = match arm {
        Arm::Pfifo(_) | Arm::Bfifo(_) => {
            format!(
                "{} marks no packet: DCTCP sees only drops and falls back to halving",
                arm.kind()
            )
        }
        _ => format!(
            "{} marks by its own control law, not above a fixed threshold K, so DCTCP's \
             estimate of the marked share (α) does not measure the queue",
            arm.kind()
        ),
    };
    Some((
        format!(
            "{dctcp_flows} DCTCP flow(s): DCTCP needs an ECN threshold at the queue (RFC 8257 \
             §3.1); {why}"
        ),
        "give the arm a CE threshold (fq_codel ... ce_threshold 1ms, codel ... ce_threshold 1ms), \
         as experiments/dctcp_quick.toml does"
            .to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dctcp_is_warned_of_unless_the_arm_marks_above_a_threshold() {
        let arm = |w: &str| Arm::parse(w).unwrap();
        assert!(dctcp_warning(&arm("fq_codel ce_threshold 1ms"), 1).is_none());
        assert!(dctcp_warning(&arm("codel ce_threshold 2ms"), 1).is_none());
        assert!(dctcp_warning(&arm("fq_codel"), 0).is_none());
        let (text, fix) = dctcp_warning(&arm("fq_codel"), 2).unwrap();
        assert!(
            text.contains("2 DCTCP flow(s)") && text.contains("control law"),
            "{text}"
        );
        assert!(fix.contains("ce_threshold"));
        let (text, _) = dctcp_warning(&arm("pfifo limit 100"), 1).unwrap();
        assert!(text.contains("marks no packet"), "{text}");
        // Through the experiment's warnings.
        let exp = crate::parse(
            "arms = [\"fq_codel\", \"fq_codel ce_threshold 1ms\"]\n[[flows]]\ncc = \"dctcp\"\n",
        )
        .unwrap();
        let w: Vec<_> = crate::warnings(&exp)
            .into_iter()
            .filter(|w| w.kind == crate::WarningKind::DctcpWithoutEcnThreshold)
            .collect();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].arm, "fq_codel");
    }
}
