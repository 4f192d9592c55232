//! Length-checked decoding of the kernel's `struct tcp_info` (the
//! `INET_DIAG_INFO` attribute), layout from uapi `linux/tcp.h` (pure).
//!
//! Fields are host-endian (the kernel copies the struct as is). Fields up to
//! `tcpi_delivered_ce` (200 bytes, Linux ≥ 4.18) are required; later ones
//! (`snd_wnd`, `rcv_wnd`, `rehash`, `total_rto*`) are `None` when the kernel's
//! struct is shorter. Values are the kernel's, unchanged; units are in the
//! field names (`_us` microseconds, `_ms` milliseconds, rates in bytes/s).
//!
//! By hand, not netlink-packet-sock-diag's typed `TcpInfo`: that one ends at
//! `dsack_dups` and refuses a struct shorter than its own, where netlab
//! reads the later fields above and an older kernel's shorter struct.

use serde::{Deserialize, Serialize};

use crate::TcpLoadError;

/// Named byte offsets of `struct tcp_info` fields.
mod off {
    pub const STATE: usize = 0;
    pub const CA_STATE: usize = 1;
    pub const RETRANSMITS: usize = 2;
    pub const PROBES: usize = 3;
    pub const BACKOFF: usize = 4;
    pub const OPTIONS: usize = 5;
    pub const WSCALE: usize = 6;
    pub const APP_LIMITED: usize = 7;
    pub const RTO: usize = 8;
    pub const ATO: usize = 12;
    pub const SND_MSS: usize = 16;
    pub const RCV_MSS: usize = 20;
    pub const UNACKED: usize = 24;
    pub const SACKED: usize = 28;
    pub const LOST: usize = 32;
    pub const RETRANS: usize = 36;
    pub const LAST_DATA_SENT: usize = 44;
    pub const LAST_DATA_RECV: usize = 52;
    pub const LAST_ACK_RECV: usize = 56;
    pub const PMTU: usize = 60;
    pub const RCV_SSTHRESH: usize = 64;
    pub const RTT: usize = 68;
    pub const RTTVAR: usize = 72;
    pub const SND_SSTHRESH: usize = 76;
    pub const SND_CWND: usize = 80;
    pub const ADVMSS: usize = 84;
    pub const REORDERING: usize = 88;
    pub const RCV_RTT: usize = 92;
    pub const RCV_SPACE: usize = 96;
    pub const TOTAL_RETRANS: usize = 100;
    pub const PACING_RATE: usize = 104;
    pub const MAX_PACING_RATE: usize = 112;
    pub const BYTES_ACKED: usize = 120;
    pub const BYTES_RECEIVED: usize = 128;
    pub const SEGS_OUT: usize = 136;
    pub const SEGS_IN: usize = 140;
    pub const NOTSENT_BYTES: usize = 144;
    pub const MIN_RTT: usize = 148;
    pub const DATA_SEGS_IN: usize = 152;
    pub const DATA_SEGS_OUT: usize = 156;
    pub const DELIVERY_RATE: usize = 160;
    pub const BUSY_TIME: usize = 168;
    pub const RWND_LIMITED: usize = 176;
    pub const SNDBUF_LIMITED: usize = 184;
    pub const DELIVERED: usize = 192;
    pub const DELIVERED_CE: usize = 196;
    pub const BYTES_SENT: usize = 200;
    pub const BYTES_RETRANS: usize = 208;
    pub const DSACK_DUPS: usize = 216;
    pub const REORD_SEEN: usize = 220;
    pub const RCV_OOOPACK: usize = 224;
    pub const SND_WND: usize = 228;
    pub const RCV_WND: usize = 232;
    pub const REHASH: usize = 236;
    pub const TOTAL_RTO: usize = 240;
    pub const TOTAL_RTO_RECOVERIES: usize = 242;
    pub const TOTAL_RTO_TIME: usize = 244;
}

/// Minimum `tcp_info` length we accept (through `tcpi_delivered_ce`).
pub const MIN_TCP_INFO_LEN: usize = off::DELIVERED_CE + 4;

/// A length-checked view over raw `tcp_info` bytes.
#[derive(Debug, Clone, Copy)]
pub struct TcpInfoView<'a> {
    buf: &'a [u8],
}

impl<'a> TcpInfoView<'a> {
    /// Checks the length up front; accessors cannot panic afterwards.
    pub fn new(buf: &'a [u8]) -> Result<Self, TcpLoadError> {
        if buf.len() < MIN_TCP_INFO_LEN {
            return Err(TcpLoadError::Decode {
                what: "INET_DIAG_INFO (struct tcp_info)",
                len: buf.len(),
                need: MIN_TCP_INFO_LEN,
            });
        }
        Ok(Self { buf })
    }

    /// Length of the kernel's struct.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Always false (the view is at least [`MIN_TCP_INFO_LEN`] long).
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    fn u8(&self, at: usize) -> u8 {
        self.buf[at]
    }
    fn u16_opt(&self, at: usize) -> Option<u16> {
        let b = self.buf.get(at..at + 2)?;
        Some(u16::from_ne_bytes([b[0], b[1]]))
    }
    fn u32_opt(&self, at: usize) -> Option<u32> {
        let b = self.buf.get(at..at + 4)?;
        Some(u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64_opt(&self, at: usize) -> Option<u64> {
        let b = self.buf.get(at..at + 8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Some(u64::from_ne_bytes(a))
    }
    // Required fields lie below MIN_TCP_INFO_LEN, checked in `new`.
    fn u32(&self, at: usize) -> u32 {
        self.u32_opt(at).unwrap_or(0)
    }
    fn u64(&self, at: usize) -> u64 {
        self.u64_opt(at).unwrap_or(0)
    }

    /// Decodes every field into an owned [`TcpInfo`].
    pub fn decode(&self) -> TcpInfo {
        let wscale = self.u8(off::WSCALE);
        TcpInfo {
            info_len: self.buf.len(),
            state: self.u8(off::STATE),
            ca_state: self.u8(off::CA_STATE),
            retransmits: self.u8(off::RETRANSMITS),
            probes: self.u8(off::PROBES),
            backoff: self.u8(off::BACKOFF),
            options: self.u8(off::OPTIONS),
            snd_wscale: wscale & 0x0f,
            rcv_wscale: wscale >> 4,
            delivery_rate_app_limited: self.u8(off::APP_LIMITED) & 1 == 1,
            rto_us: self.u32(off::RTO),
            ato_us: self.u32(off::ATO),
            mss: self.u32(off::SND_MSS),
            rcv_mss: self.u32(off::RCV_MSS),
            unacked: self.u32(off::UNACKED),
            sacked: self.u32(off::SACKED),
            lost: self.u32(off::LOST),
            retrans: self.u32(off::RETRANS),
            last_data_sent_ms: self.u32(off::LAST_DATA_SENT),
            last_data_recv_ms: self.u32(off::LAST_DATA_RECV),
            last_ack_recv_ms: self.u32(off::LAST_ACK_RECV),
            pmtu: self.u32(off::PMTU),
            rcv_ssthresh: self.u32(off::RCV_SSTHRESH),
            rtt_us: self.u32(off::RTT),
            rttvar_us: self.u32(off::RTTVAR),
            ssthresh: self.u32(off::SND_SSTHRESH),
            cwnd: self.u32(off::SND_CWND),
            advmss: self.u32(off::ADVMSS),
            reordering: self.u32(off::REORDERING),
            rcv_rtt_us: self.u32(off::RCV_RTT),
            rcv_space: self.u32(off::RCV_SPACE),
            total_retrans: self.u32(off::TOTAL_RETRANS),
            pacing_rate: self.u64(off::PACING_RATE),
            max_pacing_rate: self.u64(off::MAX_PACING_RATE),
            bytes_acked: self.u64(off::BYTES_ACKED),
            bytes_received: self.u64(off::BYTES_RECEIVED),
            segs_out: self.u32(off::SEGS_OUT),
            segs_in: self.u32(off::SEGS_IN),
            notsent_bytes: self.u32(off::NOTSENT_BYTES),
            min_rtt_us: self.u32(off::MIN_RTT),
            data_segs_in: self.u32(off::DATA_SEGS_IN),
            data_segs_out: self.u32(off::DATA_SEGS_OUT),
            delivery_rate: self.u64(off::DELIVERY_RATE),
            busy_time_us: self.u64(off::BUSY_TIME),
            rwnd_limited_us: self.u64(off::RWND_LIMITED),
            sndbuf_limited_us: self.u64(off::SNDBUF_LIMITED),
            delivered: self.u32(off::DELIVERED),
            delivered_ce: self.u32(off::DELIVERED_CE),
            bytes_sent: self.u64_opt(off::BYTES_SENT),
            bytes_retrans: self.u64_opt(off::BYTES_RETRANS),
            dsack_dups: self.u32_opt(off::DSACK_DUPS),
            reord_seen: self.u32_opt(off::REORD_SEEN),
            rcv_ooopack: self.u32_opt(off::RCV_OOOPACK),
            snd_wnd: self.u32_opt(off::SND_WND),
            rcv_wnd: self.u32_opt(off::RCV_WND),
            rehash: self.u32_opt(off::REHASH),
            total_rto: self.u16_opt(off::TOTAL_RTO),
            total_rto_recoveries: self.u16_opt(off::TOTAL_RTO_RECOVERIES),
            total_rto_time_ms: self.u32_opt(off::TOTAL_RTO_TIME),
        }
    }
}

/// `ssthresh` value the kernel reports before the first loss
/// (`TCP_INFINITE_SSTHRESH`); `ss` omits the field then.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// The kernel's `struct tcp_info`, decoded (serializable). Names follow
/// `tcpi_*` except `mss` (`tcpi_snd_mss`), `cwnd` (`tcpi_snd_cwnd`) and
/// `ssthresh` (`tcpi_snd_ssthresh`, [`INFINITE_SSTHRESH`] before any loss).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpInfo {
    /// Length of the struct the kernel sent.
    pub info_len: usize,
    /// TCP state (1 = ESTABLISHED, …).
    pub state: u8,
    /// Congestion-avoidance state (0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss).
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    /// TCPI_OPT_* bits (1 TS, 2 SACK, 4 WSCALE, 8 ECN, 16 ECN_SEEN, 32 SYN_DATA).
    pub options: u8,
    pub snd_wscale: u8,
    pub rcv_wscale: u8,
    pub delivery_rate_app_limited: bool,
    pub rto_us: u32,
    pub ato_us: u32,
    /// `tcpi_snd_mss`.
    pub mss: u32,
    pub rcv_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub last_data_sent_ms: u32,
    pub last_data_recv_ms: u32,
    pub last_ack_recv_ms: u32,
    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    /// Smoothed RTT.
    pub rtt_us: u32,
    pub rttvar_us: u32,
    /// `tcpi_snd_ssthresh`.
    pub ssthresh: u32,
    /// `tcpi_snd_cwnd` (segments).
    pub cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,
    pub rcv_rtt_us: u32,
    pub rcv_space: u32,
    pub total_retrans: u32,
    /// Bytes per second.
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub notsent_bytes: u32,
    pub min_rtt_us: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
    /// Bytes per second.
    pub delivery_rate: u64,
    pub busy_time_us: u64,
    pub rwnd_limited_us: u64,
    pub sndbuf_limited_us: u64,
    /// Segments delivered.
    pub delivered: u32,
    /// Segments delivered with CE echoed.
    pub delivered_ce: u32,
    pub bytes_sent: Option<u64>,
    pub bytes_retrans: Option<u64>,
    pub dsack_dups: Option<u32>,
    pub reord_seen: Option<u32>,
    pub rcv_ooopack: Option<u32>,
    /// Peer's advertised window after scaling (bytes).
    pub snd_wnd: Option<u32>,
    /// Our advertised window after scaling (bytes).
    pub rcv_wnd: Option<u32>,
    pub rehash: Option<u32>,
    pub total_rto: Option<u16>,
    pub total_rto_recoveries: Option<u16>,
    pub total_rto_time_ms: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_short_is_an_error_naming_the_attribute() {
        let err = TcpInfoView::new(&[0u8; 199]).unwrap_err();
        assert!(
            matches!(
                err,
                TcpLoadError::Decode {
                    what: "INET_DIAG_INFO (struct tcp_info)",
                    len: 199,
                    need: 200,
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn synthetic_fields_land_at_their_offsets() {
        let mut b = vec![0u8; MIN_TCP_INFO_LEN];
        b[off::STATE] = 1;
        b[off::WSCALE] = 0x97; // rcv 9, snd 7
        b[off::RTT..off::RTT + 4].copy_from_slice(&1234u32.to_ne_bytes());
        b[off::SND_CWND..off::SND_CWND + 4].copy_from_slice(&10u32.to_ne_bytes());
        b[off::BYTES_ACKED..off::BYTES_ACKED + 8].copy_from_slice(&(1u64 << 40).to_ne_bytes());
        b[off::DELIVERED_CE..off::DELIVERED_CE + 4].copy_from_slice(&3u32.to_ne_bytes());
        let i = TcpInfoView::new(&b).unwrap().decode();
        assert_eq!(i.state, 1);
        assert_eq!((i.snd_wscale, i.rcv_wscale), (7, 9));
        assert_eq!(i.rtt_us, 1234);
        assert_eq!(i.cwnd, 10);
        assert_eq!(i.bytes_acked, 1 << 40);
        assert_eq!(i.delivered_ce, 3);
        assert_eq!(i.snd_wnd, None);
        assert_eq!(i.bytes_sent, None);
        assert_eq!(i.info_len, 200);
    }

    #[test]
    fn optional_tail_fields_appear_with_length() {
        let mut b = vec![0u8; 236];
        b[off::SND_WND..off::SND_WND + 4].copy_from_slice(&65535u32.to_ne_bytes());
        b[off::RCV_WND..off::RCV_WND + 4].copy_from_slice(&4242u32.to_ne_bytes());
        let i = TcpInfoView::new(&b).unwrap().decode();
        assert_eq!(i.snd_wnd, Some(65535));
        assert_eq!(i.rcv_wnd, Some(4242));
        assert_eq!(i.rehash, None);
    }
}
