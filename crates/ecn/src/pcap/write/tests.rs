//! Unit tests of the pcapng writer: a test double for a disk that fills,
//! files parsed back with pcap-file's reader.

use super::*;
use pcap_file::pcapng::{Block, PcapNgReader};

/// A target in memory that fails every write after `room` bytes, the
/// way a full disk does (a partial write, then ENOSPC).
#[derive(Default)]
pub(crate) struct SmallDisk {
    pub bytes: Vec<u8>,
    pub room: usize,
}

impl Write for SmallDisk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let left = self.room.saturating_sub(self.bytes.len());
        if left == 0 {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        let n = buf.len().min(left);
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl PcapTarget for &mut SmallDisk {
    fn cut_to(&mut self, len: u64) -> io::Result<()> {
        self.bytes.truncate(len as usize);
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn header() -> PcapHeader {
    PcapHeader {
        file: "pcap/x.pcapng".into(),
        ifname: "b0".into(),
        if_description: "test".into(),
        t0_unix: Duration::from_secs(1_700_000_000),
    }
}

/// Every block of a pcapng file after its section header, or the parse error.
fn blocks(bytes: &[u8]) -> Result<Vec<Block<'static>>, String> {
    let mut r = PcapNgReader::new(bytes).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(b) = r.next_block() {
        out.push(b.map_err(|e| e.to_string())?.into_owned());
    }
    Ok(out)
}

fn frame(len: usize) -> Vec<u8> {
    vec![0xab; len]
}

fn raw(bytes: &[u8], at_ms: u64) -> RawFrame<'_> {
    RawFrame {
        bytes,
        orig_len: 1514,
        direction: CaptureDirection::Incoming,
        at: Duration::from_millis(at_ms),
    }
}

#[test]
fn empty_capture_is_a_valid_file() {
    let mut disk = SmallDisk {
        room: usize::MAX,
        ..SmallDisk::default()
    };
    let rec = PcapRecorder::new(&mut disk, header(), PcapContent::Headers, 128, 1 << 20);
    let r = rec.finish(
        Some(KernelStats {
            packets: 0,
            drops: 0,
        }),
        Some(StopReason::Stopped),
        Duration::from_secs(1),
    );
    assert!(r.is_complete(), "{r:?}");
    assert_eq!(r.frames, 0);
    let b = blocks(&disk.bytes).unwrap();
    assert_eq!(b.len(), 2, "IDB, ISB after the SHB: {b:?}");
    assert!(matches!(b[1], Block::InterfaceStatistics(_)));
    assert_eq!(r.bytes, disk.bytes.len() as u64);
}

#[test]
fn frames_are_cut_to_the_snap_and_timed_from_t0() {
    let mut disk = SmallDisk {
        room: usize::MAX,
        ..SmallDisk::default()
    };
    let mut rec = PcapRecorder::new(&mut disk, header(), PcapContent::Headers, 100, 1 << 20);
    let f = frame(256);
    rec.frame(&raw(&f, 1500), Some("why"));
    let r = rec.finish(
        Some(KernelStats {
            packets: 5,
            drops: 4,
        }),
        Some(StopReason::Stopped),
        Duration::from_secs(2),
    );
    assert_eq!(r.frames, 1);
    let b = blocks(&disk.bytes).unwrap();
    let Block::EnhancedPacket(epb) = &b[1] else {
        panic!("{b:?}")
    };
    assert_eq!(epb.data.len(), 100);
    assert_eq!(epb.original_len, 1514);
    assert_eq!(
        epb.timestamp,
        Duration::from_secs(1_700_000_000) + Duration::from_millis(1500)
    );
    assert!(epb
        .options
        .contains(&EnhancedPacketOption::Comment("why".into())));
    let Block::InterfaceStatistics(isb) = &b[2] else {
        panic!("{b:?}")
    };
    for o in [
        InterfaceStatisticsOption::IsbUsrDeliv(1),
        InterfaceStatisticsOption::IsbIfRecv(5),
        InterfaceStatisticsOption::IsbOsDrop(4),
    ] {
        assert!(isb.options.contains(&o), "{o:?} in {isb:?}");
    }
    assert!(
        r.partial.contains(&PcapCut::KernelDrops { drops: 4 }),
        "{r:?}"
    );
}

#[test]
fn byte_cap_stops_writing_and_marks_partial() {
    let mut disk = SmallDisk {
        room: usize::MAX,
        ..SmallDisk::default()
    };
    let mut rec = PcapRecorder::new(&mut disk, header(), PcapContent::Headers, 128, 4096);
    let f = frame(128);
    for i in 0..100 {
        rec.frame(&raw(&f, i), None);
    }
    let r = rec.finish(None, Some(StopReason::Stopped), Duration::from_secs(1));
    assert!(r.frames > 0 && r.frames < 100, "{r:?}");
    assert_eq!(r.frames + r.frames_missing, 100);
    assert_eq!(r.partial, vec![PcapCut::ByteCap { max_bytes: 4096 }]);
    assert!(r.bytes <= 4096);
    let b = blocks(&disk.bytes).unwrap();
    assert_eq!(b.len() as u64, 1 + r.frames + 1, "IDB, frames, ISB");
}

#[test]
fn a_full_disk_ends_the_file_at_its_last_whole_block() {
    // Room for the header and part of the second 64 KiB flush.
    let mut disk = SmallDisk {
        room: 100_000,
        ..SmallDisk::default()
    };
    let mut rec = PcapRecorder::new(&mut disk, header(), PcapContent::Headers, 128, 1 << 30);
    let f = frame(128);
    for i in 0..2000 {
        rec.frame(&raw(&f, i), None);
    }
    let r = rec.finish(
        Some(KernelStats {
            packets: 2000,
            drops: 0,
        }),
        Some(StopReason::Stopped),
        Duration::from_secs(3),
    );
    assert!(
        matches!(&r.partial[..], [PcapCut::WriteFailed { error }] if error.contains("No space left")),
        "{r:?}"
    );
    assert!(r.frames > 0 && r.frames < 2000, "{r:?}");
    assert_eq!(r.frames + r.frames_missing, 2000);
    assert_eq!(r.bytes, disk.bytes.len() as u64);
    // Valid to its end: SHB, IDB and exactly the frames recorded.
    let b = blocks(&disk.bytes).expect("a valid pcapng after the cut");
    assert_eq!(b.len() as u64, 1 + r.frames, "IDB and the frames");
}

#[test]
fn a_disk_full_from_the_start_leaves_an_empty_file_recorded_as_failed() {
    let mut disk = SmallDisk {
        room: 10,
        ..SmallDisk::default()
    };
    let rec = PcapRecorder::new(&mut disk, header(), PcapContent::Evidence, 128, u64::MAX);
    let r = rec.finish(None, None, Duration::ZERO);
    assert!(disk.bytes.is_empty());
    assert_eq!(r.bytes, 0);
    assert!(!r.is_complete());
}

#[test]
fn evidence_of_a_real_capture_holds_every_kept_frame_with_its_reason() {
    // fixtures/ecn/guest-report.json: a real fq_codel capture in the guest.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/ecn/guest-report.json"
    ))
    .expect("fixture");
    let evidence: EcnEvidence = serde_json::from_str(&text).unwrap();
    let mut disk = SmallDisk {
        room: usize::MAX,
        ..SmallDisk::default()
    };
    let r = write_evidence(&mut disk, header(), &evidence);
    assert!(r.is_complete(), "{r:?}");
    assert_eq!(r.frames, 5, "SYN, SYN-ACK, CE, ECE, CWR");
    let b = blocks(&disk.bytes).unwrap();
    let epbs: Vec<_> = b
        .iter()
        .filter_map(|b| match b {
            Block::EnhancedPacket(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(epbs.len(), 5);
    let syn = evidence.syn.as_ref().unwrap();
    assert_eq!(epbs[0].data.as_ref(), unhex(&syn.hex).as_slice());
    assert_eq!(
        epbs[0].timestamp,
        Duration::from_secs(1_700_000_000) + Duration::from_secs_f64(syn.at_s)
    );
    let comments: Vec<String> = epbs
        .iter()
        .map(|e| match &e.options[0] {
            EnhancedPacketOption::Comment(c) => c.to_string(),
            o => panic!("{o:?}"),
        })
        .collect();
    assert!(comments[0].contains("SYN of the controlled flow"));
    for kind in ["first CE-marked", "with ECE", "with CWR"] {
        assert!(comments.iter().any(|c| c.contains(kind)), "{comments:?}");
    }
}

#[test]
fn a_frame_kept_for_two_reasons_is_written_once() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/ecn/guest-report.json"
    ))
    .expect("fixture");
    let mut evidence: EcnEvidence = serde_json::from_str(&text).unwrap();
    evidence.first.cwr = evidence.first.ce.clone();
    let kept = kept_frames(&evidence);
    assert_eq!(kept.len(), 4);
    assert!(kept
        .iter()
        .any(|(_, c)| c.contains("CE-marked") && c.contains("CWR")));
}
