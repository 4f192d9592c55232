//! What the queue held and the bottleneck verdict (docs/method.md §14) on
//! the committed real runs: the guest run (fixtures/report/run-uml-3rounds,
//! schema 1, offloads as the kernel leaves them) held GSO aggregates of up
//! to 15,140 bytes in fq_codel's queue, and its summary and report say so
//! beside the figures; results written before the verdict existed still
//! read, with the verdict judged from their counters.

mod common;

use std::path::Path;

use common::fixture_folder;
use netlab_analysis::summary;
use netlab_results::{Results, Verdict};

#[test]
fn the_guest_runs_fq_codel_queue_held_aggregates_and_the_summary_and_report_say_so() {
    let dir = fixture_folder("path-seen");
    let results = Results::read(&dir.path().join("results.json")).expect("fixture reads");
    assert!(results.scenarios.iter().all(|s| s.bottleneck.is_none()));
    let figures = summary::ScenarioFigures::of_run(&results);
    // fq_codel's own maxpacket read 15,140 bytes at every window's end in
    // this run (ten 1,514-byte segments in one skb); pfifo reports none.
    let mut maxpackets = Vec::new();
    for f in &figures {
        let q = &f.path_seen.queue;
        assert_eq!(q.len(), 1, "scenario {}", f.index);
        match f.arm.as_str() {
            "fq_codel" => maxpackets.push(q[0].max_packet_bytes.unwrap()),
            _ => assert_eq!(q[0].max_packet_bytes, None),
        }
        // Every arm held aggregates: backlog ÷ qlen above one frame.
        assert!(q[0].aggregate_max_bytes.unwrap() > 1514.0, "{:?}", q[0]);
        assert!(q[0].held_aggregates(1500));
        assert_eq!(q[0].rate_bps, Some(5e6));
    }
    assert_eq!(maxpackets, vec![15_140; 3]);
    // 15,140 B at 5 Mbit/s = 24.224 ms.
    let caveats = summary::ScenarioFigures::caveats(&results, &figures);
    let aggregate = caveats
        .iter()
        .find(|c| c.contains("aggregates"))
        .expect("an aggregation caveat");
    assert!(
        aggregate.contains("up to 15,140 bytes (24.2 ms at 5 Mbit/s; CoDel's target is 5 ms)"),
        "{aggregate}"
    );
    assert!(
        aggregate.contains(
            "fq_codel in scenarios 2, 4, 6 (maxpacket up to 15,140, backlog ÷ qlen up to 12,869)"
        ),
        "{aggregate}"
    );
    assert!(
        aggregate.contains("pfifo in scenarios 1, 3, 5 (backlog ÷ qlen up to 5,053)"),
        "{aggregate}"
    );
    // The shaper held a queue at 5 Mbit/s in every scenario: no flag.
    for f in &figures {
        let b = f.path_seen.bottleneck.as_ref().unwrap();
        assert!(!f.path_seen.recorded);
        assert_eq!(b.directions[0].verdict, Verdict::ShaperBound, "{b:?}");
        assert!(b.cpu.is_none());
    }
    assert!(!caveats.iter().any(|c| c.contains("other than the shaper")));
    // summary.md: the caveat right below the table, and the section.
    let md = netlab_report::summary::render(&results, 0);
    let caveat_at = md
        .find("**Caveat:** the queue held aggregates")
        .expect("caveat");
    let table_at = md.find("| Round |").unwrap();
    assert!(caveat_at > table_at, "the caveat follows the table");
    assert!(md.contains("### The queue and the bottleneck"), "{md}");
    assert!(md.contains("| 15,140 |"), "{md}");
    // index.html: beside the comparison between arms.
    let mut input = netlab_report::read_results(dir.path()).unwrap();
    input.caveats = caveats;
    let html = netlab_report::render_all(&input)
        .unwrap()
        .into_iter()
        .find(|r| r.name == "index.html")
        .map(|r| String::from_utf8(r.bytes).unwrap())
        .unwrap();
    let at = html
        .find("<strong>Caveat:</strong> the queue held aggregates of up to 15,140 bytes")
        .expect("the caveat in the report");
    let figures_at = html.find("<h2 id=figures>").unwrap();
    assert!(at > figures_at, "beside the comparison between arms");
}

/// The host run (schema 2, pfifo only): it reads, has no recorded verdict,
/// and its counters judge it shaper-bound at 5 Mbit/s.
#[test]
fn a_schema_2_run_without_a_verdict_reads_and_is_judged_from_its_counters() {
    let gz = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/report/run-host-pfifo-6rounds/results.json.gz");
    let dir = common::TempDir::new("path-seen-host");
    let mut json = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap()),
        &mut json,
    )
    .unwrap();
    std::fs::write(dir.path().join("results.json"), json).unwrap();
    let results = Results::read(&dir.path().join("results.json")).unwrap();
    assert!(results.scenarios.iter().all(|s| s.bottleneck.is_none()));
    for f in summary::ScenarioFigures::of_run(&results) {
        let b = f.path_seen.bottleneck.unwrap();
        assert_eq!(b.directions[0].verdict, Verdict::ShaperBound, "{b:?}");
        assert!(b.directions[0].tbf_samples > 0);
    }
}
