use std::path::Path;

use netlab_topology::SysctlReadback;

use super::*;

fn golden() -> (Results, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/orchestrator/golden");
    let results = Results::read(&dir.join("results.json")).unwrap();
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    (results, md)
}

/// `NETLAB_BLESS=1 cargo test -p netlab-report --lib golden_results`
/// rewrites the golden summary.md after a deliberate change of wording
/// (read its diff before committing it).
#[test]
fn golden_results_regenerate_their_summary_byte_for_byte() {
    let (results, md) = golden();
    let out = render(&results, 0);
    if std::env::var_os("NETLAB_BLESS").is_some() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/orchestrator/golden");
        std::fs::write(dir.join("summary.md"), &out).unwrap();
        return;
    }
    assert_eq!(out, md);
}

/// An isochronous log of 20 ms slots over 18 s: baseline all 2 ms,
/// loaded 60 % ok at 300 ms, the rest censored (some late).
fn iso_log() -> netlab_probe::IsoLog {
    use netlab_probe::{IsoConfig, IsoOutcome, IsoRequest, OneWayDelays};
    let cfg = IsoConfig::default();
    let requests = (0..cfg.slots() as u32)
        .map(|k| {
            let due = cfg.due(u64::from(k));
            let phase = cfg.phases.phase_of(due);
            let censored = phase == netlab_probe::Phase::Loaded && k % 5 >= 3;
            let rtt = if phase == netlab_probe::Phase::Baseline {
                2.0
            } else {
                300.0
            };
            IsoRequest {
                seq: k,
                due_s: due.as_secs_f64(),
                send_s: Some(due.as_secs_f64()),
                phase,
                outcome: if censored {
                    IsoOutcome::Timeout
                } else {
                    IsoOutcome::Reply
                },
                reply_s: None,
                rtt_ms: (!censored).then_some(rtt),
                late_rtt_ms: (censored && k % 5 == 3).then_some(1200.0),
                up_ms: (!censored).then_some(rtt - 0.5),
                down_ms: (!censored).then_some(0.49),
                turnaround_ms: (!censored).then_some(0.01),
            }
        })
        .collect();
    netlab_probe::IsoLog {
        one_way_delays: OneWayDelays::ExactSharedClock,
        one_way_note: OneWayDelays::ExactSharedClock.note().into(),
        config: cfg,
        t0_monotonic_ns: 1,
        requests,
        replies: Default::default(),
        recv_errors: 0,
        stopped_early: false,
        fatal_error: None,
    }
}

#[test]
fn the_iso_probe_adds_its_own_table_and_keeps_the_spec_one() {
    let (mut results, md) = golden();
    assert!(!md.contains("Isochronous"));
    results.scenarios[1].iso_probe =
        Some(netlab_results::IsoProbeResult::of(iso_log(), None, None));
    let out = render(&results, 0);
    // the method's table is unchanged
    assert!(out.contains(&table(&rows(&results))));
    assert_eq!(table(&rows(&results)), {
        let (g, _) = golden();
        table(&rows(&g))
    });
    let sc = &results.scenarios[1];
    // loaded: slots due 6 s ..= 17 s = 551; 3 of every 5 ok → 331 ok,
    // 220 censored of which 110 late; p50 over all sent is rank 276 ≤
    // 331 → a value, p95 rank 524 > 331 → a bound
    let row = format!(
        "| {} | {} | {} | loaded | 20 | 551 | 331 | 110 | 220: lost or late, not told apart here (censoring-aware RTT p50/p95/p99 300.00/≥ 1000 ms (censored)/≥ 1000 ms (censored) of 551) | 300.00/300.00/300.00 (n=331) | – |",
        sc.index, sc.round, sc.arm
    );
    assert!(out.contains(&row), "{out}");
    assert!(out.contains("≥ 1000"), "{out}");
    assert!(out.contains("| 299.50/0.49 |"), "{out}");
    let base = format!(
        "| {} | {} | {} | baseline | 20 | 150 | 150 | 0 | 0: lost or late, not told apart here (censoring-aware RTT p50/p95/p99 2.00/2.00/2.00 of 150) | 2.00/2.00/2.00 (n=150) | – | 1.50/0.49 |",
        sc.index, sc.round, sc.arm
    );
    assert!(out.contains(&base), "{out}");
    assert!(out.contains("One-way delays: up/down one-way delays are exact"));
    // the results round-trip with it
    let json = serde_json::to_string(&results).unwrap();
    let back: Results = serde_json::from_str(&json).unwrap();
    // (serde_json's default float parsing may move an f64 by one ulp,
    // so compare what the summary reads, not every due time)
    let (a, b) = (
        back.scenarios[1].iso_probe.as_ref().unwrap(),
        results.scenarios[1].iso_probe.as_ref().unwrap(),
    );
    assert_eq!(a.log.config, b.log.config);
    assert_eq!(a.phases, b.phases);
    assert_eq!(a.log.requests.len(), b.log.requests.len());
    assert_eq!(render(&back, 0), out);
}

#[test]
fn rows_come_from_the_typed_fields() {
    let (results, _) = golden();
    let r = rows(&results);
    assert_eq!(r.len(), 2);
    let fq = &r[1];
    let s = &results.scenarios[1];
    let loaded = s.probe().unwrap().phases.loaded.clone().unwrap();
    assert_eq!(fq.arm, "fq_codel");
    assert_eq!(fq.loaded_sent, u64::from(loaded.sent));
    assert_eq!(fq.loaded_ok, u64::from(loaded.ok));
    assert_eq!(fq.p95_ms, loaded.p95_ms);
    let child = s
        .qdisc_of("up")
        .unwrap()
        .at_window_end
        .iter()
        .find(|q| q.kind == "fq_codel")
        .unwrap();
    assert_eq!(fq.child_drops, Some(u64::from(child.stats.unwrap().drops)));
    let e = &s.ecn.as_ref().unwrap().evidence.counts;
    assert_eq!(fq.ce_ece_cwr, Some((e.ce, e.ece, e.cwr)));
    assert_eq!(fq.ecn_negotiated, Some(true));
}

#[test]
fn a_missing_part_shows_none_not_zero() {
    let (mut results, _) = golden();
    let s = &mut results.scenarios[0];
    s.qdiscs[0].at_window_end.clear();
    s.ecn = None;
    s.probes.clear();
    let r = netlab_analysis::summary::SummaryRow::of(s);
    assert_eq!((r.child_drops, r.tbf_drops), (None, None));
    assert_eq!(r.ce_ece_cwr, None);
    assert_eq!(r.censored, None);
    assert!(table(&[r]).contains("| – | – |"));
}

#[test]
fn run_notes_follow_the_data() {
    let (mut results, _) = golden();
    assert!(extra_notes(&ScenarioFigures::of_run(&results), 0)
        .iter()
        .all(|n| !n.contains("failed") && !n.contains("NOT negotiated")));
    let s = &mut results.scenarios[1];
    s.error = Some("final qdisc readback: boom".into());
    let ecn = s.ecn.as_mut().unwrap();
    ecn.evidence.negotiated = false;
    ecn.evidence.kernel = Some(netlab_ecn::KernelStats {
        packets: 10,
        drops: 3,
    });
    s.directions[0].goodput_mbps = Some(5.5);
    let notes = extra_notes(&ScenarioFigures::of_run(&results), 2);
    let has = |needle: &str| notes.iter().any(|n| n.contains(needle));
    assert!(has(
        "scenario 2 (round 1, fq_codel) failed: final qdisc readback: boom"
    ));
    assert!(has("scenario 2: classic ECN was NOT negotiated"));
    assert!(has("dropped 3 frame(s)"));
    assert!(has("goodput 5.500 Mbit/s is above the TBF rate 5 Mbit/s"));
    assert!(has("2 cleanup step(s) failed"));
    assert!(render(&results, 2).contains("| 1 | fq_codel | failed: final qdisc readback: boom |"));
}

#[test]
fn the_receive_buffer_note_follows_what_was_written() {
    let (mut results, _) = golden();
    // Recorded before netlab read tcp_rmem: no note either way.
    assert!(receive_buffer_note(&ScenarioFigures::of_run(&results)).is_none());
    // Kept the kernel's: B's readback has the key, nothing was written.
    for s in &mut results.scenarios {
        let t = s.topology.as_mut().unwrap();
        for ns in &mut t.readback.namespaces {
            ns.sysctls
                .insert("net.ipv4.tcp_rmem".into(), "4096\t131072\t6291456".into());
        }
    }
    let note = receive_buffer_note(&ScenarioFigures::of_run(&results)).unwrap();
    assert!(
        note.contains("kept the kernel's tcp_rmem (`4096 131072 6291456`"),
        "{note}"
    );
    // Written at max in every scenario.
    for s in &mut results.scenarios {
        s.topology.as_mut().unwrap().sysctls.push(SysctlReadback {
            netns: "nl-x-1-b".into(),
            key: "net.ipv4.tcp_rmem".into(),
            wrote: "4096\t6291456\t6291456".into(),
            read: "4096\t6291456\t6291456".into(),
        });
    }
    let note = receive_buffer_note(&ScenarioFigures::of_run(&results)).unwrap();
    assert!(
        note.contains("read back as `4096 6291456 6291456`"),
        "{note}"
    );
    assert_eq!(extra_notes(&ScenarioFigures::of_run(&results), 0)[0], note);
    // Mixed.
    results.scenarios[0]
        .topology
        .as_mut()
        .unwrap()
        .sysctls
        .pop();
    assert!(receive_buffer_note(&ScenarioFigures::of_run(&results))
        .unwrap()
        .starts_with("Some scenarios"));
}

#[test]
fn probe_requests_that_never_reached_b_are_counted() {
    let (mut results, _) = golden();
    let s = &mut results.scenarios[0];
    let sent = s.probe().unwrap().requests.len() as u64;
    let echo = s.echo.as_mut().unwrap();
    echo.received = sent - 3;
    let notes = extra_notes(&ScenarioFigures::of_run(&results), 0);
    assert!(
        notes.iter().any(
            |n| n.contains(&format!("received {} of the {sent}", sent - 3))
                && n.contains("3 never reached B")
        ),
        "{notes:?}"
    );
    echo_all(&mut results);
    assert!(extra_notes(&ScenarioFigures::of_run(&results), 0)
        .iter()
        .all(|n| !n.contains("never reached B")));
}

#[test]
fn flows_that_connected_late_are_named() {
    let (mut results, _) = golden();
    let quiet = extra_notes(&ScenarioFigures::of_run(&results), 0);
    assert!(
        quiet
            .iter()
            .all(|n| !n.contains("after their planned start")),
        "{quiet:?}"
    );
    let s = &mut results.scenarios[0];
    let f = &mut s.flows[0];
    let planned = f.start_s;
    let tcp = f.tcp.as_mut().unwrap();
    let window = tcp.window_s[0];
    // Half a second late is within the bound; past the window's start is not.
    tcp.start_s = planned + netlab_analysis::summary::ScenarioFigures::LATE_START_S;
    assert!(extra_notes(&ScenarioFigures::of_run(&results), 0)
        .iter()
        .all(|n| !n.contains("after their planned start")));
    let tcp = results.scenarios[0].flows[0].tcp.as_mut().unwrap();
    tcp.start_s = window + 1.0;
    let notes = extra_notes(&ScenarioFigures::of_run(&results), 0);
    let note = notes
        .iter()
        .find(|n| n.contains("after their planned start"))
        .unwrap_or_else(|| panic!("{notes:?}"));
    assert!(
        note.contains(&format!(
            "1 flow(s) connected more than 0.5 s after their planned start (flow 0 at {:.2} s, {:.2} s late)",
            window + 1.0,
            window + 1.0 - planned
        )),
        "{note}"
    );
    assert!(
        note.contains(&format!(
            "late): their warm-up was shorter than planned, and 1 connected after the measured window opened at {window:.2} s, so"
        )),
        "{note}"
    );
}

fn echo_all(results: &mut Results) {
    for s in &mut results.scenarios {
        let sent = s.probe().unwrap().requests.len() as u64;
        s.echo.as_mut().unwrap().received = sent;
    }
}

fn row(round: u32, arm: &str) -> SummaryRow {
    SummaryRow {
        round,
        arm: arm.into(),
        arm_words: format!("{arm} limit 256"),
        point_label: "default".into(),
        probe_timeout_ms: Some(1000.0),
        goodput_mbps: Some(4.812),
        goodput_by_direction: vec![("up".into(), Some(4.812))],
        loaded_sent: 55,
        loaded_ok: 53,
        loaded_timeouts: 2,
        p50_ms: Some(12.345),
        p95_ms: None,
        censored: Some((
            Some(netlab_probe::RankQuantile::Value(12.345)),
            Some(netlab_probe::RankQuantile::AtLeast(1000.0)),
        )),
        baseline_p50: Some(netlab_probe::RankQuantile::Value(0.125)),
        child_drops: Some(7),
        tbf_drops: Some(0),
        drops_by_direction: vec![("up".into(), Some(7), Some(0))],
        ce_ece_cwr: Some((10, 9, 3)),
        ecn_negotiated: Some(true),
        baseline: (15, 15, Some(0.2)),
        error: None,
    }
}

#[test]
fn table_shows_counts_and_none() {
    let t = table(&[row(1, "pfifo")]);
    assert_eq!(
        t,
        "| Round | arm | goodput Mbit/s | baseline p50 ms | loaded probes/timeouts \
         | loaded p50/p95 ms | replies-only p50/p95 ms | drops (whole run) | CE/ECE/CWR seen |\n\
         |---|---|---|---|---|---|---|---|---|\n\
         | 1 | pfifo | 4.812 | 0.12 | 55/2 | 12.35/≥ 1000 | 12.35/– (n=53) | 7 (tbf 0) | 10/9/3 |\n\
         \n\
         loaded p50/p95 and baseline p50 count a probe without a reply within the timeout \
         as \"≥ the timeout\" (censoring-aware, method §5.6: the figures used everywhere); \
         the replies-only columns leave timeouts out (method §5.5) and carry their count.\n"
    );
}

#[test]
fn a_note_about_an_arm_the_run_did_not_have_is_left_out() {
    let md = markdown("# x", None, &[row(1, "pfifo")], &[], &[], false);
    let fq_note = NOTES.iter().find(|n| n.contains("fq_codel")).unwrap();
    assert!(!md.contains(fq_note), "{md}");
    assert!(md.contains(NOTES[0]));
}

#[test]
fn failed_rows_say_so_and_notes_are_all_there() {
    let mut r = row(2, "fq_codel");
    r.error = Some("building topology: boom".into());
    let md = markdown(
        "# x",
        None,
        &[row(1, "pfifo"), r],
        &[],
        &["extra".into()],
        false,
    );
    assert!(md.contains("| 2 | fq_codel | failed: building topology: boom |"));
    assert!(md.contains("1. round 1 pfifo: 0.20 ms (ok 15/15 sent)"));
    for n in NOTES {
        assert!(md.contains(n));
    }
    assert!(md.contains("- extra"));
}

#[test]
fn both_directions_show_their_aggregates_and_the_flow_section() {
    let (mut results, _) = golden();
    assert!(
        sections(&ScenarioFigures::of_run(&results)).is_empty(),
        "the method's run has no extra section"
    );
    let s = &mut results.scenarios[1];
    let mut down = s.flows[0].clone();
    down.index = 1;
    down.direction = "down".into();
    s.flows.push(down);
    s.directions =
        netlab_results::directions_of(&s.flows, |d| Some(if d == "up" { 5.0 } else { 20.0 }));
    let r = netlab_analysis::summary::SummaryRow::of(s);
    let t = table(&[r]);
    assert!(
        t.contains("| 1 | fq_codel | up 4.792 / down 4.792 |"),
        "{t}"
    );
    let sec = sections(&ScenarioFigures::of_run(&results));
    assert_eq!(sec.len(), 1);
    assert!(
        sec[0].contains("scenario 2 (round 1, fq_codel) down: aggregate 4.792 of 20 Mbit/s, fairness 1.000 over 1 flow(s): flow 2 reno 4.792"),
        "{}",
        sec[0]
    );
}

#[test]
fn a_sweep_gets_a_grid_line_per_point_and_arm() {
    let (mut results, _) = golden();
    let mut more = results.scenarios.clone();
    for s in &mut more {
        s.point.index = 2;
        s.point.label = "base_rtt=20ms".into();
    }
    for s in &mut results.scenarios {
        s.point.label = "base_rtt=0ms".into();
    }
    results.scenarios.extend(more);
    let sec = sections(&ScenarioFigures::of_run(&results));
    assert_eq!(sec.len(), 1);
    let lines: Vec<&str> = sec[0]
        .lines()
        .filter(|l| l.starts_with("| 1 ") || l.starts_with("| 2 "))
        .collect();
    assert_eq!(lines.len(), 4, "{}", sec[0]);
    assert!(
        lines[1].starts_with(
            "| 1 base_rtt=0ms | fq_codel | 1 | 4.75/7.93 (n=5) | up 4.792 | up 1.000 |"
        ),
        "{}",
        lines[1]
    );
    assert!(lines[3].starts_with("| 2 base_rtt=20ms | fq_codel |"));
}

#[test]
fn an_interrupted_run_says_where_first() {
    let i = netlab_results::Interrupted {
        signal: "SIGTERM".into(),
        scenario: Some(3),
        phase: "loaded".into(),
        at_s: Some(7.25),
    };
    assert_eq!(
        interrupted_banner(&i, &[1, 2, 3]),
        "**Interrupted by SIGTERM during scenario 3 (loaded phase, 7.2 s after t0).** \
         Scenarios 1–2 are complete; scenario 3 keeps its samples up to the stop, its error \
         and its cleanup receipts; the run's later scenarios did not run."
    );
    let boot = netlab_results::Interrupted {
        signal: "SIGINT".into(),
        scenario: None,
        phase: "while the guest kernel booted".into(),
        at_s: None,
    };
    assert_eq!(
        interrupted_banner(&boot, &[]),
        "**Interrupted by SIGINT while the guest kernel booted.** No scenario had completed \
         before it; none was cut short."
    );
}

/// A shard names only the scenarios it ran (method §11.9): shard 2 of 2,
/// stopped in its first scenario, never names scenario 1 that shard 1
/// ran; a shard that ran 2 and 4 says so, not "1–3".
#[test]
fn a_shard_interrupted_names_only_its_own_scenarios() {
    let during = |n: u32| netlab_results::Interrupted {
        signal: "SIGTERM".into(),
        scenario: Some(n),
        phase: "loaded".into(),
        at_s: None,
    };
    let first_of_shard_2 = interrupted_banner(&during(2), &[2]);
    assert!(
        first_of_shard_2.contains(
            "during scenario 2 (loaded phase).** No scenario had completed before it; scenario 2 keeps"
        ),
        "{first_of_shard_2}"
    );
    assert!(
        !first_of_shard_2.contains("Scenario 1"),
        "{first_of_shard_2}"
    );
    let third = interrupted_banner(&during(6), &[2, 4, 6]);
    assert!(
        third.contains("Scenarios 2, 4 are complete; scenario 6 keeps"),
        "{third}"
    );
    assert!(!third.contains("1–"), "{third}");
    let one = interrupted_banner(&during(4), &[4, 2]);
    assert!(
        one.contains("Scenario 2 is complete; scenario 4 keeps"),
        "{one}"
    );
    // Between scenarios: the ones kept, by plan index.
    let between = netlab_results::Interrupted {
        signal: "SIGTERM".into(),
        scenario: None,
        phase: "between scenarios".into(),
        at_s: None,
    };
    assert_eq!(
        interrupted_banner(&between, &[3, 4, 7]),
        "**Interrupted by SIGTERM between scenarios.** Scenarios 3–4, 7 are complete; \
         none was cut short."
    );
}

/// One rule for the general notes: the fq_codel note belongs only to a
/// run with an fq_codel arm, whoever asks (summary.md, the report,
/// results.json's notes).
#[test]
fn notes_for_keeps_only_the_notes_of_the_runs_arms() {
    let fq_note = NOTES.iter().find(|n| n.contains("256-packet")).unwrap();
    let pfifo_only = notes_for(["pfifo", "bfifo"]);
    assert!(!pfifo_only.contains(fq_note));
    assert_eq!(pfifo_only.len(), NOTES.len() - 1);
    assert!(pfifo_only.contains(&NOTES[0]));
    assert!(notes_for(["pfifo", "fq_codel"]).contains(fq_note));
    assert_eq!(notes_for(["pfifo", "fq_codel"]).len(), NOTES.len());
}

/// The notes about the stop-and-wait probe quote its timeout, and are left
/// out when it did not run (an isochronous-only sweep).
#[test]
fn the_probe_notes_follow_the_probe_that_ran() {
    let note = NOTES
        .iter()
        .find(|n| n.starts_with("Probe timeouts"))
        .unwrap();
    assert_eq!(note_for_probe(note, Some(1000.0)).as_deref(), Some(*note));
    let two = note_for_probe(note, Some(2000.0)).unwrap();
    assert!(
        two.contains("'≥ 2000 ms'") && two.contains("more than 2 s of queueing"),
        "{two}"
    );
    assert!(!two.contains("1000 ms"), "{two}");
    assert_eq!(note_for_probe(note, None), None);
    assert_eq!(note_for_probe(NOTES[0], None).as_deref(), Some(NOTES[0]));
    let mut r = row(1, "pfifo");
    r.probe_timeout_ms = None;
    let md = markdown("# x", None, &[r], &[], &[], false);
    assert!(!md.contains("Probe timeouts are not loss"), "{md}");
    assert!(!md.contains("Loaded probe sends"), "{md}");
}

/// A sweep's table says each row's point (docs/report.md, "Pooling in a sweep"); a run without a
/// sweep keeps the method's columns.
#[test]
fn a_sweeps_table_has_a_point_column() {
    let mut a = row(1, "pfifo");
    a.point_label = "rate=2mbit flows=1".into();
    let t = table(&[a]);
    let lines: Vec<&str> = t.lines().collect();
    assert!(lines[0].starts_with("| point | Round | arm |"), "{t}");
    assert!(lines[1].starts_with("|---|---|---|"), "{t}");
    assert!(
        lines[2].starts_with("| rate=2mbit flows=1 | 1 | pfifo | 4.812 |"),
        "{t}"
    );
    assert_eq!(lines[0].matches('|').count(), lines[2].matches('|').count());
    let plain = table(&[row(1, "pfifo")]);
    assert!(plain.starts_with("| Round | arm |"), "{plain}");
}

/// A one-arm fq_codel sweep (limit 10240) gets no note about
/// "pfifo and fq_codel both have a 256-packet limit"; the method's pair
/// does, and a pair with other limits does not.
#[test]
fn the_limit_note_appears_only_where_the_arms_have_those_limits() {
    let note = NOTES.iter().find(|n| n.contains("256-packet")).unwrap();
    assert!(!note_fits_arms(note, ["fq_codel limit 10240"]));
    assert!(!notes_for(["fq_codel"]).contains(note));
    assert!(note_fits_arms(
        note,
        [
            "pfifo limit 256",
            "fq_codel limit 256 memory_limit 1048576 ecn"
        ]
    ));
    assert!(!note_fits_arms(
        note,
        ["pfifo limit 1000", "fq_codel limit 256"]
    ));
    let mut r = row(1, "fq_codel");
    r.arm_words = "fq_codel limit 10240".into();
    let md = markdown("# x", None, &[r], &[], &[], false);
    assert!(!md.contains(note), "{md}");
}

/// A shard's summary says which share of the plan it holds and what it
/// resumed; the golden run (no shard) says nothing of it.
#[test]
fn a_shard_says_its_share_and_its_earlier_attempts() {
    let (mut results, md) = golden();
    assert!(!md.contains("Shard "));
    results.shard = Some(netlab_results::ShardRecord {
        k: 2,
        n: 3,
        units_total: 9,
        plan_indices: vec![3, 4, 9, 10, 11],
    });
    results.resumed_from = vec!["abc123".into()];
    let md = render(&results, 0);
    assert!(
        md.contains("Shard 2/3 of the plan (`run --shard`): plan indices 3–4, 9–11 of 9 unit(s)"),
        "{md}"
    );
    assert!(
        md.contains("Resumed (`--resume`) from run(s) abc123."),
        "{md}"
    );
}

#[test]
fn a_partial_packet_file_is_noted_with_why_and_a_complete_one_is_not() {
    use netlab_ecn::pcap::{PcapContent, PcapCut, PcapFileRecord};
    let (mut results, md) = golden();
    let record = |partial: Vec<PcapCut>| PcapFileRecord {
        file: "pcap/s01-round1-pfifo.headers.pcapng".into(),
        content: PcapContent::Headers,
        snap_len: 128,
        frames: 447,
        frames_missing: 7683,
        bytes: 65800,
        partial,
    };
    let ecn = results.scenarios[0].ecn.as_mut().unwrap();
    ecn.headers_pcap = Some(record(Vec::new()));
    // A complete file changes nothing in the summary.
    assert_eq!(render(&results, 0), md);
    let ecn = results.scenarios[0].ecn.as_mut().unwrap();
    ecn.headers_pcap = Some(record(vec![PcapCut::WriteFailed {
        error: "No space left on device (os error 28)".into(),
    }]));
    let out = render(&results, 0);
    assert!(
        out.contains("pcap/s01-round1-pfifo.headers.pcapng is partial (447 frames in it, 7683 missing): writing failed (No space left on device (os error 28)); the file ends at its last complete block"),
        "{out}"
    );
}

#[test]
fn the_fates_section_counts_each_loaded_requests_fate() {
    use netlab_results::fate::{
        DropBudget, DropInterval, DropReason, EchoArrival, EchoArrivals, FateInput, ProbeFates,
    };
    let (mut results, md) = golden();
    assert!(!md.contains("by fate"), "no fates in the golden run");
    // fq_codel (scenario 2): its one loaded timeout never reached B, and
    // the arm dropped one packet around its send.
    let s = &mut results.scenarios[1];
    let p = s.probes.first_mut().unwrap();
    let mut drops = Vec::new();
    let arrivals = p
        .requests
        .iter()
        .filter_map(|r| match r.rtt_ms {
            Some(rtt) => Some(EchoArrival {
                seq: r.seq,
                recv_s: r.send_s + rtt / 2e3,
            }),
            None => {
                drops.push(DropInterval {
                    start_s: r.send_s - 0.05,
                    end_s: r.send_s + 0.15,
                    qdisc: "fq_codel".into(),
                    drops: 1,
                    reason: DropReason::CodelDrop,
                });
                None
            }
        })
        .collect();
    let arrivals = EchoArrivals {
        shared_clock: true,
        arrivals,
        not_logged: 0,
        closed_s: Some(10.0),
    };
    let inputs: Vec<FateInput> = p.requests.iter().map(FateInput::of_probe).collect();
    p.fates = Some(ProbeFates::build(
        &inputs,
        &arrivals,
        p.config.timeout,
        Some(&mut DropBudget::new(drops)),
    ));
    let out = render(&results, 0);
    assert!(out.contains("Loaded probe requests by fate"), "{out}");
    assert!(
        out.contains("| 2 | 1 | fq_codel | 6 | 5 | 0 (0) | 1: 1 dropped by CoDel | 0 | "),
        "{out}"
    );
    assert!(
        !out.contains("| 1 | 1 | pfifo | 2 |"),
        "pfifo has no fates: no row"
    );
}

/// The header's kernel line is one line, whatever the run recorded: the
/// lacking kinds named, the modules and flags left to results.json.
#[test]
fn the_kernel_line_says_the_kernel_and_why_in_one_line() {
    let because = "auto: qdisc codel is not available in this kernel (6.18.44-fc-v1147): load sch_codel or use --kernel uml\n\
        qdisc fq_codel is not available in this kernel (6.18.44-fc-v1147): load sch_fq_codel or use --kernel uml\n\
        qdisc netem is not available in this kernel (6.18.44-fc-v1147): load sch_netem or use --kernel uml\n\
        qdisc pie is not available in this kernel (6.18.44-fc-v1147): load sch_pie or use --kernel uml";
    assert_eq!(
        super::kernel_line("uml 6.1.176", because),
        "uml 6.1.176: the host kernel (6.18.44-fc-v1147) lacks codel, fq_codel, netem, pie"
    );
    let cc = "auto: congestion control vegas is not available in this kernel (6.18.44; it offers reno cubic bbr): load tcp_vegas or use --kernel uml";
    assert_eq!(
        super::kernel_line("uml 6.1.176", cc),
        "uml 6.1.176: the host kernel (6.18.44) lacks cc vegas"
    );
    assert_eq!(
        super::kernel_line("host 6.18.44", "auto: the host kernel has pfifo and reno"),
        "host 6.18.44: the host kernel has pfifo and reno"
    );
    assert_eq!(
        super::kernel_line("uml 6.1.176", "--kernel uml"),
        "uml 6.1.176 (--kernel uml)"
    );
}
