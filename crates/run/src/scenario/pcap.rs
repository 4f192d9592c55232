//! The scenario's packet files (method §7.7): where they go in the results
//! folder, the headers file opened for the capture, and the evidence file
//! written from the capture's report once the scenario is collected.
//! Neither can fail a scenario: a file that cannot be created or written
//! is recorded as partial (with why) and every other result is kept.

use std::fs::File;
use std::path::Path;
use std::time::Duration;

use netlab_ecn::pcap::{write_evidence, PcapContent, PcapFileRecord, PcapHeader, PcapRecorder};
use netlab_ecn::EcnEvidence;
use netlab_os::atomic::{AtomicFile, Durability};

use crate::setup::ScenarioSetup;

/// Subfolder of the results folder holding the packet files.
pub const PCAP_DIR: &str = "pcap";

/// `pcap/s01-round1-fq_codel.evidence.pcapng` (relative to the results folder).
pub fn packet_file_name(plan: &ScenarioSetup, content: PcapContent) -> String {
    let what = match content {
        PcapContent::Evidence => "evidence",
        PcapContent::Headers => "headers",
    };
    format!(
        "{PCAP_DIR}/s{:02}-round{}-{}.{what}.pcapng",
        plan.index, plan.round, plan.arm_kind
    )
}

fn header(plan: &ScenarioSetup, content: PcapContent, t0_unix: Duration) -> PcapHeader {
    let b_ns = plan
        .namespaces()
        .into_iter()
        .find(|n| n.ends_with("-b"))
        .unwrap_or_default();
    PcapHeader {
        file: packet_file_name(plan, content),
        ifname: plan.capture_dev.to_string(),
        if_description: format!(
            "B's {} in network namespace {b_ns} (AF_PACKET, every ethertype)",
            plan.capture_dev
        ),
        t0_unix,
    }
}

fn create(out: &Path, rel: &str) -> std::io::Result<File> {
    let path = out.join(rel);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    File::create(path)
}

/// The headers file's recorder, when the plan asks for one; `Err` is the
/// record of a file that could not be created (the capture runs anyway).
pub fn open_headers(
    out: &Path,
    plan: &ScenarioSetup,
    t0_unix: Duration,
) -> Option<Result<PcapRecorder<File>, PcapFileRecord>> {
    let p = plan.pcap?;
    let head = header(plan, PcapContent::Headers, t0_unix);
    Some(match create(out, &head.file) {
        Ok(f) => Ok(PcapRecorder::new(
            f,
            head,
            PcapContent::Headers,
            p.snap_len,
            p.max_bytes,
        )),
        Err(e) => Err(PcapFileRecord::not_created(
            head.file,
            PcapContent::Headers,
            p.snap_len,
            e.to_string(),
        )),
    })
}

/// Writes the evidence file of `report` under a temporary name, then
/// renames it into place ([`AtomicFile`]; the recorder syncs the file
/// itself); a failure is recorded, never raised.
pub fn write_evidence_file(
    out: &Path,
    plan: &ScenarioSetup,
    t0_unix: Duration,
    report: &EcnEvidence,
) -> PcapFileRecord {
    let head = header(plan, PcapContent::Evidence, t0_unix);
    let rel = head.file.clone();
    let snap = netlab_ecn::EVIDENCE_HEX_CAP as u32;
    let not_created =
        |why: String| PcapFileRecord::not_created(rel.clone(), PcapContent::Evidence, snap, why);
    let path = out.join(&rel);
    let opened = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| AtomicFile::create(&path).map_err(|e| e.source))
        .and_then(|mut tmp| Ok((tmp.as_file().try_clone()?, tmp)));
    let (file, tmp) = match opened {
        Ok(opened) => opened,
        Err(e) => return not_created(e.to_string()),
    };
    let record = write_evidence(file, head, report);
    if record.bytes == 0 {
        return record; // the empty temporary file goes with `tmp`
    }
    match tmp.commit(Durability::Unsynced) {
        Ok(()) => record,
        Err(e) => not_created(e.source.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netlab_ecn::pcap::PcapCut;
    use netlab_topology::RunId;

    fn setup_of(toml: &str, i: usize) -> ScenarioSetup {
        let exp = netlab_experiment::parse(toml).unwrap();
        ScenarioSetup::new(&exp.plan().scenarios[i], &RunId::random()).unwrap()
    }

    #[test]
    fn names_follow_the_scenario_and_the_plan_asks_for_headers_only_on_request() {
        let p = setup_of("", 1);
        assert_eq!(
            packet_file_name(&p, PcapContent::Evidence),
            "pcap/s02-round1-fq_codel.evidence.pcapng"
        );
        assert!(p.pcap.is_none());
        let p = setup_of("[capture]\npcap = \"headers\"\nsnap_len = 300", 0);
        assert_eq!(p.pcap.map(|x| x.snap_len), Some(300));
        assert_eq!(
            p.capture.snap_len, 300,
            "the capture copies what the file keeps"
        );
        assert_eq!(
            packet_file_name(&p, PcapContent::Headers),
            "pcap/s01-round1-pfifo.headers.pcapng"
        );
    }

    #[test]
    fn a_headers_file_that_cannot_be_created_is_recorded_not_raised() {
        let dir = netlab_os::testing::Scratch::new("pcap-create");
        // The results "folder" is a regular file: pcap/ cannot be made in it.
        let out = dir.0.join("not-a-folder");
        std::fs::write(&out, b"x").unwrap();
        let p = setup_of("[capture]\npcap = \"headers\"", 0);
        let Some(Err(rec)) = open_headers(&out, &p, Duration::ZERO) else {
            panic!("expected a creation failure")
        };
        assert!(
            matches!(&rec.partial[..], [PcapCut::CreateFailed { .. }]),
            "{rec:?}"
        );
        let report: EcnEvidence = serde_json::from_str(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../fixtures/ecn/guest-report.json"
            ))
            .unwrap(),
        )
        .unwrap();
        let ev = write_evidence_file(&out, &p, Duration::ZERO, &report);
        assert!(!ev.is_complete() && ev.bytes == 0, "{ev:?}");
    }
}
