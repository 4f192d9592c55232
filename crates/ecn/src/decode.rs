//! Pure decoder: captured bytes in, [`EcnEvidence`] updated. No sockets, no clock.

use std::net::SocketAddrV4;
use std::time::Duration;

use etherparse::{EtherType, Ethernet2HeaderSlice, IpNumber, Ipv4HeaderSlice, TcpHeaderSlice};

use crate::evidence::{
    CaptureDirection, EcnCounts, EcnEvidence, FirstEvidence, FlowDirection, FrameEvidence,
    IpEcnCodepoint, TcpFlags, TcpFrameFields, ECN_EVIDENCE_SCHEMA_VERSION, EVIDENCE_HEX_CAP,
    NOTE_AGGREGATION, NOTE_CWR, NOTE_EVIDENCE,
};

/// The controlled TCP flow: A sends data to B.
///
/// `a.port() == 0` means "A's port is not known yet" (the capture is opened
/// before the connect picks an ephemeral port): the decoder then locks onto
/// the port of the first A→B frame to `b` (normally the SYN) and reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    /// Sender (A) address and port.
    pub a: SocketAddrV4,
    /// Receiver (B) address and port.
    pub b: SocketAddrV4,
}

/// Ethernet, IPv4 and TCP header fields of one frame, before flow matching.
fn decode_tcp_ipv4(frame: &[u8], orig_len: u32) -> Option<TcpFrameFields> {
    let eth = Ethernet2HeaderSlice::from_slice(frame).ok()?;
    if eth.ether_type() != EtherType::IPV4 {
        return None;
    }
    let ip_bytes = &frame[eth.slice().len()..];
    let ip = Ipv4HeaderSlice::from_slice(ip_bytes).ok()?;
    if ip.protocol() != IpNumber::TCP || ip.fragments_offset().value() != 0 {
        return None;
    }
    let ip_header_len = ip.slice().len();
    let tcp = TcpHeaderSlice::from_slice(&ip_bytes[ip_header_len..]).ok()?;
    let headers_len = ip_header_len + tcp.slice().len();
    let payload_len = if ip.total_len() != 0 {
        u32::from(ip.total_len()).saturating_sub(headers_len as u32)
    } else {
        // BIG TCP super-frame: the length lives in a hop-by-hop option on
        // IPv6 only; for IPv4 the kernel leaves tot_len 0 and skb->len rules.
        orig_len.saturating_sub((eth.slice().len() + headers_len) as u32)
    };
    let ip_slice = ip.slice();
    Some(TcpFrameFields {
        src: SocketAddrV4::new(ip.source_addr(), tcp.source_port()),
        dst: SocketAddrV4::new(ip.destination_addr(), tcp.destination_port()),
        ip_ecn: IpEcnCodepoint::from_bits(ip_slice[1]),
        ip_dscp: ip_slice[1] >> 2,
        ip_total_len: ip.total_len(),
        ip_ttl: ip.ttl(),
        flags: TcpFlags {
            syn: tcp.syn(),
            ack: tcp.ack(),
            fin: tcp.fin(),
            rst: tcp.rst(),
            psh: tcp.psh(),
            urg: tcp.urg(),
            ece: tcp.ece(),
            cwr: tcp.cwr(),
            ae: tcp.ns(),
        },
        seq: tcp.sequence_number(),
        ack: tcp.acknowledgment_number(),
        window: tcp.window_size(),
        payload_len,
    })
}

/// Builds an [`EcnEvidence`] from frames fed one at a time.
///
/// ```
/// use std::net::{Ipv4Addr, SocketAddrV4};
/// use std::time::Duration;
/// use netlab_ecn::{CaptureDirection, Decoder, Flow};
///
/// let flow = Flow {
///     a: SocketAddrV4::new(Ipv4Addr::new(10, 20, 1, 2), 0),
///     b: SocketAddrV4::new(Ipv4Addr::new(10, 20, 2, 2), 5201),
/// };
/// let mut d = Decoder::new(flow);
/// d.observe(&[0u8; 10], 10, CaptureDirection::Incoming, Duration::ZERO);
/// let evidence = d.into_evidence();
/// assert_eq!(evidence.counts.other, 1);
/// assert!(!evidence.negotiated);
/// ```
#[derive(Debug, Clone)]
pub struct Decoder {
    flow: Flow,
    evidence: EcnEvidence,
}

impl Decoder {
    /// A decoder for `flow` with empty counts and the method §7 notes.
    pub fn new(flow: Flow) -> Self {
        Decoder {
            flow,
            evidence: EcnEvidence {
                schema_version: ECN_EVIDENCE_SCHEMA_VERSION,
                flow_a: flow.a,
                flow_b: flow.b,
                negotiated: false,
                syn: None,
                syn_ack: None,
                counts: EcnCounts::default(),
                first: FirstEvidence::default(),
                frames_seen: 0,
                frames_truncated: 0,
                kernel: None,
                stop_reason: None,
                duration_s: 0.0,
                notes: vec![
                    NOTE_EVIDENCE.to_string(),
                    NOTE_CWR.to_string(),
                    NOTE_AGGREGATION.to_string(),
                ],
            },
        }
    }

    /// The flow as currently known (A's port filled in once locked).
    pub fn flow(&self) -> Flow {
        self.flow
    }

    /// Feeds one captured frame: `frame` holds the captured bytes (possibly
    /// only the headers), `orig_len` the length the kernel had, `at` the time
    /// since the capture's `t0`.
    pub fn observe(&mut self, frame: &[u8], orig_len: u32, dir: CaptureDirection, at: Duration) {
        let r = &mut self.evidence;
        r.frames_seen += 1;
        if (frame.len() as u64) < u64::from(orig_len) {
            r.frames_truncated += 1;
        }
        let Some(fields) = decode_tcp_ipv4(frame, orig_len) else {
            r.counts.other += 1;
            return;
        };
        let Some(flow_dir) = self.classify(&fields) else {
            self.evidence.counts.other += 1;
            return;
        };
        let evidence = || FrameEvidence {
            at_s: at.as_secs_f64(),
            capture_direction: dir,
            flow_direction: flow_dir,
            orig_len,
            captured_len: frame.len() as u32,
            hex: hex::encode(&frame[..frame.len().min(EVIDENCE_HEX_CAP)]),
            fields: fields.clone(),
        };
        let r = &mut self.evidence;
        let f = fields.flags;
        match flow_dir {
            FlowDirection::AToB => {
                r.counts.a_to_b += 1;
                if f.syn && !f.ack {
                    if r.syn.is_none() {
                        r.syn = Some(evidence());
                    }
                } else if f.cwr {
                    r.counts.cwr += 1;
                    if r.first.cwr.is_none() {
                        r.first.cwr = Some(evidence());
                    }
                }
                if fields.ip_ecn == IpEcnCodepoint::Ce {
                    r.counts.ce += 1;
                    if r.first.ce.is_none() {
                        r.first.ce = Some(evidence());
                    }
                }
                if fields.payload_len > 0 {
                    match fields.ip_ecn {
                        IpEcnCodepoint::Ect0 => r.counts.ect0 += 1,
                        IpEcnCodepoint::Ect1 => r.counts.ect1 += 1,
                        IpEcnCodepoint::NotEct => r.counts.not_ect += 1,
                        IpEcnCodepoint::Ce => r.counts.ce_data += 1,
                    }
                }
            }
            FlowDirection::BToA => {
                r.counts.b_to_a += 1;
                if f.syn {
                    if f.ack && r.syn_ack.is_none() {
                        r.syn_ack = Some(evidence());
                    }
                } else if f.ece {
                    r.counts.ece += 1;
                    if r.first.ece.is_none() {
                        r.first.ece = Some(evidence());
                    }
                }
            }
        }
        r.negotiated = match (&r.syn, &r.syn_ack) {
            (Some(syn), Some(syn_ack)) => {
                let s = syn.fields.flags;
                let sa = syn_ack.fields.flags;
                s.ece && s.cwr && sa.ece && !sa.cwr
            }
            _ => false,
        };
    }

    /// Which way `fields` goes within the flow, locking A's port on the first
    /// A→B frame when it was not given.
    fn classify(&mut self, fields: &TcpFrameFields) -> Option<FlowDirection> {
        let (a, b) = (self.flow.a, self.flow.b);
        if fields.dst == b && *fields.src.ip() == *a.ip() {
            if a.port() == 0 {
                // Lock onto the connection whose SYN we see, or failing that
                // onto the first segment of A towards B.
                self.flow.a = fields.src;
                self.evidence.flow_a = fields.src;
                return Some(FlowDirection::AToB);
            }
            return (fields.src == a).then_some(FlowDirection::AToB);
        }
        if fields.src == b && *fields.dst.ip() == *a.ip() {
            if a.port() == 0 {
                // B→A before any A→B frame: cannot tell connections apart yet.
                return None;
            }
            return (fields.dst == a).then_some(FlowDirection::BToA);
        }
        None
    }

    /// The evidence so far.
    pub fn evidence(&self) -> &EcnEvidence {
        &self.evidence
    }

    /// Mutable access for the capture edge (kernel stats, stop reason).
    pub(crate) fn evidence_mut(&mut self) -> &mut EcnEvidence {
        &mut self.evidence
    }

    /// Ends decoding and returns the evidence.
    pub fn into_evidence(self) -> EcnEvidence {
        self.evidence
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;
    use std::net::Ipv4Addr;

    const A: Ipv4Addr = Ipv4Addr::new(10, 20, 1, 2);
    const B: Ipv4Addr = Ipv4Addr::new(10, 20, 2, 2);

    fn flow(aport: u16) -> Flow {
        Flow {
            a: SocketAddrV4::new(A, aport),
            b: SocketAddrV4::new(B, 5001),
        }
    }

    struct Seg {
        from_a: bool,
        ecn: u8,
        syn: bool,
        ack: bool,
        ece: bool,
        cwr: bool,
        payload: usize,
    }

    fn seg(s: Seg) -> Vec<u8> {
        let (src, dst, sp, dp) = if s.from_a {
            (A, B, 40000, 5001)
        } else {
            (B, A, 5001, 40000)
        };
        let mut b = PacketBuilder::ethernet2([2; 6], [4; 6])
            .ipv4(src.octets(), dst.octets(), 64)
            .tcp(sp, dp, 1000, 65535);
        if s.syn {
            b = b.syn();
        }
        if s.ack {
            b = b.ack(1);
        }
        if s.ece {
            b = b.ece();
        }
        if s.cwr {
            b = b.cwr();
        }
        let payload = vec![0u8; s.payload];
        let mut out = Vec::new();
        b.write(&mut out, &payload).unwrap();
        out[15] = (out[15] & !0b11) | s.ecn;
        out
    }

    fn base() -> Seg {
        Seg {
            from_a: true,
            ecn: 0b10,
            syn: false,
            ack: true,
            ece: false,
            cwr: false,
            payload: 0,
        }
    }

    fn feed(d: &mut Decoder, f: &[u8]) {
        d.observe(
            f,
            f.len() as u32,
            CaptureDirection::Incoming,
            Duration::ZERO,
        );
    }

    #[test]
    fn handshake_negotiates_and_locks_port() {
        let mut d = Decoder::new(flow(0));
        let syn = seg(Seg {
            syn: true,
            ack: false,
            ece: true,
            cwr: true,
            ecn: 0,
            ..base()
        });
        let syn_ack = seg(Seg {
            from_a: false,
            syn: true,
            ece: true,
            ecn: 0,
            ..base()
        });
        feed(&mut d, &syn);
        assert!(!d.evidence().negotiated);
        feed(&mut d, &syn_ack);
        let r = d.into_evidence();
        assert!(r.negotiated);
        assert_eq!(r.flow_a.port(), 40000);
        assert_eq!(r.counts.cwr, 0, "the SYN's CWR is not a window reduction");
        assert_eq!(r.counts.ece, 0, "the SYN-ACK's ECE is not feedback");
        assert!(r.syn.is_some() && r.syn_ack.is_some());
    }

    #[test]
    fn syn_ack_with_cwr_is_not_classic() {
        let mut d = Decoder::new(flow(40000));
        feed(
            &mut d,
            &seg(Seg {
                syn: true,
                ack: false,
                ece: true,
                cwr: true,
                ..base()
            }),
        );
        feed(
            &mut d,
            &seg(Seg {
                from_a: false,
                syn: true,
                ece: true,
                cwr: true,
                ..base()
            }),
        );
        assert!(!d.evidence().negotiated);
    }

    #[test]
    fn counts_ce_ece_cwr_and_split() {
        let mut d = Decoder::new(flow(40000));
        feed(
            &mut d,
            &seg(Seg {
                payload: 100,
                ..base()
            }),
        );
        feed(
            &mut d,
            &seg(Seg {
                payload: 100,
                ecn: 0b01,
                ..base()
            }),
        );
        feed(
            &mut d,
            &seg(Seg {
                payload: 100,
                ecn: 0b00,
                ..base()
            }),
        );
        feed(
            &mut d,
            &seg(Seg {
                payload: 100,
                ecn: 0b11,
                ..base()
            }),
        );
        feed(
            &mut d,
            &seg(Seg {
                payload: 100,
                cwr: true,
                ..base()
            }),
        );
        feed(
            &mut d,
            &seg(Seg {
                from_a: false,
                ece: true,
                ecn: 0,
                ..base()
            }),
        );
        // another flow
        let mut other = seg(Seg {
            payload: 1,
            ..base()
        });
        other[34] = 0x99;
        feed(&mut d, &other);
        let r = d.into_evidence();
        let c = r.counts;
        assert_eq!((c.ect0, c.ect1, c.not_ect, c.ce_data), (2, 1, 1, 1));
        assert_eq!((c.ce, c.ece, c.cwr, c.other), (1, 1, 1, 1));
        assert_eq!((c.a_to_b, c.b_to_a), (5, 1));
        assert_eq!(r.first.ce.unwrap().fields.ip_ecn, IpEcnCodepoint::Ce);
        assert!(r.first.ece.unwrap().fields.flags.ece);
        assert!(r.first.cwr.unwrap().fields.flags.cwr);
    }

    #[test]
    fn truncated_capture_keeps_wire_payload_len() {
        let mut d = Decoder::new(flow(40000));
        let f = seg(Seg {
            payload: 1448,
            ecn: 0b11,
            ..base()
        });
        d.observe(
            &f[..80],
            f.len() as u32,
            CaptureDirection::Incoming,
            Duration::from_millis(5),
        );
        let r = d.into_evidence();
        assert_eq!(r.frames_truncated, 1);
        let ce = r.first.ce.unwrap();
        assert_eq!(ce.fields.payload_len, 1448);
        assert_eq!(ce.captured_len, 80);
        assert_eq!(ce.hex.len(), 160);
        assert_eq!(r.counts.ce_data, 1);
    }

    #[test]
    fn b_to_a_before_lock_is_other() {
        let mut d = Decoder::new(flow(0));
        feed(
            &mut d,
            &seg(Seg {
                from_a: false,
                ..base()
            }),
        );
        assert_eq!(d.evidence().counts.other, 1);
    }
}
