//! Packet files people can open (method §7.7): pcapng written with the
//! `pcap-file` crate, never by hand.
//!
//! Two kinds of file, both from B's capture:
//!
//! - **evidence** ([`write_evidence`]): the frames netlab keeps anyway (SYN,
//!   SYN-ACK, first CE, first ECE, first CWR), at most
//!   [`EVIDENCE_HEX_CAP`](crate::EVIDENCE_HEX_CAP) bytes each, each with its capture time, interface
//!   and a comment saying why it was kept;
//! - **headers** ([`PcapRecorder`] driven by
//!   [`Capture::run_recording`](crate::Capture::run_recording)): every frame
//!   the capture read, cut to a snap length (128 bytes by default), bounded
//!   by the capture's frame cap and deadline and by a byte cap of its own,
//!   closed with an Interface Statistics Block carrying the socket's
//!   PACKET_STATISTICS.
//!
//! A file never ends inside a block: blocks are built in memory and written
//! whole; when a write fails (a full disk) the file is cut back to the last
//! complete block, nothing more is written to it, and the record says it is
//! partial and why. A capture that saw nothing still gives a valid file
//! (section header, interface description, statistics).
//!
//! Times are the capture's own: wall-clock time of `t0` plus the frame's
//! `at_s` (when userspace read it), so `frame time − t0 = at_s` in
//! results.json; nanosecond resolution (`if_tsresol` 9).
//!
//! What results.json records of a file ([`PcapFileRecord`]) is pure and
//! here; the writer is `pcap::write` (cargo feature `net`), re-exported.

use serde::{Deserialize, Serialize};

#[cfg(feature = "net")]
mod write;
#[cfg(feature = "net")]
pub use write::{write_evidence, PcapHeader, PcapRecorder, PcapTarget};

/// What a packet file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PcapContent {
    /// The frames kept as evidence (handshake, first CE/ECE/CWR).
    Evidence,
    /// Every frame the capture read, headers up to the snap length.
    Headers,
}

/// Why a packet file does not hold every frame it should.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PcapCut {
    /// The file reached its byte cap; later frames were not written.
    ByteCap {
        /// The cap, bytes.
        max_bytes: u64,
    },
    /// Writing failed (e.g. the disk filled): the file was cut back to its
    /// last complete block and nothing more was written.
    WriteFailed {
        /// The error.
        error: String,
    },
    /// The file could not be created.
    CreateFailed {
        /// The error.
        error: String,
    },
    /// The capture stopped at its frame cap before the scenario ended.
    CaptureFrameLimit,
    /// The capture stopped at its deadline before the scenario ended.
    CaptureDeadline,
    /// The kernel dropped frames the capture socket could not take
    /// (PACKET_STATISTICS): they are in no file.
    KernelDrops {
        /// Frames dropped.
        drops: u64,
    },
}

impl std::fmt::Display for PcapCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PcapCut::ByteCap { max_bytes } => write!(f, "it reached its byte cap ({max_bytes} B)"),
            PcapCut::WriteFailed { error } => write!(
                f,
                "writing failed ({error}); the file ends at its last complete block"
            ),
            PcapCut::CreateFailed { error } => write!(f, "it could not be created ({error})"),
            PcapCut::CaptureFrameLimit => write!(f, "the capture stopped at its frame cap"),
            PcapCut::CaptureDeadline => write!(f, "the capture stopped at its deadline"),
            PcapCut::KernelDrops { drops } => write!(
                f,
                "the kernel dropped {drops} frame(s) the capture socket could not take"
            ),
        }
    }
}

/// One packet file as written, recorded in results.json.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PcapFileRecord {
    /// Path relative to the results folder (`pcap/s01-round1-fq_codel.evidence.pcapng`).
    pub file: String,
    /// What it holds.
    pub content: PcapContent,
    /// Bytes kept per frame at most.
    pub snap_len: u32,
    /// Frames in the file.
    pub frames: u64,
    /// Frames offered to it but not in it (cap reached or write failed).
    pub frames_missing: u64,
    /// Size of the file, bytes.
    pub bytes: u64,
    /// Why it is partial; empty when it is complete.
    pub partial: Vec<PcapCut>,
}

impl PcapFileRecord {
    /// A file that holds everything it should.
    pub fn is_complete(&self) -> bool {
        self.partial.is_empty()
    }

    /// A record for a file that could not be created at all.
    pub fn not_created(file: String, content: PcapContent, snap_len: u32, error: String) -> Self {
        PcapFileRecord {
            file,
            content,
            snap_len,
            frames: 0,
            frames_missing: 0,
            bytes: 0,
            partial: vec![PcapCut::CreateFailed { error }],
        }
    }
}
