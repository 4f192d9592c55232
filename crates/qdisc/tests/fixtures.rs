//! Real RTM_GETQDISC dump bytes (fixtures/qdisc, see its README): TBF+pfifo
//! from the host kernel 6.18 and TBF+fq_codel from the UML guest kernel
//! 6.1.176, each under a UDP burst. Decoded field by field, and the drained
//! dumps compared with what `tc -s -d -j` printed right after them.

mod common;

use std::path::PathBuf;

use netlab_qdisc_model::{
    decode_dump, FqCodelReadback, FqCodelXstats, Psched, QdiscOptions, QdiscRecord, QdiscStats,
    QdiscXstats, Readback,
};

const R1: u32 = 3;

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/qdisc")
        .join(name)
}

fn dump(name: &str) -> Vec<u8> {
    hex::decode(std::fs::read_to_string(path(name)).expect("fixture").trim()).expect("hex")
}

fn readback(name: &str) -> Readback {
    Readback::from_dump(&dump(name), R1, None, &Psched::MODERN).expect("decodes")
}

fn tc_json(name: &str) -> Vec<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(path(name)).unwrap()).unwrap()
}

fn tbf_of(r: &QdiscRecord) -> &netlab_qdisc_model::TbfReadback {
    match &r.options {
        QdiscOptions::Tbf(t) => t,
        o => panic!("not tbf: {o:?}"),
    }
}

fn assert_spec_tbf(r: &QdiscRecord) {
    assert_eq!(r.kind, "tbf");
    assert_eq!(r.ifindex, R1);
    assert_eq!(
        (r.handle.to_string().as_str(), r.parent.to_string().as_str()),
        ("1:", "root")
    );
    assert_eq!((r.handle_raw, r.parent_raw), (0x0001_0000, 0xffff_ffff));
    let t = tbf_of(r);
    assert_eq!(t.rate.bits_per_sec(), 5_000_000);
    assert_eq!(t.rate_bytes_per_sec, 625_000);
    assert_eq!(t.peakrate_bytes_per_sec, 0);
    assert_eq!(t.limit_bytes, 65_536);
    assert_eq!(t.buffer_ticks, 409_600);
    assert_eq!(t.burst_bytes, 16_383);
    assert_eq!(t.mtu_ticks, 0);
    assert!((t.latency_us - 78_643.6).abs() < 1e-6, "{}", t.latency_us);
    assert_eq!((t.linklayer, t.mpu, t.overhead), (1, 0, 0));
    assert_eq!(r.xstats, None, "tbf has no xstats");
}

#[test]
fn host_tbf_pfifo_under_load() {
    let rb = readback("host_tbf_pfifo.loaded.hex");
    assert_eq!(rb.records.len(), 2);
    assert_spec_tbf(&rb.records[0]);
    assert_eq!(
        rb.records[0].stats,
        Some(QdiscStats {
            bytes: 142_962,
            packets: 117,
            drops: 330,
            overlimits: 792,
            requeues: 0,
            backlog_bytes: 192_596,
            backlog_packets: 156,
            qlen: 156,
        })
    );
    let p = &rb.records[1];
    assert_eq!(
        (
            p.kind.as_str(),
            p.handle.to_string().as_str(),
            p.parent.to_string().as_str()
        ),
        ("pfifo", "10:", "1:1")
    );
    assert_eq!(p.options, QdiscOptions::Pfifo { limit_packets: 256 });
    assert_eq!(
        p.stats,
        Some(QdiscStats {
            bytes: 142_962,
            packets: 117,
            drops: 330,
            overlimits: 0,
            requeues: 0,
            backlog_bytes: 192_596,
            backlog_packets: 156,
            qlen: 156,
        })
    );
    assert_eq!(p.xstats, None);
    // Other interfaces of R are in the raw dump but not in the readback.
    let all = decode_dump(&dump("host_tbf_pfifo.loaded.hex"), None, &Psched::MODERN).unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(
        (all[0].kind.as_str(), all[0].handle.qdisc_text().as_str()),
        ("noqueue", "0:")
    );
}

#[test]
fn host_tbf_pfifo_drained_equals_tc() {
    let rb = readback("host_tbf_pfifo.drained.hex");
    assert_spec_tbf(&rb.records[0]);
    assert_eq!(
        rb.stats_of(netlab_qdisc_model::ARM_HANDLE).unwrap().packets,
        273
    );
    common::assert_readback_matches_tc(&rb, &tc_json("host_tbf_pfifo.drained.tc.json"));
}

#[test]
fn guest_tbf_fq_codel_under_load() {
    let rb = readback("guest_tbf_fq_codel.loaded.hex");
    assert_eq!(rb.records.len(), 2);
    assert_spec_tbf(&rb.records[0]);
    assert_eq!(rb.records[0].stats.unwrap().overlimits, 692);
    let f = &rb.records[1];
    assert_eq!(
        (
            f.kind.as_str(),
            f.handle.to_string().as_str(),
            f.parent.to_string().as_str()
        ),
        ("fq_codel", "10:", "1:1")
    );
    assert_eq!(
        f.options,
        QdiscOptions::FqCodel(FqCodelReadback {
            limit: Some(256),
            flows: Some(1024),
            quantum: Some(1514),
            target_us: Some(4999),
            interval_us: Some(99_999),
            memory_limit: Some(1_048_576),
            ecn: Some(true),
            ce_threshold_us: None,
            drop_batch: Some(64),
            ce_threshold_selector: None,
            ce_threshold_mask: None,
            other: vec![],
        })
    );
    assert_eq!(
        f.stats,
        Some(QdiscStats {
            bytes: 147_840,
            packets: 120,
            drops: 384,
            overlimits: 0,
            requeues: 0,
            backlog_bytes: 121_716,
            backlog_packets: 98,
            qlen: 98,
        })
    );
    assert_eq!(
        f.xstats,
        Some(QdiscXstats::FqCodel(FqCodelXstats {
            maxpacket: 1242,
            drop_overlimit: 384,
            drop_overmemory: 0,
            ecn_mark: 49,
            new_flow_count: 15,
            new_flows_len: 0,
            old_flows_len: 1,
            ce_mark: 0,
            memory_usage: 223_488,
        }))
    );
}

#[test]
fn guest_tbf_fq_codel_drained_equals_tc() {
    let rb = readback("guest_tbf_fq_codel.drained.hex");
    assert_spec_tbf(&rb.records[0]);
    let Some(QdiscXstats::FqCodel(x)) = rb.records[1].xstats else {
        panic!("xstats")
    };
    assert_eq!(
        (x.ecn_mark, x.drop_overlimit, x.memory_usage),
        (144, 384, 0)
    );
    common::assert_readback_matches_tc(&rb, &tc_json("guest_tbf_fq_codel.drained.tc.json"));
}

#[test]
fn readbacks_serialize_and_redecode() {
    let rb = readback("guest_tbf_fq_codel.loaded.hex");
    let json = serde_json::to_string(&rb).unwrap();
    let back: Readback = serde_json::from_str(&json).unwrap();
    assert_eq!(back, rb);
    assert_eq!(back.redecode().unwrap(), rb);
    // Each record's raw bytes decode to that record alone.
    for r in &rb.records {
        let one =
            netlab_qdisc_model::decode_qdisc(&hex::decode(&r.raw_hex).unwrap(), &Psched::MODERN)
                .unwrap();
        assert_eq!(&one, r);
    }
}

#[test]
fn every_truncation_of_a_real_dump_is_an_error_or_a_prefix() {
    for name in ["host_tbf_pfifo.loaded.hex", "guest_tbf_fq_codel.loaded.hex"] {
        let d = dump(name);
        let full = decode_dump(&d, None, &Psched::MODERN).unwrap();
        // Where each whole message (with its padding) ends.
        let mut boundaries = vec![0usize];
        let mut at = 0usize;
        while at + 4 <= d.len() {
            let len = u32::from_ne_bytes(d[at..at + 4].try_into().unwrap()) as usize;
            at = (at + len).next_multiple_of(4).min(d.len());
            boundaries.push(at);
        }
        let mut prefixes = 0;
        for cut in 0..d.len() {
            // Never a panic; either an error, or the records of the whole
            // messages before the cut, decoded exactly as in the full dump.
            match decode_dump(&d[..cut], None, &Psched::MODERN) {
                Err(_) => assert!(
                    !boundaries.contains(&cut),
                    "{name}: a cut at message boundary {cut} must decode"
                ),
                Ok(records) => {
                    assert_eq!(records[..], full[..records.len()], "{name}: cut at {cut}");
                    prefixes += 1;
                }
            }
        }
        // Every boundary before the end is a clean prefix.
        assert!(
            prefixes >= boundaries.len() - 1,
            "{name}: {prefixes} prefixes"
        );
    }
}

#[test]
fn recorded_requests_are_reproduced() {
    for name in [
        "host_tbf_pfifo.requests.json",
        "guest_tbf_fq_codel.requests.json",
    ] {
        let stored: Vec<netlab_qdisc_model::QdiscRequest> =
            serde_json::from_str(&std::fs::read_to_string(path(name)).unwrap()).unwrap();
        let arm = netlab_qdisc_model::Arm::parse(&stored[1].tc_argv[9..].join(" ")).unwrap();
        let rebuilt = netlab_qdisc_model::BottleneckSpec::spec(arm)
            .requests("r1", R1, &Psched::MODERN)
            .unwrap();
        assert_eq!(rebuilt, stored, "{name}");
    }
}
