//! ECN evidence on the wire (method §7).
//!
//! An AF_PACKET socket on B's interface, opened inside B's namespace before
//! the TCP connect, reads frame headers for a bounded time (50 000 frames /
//! 25 s by default, or until a stop flag); a pure [`Decoder`] keeps the
//! untagged Ethernet/IPv4/TCP frames of the controlled flow and counts
//!
//! - the handshake: SYN with ECE+CWR and SYN-ACK with ECE → `negotiated`,
//! - CE on A→B frames, ECE on non-SYN B→A frames, CWR on non-SYN A→B frames,
//! - the ECT(0)/ECT(1)/Not-ECT split of A→B data frames,
//!
//! keeps the first frame of each kind as evidence, and reads the socket's
//! kernel drop accounting (PACKET_STATISTICS) at the end.
//!
//! [`pcap`] writes what the capture saw as pcapng (method §7.7): the kept
//! frames as an evidence file, and on request every frame's headers
//! ([`Capture::run_recording`]), within a byte cap, never ending a file
//! inside a block.
//!
//! Keeping up: only the headers are copied (`MSG_TRUNC`, 256-byte snap, the
//! original length is kept) and the receive buffer is raised to 64 MiB with
//! SO_RCVBUFFORCE. Measured on the host (`cargo bench -p netlab-ecn --bench
//! capture`): 0 drops unshaped (~14 Gbit/s, ~45 000 frames/s of 64 KiB GRO
//! frames) and under TBF 1 Gbit/s (~72 000 MTU frames/s), where the same socket
//! with the default 208 KiB buffer dropped 31–45 % of the frames.
//!
//! The cargo feature `net` (docs/architecture.md, "Pure builds") holds the
//! capture socket, the frame decoder (etherparse) and the pcapng writer
//! (pcap-file), with nix, socket2 and libc. Without it the crate is the
//! records results.json holds: [`EcnEvidence`] and its parts,
//! [`pcap::PcapFileRecord`].
//!
//! ```no_run
//! # #[cfg(feature = "net")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::net::{Ipv4Addr, SocketAddrV4};
//! use std::sync::atomic::{AtomicBool, Ordering};
//! use std::time::Instant;
//! use netlab_ecn::{Capture, CaptureConfig, Flow};
//!
//! // Inside B's namespace (e.g. `topo.b.run(|| Capture::open("b0", cfg))`):
//! let capture = Capture::open("b0", CaptureConfig::default())?;
//! let flow = Flow {
//!     a: SocketAddrV4::new(Ipv4Addr::new(10, 20, 1, 2), 0), // port learnt from the SYN
//!     b: SocketAddrV4::new(Ipv4Addr::new(10, 20, 2, 2), 5201),
//! };
//! let stop = AtomicBool::new(false);
//! let t0 = Instant::now();
//! let evidence = std::thread::scope(|s| {
//!     let h = s.spawn(|| capture.run(flow, &stop, t0));
//!     // ... connect A→B, run the load ...
//!     stop.store(true, Ordering::Release);
//!     h.join().expect("capture thread")
//! })?;
//! println!("negotiated={} ce={} drops={:?}", evidence.negotiated, evidence.counts.ce, evidence.kernel);
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "net"))] // the example needs the sockets
//! # fn main() {}
//! ```

#[cfg(feature = "net")]
mod af_packet;
#[cfg(feature = "net")]
mod capture;
#[cfg(feature = "net")]
mod decode;
mod evidence;
pub mod pcap;

#[cfg(feature = "net")]
pub use capture::{Capture, CaptureConfig, RawFrame, MIN_SNAP_LEN};
#[cfg(feature = "net")]
pub use decode::{Decoder, Flow};
pub use evidence::{
    CaptureDirection, EcnCounts, EcnEvidence, FirstEvidence, FlowDirection, FrameEvidence,
    IpEcnCodepoint, KernelStats, StopReason, TcpFlags, TcpFrameFields, ECN_EVIDENCE_SCHEMA_VERSION,
    EVIDENCE_HEX_CAP, NOTE_AGGREGATION, NOTE_CWR, NOTE_EVIDENCE,
};

/// What failed while opening or running a capture.
#[derive(Debug, thiserror::Error)]
pub enum EcnError {
    /// The interface does not exist in the calling thread's namespace.
    #[error("capture interface {name:?} not found in this network namespace")]
    InterfaceNotFound {
        /// Interface name asked for.
        name: String,
    },
    /// A socket syscall failed.
    #[error("{op} failed: {source}")]
    Syscall {
        /// The syscall and its purpose.
        op: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}
