//! A TBF's rate changed in place (docs/method.md §15.3): RTM_NEWQDISC
//! without `NLM_F_CREATE` on TBF's own handle and parent, which the
//! kernel hands to `tbf_change`.
//!
//! `tbf_change` calls `fifo_set_limit(child, qopt->limit)` whenever TBF
//! has a child, and that rewrites the limit of a FIFO child (pfifo,
//! bfifo, pfifo_head_drop) to TBF's `limit`. So the request carries the
//! FIFO child's own limit in that field, as the kernel read it back, and
//! the kernel writes back the value the arm already has; any other child
//! is left alone by the kernel and the field carries TBF's own limit.

use crate::arm::OptionsPayload;
use crate::request::{build_as, Verb};
use crate::QdiscOptions;
use crate::{Handle, ModelError, Psched, QdiscRecord, QdiscRequest, Size, Tbf};

/// The limit a FIFO child holds as read back (`pfifo`'s in packets,
/// `bfifo`'s in bytes), which a change of its TBF parent must carry;
/// `None` when the child is not a FIFO (the kernel leaves it alone).
pub fn fifo_child_limit(child: &QdiscRecord) -> Option<u32> {
    match &child.options {
        QdiscOptions::Pfifo { limit_packets: l } | QdiscOptions::Bfifo { limit_bytes: l } => {
            Some(*l)
        }
        _ => None,
    }
}

/// `tc qdisc change dev <dev> <parent> handle <handle> tbf rate .. burst ..
/// limit ..`: `tbf` at its new rate. `fifo_limit` is the FIFO child's
/// limit ([`fifo_child_limit`]), sent in TBF's `limit` so the child keeps
/// it; `None` sends TBF's own.
#[allow(clippy::too_many_arguments)]
pub fn tbf_change_request(
    dev: &str,
    ifindex: u32,
    handle: Handle,
    parent: Handle,
    tbf: &Tbf,
    fifo_limit: Option<u32>,
    psched: &Psched,
    seq: u32,
) -> Result<QdiscRequest, ModelError> {
    let sent = Tbf {
        limit: fifo_limit.map_or(tbf.limit, |l| Size(u64::from(l))),
        ..*tbf
    };
    build_as(
        Verb::Change,
        dev,
        ifindex,
        handle,
        parent,
        "tbf",
        OptionsPayload::Nested(sent.nested_options(psched)?),
        sent.tc_words(),
        seq,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{tbf_request, Rate};
    use netlab_netlink_views::Message;

    const NLM_F_CREATE: u16 = 0x400;
    const NLM_F_EXCL: u16 = 0x200;

    #[test]
    fn a_change_is_the_add_request_without_create_and_exclusive() {
        let tbf = Tbf {
            rate: Rate(2_000_000),
            ..Tbf::spec_default()
        };
        let add = tbf_request(
            "r1",
            3,
            Handle::new(1, 0),
            Handle::ROOT,
            &tbf,
            &Psched::MODERN,
            7,
        )
        .unwrap();
        let change = tbf_change_request(
            "r1",
            3,
            Handle::new(1, 0),
            Handle::ROOT,
            &tbf,
            None,
            &Psched::MODERN,
            7,
        )
        .unwrap();
        assert_eq!(
            change.tc_command(),
            "tc qdisc change dev r1 root handle 1: tbf rate 2mbit burst 16kb limit 64kb"
        );
        let (a, c) = (add.bytes(), change.bytes());
        let (ma, mc) = (
            Message::new_checked(&a).unwrap(),
            Message::new_checked(&c).unwrap(),
        );
        assert_eq!(
            ma.flags() & (NLM_F_CREATE | NLM_F_EXCL),
            NLM_F_CREATE | NLM_F_EXCL
        );
        assert_eq!(mc.flags() & (NLM_F_CREATE | NLM_F_EXCL), 0);
        // Everything but the flags is the same request.
        assert_eq!(ma.payload(), mc.payload());
        assert_eq!(ma.kind(), mc.kind());
    }

    #[test]
    fn a_fifo_child_keeps_its_limit_through_the_change() {
        let tbf = Tbf {
            rate: Rate(8),
            ..Tbf::spec_default()
        };
        let change = tbf_change_request(
            "r1",
            3,
            Handle::new(2, 0),
            Handle::new(1, 1),
            &tbf,
            Some(256),
            &Psched::MODERN,
            1,
        )
        .unwrap();
        // tc would print TBF's limit as the 256 it carries.
        assert_eq!(
            change.tc_command(),
            "tc qdisc change dev r1 parent 1:1 handle 2: tbf rate 8bit burst 16kb limit 256b"
        );
        let bytes = change.bytes();
        let qopt = crate::TbfQopt::from_bytes(&find_parms(&bytes)).unwrap();
        assert_eq!(qopt.limit, 256);
        assert_eq!(qopt.rate.rate, 1, "8 bit/s is one byte a second");
    }

    /// The `TCA_TBF_PARMS` value inside the request's `TCA_OPTIONS`.
    fn find_parms(msg: &[u8]) -> Vec<u8> {
        // tbf's parms are the only 36-byte attribute of type 1 nested in
        // the request: find its header (len 40, type 1).
        let at = msg
            .windows(4)
            .position(|w| w == [40, 0, 1, 0])
            .expect("TCA_TBF_PARMS");
        msg[at + 4..at + 40].to_vec()
    }
}
