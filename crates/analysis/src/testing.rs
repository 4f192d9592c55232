//! A small made-up run for tests of the crates that draw and check the
//! analysis (behind the `testing` feature): two arms over a few rounds
//! whose comparison is known in advance.

use crate::records::{
    BacklogSample, FinalCounters, FlowSeries, KernelText, Logged, Phases, PointText, ProbeOutcome,
    ProbePhase, ProbeSample, ReportInput, Scenario,
};

/// One scenario of [`input`]: its loaded probes' RTTs (None a timeout) and
/// the arm's drops.
pub fn scenario(index: u32, round: u32, arm: &str, rtts: &[Option<f64>], drops: u64) -> Scenario {
    Scenario {
        index,
        round,
        arm: arm.into(),
        kind: arm.into(),
        arm_words: arm.into(),
        cc: Some("reno".into()),
        t0_utc: None,
        phases: Phases {
            baseline: [0.0, 2.0],
            loaded: [4.0, 10.0],
            end_s: 10.0,
        },
        probe_timeout_s: 1.0,
        probes: rtts
            .iter()
            .enumerate()
            .map(|(i, r)| ProbeSample {
                seq: i as u32,
                send_s: 4.0 + i as f64 * 0.2,
                phase: ProbePhase::Loaded,
                outcome: match r {
                    Some(ms) => ProbeOutcome::Reply { rtt_ms: *ms },
                    None => ProbeOutcome::Timeout,
                },
                logged: match r {
                    Some(_) => Logged::Reply,
                    None => Logged::Timeout,
                },
                late_rtt_ms: None,
            })
            .collect(),
        flows: vec![FlowSeries {
            label: "flow 1".into(),
            direction: "up".into(),
            cc: "cubic".into(),
            bin_s: 0.2,
            bytes: vec![125_000; 50],
        }],
        flow_records: Vec::new(),
        measured_window: Some([4.0, 10.0]),
        tcp_info: vec![],
        // The arm's counters at the window's start: every drop is
        // inside the window.
        qdisc: vec![BacklogSample {
            t_s: 3.95,
            backlog_bytes: 0,
            backlog_packets: 0,
            drops: 0,
            ecn_marks: None,
            packets: 0,
        }],
        final_counters: FinalCounters {
            arm_drops: Some(drops),
            ..Default::default()
        },
        error: None,
        packet_files: Vec::new(),
        fates: None,
        ecn_flow: false,
        point: PointText::default(),
        directions: Vec::new(),
        iso: None,
        readbacks: Default::default(),
    }
}

/// A run of `rounds` rounds of two arms: pfifo, whose loaded probes
/// wait about 0.5 s and one in four times out, against fq_codel's few
/// milliseconds and no timeout; 5 Mbit/s, one flow each.
pub fn input(rounds: u32) -> ReportInput {
    let mut scenarios = Vec::new();
    for r in 1..=rounds {
        let slow: Vec<Option<f64>> = (0..10)
            .map(|i| {
                if i % 4 == 3 {
                    None
                } else {
                    Some(480.0 + i as f64 * 5.0 + r as f64)
                }
            })
            .collect();
        let fast: Vec<Option<f64>> = (0..20).map(|i| Some(3.0 + i as f64 * 0.2)).collect();
        scenarios.push(scenario(2 * r - 1, r, "pfifo", &slow, 100 + r as u64));
        scenarios.push(scenario(2 * r, r, "fq_codel", &fast, 4));
    }
    ReportInput {
        schema_version: 1,
        tool: "netlab test".into(),
        run_id: "x".into(),
        started_utc: String::new(),
        finished_utc: String::new(),
        kernel: KernelText::default(),
        config: vec![],
        bottleneck_bps: Some(5_000_000),
        scenarios,
        notes: vec![],
        caveats: vec![],
        scope: None,
        models: vec![],
        figures: Vec::new(),
    }
}

/// A committed run of `fixtures/report/<name>/results.json.gz`, parsed
/// (this crate's unit tests).
#[cfg(test)]
pub(crate) fn fixture_results(name: &str) -> netlab_results::Results {
    let path = format!(
        "{}/../../fixtures/report/{name}/results.json.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut json = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut json).unwrap();
    netlab_results::Results::parse(&json).unwrap()
}
