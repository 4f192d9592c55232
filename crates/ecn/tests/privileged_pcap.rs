//! Privileged (root: namespaces, a private mount namespace; host kernel):
//! the headers pcapng of a real capture on B holds every frame the capture
//! read and `tcpdump -r` reads it whole; a capture cut short by its frame
//! cap, or one that saw nothing, still gives a valid file; a disk that
//! fills while the file is written (a real 128 KiB tmpfs, mounted in a
//! mount namespace of this test only) ends the file at its last complete
//! block, marks it partial and leaves the capture's evidence whole.

mod common;

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use netlab_ecn::pcap::{PcapContent, PcapCut, PcapRecorder};
use netlab_ecn::{Capture, CaptureConfig, Flow, StopReason};
use netlab_topology::addresses::{A_ADDR, B_ADDR, B_IF};
use netlab_topology::testing::require_privileged;
use netlab_topology::{RunId, TopologyGuard, TopologySpec};

/// A scratch folder (tempfile), removed on drop.
fn scratch(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("netlab-pcap-{tag}-"))
        .tempdir()
        .expect("a folder under the temporary directory")
}

fn recorder(path: &Path, snap: u32) -> PcapRecorder<File> {
    PcapRecorder::new(
        File::create(path).expect("create pcapng"),
        common::pcap_header(path.to_str().unwrap()),
        PcapContent::Headers,
        snap,
        1 << 30,
    )
}

#[test]
fn privileged_headers_pcap_holds_every_frame_and_tcpdump_reads_it() {
    if !require_privileged("privileged_headers_pcap_holds_every_frame_and_tcpdump_reads_it") {
        return;
    }
    let dir = scratch("full");
    let file = dir.path().join("headers.pcapng");
    let spec = TopologySpec::new(RunId::random(), "pcap_full");
    let topo = TopologyGuard::build(&spec).expect("build A-R-B");
    let (run, record) = common::bulk_with_recording(
        &topo,
        spec.tcp_port,
        Duration::from_millis(300),
        CaptureConfig::default(),
        Some(recorder(&file, 128)),
    );
    drop(topo);
    let r = &run.evidence;
    let rec = record.expect("a record");
    println!(
        "{rec:?}\nframes seen {} kernel {:?}",
        r.frames_seen, r.kernel
    );
    assert!(run.received > 0);
    assert_eq!(r.stop_reason, Some(StopReason::Stopped));
    if r.kernel_dropped() {
        assert!(rec
            .partial
            .iter()
            .any(|c| matches!(c, PcapCut::KernelDrops { .. })));
    } else {
        assert!(rec.is_complete(), "{rec:?}");
    }
    assert_eq!(rec.frames, r.frames_seen, "every frame read is in the file");
    assert_eq!(rec.bytes, std::fs::metadata(&file).unwrap().len());
    assert_eq!(common::tcpdump_count(&file) as u64, rec.frames);
}

#[test]
fn privileged_truncated_and_empty_captures_give_valid_files() {
    if !require_privileged("privileged_truncated_and_empty_captures_give_valid_files") {
        return;
    }
    let dir = scratch("cut");
    let spec = TopologySpec::new(RunId::random(), "pcap_cut");
    let topo = TopologyGuard::build(&spec).expect("build A-R-B");

    // Cut short by the capture's frame cap.
    let cut = dir.path().join("cut.pcapng");
    let cfg = CaptureConfig {
        max_frames: 40,
        ..CaptureConfig::default()
    };
    let (run, record) = common::bulk_with_recording(
        &topo,
        spec.tcp_port,
        Duration::from_millis(200),
        cfg,
        Some(recorder(&cut, 94)),
    );
    let rec = record.expect("a record");
    assert_eq!(run.evidence.stop_reason, Some(StopReason::FrameLimit));
    assert_eq!(rec.frames, 40);
    assert!(rec.partial.contains(&PcapCut::CaptureFrameLimit), "{rec:?}");
    assert_eq!(common::tcpdump_count(&cut), 40);

    // A capture told to stop before anything was sent.
    let empty = dir.path().join("empty.pcapng");
    let capture = topo
        .b
        .run(|| Capture::open(B_IF, CaptureConfig::default()))
        .expect("enter B")
        .expect("open capture");
    let flow = Flow {
        a: std::net::SocketAddrV4::new(A_ADDR, 0),
        b: std::net::SocketAddrV4::new(B_ADDR, spec.tcp_port),
    };
    let stop = AtomicBool::new(true);
    let (evidence, record) = capture
        .run_recording(flow, &stop, Instant::now(), Some(recorder(&empty, 128)))
        .expect("capture");
    drop(topo);
    let rec = record.expect("a record");
    assert!(rec.is_complete(), "{rec:?}");
    assert_eq!(rec.frames, evidence.frames_seen);
    assert_eq!(common::tcpdump_count(&empty) as u64, rec.frames);
}

#[test]
fn privileged_a_full_disk_ends_the_pcap_cleanly_and_keeps_the_evidence() {
    if !require_privileged("privileged_a_full_disk_ends_the_pcap_cleanly_and_keeps_the_evidence") {
        return;
    }
    let dir = scratch("enospc");
    let mnt = dir.path().join("small");
    std::fs::create_dir_all(&mnt).unwrap();
    // A 128 KiB tmpfs in a mount namespace of one short-lived thread: the
    // host's mounts never see it, and it goes away with the file's last fd.
    let m = mnt.clone();
    let file = std::thread::spawn(move || -> std::io::Result<File> {
        use nix::mount::{mount, MsFlags};
        use nix::sched::{unshare, CloneFlags};
        unshare(CloneFlags::CLONE_NEWNS)?;
        mount(
            None::<&str>,
            "/",
            None::<&str>,
            MsFlags::MS_REC | MsFlags::MS_PRIVATE,
            None::<&str>,
        )?;
        mount(
            Some("netlab-test"),
            &m,
            Some("tmpfs"),
            MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
            Some("size=128k"),
        )?;
        File::options()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(m.join("headers.pcapng"))
    })
    .join()
    .expect("mount thread")
    .expect("a file on a private 128 KiB tmpfs");
    let mut reader = file.try_clone().expect("second fd");
    let rec_target = recorder_on(file);

    let spec = TopologySpec::new(RunId::random(), "pcap_enospc");
    let topo = TopologyGuard::build(&spec).expect("build A-R-B");
    let (run, record) = common::bulk_with_recording(
        &topo,
        spec.tcp_port,
        Duration::from_millis(400),
        CaptureConfig::default(),
        Some(rec_target),
    );
    drop(topo);
    let r = &run.evidence;
    let rec = record.expect("a record");
    println!(
        "{rec:?}\nframes seen {} counts {:?}",
        r.frames_seen, r.counts
    );
    // The disk filled: the file is partial and says why.
    assert!(
        rec.partial.iter().any(
            |c| matches!(c, PcapCut::WriteFailed { error } if error.contains("No space left"))
        ),
        "{rec:?}"
    );
    assert!(rec.frames > 0 && rec.frames < r.frames_seen, "{rec:?}");
    // The capture's own result is whole: every frame was still decoded.
    assert_eq!(r.stop_reason, Some(StopReason::Stopped));
    assert!(r.negotiated && r.counts.a_to_b > 0 && r.counts.b_to_a > 0);
    assert_eq!(
        r.frames_seen,
        r.counts.a_to_b + r.counts.b_to_a + r.counts.other
    );
    // The file ends at its last whole block: copied out, tcpdump reads
    // exactly the frames recorded, without a truncation complaint.
    let mut bytes = Vec::new();
    reader.seek(SeekFrom::Start(0)).unwrap();
    reader.read_to_end(&mut bytes).unwrap();
    assert_eq!(bytes.len() as u64, rec.bytes);
    let copy = dir.path().join("copy.pcapng");
    std::fs::write(&copy, &bytes).unwrap();
    assert_eq!(common::tcpdump_count(&copy) as u64, rec.frames);
    drop(reader);
}

fn recorder_on(file: File) -> PcapRecorder<File> {
    PcapRecorder::new(
        file,
        common::pcap_header("small/headers.pcapng"),
        PcapContent::Headers,
        128,
        1 << 30,
    )
}

/// `tc -n NETNS ARGS…`, bounded; panics on failure.
fn tc(netns: &str, args: &[&str]) {
    let mut v = vec!["-n", netns];
    v.extend_from_slice(args);
    let (code, _out, err) = common::tool("tc", &v, Duration::from_secs(10));
    assert_eq!(code, 0, "tc {v:?}: {err}");
}

/// How many frames of `path` match the tshark display filter `filter`.
fn tshark_count(path: &Path, filter: &str) -> u64 {
    let p = path.to_str().unwrap();
    let (code, out, err) = common::tool(
        "tshark",
        &[
            "-n",
            "-r",
            p,
            "-Y",
            filter,
            "-T",
            "fields",
            "-e",
            "frame.number",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "tshark -r {p} -Y '{filter}': {err}");
    out.lines().filter(|l| !l.trim().is_empty()).count() as u64
}

/// tshark's counts over the headers file of a real tail-drop path (TBF on
/// R's egress toward B: losses, so window reductions and CWR) equal the
/// capture's own. The host kernel here has no CE-marking qdisc (no
/// fq_codel, netem, red …), so CE and ECE are 0 on both sides; the guest
/// e2e test (`guest_compare_both_arms_in_the_uml_kernel`) checks CE, ECE and
/// CWR on a real fq_codel scenario.
#[test]
fn privileged_tshark_counts_equal_the_captures_on_a_tail_drop_path() {
    if !require_privileged("privileged_tshark_counts_equal_the_captures_on_a_tail_drop_path") {
        return;
    }
    let dir = scratch("tshark");
    let file = dir.path().join("headers.pcapng");
    let spec = TopologySpec::new(RunId::random(), "pcap_tshark");
    let topo = TopologyGuard::build(&spec).expect("build A-R-B");
    tc(
        topo.r.name(),
        &[
            "qdisc",
            "add",
            "dev",
            netlab_topology::addresses::R_B_IF,
            "root",
            "tbf",
            "rate",
            "20mbit",
            "burst",
            "16kb",
            "limit",
            "32kb",
        ],
    );
    let (run, record) = common::bulk_with_recording(
        &topo,
        spec.tcp_port,
        Duration::from_millis(800),
        CaptureConfig::default(),
        Some(recorder(&file, 128)),
    );
    drop(topo);
    let r = &run.evidence;
    let rec = record.expect("a record");
    assert!(rec.is_complete(), "{rec:?}");
    assert_eq!(rec.frames, r.frames_seen);
    assert!(r.negotiated);
    let (a, b) = (r.flow_a, r.flow_b);
    let ab = format!(
        "ip.src == {} && tcp.srcport == {} && ip.dst == {} && tcp.dstport == {}",
        a.ip(),
        a.port(),
        b.ip(),
        b.port()
    );
    let ba = format!(
        "ip.src == {} && tcp.srcport == {} && ip.dst == {} && tcp.dstport == {}",
        b.ip(),
        b.port(),
        a.ip(),
        a.port()
    );
    let c = r.counts;
    for (name, netlab, filter) in [
        ("ce", c.ce, format!("{ab} && ip.dsfield.ecn == 3")),
        (
            "ce_data",
            c.ce_data,
            format!("{ab} && ip.dsfield.ecn == 3 && tcp.len > 0"),
        ),
        (
            "ece",
            c.ece,
            format!("{ba} && tcp.flags.ece == 1 && tcp.flags.syn == 0"),
        ),
        (
            "cwr",
            c.cwr,
            format!("{ab} && tcp.flags.cwr == 1 && tcp.flags.syn == 0"),
        ),
        (
            "ect0",
            c.ect0,
            format!("{ab} && ip.dsfield.ecn == 2 && tcp.len > 0"),
        ),
        (
            "not_ect",
            c.not_ect,
            format!("{ab} && ip.dsfield.ecn == 0 && tcp.len > 0"),
        ),
        ("a_to_b", c.a_to_b, ab.clone()),
        ("b_to_a", c.b_to_a, ba.clone()),
    ] {
        let t = tshark_count(&file, &filter);
        println!("{name}: tshark {t}, netlab {netlab}");
        assert_eq!(t, netlab, "{name}: tshark -Y '{filter}'");
    }
    assert!(c.ect0 > 0 && c.a_to_b > 0 && c.b_to_a > 0, "{c:?}");
}
