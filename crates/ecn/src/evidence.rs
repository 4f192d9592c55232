//! The serialisable result of one capture: counts, kept frames, kernel drop
//! accounting and the method §7 wording.

use std::net::{Ipv4Addr, SocketAddrV4};

use serde::{Deserialize, Serialize};

/// Shape version of [`EcnEvidence`]; a change of shape bumps it.
pub const ECN_EVIDENCE_SCHEMA_VERSION: u32 = 1;

/// At most this many leading bytes of a kept frame are stored as hex.
pub const EVIDENCE_HEX_CAP: usize = 128;

/// method §7 wording carried in every [`EcnEvidence`].
pub const NOTE_EVIDENCE: &str =
    "counts and samples are evidence of ECN on the wire, not a one-to-one \
     CE-mark -> ECE -> congestion-window trace";
/// method §7 wording carried in every [`EcnEvidence`] (RFC 3168 §6.1.2).
pub const NOTE_CWR: &str =
    "CWR alone is not proof of CE feedback: RFC 3168 §6.1.2 lets a sender set \
     CWR after any reduction of its congestion window";
/// What a count of one means when the kernel aggregates segments.
pub const NOTE_AGGREGATION: &str = "counts are per captured frame; with GRO/GSO one frame can stand for \
     several wire segments (the kernel only merges segments whose ECN bits and CWR/ECE flags agree)";

/// Which way a frame crossed B's interface, from `sll_pkttype`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureDirection {
    /// Received by B (`PACKET_HOST`).
    Incoming,
    /// Sent by B (`PACKET_OUTGOING`).
    Outgoing,
    /// Broadcast, multicast, other-host or an unknown packet type.
    Other(u8),
}

impl CaptureDirection {
    /// Maps a `sockaddr_ll.sll_pkttype` value.
    pub fn from_pkttype(pkttype: u8) -> Self {
        match pkttype {
            0 => CaptureDirection::Incoming,
            4 => CaptureDirection::Outgoing,
            other => CaptureDirection::Other(other),
        }
    }
}

/// Direction of a frame within the controlled flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowDirection {
    /// Sender A to receiver B (data).
    AToB,
    /// Receiver B to sender A (ACKs).
    BToA,
}

/// The two ECN bits of the IPv4 TOS byte (RFC 3168 §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IpEcnCodepoint {
    /// 00: not ECN-capable.
    NotEct,
    /// 01: ECT(1).
    Ect1,
    /// 10: ECT(0).
    Ect0,
    /// 11: congestion experienced.
    Ce,
}

impl IpEcnCodepoint {
    /// From the low two bits of the TOS byte.
    pub fn from_bits(bits: u8) -> Self {
        match bits & 0b11 {
            0b00 => IpEcnCodepoint::NotEct,
            0b01 => IpEcnCodepoint::Ect1,
            0b10 => IpEcnCodepoint::Ect0,
            _ => IpEcnCodepoint::Ce,
        }
    }
}

/// TCP flags of a kept frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpFlags {
    /// SYN.
    pub syn: bool,
    /// ACK.
    pub ack: bool,
    /// FIN.
    pub fin: bool,
    /// RST.
    pub rst: bool,
    /// PSH.
    pub psh: bool,
    /// URG.
    pub urg: bool,
    /// ECN-Echo.
    pub ece: bool,
    /// Congestion Window Reduced.
    pub cwr: bool,
    /// AE (formerly NS), bit 8 of the flags.
    pub ae: bool,
}

/// Decoded header fields of one TCP/IPv4 frame of the flow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpFrameFields {
    /// IPv4 source address and TCP source port.
    pub src: SocketAddrV4,
    /// IPv4 destination address and TCP destination port.
    pub dst: SocketAddrV4,
    /// ECN codepoint of the IPv4 header.
    pub ip_ecn: IpEcnCodepoint,
    /// DSCP of the IPv4 header.
    pub ip_dscp: u8,
    /// IPv4 total length field (0 for BIG TCP super-frames).
    pub ip_total_len: u16,
    /// IPv4 TTL.
    pub ip_ttl: u8,
    /// TCP flags.
    pub flags: TcpFlags,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgement number.
    pub ack: u32,
    /// Advertised window (unscaled).
    pub window: u16,
    /// TCP payload bytes carried by the frame on the wire, from the IPv4
    /// total length (or, when that is 0, from the original frame length).
    pub payload_len: u32,
}

impl TcpFrameFields {
    /// The IPv4 source address.
    pub fn src_ip(&self) -> Ipv4Addr {
        *self.src.ip()
    }
}

/// One kept frame: hex of its first bytes, decoded fields, time, direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameEvidence {
    /// Seconds from the capture's `t0`.
    pub at_s: f64,
    /// Direction on B's interface (`sll_pkttype`).
    pub capture_direction: CaptureDirection,
    /// Direction within the flow (from addresses and ports).
    pub flow_direction: FlowDirection,
    /// Length of the frame as the kernel had it (before any truncation).
    pub orig_len: u32,
    /// Bytes actually captured.
    pub captured_len: u32,
    /// Lowercase hex of at most [`EVIDENCE_HEX_CAP`] leading captured bytes.
    pub hex: String,
    /// Decoded Ethernet/IPv4/TCP header fields.
    pub fields: TcpFrameFields,
}

/// Frame counts of one capture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EcnCounts {
    /// A→B frames of the flow with IP ECN = 11 (CE).
    pub ce: u64,
    /// Non-SYN B→A frames of the flow with ECE.
    pub ece: u64,
    /// Non-SYN A→B frames of the flow with CWR.
    pub cwr: u64,
    /// A→B data frames (payload > 0) with ECT(0).
    pub ect0: u64,
    /// A→B data frames (payload > 0) with ECT(1).
    pub ect1: u64,
    /// A→B data frames (payload > 0) with Not-ECT.
    pub not_ect: u64,
    /// A→B data frames (payload > 0) with CE (part of the ECT/Not-ECT split).
    pub ce_data: u64,
    /// All A→B frames of the flow.
    pub a_to_b: u64,
    /// All B→A frames of the flow.
    pub b_to_a: u64,
    /// Everything else: not untagged Ethernet/IPv4/TCP, another flow,
    /// a non-first fragment, or too short to decode.
    pub other: u64,
}

/// First frame of each kind of evidence.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FirstEvidence {
    /// First CE-marked A→B frame.
    pub ce: Option<FrameEvidence>,
    /// First non-SYN B→A frame with ECE.
    pub ece: Option<FrameEvidence>,
    /// First non-SYN A→B frame with CWR.
    pub cwr: Option<FrameEvidence>,
}

/// Kernel accounting of the capture socket (`PACKET_STATISTICS`), read once at
/// the end (the kernel resets it on read).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelStats {
    /// `tp_packets`: frames the socket was offered (includes `drops`).
    pub packets: u64,
    /// `tp_drops`: frames the kernel dropped because the socket could not keep up.
    pub drops: u64,
}

/// Why the capture loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The orchestrator's stop flag was set.
    Stopped,
    /// The frame bound was reached: later frames were not read.
    FrameLimit,
    /// The deadline passed before a stop signal.
    Deadline,
}

/// Everything one capture shows about ECN on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EcnEvidence {
    /// [`ECN_EVIDENCE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Sender address and port (port 0 if no frame of the flow was seen and
    /// the port was not given).
    pub flow_a: SocketAddrV4,
    /// Receiver address and port.
    pub flow_b: SocketAddrV4,
    /// SYN carried ECE+CWR and the SYN-ACK ECE without CWR: classic ECN
    /// negotiated (RFC 3168 §6.1.1).
    pub negotiated: bool,
    /// First SYN (A→B, no ACK) of the flow.
    pub syn: Option<FrameEvidence>,
    /// First SYN-ACK (B→A) of the flow.
    pub syn_ack: Option<FrameEvidence>,
    /// Frame counts.
    pub counts: EcnCounts,
    /// First frame of each kind of evidence.
    pub first: FirstEvidence,
    /// Frames read from the socket.
    pub frames_seen: u64,
    /// Frames whose captured bytes were shorter than the original frame.
    pub frames_truncated: u64,
    /// Kernel accounting; `None` until the capture has ended.
    pub kernel: Option<KernelStats>,
    /// Why the capture ended; `None` for a decoder not driven by a capture.
    pub stop_reason: Option<StopReason>,
    /// Seconds from `t0` to the end of the capture loop.
    pub duration_s: f64,
    /// The method §7 wording and anything a reader must know (drops, limits).
    pub notes: Vec<String>,
}

impl EcnEvidence {
    /// True when the kernel reported dropping frames for this socket.
    pub fn kernel_dropped(&self) -> bool {
        self.kernel.is_some_and(|k| k.drops > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkttype_maps() {
        assert_eq!(
            CaptureDirection::from_pkttype(0),
            CaptureDirection::Incoming
        );
        assert_eq!(
            CaptureDirection::from_pkttype(4),
            CaptureDirection::Outgoing
        );
        assert_eq!(
            CaptureDirection::from_pkttype(1),
            CaptureDirection::Other(1)
        );
    }

    #[test]
    fn ecn_bits_map() {
        assert_eq!(IpEcnCodepoint::from_bits(0), IpEcnCodepoint::NotEct);
        assert_eq!(IpEcnCodepoint::from_bits(1), IpEcnCodepoint::Ect1);
        assert_eq!(IpEcnCodepoint::from_bits(2), IpEcnCodepoint::Ect0);
        assert_eq!(IpEcnCodepoint::from_bits(3), IpEcnCodepoint::Ce);
    }
}
