//! Writing the packet files (cargo feature `net`): the pcapng blocks built
//! with `pcap-file`, written whole within a byte cap (see [`super`]).

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::time::Duration;

use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::interface_statistics::{
    InterfaceStatisticsBlock, InterfaceStatisticsOption,
};
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::DataLink;

use super::{PcapContent, PcapCut, PcapFileRecord};

use crate::capture::RawFrame;
use crate::evidence::{
    CaptureDirection, EcnEvidence, FrameEvidence, KernelStats, StopReason, EVIDENCE_HEX_CAP,
};

/// Blocks are collected in memory up to this size before one write.
const FLUSH_AT: usize = 64 << 10;
/// Room kept under the byte cap for the closing statistics block.
const ISB_RESERVE: u64 = 256;

/// A file a [`PcapRecorder`] writes to: anything written can be cut back to
/// a shorter length, so a failed write never leaves half a block behind.
pub trait PcapTarget: Write {
    /// Shortens the file to `len` bytes and positions the writer at its end.
    fn cut_to(&mut self, len: u64) -> io::Result<()>;
    /// Makes what was written durable (fsync for a file).
    fn sync(&mut self) -> io::Result<()>;
}

impl PcapTarget for File {
    fn cut_to(&mut self, len: u64) -> io::Result<()> {
        self.set_len(len)?;
        self.seek(SeekFrom::Start(len)).map(|_| ())
    }
    fn sync(&mut self) -> io::Result<()> {
        self.sync_all()
    }
}

/// Interface and clock of a packet file.
#[derive(Debug, Clone)]
pub struct PcapHeader {
    /// Path recorded in [`PcapFileRecord::file`].
    pub file: String,
    /// Capture interface name (`b0`).
    pub ifname: String,
    /// Interface description (`B's b0 in namespace nl-…-b`).
    pub if_description: String,
    /// Wall-clock time of `t0`, since the Unix epoch.
    pub t0_unix: Duration,
}

/// Writes one pcapng file block by block, within a byte cap, surviving a
/// failed write (see the module docs).
pub struct PcapRecorder<T: PcapTarget> {
    target: Option<T>,
    ng: PcapNgWriter<Vec<u8>>,
    header: PcapHeader,
    content: PcapContent,
    snap_len: u32,
    max_bytes: u64,
    /// Bytes in the target, all whole blocks.
    committed: u64,
    /// Frames in the target.
    frames_committed: u64,
    /// Frames in the memory buffer.
    frames_pending: u64,
    frames_missing: u64,
    partial: Vec<PcapCut>,
    first_at: Option<Duration>,
}

impl<T: PcapTarget> std::fmt::Debug for PcapRecorder<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PcapRecorder")
            .field("file", &self.header.file)
            .field("committed", &self.committed)
            .field("frames_committed", &self.frames_committed)
            .finish_non_exhaustive()
    }
}

fn ng_err(e: pcap_file::PcapError) -> String {
    e.to_string()
}

impl<T: PcapTarget> PcapRecorder<T> {
    /// A recorder writing to `target` (empty, positioned at 0): the section
    /// header and interface description are written at once, so the file is
    /// valid even if nothing else fits (a failure is recorded, not raised). `snap_len` must be at least
    /// `netlab_experiment::MIN_PCAP_SNAP_LEN` for a headers file (checked
    /// where the experiment is read).
    pub fn new(
        target: T,
        header: PcapHeader,
        content: PcapContent,
        snap_len: u32,
        max_bytes: u64,
    ) -> Self {
        let section = SectionHeaderBlock {
            options: vec![
                SectionHeaderOption::UserApplication(Cow::Owned(format!(
                    "netlab {}",
                    env!("CARGO_PKG_VERSION")
                ))),
                SectionHeaderOption::Comment(Cow::Owned(match content {
                    PcapContent::Evidence => "netlab ECN evidence: the frames kept in results.json \
                         (SYN, SYN-ACK, first CE, first ECE, first CWR; method §7.5)"
                        .to_string(),
                    PcapContent::Headers => format!(
                        "netlab capture on B: every frame read, cut to {snap_len} bytes (method §7.7)"
                    ),
                })),
            ],
            ..SectionHeaderBlock::default()
        };
        let mut ng = PcapNgWriter::with_section_header(Vec::with_capacity(FLUSH_AT), section)
            .expect("writing to memory cannot fail");
        let idb = InterfaceDescriptionBlock {
            linktype: DataLink::ETHERNET,
            snaplen: snap_len,
            options: vec![
                InterfaceDescriptionOption::IfName(Cow::Owned(header.ifname.clone())),
                InterfaceDescriptionOption::IfDescription(Cow::Owned(
                    header.if_description.clone(),
                )),
                InterfaceDescriptionOption::IfTsResol(9),
                InterfaceDescriptionOption::IfOs(Cow::Borrowed("Linux")),
            ],
        };
        ng.write_pcapng_block(idb)
            .expect("writing to memory cannot fail");
        let mut rec = PcapRecorder {
            target: Some(target),
            ng,
            header,
            content,
            snap_len,
            max_bytes,
            committed: 0,
            frames_committed: 0,
            frames_pending: 0,
            frames_missing: 0,
            partial: Vec::new(),
            first_at: None,
        };
        // The file is valid from here on (a section with its interface),
        // even if no frame ever fits after it.
        rec.flush();
        rec
    }

    /// Bytes in the file plus those waiting in memory.
    fn size(&self) -> u64 {
        self.committed + self.ng.get_ref().len() as u64
    }

    /// Whether a cut already stopped the writing of frames.
    fn stopped(&self) -> bool {
        self.partial
            .iter()
            .any(|c| matches!(c, PcapCut::ByteCap { .. } | PcapCut::WriteFailed { .. }))
    }

    /// Adds one frame read `at` after t0, cut to the snap length, with an
    /// optional comment.
    pub fn frame(&mut self, frame: &RawFrame<'_>, comment: Option<&str>) {
        self.push(
            frame.bytes,
            frame.orig_len,
            frame.direction,
            frame.at,
            comment,
        );
    }

    fn push(
        &mut self,
        bytes: &[u8],
        orig_len: u32,
        direction: CaptureDirection,
        at: Duration,
        comment: Option<&str>,
    ) {
        if self.stopped() {
            self.frames_missing += 1;
            return;
        }
        let data = &bytes[..bytes.len().min(self.snap_len as usize)];
        let mut options = Vec::new();
        if let Some(c) = comment {
            options.push(EnhancedPacketOption::Comment(Cow::Owned(c.to_string())));
        }
        // EPB flags, bits 0–1: 01 inbound, 10 outbound.
        match direction {
            CaptureDirection::Incoming => options.push(EnhancedPacketOption::Flags(1)),
            CaptureDirection::Outgoing => options.push(EnhancedPacketOption::Flags(2)),
            CaptureDirection::Other(_) => {}
        }
        let epb = EnhancedPacketBlock {
            interface_id: 0,
            timestamp: self.header.t0_unix + at,
            original_len: orig_len.max(data.len() as u32),
            data: Cow::Borrowed(data),
            options,
        };
        let before = self.ng.get_ref().len();
        self.ng
            .write_pcapng_block(epb)
            .expect("writing to memory cannot fail");
        if self.size() + ISB_RESERVE > self.max_bytes {
            // Take the block back out: the cap is never exceeded.
            self.ng.get_mut().truncate(before);
            self.partial.push(PcapCut::ByteCap {
                max_bytes: self.max_bytes,
            });
            self.frames_missing += 1;
            return;
        }
        self.first_at.get_or_insert(at);
        self.frames_pending += 1;
        if self.ng.get_ref().len() >= FLUSH_AT {
            self.flush();
        }
    }

    /// Writes the memory buffer to the target in one go; on failure cuts the
    /// target back to its last complete block and stops writing.
    fn flush(&mut self) {
        let buf = std::mem::take(self.ng.get_mut());
        let Some(target) = self.target.as_mut() else {
            self.frames_missing += self.frames_pending;
            self.frames_pending = 0;
            return;
        };
        match target.write_all(&buf).and_then(|_| target.flush()) {
            Ok(()) => {
                self.committed += buf.len() as u64;
                self.frames_committed += self.frames_pending;
            }
            Err(e) => {
                // Best effort: if even the cut fails the file may end
                // mid-block; the record says writing failed either way.
                let cut = target.cut_to(self.committed);
                let error = match cut {
                    Ok(()) => e.to_string(),
                    Err(c) => format!("{e}; cutting back to the last block also failed: {c}"),
                };
                self.partial.push(PcapCut::WriteFailed { error });
                self.frames_missing += self.frames_pending;
                self.target = None;
            }
        }
        self.frames_pending = 0;
        let mut reuse = buf;
        reuse.clear();
        *self.ng.get_mut() = reuse;
    }

    /// Closes the file: an Interface Statistics Block (when `kernel` is
    /// known: `isb_ifrecv` = frames offered to the socket, `isb_osdrop` =
    /// frames the kernel dropped, `isb_usrdeliv` = frames in this file),
    /// a last flush and fsync. `capture_stop` and the kernel's drops add
    /// their cut when they made the file partial.
    pub fn finish(
        mut self,
        kernel: Option<KernelStats>,
        capture_stop: Option<StopReason>,
        end_at: Duration,
    ) -> PcapFileRecord {
        if self.content == PcapContent::Headers {
            match capture_stop {
                Some(StopReason::FrameLimit) => self.partial.push(PcapCut::CaptureFrameLimit),
                Some(StopReason::Deadline) => self.partial.push(PcapCut::CaptureDeadline),
                Some(StopReason::Stopped) | None => {}
            }
            if let Some(k) = kernel.filter(|k| k.drops > 0) {
                self.partial.push(PcapCut::KernelDrops { drops: k.drops });
            }
        }
        if self.target.is_some() {
            let frames = self.frames_committed + self.frames_pending;
            let ts = |d: Duration| (self.header.t0_unix + d).as_nanos() as u64;
            let mut options = vec![
                InterfaceStatisticsOption::IsbStartTime(ts(self.first_at.unwrap_or(end_at))),
                InterfaceStatisticsOption::IsbEndTime(ts(end_at)),
                InterfaceStatisticsOption::IsbUsrDeliv(frames),
            ];
            if let Some(k) = kernel {
                options.push(InterfaceStatisticsOption::IsbIfRecv(k.packets));
                options.push(InterfaceStatisticsOption::IsbOsDrop(k.drops));
                options.push(InterfaceStatisticsOption::Comment(Cow::Owned(format!(
                    "PACKET_STATISTICS of the capture socket: {} frames offered, {} dropped by the kernel",
                    k.packets, k.drops
                ))));
            }
            let isb = InterfaceStatisticsBlock {
                interface_id: 0,
                timestamp: ts(end_at),
                options,
            };
            if let Err(e) = self.ng.write_pcapng_block(isb).map_err(ng_err) {
                self.partial.push(PcapCut::WriteFailed { error: e });
            }
            self.flush();
            if let Some(t) = self.target.as_mut() {
                if let Err(e) = t.sync() {
                    self.partial.push(PcapCut::WriteFailed {
                        error: format!("fsync: {e}"),
                    });
                }
            }
        }
        PcapFileRecord {
            file: self.header.file.clone(),
            content: self.content,
            snap_len: self.snap_len,
            frames: self.frames_committed,
            frames_missing: self.frames_missing,
            bytes: self.committed,
            partial: self.partial,
        }
    }
}

/// Why a kept frame was kept, as its pcapng comment.
fn evidence_comment(kind: &str) -> &'static str {
    match kind {
        "syn" => "kept: SYN of the controlled flow (A→B), the ECN offer: ECE+CWR set means classic ECN requested (method §7.3)",
        "syn_ack" => "kept: SYN-ACK of the controlled flow (B→A), the ECN answer: ECE without CWR means classic ECN accepted (method §7.3)",
        "ce" => "kept: first CE-marked A→B frame of the flow (IP ECN = 11; method §7.4)",
        "ece" => "kept: first non-SYN B→A frame of the flow with ECE, the receiver echoing CE (method §7.4)",
        _ => "kept: first non-SYN A→B frame of the flow with CWR, the sender's window reduction (method §7.4; CWR alone is not proof of CE feedback)",
    }
}

/// The kept frames of `evidence` in time order, one entry per distinct frame
/// with every reason it was kept.
fn kept_frames(evidence: &EcnEvidence) -> Vec<(&FrameEvidence, String)> {
    let all = [
        ("syn", evidence.syn.as_ref()),
        ("syn_ack", evidence.syn_ack.as_ref()),
        ("ce", evidence.first.ce.as_ref()),
        ("ece", evidence.first.ece.as_ref()),
        ("cwr", evidence.first.cwr.as_ref()),
    ];
    let mut out: Vec<(&FrameEvidence, String)> = Vec::new();
    for (kind, ev) in all {
        let Some(ev) = ev else { continue };
        let why = evidence_comment(kind);
        match out
            .iter_mut()
            .find(|(e, _)| e.at_s == ev.at_s && e.hex == ev.hex)
        {
            Some((_, c)) => {
                c.push_str("; ");
                c.push_str(why);
            }
            None => out.push((ev, why.to_string())),
        }
    }
    out.sort_by(|a, b| a.0.at_s.total_cmp(&b.0.at_s));
    out
}

/// The frame bytes results.json keeps as hex (our own lowercase encoding;
/// anything else is an empty frame, not a panic).
fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_default()
}

/// Writes the evidence file of `evidence` to `target`: its kept frames (the
/// leading [`EVIDENCE_HEX_CAP`] bytes results.json holds) with their
/// reasons, and the capture's statistics.
pub fn write_evidence<T: PcapTarget>(
    target: T,
    header: PcapHeader,
    evidence: &EcnEvidence,
) -> PcapFileRecord {
    let mut rec = PcapRecorder::new(
        target,
        header,
        PcapContent::Evidence,
        EVIDENCE_HEX_CAP as u32,
        u64::MAX,
    );
    for (ev, why) in kept_frames(evidence) {
        let bytes = unhex(&ev.hex);
        let at = Duration::from_secs_f64(ev.at_s.max(0.0));
        rec.push(
            &bytes,
            ev.orig_len,
            ev.capture_direction,
            at,
            Some(why.as_str()),
        );
    }
    let end = Duration::from_secs_f64(evidence.duration_s.max(0.0));
    rec.finish(evidence.kernel, evidence.stop_reason, end)
}

#[cfg(test)]
mod tests;
