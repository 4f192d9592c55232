//! The records a load leaves, as results.json holds them: the sender's
//! log and how it ended, B's receiver log, the tcp_info sampler's samples
//! and log. Plain serde types; the sockets that fill them are
//! [`crate::sender`], [`crate::sink`] and [`crate::sampler`] (cargo
//! feature `net`), which re-export them under their old paths.

use std::io::ErrorKind;
use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use crate::goodput::RecvLog;
use crate::pattern::Validation;
use crate::tcp_info::TcpInfo;

/// The controlled flow's 4-tuple as seen from the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowId {
    /// Sender's local address and port.
    pub local: SocketAddr,
    /// Receiver's address and port.
    pub remote: SocketAddr,
}

/// Socket memory counters (`INET_DIAG_SKMEMINFO`, `ss -m` `skmem:(…)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkMemInfo {
    /// `r`: sk_rmem_alloc.
    pub rmem_alloc: u32,
    /// `rb`: sk_rcvbuf.
    pub rcvbuf: u32,
    /// `t`: sk_wmem_alloc.
    pub wmem_alloc: u32,
    /// `tb`: sk_sndbuf.
    pub sndbuf: u32,
    /// `f`: sk_forward_alloc.
    pub fwd_alloc: u32,
    /// `w`: sk_wmem_queued.
    pub wmem_queued: u32,
    /// `o`: sk_omem_alloc.
    pub optmem: u32,
    /// `bl`: backlog length.
    pub backlog: u32,
    /// `d`: drops.
    pub drops: u32,
}

/// One socket's sock_diag record: header fields plus decoded attributes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagRecord {
    /// TCP state from the diag header.
    pub state: u8,
    /// Socket inode.
    pub inode: u32,
    /// Bytes in the receive queue (header `idiag_rqueue`).
    pub recv_queue: u32,
    /// Bytes in the send queue (header `idiag_wqueue`).
    pub send_queue: u32,
    /// `INET_DIAG_INFO`, decoded (None if the kernel sent none).
    pub info: Option<TcpInfo>,
    /// `INET_DIAG_CONG`: the congestion control algorithm.
    pub congestion: Option<String>,
    /// `INET_DIAG_SKMEMINFO` (read as `skmem` too, its name in files
    /// written before it took the attribute's).
    #[serde(alias = "skmem")]
    pub skmeminfo: Option<SkMemInfo>,
}

/// One TCP state sample with its actual start and end times (seconds since
/// t0): the query was sent at `start_s`, the answer complete at `end_s`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TcpSample {
    /// When the query started, seconds since t0.
    pub start_s: f64,
    /// When the answer was complete, seconds since t0.
    pub end_s: f64,
    /// The kernel's record for the flow.
    #[serde(flatten)]
    pub record: DiagRecord,
}

/// Why the sampler stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SamplerEnd {
    /// [`SamplerHandle::stop`] was called.
    Stopped,
    /// `max_duration` elapsed.
    Deadline,
}

/// Everything the sampler observed (serializable).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplerLog {
    /// The sampled flow.
    pub flow: FlowId,
    /// Nominal spacing, seconds.
    pub interval_s: f64,
    /// The samples, in time order.
    pub samples: Vec<TcpSample>,
    /// Queries whose dump did not contain the flow (socket gone or not yet
    /// there), with their start time since t0.
    pub not_found_s: Vec<f64>,
    /// Failed queries: start time since t0 and the error.
    pub errors: Vec<(f64, String)>,
    /// Why sampling ended.
    pub end: SamplerEnd,
}

/// How the controlled TCP connection ended, as seen by the receiver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpEnd {
    /// No connection was accepted before the end.
    NeverConnected,
    /// Still open at the end time; the receiver closed it (the common end).
    ClosedAtEnd,
    /// The sender closed first (recv returned 0).
    PeerClosed,
    /// The connection was reset.
    Reset,
    /// Another receive error, as text.
    Error(String),
}

/// What B's loop saw (serializable). Times are seconds since t0.
///
/// The receiver fills every field but the echo ones: `Echo` is the echo's
/// counters type (netlab-probe's `EchoStats` in netlab), and whoever
/// registered the echoes with [`Sink::run_serving`] fills `udp_echo`,
/// `echo`, `echo_error` and the `iso_echo*` fields from them afterwards;
/// a receiver without echoes leaves them empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReceiverLog<Echo> {
    /// TCP listen address.
    pub listen: SocketAddr,
    /// UDP echo address, if any.
    pub udp_echo: Option<SocketAddr>,
    /// Configured hard end, seconds after t0.
    pub duration_s: f64,
    /// When the controlled connection was accepted.
    pub accepted_s: Option<f64>,
    /// The controlled connection's peer.
    pub peer: Option<SocketAddr>,
    /// Bytes received on the controlled connection.
    pub bytes_total: u64,
    /// Pattern validation (failures expected 0).
    pub validation: Validation,
    /// Every recv block (post-recv time, length).
    pub recvs: RecvLog,
    /// How the controlled connection ended and when.
    pub tcp_end: TcpEnd,
    /// When `tcp_end` happened (the close time for `closed_at_end`).
    pub tcp_end_s: Option<f64>,
    /// Connections after the first, accepted and closed at once.
    pub extra_connections: u64,
    /// Echo counters, if the echo was served.
    pub echo: Option<Echo>,
    /// A fatal echo error (the echo stopped being served then), if any.
    pub echo_error: Option<String>,
    /// The isochronous probe's echo address, if one was served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iso_echo_addr: Option<SocketAddr>,
    /// Its counters, if it was served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iso_echo: Option<Echo>,
    /// Its fatal error (it stopped being served then), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iso_echo_error: Option<String>,
    /// When the loop stopped and closed everything.
    pub closed_s: f64,
    /// Whether the loop was stopped early by the stop flag.
    pub stopped_early: bool,
    /// `poll` wakeups (for diagnosis).
    pub wakeups: u64,
}

impl<Echo> ReceiverLog<Echo> {
    /// Records what the stop-and-wait probe's echo, served beside the
    /// receiver, served: its address, counters and fatal error.
    pub fn set_echo(&mut self, addr: Option<SocketAddr>, counters: Echo, error: Option<String>) {
        self.udp_echo = addr;
        self.echo = Some(counters);
        self.echo_error = error;
    }

    /// The same for the isochronous probe's echo (its own port).
    pub fn set_iso_echo(
        &mut self,
        addr: Option<SocketAddr>,
        counters: Echo,
        error: Option<String>,
    ) {
        self.iso_echo_addr = addr;
        self.iso_echo = Some(counters);
        self.iso_echo_error = error;
    }
}

/// How the sender ended. A close by the receiver at the common end shows up
/// as `BrokenPipe`/`ConnectionReset`: a termination kind, not an outage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The lifetime ended with the connection still writable.
    Deadline,
    /// `EPIPE`: the peer had closed.
    BrokenPipe,
    /// `ECONNRESET`: the peer reset the connection.
    ConnectionReset,
    /// `max_consecutive_stalls` send timeouts in a row without progress.
    Timeout,
    /// Any other error, as text.
    Other(String),
}

impl Termination {
    /// Classifies a write error.
    pub fn from_io(e: &std::io::Error) -> Self {
        match e.kind() {
            ErrorKind::BrokenPipe => Termination::BrokenPipe,
            ErrorKind::ConnectionReset => Termination::ConnectionReset,
            ErrorKind::WouldBlock | ErrorKind::TimedOut => Termination::Timeout,
            _ => Termination::Other(e.to_string()),
        }
    }
}

/// What the sender did (serializable). Times are seconds since t0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SenderLog {
    /// The flow.
    pub flow: FlowId,
    /// Algorithm requested with `TCP_CONGESTION` before connect.
    pub cc_requested: String,
    /// Algorithm read back after connect (equal, or connect failed).
    pub cc_readback: String,
    /// When `connect` was called.
    pub start_s: f64,
    /// When `connect` returned.
    pub connect_s: f64,
    /// When the write loop ended.
    pub end_s: f64,
    /// Bytes the socket accepted (local socket input, NOT delivered bytes).
    pub bytes_accepted: u64,
    /// Successful write calls.
    pub writes: u64,
    /// Start times (s since t0) of writes that made no progress for the
    /// send timeout (send stalls); writing continued after each.
    pub send_stalls_s: Vec<f64>,
    /// Why it ended.
    pub termination: Termination,
}
