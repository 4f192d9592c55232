//! The bounded capture loop on B's interface.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use socket2::Socket;

use crate::decode::{Decoder, Flow};
use crate::evidence::{CaptureDirection, EcnEvidence, KernelStats, StopReason};
use crate::pcap::{PcapFileRecord, PcapRecorder, PcapTarget};
use crate::{af_packet, EcnError};

/// Bounds and buffer sizes of one capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureConfig {
    /// Stop after reading this many frames (method §7: 50 000).
    pub max_frames: u64,
    /// Stop this long after [`Capture::run`] starts (method §7: 25 s).
    pub deadline: Duration,
    /// Bytes copied per frame; the rest is cut off (MSG_TRUNC) but the
    /// original length is kept. Must hold Ethernet + IPv4 + TCP headers with
    /// options (14 + 60 + 60 = 134); at least 134 is enforced.
    pub snap_len: usize,
    /// Requested socket receive buffer (SO_RCVBUFFORCE, else SO_RCVBUF).
    pub rcvbuf_bytes: usize,
    /// Longest wait in poll, so the stop flag and deadline are honoured.
    pub poll_interval: Duration,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        CaptureConfig {
            max_frames: 50_000,
            deadline: Duration::from_secs(25),
            snap_len: 256,
            rcvbuf_bytes: 64 << 20,
            poll_interval: Duration::from_millis(20),
        }
    }
}

/// Smallest snap length that still holds maximal Ethernet/IPv4/TCP headers.
pub const MIN_SNAP_LEN: usize = 14 + 60 + 60;

/// One frame as read from the socket.
#[derive(Debug, Clone, Copy)]
pub struct RawFrame<'a> {
    /// Captured bytes (at most the snap length).
    pub bytes: &'a [u8],
    /// Length of the frame in the kernel.
    pub orig_len: u32,
    /// Direction from `sll_pkttype`.
    pub direction: CaptureDirection,
    /// Time since `t0` when userspace read it.
    pub at: Duration,
}

/// An AF_PACKET socket bound to one interface, receiving every ethertype.
///
/// Open it inside B's namespace *before* the TCP connect (so the handshake is
/// seen), then move it to any thread and call [`Capture::run`].
#[derive(Debug)]
pub struct Capture {
    socket: Socket,
    ifname: String,
    ifindex: u32,
    rcvbuf: usize,
    cfg: CaptureConfig,
}

// A capture is opened in B's namespace and moved to its own thread: the
// build fails if it stops being `Send`.
const _: fn() = || {
    fn moves_between_threads<T: Send>() {}
    moves_between_threads::<Capture>();
};

impl Capture {
    /// Opens and binds the socket to `ifname` in the calling thread's network
    /// namespace (call it inside `Netns::run`). Frames are queued from here on.
    pub fn open(ifname: &str, cfg: CaptureConfig) -> Result<Capture, EcnError> {
        let ifindex = af_packet::ifindex(ifname)?;
        let socket = af_packet::packet_socket()?;
        let rcvbuf = af_packet::set_rcvbuf(&socket, cfg.rcvbuf_bytes)?;
        af_packet::bind_all(&socket, ifindex)?;
        Ok(Capture {
            socket,
            ifname: ifname.to_string(),
            ifindex,
            rcvbuf,
            cfg,
        })
    }

    /// The interface name the socket is bound to.
    pub fn ifname(&self) -> &str {
        &self.ifname
    }

    /// The interface index the socket is bound to.
    pub fn ifindex(&self) -> u32 {
        self.ifindex
    }

    /// The receive buffer the kernel granted, in bytes.
    pub fn rcvbuf_bytes(&self) -> usize {
        self.rcvbuf
    }

    /// Reads frames until `stop` is set, `max_frames` frames were read or the
    /// deadline passed, whichever comes first, feeding each to a [`Decoder`]
    /// for `flow`; times in the evidence are seconds since `t0`. After a stop
    /// signal the frames already queued are still read (within the bounds).
    /// Finally reads PACKET_STATISTICS and notes any kernel drops.
    pub fn run(self, flow: Flow, stop: &AtomicBool, t0: Instant) -> Result<EcnEvidence, EcnError> {
        self.run_with(flow, stop, t0, |_| {})
    }

    /// [`Capture::run`] that also writes every frame read to a pcapng file
    /// through `recorder` (method §7.7): cut to the recorder's snap length,
    /// within its byte cap, closed with the socket's PACKET_STATISTICS. The
    /// file's record says whether it holds every frame the capture read and,
    /// if not, why; a failed write never fails the capture.
    pub fn run_recording<T: PcapTarget>(
        self,
        flow: Flow,
        stop: &AtomicBool,
        t0: Instant,
        recorder: Option<PcapRecorder<T>>,
    ) -> Result<(EcnEvidence, Option<PcapFileRecord>), EcnError> {
        let mut recorder = recorder;
        let evidence = self.run_with(flow, stop, t0, |f| {
            if let Some(r) = recorder.as_mut() {
                r.frame(f, None);
            }
        })?;
        let end = Duration::from_secs_f64(evidence.duration_s.max(0.0));
        let record = recorder.map(|r| r.finish(evidence.kernel, evidence.stop_reason, end));
        Ok((evidence, record))
    }

    /// [`Capture::run`] that also hands every frame read to `on_frame`
    /// (before decoding), e.g. to dump fixtures or to count in a benchmark.
    pub fn run_with<F>(
        self,
        flow: Flow,
        stop: &AtomicBool,
        t0: Instant,
        mut on_frame: F,
    ) -> Result<EcnEvidence, EcnError>
    where
        F: FnMut(&RawFrame<'_>),
    {
        let started = Instant::now();
        let deadline = started + self.cfg.deadline;
        let sock = &self.socket;
        let mut buf = vec![0u8; self.cfg.snap_len.max(MIN_SNAP_LEN)];
        let mut decoder = Decoder::new(flow);
        let mut draining = false;
        let reason = loop {
            if decoder.evidence().frames_seen >= self.cfg.max_frames {
                break StopReason::FrameLimit;
            }
            let now = Instant::now();
            if now >= deadline {
                break if draining {
                    StopReason::Stopped
                } else {
                    StopReason::Deadline
                };
            }
            if !draining && stop.load(Ordering::Acquire) {
                draining = true;
            }
            match af_packet::recv_frame(sock, &mut buf)? {
                Some(rx) => {
                    let frame = RawFrame {
                        bytes: &buf[..rx.captured],
                        orig_len: u32::try_from(rx.orig_len).unwrap_or(u32::MAX),
                        direction: CaptureDirection::from_pkttype(rx.pkttype),
                        at: Instant::now().saturating_duration_since(t0),
                    };
                    on_frame(&frame);
                    decoder.observe(frame.bytes, frame.orig_len, frame.direction, frame.at);
                }
                None if draining => break StopReason::Stopped,
                None => {
                    let left = deadline.saturating_duration_since(now);
                    af_packet::poll_readable(sock, left.min(self.cfg.poll_interval))?;
                }
            }
        };
        let ended = Instant::now();
        let (packets, drops) = af_packet::packet_statistics(sock)?;
        let evidence = decoder.evidence_mut();
        evidence.kernel = Some(KernelStats {
            packets: u64::from(packets),
            drops: u64::from(drops),
        });
        evidence.stop_reason = Some(reason);
        evidence.duration_s = ended.saturating_duration_since(t0).as_secs_f64();
        finish_notes(evidence, &self.cfg);
        Ok(decoder.into_evidence())
    }
}

/// Adds the notes a reader needs about bounds and drops.
pub(crate) fn finish_notes(evidence: &mut EcnEvidence, cfg: &CaptureConfig) {
    if let Some(k) = evidence.kernel {
        if k.drops > 0 {
            evidence.notes.push(format!(
                "capture could not keep up: the kernel dropped {} of {} frames offered to the \
                 socket (PACKET_STATISTICS); counts are lower bounds",
                k.drops, k.packets
            ));
        }
        let unread = k
            .packets
            .saturating_sub(k.drops)
            .saturating_sub(evidence.frames_seen);
        if unread > 0 {
            evidence.notes.push(format!(
                "{unread} frames were queued but not read before the capture ended"
            ));
        }
    }
    match evidence.stop_reason {
        Some(StopReason::FrameLimit) => evidence.notes.push(format!(
            "capture stopped at the frame limit ({}); later frames were not counted",
            cfg.max_frames
        )),
        Some(StopReason::Deadline) => evidence.notes.push(format!(
            "capture stopped at its deadline ({:?}) before the stop signal; later frames were \
             not counted",
            cfg.deadline
        )),
        Some(StopReason::Stopped) | None => {}
    }
    if evidence.syn.is_none() {
        evidence
            .notes
            .push("no SYN of the flow was captured: negotiation unknown".to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, SocketAddrV4};

    #[test]
    fn drops_and_limits_are_noted() {
        let flow = Flow {
            a: SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0),
            b: SocketAddrV4::new(Ipv4Addr::LOCALHOST, 1),
        };
        let mut r = Decoder::new(flow).into_evidence();
        r.kernel = Some(KernelStats {
            packets: 10,
            drops: 3,
        });
        r.stop_reason = Some(StopReason::FrameLimit);
        finish_notes(&mut r, &CaptureConfig::default());
        assert!(r.kernel_dropped());
        assert!(r.notes.iter().any(|n| n.contains("dropped 3 of 10")));
        assert!(r.notes.iter().any(|n| n.contains("frame limit (50000)")));
        assert!(r.notes.iter().any(|n| n.contains("7 frames were queued")));
        assert!(r.notes.iter().any(|n| n.contains("no SYN")));
    }
}
